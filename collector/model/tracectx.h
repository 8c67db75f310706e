/* tracectx.h: trace context in a profile (FORMAT.md 5.16, 5.17): the CONTEXT dictionary
 * (context id -> span, root span), the ENDPOINT names of root spans, and the selection of
 * samples by context (convert --endpoint RE, --span ID, --root-span ID), applied while the
 * log streams in so that no per-sample state is kept.
 *
 * --endpoint needs a root span's name when its samples are read, but applications name a
 * request when they like (often when it ends, after its samples): the profile then reads the
 * ENDPOINT records in a first pass (tracectx_wants_names), a cheap one that decodes nothing
 * else, and the samples in a second.
 *
 * Memory: one entry per CONTEXT record (24 bytes + index) and per named root span (24 bytes +
 * index), and each distinct name once: proportional to the requests the log names, not to its
 * samples.
 * Never prints. One thread at a time.
 */
#ifndef TRACECTX_H
#define TRACECTX_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "hashtab.h"

#define TRACECTX_UNNAMED "[unnamed]" /* the endpoint of a root span never named */

struct tracectx_def {
    uint64_t id;
    uint64_t span;
    uint64_t root;
};

/* A distinct endpoint name: requests share a few, so each is kept once. */
struct tracectx_str {
    char *s;      /* NUL-terminated copy, made safe for one-line outputs (profile_clean) */
    int8_t match; /* --endpoint: -1 not tested yet, 0 no, 1 yes */
};

struct tracectx_name {
    uint64_t root;
    const char *name; /* strs[str].s */
    uint32_t str;
};

struct tracectx {
    struct tracectx_def *defs;
    size_t ndefs, defs_cap;
    struct hashtab def_index; /* id -> defs */
    struct tracectx_name *names;
    size_t nnames, names_cap;
    struct hashtab name_index; /* root -> names */
    struct tracectx_str *strs; /* the distinct names */
    size_t nstrs, strs_cap;
    struct hashtab str_index; /* name -> strs */
    /* the selection (tracectx_select) */
    int selecting;
    int has_span, has_root, has_re;
    uint64_t span, root;
    regex_t re;
    uint64_t skipped;   /* samples left out by the selection */
    uint64_t undefined; /* samples whose context id was never defined (chunk lost) */
};

/* Frees everything; the struct is empty (zeroed) and usable again. */
void tracectx_destroy(struct tracectx *t);

/* A CONTEXT record; a later definition of an id replaces the earlier. 0 or -ENOMEM. */
int tracectx_define(struct tracectx *t, uint64_t id, uint64_t span, uint64_t root);

/* An ENDPOINT record (name as logged, len bytes); the last one for a root wins. 0 or
 * -ENOMEM. */
int tracectx_name(struct tracectx *t, uint64_t root, const char *name, size_t len);

/* The definition of context id, NULL when never defined (or id 0). */
const struct tracectx_def *tracectx_find(const struct tracectx *t, uint64_t id);

/* The endpoint name of root span `root`, NULL when it was never named. */
const char *tracectx_endpoint(const struct tracectx *t, uint64_t root);

/* Selects samples: those whose context's root span was named with an endpoint matching the
 * POSIX extended regular expression endpoint_re (NULL: any), whose span is *span and whose
 * root span is *root (NULL: any). With any of them, samples without a context are left out.
 * Returns 0, or -EINVAL with a message in err for a bad expression. */
int tracectx_select(struct tracectx *t, const char *endpoint_re, const uint64_t *span,
                    const uint64_t *root, char *err, size_t errlen);

/* 1 when the selection needs every ENDPOINT record before the first sample (--endpoint). */
int tracectx_wants_names(const struct tracectx *t);

/* 1 when a sample with this context id (0: none) is selected; counts the others. */
int tracectx_keep(struct tracectx *t, uint64_t context_id);

#endif
