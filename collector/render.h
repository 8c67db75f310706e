/* render.h: what every output writer shares: the render options (kind, per-thread roots,
 * callers view, state, include/exclude filters, title), the selection of aggregation cells,
 * and a call tree built from the selected cells (flame graphs, text trees, diffs). Library
 * code: never prints, returns 0 or -errno with a message in err. Any thread; a tree is used
 * by one thread at a time.
 */
#ifndef RENDER_H
#define RENDER_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

#define RENDER_STATE_ALL (-1)

struct render_opts {
    int kind;              /* FPL_KIND_CPU, FPL_KIND_WALL, PROFILE_KIND_ALL, PROFILE_KIND_AUTO */
    int threads;           /* a root frame per thread (its name) */
    int reverse;           /* callers view: the leaf becomes the root */
    int state;             /* RENDER_STATE_ALL or an enum fpl_state: wall samples in it only */
    const char *include;   /* POSIX extended regex: keep stacks with a frame matching; NULL all */
    const char *exclude;   /* drop stacks with a frame matching; NULL none */
    const char *title;     /* NULL: render_default_title */
};

/* Frame types, for colors and legends. */
enum render_type {
    RENDER_JAVA = 0,       /* a Java method (AGCT does not tell interpreted from compiled) */
    RENDER_INLINED = 1,    /* reserved: a Java frame known to be inlined */
    RENDER_NATIVE = 2,     /* a Java method declared native */
    RENDER_CFUNC = 3,      /* a native C/C++ function (JVM internals, libraries) */
    RENDER_MARKER = 4,     /* a failure or truncation marker ([agct:...], [truncated]) */
    RENDER_THREAD = 5,     /* a synthetic thread root */
    RENDER_STATE = 6,      /* a synthetic thread-state leaf (wall samples) */
    RENDER_KIND = 7,       /* a synthetic [cpu] / [wall] root (PROFILE_KIND_ALL) */
};

/* Compiled filters; render_select_init / render_select_destroy. */
struct render_select {
    const struct profile *p;
    struct render_opts o;
    int kind;              /* resolved (never PROFILE_KIND_AUTO) */
    int have_include, have_exclude;
    regex_t include, exclude;
    uint8_t *stack_verdict;/* per profile stack index: 0 unknown, 1 keep, 2 drop */
};

/* Compiles o's filters for p. Returns 0, or -EINVAL naming the bad regex in err. */
int render_select_init(struct render_select *s, const struct profile *p,
                       const struct render_opts *o, char *err, size_t errlen);
void render_select_destroy(struct render_select *s);

/* 1 when the cell e is selected (kind, state, include/exclude on its stack's frame names;
 * verdicts cached per stack). */
int render_select_entry(struct render_select *s, const struct profile_entry *e);

/* The weight a selected cell contributes: raw for CPU, upscaled (rounded) for wall. */
uint64_t render_entry_weight(const struct render_select *s, const struct profile_entry *e);

/* A call tree. Node 0 is the root (all selected samples); children are linked through
 * first_child / next_sibling, sorted by name; names are indices into `names`. */
struct render_node {
    uint32_t name;         /* index into render_tree.names */
    uint8_t type;          /* enum render_type */
    uint32_t parent;       /* UINT32_MAX for the root */
    uint32_t first_child;  /* UINT32_MAX: none */
    uint32_t next_sibling; /* UINT32_MAX: none */
    uint32_t depth;        /* root 0 */
    uint64_t total;        /* weight of the samples through this node */
    uint64_t self;         /* weight of the samples ending here */
};

struct render_tree {
    struct render_node *nodes;
    size_t nnodes;
    const char **names;    /* distinct frame names (clean, one-line), owned by the tree */
    size_t nnames;
    uint64_t total;        /* nodes[0].total */
    uint64_t samples;      /* selected samples (raw count) */
    int kind;              /* the resolved kind */
    void *internal;
};

/* Builds the call tree of p's selected cells (root first, or leaf first with o->reverse;
 * thread roots with o->threads; a state leaf for wall samples when o->kind is wall and no
 * state filter is set). Returns 0 or -errno with err filled. */
int render_tree_build(struct render_tree *t, const struct profile *p,
                      const struct render_opts *o, char *err, size_t errlen);
void render_tree_destroy(struct render_tree *t);

/* For a diff: for every node of t, the total of the node with the same path (same names
 * from the root) in base, or 0 when base has no such path. out has t->nnodes entries. */
int render_tree_match(const struct render_tree *t, const struct render_tree *base,
                      uint64_t *out);

/* "cpu profile of <command> (pid N), <duration> s, <samples> samples" and similar, into buf. */
void render_default_title(const struct profile *p, int kind, char *buf, size_t len);

#endif
