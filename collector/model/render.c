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

#include "fpl_hash.h"
#include "hashtab.h"

#define NONE UINT32_MAX
#define NAMES_BLOCK (64u << 10)
#define TITLE_COMMAND_MAX 120

/* by enum fpl_state, then PROFILE_STATE_JVM_IDLE (profile.h) */
static const char *const state_names[] = {
    NULL,       "running",  "blocked", "waiting", "timed_waiting",
    "parked",   "sleeping", "native",  "jvm_idle"};
static const char *const state_frames[] = {NULL,         "[running]",       "[blocked]",
                                           "[waiting]",  "[timed_waiting]", "[parked]",
                                           "[sleeping]", "[native]",        "[jvm_idle]"};
_Static_assert(sizeof(state_names) / sizeof(state_names[0]) == PROFILE_STATE_JVM_IDLE + 1,
               "a name per state");
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
    return kind == FPL_KIND_CPU     ? "cpu"
           : kind == FPL_KIND_WALL  ? "wall"
           : kind == FPL_KIND_ALLOC ? "alloc"
           : kind == FPL_KIND_LOCK  ? "lock"
           : kind == FPL_KIND_LIVE  ? "live"
                                    : "cpu+wall";
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
    if ((o->kind < 0 || o->kind >= PROFILE_KINDS) && o->kind != PROFILE_KIND_ALL &&
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
    render_unit_ns(p, s->kind, s->unit_ns);
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
    if (o->thread && (rc = regcomp(&s->thread, o->thread, REG_EXTENDED | REG_NOSUB)) != 0) {
        regerror(rc, &s->thread, msg, sizeof(msg));
        snprintf(err, errlen, "render: bad thread regex '%s': %s", o->thread, msg);
        render_select_destroy(s);
        return -EINVAL;
    }
    s->have_thread = o->thread != NULL;
    if (s->have_thread && !(s->thread_sel = calloc(p->nthreads + 1, 1))) {
        render_select_destroy(s);
        snprintf(err, errlen, "render: out of memory");
        return -ENOMEM;
    }
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
    if (s->have_thread)
        regfree(&s->thread);
    free(s->thread_sel);
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
    if (s->kind == PROFILE_KIND_ALL ? e->kind >= PROFILE_TIME_KINDS : e->kind != s->kind)
        return 0;
    if (s->o.state != RENDER_STATE_ALL) {
        int st = e->state;
        if (e->kind == FPL_KIND_CPU && st == FPL_STATE_UNKNOWN)
            st = FPL_STATE_RUNNING; /* a CPU sample was taken on a running thread */
        if (st != s->o.state)
            return 0;
    }
    if (s->have_thread) {
        size_t t = e->thread == PROFILE_NONE ? s->p->nthreads : e->thread;
        if (!s->thread_sel[t])
            s->thread_sel[t] =
                regexec(&s->thread, profile_entry_thread_name(s->p, e), 0, NULL, 0) == 0 ? 2 : 1;
        if (s->thread_sel[t] != 2)
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

int render_unit_ns(const struct profile *p, int kind, uint64_t unit_ns[PROFILE_KINDS])
{
    for (int k = 0; k < PROFILE_KINDS; k++)
        unit_ns[k] = 0;
    if (kind != PROFILE_KIND_ALL || !p->have_header)
        return 0;
    uint64_t iv[PROFILE_TIME_KINDS] = {p->header.cpu_interval_ns, p->header.wall_interval_ns};
    for (int k = 0; k < PROFILE_TIME_KINDS; k++) {
        if (!iv[k] && p->total[k].count)
            return 0; /* a kind whose time is unknown: nothing can be converted */
    }
    /* a kind without samples may have no interval: 1 keeps the unit's meaning (and 0 weight) */
    for (int k = 0; k < PROFILE_TIME_KINDS; k++)
        unit_ns[k] = iv[k] ? iv[k] : 1;
    return 1;
}

unsigned __int128 render_fp_unit(const struct render_select *s, int kind, unsigned __int128 fp)
{
    uint64_t m = kind >= 0 && kind < PROFILE_KINDS ? s->unit_ns[kind] : 0;
    if (!m || !fp)
        return fp;
    if (fp > ~(unsigned __int128)0 / m)
        return ~(unsigned __int128)0;
    return fp * m;
}

unsigned __int128 render_entry_fp(const struct render_select *s, const struct profile_entry *e)
{
    return render_fp_unit(s, e->kind, e->upscaled);
}

uint64_t render_entry_weight(const struct render_select *s, const struct profile_entry *e)
{
    return profile_fp_round(render_entry_fp(s, e));
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
    uint8_t *name_type;        /* per name: the enum render_type it was interned with */
    struct hashtab name_index; /* (string, type) -> name */
};

/* One distinct path: cells whose paths are equal merge into one unit before sorting. Its
 * elements are pre[0..npre), then the frames of its stack (seq), then post when npost. */
struct unit {
    uint32_t pre[3];
    uint32_t post;
    uint32_t stack; /* stack slot: index, or nstacks for an undefined stack */
    uint8_t npre, npost;
    unsigned __int128 fp;
};

/* Build-time state, freed when the tree is done. */
struct builder {
    struct render_tree *t;
    struct tree_internal *in;
    const struct profile *p;
    int reverse;
    int frame_types;       /* render_opts.frame_types */
    uint32_t *method_name; /* per method slot (+1: undefined): name + 1, 0 not yet */
    uint32_t *thread_name; /* per thread slot (+1: undefined) */
    uint32_t *stack_len;   /* per stack slot: elements of its sequence, 0 not used yet */
    size_t *stack_off;     /* per stack slot: offset of its sequence in seq */
    uint32_t *seq;         /* the used stacks' sequences: name ids, then ranks */
    size_t nseq, seq_cap;
    struct unit *units;
    size_t nunits, units_cap;
    struct hashtab unit_index; /* path -> unit */
    uint32_t *rank;            /* per name: its place in the sorted names */
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

static uint64_t name_hash(const char *name, uint8_t type)
{
    return fpl_hash_mix(fpl_hash_str(name), type);
}

/* The id of (name, type) in t, or NONE. */
static uint32_t name_find(const struct render_tree *t, const char *name, uint8_t type)
{
    const struct tree_internal *in = t->internal;
    struct hashtab_probe pr;
    if (!in)
        return NONE;
    for (uint32_t k = hashtab_first(&in->name_index, name_hash(name, type), &pr); k != NONE;
         k = hashtab_next(&in->name_index, &pr)) {
        if (in->name_type[k] == type && strcmp(t->names[k], name) == 0)
            return k;
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
        uint8_t *ty = realloc(in->name_type, cap);
        if (!ty)
            return NONE;
        in->name_type = ty;
        in->names_cap = cap;
    }
    const char *copy = names_copy(in, name);
    if (!copy)
        return NONE;
    id = (uint32_t)t->nnames;
    if (hashtab_add(&in->name_index, name_hash(name, type), id))
        return NONE;
    t->names[id] = copy;
    in->name_type[id] = type;
    t->nnames++;
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
    case FPL_METHOD_STUB:
        return RENDER_STUB;
    case FPL_METHOD_CLASS:
        return RENDER_CLASS;
    default:
        return RENDER_JAVA;
    }
}

/* A frame's type: its method's, refined by how the frame ran -- kernel code always, a Java
 * method's JIT state with frame_types. */
static uint8_t frame_type(const struct profile *p, const struct profile_frame *f, int frame_types)
{
    uint8_t t = method_type(p, f->method);
    if (t == RENDER_CFUNC && f->type == FPL_FRAME_KERNEL)
        return RENDER_KERNEL;
    if (t != RENDER_JAVA || !frame_types)
        return t;
    switch (f->type) {
    case FPL_FRAME_INTERPRETED: return RENDER_INTERPRETED;
    case FPL_FRAME_COMPILED: return RENDER_COMPILED;
    case FPL_FRAME_INLINED: return RENDER_INLINED;
    case FPL_FRAME_C1: return RENDER_C1;
    default: return RENDER_JAVA;
    }
}

const char *render_annotation(uint8_t ftype)
{
    switch (ftype) {
    case FPL_FRAME_INTERPRETED: return "_[0]";
    case FPL_FRAME_COMPILED: return "_[j]";
    case FPL_FRAME_INLINED: return "_[i]";
    case FPL_FRAME_C1: return "_[1]";
    case FPL_FRAME_KERNEL: return "_[k]";
    default: return "";
    }
}

/* The name id of a frame (cached per method for the method's own type; a frame typed
 * otherwise, e.g. a Java method's compiled frame, is looked up by name and type). */
static uint32_t frame_name(struct builder *b, const struct profile_frame *f)
{
    const struct profile *p = b->p;
    size_t slot = f->method == PROFILE_NONE ? p->nmethods : f->method;
    uint8_t type = frame_type(p, f, b->frame_types);
    if (type != method_type(p, f->method))
        return name_intern(b->t, profile_frame_name(p, f), type);
    if (!b->method_name[slot]) {
        uint32_t id = name_intern(b->t, profile_frame_name(p, f), type);
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
    uint64_t h = fpl_hash_mix(fpl_hash_u64(u->stack), (uint64_t)u->npre << 8 | u->npost);
    for (int i = 0; i < u->npre; i++)
        h = fpl_hash_mix(h, u->pre[i]);
    return u->npost ? fpl_hash_mix(h, u->post) : h;
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

/* Adds a cell's weight to the unit of its path, creating it. */
static int unit_add(struct builder *b, const struct unit *u)
{
    uint64_t h = unit_hash(u);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&b->unit_index, h, &pr); k != NONE;
         k = hashtab_next(&b->unit_index, &pr)) {
        struct unit *e = &b->units[k];
        if (unit_same(e, u)) {
            profile_fp_add(&e->fp, u->fp);
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
    if (hashtab_add(&b->unit_index, h, (uint32_t)b->nunits))
        return -ENOMEM;
    b->units[b->nunits++] = *u;
    return 0;
}

/* The path of one selected cell, as a unit of name ids. */
static int add_entry(struct builder *b, struct render_select *s, const struct profile_entry *e)
{
    const struct profile *p = s->p;
    struct render_tree *t = b->t;
    struct unit u = {.fp = render_entry_fp(s, e)};
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

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Key d of unit number u for sort_units: 0 past the end of its path (a prefix sorts first),
 * else its element d's rank + 1. Units are ordered by their paths, element by element (ranks,
 * so by name), a prefix first: as their keys compare. */
static inline uint32_t unit_key(const struct builder *b, uint32_t u, uint32_t d)
{
    const struct unit *x = &b->units[u];
    return d < unit_len(b, x) ? unit_at(b, x, d) + 1 : 0;
}

/* Whether unit a goes after unit b, both equal in their first d keys: by their keys, then (equal
 * paths: units of different stacks with the same frames) by their numbers, as a stable sort
 * leaves them. */
static int unit_after(const struct builder *b, uint32_t a, uint32_t c, uint32_t d)
{
    uint32_t ka, kc;
    while ((ka = unit_key(b, a, d)) == (kc = unit_key(b, c, d)) && ka)
        d++;
    return ka != kc ? ka > kc : a > c;
}

/* The median of three values. */
static uint32_t median3(uint32_t a, uint32_t b, uint32_t c)
{
    if (a < b)
        return b < c ? b : a < c ? c : a;
    return a < c ? a : b < c ? c : b;
}

/* Sorts the unit numbers v[0..n), whose paths' first d elements are equal, by their paths,
 * equal paths by number (multikey quicksort): the elements at d split them into less,
 * equal and greater than a pivot, and the equal ones go on with element d + 1 without
 * comparing again the d elements they share. Paths share long prefixes (the frames of main,
 * of a thread pool), which a comparison sort read again in each of log n comparisons. */
static void sort_units(const struct builder *b, uint32_t *v, size_t n, uint32_t d)
{
    while (n > 1) {
        if (n < 12) {
            for (size_t i = 1; i < n; i++) {
                uint32_t x = v[i];
                size_t j = i;
                for (; j > 0 && unit_after(b, v[j - 1], x, d); j--)
                    v[j] = v[j - 1];
                v[j] = x;
            }
            return;
        }
        uint32_t pivot =
            median3(unit_key(b, v[0], d), unit_key(b, v[n / 2], d), unit_key(b, v[n - 1], d));
        /* v[0..lt) < pivot, v[lt..i) == pivot, v[gt..n) > pivot */
        size_t lt = 0, i = 0, gt = n;
        while (i < gt) {
            uint32_t k = unit_key(b, v[i], d), t;
            if (k < pivot) {
                t = v[lt], v[lt++] = v[i], v[i++] = t;
            } else if (k > pivot) {
                t = v[--gt], v[gt] = v[i], v[i] = t;
            } else {
                i++;
            }
        }
        sort_units(b, v, lt, d);
        sort_units(b, v + gt, n - gt, d);
        v += lt;
        n = gt - lt;
        if (pivot == 0) {
            /* equal paths: by number */
            qsort(v, n, sizeof(*v), cmp_u32);
            return;
        }
        d++;
    }
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

/* One pass over the sorted units, building the tree pruned at min_fp (see render.h).
 *
 * Weights are rounded as intervals: a node spans [start, start + total) of the exact,
 * fixed-point weights, its children laid out from its own start in name order (its self weight
 * last), and its integer total is round(end) - round(start). A merged child keeps its place in
 * that layout, so every node kept is rounded exactly as in the tree without a budget, and a
 * "[N small frames]" node weighs the sum of the rounded totals it stands for. */
struct pass {
    struct builder *b;
    const uint32_t *ids; /* rank -> name id */
    unsigned __int128 min_fp;
    size_t max_nodes; /* 0: no limit */
    size_t cap;       /* of t->nodes */
    /* per depth, for the open path: its node; its exact start; its exact total so far (units
     * ending there and the children closed); the children closed (where the next one starts);
     * the children merged and their rounded weights */
    uint32_t *at;
    unsigned __int128 *start, *run, *kids;
    uint32_t *small_n;
    uint64_t *small_w;
    uint32_t open; /* depth of the deepest open node */
    uint64_t merged_frames;
    uint32_t merged_nodes;
    /* render_tree_walk: the visitor of every node of the unpruned tree, the rounded weight
     * of each open node's closed children, and per name how many open nodes bear it */
    render_visit_fn *visit;
    void *visit_ctx;
    uint64_t *kids_w;
    uint32_t *on_path;
    size_t on_path_n;
};

/* Appends a node. */
static int pass_node(struct pass *ps, uint32_t name, uint8_t type, uint32_t parent, uint32_t depth,
                     uint32_t *out)
{
    struct render_tree *t = ps->b->t;
    if (t->nnodes == ps->cap) {
        size_t cap = ps->cap ? ps->cap * 2 : 1024;
        if (cap >= NONE)
            return -ENOMEM;
        struct render_node *q = realloc(t->nodes, cap * sizeof(*q));
        if (!q)
            return -ENOMEM;
        t->nodes = q;
        ps->cap = cap;
    }
    uint32_t n = (uint32_t)t->nnodes++;
    t->nodes[n] = (struct render_node){name, type, 0, parent, NONE, NONE, depth, 0, 0};
    *out = n;
    return 0;
}

/* Opens a node for the path element at depth d (the node itself at depth d + 1). */
static int pass_open(struct pass *ps, uint32_t rank, uint32_t d)
{
    uint32_t id = ps->ids[rank], v;
    int rc = pass_node(ps, id, ps->b->in->name_type[id], ps->at[d], d + 1, &v);
    if (rc)
        return rc;
    ps->at[d + 1] = v;
    if (ps->visit) {
        ps->kids_w[d + 1] = 0;
        ps->on_path[id]++;
    }
    ps->start[d + 1] = ps->start[d];
    profile_fp_add(&ps->start[d + 1], ps->kids[d]);
    ps->run[d + 1] = ps->kids[d + 1] = 0;
    ps->small_n[d + 1] = 0;
    ps->small_w[d + 1] = 0;
    ps->open = d + 1;
    return 0;
}

/* Closes the deepest open node: its total is known now. Under min_fp (never the root) it is
 * taken back with its subtree -- the last nodes made, since nodes are made in preorder -- and
 * counted in its parent's merged children; otherwise it stays, followed by a "[N small frames]"
 * child for the children merged into it. */
static int pass_close(struct pass *ps)
{
    struct render_tree *t = ps->b->t;
    uint32_t d = ps->open, v = ps->at[d];
    unsigned __int128 total = ps->run[d], end = ps->start[d];
    profile_fp_add(&end, total);
    uint64_t rounded = profile_fp_round(end) - profile_fp_round(ps->start[d]);
    if (ps->visit) {
        const struct render_node *nd = &t->nodes[v];
        const struct render_node *par = d > 0 ? &t->nodes[ps->at[d - 1]] : NULL;
        struct render_visit vi = {.name = nd->name,
                                  .type = nd->type,
                                  .depth = d,
                                  .total = rounded,
                                  .self = rounded - ps->kids_w[d],
                                  .parent_name = par ? par->name : NONE,
                                  .parent_type = par ? par->type : 0,
                                  .outermost = ps->on_path[nd->name] == 1};
        int rc = ps->visit(ps->visit_ctx, t, &vi);
        if (rc)
            return rc;
        ps->on_path[nd->name]--;
        if (d > 0)
            ps->kids_w[d - 1] += rounded;
    }
    if (d > 0 && total < ps->min_fp) {
        t->nnodes = v;
        ps->small_n[d - 1]++;
        ps->small_w[d - 1] += rounded;
    } else {
        t->nodes[v].total = rounded;
        if (ps->small_n[d]) {
            char name[48];
            uint32_t m;
            snprintf(name, sizeof(name), RENDER_SMALL_FMT, ps->small_n[d],
                     ps->small_n[d] == 1 ? "" : "s");
            uint32_t id = name_intern(t, name, RENDER_SMALL);
            if (id == NONE)
                return -ENOMEM;
            int rc = pass_node(ps, id, RENDER_SMALL, v, d + 1, &m);
            if (rc)
                return rc;
            t->nodes[m].merged = ps->small_n[d];
            t->nodes[m].total = ps->small_w[d];
            ps->merged_frames += ps->small_n[d];
            ps->merged_nodes++;
        }
        /* the nodes off the open path stay whatever comes: past the limit already, stop */
        if (ps->max_nodes && t->nnodes - d > ps->max_nodes)
            return -E2BIG;
    }
    if (d > 0) {
        profile_fp_add(&ps->run[d - 1], total);
        profile_fp_add(&ps->kids[d - 1], total);
        ps->open = d - 1;
    }
    return 0;
}

/* Builds the nodes from the sorted units (order): each unit shares its common prefix (lcp)
 * with the one before, so it closes the nodes below that prefix and opens new ones after it;
 * made in this order the nodes are in preorder with children in name order. */
static int pass_run(struct pass *ps, const uint32_t *order, const uint32_t *lcp)
{
    struct builder *b = ps->b;
    struct render_tree *t = b->t;
    int rc;
    uint32_t root = name_intern(t, RENDER_ROOT_NAME, RENDER_KIND), v;

    t->nnodes = 0;
    ps->merged_frames = 0;
    ps->merged_nodes = 0;
    if (root == NONE)
        return -ENOMEM;
    if ((rc = pass_node(ps, root, RENDER_KIND, NONE, 0, &v)) != 0)
        return rc;
    ps->at[0] = 0;
    if (ps->visit) {
        memset(ps->on_path, 0, ps->on_path_n * sizeof(*ps->on_path));
        ps->kids_w[0] = 0;
        ps->on_path[root]++;
    }
    ps->start[0] = ps->run[0] = ps->kids[0] = 0;
    ps->small_n[0] = 0;
    ps->small_w[0] = 0;
    ps->open = 0;
    for (size_t k = 0; k < b->nunits; k++) {
        const struct unit *u = &b->units[order[k]];
        uint32_t n = unit_len(b, u);
        while (ps->open > lcp[k])
            if ((rc = pass_close(ps)) != 0)
                return rc;
        for (uint32_t d = lcp[k]; d < n; d++)
            if ((rc = pass_open(ps, unit_at(b, u, d), d)) != 0)
                return rc;
        profile_fp_add(&ps->run[n], u->fp);
    }
    for (;;) {
        uint32_t d = ps->open;
        if ((rc = pass_close(ps)) != 0)
            return rc;
        if (d == 0)
            return ps->max_nodes && t->nnodes > ps->max_nodes ? -E2BIG : 0;
    }
}

/* Links the kept nodes (first child, next sibling: children are in preorder already) and
 * sets self weights: a node's total less its children's. */
static int finish_nodes(struct render_tree *t)
{
    uint32_t *last = malloc((t->nnodes ? t->nnodes : 1) * sizeof(*last));
    if (!last)
        return -ENOMEM;
    for (size_t i = 0; i < t->nnodes; i++) {
        struct render_node *nd = &t->nodes[i];
        last[i] = NONE;
        nd->self = nd->total;
        if (i) {
            uint32_t par = nd->parent;
            if (last[par] == NONE)
                t->nodes[par].first_child = (uint32_t)i;
            else
                t->nodes[last[par]].next_sibling = (uint32_t)i;
            last[par] = (uint32_t)i;
            t->nodes[par].self -= nd->total;
        }
    }
    t->total = t->nodes[0].total;
    free(last);
    return 0;
}

/* The fixed-point weight share * total, rounded up (so a frame at exactly the share stays). */
static unsigned __int128 share_of(unsigned __int128 total, double share)
{
    if (share <= 0)
        return 0;
    if (share >= 1)
        return total;
    long double w = (long double)total * share;
    unsigned __int128 r = (unsigned __int128)w;
    return (long double)r < w ? r + 1 : r;
}

/* Builds the tree from the sorted units: unpruned, or pruned at o's min_share, raised (doubled)
 * until the tree fits in o's max_nodes. */
static int grow_tree(struct builder *b, const uint32_t *ids, const uint32_t *order,
                     const struct render_opts *o, render_visit_fn *visit, void *ctx)
{
    struct render_tree *t = b->t;
    struct pass ps = {.b = b, .ids = ids, .visit = visit, .visit_ctx = ctx};
    uint32_t *lcp = NULL, maxlen = 0;
    unsigned __int128 total = 0;
    int rc = -ENOMEM;

    lcp = malloc((b->nunits ? b->nunits : 1) * sizeof(*lcp));
    if (!lcp)
        goto out;
    for (size_t k = 0; k < b->nunits; k++) {
        const struct unit *u = &b->units[order[k]];
        uint32_t n = unit_len(b, u);
        lcp[k] = k ? unit_lcp(b, u, &b->units[order[k - 1]]) : 0;
        maxlen = n > maxlen ? n : maxlen;
        profile_fp_add(&total, u->fp);
    }
    ps.at = malloc((maxlen + 2) * sizeof(*ps.at));
    ps.start = malloc((maxlen + 2) * sizeof(*ps.start));
    ps.run = malloc((maxlen + 2) * sizeof(*ps.run));
    ps.kids = malloc((maxlen + 2) * sizeof(*ps.kids));
    ps.small_n = malloc((maxlen + 2) * sizeof(*ps.small_n));
    ps.small_w = malloc((maxlen + 2) * sizeof(*ps.small_w));
    if (!ps.at || !ps.start || !ps.run || !ps.kids || !ps.small_n || !ps.small_w)
        goto out;
    if (visit) {
        /* every name a full-tree node can bear is interned by now (the root's too) */
        ps.on_path_n = t->nnames;
        ps.on_path = malloc((t->nnames ? t->nnames : 1) * sizeof(*ps.on_path));
        ps.kids_w = malloc((maxlen + 2) * sizeof(*ps.kids_w));
        if (!ps.on_path || !ps.kids_w)
            goto out;
        ps.max_nodes = 0; /* one pass: the visitor sees every node once */
    }
    /* the cap is on the nodes kept: one more for the small node a pass may add last */
    if (!visit)
        ps.max_nodes = o->max_nodes ? (o->max_nodes > 2 ? o->max_nodes : 2) : 0;
    ps.min_fp = o->min_share > 0 ? share_of(total, o->min_share) : 0;
    for (;;) {
        rc = pass_run(&ps, order, lcp);
        if (rc != -E2BIG)
            break;
        /* too many nodes: double the threshold (at least one unit of weight) and again */
        ps.min_fp = ps.min_fp ? ps.min_fp * 2 : PROFILE_FP_ONE;
        if (ps.min_fp > total) {
            ps.min_fp = total + 1; /* everything below the root merges */
            rc = pass_run(&ps, order, lcp);
            break;
        }
    }
    if (rc)
        goto out;
    t->min_weight = ps.min_fp ? profile_fp_double(ps.min_fp) : 0;
    t->min_share = total && ps.min_fp ? (double)ps.min_fp / (double)total : 0;
    t->merged_frames = ps.merged_frames;
    t->merged_nodes = ps.merged_nodes;
    /* give back the room the doubling left */
    if (t->nnodes < ps.cap) {
        struct render_node *q = realloc(t->nodes, t->nnodes * sizeof(*q));
        if (q)
            t->nodes = q;
    }
    rc = finish_nodes(t);
out:
    free(lcp);
    free(ps.at);
    free(ps.start);
    free(ps.run);
    free(ps.kids);
    free(ps.small_n);
    free(ps.small_w);
    free(ps.on_path);
    free(ps.kids_w);
    return rc;
}

static int build(struct render_tree *t, const struct profile *p, const struct render_opts *o,
                 render_visit_fn *visit, void *ctx, char *err, size_t errlen)
{
    struct render_select s;
    struct builder b = {0};
    uint32_t *ids = NULL, *order = NULL;
    int rc;

    memset(t, 0, sizeof(*t));
    if ((rc = render_select_init(&s, p, o, err, errlen)) != 0)
        return rc;
    rc = -ENOMEM;
    t->internal = b.in = calloc(1, sizeof(*b.in));
    b.t = t;
    b.p = p;
    b.reverse = o->reverse;
    b.frame_types = o->frame_types;
    t->kind = s.kind;
    t->unit_ns = s.unit_ns[FPL_KIND_CPU] != 0;
    b.method_name = calloc(p->nmethods + 1, sizeof(*b.method_name));
    b.thread_name = calloc(p->nthreads + 1, sizeof(*b.thread_name));
    b.stack_len = calloc(p->nstacks + 1, sizeof(*b.stack_len));
    b.stack_off = calloc(p->nstacks + 1, sizeof(*b.stack_off));
    if (!b.in || !b.method_name || !b.thread_name || !b.stack_len || !b.stack_off)
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
    hashtab_destroy(&b.unit_index); /* merged: only the order matters from here */
    if (name_intern(t, RENDER_ROOT_NAME, RENDER_KIND) == NONE || !(ids = rank_names(&b)))
        goto out;
    order = malloc((b.nunits ? b.nunits : 1) * sizeof(*order));
    if (!order)
        goto out;
    for (uint32_t k = 0; k < b.nunits; k++)
        order[k] = k;
    sort_units(&b, order, b.nunits, 0);
    rc = grow_tree(&b, ids, order, o, visit, ctx);
out:
    if (rc == -ENOMEM || rc == -E2BIG)
        snprintf(err, errlen, "render: out of memory building the call tree");
    if (rc)
        render_tree_destroy(t);
    free(order);
    free(ids);
    free(b.method_name);
    free(b.thread_name);
    free(b.stack_len);
    free(b.stack_off);
    free(b.seq);
    free(b.units);
    hashtab_destroy(&b.unit_index);
    free(b.rank);
    render_select_destroy(&s);
    return rc;
}

int render_tree_build(struct render_tree *t, const struct profile *p, const struct render_opts *o,
                      char *err, size_t errlen)
{
    return build(t, p, o, NULL, NULL, err, errlen);
}

int render_tree_walk(struct render_tree *t, const struct profile *p, const struct render_opts *o,
                     render_visit_fn *visit, void *ctx, char *err, size_t errlen)
{
    return build(t, p, o, visit, ctx, err, errlen);
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
        free(in->name_type);
        hashtab_destroy(&in->name_index);
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

static uint64_t child_hash(uint32_t parent, uint32_t name)
{
    return fpl_hash_u64((uint64_t)parent << 32 | name);
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
    /* base's nodes by (parent, name) */
    struct hashtab child = {0};
    uint32_t *bname = malloc((t->nnames ? t->nnames : 1) * sizeof(*bname));
    int rc = -ENOMEM;
    if (!bname || hashtab_reserve(&child, base->nnodes))
        goto out;
    for (size_t i = 1; i < base->nnodes; i++) {
        const struct render_node *nd = &base->nodes[i];
        if (hashtab_add(&child, child_hash(nd->parent, nd->name), (uint32_t)i))
            goto out;
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
            struct hashtab_probe pr;
            if (bp != NONE && id != NONE) {
                for (uint32_t k = hashtab_first(&child, child_hash(bp, id), &pr); k != NONE;
                     k = hashtab_next(&child, &pr)) {
                    if (base->nodes[k].parent == bp && base->nodes[k].name == id) {
                        m = k;
                        break;
                    }
                }
            }
        }
        bnode[i] = m;
    }
    rc = 0;
out:
    hashtab_destroy(&child);
    free(bname);
    return rc;
}

/* The name id of a frame in a built tree (as frame_name), NONE when the tree has no such
 * name; cache holds per method slot the id + 1 of its frames of the method's own type. */
static uint32_t frame_name_find(const struct render_tree *t, const struct profile *p,
                                const struct profile_frame *f, int frame_types, uint32_t *cache)
{
    size_t slot = f->method == PROFILE_NONE ? p->nmethods : f->method;
    uint8_t type = frame_type(p, f, frame_types);
    if (type != method_type(p, f->method))
        return name_find(t, profile_frame_name(p, f), type);
    if (!cache[slot])
        cache[slot] = name_find(t, profile_frame_name(p, f), type) + 1; /* NONE + 1 is 0 */
    return cache[slot] ? cache[slot] - 1 : NONE;
}

/* The child of parent named id, or parent's RENDER_SMALL child (small[parent]) when the
 * budget merged it (a name the tree lacks was merged everywhere), or NONE. */
static uint32_t child_find(const struct render_tree *t, const struct hashtab *child,
                           const uint32_t *small, uint32_t parent, uint32_t id)
{
    struct hashtab_probe pr;
    if (id != NONE) {
        for (uint32_t k = hashtab_first(child, child_hash(parent, id), &pr); k != NONE;
             k = hashtab_next(child, &pr)) {
            if (t->nodes[k].parent == parent && t->nodes[k].name == id)
                return k;
        }
    }
    return small[parent];
}

int render_tree_entry_nodes(const struct render_tree *t, const struct profile *p,
                            const struct render_opts *o, uint32_t *out, char *err, size_t errlen)
{
    struct render_select s;
    struct hashtab child = {0};
    uint32_t *mcache = NULL, *small = NULL, *memo = NULL;
    int rc = render_select_init(&s, p, o, err, errlen);
    if (rc)
        return rc;
    rc = -ENOMEM;
    mcache = calloc(p->nmethods + 1, sizeof(*mcache));
    small = malloc((t->nnodes ? t->nnodes : 1) * sizeof(*small));
    /* per stack: the last two walks' start and end nodes -- cells of one stack on other
     * threads (without per-thread roots) or in other states start from the same node, and
     * with --kind all from one of two ([cpu], [wall]), met in any order */
    memo = malloc((p->nstacks + 1) * 4 * sizeof(*memo));
    if (!mcache || !small || !memo || hashtab_reserve(&child, t->nnodes))
        goto out;
    for (size_t i = 0; i < (p->nstacks + 1) * 4; i++)
        memo[i] = NONE;
    for (size_t i = 0; i < t->nnodes; i++)
        small[i] = NONE;
    for (size_t i = 1; i < t->nnodes; i++) {
        if (t->nodes[i].type == RENDER_SMALL)
            small[t->nodes[i].parent] = (uint32_t)i;
        if (hashtab_add(&child, child_hash(t->nodes[i].parent, t->nodes[i].name), (uint32_t)i))
            goto out;
    }
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        out[i] = NONE;
        if (!t->nnodes || e->upscaled == 0 || !render_select_entry(&s, e))
            continue;
        /* the path of add_entry: kind root, thread, frames (or the state leaf first when
         * reversed), the state leaf; it stops where the budget merged the rest */
        uint32_t path[3], npath = 0, state = NONE, v = 0;
        if (s.kind == PROFILE_KIND_ALL)
            path[npath++] = name_find(t, e->kind == FPL_KIND_CPU ? "[cpu]" : "[wall]", RENDER_KIND);
        if (o->threads)
            path[npath++] = name_find(t, profile_entry_thread_name(p, e), RENDER_THREAD);
        if (e->kind == FPL_KIND_WALL && o->state == RENDER_STATE_ALL && !o->no_states &&
            render_state_frame(e->state))
            state = name_find(t, render_state_frame(e->state), RENDER_STATE);
        if (state != NONE && o->reverse)
            path[npath++] = state;
        for (uint32_t k = 0; k < npath && v != NONE && t->nodes[v].type != RENDER_SMALL; k++)
            v = child_find(t, &child, small, v, path[k]);
        const struct profile_stack *st = e->stack == PROFILE_NONE ? NULL : &p->stacks[e->stack];
        if (!st || st->nframes == 0) {
            const char *m = st ? PROFILE_EMPTY_STACK : PROFILE_UNKNOWN_STACK;
            if (v != NONE && t->nodes[v].type != RENDER_SMALL)
                v = child_find(t, &child, small, v, name_find(t, m, RENDER_MARKER));
        } else if (memo[4 * e->stack] == v && v != NONE) {
            v = memo[4 * e->stack + 1];
        } else if (memo[4 * e->stack + 2] == v && v != NONE) {
            v = memo[4 * e->stack + 3];
        } else {
            uint32_t n = st->nframes, from = v;
            for (uint32_t k = 0; k < n && v != NONE && t->nodes[v].type != RENDER_SMALL; k++) {
                const struct profile_frame *f = &st->frames[o->reverse ? k : n - 1 - k];
                uint32_t id = frame_name_find(t, p, f, o->frame_types, mcache);
                v = child_find(t, &child, small, v, id);
            }
            uint32_t *m = &memo[4 * e->stack];
            m[2] = m[0];
            m[3] = m[1];
            m[0] = from;
            m[1] = v;
        }
        if (state != NONE && !o->reverse && v != NONE && t->nodes[v].type != RENDER_SMALL)
            v = child_find(t, &child, small, v, state);
        out[i] = v;
    }
    rc = 0;
out:
    if (rc)
        snprintf(err, errlen, "render: out of memory mapping cells to the call tree");
    free(mcache);
    free(small);
    free(memo);
    hashtab_destroy(&child);
    render_select_destroy(&s);
    return rc;
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
