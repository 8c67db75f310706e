/* reader.c: walks the chunks of a .fpl log and decodes their records (see reader.h). */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpl_chunk.h"
#include "fpl_codec.h"
#include "fpl_format.h"
#include "fpl_stackring.h"
#include "namedict.h"

/* READER_READ_MIN: the least a read from a file asks for; READER_SCAN: the bytes searched for
 * a sync word at a time in a damaged region. Tests build the reader with tiny ones so that
 * chunks and sync words straddle window boundaries everywhere. */
#ifndef READER_READ_MIN
#define READER_READ_MIN (1u << 20)
#endif
#ifndef READER_SCAN
#define READER_SCAN 65536
#endif
#define READER_NONE UINT64_MAX

/* Where the log's bytes come from: a buffer in memory, or a file read window by window (a
 * regular file with pread, anything else -- a pipe -- forward only with read). The window
 * holds at most one chunk and what was read with it, so memory stays proportional to the
 * largest chunk (FPL_CHUNK_MAX), not to the file. */
struct src {
    const uint8_t *mem; /* the whole log in memory, or NULL */
    int fd;
    int seekable;
    uint8_t *buf; /* the window: bytes [base, base + have) of the input */
    size_t cap;
    uint64_t base;
    size_t have;
    uint64_t size; /* the input's length, when known (memory, a regular file, or at EOF) */
    int size_known;
    int err; /* -errno of a failed read */
};

struct reader {
    struct src *src;
    const char *name;
    const struct reader_ops *ops;
    void *ctx;
    struct reader_stats *st;
    int have_seq;
    uint32_t next_seq;
    int skipped; /* set by a decoder that skipped its record whole (counted already) */
    /* scratch for the variable-length parts of a record, grown on demand and reused */
    struct reader_frame *frames;
    size_t frames_cap;
    struct reader_line *lines;
    size_t lines_cap;
    struct reader_counter *ctrs;
    size_t ctrs_cap;
    uint64_t *hist;
    size_t hist_cap;
    struct reader_event *events;
    size_t events_cap;
    struct reader_bucket *buckets;
    size_t buckets_cap;
    /* SAMPLE2's chains in the chunk being read (reset per chunk): the previous sample's
     * thread, the previous tick id, and each thread's previous kind, state, stack and
     * context, in an open-addressing table whose entries of older chunks are stale (gen) */
    struct s2_thread *s2;
    size_t s2_cap, s2_used;
    uint64_t s2_gen;
    uint64_t s2_thread, s2_tick;
    int s2_have_thread;
    struct namedict names; /* ENDPOINT_NAME records: ENDPOINT2's names */
    struct namedict classes, sources; /* CLASS_NAME records: METHOD2's class, source file */
    struct fpl_stackring sring; /* the chunk's last stack records: STACK2's bases */
    struct fpl_sframe *sframes; /* scratch: a stack record's frames for sring */
    size_t sframes_cap;
    /* samples decoded and not delivered yet (ops.samples) */
    struct reader_sample batch[READER_BATCH];
    size_t nbatch;
};

struct s2_thread {
    uint64_t gen;       /* the chunk it belongs to; another: an empty slot */
    uint64_t thread_id, stack_id, context_id;
    uint8_t kind, state;
};

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Fills err (if any) and returns rc. */
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A scratch array of at least n elements of size elem: buf, or buf reallocated (capacity in
 * *cap). NULL when out of memory (buf stays valid and owned by the caller). */
static void *scratch(void *buf, size_t *cap, size_t n, size_t elem)
{
    if (n <= *cap && buf)
        return buf;
    size_t c = *cap ? *cap : 64;
    while (c < n)
        c *= 2;
    void *p = realloc(buf, c * elem);
    if (p)
        *cap = c;
    return p;
}

/* A count read from the log, checked against the bytes left: each element takes at least
 * min_bytes, so a count beyond that is damage, and no allocation can exceed the chunk. */
static size_t get_count(struct fpl_cur *c, size_t min_bytes)
{
    uint64_t n = fpl_get_v(c);
    if (c->bad || n > (uint64_t)(c->end - c->p) / min_bytes) {
        c->bad = 1;
        return 0;
    }
    return (size_t)n;
}

static struct reader_str get_str(struct fpl_cur *c)
{
    struct reader_str s;
    s.s = fpl_get_str(c, &s.len);
    return s;
}

static int rec_header(struct reader *r, struct fpl_cur *c)
{
    struct reader_header h;
    h.header_version = fpl_get_v(c);
    if (c->bad)
        return 0;
    if (h.header_version != 1) {
        /* another layout, not damage: skipped whole like a record of an unknown type */
        r->st->unknown_records++;
        r->skipped = 1;
        return 0;
    }
    h.pid = fpl_get_v(c);
    h.clock = fpl_get_u8(c);
    h.ticks_per_sec = fpl_get_u64(c);
    h.anchor_ticks = fpl_get_u64(c);
    h.anchor_mono_ns = fpl_get_u64(c);
    h.anchor_real_ns = fpl_get_u64(c);
    h.cpu_interval_ns = fpl_get_v(c);
    h.engine = fpl_get_u8(c);
    h.wall_interval_ns = fpl_get_v(c);
    h.wall_threads = fpl_get_v(c);
    h.depth = fpl_get_v(c);
    h.options = get_str(c);
    h.jvm_name = get_str(c);
    h.jvm_version = get_str(c);
    h.command = get_str(c);
    /* appended fields: absent in logs of older agents */
    h.agent_version = c->p < c->end ? get_str(c) : (struct reader_str){"", 0};
    if (c->bad || !r->ops->header)
        return 0;
    return r->ops->header(r->ctx, &h);
}

static int rec_anchor(struct reader *r, struct fpl_cur *c)
{
    uint64_t ticks = fpl_get_u64(c);
    uint64_t mono = fpl_get_u64(c);
    uint64_t real = fpl_get_u64(c);
    if (c->bad || !r->ops->anchor)
        return 0;
    return r->ops->anchor(r->ctx, ticks, mono, real);
}

static int rec_thread(struct reader *r, struct fpl_cur *c)
{
    uint64_t id = fpl_get_v(c);
    uint64_t tid = fpl_get_v(c);
    struct reader_str name = get_str(c);
    /* optional trailing field: absent when the body ends here */
    uint64_t java_id = c->p < c->end ? fpl_get_v(c) : 0;
    if (c->bad || !r->ops->thread)
        return 0;
    int rc = r->ops->thread(r->ctx, id, tid, name);
    if (rc == 0 && java_id && r->ops->thread_java_id)
        rc = r->ops->thread_java_id(r->ctx, id, java_id);
    return rc;
}

/* The line table of a METHOD (steps 0) or METHOD2 (steps 1: each entry a step from the one
 * before) record into r->lines and m: 0, or -ENOMEM; c->bad on damage. */
static int get_lines(struct reader *r, struct fpl_cur *c, struct reader_method *m, int steps)
{
    m->nlines = get_count(c, 2);
    if (c->bad)
        return 0;
    void *q = scratch(r->lines, &r->lines_cap, m->nlines, sizeof(*r->lines));
    if (!q)
        return -ENOMEM;
    r->lines = q;
    uint64_t bci = 0, line = 0;
    for (size_t i = 0; i < m->nlines; i++) {
        if (steps) {
            /* modular sums: a step read from any bytes decodes to some value, never a trap */
            bci += fpl_get_v(c);
            line += (uint64_t)fpl_get_sv(c);
        } else {
            bci = fpl_get_v(c);
            line = fpl_get_v(c);
        }
        r->lines[i].start_bci = bci;
        r->lines[i].line = line;
    }
    m->lines = r->lines;
    return 0;
}

static int rec_method(struct reader *r, struct fpl_cur *c)
{
    struct reader_method m;
    m.id = fpl_get_v(c);
    m.kind = fpl_get_u8(c);
    m.class_name = get_str(c);
    m.name = get_str(c);
    m.signature = get_str(c);
    m.source_file = get_str(c);
    int rc = get_lines(r, c, &m, 0);
    if (rc || c->bad || !r->ops->method)
        return rc;
    return r->ops->method(r->ctx, &m);
}

static int rec_class_name(struct reader *r, struct fpl_cur *c)
{
    uint64_t id = fpl_get_v(c);
    struct reader_str klass = get_str(c);
    struct reader_str src = get_str(c);
    if (!c->bad && id == 0)
        c->bad = 1; /* ids start at 1; 0 is METHOD2's "no class" */
    if (c->bad)
        return 0;
    int rc = namedict_put(&r->classes, id, klass.s, klass.len);
    return rc ? rc : namedict_put(&r->sources, id, src.s, src.len);
}

/* METHOD2: delivered as the METHOD record with its CLASS_NAME's class and source file (class
 * id 0: both ""); a class id not defined before it makes a bad record (its definition was in
 * a chunk lost or damaged). */
static int rec_method2(struct reader *r, struct fpl_cur *c)
{
    struct reader_method m;
    m.id = fpl_get_v(c);
    m.kind = fpl_get_u8(c);
    uint64_t cid = fpl_get_v(c);
    m.name = get_str(c);
    m.signature = get_str(c);
    int rc = get_lines(r, c, &m, 1);
    if (rc || c->bad)
        return rc;
    if (cid == 0) {
        m.class_name = m.source_file = (struct reader_str){"", 0};
    } else if (!(m.class_name.s = namedict_get(&r->classes, cid, &m.class_name.len)) ||
               !(m.source_file.s = namedict_get(&r->sources, cid, &m.source_file.len))) {
        c->bad = 1;
        return 0;
    }
    if (!r->ops->method)
        return 0;
    return r->ops->method(r->ctx, &m);
}

/* Pushes the stack record just decoded (r->frames[0..n), or a bad one: ok 0) into the chunk's
 * ring, as the writer did (fpl_stackring.h), so that STACK2's positions agree. */
static int ring_push(struct reader *r, size_t n, int ok)
{
    if (!ok)
        return fpl_stackring_push(&r->sring, NULL, 0);
    void *q = scratch(r->sframes, &r->sframes_cap, n, sizeof(*r->sframes));
    if (!q)
        return -ENOMEM;
    r->sframes = q;
    for (size_t i = 0; i < n; i++) {
        r->sframes[i].method_id = r->frames[i].method_id;
        r->sframes[i].bci = r->frames[i].bci;
        r->sframes[i].type = r->frames[i].type;
    }
    return fpl_stackring_push(&r->sring, r->sframes, n);
}

static int rec_stack(struct reader *r, struct fpl_cur *c)
{
    uint64_t id = fpl_get_v(c);
    size_t n = get_count(c, 2);
    if (c->bad)
        return ring_push(r, 0, 0);
    void *q = scratch(r->frames, &r->frames_cap, n, sizeof(*r->frames));
    if (!q)
        return -ENOMEM;
    r->frames = q;
    for (size_t i = 0; i < n; i++) {
        r->frames[i].method_id = fpl_get_v(c);
        r->frames[i].bci = fpl_get_sv(c);
        r->frames[i].type = FPL_FRAME_JAVA;
    }
    /* appended in a later revision: one type byte per frame */
    if (!c->bad && (size_t)(c->end - c->p) >= n)
        for (size_t i = 0; i < n; i++)
            r->frames[i].type = fpl_get_u8(c);
    int rc = ring_push(r, n, !c->bad);
    if (rc || c->bad || !r->ops->stack)
        return rc;
    return r->ops->stack(r->ctx, id, r->frames, n);
}

/* STACK2 (version 3): new leaf frames, then the root-side frames of a recent stack record. A
 * base that is not in the ring (back out of range, or a bad record there), more shared frames
 * than it has, or more than FPL_STACK2_MAX_FRAMES in all make a bad record. */
static int rec_stack2(struct reader *r, struct fpl_cur *c)
{
    uint64_t id = fpl_get_v(c);
    uint64_t back = fpl_get_v(c);
    uint64_t shared = fpl_get_v(c);
    size_t fresh = get_count(c, 3); /* a frame: a method id, a bci and a type */
    size_t bn = 0;
    const struct fpl_sframe *base = c->bad ? NULL : fpl_stackring_get(&r->sring, back, &bn);
    if (!base || shared > bn || fresh + shared > FPL_STACK2_MAX_FRAMES) {
        c->bad = 1;
        return ring_push(r, 0, 0);
    }
    size_t n = fresh + (size_t)shared;
    void *q = scratch(r->frames, &r->frames_cap, n, sizeof(*r->frames));
    if (!q)
        return -ENOMEM;
    r->frames = q;
    for (size_t i = 0; i < fresh; i++) {
        r->frames[i].method_id = fpl_get_v(c);
        r->frames[i].bci = fpl_get_sv(c);
    }
    for (size_t i = 0; i < fresh; i++)
        r->frames[i].type = fpl_get_u8(c);
    for (size_t i = 0; i < shared; i++) {
        const struct fpl_sframe *b = &base[bn - (size_t)shared + i];
        r->frames[fresh + i].method_id = b->method_id;
        r->frames[fresh + i].bci = b->bci;
        r->frames[fresh + i].type = b->type;
    }
    int rc = ring_push(r, n, !c->bad);
    if (rc || c->bad || !r->ops->stack)
        return rc;
    return r->ops->stack(r->ctx, id, r->frames, n);
}

/* Delivers the samples held back for ops.samples. */
static int flush_samples(struct reader *r)
{
    size_t n = r->nbatch;
    r->nbatch = 0;
    return n ? r->ops->samples(r->ctx, r->batch, n) : 0;
}

/* Hands a decoded sample to ops.sample, or holds it back for ops.samples. */
static int deliver_sample(struct reader *r, const struct reader_sample *s)
{
    if (!r->ops->samples)
        return r->ops->sample ? r->ops->sample(r->ctx, s) : 0;
    r->batch[r->nbatch++] = *s;
    return r->nbatch == READER_BATCH ? flush_samples(r) : 0;
}

static int rec_sample(struct reader *r, struct fpl_cur *c, uint64_t *last_ticks)
{
    struct reader_sample s;
    int64_t d = fpl_get_sv(c);
    if (c->bad)
        return 0;
    /* the next delta counts from this sample even if a later field is bad. Unsigned
     * addition: a negative delta wraps as the writer's subtraction did */
    s.ticks = *last_ticks + (uint64_t)d;
    *last_ticks = s.ticks;
    s.thread_id = fpl_get_v(c);
    s.stack_id = fpl_get_v(c);
    s.weight = fpl_get_v(c);
    s.kind = fpl_get_u8(c);
    s.state = fpl_get_u8(c);
    /* optional trailing field: absent when the body ends here */
    s.tick_id = c->p < c->end ? fpl_get_v(c) : 0;
    s.context_id = c->p < c->end ? fpl_get_v(c) : 0;
    s.size = c->p < c->end ? fpl_get_v(c) : 0;
    if (c->bad)
        return 0;
    return deliver_sample(r, &s);
}

/* The entry of thread id in the chunk's SAMPLE2 table: found, or a new one (gen 0 set to
 * r->s2_gen by the caller once filled); NULL when out of memory. */
static struct s2_thread *s2_slot(struct reader *r, uint64_t id, int *found)
{
    if (2 * (r->s2_used + 1) > r->s2_cap) {
        size_t cap = r->s2_cap ? 2 * r->s2_cap : 64;
        struct s2_thread *t = calloc(cap, sizeof(*t));
        if (!t)
            return NULL;
        for (size_t i = 0; i < r->s2_cap; i++) {
            if (r->s2[i].gen != r->s2_gen)
                continue;
            size_t j = (size_t)(r->s2[i].thread_id * 0x9e3779b97f4a7c15ull >> 32) & (cap - 1);
            while (t[j].gen == r->s2_gen)
                j = (j + 1) & (cap - 1);
            t[j] = r->s2[i];
        }
        free(r->s2);
        r->s2 = t;
        r->s2_cap = cap;
    }
    size_t j = (size_t)(id * 0x9e3779b97f4a7c15ull >> 32) & (r->s2_cap - 1);
    while (r->s2[j].gen == r->s2_gen) {
        if (r->s2[j].thread_id == id) {
            *found = 1;
            return &r->s2[j];
        }
        j = (j + 1) & (r->s2_cap - 1);
    }
    *found = 0;
    return &r->s2[j];
}

/* SAMPLE2: a SAMPLE whose fields may be elided (fpl_format.h, FORMAT.md 5.18). A record that
 * elides a field with nothing before it in the chunk to take it from is bad. */
static int rec_sample2(struct reader *r, struct fpl_cur *c, uint64_t *last_ticks)
{
    struct reader_sample s = {0};
    uint8_t f = fpl_get_u8(c);
    int64_t d = fpl_get_sv(c);
    if (c->bad)
        return 0;
    s.ticks = *last_ticks + (uint64_t)d;
    *last_ticks = s.ticks;
    s.thread_id = f & FPL_S2_THREAD ? fpl_get_v(c) : r->s2_thread;
    if (!(f & FPL_S2_THREAD) && !r->s2_have_thread)
        c->bad = 1;
    if (f & FPL_S2_KIND) {
        s.kind = fpl_get_u8(c);
        s.state = fpl_get_u8(c);
    }
    uint64_t stack = f & FPL_S2_STACK ? fpl_get_v(c) : 0;
    s.weight = f & FPL_S2_WEIGHT ? fpl_get_v(c) : 1;
    int64_t dtick = f & FPL_S2_TICK ? fpl_get_sv(c) : 0;
    uint64_t ctx = f & FPL_S2_CONTEXT ? fpl_get_v(c) : 0;
    s.size = f & FPL_S2_SIZE ? fpl_get_v(c) : 0;
    if (c->bad)
        return 0;
    int found = 0;
    struct s2_thread *t = s2_slot(r, s.thread_id, &found);
    if (!t)
        return -ENOMEM;
    if (!found && (!(f & FPL_S2_KIND) || !(f & FPL_S2_STACK))) {
        c->bad = 1; /* elided, with no earlier sample of the thread in the chunk */
        return 0;
    }
    if (!(f & FPL_S2_KIND)) {
        s.kind = t->kind;
        s.state = t->state;
    }
    s.stack_id = f & FPL_S2_STACK ? stack : t->stack_id;
    s.context_id = f & FPL_S2_CONTEXT ? ctx : found ? t->context_id : 0;
    s.tick_id = 0;
    if (f & FPL_S2_TICK) {
        s.tick_id = r->s2_tick + (uint64_t)dtick;
        r->s2_tick = s.tick_id;
    }
    if (!found) {
        t->gen = r->s2_gen;
        t->thread_id = s.thread_id;
        r->s2_used++;
    }
    t->kind = s.kind;
    t->state = s.state;
    t->stack_id = s.stack_id;
    t->context_id = s.context_id;
    r->s2_thread = s.thread_id;
    r->s2_have_thread = 1;
    return deliver_sample(r, &s);
}

static int rec_counters(struct reader *r, struct fpl_cur *c)
{
    size_t n = get_count(c, 2);
    if (c->bad)
        return 0;
    void *q = scratch(r->ctrs, &r->ctrs_cap, n, sizeof(*r->ctrs));
    if (!q)
        return -ENOMEM;
    r->ctrs = q;
    for (size_t i = 0; i < n; i++) {
        r->ctrs[i].id = fpl_get_v(c);
        r->ctrs[i].value = fpl_get_v(c);
    }
    if (c->bad || !r->ops->counters)
        return 0;
    return r->ops->counters(r->ctx, r->ctrs, n);
}

static int rec_hist(struct reader *r, struct fpl_cur *c)
{
    size_t n = get_count(c, 1);
    if (c->bad)
        return 0;
    void *q = scratch(r->hist, &r->hist_cap, n, sizeof(*r->hist));
    if (!q)
        return -ENOMEM;
    r->hist = q;
    for (size_t i = 0; i < n; i++)
        r->hist[i] = fpl_get_v(c);
    uint64_t max_ns = fpl_get_v(c);
    uint64_t total_ns = fpl_get_v(c);
    if (c->bad || !r->ops->handler_hist)
        return 0;
    return r->ops->handler_hist(r->ctx, r->hist, n, max_ns, total_ns);
}

static int rec_end(struct reader *r, struct fpl_cur *c)
{
    uint64_t ticks = fpl_get_u64(c);
    if (c->bad || !r->ops->end)
        return 0;
    return r->ops->end(r->ctx, ticks);
}

static int rec_wall_tick(struct reader *r, struct fpl_cur *c)
{
    struct reader_wall_tick t;
    t.id = fpl_get_v(c);
    t.ticks = fpl_get_u64(c);
    t.candidates = fpl_get_v(c);
    t.chosen = fpl_get_v(c);
    t.signaled = fpl_get_v(c);
    t.failed = fpl_get_v(c);
    if (t.id == 0)
        c->bad = 1; /* 0 is what a sample says when it answers no tick */
    if (c->bad || !r->ops->wall_tick)
        return 0;
    return r->ops->wall_tick(r->ctx, &t);
}

static int rec_events(struct reader *r, struct fpl_cur *c)
{
    uint64_t thread_id = fpl_get_v(c);
    size_t n = get_count(c, 3); /* dticks, n and flags: a byte each at least */
    if (c->bad)
        return 0;
    void *q = scratch(r->events, &r->events_cap, n, sizeof(*r->events));
    if (!q)
        return -ENOMEM;
    r->events = q;
    /* decoded whole before any is delivered: a bad record delivers nothing */
    uint64_t ticks = 0;
    for (size_t i = 0; i < n && !c->bad; i++) {
        struct reader_event *e = &r->events[i];
        e->thread_id = thread_id;
        ticks += (uint64_t)fpl_get_sv(c);
        e->ticks = ticks;
        e->n = fpl_get_sv(c);
        e->flags = fpl_get_u8(c);
        e->dropped = e->flags & FPL_EVENT_DROPPED ? fpl_get_v(c) : 0;
        e->s.s = "";
        e->s.len = 0;
        if (e->flags & FPL_EVENT_STRING)
            e->s = get_str(c);
    }
    /* optional trailing field */
    uint64_t after = !c->bad && c->p < c->end ? fpl_get_v(c) : 0;
    if (c->bad)
        return 0;
    for (size_t i = 0; i < n && r->ops->event; i++) {
        int rc = r->ops->event(r->ctx, &r->events[i]);
        if (rc)
            return rc;
    }
    if (after && r->ops->event_drops)
        return r->ops->event_drops(r->ctx, thread_id, after);
    return 0;
}

static int rec_hiccup(struct reader *r, struct fpl_cur *c)
{
    struct reader_hiccup h;
    h.probe = fpl_get_v(c);
    h.start = fpl_get_u64(c);
    h.end = fpl_get_u64(c);
    h.resolution_ns = fpl_get_v(c);
    h.threshold_ns = fpl_get_v(c);
    h.wakeups = fpl_get_v(c);
    h.max_ns = fpl_get_v(c);
    h.max_ticks = fpl_get_u64(c);
    h.stalls = fpl_get_v(c);
    h.stalled_ns = fpl_get_v(c);
    h.run_delay_ns = fpl_get_v(c);
    h.nbuckets = get_count(c, 2);
    if (c->bad)
        return 0;
    void *q = scratch(r->buckets, &r->buckets_cap, h.nbuckets, sizeof(*r->buckets));
    if (!q)
        return -ENOMEM;
    r->buckets = q;
    uint64_t index = UINT64_MAX; /* the first step counts from -1 */
    for (size_t i = 0; i < h.nbuckets; i++) {
        uint64_t step = fpl_get_v(c);
        if (step == 0 || index + step < index + 1)
            c->bad = 1; /* indexes ascend strictly and do not wrap */
        index += step;
        r->buckets[i].index = index;
        r->buckets[i].count = fpl_get_v(c);
    }
    h.buckets = r->buckets;
    if (c->bad || !r->ops->hiccup)
        return 0;
    return r->ops->hiccup(r->ctx, &h);
}

static int rec_stall(struct reader *r, struct fpl_cur *c)
{
    struct reader_stall s;
    s.probe = fpl_get_v(c);
    s.flags = fpl_get_u8(c);
    s.start = fpl_get_u64(c);
    s.end = fpl_get_u64(c);
    s.run_delay_ns = fpl_get_v(c);
    s.safepoints = fpl_get_v(c);
    s.safepoint_ns = fpl_get_v(c);
    s.sync_ns = fpl_get_v(c);
    if (c->bad || !r->ops->stall)
        return 0;
    return r->ops->stall(r->ctx, &s);
}

static int rec_gc(struct reader *r, struct fpl_cur *c)
{
    struct reader_gc g;
    g.start = fpl_get_u64(c);
    g.end = fpl_get_u64(c);
    g.collector = get_str(c);
    if (c->bad || !r->ops->gc)
        return 0;
    return r->ops->gc(r->ctx, &g);
}

static int rec_context(struct reader *r, struct fpl_cur *c)
{
    uint64_t id = fpl_get_v(c);
    uint64_t span = fpl_get_v(c);
    uint64_t root = fpl_get_v(c);
    if (!c->bad && id == 0)
        c->bad = 1; /* 0 means "no context" in SAMPLE: it cannot be defined */
    if (c->bad || !r->ops->context)
        return 0;
    return r->ops->context(r->ctx, id, span, root);
}

static int rec_endpoint(struct reader *r, struct fpl_cur *c)
{
    uint64_t root = fpl_get_v(c);
    struct reader_str name = get_str(c);
    if (c->bad || !r->ops->endpoint)
        return 0;
    return r->ops->endpoint(r->ctx, root, name);
}

static int rec_endpoint_name(struct reader *r, struct fpl_cur *c)
{
    uint64_t id = fpl_get_v(c);
    struct reader_str name = get_str(c);
    if (!c->bad && id == 0)
        c->bad = 1; /* ids start at 1 */
    if (c->bad)
        return 0;
    return namedict_put(&r->names, id, name.s, name.len);
}

/* ENDPOINT2: delivered as an ENDPOINT record with its ENDPOINT_NAME's name; a name id not
 * defined before it makes a bad record (its definition was in a chunk lost or damaged). */
static int rec_endpoint2(struct reader *r, struct fpl_cur *c)
{
    uint64_t root = fpl_get_v(c);
    uint64_t id = fpl_get_v(c);
    struct reader_str name;
    if (!c->bad && !(name.s = namedict_get(&r->names, id, &name.len)))
        c->bad = 1;
    if (c->bad || !r->ops->endpoint)
        return 0;
    return r->ops->endpoint(r->ctx, root, name);
}

static int rec_pause_stats(struct reader *r, struct fpl_cur *c)
{
    struct reader_pause_stats p;
    p.start = fpl_get_u64(c);
    p.end = fpl_get_u64(c);
    p.flags = fpl_get_u8(c);
    p.safepoints = fpl_get_v(c);
    p.safepoint_ns = fpl_get_v(c);
    p.sync_ns = fpl_get_v(c);
    p.steal_ns = fpl_get_v(c);
    p.cpus = fpl_get_v(c);
    p.stalls_dropped = fpl_get_v(c);
    p.gcs_dropped = fpl_get_v(c);
    if (c->bad || !r->ops->pause_stats)
        return 0;
    return r->ops->pause_stats(r->ctx, &p);
}

/* Decodes one record's body with the decoder of its type. Returns a callback's non-zero
 * value, -ENOMEM, or 0, with body->bad set when its fields do not decode within the body and
 * r->skipped set when the record was skipped whole (and counted). */
static int read_record(struct reader *r, uint8_t type, struct fpl_cur *body, uint64_t *last_ticks)
{
    switch (type) {
    case FPL_REC_HEADER:
        return rec_header(r, body);
    case FPL_REC_ANCHOR:
        return rec_anchor(r, body);
    case FPL_REC_THREAD:
        return rec_thread(r, body);
    case FPL_REC_METHOD:
        return rec_method(r, body);
    case FPL_REC_CLASS_NAME:
        return rec_class_name(r, body);
    case FPL_REC_METHOD2:
        return rec_method2(r, body);
    case FPL_REC_STACK:
        return rec_stack(r, body);
    case FPL_REC_SAMPLE:
        return rec_sample(r, body, last_ticks);
    case FPL_REC_SAMPLE2:
        return rec_sample2(r, body, last_ticks);
    case FPL_REC_COUNTERS:
        return rec_counters(r, body);
    case FPL_REC_HANDLER_HIST:
        return rec_hist(r, body);
    case FPL_REC_END:
        return rec_end(r, body);
    case FPL_REC_WALL_TICK:
        return rec_wall_tick(r, body);
    case FPL_REC_EVENTS:
        return rec_events(r, body);
    case FPL_REC_HICCUP:
        return rec_hiccup(r, body);
    case FPL_REC_STALL:
        return rec_stall(r, body);
    case FPL_REC_GC:
        return rec_gc(r, body);
    case FPL_REC_PAUSE_STATS:
        return rec_pause_stats(r, body);
    case FPL_REC_CONTEXT:
        return rec_context(r, body);
    case FPL_REC_ENDPOINT:
        return rec_endpoint(r, body);
    case FPL_REC_STACK2:
        return rec_stack2(r, body);
    case FPL_REC_ENDPOINT_NAME:
        return rec_endpoint_name(r, body);
    case FPL_REC_ENDPOINT2:
        return rec_endpoint2(r, body);
    default:
        r->st->unknown_records++;
        r->skipped = 1;
        return 0;
    }
}

/* Decodes the records of one verified payload. Each record is decoded inside its own body,
 * so an unknown type or a record that does not decode is skipped and the next one is found;
 * only framing that runs past the payload ends the chunk. */
static int read_payload(struct reader *r, const uint8_t *p, size_t len)
{
    struct fpl_cur c = {p, p + len, 0};
    uint64_t last_ticks = 0; /* sample deltas restart in every chunk */
    r->s2_gen++; /* so do SAMPLE2's chains */
    fpl_stackring_reset(&r->sring); /* and STACK2's bases */
    r->s2_used = 0;
    r->s2_have_thread = 0;
    r->s2_tick = 0;

    while (c.p < c.end) {
        uint8_t type = fpl_get_u8(&c);
        uint64_t blen = fpl_get_v(&c);
        if (c.bad || blen > (uint64_t)(c.end - c.p)) {
            r->st->chunks_bad_framing++;
            break;
        }
        struct fpl_cur body = {c.p, c.p + blen, 0};
        c.p += blen;
        r->skipped = 0;
        int rc = 0;
        if (r->nbatch && type != FPL_REC_SAMPLE && type != FPL_REC_SAMPLE2)
            rc = flush_samples(r); /* the samples come before what follows them */
        if (rc == 0)
            rc = read_record(r, type, &body, &last_ticks);
        if (rc)
            return rc;
        if (r->skipped)
            continue;
        if (body.bad)
            r->st->bad_records++;
        else
            r->st->records++;
    }
    return flush_samples(r);
}

/* Reads into the window at buf + have until it holds want bytes or the input ends. */
static void src_fill(struct src *s, size_t want)
{
    while (s->have < want && !s->err) {
        size_t room = s->cap - s->have;
        ssize_t n;
        if (s->seekable) {
            uint64_t off = s->base + s->have;
            if (off >= s->size)
                break;
            if (room > s->size - off)
                room = (size_t)(s->size - off);
            n = pread(s->fd, s->buf + s->have, room, (off_t)off);
        } else {
            n = read(s->fd, s->buf + s->have, room);
        }
        if (n < 0) {
            if (errno != EINTR)
                s->err = -errno;
            continue;
        }
        if (n == 0) {
            /* the end: a regular file shorter than it was (truncated while read), or a pipe */
            s->size = s->base + s->have;
            s->size_known = 1;
            break;
        }
        s->have += (size_t)n;
    }
}

/* Makes the window at least want bytes long, keeping its first keep bytes. */
static int src_room(struct src *s, size_t want, size_t keep)
{
    if (want < READER_READ_MIN)
        want = READER_READ_MIN;
    if (want <= s->cap)
        return 0;
    uint8_t *q = malloc(want);
    if (!q) {
        s->err = -ENOMEM;
        return -ENOMEM;
    }
    if (keep)
        memcpy(q, s->buf, keep);
    free(s->buf);
    s->buf = q;
    s->cap = want;
    return 0;
}

/* The bytes of the input from pos, at most n of them: *got is n, or fewer where the input
 * ends first (0 past its end). NULL after a read error (s->err). Valid until the next call.
 * A pipe is read forward only: pos never goes back before an earlier call's pos. */
static const uint8_t *src_get(struct src *s, uint64_t pos, size_t n, size_t *got)
{
    *got = 0;
    if (s->mem) {
        if (pos < s->size)
            *got = s->size - pos < n ? (size_t)(s->size - pos) : n;
        return s->mem + (pos < s->size ? pos : s->size);
    }
    if (s->err)
        return NULL;
    if (pos < s->base || pos + n > s->base + s->have) {
        if (pos < s->base && !s->seekable) {
            s->err = -ESPIPE; /* cannot happen: the walk only goes forward */
            return NULL;
        }
        if (!s->seekable) {
            /* a pipe: read and drop the bytes before pos */
            while (s->base + s->have < pos && !s->size_known && !s->err) {
                s->base += s->have;
                s->have = 0;
                if (src_room(s, 0, 0))
                    return NULL;
                uint64_t gap = pos - s->base;
                src_fill(s, gap < s->cap ? (size_t)gap : s->cap);
            }
            if (s->err)
                return NULL;
            if (s->base + s->have < pos)
                return s->buf; /* the input ended before pos */
        }
        /* keep what the window already holds from pos on, then read the rest */
        size_t keep = 0;
        if (pos >= s->base && pos < s->base + s->have) {
            keep = (size_t)(s->base + s->have - pos);
            memmove(s->buf, s->buf + (pos - s->base), keep);
        }
        s->base = pos;
        s->have = keep;
        if (src_room(s, n, keep))
            return NULL;
        src_fill(s, n);
        if (s->err)
            return NULL;
    }
    size_t off = (size_t)(pos - s->base);
    *got = s->have - off < n ? s->have - off : n;
    return s->buf + off;
}

/* The input's length, reading a pipe to its end if need be (only once nothing before the end
 * is needed any more). */
static uint64_t src_size(struct src *s)
{
    while (!s->size_known && !s->err) {
        s->base += s->have;
        s->have = 0;
        if (src_room(s, 0, 0))
            break;
        src_fill(s, s->cap);
    }
    return s->size_known ? s->size : s->base + s->have;
}

/* A chunk header at pos that frames a payload lying inside the file and matching its CRC. */
static int chunk_verifies(struct reader *r, uint64_t pos)
{
    size_t got;
    const uint8_t *h = src_get(r->src, pos, FPL_CHUNK_HEADER_SIZE, &got);
    if (!h || got < FPL_CHUNK_HEADER_SIZE)
        return 0;
    uint32_t clen = le32(h + 4);
    if (le32(h) != FPL_CHUNK_SYNC || clen > FPL_CHUNK_MAX)
        return 0;
    h = src_get(r->src, pos, FPL_CHUNK_HEADER_SIZE + (size_t)clen, &got);
    if (!h || got < FPL_CHUNK_HEADER_SIZE + (size_t)clen)
        return 0;
    return fpl_chunk_crc_framed(h + 12, h + FPL_CHUNK_HEADER_SIZE, clen) == le32(h + 8);
}

/* The first offset >= from where a verifying chunk starts, or READER_NONE. */
static uint64_t find_next_chunk(struct reader *r, uint64_t from)
{
    static const uint8_t sync[4] = {FPL_CHUNK_SYNC & 0xff, (FPL_CHUNK_SYNC >> 8) & 0xff,
                                    (FPL_CHUNK_SYNC >> 16) & 0xff, FPL_CHUNK_SYNC >> 24};
    for (;;) {
        size_t got;
        const uint8_t *p = src_get(r->src, from, READER_SCAN, &got);
        if (!p || got < sizeof(sync))
            return READER_NONE;
        const uint8_t *q = memmem(p, got, sync, sizeof(sync));
        if (!q) {
            if (got < READER_SCAN)
                return READER_NONE;           /* searched to the end */
            from += got - (sizeof(sync) - 1); /* a sync word may straddle the boundary */
            continue;
        }
        uint64_t pos = from + (uint64_t)(q - p);
        if (chunk_verifies(r, pos))
            return pos;
        from = pos + 1;
    }
}

/* Counts the chunks missing before a verified chunk numbered seq. The CRC covers the number,
 * so a gap is chunks that were lost, not damage to the number; a number at or before one
 * already read (a spliced or duplicated log) is counted apart and the count restarts from it.
 * Numbers wrap at 2^32: a step of up to 2^31 counts as forward. */
static void note_seq(struct reader *r, uint32_t seq)
{
    uint32_t missing = seq - r->next_seq;

    if (r->have_seq && missing >= 1u << 31)
        r->st->seq_errors++;
    else
        r->st->chunks_lost += missing;
    r->have_seq = 1;
    r->next_seq = seq + 1;
}

static int walk_chunks(struct reader *r)
{
    static const uint8_t sync[4] = {FPL_CHUNK_SYNC & 0xff, (FPL_CHUNK_SYNC >> 8) & 0xff,
                                    (FPL_CHUNK_SYNC >> 16) & 0xff, FPL_CHUNK_SYNC >> 24};
    struct src *s = r->src;
    uint64_t pos = FPL_PREAMBLE_SIZE;

    for (;;) {
        size_t avail;
        const uint8_t *p = src_get(s, pos, FPL_CHUNK_HEADER_SIZE, &avail);
        if (!p)
            return s->err;
        if (avail == 0)
            break;
        if (avail < FPL_CHUNK_HEADER_SIZE) {
            /* the start of a header written just before the file ended, or garbage */
            if (memcmp(p, sync, avail < 4 ? avail : 4) == 0) {
                r->st->chunks_truncated++;
                r->st->bytes_truncated += avail;
            } else {
                r->st->chunks_damaged++;
                r->st->bytes_skipped += avail;
            }
            break;
        }
        uint8_t h[FPL_CHUNK_HEADER_SIZE]; /* a copy: the window moves on while searching */
        memcpy(h, p, sizeof(h));
        uint32_t clen = le32(h + 4);
        if (chunk_verifies(r, pos)) {
            p = src_get(s, pos + FPL_CHUNK_HEADER_SIZE, clen, &avail);
            if (!p)
                return s->err;
            note_seq(r, le32(h + 12));
            r->st->chunks_ok++;
            int rc = read_payload(r, p, clen);
            if (rc)
                return rc;
            pos += FPL_CHUNK_HEADER_SIZE + (uint64_t)clen;
            continue;
        }
        if (s->err)
            return s->err;
        /* Damaged here. A plausible header whose payload runs past the end is a chunk cut off
         * while being written, unless a verifying chunk follows: then its length is damaged. */
        uint64_t next = find_next_chunk(r, pos + 1);
        if (s->err)
            return s->err;
        if (next == READER_NONE) {
            uint64_t size = src_size(s);
            if (s->err)
                return s->err;
            uint64_t left = size - pos;
            if (memcmp(h, sync, 4) == 0 && clen <= FPL_CHUNK_MAX &&
                clen > left - FPL_CHUNK_HEADER_SIZE) {
                r->st->chunks_truncated++;
                r->st->bytes_truncated += left;
                break;
            }
            next = size;
        }
        r->st->chunks_damaged++;
        r->st->bytes_skipped += next - pos;
        pos = next;
    }
    return 0;
}

/* Checks the preamble and walks the chunks of s. */
static int read_src(struct src *s, const char *name, const struct reader_ops *ops, void *ctx,
                    struct reader_stats *stats, char *err, size_t errlen)
{
    static const struct reader_ops no_ops;
    struct reader_stats local;
    struct reader r;
    int rc;

    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof(*stats));
    size_t len;
    const uint8_t *p = src_get(s, 0, FPL_PREAMBLE_SIZE, &len);
    if (!p)
        goto io_error;
    if (len == 0)
        return fail(err, errlen, -EINVAL, "'%s': not a flyprof log (the file is empty)", name);
    if (len < FPL_PREAMBLE_SIZE) {
        if (memcmp(p, FPL_MAGIC, len < 8 ? len : 8) == 0)
            return fail(err, errlen, -EINVAL,
                        "'%s': flyprof log cut off inside its preamble (%zu of %d bytes)", name,
                        len, FPL_PREAMBLE_SIZE);
        return fail(err, errlen, -EINVAL, "'%s': not a flyprof log (too short: %zu bytes)", name,
                    len);
    }
    if (memcmp(p, FPL_MAGIC, 8) != 0)
        return fail(err, errlen, -EINVAL, "'%s': not a flyprof log (bad magic)", name);
    unsigned version = (unsigned)p[8] | (unsigned)p[9] << 8;
    if (version < FPL_VERSION_MIN || version > FPL_VERSION)
        return fail(err, errlen, -EINVAL,
                    "'%s': unsupported version %u (this flyprof reads versions %d to %d)", name,
                    version, FPL_VERSION_MIN, FPL_VERSION);

    memset(&r, 0, sizeof(r));
    r.src = s;
    r.name = name;
    r.ops = ops ? ops : &no_ops;
    r.ctx = ctx;
    r.st = stats;
    rc = walk_chunks(&r);
    stats->file_bytes = s->size_known ? s->size : s->base + s->have;
    free(r.frames);
    free(r.lines);
    free(r.ctrs);
    free(r.hist);
    free(r.buckets);
    free(r.events);
    free(r.s2);
    namedict_destroy(&r.names);
    namedict_destroy(&r.classes);
    namedict_destroy(&r.sources);
    fpl_stackring_destroy(&r.sring);
    free(r.sframes);
    if (rc == -ENOMEM)
        fail(err, errlen, rc, "'%s': out of memory", name);
    else if (rc < 0 && s->err)
        goto io_error;
    else if (rc < 0)
        fail(err, errlen, rc, "'%s': %s", name, strerror(-rc));
    else if (rc)
        fail(err, errlen, rc, "'%s': reading stopped (%d)", name, rc);
    return rc;
io_error:
    if (s->err == -ENOMEM)
        return fail(err, errlen, s->err, "'%s': out of memory", name);
    return fail(err, errlen, s->err, "cannot read '%s': %s", name, strerror(-s->err));
}

int reader_read_mem(const void *data, size_t len, const char *name, const struct reader_ops *ops,
                    void *ctx, struct reader_stats *stats, char *err, size_t errlen)
{
    static const uint8_t none[1];
    struct src s = {.mem = len ? data : none, .fd = -1, .size = len, .size_known = 1};
    int rc = read_src(&s, name ? name : "(memory)", ops, ctx, stats, err, errlen);
    if (stats)
        stats->file_bytes = len;
    return rc;
}

int reader_read_file(const char *path, const struct reader_ops *ops, void *ctx,
                     struct reader_stats *stats, char *err, size_t errlen)
{
    struct stat sb;
    struct src s = {.fd = -1};
    int rc;

    if (stats)
        memset(stats, 0, sizeof(*stats));
    s.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s.fd < 0) {
        rc = -errno;
        return fail(err, errlen, rc, "cannot open '%s': %s", path, strerror(-rc));
    }
    if (fstat(s.fd, &sb) < 0) {
        rc = -errno;
        fail(err, errlen, rc, "cannot stat '%s': %s", path, strerror(-rc));
        goto out;
    }
    if (S_ISDIR(sb.st_mode)) {
        rc = fail(err, errlen, -EISDIR, "cannot read '%s': %s", path, strerror(EISDIR));
        goto out;
    }
    if (S_ISREG(sb.st_mode)) {
        /* the size seen now: a log still growing is read up to here */
        s.seekable = 1;
        s.size = (uint64_t)sb.st_size;
        s.size_known = 1;
    }
    rc = read_src(&s, path, ops, ctx, stats, err, errlen);
out:
    free(s.buf);
    close(s.fd);
    return rc;
}
