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
    int kind;              /* enum fpl_kind (cpu, wall, alloc, lock), PROFILE_KIND_ALL (cpu and
                            * wall), PROFILE_KIND_AUTO */
    int threads;           /* a root frame per thread (its name) */
    int reverse;           /* callers view: the leaf becomes the root */
    int state;             /* RENDER_STATE_ALL or an enum fpl_state: wall samples in it only */
    const char *include;   /* POSIX extended regex: keep stacks with a frame matching; NULL all */
    const char *exclude;   /* drop stacks with a frame matching; NULL none */
    const char *thread;    /* POSIX extended regex: only threads whose name matches; NULL all */
    const char *title;     /* NULL: render_default_title */
    /* Java frames typed by how they ran (interpreted, compiled, inlined, C1; logged by the
     * agent's walker): the type becomes part of a frame's identity, so a method that ran two
     * ways is two nodes (as in the HTML flame graph); off: one node per method, RENDER_JAVA */
    int frame_types;
    /* folded output: a suffix per frame saying how it ran, as flamegraph.pl's java palette
     * and async-profiler read it (render_annotation) */
    int annotate;
    /* The tree's node budget (render_tree_build): frames whose weight is under min_share of
     * the root's are merged, per parent, into one "[N small frames]" node (RENDER_SMALL);
     * min_share is raised (doubled) until at most max_nodes nodes remain. 0: no pruning, no
     * limit. Outputs that always prune (the flame graph) use their own default for 0. */
    double min_share;
    uint32_t max_nodes;
    int no_states;         /* wall samples without their thread-state leaf frame */
    /* JFR output (out_jfr.h): a new chunk once a chunk's events take this many bytes, or
     * span this many ns of sample time; 0: the JDK's defaults (12 MB, 1 h) */
    uint64_t chunk_bytes;
    uint64_t chunk_ns;
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
    RENDER_INTERPRETED = 8,/* a Java method run by the interpreter (frame_types) */
    RENDER_COMPILED = 9,   /* a Java method, compiled by C2 or JVMCI (frame_types) */
    RENDER_C1 = 10,        /* a Java method, compiled by C1 (frame_types) */
    RENDER_STUB = 11,      /* a JVM stub or CodeBlob (method kind STUB) */
    RENDER_KERNEL = 12,    /* kernel code (frame type KERNEL) */
    RENDER_SMALL = 13,     /* "[N small frames]": children under the node budget, merged */
    RENDER_CLASS = 14,     /* the class leaf of an alloc or lock sample (method kind CLASS) */
    RENDER_TYPES = 15,     /* the number of types */
};

/* The name of a RENDER_SMALL node, from its count (and "s" unless it is 1). */
#define RENDER_SMALL_FMT "[%u small frame%s]"

/* The folded-output suffix of a frame of type ftype (enum fpl_frame_type): "_[j]" compiled
 * (C2/JVMCI), "_[i]" inlined, "_[0]" interpreted, "_[1]" C1, "_[k]" kernel -- the annotations
 * flamegraph.pl's java palette (j, i, k) and async-profiler (also 0, 1) read; "" for Java
 * frames of unknown state, native code, stubs and markers, which flamegraph.pl tells apart by
 * name (C++ "::", Java packages). */
const char *render_annotation(uint8_t ftype);

/* Compiled filters; render_select_init / render_select_destroy. The match caches hold
 * RENDER_MATCH_* bits (0: not computed yet). */
struct render_select {
    const struct profile *p;
    struct render_opts o;
    int kind;              /* resolved (never PROFILE_KIND_AUTO) */
    /* the unit of the weights an output shows (render_unit_ns): per kind, the ns one weight
     * of that kind stands for, when the two kinds meet (PROFILE_KIND_ALL) and their intervals
     * are known; both 0 otherwise: weights are sampling intervals, as logged */
    uint64_t unit_ns[PROFILE_KINDS];
    int have_include, have_exclude;
    regex_t include, exclude;
    uint8_t *stack_verdict;/* per profile stack index (+1 slot: undefined stack): the bits of
                            * its frames' names */
    uint8_t *method_match; /* per method index (+1 slot: undefined method) */
    uint8_t *thread_match; /* per thread index (+1 slot: undefined thread) */
    int have_thread;
    regex_t thread;
    uint8_t *thread_sel;   /* per thread index (+1 slot): 0 not known, 1 left out, 2 selected */
};

#define RENDER_MATCH_KNOWN 1u   /* the bits below are computed */
#define RENDER_MATCH_INCLUDE 2u /* a name matches the include regex */
#define RENDER_MATCH_EXCLUDE 4u /* a name matches the exclude regex */

/* Compiles o's filters for p. With o->kind PROFILE_KIND_AUTO and a state filter, the kind is
 * wall when p has wall samples (states are a wall-clock notion), otherwise as
 * profile_resolve_kind. Returns 0, or -EINVAL naming the bad regex, kind or state in err. */
int render_select_init(struct render_select *s, const struct profile *p,
                       const struct render_opts *o, char *err, size_t errlen);
void render_select_destroy(struct render_select *s);

/* 1 when the cell e is selected: its kind; its state when o.state is set (a CPU sample of
 * unknown state counts as running); its thread's name by o.thread; include/exclude on its
 * stack's frame display names and, with o.threads, its thread's name (matches cached per
 * method, thread and stack). */
int render_select_entry(struct render_select *s, const struct profile_entry *e);

/* The unit of the weights of an output of kind (resolved) from p, into unit_ns[kind]: where
 * the two kinds meet (PROFILE_KIND_ALL), CPU weights and wall weights count different things
 * (CPU intervals of 10 ms, thread-intervals of 50 ms), so each weight becomes the time it
 * stands for -- weight x interval in ns (upscaled for wall): CPU time and thread time, which
 * add up. Returns 1 then. With one kind, or when an interval of a kind with samples is
 * unknown (the header was lost), weights stay in sampling intervals: unit_ns is {0, 0} and
 * the result 0. */
int render_unit_ns(const struct profile *p, int kind, uint64_t unit_ns[PROFILE_KINDS]);

/* fp, a fixed-point weight of kind as logged (sampling intervals, upscaled for wall), in the
 * unit of s (render_unit_ns), saturating. */
unsigned __int128 render_fp_unit(const struct render_select *s, int kind, unsigned __int128 fp);

/* The fixed-point weight a selected cell contributes, in the unit of s: its upscaled weight
 * (raw for CPU), times its kind's interval where the kinds meet. */
unsigned __int128 render_entry_fp(const struct render_select *s, const struct profile_entry *e);

/* render_entry_fp rounded (halves up). */
uint64_t render_entry_weight(const struct render_select *s, const struct profile_entry *e);

/* A call tree. Node 0 is the root (all selected samples; name RENDER_ROOT_NAME, type
 * RENDER_KIND); children are linked through first_child / next_sibling, sorted bytewise by
 * name; names are indices into `names`. Nodes are numbered in depth-first preorder (a parent
 * before its children, a subtree contiguous), so nodes[i].parent < i.
 *
 * Weights: CPU trees are exact sums of raw weights. Wall weights are fixed point (upscaled,
 * profile.h); the tree sums them exactly, then lays the nodes out as intervals of the root's
 * total (children left to right in name order, self last) and rounds the interval ends to
 * integers (halves up), so every node is within 1 of its exact weight, the root is the exact
 * total rounded as in profile_fp_round, and a node's total is always its self plus its
 * children's totals.
 *
 * Budget (render_opts.min_share, max_nodes): a node whose exact weight is under the threshold
 * is not in the tree; the children of one parent that are merged become one RENDER_SMALL node
 * after the parent's other children (its weight their exact sum: totals are preserved, and
 * it has no children). Nodes above the threshold are exactly as without a budget but for
 * rounding (their place among the parent's children moves). The tree is built with at most
 * the nodes kept (and the current path) in memory, never the whole unpruned tree. */
struct render_node {
    uint32_t name;         /* index into render_tree.names */
    uint8_t type;          /* enum render_type */
    uint32_t merged;       /* RENDER_SMALL: how many sibling frames (each with its subtree) it
                            * stands for; 0 for other nodes */
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
    const char **names;    /* distinct frame names (clean, one-line UTF-8), owned by the tree;
                            * one per (text, type): a text used by two node types (a thread
                            * and a method both named main) appears twice */
    size_t nnames;
    uint64_t total;        /* nodes[0].total */
    uint64_t samples;      /* selected samples (raw count) */
    int kind;              /* the resolved kind */
    int unit_ns;           /* weights are ns (both kinds: render_unit_ns), not intervals */
    /* the budget in force: frames under min_share of the root's weight (min_weight, in
     * weight units) were merged -- merged_frames of them, into merged_nodes RENDER_SMALL
     * nodes. min_share may be above render_opts.min_share when max_nodes forced it up. */
    double min_share;
    double min_weight;
    uint64_t merged_frames;
    uint32_t merged_nodes;
    void *internal;
};

#define RENDER_ROOT_NAME "all"

/* Builds the call tree of p's selected cells (render_select_entry), merging frames by display
 * name (and node type) along the path, weighed by render_entry_fp. The path of a cell: a
 * "[cpu]" / "[wall]" root (RENDER_KIND) with PROFILE_KIND_ALL, then the thread's name
 * (RENDER_THREAD) with o->threads, then the frames root first, then for a wall sample of known
 * state when no state filter is set and o->no_states is not a state leaf ("[parked]",
 * RENDER_STATE, see render_state_frame). With o->reverse the frames and the state leaf come
 * in reverse order (leaf first: state, executing method, ..., entry point) below the
 * same kind and thread roots. An undefined stack is the one frame PROFILE_UNKNOWN_STACK, an
 * empty one PROFILE_EMPTY_STACK, an undefined method PROFILE_UNKNOWN_FRAME (all RENDER_MARKER).
 * Memory and time grow with the unique stacks, not the samples. The tree owns its names (it
 * does not refer to p after building). Returns 0 or -errno with err filled. */
int render_tree_build(struct render_tree *t, const struct profile *p,
                      const struct render_opts *o, char *err, size_t errlen);
void render_tree_destroy(struct render_tree *t);

/* A node of the unpruned tree, as render_tree_walk visits it. */
struct render_visit {
    uint32_t name;        /* index into the tree's names */
    uint8_t type;         /* enum render_type */
    uint32_t depth;       /* root 0 */
    uint64_t total, self; /* as render_tree_build without a budget would make them */
    uint32_t parent_name; /* UINT32_MAX for the root */
    uint8_t parent_type;
    int outermost;        /* no ancestor bears the same name (and type) */
};

/* Returns 0 to go on, anything else to stop the walk with that value. */
typedef int render_visit_fn(void *ctx, const struct render_tree *t, const struct render_visit *v);

/* As render_tree_build, and visits every node of the unpruned tree once as it is closed,
 * children before their parent, with its exact weights -- without keeping the unpruned tree:
 * with a budget (min_share 1 keeps next to nothing) a caller aggregates over a tree of any
 * size in the memory of the distinct paths. max_nodes is ignored (the budget is not raised:
 * one pass). The visitor reads names from t (t->names is complete; t->nodes is not). Returns
 * 0, the visitor's non-zero value, or -errno with err filled. */
int render_tree_walk(struct render_tree *t, const struct profile *p, const struct render_opts *o,
                     render_visit_fn *visit, void *ctx, char *err, size_t errlen);

/* For a diff: for every node of t, the total of the node with the same path (same names
 * from the root) in base, or 0 when base has no such path. out has t->nnodes entries.
 * Returns 0 or -ENOMEM. */
int render_tree_match(const struct render_tree *t, const struct render_tree *base,
                      uint64_t *out);

/* As render_tree_match, giving for every node of t the index of the node of base with the same
 * path, or UINT32_MAX. out has t->nnodes entries. Returns 0 or -ENOMEM. */
int render_tree_match_nodes(const struct render_tree *t, const struct render_tree *base,
                            uint32_t *out);

/* For every cell of p (profile.entries), the node of t (built from p with o) where its
 * samples' weight ends: the last node of its path, or the RENDER_SMALL node its path was
 * merged into by the budget; UINT32_MAX for a cell o does not select (or of zero weight).
 * out has p->nentries entries. Summing the cells' weights into their nodes as self weights
 * gives back t's self weights (to rounding, for wall). Returns 0 or -errno with err filled. */
int render_tree_entry_nodes(const struct render_tree *t, const struct profile *p,
                            const struct render_opts *o, uint32_t *out, char *err, size_t errlen);

/* The node of t below parent named name, or UINT32_MAX. */
uint32_t render_tree_child(const struct render_tree *t, uint32_t parent, const char *name);

/* The frame of a thread state in trees ("[parked]"), NULL for FPL_STATE_UNKNOWN and unknown
 * values. */
const char *render_state_frame(int state);

/* The state's name as --state takes it ("timed_waiting"), NULL when unknown. */
const char *render_state_name(int state);

/* The state named s (running, blocked, waiting, timed_waiting, parked, sleeping, native,
 * jvm_idle: PROFILE_STATE_JVM_IDLE), or -1. */
int render_state_parse(const char *s);

/* The states --state accepts, for messages: "running, blocked, ...". */
#define RENDER_STATE_NAMES                                                                         \
    "running, blocked, waiting, timed_waiting, parked, sleeping, native, jvm_idle"

/* "cpu", "wall" or "cpu+wall" for a resolved kind. */
const char *render_kind_name(int kind);

/* "cpu profile of <command> (pid N), <duration> s, <samples> samples, flyprof <agent version>"
 * and similar, into buf (one line, cut with "..." when long; the window when one is set; no
 * version for logs that do not say it). kind may be PROFILE_KIND_AUTO. */
void render_default_title(const struct profile *p, int kind, char *buf, size_t len);

#endif
