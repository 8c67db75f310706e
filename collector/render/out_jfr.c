/* out_jfr.c: JFR output (see out_jfr.h and collector/format/JFR.md). The events of a chunk
 * are encoded into memory as the cells are visited, and each thread, stack, method, class,
 * package and symbol they reach is stamped with the chunk's number the first time; when the
 * chunk is full (or the cells end) its constant pools are written from the stamped entries,
 * then the metadata, and the chunk goes out behind its header. Keys are fixed for the whole
 * file (a profile index + 1, or an interned name's number + 1), so a key means the same in
 * every chunk. */
#include "out_jfr.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_hash.h"
#include "hashtab.h"
#include "hiccups.h"
#include "jfr_enc.h"
#include "jfr_meta.h"
#include "spill.h"
#include "timeline.h"

#define HEADER_BYTES 68
/* Ticks are us after the profile's start when the file has no lock waits: a sample event sits
 * at its sample's time to the us, finer than any sampling interval, and a us tick is a byte
 * shorter per event than a ns one. A file with lock waits counts ns, so that each wait's
 * duration (ns, the LOCK sample's weight) is exact: the JDK's reader takes durations in
 * ticks. */
#define NS_PER_TICK_US 1000ull
#define NS_PER_TICK_NS 1ull
#define NS_PER_TICK (w->ns_per_tick)
#define TICKS_PER_SEC (1000000000ull / w->ns_per_tick)
/* Tick 0 is written as TICK_BASE (1 s): parsers modeled on the JDK's chunk header
 * (jfr-filter's, among others) refuse a chunk whose start ticks, start time or duration is
 * not positive. */
#define TICK_BASE TICKS_PER_SEC
/* ThreadPark's timeout and until when the park had none, as the JDK writes them (`jfr`
 * prints N/A): the log does not record a park's timeout */
#define NO_TIMEOUT ((uint64_t)INT64_MIN)
#define METADATA_ID 1
#define FLAG_COMPRESSED_INTS 1u /* the header's flag byte: LEB128 integers (format 2) */
#define FLAG_FINAL_CHUNK 2u
#define SPILL_AHEAD 32 /* records put_spilled reads ahead of the one it writes */

/* Frames that name no method (profile.h's placeholders), after the profile's methods. */
enum { SPECIAL_UNKNOWN_FRAME, SPECIAL_UNKNOWN_STACK, SPECIAL_EMPTY_STACK, SPECIALS };
static const char *const special_names[SPECIALS] = {PROFILE_UNKNOWN_FRAME, PROFILE_UNKNOWN_STACK,
                                                    PROFILE_EMPTY_STACK};

/* The descriptor of a frame without a JVM signature (C functions, stubs, markers): `jfr
 * print` cuts the parameters out of every method's descriptor and fails on one without
 * parentheses. */
#define NO_DESCRIPTOR "()V"

/* jdk.types.FrameType values, key = enum fpl_frame_type + 1 (JFR.md says why each). */
#define FRAME_TYPES 9
static const char *const frame_type_names[FRAME_TYPES] = {"Java",    "Interpreted", "JIT compiled",
                                                          "Inlined", "C1 compiled", "Native",
                                                          "Stub",    "Kernel",      "Marker"};

/* jdk.types.ThreadState values (jfr_meta.h), key = profile state + 1 */
#define STATES PROFILE_STATES
_Static_assert(PROFILE_STATES == JFR_META_STATES &&
                   PROFILE_STATE_JVM_IDLE == JFR_META_STATE_JVM_IDLE,
               "a JFR name per state");

/* An interned string: its bytes in names.data. */
struct name {
    size_t off, len;
};

/* Interned strings, numbered from 0 (key = number + 1). */
struct names {
    struct fpl_buf data;
    struct name *v;
    uint32_t *gen; /* chunk stamp per name */
    size_t n, cap;
    struct hashtab index;
};

/* A class: its name's symbol and its package (0 none), as keys. */
struct cls {
    uint32_t sym;
    uint32_t pkg;
};

/* A method's constant-pool fields, filled on first use (cls == 0: not yet). */
struct minfo {
    uint32_t cls, name, desc; /* keys */
};

/* A stack's pool entry, encoded once (len 0: not yet), and the frame types it uses (bit
 * per type key; 0: not computed yet). */
struct stack_enc {
    size_t off;
    uint32_t len;
    uint16_t ftypes;
    uint8_t reached; /* its methods are in jfr_w.reached */
};

/* A list of indices (the entries a chunk uses). */
struct ivec {
    uint32_t *v;
    size_t n, cap;
};

struct jfr_w {
    const struct profile *p;
    const struct render_opts *o;
    struct render_select sel;
    int sel_open;
    /* alloc, lock and live samples written besides sel's kind (no --kind, --kind all): bit
     * per kind, their cells chosen by xsel (sel's options, its kind set per cell) */
    unsigned xkinds;
    struct render_select xsel;
    int xsel_open;
    uint8_t *cell_sel; /* per cell: selected */
    uint64_t ns_per_tick;
    FILE *f;
    uint64_t chunk_bytes, chunk_ns;
    uint64_t origin_real_ns; /* the real time of tick 0 */

    /* the chunk being written */
    uint32_t chunk;                  /* its number, from 1: the stamp of what it uses */
    uint64_t chunk_start, chunk_end; /* ticks of its first and last event */
    int chunk_open;
    struct fpl_buf ev;  /* its events */
    struct fpl_buf out; /* its checkpoint and metadata, then scratch */
    struct fpl_buf one; /* one event being encoded */
    struct fpl_buf ctx; /* the flyprof.ContextSample that goes with it */
    struct fpl_buf tmp; /* a string being built */

    /* stamps per profile index (last slot: undefined thread / stack) */
    uint32_t *thread_gen, *stack_gen, *method_gen;
    struct stack_enc *stack_enc; /* per stack (+1: undefined) */
    struct fpl_buf stk;          /* the encoded stack entries */
    struct minfo *minfo;         /* per method (+ SPECIALS) */
    uint32_t *leaf_cls;          /* per method: the class key of a CLASS leaf, 0 not yet */
    /* the methods' kinds and line tables, packed (line_tables): encoding a stack looks up a
     * line per frame, and the profile's methods and their tables, spread over its arena among
     * the names, missed the cache on nearly every frame */
    uint8_t *mkind;
    uint32_t *mline_at;       /* per method: its first entry in mlines; nmethods + 1 of them */
    uint32_t (*mlines)[2];    /* (start bci, line), by method, each method's sorted */
    unsigned kinds;              /* bit per kind with selected cells */
    uint32_t frame_gen[FRAME_TYPES], state_gen[STATES];
    struct ivec threads, stacks, methods, classes, packages, symbols;
    struct ivec reached;     /* the methods of every stack used so far in the file */
    uint8_t *method_reached; /* per method slot: in `reached` */

    struct names syms;    /* jdk.types.Symbol */
    struct names pkgs;    /* jdk.types.Package, by name */
    struct names clsname; /* java.lang.Class, by name (its data: class i is clsname i) */
    struct cls *cls;
    size_t ncls_cap;
    int nomem;
};

static int ivec_push(struct ivec *v, uint32_t x)
{
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 256;
        uint32_t *q = realloc(v->v, cap * sizeof(*q));
        if (!q)
            return -ENOMEM;
        v->v = q;
        v->cap = cap;
    }
    v->v[v->n++] = x;
    return 0;
}

/* The number of s[0..len) in t, interned if new; UINT32_MAX when out of memory. */
static uint32_t names_add(struct names *t, const char *s, size_t len)
{
    uint64_t h = fpl_hash_bytes(s, len);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&t->index, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&t->index, &pr)) {
        if (t->v[k].len == len && memcmp(t->data.data + t->v[k].off, s, len) == 0)
            return k;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        struct name *q = cap < UINT32_MAX / 2 ? realloc(t->v, cap * sizeof(*q)) : NULL;
        uint32_t *g = q ? realloc(t->gen, cap * sizeof(*g)) : NULL;
        if (q)
            t->v = q;
        if (!g)
            return UINT32_MAX;
        t->gen = g;
        t->cap = cap;
    }
    size_t off = t->data.len;
    fpl_put_bytes(&t->data, s, len);
    if (t->data.failed || hashtab_add(&t->index, h, (uint32_t)t->n))
        return UINT32_MAX;
    t->v[t->n] = (struct name){off, len};
    t->gen[t->n] = 0;
    return (uint32_t)t->n++;
}

static void names_destroy(struct names *t)
{
    fpl_buf_free(&t->data);
    free(t->v);
    free(t->gen);
    hashtab_destroy(&t->index);
}

/* A symbol's key (0 when out of memory: the null symbol). */
static uint32_t symbol(struct jfr_w *w, const char *s, size_t len)
{
    uint32_t k = names_add(&w->syms, s, len);
    if (k == UINT32_MAX) {
        w->nomem = 1;
        return 0;
    }
    return k + 1;
}

/* The key of the class of internal name s[0..len) (Java classes: '/' between packages);
 * java_pkg: it has a package, the part before the last '/'. */
static uint32_t class_key(struct jfr_w *w, const char *s, size_t len, int java_pkg)
{
    uint32_t k = names_add(&w->clsname, s, len);
    if (k == UINT32_MAX) {
        w->nomem = 1;
        return 0;
    }
    if (k >= w->ncls_cap) {
        size_t cap = w->clsname.cap;
        struct cls *q = realloc(w->cls, cap * sizeof(*q));
        if (!q) {
            w->nomem = 1;
            return 0;
        }
        w->cls = q;
        w->ncls_cap = cap;
    }
    if (k + 1 == w->clsname.n) { /* new */
        const char *slash = java_pkg ? memrchr(s, '/', len) : NULL;
        uint32_t pkg = 0;
        if (slash) {
            uint32_t pk = names_add(&w->pkgs, s, (size_t)(slash - s));
            if (pk == UINT32_MAX)
                w->nomem = 1;
            else
                pkg = pk + 1;
        }
        w->cls[k] = (struct cls){symbol(w, s, len), pkg};
    }
    return k + 1;
}

/* Converts the JVM's modified UTF-8 in s to valid UTF-8 (profile_clean_text) into w->tmp. */
static void clean_text(struct jfr_w *w, const char *s)
{
    size_t len = strlen(s), cap = 3 * len + 1;
    w->tmp.len = 0;
    if (fpl_buf_reserve(&w->tmp, cap) != 0) {
        w->nomem = 1;
        return;
    }
    w->tmp.len = profile_clean_text((char *)w->tmp.data, cap, s, len);
}

/* Fills the method info of method slot mi (a profile index, or nmethods + a special). */
static const struct minfo *method_info(struct jfr_w *w, uint32_t mi)
{
    struct minfo *m = &w->minfo[mi];
    if (m->cls)
        return m;
    const struct profile *p = w->p;
    if (mi >= p->nmethods) {
        const char *n = special_names[mi - p->nmethods];
        m->cls = class_key(w, "", 0, 0);
        m->name = symbol(w, n, strlen(n));
        m->desc = symbol(w, NO_DESCRIPTOR, strlen(NO_DESCRIPTOR));
        return m;
    }
    const struct profile_method *pm = &p->methods[mi];
    const char *d = pm->display;
    size_t dl = strlen(d);
    const char *dot = NULL;
    int java = pm->kind == FPL_METHOD_JAVA || pm->kind == FPL_METHOD_NATIVE;
    if (java && pm->class_name[0])
        dot = memrchr(d, '.', dl); /* a Java method's name has no '.': the last one splits */
    if (dot) {
        /* the class in the JVM's internal form: the readers turn '/' back into '.' */
        w->tmp.len = 0;
        fpl_put_bytes(&w->tmp, d, (size_t)(dot - d));
        if (w->tmp.failed) {
            w->nomem = 1;
            return m;
        }
        for (size_t i = 0; i < w->tmp.len; i++)
            if (w->tmp.data[i] == '.')
                w->tmp.data[i] = '/';
        m->cls = class_key(w, (const char *)w->tmp.data, w->tmp.len, 1);
        m->name = symbol(w, dot + 1, dl - (size_t)(dot - d) - 1);
    } else {
        /* a C function's class is its module (FORMAT.md 5.4); markers and stubs have none */
        if (pm->kind == FPL_METHOD_CFUNC) {
            clean_text(w, pm->class_name);
            m->cls = class_key(w, (const char *)w->tmp.data, w->tmp.len, 0);
        } else {
            m->cls = class_key(w, "", 0, 0);
        }
        m->name = symbol(w, d, dl);
    }
    if (strchr(pm->signature, '(') && strchr(pm->signature, ')')) {
        clean_text(w, pm->signature);
        m->desc = symbol(w, (const char *)w->tmp.data, w->tmp.len);
    } else {
        m->desc = symbol(w, NO_DESCRIPTOR, strlen(NO_DESCRIPTOR));
    }
    if (!m->cls)
        w->nomem = 1;
    return m;
}

/* The frame type key of a frame: its logged type, unless its method's kind says otherwise
 * (logs before frame types, FORMAT.md 5.5, say JAVA for every frame). */
static uint32_t frame_type(const struct jfr_w *w, const struct profile_frame *fr)
{
    uint8_t t = fr->type < FRAME_TYPES ? fr->type : FPL_FRAME_JAVA;
    if (fr->method == PROFILE_NONE)
        return FPL_FRAME_MARKER + 1;
    switch (w->mkind[fr->method]) {
    case FPL_METHOD_CFUNC:
        return (t == FPL_FRAME_KERNEL ? FPL_FRAME_KERNEL : FPL_FRAME_NATIVE) + 1u;
    case FPL_METHOD_STUB:
        return FPL_FRAME_STUB + 1;
    case FPL_METHOD_MARKER:
        return FPL_FRAME_MARKER + 1;
    default:
        return (t <= FPL_FRAME_C1 ? t : FPL_FRAME_JAVA) + 1u;
    }
}

/* Packs the methods' kinds and line tables (jfr_w.mkind, mline_at, mlines). 0 or -ENOMEM. */
static int line_tables(struct jfr_w *w)
{
    const struct profile *p = w->p;
    size_t n = 0;
    for (size_t i = 0; i < p->nmethods; i++)
        n += p->methods[i].nlines;
    if (n >= UINT32_MAX)
        return -ENOMEM;
    w->mkind = malloc(p->nmethods + 1);
    w->mline_at = malloc((p->nmethods + 1) * sizeof(*w->mline_at));
    w->mlines = malloc((n ? n : 1) * sizeof(*w->mlines));
    if (!w->mkind || !w->mline_at || !w->mlines)
        return -ENOMEM;
    n = 0;
    for (size_t i = 0; i < p->nmethods; i++) {
        const struct profile_method *m = &p->methods[i];
        w->mkind[i] = m->kind;
        w->mline_at[i] = (uint32_t)n;
        for (size_t k = 0; k < m->nlines; k++, n++) {
            /* a bci or line past 32 bits: no line (as bci_line said before) */
            w->mlines[n][0] = m->lines[k].start_bci > UINT32_MAX ? UINT32_MAX
                                                                 : (uint32_t)m->lines[k].start_bci;
            w->mlines[n][1] = m->lines[k].line > INT32_MAX ? UINT32_MAX
                                                           : (uint32_t)m->lines[k].line;
        }
    }
    w->mline_at[p->nmethods] = (uint32_t)n;
    return 0;
}

/* The line of bci in method m: the line of the last entry whose start bci is at or below it;
 * -1 without a bci or a table. */
static int32_t bci_line(const struct jfr_w *w, uint32_t m, int32_t bci)
{
    uint32_t lo = w->mline_at[m], hi = w->mline_at[m + 1], first = lo;
    if (bci < 0 || lo == hi)
        return -1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (w->mlines[mid][0] <= (uint32_t)bci)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == first || w->mlines[lo - 1][1] == UINT32_MAX)
        return -1;
    return (int32_t)w->mlines[lo - 1][1];
}

/* 1 when the stack's leaf is the CLASS frame of an alloc, lock or live sample, which JFR
 * has as the event's objectClass, monitorClass or parkedClass, not as a frame; else 0. */
static uint32_t class_leaf(const struct profile *p, const struct profile_stack *st)
{
    if (!st || !st->nframes || st->frames[0].method == PROFILE_NONE)
        return 0;
    return p->methods[st->frames[0].method].kind == FPL_METHOD_CLASS;
}

/* The JVM's internal name of a class named as Java source names it (FORMAT.md 6.3) into
 * w->tmp: java.lang.String as java/lang/String, byte[] as [B, java.lang.Object[][] as
 * [[Ljava/lang/Object; -- how the JDK's recordings name classes, and what its reader turns
 * back ('/' to '.'; `jfr print` shows arrays as byte[]). Returns whether the class has a
 * package (an array has none). */
static int internal_name(struct jfr_w *w, const char *s)
{
    static const char *const prims[][2] = {{"boolean", "Z"}, {"byte", "B"}, {"char", "C"},
                                           {"short", "S"},   {"int", "I"},  {"long", "J"},
                                           {"float", "F"},   {"double", "D"}};
    size_t len = strlen(s), dims = 0;
    while (len >= 2 + 2 * dims && memcmp(s + len - 2 - 2 * dims, "[]", 2) == 0)
        dims++;
    size_t base = len - 2 * dims;
    w->tmp.len = 0;
    for (size_t i = 0; i < dims; i++)
        fpl_put_u8(&w->tmp, '[');
    const char *prim = NULL;
    for (size_t i = 0; dims && i < sizeof(prims) / sizeof(prims[0]); i++)
        if (strlen(prims[i][0]) == base && memcmp(s, prims[i][0], base) == 0)
            prim = prims[i][1];
    if (prim) {
        fpl_put_bytes(&w->tmp, prim, 1);
        return 0;
    }
    if (dims)
        fpl_put_u8(&w->tmp, 'L');
    size_t at = w->tmp.len;
    fpl_put_bytes(&w->tmp, s, base);
    if (dims)
        fpl_put_u8(&w->tmp, ';');
    if (w->tmp.failed) {
        w->nomem = 1;
        return 0;
    }
    int pkg = 0;
    for (size_t i = at; i < at + base; i++) {
        if (w->tmp.data[i] == '.') {
            w->tmp.data[i] = '/';
            pkg = 1;
        }
    }
    return pkg && !dims;
}

/* The class key of stack si's CLASS leaf (0: none, a null class). */
static uint32_t leaf_class(struct jfr_w *w, uint32_t si)
{
    const struct profile *p = w->p;
    const struct profile_stack *st = si < p->nstacks ? &p->stacks[si] : NULL;
    if (!class_leaf(p, st))
        return 0;
    uint32_t mi = st->frames[0].method;
    if (!w->leaf_cls[mi]) {
        int pkg = internal_name(w, p->methods[mi].display);
        if (w->nomem)
            return 0;
        w->leaf_cls[mi] = class_key(w, (const char *)w->tmp.data, w->tmp.len, pkg);
    }
    return w->leaf_cls[mi];
}

/* ---- constant pools ---- */

/* Adds method slot mi to the methods the file's stacks reach, once. */
static void reach_method(struct jfr_w *w, uint32_t mi)
{
    if (w->method_reached[mi])
        return;
    w->method_reached[mi] = 1;
    if (ivec_push(&w->reached, mi))
        w->nomem = 1;
}

static void stamp_method(struct jfr_w *w, uint32_t mi)
{
    if (w->method_gen[mi] == w->chunk)
        return;
    w->method_gen[mi] = w->chunk;
    if (ivec_push(&w->methods, mi))
        w->nomem = 1;
}

static void stamp_name(struct jfr_w *w, struct names *t, struct ivec *v, uint32_t key)
{
    if (!key || t->gen[key - 1] == w->chunk)
        return;
    t->gen[key - 1] = w->chunk;
    if (ivec_push(v, key - 1))
        w->nomem = 1;
}

/* Stamps everything the chunk's stacks reach: methods, then their classes and symbols, then
 * the classes' packages and names. The methods are those of every stack the file has used so
 * far (w->reached), a superset of the chunk's own: a stack's frames are visited once in the
 * file, not once per chunk (time-ordered chunks use most stacks again), and the methods are
 * few beside the stacks. */
static void stamp_reachable(struct jfr_w *w)
{
    const struct profile *p = w->p;
    for (size_t i = 0; i < w->stacks.n; i++) {
        uint32_t si = w->stacks.v[i];
        const struct profile_stack *st = si < p->nstacks ? &p->stacks[si] : NULL;
        struct stack_enc *c = &w->stack_enc[si];
        if (c->reached)
            continue;
        c->reached = 1;
        if (!st) {
            reach_method(w, (uint32_t)p->nmethods + SPECIAL_UNKNOWN_STACK);
            c->ftypes = 1u << (FPL_FRAME_MARKER + 1);
        } else if (!st->nframes) {
            reach_method(w, (uint32_t)p->nmethods + SPECIAL_EMPTY_STACK);
            c->ftypes = 1u << (FPL_FRAME_MARKER + 1);
        } else {
            for (uint32_t k = class_leaf(p, st); k < st->nframes; k++) {
                uint32_t m = st->frames[k].method;
                reach_method(w,
                             m == PROFILE_NONE ? (uint32_t)p->nmethods + SPECIAL_UNKNOWN_FRAME : m);
                c->ftypes |= 1u << frame_type(w, &st->frames[k]);
            }
        }
    }
    for (size_t i = 0; i < w->stacks.n; i++) {
        uint32_t ft = w->stack_enc[w->stacks.v[i]].ftypes;
        for (uint32_t t = 0; t < FRAME_TYPES; t++)
            if (ft & (1u << (t + 1)))
                w->frame_gen[t] = w->chunk;
    }
    for (size_t i = 0; i < w->reached.n; i++)
        stamp_method(w, w->reached.v[i]);
    for (size_t i = 0; i < w->methods.n; i++) {
        const struct minfo *m = method_info(w, w->methods.v[i]);
        stamp_name(w, &w->clsname, &w->classes, m->cls);
        stamp_name(w, &w->syms, &w->symbols, m->name);
        stamp_name(w, &w->syms, &w->symbols, m->desc);
    }
    for (size_t i = 0; i < w->classes.n; i++) {
        const struct cls *c = &w->cls[w->classes.v[i]];
        stamp_name(w, &w->syms, &w->symbols, c->sym);
        stamp_name(w, &w->pkgs, &w->packages, c->pkg);
    }
    for (size_t i = 0; i < w->packages.n; i++) {
        const struct name *n = &w->pkgs.v[w->packages.v[i]];
        uint32_t s = symbol(w, (const char *)w->pkgs.data.data + n->off, n->len);
        stamp_name(w, &w->syms, &w->symbols, s);
    }
}

static void pool_threads(struct jfr_w *w, struct fpl_buf *b)
{
    const struct profile *p = w->p;
    jfr_enc_long(b, JFR_TYPE_THREAD);
    jfr_enc_long(b, w->threads.n);
    for (size_t i = 0; i < w->threads.n; i++) {
        uint32_t ti = w->threads.v[i];
        const struct profile_thread *t = ti < p->nthreads ? &p->threads[ti] : NULL;
        const char *name = t ? t->display : PROFILE_UNKNOWN_THREAD;
        jfr_enc_long(b, (uint64_t)ti + 1);
        jfr_enc_cstr(b, name);               /* osName */
        jfr_enc_long(b, t ? t->os_tid : 0);  /* osThreadId */
        jfr_enc_cstr(b, name);               /* javaName */
        jfr_enc_long(b, t ? t->java_id : 0); /* javaThreadId: 0 unknown */
    }
}

/* A stack's pool entry (key, truncated, frames) appended to b. */
static void encode_stack(struct jfr_w *w, struct fpl_buf *b, uint32_t si)
{
    const struct profile *p = w->p;
    {
        const struct profile_stack *st = si < p->nstacks ? &p->stacks[si] : NULL;
        jfr_enc_long(b, (uint64_t)si + 1);
        jfr_enc_byte(b, 0); /* truncated: a [truncated] marker frame says so */
        uint32_t first = class_leaf(p, st); /* the class is the event's, not a frame */
        if (!st || !st->nframes) {
            jfr_enc_long(b, 1);
            jfr_enc_long(b, p->nmethods + (st ? SPECIAL_EMPTY_STACK : SPECIAL_UNKNOWN_STACK) + 1);
            jfr_enc_int(b, -1);
            jfr_enc_int(b, -1);
            jfr_enc_long(b, FPL_FRAME_MARKER + 1);
            return;
        }
        jfr_enc_long(b, st->nframes - first);
        for (uint32_t k = first; k < st->nframes; k++) { /* leaf first, as JFR has them */
            const struct profile_frame *fr = &st->frames[k];
            uint32_t m = fr->method;
            jfr_enc_long(b, (m == PROFILE_NONE ? p->nmethods + SPECIAL_UNKNOWN_FRAME : m) + 1);
            jfr_enc_int(b, m == PROFILE_NONE ? -1 : bci_line(w, m, fr->bci));
            jfr_enc_int(b, fr->bci >= 0 ? fr->bci : -1);
            jfr_enc_long(b, frame_type(w, fr));
        }
    }
}

/* The chunk's stack traces. Each stack's entry is encoded once into w->stk and copied from
 * there: time-ordered chunks each use most of the stacks again (9 chunks of a 10M-sample log
 * listed its 100k stacks 9 times). */
static void pool_stacks(struct jfr_w *w, struct fpl_buf *b)
{
    jfr_enc_long(b, JFR_TYPE_STACK_TRACE);
    jfr_enc_long(b, w->stacks.n);
    for (size_t i = 0; i < w->stacks.n; i++) {
        uint32_t si = w->stacks.v[i];
        struct stack_enc *c = &w->stack_enc[si];
        if (!c->len) {
            c->off = w->stk.len;
            encode_stack(w, &w->stk, si);
            c->len = (uint32_t)(w->stk.len - c->off);
            if (w->stk.failed) {
                w->nomem = 1;
                return;
            }
        }
        fpl_put_bytes(b, w->stk.data + c->off, c->len);
    }
}

static void pool_methods(struct jfr_w *w, struct fpl_buf *b)
{
    jfr_enc_long(b, JFR_TYPE_METHOD);
    jfr_enc_long(b, w->methods.n);
    for (size_t i = 0; i < w->methods.n; i++) {
        const struct minfo *m = &w->minfo[w->methods.v[i]];
        jfr_enc_long(b, (uint64_t)w->methods.v[i] + 1);
        jfr_enc_long(b, m->cls);
        jfr_enc_long(b, m->name);
        jfr_enc_long(b, m->desc);
        jfr_enc_int(b, 0);  /* modifiers: not in the log */
        jfr_enc_byte(b, 0); /* hidden */
    }
}

static void pool_classes(struct jfr_w *w, struct fpl_buf *b)
{
    jfr_enc_long(b, JFR_TYPE_CLASS);
    jfr_enc_long(b, w->classes.n);
    for (size_t i = 0; i < w->classes.n; i++) {
        const struct cls *c = &w->cls[w->classes.v[i]];
        jfr_enc_long(b, (uint64_t)w->classes.v[i] + 1);
        jfr_enc_long(b, c->sym);
        jfr_enc_long(b, c->pkg);
        jfr_enc_int(b, 0);
        jfr_enc_byte(b, 0);
    }
}

static void pool_packages(struct jfr_w *w, struct fpl_buf *b)
{
    jfr_enc_long(b, JFR_TYPE_PACKAGE);
    jfr_enc_long(b, w->packages.n);
    for (size_t i = 0; i < w->packages.n; i++) {
        const struct name *n = &w->pkgs.v[w->packages.v[i]];
        jfr_enc_long(b, (uint64_t)w->packages.v[i] + 1);
        jfr_enc_long(b, symbol(w, (const char *)w->pkgs.data.data + n->off, n->len));
    }
}

static void pool_symbols(struct jfr_w *w, struct fpl_buf *b)
{
    jfr_enc_long(b, JFR_TYPE_SYMBOL);
    jfr_enc_long(b, w->symbols.n);
    for (size_t i = 0; i < w->symbols.n; i++) {
        const struct name *n = &w->syms.v[w->symbols.v[i]];
        jfr_enc_long(b, (uint64_t)w->symbols.v[i] + 1);
        jfr_enc_string(b, (const char *)w->syms.data.data + n->off, n->len);
    }
}

/* A pool of fixed strings (frame types, thread states): the entries stamped by this chunk. */
static void pool_fixed(struct jfr_w *w, struct fpl_buf *b, uint32_t type, const uint32_t *gen,
                       const char *const *names, size_t n)
{
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        used += gen[i] == w->chunk;
    jfr_enc_long(b, type);
    jfr_enc_long(b, used);
    for (size_t i = 0; i < n; i++) {
        if (gen[i] == w->chunk) {
            jfr_enc_long(b, i + 1);
            jfr_enc_cstr(b, names[i]);
        }
    }
}

/* Appends the chunk's checkpoint event to w->out: every pool its events and stacks use (a
 * pool is left out when empty: the readers refuse an empty one). */
static int write_checkpoint(struct jfr_w *w)
{
    struct fpl_buf *b = &w->out;
    stamp_reachable(w);
    if (w->nomem)
        return -ENOMEM;
    size_t nframe = 0, nstate = 0;
    for (size_t i = 0; i < FRAME_TYPES; i++)
        nframe += w->frame_gen[i] == w->chunk;
    for (size_t i = 0; i < STATES; i++)
        nstate += w->state_gen[i] == w->chunk;
    size_t npools = (w->threads.n > 0) + (w->stacks.n > 0) + (w->methods.n > 0) +
                    (w->classes.n > 0) + (w->packages.n > 0) + (w->symbols.n > 0) + (nframe > 0) +
                    (nstate > 0);
    size_t off = jfr_enc_begin(b);
    jfr_enc_long(b, JFR_TYPE_CHECKPOINT);
    jfr_enc_long(b, w->chunk_start);
    jfr_enc_long(b, 0); /* duration */
    jfr_enc_long(b, 0); /* delta to the next checkpoint: none */
    jfr_enc_byte(b, 0); /* not a flush */
    jfr_enc_long(b, npools);
    if (w->threads.n)
        pool_threads(w, b);
    if (w->stacks.n)
        pool_stacks(w, b);
    if (w->methods.n)
        pool_methods(w, b);
    if (w->classes.n)
        pool_classes(w, b);
    if (w->packages.n)
        pool_packages(w, b);
    if (w->symbols.n)
        pool_symbols(w, b);
    if (nframe)
        pool_fixed(w, b, JFR_TYPE_FRAME_TYPE, w->frame_gen, frame_type_names, FRAME_TYPES);
    if (nstate)
        pool_fixed(w, b, JFR_TYPE_THREAD_STATE, w->state_gen, jfr_meta_state_names, STATES);
    if (w->nomem)
        return -ENOMEM;
    return jfr_enc_end(b, off);
}

/* ---- chunks ---- */

static int put_settings(struct jfr_w *w);

static int open_chunk(struct jfr_w *w, uint64_t ticks)
{
    w->chunk++;
    w->chunk_open = 1;
    w->chunk_start = w->chunk_end = ticks;
    w->ev.len = 0;
    w->threads.n = w->stacks.n = w->methods.n = 0;
    w->classes.n = w->packages.n = w->symbols.n = 0;
    return put_settings(w);
}

/* Writes the chunk: header, events, checkpoint, metadata. */
static int close_chunk(struct jfr_w *w, int final)
{
    int rc;
    w->out.len = 0;
    if ((rc = write_checkpoint(w)) != 0)
        return rc;
    size_t meta = w->out.len;
    if ((rc = jfr_meta_write(&w->out, w->chunk_start, METADATA_ID)) != 0)
        return rc;
    if (w->ev.failed || w->out.failed)
        return -ENOMEM;
    uint8_t h[HEADER_BYTES] = {'F', 'L', 'R', 0, 0, 2, 0, 0};
    uint64_t size = HEADER_BYTES + w->ev.len + w->out.len;
    jfr_enc_be64(h + 8, size);
    jfr_enc_be64(h + 16, HEADER_BYTES + w->ev.len);        /* the checkpoint */
    jfr_enc_be64(h + 24, HEADER_BYTES + w->ev.len + meta); /* the metadata */
    jfr_enc_be64(h + 32, w->origin_real_ns + (w->chunk_start - TICK_BASE) * NS_PER_TICK);
    uint64_t span = (w->chunk_end - w->chunk_start) * NS_PER_TICK;
    jfr_enc_be64(h + 40, span ? span : 1);
    jfr_enc_be64(h + 48, w->chunk_start);
    jfr_enc_be64(h + 56, TICKS_PER_SEC);
    h[64] = 0; /* file state: finished */
    h[67] = FLAG_COMPRESSED_INTS | (final ? FLAG_FINAL_CHUNK : 0);
    errno = 0;
    if (fwrite(h, 1, sizeof(h), w->f) != sizeof(h) ||
        (w->ev.len && fwrite(w->ev.data, 1, w->ev.len, w->f) != w->ev.len) ||
        fwrite(w->out.data, 1, w->out.len, w->f) != w->out.len)
        return errno ? -errno : -EIO;
    w->chunk_open = 0;
    return 0;
}

/* Makes room for an event at ticks: opens the first chunk, or a new one when the current one
 * is full or spans chunk_ns. */
static int chunk_for(struct jfr_w *w, uint64_t ticks)
{
    int rc;
    if (w->chunk_open &&
        (w->ev.len >= w->chunk_bytes ||
         (ticks > w->chunk_start && (ticks - w->chunk_start) * NS_PER_TICK >= w->chunk_ns)))
        if ((rc = close_chunk(w, 0)) != 0)
            return rc;
    if (!w->chunk_open && (rc = open_chunk(w, ticks)) != 0)
        return rc;
    if (ticks > w->chunk_end)
        w->chunk_end = ticks;
    if (ticks < w->chunk_start) /* a wall sample whose tick the log gave late (spill.h) */
        w->chunk_start = ticks;
    return 0;
}

/* ---- events ---- */

/* Appends an event's body (type and fields) to the chunk with its size before it. */
static void put_body(struct jfr_w *w, const struct fpl_buf *one)
{
    size_t body = one->len, n = body + 1;
    while (jfr_enc_long_len(n) + body != n)
        n = jfr_enc_long_len(n) + body;
    jfr_enc_long(&w->ev, n);
    fpl_put_bytes(&w->ev, one->data, body);
}

static void put_event(struct jfr_w *w)
{
    put_body(w, &w->one);
}

static void put_setting(struct jfr_w *w, uint64_t id, const char *name, const char *value,
                        size_t vlen)
{
    w->one.len = 0;
    jfr_enc_long(&w->one, JFR_EVENT_ACTIVE_SETTING);
    jfr_enc_long(&w->one, w->chunk_start);
    jfr_enc_long(&w->one, 0); /* duration */
    jfr_enc_long(&w->one, 0); /* eventThread: none */
    jfr_enc_long(&w->one, id);
    jfr_enc_cstr(&w->one, name);
    jfr_enc_string(&w->one, value, vlen);
    put_event(w);
}

/* The settings in force, at each chunk's start as the JDK writes them: enabled and period of
 * the sample events, and each agent option (flyprof.NAME) as the log recorded them. */
static int put_settings(struct jfr_w *w)
{
    const struct profile *p = w->p;
    char v[64];
    int n;
    int cpu = w->kinds & (1u << FPL_KIND_CPU), wall = w->kinds & (1u << FPL_KIND_WALL);
    if (cpu) {
        put_setting(w, JFR_EVENT_EXECUTION_SAMPLE, "enabled", "true", 4);
        n = snprintf(v, sizeof(v), "%llu ns", (unsigned long long)p->header.cpu_interval_ns);
        if (p->have_header && p->header.cpu_interval_ns)
            put_setting(w, JFR_EVENT_EXECUTION_SAMPLE, "period", v, (size_t)n);
    }
    if (wall) {
        uint64_t id = cpu ? JFR_EVENT_WALL_SAMPLE : JFR_EVENT_EXECUTION_SAMPLE;
        if (cpu)
            put_setting(w, id, "enabled", "true", 4);
        n = snprintf(v, sizeof(v), "%llu ns", (unsigned long long)p->header.wall_interval_ns);
        if (p->have_header && p->header.wall_interval_ns)
            put_setting(w, id, cpu ? "period" : "wallPeriod", v, (size_t)n);
    }
    static const uint64_t kind_events[PROFILE_KINDS] = {
        0, 0, JFR_EVENT_ALLOC_SAMPLE, JFR_EVENT_MONITOR_ENTER, JFR_EVENT_LIVE_OBJECT};
    for (int k = FPL_KIND_ALLOC; k < PROFILE_KINDS; k++) {
        if (!(w->kinds & (1u << k)))
            continue;
        put_setting(w, kind_events[k], "enabled", "true", 4);
        if (k == FPL_KIND_LOCK)
            put_setting(w, JFR_EVENT_THREAD_PARK, "enabled", "true", 4);
    }
    if (p->have_header && p->header.options[0]) {
        const char *s = p->header.options;
        while (*s) {
            size_t len = strcspn(s, ",");
            const char *eq = memchr(s, '=', len);
            size_t klen = eq ? (size_t)(eq - s) : len;
            w->tmp.len = 0;
            fpl_put_bytes(&w->tmp, "flyprof.", 8);
            fpl_put_bytes(&w->tmp, s, klen);
            fpl_put_u8(&w->tmp, 0);
            if (w->tmp.failed)
                return -ENOMEM;
            put_setting(w, JFR_EVENT_EXECUTION_SAMPLE, (const char *)w->tmp.data,
                        eq ? eq + 1 : "true", eq ? len - klen - 1 : 4);
            s += len + (s[len] == ',');
        }
    }
    return w->ev.failed ? -ENOMEM : 0;
}

/* Appends a context's fields (span, root span, endpoint) to w->ctx. */
static void put_context(struct jfr_w *w, const struct tracectx_def *cd)
{
    jfr_enc_long(&w->ctx, cd->span);
    jfr_enc_long(&w->ctx, cd->root);
    jfr_enc_cstr(&w->ctx, tracectx_endpoint(&w->p->ctx, cd->root));
}

/* Marks thread ti and stack si used in the chunk being written, so that its pools hold
 * them. Returns 0, or -ENOMEM. */
static int chunk_use(struct jfr_w *w, uint32_t ti, uint32_t si)
{
    if (w->thread_gen[ti] != w->chunk) {
        w->thread_gen[ti] = w->chunk;
        if (ivec_push(&w->threads, ti))
            return -ENOMEM;
    }
    if (w->stack_gen[si] != w->chunk) {
        w->stack_gen[si] = w->chunk;
        if (ivec_push(&w->stacks, si))
            return -ENOMEM;
    }
    return 0;
}

/* What a sample event of a cell says besides its time: its thread and stack (profile
 * indices, the last + 1 for undefined), thread state and event type, and its request's
 * context (NULL: none). put_spilled keeps one per cell, packed, so that writing a sample
 * does not read the cell (profile_entry: 80 bytes, a cache and TLB miss each in a big
 * profile). */
struct sample_key {
    uint32_t ti, si;
    uint8_t state, wall_type;
    uint8_t sel, ctx; /* put_spilled's: the cell is selected; it has a context */
};

static struct sample_key sample_key(const struct jfr_w *w, const struct profile_entry *e)
{
    const struct profile *p = w->p;
    return (struct sample_key){
        .ti = e->thread == PROFILE_NONE ? (uint32_t)p->nthreads : e->thread,
        .si = e->stack == PROFILE_NONE ? (uint32_t)p->nstacks : e->stack,
        .state = (uint8_t)(e->kind == FPL_KIND_CPU ? FPL_STATE_RUNNING
                           : e->state < STATES     ? e->state
                                                   : PROFILE_STATE_OTHER),
        .wall_type = e->kind == FPL_KIND_WALL && w->sel.kind == PROFILE_KIND_ALL};
}

/* Writes n sample events of key at ticks; e, the cell, only for its context (NULL: none). */
static int put_events(struct jfr_w *w, struct sample_key key, const struct profile_entry *e,
                      uint64_t n, uint64_t ticks)
{
    const struct profile *p = w->p;
    uint32_t ti = key.ti, si = key.si, state = key.state;
    uint64_t type = key.wall_type ? JFR_EVENT_WALL_SAMPLE : JFR_EVENT_EXECUTION_SAMPLE;
    int rc;
    while (n) {
        if ((rc = chunk_for(w, ticks)) != 0)
            return rc;
        if (chunk_use(w, ti, si))
            return -ENOMEM;
        w->state_gen[state] = w->chunk;
        w->one.len = 0;
        jfr_enc_long(&w->one, type);
        jfr_enc_long(&w->one, ticks);
        jfr_enc_long(&w->one, (uint64_t)ti + 1);
        jfr_enc_long(&w->one, (uint64_t)si + 1);
        jfr_enc_long(&w->one, state + 1);
        /* a sample of a request: its context beside it (FORMAT.md 5.16, JFR.md) */
        const struct tracectx_def *cd =
            e && e->context_id ? tracectx_find(&p->ctx, e->context_id) : NULL;
        if (cd) {
            w->ctx.len = 0;
            jfr_enc_long(&w->ctx, JFR_EVENT_CONTEXT_SAMPLE);
            jfr_enc_long(&w->ctx, ticks);
            jfr_enc_long(&w->ctx, (uint64_t)ti + 1);
            jfr_enc_long(&w->ctx, (uint64_t)si + 1);
            jfr_enc_long(&w->ctx, state + 1);
            jfr_enc_byte(&w->ctx, e->kind == FPL_KIND_CPU);
            put_context(w, cd);
        }
        if (w->one.failed || w->ctx.failed)
            return -ENOMEM;
        /* the same event n times, up to the chunk's end: encoded once with its size, then
         * copied */
        size_t at = w->ev.len;
        put_event(w);
        if (cd)
            put_body(w, &w->ctx);
        if (w->ev.failed)
            return -ENOMEM;
        size_t rec = w->ev.len - at;
        n--;
        uint64_t room =
            w->ev.len < w->chunk_bytes ? (w->chunk_bytes - w->ev.len + rec - 1) / rec : 0;
        uint64_t k = n < room ? n : room;
        if (k && fpl_buf_reserve(&w->ev, (size_t)k * rec) == 0) {
            const uint8_t *src = w->ev.data + at;
            uint8_t *dst = w->ev.data + w->ev.len;
            for (uint64_t i = 0; i < k; i++, dst += rec)
                memcpy(dst, src, rec);
            w->ev.len += (size_t)k * rec;
            n -= k;
        }
        if (w->ev.failed)
            return -ENOMEM;
    }
    return 0;
}

/* Writes n sample events of cell e at ticks. */
static int put_samples(struct jfr_w *w, const struct profile_entry *e, uint64_t n, uint64_t ticks)
{
    return put_events(w, sample_key(w, e), e, n, ticks);
}

/* The ticks (after the origin, + TICK_BASE) of a tick value of the log; TICK_BASE before
 * the origin. */
static uint64_t log_ticks(const struct jfr_w *w, uint64_t t)
{
    uint64_t real = profile_ticks_to_real_ns(w->p, t);
    return TICK_BASE + (real > w->origin_real_ns ? (real - w->origin_real_ns) / NS_PER_TICK : 0);
}

/* Whether cell e is written: a CPU or wall cell of sel, an alloc, lock or live cell of sel or
 * of xsel. */
static int selected(struct jfr_w *w, const struct profile_entry *e)
{
    if (e->upscaled == 0)
        return 0;
    if (e->kind >= FPL_KIND_ALLOC && e->kind < PROFILE_KINDS && (w->xkinds & (1u << e->kind))) {
        w->xsel.kind = e->kind;
        return render_select_entry(&w->xsel, e);
    }
    return render_select_entry(&w->sel, e);
}

/* The context event type of an alloc, lock or live event type. Every event type id is
 * below 128: one byte in LEB128, so a context event is its event's bytes with that byte
 * changed and the context appended. */
_Static_assert(JFR_EVENT_LIVE_CONTEXT < 128, "event type ids of one byte");
static uint8_t context_type(uint8_t type)
{
    switch (type) {
    case JFR_EVENT_ALLOC_SAMPLE:
        return JFR_EVENT_ALLOC_CONTEXT;
    case JFR_EVENT_MONITOR_ENTER:
        return JFR_EVENT_MONITOR_CONTEXT;
    case JFR_EVENT_THREAD_PARK:
        return JFR_EVENT_PARK_CONTEXT;
    default:
        return JFR_EVENT_LIVE_CONTEXT;
    }
}

/* An alloc, lock or live sample of cell c, of weight (bytes; ns waited) and object size, at
 * log ticks t, as its own event: jdk.ObjectAllocationSample, jdk.JavaMonitorEnter (a
 * monitor: state BLOCKED) or jdk.ThreadPark (a java.util.concurrent lock: PARKED), or
 * flyprof.LiveObject; the stack's CLASS leaf is the event's class. */
static int put_kept(struct jfr_w *w, uint32_t c, uint64_t t, uint64_t weight, uint64_t size)
{
    const struct profile *p = w->p;
    const struct profile_entry *e = &p->entries[c];
    uint32_t ti = e->thread == PROFILE_NONE ? (uint32_t)p->nthreads : e->thread;
    uint32_t si = e->stack == PROFILE_NONE ? (uint32_t)p->nstacks : e->stack;
    uint64_t at = log_ticks(w, t);
    int rc;
    if ((rc = chunk_for(w, at)) != 0)
        return rc;
    if (chunk_use(w, ti, si))
        return -ENOMEM;
    uint32_t cls = leaf_class(w, si);
    stamp_name(w, &w->clsname, &w->classes, cls);
    w->one.len = 0;
    if (e->kind == FPL_KIND_LOCK) {
        /* ns ticks in a file with lock waits: the duration is the weight, exactly */
        uint64_t d = weight / NS_PER_TICK;
        if (at + d > w->chunk_end)
            w->chunk_end = at + d;
        int park = e->state == FPL_STATE_PARKED;
        jfr_enc_long(&w->one, park ? JFR_EVENT_THREAD_PARK : JFR_EVENT_MONITOR_ENTER);
        jfr_enc_long(&w->one, at);
        jfr_enc_long(&w->one, d);
        jfr_enc_long(&w->one, (uint64_t)ti + 1);
        jfr_enc_long(&w->one, (uint64_t)si + 1);
        jfr_enc_long(&w->one, cls);
        if (park) {
            jfr_enc_long(&w->one, NO_TIMEOUT); /* timeout, until: not in the log */
            jfr_enc_long(&w->one, NO_TIMEOUT);
        } else {
            jfr_enc_long(&w->one, 0); /* previousOwner: not in the log */
        }
        jfr_enc_long(&w->one, 0); /* address: not in the log */
    } else {
        int live = e->kind == FPL_KIND_LIVE;
        jfr_enc_long(&w->one, live ? JFR_EVENT_LIVE_OBJECT : JFR_EVENT_ALLOC_SAMPLE);
        jfr_enc_long(&w->one, at);
        jfr_enc_long(&w->one, (uint64_t)ti + 1);
        jfr_enc_long(&w->one, (uint64_t)si + 1);
        jfr_enc_long(&w->one, cls);
        jfr_enc_long(&w->one, weight);
        if (live)
            jfr_enc_long(&w->one, size);
    }
    if (w->one.failed || w->nomem)
        return -ENOMEM;
    put_event(w);
    /* a sample of a request: its context right after it, as for samples (JFR.md) */
    const struct tracectx_def *cd = e->context_id ? tracectx_find(&p->ctx, e->context_id) : NULL;
    if (cd) {
        w->ctx.len = 0;
        jfr_enc_long(&w->ctx, context_type(w->one.data[0]));
        fpl_put_bytes(&w->ctx, w->one.data + 1, w->one.len - 1);
        put_context(w, cd);
        if (w->ctx.failed)
            return -ENOMEM;
        put_body(w, &w->ctx);
    }
    return w->ev.failed ? -ENOMEM : 0;
}

/* The kept alloc, lock and live samples (profile.kept, in time order) from *ki on that were
 * taken before log tick `before`, of selected cells. */
static int put_kept_before(struct jfr_w *w, uint64_t before, size_t *ki)
{
    const struct profile *p = w->p;
    int rc;
    for (; *ki < p->nkept && p->kept[*ki].ticks < before; ++*ki) {
        const struct profile_kept *k = &p->kept[*ki];
        if (k->cell < p->nentries && w->cell_sel[k->cell] &&
            (rc = put_kept(w, k->cell, k->ticks, k->weight, k->size)) != 0)
            return rc;
    }
    return 0;
}

/* The alloc, lock and live cells of a profile that kept no samples one by one (a caller
 * that did not call profile_want_kept): one event per cell, of its whole weight, at its
 * first sample's time, so sums per stack still hold. */
static int put_event_cells(struct jfr_w *w)
{
    const struct profile *p = w->p;
    int rc = 0;
    if (p->want_kept)
        return 0;
    for (size_t i = 0; i < p->nentries && rc == 0; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (w->cell_sel[i] && e->kind >= FPL_KIND_ALLOC)
            rc = put_kept(w, (uint32_t)i, p->first_ticks, e->weight, 0);
    }
    return rc;
}

/* Every selected cell's events at tick 0 (the profile has no timeline); alloc, lock and live
 * samples at their own times. */
static int put_untimed(struct jfr_w *w)
{
    const struct profile *p = w->p;
    int rc = 0;
    for (size_t i = 0; i < p->nentries && rc == 0; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (!w->cell_sel[i] || e->kind >= FPL_KIND_ALLOC)
            continue;
        uint64_t n = profile_fp_round(e->upscaled);
        if (n)
            rc = put_samples(w, e, n, TICK_BASE);
    }
    size_t ki = 0;
    if (rc == 0)
        rc = put_kept_before(w, UINT64_MAX, &ki);
    return rc ? rc : put_event_cells(w);
}

/* Hiccup mode's stalls and GC pauses (the timeline keeps them, timeline.h) that start before
 * the log tick `before`, from *gi and *si on, as flyprof.GCPause and flyprof.Stall events. */
static int put_spans(struct jfr_w *w, uint64_t before, size_t *gi, size_t *si)
{
    const struct timeline *tl = w->p->timeline;
    int rc;
    if (!tl)
        return 0;
    for (;;) {
        const struct timeline_span *g = *gi < tl->ngcs ? &tl->gcs[*gi] : NULL;
        const struct timeline_span *st = *si < tl->nstalls ? &tl->stalls[*si] : NULL;
        const struct timeline_span *sp = g && (!st || g->start <= st->start) ? g : st;
        if (!sp || sp->start >= before)
            return 0;
        uint64_t at = log_ticks(w, sp->start);
        if ((rc = chunk_for(w, at)) != 0)
            return rc;
        w->one.len = 0;
        jfr_enc_long(&w->one, sp == g ? JFR_EVENT_GC_PAUSE : JFR_EVENT_STALL);
        jfr_enc_long(&w->one, at);
        jfr_enc_long(&w->one, sp->end > sp->start
                                  ? profile_ticks_to_ns(w->p, sp->end - sp->start) / NS_PER_TICK
                                  : 0);
        if (sp == g) {
            ++*gi;
        } else {
            jfr_enc_cstr(&w->one, hiccups_probe_name((int)sp->probe));
            ++*si;
        }
        if (w->one.failed)
            return -ENOMEM;
        put_event(w);
    }
}

/* What put_timed and put_spilled keep per cell while they hand out its events: its weight
 * so far minus the events written (fixed point): within half an event, so 32 bits hold it (a
 * cell's running sum would take 16 bytes, and 1.3M cells of the bench's 10M-sample log are 21
 * MB of them); whether it is written from its weight (CPU and wall cells selected: alloc,
 * lock and live cells are written from their samples, put_kept_before). put_timed also keeps
 * the events written and the log tick of each cell's last weight. */
struct credit {
    int32_t *rem;
    uint8_t *sel;
    uint64_t *done, *last; /* put_timed's */
};

static void credit_free(struct credit *c)
{
    free(c->rem);
    free(c->sel);
    free(c->done);
    free(c->last);
}

/* timed: with done and last, every cell's last tick t0 until it has weight */
static int credit_init(struct jfr_w *w, struct credit *c, int timed, uint64_t t0)
{
    const struct profile *p = w->p;
    size_t n = p->nentries ? p->nentries : 1;
    *c = (struct credit){calloc(n, sizeof(*c->rem)), malloc(n), NULL, NULL};
    if (timed) {
        c->done = calloc(n, sizeof(*c->done));
        c->last = malloc(n * sizeof(*c->last));
    }
    if (!c->rem || !c->sel || (timed && (!c->done || !c->last))) {
        credit_free(c);
        return -ENOMEM;
    }
    for (size_t i = 0; i < p->nentries; i++)
        c->sel[i] = w->cell_sel[i] && p->entries[i].kind < FPL_KIND_ALLOC;
    for (size_t i = 0; timed && i < p->nentries; i++)
        c->last[i] = t0;
    return 0;
}

/* The events cell c is due after weight fp more: its weight so far rounded (halves up, as
 * profile_fp_round) minus those written. A whole number of events leaves the remainder as it
 * is. */
_Static_assert(PROFILE_FP_SHIFT == 32, "a cell's rounding remainder fits 32 bits");
#define HALF_FP ((int64_t)1 << (PROFILE_FP_SHIFT - 1))
static uint64_t credit_due(struct credit *cr, uint32_t c, unsigned __int128 fp)
{
    if (!(uint32_t)fp)
        return fp >> 64 >> PROFILE_FP_SHIFT ? UINT64_MAX : (uint64_t)(fp >> PROFILE_FP_SHIFT);
    unsigned __int128 u = fp + (unsigned __int128)((int64_t)cr->rem[c] + HALF_FP);
    unsigned __int128 due = u >> PROFILE_FP_SHIFT;
    cr->rem[c] = (int32_t)((int64_t)(uint32_t)u - HALF_FP);
    return due > UINT64_MAX ? UINT64_MAX : (uint64_t)due;
}

/* After the last sample: the spans and kept samples left from *gi, *si and *ki on, and the
 * alloc, lock and live cells without kept samples. */
static int put_rest(struct jfr_w *w, size_t *gi, size_t *si, size_t *ki)
{
    int rc = put_spans(w, UINT64_MAX, gi, si);
    if (rc == 0)
        rc = put_kept_before(w, UINT64_MAX, ki);
    return rc ? rc : put_event_cells(w);
}

/* The selected cells' events at the start of the timeline's bins they were sampled in
 * (timeline.h), in bin order: the output of a profile read without a spill (the agent's own
 * file=x.jfr, or no temporary file could be made). A cell's weight the timeline kept without
 * it (a bin's overflow) is written at the cell's last bin, so that every cell ends with
 * exactly its rounded weight, as in put_untimed. */
static int put_timed(struct jfr_w *w)
{
    const struct profile *p = w->p;
    const struct timeline *tl = p->timeline;
    struct credit cr;
    int rc = credit_init(w, &cr, 1, tl->origin_ticks);
    if (rc)
        return rc;
    size_t gi = 0, si = 0, ki = 0;
    for (size_t k = 0; k < tl->npairs && rc == 0; k++) {
        const struct timeline_pair *pr = &tl->pairs[k];
        uint64_t bin_start = tl->origin_ticks + (uint64_t)pr->bin * tl->bin_ticks;
        if ((rc = put_spans(w, bin_start, &gi, &si)) || (rc = put_kept_before(w, bin_start, &ki)))
            break;
        uint32_t c = pr->cell;
        if ((c & TIMELINE_OVER) || c >= p->nentries || !cr.sel[c])
            continue;
        uint64_t m = credit_due(&cr, c, timeline_fp(pr));
        cr.last[c] = bin_start;
        if (m) {
            m = m > UINT64_MAX - cr.done[c] ? UINT64_MAX - cr.done[c] : m;
            cr.done[c] += m;
            rc = put_samples(w, &p->entries[c], m, log_ticks(w, bin_start));
        }
    }
    if (rc == 0)
        rc = put_rest(w, &gi, &si, &ki);
    for (size_t i = 0; i < p->nentries && rc == 0; i++) {
        uint64_t all = cr.sel[i] ? profile_fp_round(p->entries[i].upscaled) : 0;
        if (all > cr.done[i])
            rc = put_samples(w, &p->entries[i], all - cr.done[i], log_ticks(w, cr.last[i]));
    }
    credit_free(&cr);
    return rc;
}

/* Every selected CPU and wall sample's events at the sample's own time, in the order the
 * profile read them (spill.h), with the spans and kept samples before each that began
 * before it. The spill holds every weight the cells have, so each cell ends with exactly its
 * rounded weight without a last pass. */
static int put_spilled(struct jfr_w *w)
{
    const struct profile *p = w->p;
    struct credit cr;
    struct spill_rec r;
    int rc = credit_init(w, &cr, 0, 0);
    if (rc)
        return rc;
    /* each cell's sample_key, packed (12 bytes where a cell is 80): read for every sample */
    size_t n = p->nentries;
    struct sample_key *keys = malloc((n ? n : 1) * sizeof(*keys));
    if (!keys || (rc = spill_rewind(p->spill)) != 0) {
        free(keys);
        credit_free(&cr);
        return keys ? rc : -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        keys[i] = sample_key(w, &p->entries[i]);
        keys[i].sel = cr.sel[i];
        keys[i].ctx = p->entries[i].context_id != 0;
    }
    size_t gi = 0, si = 0, ki = 0;
    /* records are read SPILL_AHEAD ahead: in a big profile each sample's key, then its
     * stack's stamp, would leave the core waiting on memory */
    struct spill_rec ahead[SPILL_AHEAD];
    size_t head = 0, tail = 0; /* ahead[tail % SPILL_AHEAD, head % SPILL_AHEAD): read */
    int more = 1;
    while (rc == 0) {
        while (more > 0 && head - tail < SPILL_AHEAD) {
            struct spill_rec *q = &ahead[head % SPILL_AHEAD];
            if ((more = spill_next(p->spill, q)) > 0) {
                head++;
                if (q->cell < n)
                    __builtin_prefetch(&keys[q->cell]);
            }
        }
        if (tail == head)
            break;
        if (head - tail > SPILL_AHEAD / 2) {
            const struct spill_rec *q = &ahead[(tail + SPILL_AHEAD / 2) % SPILL_AHEAD];
            if (q->cell < n)
                __builtin_prefetch(&w->stack_gen[keys[q->cell].si]);
        }
        r = ahead[tail++ % SPILL_AHEAD];
        if ((rc = put_spans(w, r.ticks, &gi, &si)) || (rc = put_kept_before(w, r.ticks, &ki)))
            break;
        if (r.cell >= n || !keys[r.cell].sel)
            continue;
        uint64_t m = credit_due(&cr, r.cell, r.fp);
        if (m)
            rc = put_events(w, keys[r.cell], keys[r.cell].ctx ? &p->entries[r.cell] : NULL, m,
                            log_ticks(w, r.ticks));
    }
    if (rc == 0 && more < 0)
        rc = more;
    if (rc == 0)
        rc = put_rest(w, &gi, &si, &ki);
    free(keys);
    credit_free(&cr);
    return rc;
}

static void destroy(struct jfr_w *w)
{
    if (w->sel_open)
        render_select_destroy(&w->sel);
    if (w->xsel_open)
        render_select_destroy(&w->xsel);
    free(w->cell_sel);
    free(w->leaf_cls);
    free(w->mkind);
    free(w->mline_at);
    free(w->mlines);
    fpl_buf_free(&w->ev);
    fpl_buf_free(&w->out);
    fpl_buf_free(&w->one);
    fpl_buf_free(&w->ctx);
    fpl_buf_free(&w->tmp);
    free(w->thread_gen);
    free(w->stack_gen);
    free(w->stack_enc);
    fpl_buf_free(&w->stk);
    free(w->method_gen);
    free(w->method_reached);
    free(w->reached.v);
    free(w->minfo);
    free(w->threads.v);
    free(w->stacks.v);
    free(w->methods.v);
    free(w->classes.v);
    free(w->packages.v);
    free(w->symbols.v);
    names_destroy(&w->syms);
    names_destroy(&w->pkgs);
    names_destroy(&w->clsname);
    free(w->cls);
}

int out_jfr_write(const struct profile *p, const struct render_opts *o, FILE *f, char *err,
                  size_t errlen)
{
    static const struct render_opts defaults = {.kind = PROFILE_KIND_AUTO,
                                                .state = RENDER_STATE_ALL};
    struct jfr_w w = {0};
    int rc;

    if (!o)
        o = &defaults;
    if ((rc = render_select_init(&w.sel, p, o, err, errlen)) != 0)
        return rc; /* err names the bad regex */
    w.sel_open = 1;
    /* no --kind, or --kind all: alloc, lock and live samples too, as their own event types
     * (JFR keeps kinds apart by type; no reader adds bytes or waits to samples) */
    if (o->kind == PROFILE_KIND_AUTO || o->kind == PROFILE_KIND_ALL) {
        struct render_opts xo = *o;
        xo.kind = FPL_KIND_ALLOC;
        if ((rc = render_select_init(&w.xsel, p, &xo, err, errlen)) != 0)
            goto out;
        w.xsel_open = 1;
        w.xkinds = 1u << FPL_KIND_ALLOC | 1u << FPL_KIND_LOCK | 1u << FPL_KIND_LIVE;
    }
    w.p = p;
    w.o = o;
    w.f = f;
    w.chunk_bytes = o->chunk_bytes ? o->chunk_bytes : OUT_JFR_CHUNK_BYTES;
    w.chunk_ns = o->chunk_ns ? o->chunk_ns : OUT_JFR_CHUNK_NS;
    w.thread_gen = calloc(p->nthreads + 1, sizeof(*w.thread_gen));
    w.stack_gen = calloc(p->nstacks + 1, sizeof(*w.stack_gen));
    w.stack_enc = calloc(p->nstacks + 1, sizeof(*w.stack_enc));
    w.method_gen = calloc(p->nmethods + SPECIALS, sizeof(*w.method_gen));
    w.minfo = calloc(p->nmethods + SPECIALS, sizeof(*w.minfo));
    w.method_reached = calloc(p->nmethods + SPECIALS, 1);
    w.leaf_cls = calloc(p->nmethods + 1, sizeof(*w.leaf_cls));
    w.cell_sel = malloc(p->nentries + 1);
    if (!w.thread_gen || !w.stack_gen || !w.stack_enc || !w.method_gen || !w.minfo ||
        !w.method_reached || !w.leaf_cls || !w.cell_sel || line_tables(&w) != 0) {
        rc = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < p->nentries; i++) {
        w.cell_sel[i] = (uint8_t)selected(&w, &p->entries[i]);
        if (w.cell_sel[i])
            w.kinds |= 1u << p->entries[i].kind;
    }
    if (w.sel.kind == PROFILE_KIND_ALL)
        w.kinds |= 1u << FPL_KIND_CPU | 1u << FPL_KIND_WALL; /* their settings, as before */
    else if (w.sel.kind == FPL_KIND_CPU || w.sel.kind == FPL_KIND_WALL)
        w.kinds |= 1u << w.sel.kind;
    w.ns_per_tick = w.kinds & (1u << FPL_KIND_LOCK) ? NS_PER_TICK_NS : NS_PER_TICK_US;
    if (p->have_header)
        w.origin_real_ns = p->header.anchor_real_ns;
    else if (p->samples)
        w.origin_real_ns = profile_ticks_to_real_ns(p, p->first_ticks);

    rc = p->spill                              ? put_spilled(&w)
         : p->timeline && p->timeline->started ? put_timed(&w)
                                               : put_untimed(&w);
    if (rc == 0 && !w.chunk_open)
        rc = open_chunk(&w, 1000000000ull / w.ns_per_tick); /* a file without samples still
                                                             * has a chunk (TICK_BASE) */
    if (rc == 0)
        rc = close_chunk(&w, 1);
    errno = 0;
    if (rc == 0 && fflush(f) != 0)
        rc = errno ? -errno : -EIO;
out:
    if (rc == -ENOMEM || (rc == 0 && w.nomem)) {
        rc = -ENOMEM;
        snprintf(err, errlen, "jfr: out of memory");
    } else if (rc == -EFBIG) {
        snprintf(err, errlen, "jfr: a chunk's constant pools are over %llu bytes",
                 (unsigned long long)JFR_ENC_SIZE_MAX);
    } else if (rc) {
        snprintf(err, errlen, "jfr: write failed: %s", strerror(-rc));
    }
    destroy(&w);
    return rc;
}
