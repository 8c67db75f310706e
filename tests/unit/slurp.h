/* slurp.h: reads a whole file into a NUL-terminated malloc'ed string, for tests. */
#ifndef SLURP_H
#define SLURP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The contents of path ("" for an empty file), or NULL when it cannot be opened. */
static inline char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = NULL;
    size_t cap = 0;
    if (!f)
        return NULL;
    ssize_t n = getdelim(&buf, &cap, 0, f);
    fclose(f);
    if (n < 0) {
        free(buf);
        return strdup("");
    }
    return buf;
}

#endif
