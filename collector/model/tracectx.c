/* tracectx.c: the CONTEXT dictionary, endpoint names and the selection by context (see
 * tracectx.h). */
#include "tracectx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_hash.h"
#include "profile.h"

static void *grow(void *arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return arr;
    if (n >= HASHTAB_NONE - 1)
        return NULL;
    size_t c = *cap ? *cap * 2 : 64;
    void *q = realloc(arr, c * elem);
    if (q)
        *cap = c;
    return q;
}

void tracectx_destroy(struct tracectx *t)
{
    for (size_t i = 0; i < t->nstrs; i++)
        free(t->strs[i].s);
    free(t->strs);
    hashtab_destroy(&t->str_index);
    free(t->names);
    free(t->defs);
    hashtab_destroy(&t->def_index);
    hashtab_destroy(&t->name_index);
    if (t->has_re)
        regfree(&t->re);
    memset(t, 0, sizeof(*t));
}

static uint32_t def_index(const struct tracectx *t, uint64_t id)
{
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&t->def_index, fpl_hash_u64(id), &pr); k != HASHTAB_NONE;
         k = hashtab_next(&t->def_index, &pr))
        if (t->defs[k].id == id)
            return k;
    return HASHTAB_NONE;
}

static uint32_t name_index(const struct tracectx *t, uint64_t root)
{
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&t->name_index, fpl_hash_u64(root), &pr); k != HASHTAB_NONE;
         k = hashtab_next(&t->name_index, &pr))
        if (t->names[k].root == root)
            return k;
    return HASHTAB_NONE;
}

int tracectx_define(struct tracectx *t, uint64_t id, uint64_t span, uint64_t root)
{
    uint32_t k = def_index(t, id);
    if (k == HASHTAB_NONE) {
        void *q = grow(t->defs, &t->defs_cap, t->ndefs, sizeof(*t->defs));
        if (!q)
            return -ENOMEM;
        t->defs = q;
        k = (uint32_t)t->ndefs;
        if (hashtab_add(&t->def_index, fpl_hash_u64(id), k))
            return -ENOMEM;
        t->ndefs++;
    }
    t->defs[k] = (struct tracectx_def){id, span, root};
    return 0;
}

/* The index of the distinct name s in strs, s (malloc'ed) kept when new, freed when not;
 * HASHTAB_NONE (s freed) when out of memory. */
static uint32_t intern(struct tracectx *t, char *s)
{
    uint64_t h = fpl_hash_str(s);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&t->str_index, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&t->str_index, &pr))
        if (strcmp(t->strs[k].s, s) == 0) {
            free(s);
            return k;
        }
    void *q = grow(t->strs, &t->strs_cap, t->nstrs, sizeof(*t->strs));
    if (!q || hashtab_add(&t->str_index, h, (uint32_t)t->nstrs)) {
        if (q)
            t->strs = q;
        free(s);
        return HASHTAB_NONE;
    }
    t->strs = q;
    t->strs[t->nstrs] = (struct tracectx_str){s, -1};
    return (uint32_t)t->nstrs++;
}

int tracectx_name(struct tracectx *t, uint64_t root, const char *name, size_t len)
{
    size_t cap = 4 * len + 1; /* profile_clean may widen bytes to U+FFFD */
    char *s = malloc(cap);
    if (!s)
        return -ENOMEM;
    profile_clean(s, cap, name, len);
    uint32_t str = intern(t, s);
    if (str == HASHTAB_NONE)
        return -ENOMEM;
    uint32_t k = name_index(t, root);
    if (k == HASHTAB_NONE) {
        void *q = grow(t->names, &t->names_cap, t->nnames, sizeof(*t->names));
        if (!q)
            return -ENOMEM;
        t->names = q;
        k = (uint32_t)t->nnames;
        if (hashtab_add(&t->name_index, fpl_hash_u64(root), k))
            return -ENOMEM;
        t->nnames++;
    }
    t->names[k] = (struct tracectx_name){root, t->strs[str].s, str};
    return 0;
}

const struct tracectx_def *tracectx_find(const struct tracectx *t, uint64_t id)
{
    uint32_t k = id ? def_index(t, id) : HASHTAB_NONE;
    return k == HASHTAB_NONE ? NULL : &t->defs[k];
}

const char *tracectx_endpoint(const struct tracectx *t, uint64_t root)
{
    uint32_t k = name_index(t, root);
    return k == HASHTAB_NONE ? NULL : t->names[k].name;
}

int tracectx_select(struct tracectx *t, const char *endpoint_re, const uint64_t *span,
                    const uint64_t *root, char *err, size_t errlen)
{
    if (endpoint_re) {
        int rc = regcomp(&t->re, endpoint_re, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[256];
            regerror(rc, &t->re, msg, sizeof(msg));
            snprintf(err, errlen, "bad regular expression '%s': %s (POSIX extended syntax)",
                     endpoint_re, msg);
            return -EINVAL;
        }
        t->has_re = 1;
    }
    if (span) {
        t->has_span = 1;
        t->span = *span;
    }
    if (root) {
        t->has_root = 1;
        t->root = *root;
    }
    t->selecting = t->has_re || t->has_span || t->has_root;
    return 0;
}

int tracectx_wants_names(const struct tracectx *t)
{
    return t->has_re;
}

int tracectx_keep(struct tracectx *t, uint64_t context_id)
{
    const struct tracectx_def *d = tracectx_find(t, context_id);
    if (context_id && !d)
        t->undefined++;
    if (!t->selecting)
        return 1;
    int keep = d != NULL;
    if (keep && t->has_span && d->span != t->span)
        keep = 0;
    if (keep && t->has_root && d->root != t->root)
        keep = 0;
    if (keep && t->has_re) {
        uint32_t k = name_index(t, d->root);
        if (k == HASHTAB_NONE) {
            keep = 0;
        } else {
            struct tracectx_str *n = &t->strs[t->names[k].str];
            if (n->match < 0)
                n->match = regexec(&t->re, n->s, 0, NULL, 0) == 0;
            keep = n->match;
        }
    }
    if (!keep)
        t->skipped++;
    return keep;
}
