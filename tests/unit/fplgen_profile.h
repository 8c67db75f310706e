/* fplgen_profile.h: reads an fplgen log into a profile, for tests that link the collector. */
#ifndef FPLGEN_PROFILE_H
#define FPLGEN_PROFILE_H

#include <stdio.h>
#include <stdlib.h>

#include "fplgen.h"
#include "profile.h"

/* Reads the log made so far into a new profile named `name` (from an exactly sized copy).
 * Returns NULL, after printing the reader's message, when it cannot be read. */
static inline struct profile *fplgen_profile(struct fplgen *g, const char *name)
{
    char err[256];
    size_t len;
    uint8_t *data = fplgen_bytes(g, &len);
    struct profile *p = profile_new();
    if (!data || !p) {
        free(data);
        profile_free(p);
        return NULL;
    }
    if (profile_read_mem(p, data, len, name, err, sizeof(err)) != 0) {
        fprintf(stderr, "read: %s\n", err);
        profile_free(p);
        p = NULL;
    }
    free(data);
    return p;
}

#endif
