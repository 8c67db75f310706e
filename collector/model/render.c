/* render.c: selection of aggregation cells and call trees for the output writers (see
 * render.h). A tree is built without searching for children: the selected cells merge, by a
 * hash, into distinct paths (names interned once per method, sequences once per stack); the
 * paths are sorted by name, and each one then shares its nodes with the previous path up to
 * their common prefix and adds new nodes after it. Nodes come out in preorder with sorted
 * children, in time linear in the path elements plus a sort of the distinct paths. Fixed-point
 * weights are rounded as interval ends so that integer totals stay consistent. */
#include "render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
#define NAMES_BLOCK (64u << 10)
#define TITLE_COMMAND_MAX 120

static const char *const state_names[] = {
    NULL, "running", "blocked", "waiting", "timed_waiting", "parked", "sleeping", "native"};
static const char *const state_frames[] = {NULL,         "[running]",       "[blocked]",
                                           "[waiting]",  "[timed_waiting]", "[parked]",
                                           "[sleeping]", "[native]"};
#define NSTATES (sizeof(state_names) / sizeof(state_names[0]))

const char *render_state_name(int state)
{
    return state >= 0 && (size_t)state < NSTATES ? state_names[state] : NULL;
}

const char *render_state_frame(int state)
{
    return state >= 0 && (size_t)state < NSTATES ? state_frames[state] : NULL;
}

int render_state_parse(const char *s)
{
    for (size_t i = 1; i < NSTATES; i++) {
        if (strcmp(s, state_names[i]) == 0)
            return (int)i;
    }
    return -1;
}

const char *render_kind_name(int kind)
{
    return kind == FPL_KIND_CPU ? "cpu" : kind == FPL_KIND_WALL ? "wall" : "cpu+wall";
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return mix64(h);
}

/* ---- selection ---- */

/* The RENDER_MATCH_* bits of one name. */
static uint8_t match_name(const struct render_select *s, const char *name)
{
    uint8_t b = RENDER_MATCH_KNOWN;
    if (s->have_include && regexec(&s->include, name, 0, NULL, 0) == 0)
        b |= RENDER_MATCH_INCLUDE;
    if (s->have_exclude && regexec(&s->exclude, name, 0, NULL, 0) == 0)
        b |= RENDER_MATCH_EXCLUDE;
    return b;
}

int render_select_init(struct render_select *s, const struct profile *p,
                       const struct render_opts *o, char *err, size_t errlen)
{
    char msg[256];
    int rc;

    memset(s, 0, sizeof(*s));
    s->p = p;
    s->o = *o;
    if (o->kind != FPL_KIND_CPU && o->kind != FPL_KIND_WALL && o->kind != PROFILE_KIND_ALL &&
        o->kind != PROFILE_KIND_AUTO) {
        snprintf(err, errlen, "render: unknown kind %d", o->kind);
        return -EINVAL;
    }
    if (o->state != RENDER_STATE_ALL && !render_state_name(o->state)) {
        snprintf(err, errlen, "render: unknown thread state %d: use one of %s", o->state,
                 RENDER_STATE_NAMES);
        return -EINVAL;
    }
    if (o->kind == PROFILE_KIND_AUTO && o->state != RENDER_STATE_ALL &&
        p->total[FPL_KIND_WALL].count)
        s->kind = FPL_KIND_WALL;
    else
        s->kind = profile_resolve_kind(p, o->kind);
    if (o->include && (rc = regcomp(&s->include, o->include, REG_EXTENDED | REG_NOSUB)) != 0) {
        regerror(rc, &s->include, msg, sizeof(msg));
        snprintf(err, errlen, "render: bad include regex '%s': %s", o->include, msg);
        return -EINVAL;
    }
    s->have_include = o->include != NULL;
    if (o->exclude && (rc = regcomp(&s->exclude, o->exclude, REG_EXTENDED | REG_NOSUB)) != 0) {
        regerror(rc, &s->exclude, msg, sizeof(msg));
        snprintf(err, errlen, "render: bad exclude regex '%s': %s", o->exclude, msg);
        render_select_destroy(s);
        return -EINVAL;
    }
    s->have_exclude = o->exclude != NULL;
    if (s->have_include || s->have_exclude) {
        s->stack_verdict = calloc(p->nstacks + 1, 1);
        s->method_match = calloc(p->nmethods + 1, 1);
        s->thread_match = calloc(p->nthreads + 1, 1);
        if (!s->stack_verdict || !s->method_match || !s->thread_match) {
            render_select_destroy(s);
            snprintf(err, errlen, "render: out of memory");
            return -ENOMEM;
        }
    }
    return 0;
}

void render_select_destroy(struct render_select *s)
{
    if (s->have_include)
        regfree(&s->include);
    if (s->have_exclude)
        regfree(&s->exclude);
    free(s->stack_verdict);
    free(s->method_match);
    free(s->thread_match);
    memset(s, 0, sizeof(*s));
}

/* The match bits of a stack's frame names (computed once per stack, names once per method). */
static uint8_t stack_bits(struct render_select *s, uint32_t stack)
{
    const struct profile *p = s->p;
    size_t slot = stack == PROFILE_NONE ? p->nstacks : stack;
    uint8_t b = s->stack_verdict[slot];
    if (b)
        return b;
    if (stack == PROFILE_NONE) {
        b = match_name(s, PROFILE_UNKNOWN_STACK);
    } else if (p->stacks[stack].nframes == 0) {
        b = match_name(s, PROFILE_EMPTY_STACK);
    } else {
        const struct profile_stack *st = &p->stacks[stack];
        b = RENDER_MATCH_KNOWN;
        for (uint32_t k = 0; k < st->nframes; k++) {
            uint32_t m = st->frames[k].method;
            size_t ms = m == PROFILE_NONE ? p->nmethods : m;
            if (!s->method_match[ms])
                s->method_match[ms] = match_name(s, profile_frame_name(p, &st->frames[k]));
            b |= s->method_match[ms];
        }
    }
    s->stack_verdict[slot] = b;
    return b;
}

int render_select_entry(struct render_select *s, const struct profile_entry *e)
{
    if (s->kind == PROFILE_KIND_ALL ? e->kind >= PROFILE_KINDS : e->kind != s->kind)
        return 0;
    if (s->o.state != RENDER_STATE_ALL) {
        int st = e->state;
        if (e->kind == FPL_KIND_CPU && st == FPL_STATE_UNKNOWN)
            st = FPL_STATE_RUNNING; /* a CPU sample was taken on a running thread */
        if (st != s->o.state)
            return 0;
    }
    if (!s->have_include && !s->have_exclude)
        return 1;
    uint8_t b = stack_bits(s, e->stack);
    if (s->o.threads) {
        size_t t = e->thread == PROFILE_NONE ? s->p->nthreads : e->thread;
        if (!s->thread_match[t])
            s->thread_match[t] = match_name(s, profile_entry_thread_name(s->p, e));
        b |= s->thread_match[t];
    }
    if (s->have_include && !(b & RENDER_MATCH_INCLUDE))
        return 0;
    if (s->have_exclude && (b & RENDER_MATCH_EXCLUDE))
        return 0;
    return 1;
}

uint64_t render_entry_weight(const struct render_select *s, const struct profile_entry *e)
{
    (void)s;
    if (e->kind == FPL_KIND_CPU)
        return e->weight;
    return profile_fp_round(e->upscaled);
}

/* ---- trees ---- */

struct names_block {
    struct names_block *next;
    size_t used, cap;
    char data[];
};

/* What a tree keeps besides its nodes: its names' storage and an index by (name, type). */
struct tree_internal {
    struct names_block *blocks;
    size_t names_cap;
    uint64_t *name_hash;  /* per name: hash of (string, type) */
    uint8_t *name_type;   /* per name: the enum render_type it was interned with */
    uint32_t *name_index; /* open addressing: name + 1, 0 empty */
    size_t name_icap;
};

/* One distinct path: cells whose paths are equal merge into one unit before sorting. Its
 * elements are pre[0..npre), then the frames of its stack (seq), then post when npost. */
struct unit {
    uint32_t pre[3];
    uint32_t post;
    uint32_t stack; /* stack slot: index, or nstacks for an undefined stack */
    uint8_t npre, npost;
    unsigned __int128 fp;
    uint64_t count;
};

/* Build-time state, freed when the tree is done. */
struct builder {
    struct render_tree *t;
    struct tree_internal *in;
    const struct profile *p;
    int reverse;
    uint32_t *method_name; /* per method slot (+1: undefined): name + 1, 0 not yet */
    uint32_t *thread_name; /* per thread slot (+1: undefined) */
    uint32_t *stack_len;   /* per stack slot: elements of its sequence, 0 not used yet */
    size_t *stack_off;     /* per stack slot: offset of its sequence in seq */
    uint32_t *seq;         /* the used stacks' sequences: name ids, then ranks */
    size_t nseq, seq_cap;
    struct unit *units;
    size_t nunits, units_cap;
    uint32_t *unit_index; /* dedup: open addressing, unit + 1 */
    size_t unit_icap;
    uint32_t *rank; /* per name: its place in the sorted names */
};

static const char *names_copy(struct tree_internal *in, const char *s)
{
    size_t n = strlen(s) + 1;
    struct names_block *b = in->blocks;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > NAMES_BLOCK ? n : NAMES_BLOCK;
        struct names_block *nb = malloc(sizeof(*nb) + cap);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->cap = cap;
        nb->next = b;
        in->blocks = nb;
        b = nb;
    }
    char *d = b->data + b->used;
    memcpy(d, s, n);
    b->used += n;
    return d;
}

static int name_rehash(struct render_tree *t, struct tree_internal *in)
{
    size_t cap = in->name_icap ? in->name_icap * 2 : 1024, mask = cap - 1;
    uint32_t *idx = calloc(cap, sizeof(*idx));
    if (!idx)
        return -ENOMEM;
    for (size_t k = 0; k < t->nnames; k++) {
        size_t i = (size_t)in->name_hash[k] & mask;
        while (idx[i])
            i = (i + 1) & mask;
        idx[i] = (uint32_t)k + 1;
    }
    free(in->name_index);
    in->name_index = idx;
    in->name_icap = cap;
    return 0;
}

/* The id of (name, type) in t, or NONE. */
static uint32_t name_find(const struct render_tree *t, const char *name, uint8_t type)
{
    const struct tree_internal *in = t->internal;
    uint64_t h = hash_str(name) ^ type;
    if (!in || !in->name_icap)
        return NONE;
    size_t mask = in->name_icap - 1, i = (size_t)h & mask;
    for (uint32_t k; (k = in->name_index[i]) != 0; i = (i + 1) & mask) {
        if (in->name_hash[k - 1] == h && in->name_type[k - 1] == type &&
            strcmp(t->names[k - 1], name) == 0)
            return k - 1;
    }
    return NONE;
}

/* The id of (name, type), added (the string copied) if new; NONE when out of memory. Names
 * of different types are different names, so a thread and a method never merge. */
static uint32_t name_intern(struct render_tree *t, const char *name, uint8_t type)
{
    struct tree_internal *in = t->internal;
    uint32_t id = name_find(t, name, type);
    if (id != NONE)
        return id;
    if (t->nnames >= NONE - 1)
        return NONE;
    if (t->nnames == in->names_cap) {
        size_t cap = in->names_cap ? in->names_cap * 2 : 256;
        const char **nm = realloc(t->names, cap * sizeof(*nm));
        if (!nm)
            return NONE;
        t->names = nm;
        uint64_t *nh = realloc(in->name_hash, cap * sizeof(*nh));
        if (!nh)
            return NONE;
        in->name_hash = nh;
        uint8_t *ty = realloc(in->name_type, cap);
        if (!ty)
            return NONE;
        in->name_type = ty;
        in->names_cap = cap;
    }
    const char *copy = names_copy(in, name);
    if (!copy)
        return NONE;
    id = (uint32_t)t->nnames++;
    t->names[id] = copy;
    in->name_hash[id] = hash_str(name) ^ type;
    in->name_type[id] = type;
    if (t->nnames * 2 > in->name_icap)
        return name_rehash(t, in) ? NONE : id; /* the new name included */
    size_t mask = in->name_icap - 1, i = (size_t)in->name_hash[id] & mask;
    while (in->name_index[i])
        i = (i + 1) & mask;
    in->name_index[i] = id + 1;
    return id;
}

static uint8_t method_type(const struct profile *p, uint32_t m)
{
    if (m == PROFILE_NONE)
        return RENDER_MARKER;
    switch (p->methods[m].kind) {
    case FPL_METHOD_NATIVE:
        return RENDER_NATIVE;
    case FPL_METHOD_MARKER:
        return RENDER_MARKER;
    case FPL_METHOD_CFUNC:
        return RENDER_CFUNC;
    default:
        return RENDER_JAVA;
    }
}

/* The name id of a frame's method (cached per method). */
static uint32_t frame_name(struct builder *b, const struct profile_frame *f)
{
    const struct profile *p = b->p;
    size_t slot = f->method == PROFILE_NONE ? p->nmethods : f->method;
    if (!b->method_name[slot]) {
        uint32_t id = name_intern(b->t, profile_frame_name(p, f), method_type(p, f->method));
        if (id == NONE)
            return NONE;
        b->method_name[slot] = id + 1;
    }
    return b->method_name[slot] - 1;
}

/* Records the name sequence of a stack in the tree's order, once per stack. Returns its slot
 * or NONE when out of memory. */
static uint32_t stack_seq(struct builder *b, uint32_t stack)
{
    const struct profile *p = b->p;
    uint32_t slot = stack == PROFILE_NONE ? (uint32_t)p->nstacks : stack;
    if (b->stack_len[slot])
        return slot;
    uint32_t n = stack == PROFILE_NONE      ? 1
                 : p->stacks[stack].nframes ? p->stacks[stack].nframes
                                            : 1;
    if (b->nseq + n > b->seq_cap) {
        size_t cap = b->seq_cap ? b->seq_cap : 4096;
        while (cap < b->nseq + n)
            cap *= 2;
        uint32_t *q = realloc(b->seq, cap * sizeof(*q));
        if (!q)
            return NONE;
        b->seq = q;
        b->seq_cap = cap;
    }
    uint32_t *out = b->seq + b->nseq;
    if (stack == PROFILE_NONE || p->stacks[stack].nframes == 0) {
        out[0] =
            name_intern(b->t, stack == PROFILE_NONE ? PROFILE_UNKNOWN_STACK : PROFILE_EMPTY_STACK,
                        RENDER_MARKER);
        if (out[0] == NONE)
            return NONE;
    } else {
        const struct profile_stack *st = &p->stacks[stack];
        for (uint32_t i = 0; i < n; i++) {
            /* stacks are stored leaf first */
            out[i] = frame_name(b, &st->frames[b->reverse ? i : n - 1 - i]);
            if (out[i] == NONE)
                return NONE;
        }
    }
    b->stack_off[slot] = b->nseq;
    b->stack_len[slot] = n;
    b->nseq += n;
    return slot;
}

static uint64_t unit_hash(const struct unit *u)
{
    uint64_t h = (uint64_t)u->stack * 0x9e3779b97f4a7c15ull ^ ((uint64_t)u->npre << 40) ^
                 ((uint64_t)u->npost << 48) ^ u->post;
    for (int i = 0; i < u->npre; i++)
        h = mix64(h ^ u->pre[i]);
    return mix64(h);
}

static int unit_same(const struct unit *a, const struct unit *b)
{
    if (a->stack != b->stack || a->npre != b->npre || a->npost != b->npost ||
        (a->npost && a->post != b->post))
        return 0;
    for (int i = 0; i < a->npre; i++) {
        if (a->pre[i] != b->pre[i])
            return 0;
    }
    return 1;
}

static int unit_rehash(struct builder *b)
{
    size_t cap = b->unit_icap ? b->unit_icap * 2 : 1024, mask = cap - 1;
    uint32_t *idx = calloc(cap, sizeof(*idx));
    if (!idx)
        return -ENOMEM;
    for (size_t k = 0; k < b->nunits; k++) {
        size_t i = (size_t)unit_hash(&b->units[k]) & mask;
        while (idx[i])
            i = (i + 1) & mask;
        idx[i] = (uint32_t)k + 1;
    }
    free(b->unit_index);
    b->unit_index = idx;
    b->unit_icap = cap;
    return 0;
}

/* Adds a cell's weight to the unit of its path, creating it. */
static int unit_add(struct builder *b, const struct unit *u)
{
    size_t mask = b->unit_icap - 1, i = (size_t)unit_hash(u) & mask;
    for (uint32_t k; (k = b->unit_index[i]) != 0; i = (i + 1) & mask) {
        struct unit *e = &b->units[k - 1];
        if (unit_same(e, u)) {
            profile_fp_add(&e->fp, u->fp);
            e->count += u->count;
            return 0;
        }
    }
    if (b->nunits >= NONE - 1)
        return -ENOMEM;
    if (b->nunits == b->units_cap) {
        size_t cap = b->units_cap ? b->units_cap * 2 : 1024;
        struct unit *q = realloc(b->units, cap * sizeof(*q));
        if (!q)
            return -ENOMEM;
        b->units = q;
        b->units_cap = cap;
    }
    b->units[b->nunits] = *u;
    b->unit_index[i] = (uint32_t)++b->nunits;
    if (b->nunits * 2 > b->unit_icap)
        return unit_rehash(b);
    return 0;
}

/* The path of one selected cell, as a unit of name ids. */
static int add_entry(struct builder *b, struct render_select *s, const struct profile_entry *e)
{
    const struct profile *p = s->p;
    struct render_tree *t = b->t;
    struct unit u = {.fp = e->upscaled, .count = e->count};
    uint32_t id, state = NONE;

    if (s->kind == PROFILE_KIND_ALL) {
        id = name_intern(t, e->kind == FPL_KIND_CPU ? "[cpu]" : "[wall]", RENDER_KIND);
        if (id == NONE)
            return -ENOMEM;
        u.pre[u.npre++] = id;
    }
    if (s->o.threads) {
        size_t slot = e->thread == PROFILE_NONE ? p->nthreads : e->thread;
        if (!b->thread_name[slot]) {
            id = name_intern(t, profile_entry_thread_name(p, e), RENDER_THREAD);
            if (id == NONE)
                return -ENOMEM;
            b->thread_name[slot] = id + 1;
        }
        u.pre[u.npre++] = b->thread_name[slot] - 1;
    }
    if (e->kind == FPL_KIND_WALL && s->o.state == RENDER_STATE_ALL && !s->o.no_states &&
        render_state_frame(e->state)) {
        if ((state = name_intern(t, render_state_frame(e->state), RENDER_STATE)) == NONE)
            return -ENOMEM;
        if (s->o.reverse)
            u.pre[u.npre++] = state;
        else
            u.post = state, u.npost = 1;
    }
    if ((u.stack = stack_seq(b, e->stack)) == NONE)
        return -ENOMEM;
    t->samples += e->count;
    return unit_add(b, &u);
}

/* Element i of a unit's path, as a rank. */
static inline uint32_t unit_at(const struct builder *b, const struct unit *u, uint32_t i)
{
    if (i < u->npre)
        return u->pre[i];
    i -= u->npre;
    if (i < b->stack_len[u->stack])
        return b->seq[b->stack_off[u->stack] + i];
    return u->post;
}

static uint32_t unit_len(const struct builder *b, const struct unit *u)
{
    return u->npre + b->stack_len[u->stack] + u->npost;
}

/* Length of the common prefix of two units' paths. */
static uint32_t unit_lcp(const struct builder *b, const struct unit *x, const struct unit *y)
{
    uint32_t n = unit_len(b, x), m = unit_len(b, y), lim = n < m ? n : m, i = 0;
    if (x->npre == y->npre) {
        /* the common case: compare the prefixes, then the two stacks' runs directly */
        for (; i < x->npre && x->pre[i] == y->pre[i]; i++)
            ;
        if (i < x->npre)
            return i;
        const uint32_t *a = b->seq + b->stack_off[x->stack], *c = b->seq + b->stack_off[y->stack];
        uint32_t la = b->stack_len[x->stack], lc = b->stack_len[y->stack];
        uint32_t k = 0, kl = la < lc ? la : lc;
        if (x->stack == y->stack)
            k = kl;
        else
            for (; k < kl && a[k] == c[k]; k++)
                ;
        i += k;
        if (k < kl)
            return i;
    }
    for (; i < lim && unit_at(b, x, i) == unit_at(b, y, i); i++)
        ;
    return i;
}

/* Orders units by their paths, element by element (ranks, so by name), a prefix first. */
static int cmp_unit(const void *pa, const void *pb, void *ctx)
{
    const struct builder *b = ctx;
    const struct unit *x = pa, *y = pb;
    uint32_t i = unit_lcp(b, x, y), n = unit_len(b, x), m = unit_len(b, y);
    if (i == n || i == m)
        return n < m ? -1 : n > m;
    return unit_at(b, x, i) < unit_at(b, y, i) ? -1 : 1;
}

/* Orders name ids by name, then type. */
static int cmp_name_id(const void *a, const void *b, void *tree)
{
    const struct render_tree *t = tree;
    const struct tree_internal *in = t->internal;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int c = strcmp(t->names[x], t->names[y]);
    return c ? c : (int)in->name_type[x] - (int)in->name_type[y];
}

/* Ranks the names and rewrites the sequences and units in ranks. Returns the ids by rank. */
static uint32_t *rank_names(struct builder *b)
{
    struct render_tree *t = b->t;
    uint32_t *ids = malloc((t->nnames ? t->nnames : 1) * sizeof(*ids));
    b->rank = malloc((t->nnames ? t->nnames : 1) * sizeof(*b->rank));
    if (!ids || !b->rank) {
        free(ids);
        return NULL;
    }
    for (uint32_t i = 0; i < t->nnames; i++)
        ids[i] = i;
    qsort_r(ids, t->nnames, sizeof(*ids), cmp_name_id, t);
    for (uint32_t i = 0; i < t->nnames; i++)
        b->rank[ids[i]] = i;
    for (size_t i = 0; i < b->nseq; i++)
        b->seq[i] = b->rank[b->seq[i]];
    for (size_t k = 0; k < b->nunits; k++) {
        struct unit *u = &b->units[k];
        for (int i = 0; i < u->npre; i++)
            u->pre[i] = b->rank[u->pre[i]];
        if (u->npost)
            u->post = b->rank[u->post];
    }
    return ids;
}

/* Appends a node (room was made for all of them). */
static uint32_t node_new(struct render_tree *t, uint32_t name, uint8_t type, uint32_t parent,
                         uint32_t depth)
{
    uint32_t n = (uint32_t)t->nnodes++;
    t->nodes[n] = (struct render_node){name, type, parent, NONE, NONE, depth, 0, 0};
    return n;
}

/* Builds the nodes from the sorted units: each unit shares its common prefix with the one
 * before, so its nodes are the previous path's up to there, then new ones; created in this
 * order the nodes are in preorder with children in name order. Then sums and rounds. */
static int grow_tree(struct builder *b, const uint32_t *ids)
{
    struct render_tree *t = b->t;
    const struct tree_internal *in = b->in;
    size_t cap = 0, maxlen = 0;
    unsigned __int128 *fp = NULL, *cursor = NULL;
    uint32_t *at = NULL, *last = NULL, *lcp = NULL;
    int rc = -ENOMEM;

    /* the exact node count first (each unit adds its path after the common prefix), so
     * the arrays are allocated once */
    lcp = malloc((b->nunits ? b->nunits : 1) * sizeof(*lcp));
    if (!lcp)
        goto out;
    cap = 1;
    for (size_t k = 0; k < b->nunits; k++) {
        uint32_t n = unit_len(b, &b->units[k]);
        lcp[k] = k ? unit_lcp(b, &b->units[k], &b->units[k - 1]) : 0;
        cap += n - lcp[k];
        maxlen = n > maxlen ? n : maxlen;
    }
    if (cap >= NONE)
        goto out;
    t->nodes = malloc(cap * sizeof(*t->nodes));
    fp = calloc(cap, sizeof(*fp));
    at = malloc((maxlen + 1) * sizeof(*at));     /* the node of the path at each depth */
    last = malloc((maxlen + 1) * sizeof(*last)); /* the last child of at[d] */
    cursor = calloc(maxlen + 1, sizeof(*cursor));
    if (!t->nodes || !fp || !at || !last || !cursor)
        goto out;
    uint32_t root = name_intern(t, RENDER_ROOT_NAME, RENDER_KIND);
    if (root == NONE)
        goto out;
    node_new(t, root, RENDER_KIND, NONE, 0);
    at[0] = 0;
    last[0] = NONE;
    for (size_t k = 0; k < b->nunits; k++) {
        const struct unit *u = &b->units[k];
        uint32_t n = unit_len(b, u), d = lcp[k];
        for (; d < n; d++) {
            uint32_t id = ids[unit_at(b, u, d)];
            uint32_t v = node_new(t, id, in->name_type[id], at[d], d + 1);
            if (last[d] == NONE)
                t->nodes[at[d]].first_child = v;
            else
                t->nodes[last[d]].next_sibling = v;
            last[d] = v;
            at[d + 1] = v;
            last[d + 1] = NONE;
        }
        profile_fp_add(&fp[at[n]], u->fp);
    }
    /* totals: children come after their parent */
    for (size_t i = t->nnodes; i-- > 1;)
        profile_fp_add(&fp[t->nodes[i].parent], fp[i]);
    /* rounding: each node an interval [cursor, cursor + total) of its parent's, rounded at
     * both ends; cursor[d] runs over the children of the current node at depth d */
    for (size_t i = 0; i < t->nnodes; i++) {
        struct render_node *nd = &t->nodes[i];
        unsigned __int128 s0 = 0, e0;
        if (i) {
            s0 = cursor[nd->depth - 1];
            profile_fp_add(&cursor[nd->depth - 1], fp[i]);
        }
        e0 = s0;
        profile_fp_add(&e0, fp[i]);
        cursor[nd->depth] = s0;
        nd->total = profile_fp_round(e0) - profile_fp_round(s0);
        nd->self = nd->total;
    }
    for (size_t i = 1; i < t->nnodes; i++)
        t->nodes[t->nodes[i].parent].self -= t->nodes[i].total;
    t->total = t->nodes[0].total;
    rc = 0;
out:
    free(lcp);
    free(fp);
    free(cursor);
    free(at);
    free(last);
    return rc;
}

int render_tree_build(struct render_tree *t, const struct profile *p, const struct render_opts *o,
                      char *err, size_t errlen)
{
    struct render_select s;
    struct builder b = {0};
    uint32_t *ids = NULL;
    int rc;

    memset(t, 0, sizeof(*t));
    if ((rc = render_select_init(&s, p, o, err, errlen)) != 0)
        return rc;
    rc = -ENOMEM;
    t->internal = b.in = calloc(1, sizeof(*b.in));
    b.t = t;
    b.p = p;
    b.reverse = o->reverse;
    t->kind = s.kind;
    b.method_name = calloc(p->nmethods + 1, sizeof(*b.method_name));
    b.thread_name = calloc(p->nthreads + 1, sizeof(*b.thread_name));
    b.stack_len = calloc(p->nstacks + 1, sizeof(*b.stack_len));
    b.stack_off = calloc(p->nstacks + 1, sizeof(*b.stack_off));
    if (!b.in || !b.method_name || !b.thread_name || !b.stack_len || !b.stack_off ||
        name_rehash(t, b.in) || unit_rehash(&b))
        goto out;
    rc = 0;
    for (size_t i = 0; rc == 0 && i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->upscaled == 0 || !render_select_entry(&s, e))
            continue;
        rc = add_entry(&b, &s, e);
    }
    if (rc)
        goto out;
    rc = -ENOMEM;
    if (name_intern(t, RENDER_ROOT_NAME, RENDER_KIND) == NONE || !(ids = rank_names(&b)))
        goto out;
    if (b.nunits)
        qsort_r(b.units, b.nunits, sizeof(*b.units), cmp_unit, &b);
    rc = grow_tree(&b, ids);
out:
    if (rc) {
        snprintf(err, errlen, "render: out of memory building the call tree");
        render_tree_destroy(t);
    }
    free(ids);
    free(b.method_name);
    free(b.thread_name);
    free(b.stack_len);
    free(b.stack_off);
    free(b.seq);
    free(b.units);
    free(b.unit_index);
    free(b.rank);
    render_select_destroy(&s);
    return rc;
}

void render_tree_destroy(struct render_tree *t)
{
    struct tree_internal *in = t->internal;
    if (in) {
        while (in->blocks) {
            struct names_block *nb = in->blocks;
            in->blocks = nb->next;
            free(nb);
        }
        free(in->name_hash);
        free(in->name_type);
        free(in->name_index);
        free(in);
    }
    free(t->nodes);
    free(t->names);
    memset(t, 0, sizeof(*t));
}

uint32_t render_tree_child(const struct render_tree *t, uint32_t parent, const char *name)
{
    if (parent >= t->nnodes)
        return NONE;
    for (uint32_t c = t->nodes[parent].first_child; c != NONE; c = t->nodes[c].next_sibling) {
        if (strcmp(t->names[t->nodes[c].name], name) == 0)
            return c;
    }
    return NONE;
}

/* A (parent, name) -> node index of a tree, for matching paths across trees. */
struct child_slot {
    uint32_t parent;
    uint32_t name;
    uint32_t node; /* + 1; 0 empty */
};

static size_t child_hash(uint32_t parent, uint32_t name)
{
    return (size_t)mix64((uint64_t)parent << 32 | name);
}

int render_tree_match(const struct render_tree *t, const struct render_tree *base, uint64_t *out)
{
    uint32_t *node = malloc((t->nnodes ? t->nnodes : 1) * sizeof(*node));
    if (!node)
        return -ENOMEM;
    int rc = render_tree_match_nodes(t, base, node);
    for (size_t i = 0; rc == 0 && i < t->nnodes; i++)
        out[i] = node[i] == NONE ? 0 : base->nodes[node[i]].total;
    free(node);
    return rc;
}

int render_tree_match_nodes(const struct render_tree *t, const struct render_tree *base,
                            uint32_t *bnode)
{
    size_t cap = 16;
    while (cap < base->nnodes * 2)
        cap *= 2;
    size_t mask = cap - 1;
    struct child_slot *child = calloc(cap, sizeof(*child));
    uint32_t *bname = malloc((t->nnames ? t->nnames : 1) * sizeof(*bname));
    if (!child || !bname) {
        free(child);
        free(bname);
        return -ENOMEM;
    }
    for (size_t i = 1; i < base->nnodes; i++) {
        const struct render_node *nd = &base->nodes[i];
        size_t j = child_hash(nd->parent, nd->name) & mask;
        while (child[j].node)
            j = (j + 1) & mask;
        child[j] = (struct child_slot){nd->parent, nd->name, (uint32_t)i + 1};
    }
    const struct tree_internal *tin = t->internal;
    for (size_t k = 0; k < t->nnames; k++)
        bname[k] = name_find(base, t->names[k], tin->name_type[k]);
    for (size_t i = 0; i < t->nnodes; i++) {
        uint32_t m = NONE;
        if (i == 0) {
            m = base->nnodes ? 0 : NONE;
        } else {
            uint32_t bp = bnode[t->nodes[i].parent], id = bname[t->nodes[i].name];
            if (bp != NONE && id != NONE) {
                for (size_t j = child_hash(bp, id) & mask; child[j].node; j = (j + 1) & mask) {
                    if (child[j].parent == bp && child[j].name == id) {
                        m = child[j].node - 1;
                        break;
                    }
                }
            }
        }
        bnode[i] = m;
    }
    free(child);
    free(bname);
    return 0;
}

/* ---- titles ---- */

void render_default_title(const struct profile *p, int kind, char *buf, size_t len)
{
    char cmd[TITLE_COMMAND_MAX + 8], what[TITLE_COMMAND_MAX + 64], win[96] = "";
    uint64_t samples = 0;

    kind = profile_resolve_kind(p, kind);
    for (int k = 0; k < PROFILE_KINDS; k++) {
        if (kind == PROFILE_KIND_ALL || kind == k)
            samples += p->total[k].count;
    }
    if (p->have_header && p->header.command[0]) {
        const char *c = p->header.command;
        size_t n = strlen(c);
        char *whole = malloc(3 * n + 1); /* cleaning at most triples a byte (U+FFFD) */
        if (whole) {
            size_t w = profile_clean(whole, 3 * n + 1, c, n);
            if (w > TITLE_COMMAND_MAX) {
                /* cut: "..." replaces the end, at a character boundary */
                size_t k = TITLE_COMMAND_MAX - 3;
                while (k > 0 && ((unsigned char)whole[k] & 0xc0) == 0x80)
                    k--;
                memcpy(whole + k, "...", 4);
            }
            snprintf(cmd, sizeof(cmd), "%s", whole);
            free(whole);
        } else {
            snprintf(cmd, sizeof(cmd), "?");
        }
        snprintf(what, sizeof(what), "%s (pid %llu)", cmd, (unsigned long long)p->header.pid);
    } else if (p->have_header) {
        snprintf(what, sizeof(what), "pid %llu", (unsigned long long)p->header.pid);
    } else {
        snprintf(what, sizeof(what), "an unknown JVM");
    }
    const struct profile_window *w = &p->window;
    if (w->set && w->resolved) {
        char a[32] = "start", z[32] = "end";
        if (w->has_from)
            snprintf(a, sizeof(a), "%.3f s", (double)w->from_ns / 1e9);
        if (w->has_to)
            snprintf(z, sizeof(z), "%.3f s", (double)w->to_ns / 1e9);
        snprintf(win, sizeof(win), ", window %s to %s", a, z);
    }
    char ver[48] = "";
    if (p->have_header && p->header.agent_version[0])
        snprintf(ver, sizeof(ver), ", flyprof %.32s", p->header.agent_version);
    snprintf(buf, len, "%s profile of %s, %.2f s%s, %llu samples%s", render_kind_name(kind), what,
             (double)profile_duration_ns(p) / 1e9, win, (unsigned long long)samples, ver);
}
