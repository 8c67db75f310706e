/* classnames.c: the interned class names of alloc and lock samples. */
#include "classnames.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_hash.h"

/* open addressing, twice as many slots as names so probes stay short */
#define SLOTS (2 * CLASSNAMES_MAX)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char *table[SLOTS]; /* under mu; entries are never freed (ring records point at them) */
static unsigned used;      /* under mu */

void classnames_from_signature(const char *sig, char *out, size_t len)
{
    size_t dims = 0, n = 0;
    if (!len)
        return;
    while (sig[dims] == '[')
        dims++;
    const char *t = sig + dims, *base = NULL;
    size_t blen = 0;
    switch (*t) {
    case 'Z':
        base = "boolean";
        break;
    case 'B':
        base = "byte";
        break;
    case 'C':
        base = "char";
        break;
    case 'S':
        base = "short";
        break;
    case 'I':
        base = "int";
        break;
    case 'J':
        base = "long";
        break;
    case 'F':
        base = "float";
        break;
    case 'D':
        base = "double";
        break;
    case 'V':
        base = "void";
        break;
    case 'L':
        base = t + 1;
        blen = strcspn(base, ";");
        break;
    default:
        base = t;
        break;
    }
    if (!blen)
        blen = strlen(base);
    for (size_t i = 0; i < blen && n + 1 < len; i++)
        out[n++] = base[i] == '/' ? '.' : base[i];
    for (size_t d = 0; d < dims && n + 2 < len; d++) {
        out[n++] = '[';
        out[n++] = ']';
    }
    out[n] = 0;
}

/* The interned copy of name (under mu). */
static const char *intern_locked(const char *name)
{
    size_t n = strlen(name);
    uint64_t h = fpl_hash_bytes(name, n);
    for (size_t i = 0; i < SLOTS; i++) {
        size_t s = (size_t)((h + i) % SLOTS);
        if (!table[s]) {
            if (used >= CLASSNAMES_MAX)
                return CLASSNAMES_FULL;
            char *c = malloc(n + 1);
            if (!c)
                return CLASSNAMES_FULL;
            memcpy(c, name, n + 1);
            table[s] = c;
            used++;
            return c;
        }
        if (strcmp(table[s], name) == 0)
            return table[s];
    }
    return CLASSNAMES_FULL;
}

const char *classnames_intern_signature(const char *sig)
{
    char name[CLASSNAMES_LEN];
    classnames_from_signature(sig, name, sizeof(name));
    pthread_mutex_lock(&mu);
    const char *r = intern_locked(name);
    pthread_mutex_unlock(&mu);
    return r;
}

const char *classnames_of(jvmtiEnv *jvmti, jclass klass)
{
    char *sig = NULL;
    if (!klass || (*jvmti)->GetClassSignature(jvmti, klass, &sig, NULL) != JVMTI_ERROR_NONE || !sig)
        return CLASSNAMES_UNKNOWN;
    const char *r = classnames_intern_signature(sig);
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
    return r;
}
