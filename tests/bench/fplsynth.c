/* fplsynth: writes a synthetic .fpl log for the converter benchmarks (convert_bench.py): N
 * samples over U distinct stacks, with the shape of a real service's profile:
 *
 * - stacks form a call tree: each new stack keeps a root-side prefix of an earlier one and
 *   grows new frames to its own depth (5 to 2 x mean - 5, mean 40 by default), so stacks share
 *   their roots as real ones do, and every frame has a bci;
 * - popularity is Zipf-like: the stack of rank r is drawn with probability proportional to
 *   1 / r^s (s = 1 by default), ranks shuffled over the stacks;
 * - threads: each stack has a home thread that takes 70% of its samples, the rest go anywhere,
 *   so hot stacks spread over many threads and cold ones stay on few (realistic cell counts);
 * - methods have a class (8 methods each) in one of 64 packages, a signature, a source file and
 *   a line table; dictionary entries are written lazily, just before the first sample that
 *   uses them, in 256 KiB chunks with periodic counters, as the agent does; weights are 1, 2
 *   for 1% of the samples (timer overruns);
 * - with -w F a fraction F of the samples are wall-clock samples answering WALL_TICK records
 *   (16 chosen of 16 to 64 candidates), in a mix of thread states;
 * - with -r MS every thread serves back-to-back traced requests of MS ms of the log's time
 *   each (dev.flyprof.Context): every sample carries its request's context, a root span of
 *   its own, named with one of 8 endpoints (CONTEXT and ENDPOINT2 records where a request
 *   starts, each name once as an ENDPOINT_NAME record);
 * - samples are SAMPLE2 records (FORMAT.md 5.18), the encoding the agent writes, each field
 *   the chunk's chains imply left out as the agent's writer leaves it out; -v 1 writes SAMPLE
 *   records (5.6) and ENDPOINT records (5.17) instead, the first agents' encoding; stacks as
 *   the agent writes them, STACK2 records (5.21) where one shares two frames or more with one
 *   of the chunk's last 16 (STACK records with -v 1); methods as the agent writes them,
 *   METHOD2 records (5.23), each class once as a CLASS_NAME record (5.22) (METHOD records
 *   with -v 1 to 3; -v 2 and 3 are the same log). The logs of a seed hold the same samples
 *   (the same random draws), so what a reader makes of them must be the same.
 *
 * Deterministic for a given seed. Uses the agent's encoder (fpl_codec.h) and chunk framing
 * (fpl_chunk.c). Prints what it wrote on stdout.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpl_chunk.h"
#include "fpl_codec.h"
#include "fpl_format.h"
#include "fpl_stackring.h"

#define CHUNK_BYTES (256u << 10) /* the agent's flush size */
#define TPS 3000000000ull        /* a 3 GHz TSC */
#define MAX_DEPTH 1024
#define PACKAGES 64

struct synth {
    uint64_t samples, stacks, methods, threads, depth, seed, request_ms, version;
    double zipf, wall;
    const char *out;

    uint64_t rng;
    int fd;
    uint32_t seq;
    struct fpl_buf chunk;
    uint64_t last_ticks; /* of the previous sample in the chunk */
    uint64_t bytes;
    uint64_t sample_bytes; /* of the SAMPLE or SAMPLE2 records, with their type and length */

    uint32_t *frames; /* all stacks' frames root first: method index (0-based) */
    int32_t *bcis;
    size_t *stack_off; /* stacks + 1 offsets into frames */
    uint32_t *home;    /* per stack: its home thread (0-based) */
    uint8_t *stack_written;
    uint8_t *method_written;
    uint8_t *class_written; /* -v 4: per class (method_class), its CLASS_NAME is written */
    double *cdf; /* per rank */
    uint32_t *rank_stack;
    uint64_t *thread_ctx; /* per thread: the context of its current request (-r) */
    uint64_t contexts;
    uint8_t named[8]; /* per endpoint: its ENDPOINT_NAME record is written */
    struct fpl_stackring sring;  /* the chunk's last stacks, for STACK2 (not with -v 1) */
    struct fpl_sframe *sframes;  /* scratch: a stack's frames, leaf first */

    /* SAMPLE2's chains in the chunk being built (FORMAT.md 5.18), restarted by flush_chunk */
    struct s2_chain *s2; /* per thread: its previous SAMPLE2 in the chunk */
    uint64_t s2_thread;  /* the previous SAMPLE2's thread, when s2_have_thread */
    int s2_have_thread;
    uint64_t s2_tick; /* the tick id of the chunk's previous SAMPLE2 with a TICK field */
};

struct s2_chain {
    uint32_t seq1; /* 1 + the chunk (seq) of the thread's previous SAMPLE2; other: none yet */
    uint32_t stack;
    uint64_t ctx;
    uint8_t kind, state;
};

static uint64_t rnd(struct synth *s)
{
    /* splitmix64: a fast generator with no bad seeds */
    uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t below(struct synth *s, uint64_t n)
{
    return n ? rnd(s) % n : 0;
}

static double uniform(struct synth *s)
{
    return (double)(rnd(s) >> 11) * (1.0 / 9007199254740992.0);
}

static int flush_chunk(struct synth *s)
{
    if (s->chunk.failed)
        return -ENOMEM;
    int rc = fpl_chunk_write(s->fd, s->seq++, s->chunk.data, s->chunk.len);
    s->bytes += FPL_CHUNK_HEADER_SIZE + s->chunk.len;
    s->chunk.len = 0;
    s->last_ticks = 0; /* sample deltas restart in every chunk, and so do SAMPLE2's chains */
    s->s2_have_thread = 0;
    s->s2_tick = 0;
    fpl_stackring_reset(&s->sring); /* and STACK2's bases */
    return rc;
}

static int maybe_flush(struct synth *s)
{
    return s->chunk.len >= CHUNK_BYTES ? flush_chunk(s) : 0;
}

static void put_header(struct synth *s, uint64_t t0)
{
    struct fpl_buf *b = &s->chunk;
    char opts[128];
    snprintf(opts, sizeof(opts), "cpu=10ms%s,file=%s", s->wall > 0 ? ",wall=50ms" : "", s->out);
    size_t r = fpl_rec_begin(b, FPL_REC_HEADER);
    fpl_put_v(b, 1);
    fpl_put_v(b, 4242);
    fpl_put_u8(b, FPL_CLOCK_TSC);
    fpl_put_u64(b, TPS);
    fpl_put_u64(b, t0);
    fpl_put_u64(b, 1000000000000ull);
    fpl_put_u64(b, 1700000000000000000ull);
    fpl_put_v(b, 10000000);
    fpl_put_u8(b, FPL_ENGINE_CPUTIMER);
    fpl_put_v(b, s->wall > 0 ? 50000000 : 0);
    fpl_put_v(b, 16);
    fpl_put_v(b, 2048);
    fpl_put_str(b, opts);
    fpl_put_str(b, "OpenJDK 64-Bit Server VM");
    fpl_put_str(b, "21.0.2+13");
    fpl_put_str(b, "fplsynth");
    fpl_rec_end(b, r);
}

/* Method m's class, numbered from 0: 8 methods each, as classes have several. */
static uint64_t method_class(uint32_t m)
{
    return m / 8;
}

static void put_method(struct synth *s, uint32_t m)
{
    static const char *const verbs[] = {"get",  "put",   "handle",     "process",
                                        "read", "write", "parse",      "encode",
                                        "run",  "apply", "lambda$run$"};
    static const char *const sigs[] = {"()V", "(I)I", "(Ljava/lang/String;)Ljava/lang/Object;",
                                       "([BII)I", "(JLjava/util/Map;)Z"};
    char cls[96], name[48], src[48];
    uint32_t c = (uint32_t)method_class(m), pkg = c % PACKAGES;
    snprintf(cls, sizeof(cls), "com.example.service%u.module%u.Class%u", pkg % 8, pkg, c);
    snprintf(name, sizeof(name), "%s%u", verbs[m % 11], m % 13);
    snprintf(src, sizeof(src), "Class%u.java", c);
    struct fpl_buf *b = &s->chunk;
    uint32_t nlines = 1 + m % 8, line = 10 + (m * 37) % 500;
    uint8_t kind = m % 97 == 0 ? FPL_METHOD_NATIVE : FPL_METHOD_JAVA;
    size_t r;
    if (s->version >= 4) {
        /* as the agent writes it: the class once (FORMAT.md 5.22), the method by its id */
        uint64_t k = method_class(m);
        if (!s->class_written[k]) {
            s->class_written[k] = 1;
            r = fpl_rec_begin(b, FPL_REC_CLASS_NAME);
            fpl_put_v(b, k + 1);
            fpl_put_str(b, cls);
            fpl_put_str(b, src);
            fpl_rec_end(b, r);
        }
        r = fpl_rec_begin(b, FPL_REC_METHOD2);
        fpl_put_v(b, (uint64_t)m + 1);
        fpl_put_u8(b, kind);
        fpl_put_v(b, k + 1);
        fpl_put_str(b, name);
        fpl_put_str(b, sigs[m % 5]);
    } else {
        r = fpl_rec_begin(b, FPL_REC_METHOD);
        fpl_put_v(b, (uint64_t)m + 1);
        fpl_put_u8(b, kind);
        fpl_put_str(b, cls);
        fpl_put_str(b, name);
        fpl_put_str(b, sigs[m % 5]);
        fpl_put_str(b, src);
    }
    fpl_put_v(b, nlines);
    int64_t prev_bci = 0, prev_line = 0;
    for (uint32_t k = 0; k < nlines; k++) {
        /* every third entry a line above the one before it (a loop's condition) */
        int64_t bci = (int64_t)k * 8, ln = line + k * 2 - (k % 3 == 2 ? 5 : 0);
        if (s->version >= 4) {
            fpl_put_v(b, (uint64_t)(bci - prev_bci));
            fpl_put_sv(b, ln - prev_line);
        } else {
            fpl_put_v(b, (uint64_t)bci);
            fpl_put_v(b, (uint64_t)ln);
        }
        prev_bci = bci;
        prev_line = ln;
    }
    fpl_rec_end(b, r);
}

/* Writes stack st's dictionary entries (its methods, then itself) if not written yet. */
static void define_stack(struct synth *s, uint32_t st)
{
    if (s->stack_written[st])
        return;
    size_t a = s->stack_off[st], z = s->stack_off[st + 1];
    for (size_t k = a; k < z; k++) {
        if (!s->method_written[s->frames[k]]) {
            put_method(s, s->frames[k]);
            s->method_written[s->frames[k]] = 1;
        }
    }
    struct fpl_buf *b = &s->chunk;
    size_t n = z - a;
    for (size_t i = 0; i < n; i++) { /* leaf first */
        s->sframes[i].method_id = (uint64_t)s->frames[z - 1 - i] + 1;
        s->sframes[i].bci = s->bcis[z - 1 - i];
        s->sframes[i].type = FPL_FRAME_JAVA; /* what a STACK without types reads as */
    }
    unsigned back = 0;
    size_t shared = s->version == 1 ? 0 : fpl_stackring_best(&s->sring, s->sframes, n, &back);
    size_t r;
    if (shared >= 2) { /* as the agent writes it (FORMAT.md 5.21) */
        r = fpl_rec_begin(b, FPL_REC_STACK2);
        fpl_put_v(b, (uint64_t)st + 1);
        fpl_put_v(b, back);
        fpl_put_v(b, shared);
        fpl_put_v(b, n - shared);
        for (size_t i = 0; i < n - shared; i++) {
            fpl_put_v(b, s->sframes[i].method_id);
            fpl_put_sv(b, s->sframes[i].bci);
        }
        for (size_t i = 0; i < n - shared; i++)
            fpl_put_u8(b, FPL_FRAME_JAVA);
    } else {
        r = fpl_rec_begin(b, FPL_REC_STACK);
        fpl_put_v(b, (uint64_t)st + 1);
        fpl_put_v(b, n);
        for (size_t i = 0; i < n; i++) {
            fpl_put_v(b, s->sframes[i].method_id);
            fpl_put_sv(b, s->sframes[i].bci);
        }
    }
    fpl_rec_end(b, r);
    s->stack_written[st] = 1;
    if (s->version != 1 && fpl_stackring_push(&s->sring, s->sframes, n) != 0)
        s->chunk.failed = 1; /* out of memory: the run fails (flush_chunk) */
}

/* The call tree: stack k keeps a root-side prefix of a random earlier stack, then grows. */
static int build_stacks(struct synth *s)
{
    size_t cap = (size_t)s->stacks * s->depth + MAX_DEPTH;
    s->frames = malloc(cap * sizeof(*s->frames));
    s->bcis = malloc(cap * sizeof(*s->bcis));
    s->stack_off = malloc((s->stacks + 1) * sizeof(*s->stack_off));
    s->home = malloc(s->stacks * sizeof(*s->home));
    s->stack_written = calloc(s->stacks, 1);
    s->method_written = calloc(s->methods, 1);
    s->class_written = calloc(method_class((uint32_t)(s->methods - 1)) + 1, 1);
    s->sframes = malloc(MAX_DEPTH * sizeof(*s->sframes));
    if (!s->frames || !s->bcis || !s->stack_off || !s->home || !s->stack_written ||
        !s->method_written || !s->class_written || !s->sframes)
        return -ENOMEM;
    size_t n = 0;
    uint64_t span = s->depth > 5 ? s->depth - 5 : 0;
    for (uint64_t k = 0; k < s->stacks; k++) {
        uint64_t want = 5 + (uint64_t)((uniform(s) + uniform(s)) * (double)span);
        if (want > MAX_DEPTH)
            want = MAX_DEPTH;
        size_t keep = 0;
        s->stack_off[k] = n;
        if (n + want > cap) {
            cap = (n + want) * 2;
            uint32_t *f = realloc(s->frames, cap * sizeof(*f));
            int32_t *b = f ? realloc(s->bcis, cap * sizeof(*b)) : NULL;
            if (f)
                s->frames = f;
            if (!f || !b)
                return -ENOMEM;
            s->bcis = b;
        }
        if (k) {
            uint64_t parent = below(s, k);
            size_t pa = s->stack_off[parent], plen = s->stack_off[parent + 1] - pa;
            /* share between a third and all but one of the parent's frames */
            size_t lo = plen / 3, hi = plen ? plen - 1 : 0;
            keep = lo + (size_t)below(s, hi >= lo ? hi - lo + 1 : 1);
            if (keep > want)
                keep = (size_t)want;
            memcpy(s->frames + n, s->frames + pa, keep * sizeof(*s->frames));
            memcpy(s->bcis + n, s->bcis + pa, keep * sizeof(*s->bcis));
        }
        for (size_t d = keep; d < want; d++) {
            s->frames[n + d] = (uint32_t)below(s, s->methods);
            s->bcis[n + d] = (int32_t)below(s, 64);
        }
        if (keep == want && want) /* a prefix alone would be a duplicate: vary the leaf */
            s->bcis[n + want - 1] = 64 + (int32_t)below(s, 1000);
        n += want;
        s->home[k] = (uint32_t)below(s, s->threads);
    }
    s->stack_off[s->stacks] = n;

    /* Zipf popularity over ranks, ranks shuffled over stacks */
    s->cdf = malloc(s->stacks * sizeof(*s->cdf));
    s->rank_stack = malloc(s->stacks * sizeof(*s->rank_stack));
    if (!s->cdf || !s->rank_stack)
        return -ENOMEM;
    double acc = 0;
    for (uint64_t r = 0; r < s->stacks; r++) {
        acc += 1.0 / pow((double)(r + 1), s->zipf);
        s->cdf[r] = acc;
        s->rank_stack[r] = (uint32_t)r;
    }
    for (uint64_t r = 0; r < s->stacks; r++)
        s->cdf[r] /= acc;
    for (uint64_t r = s->stacks; r > 1; r--) {
        uint64_t j = below(s, r);
        uint32_t t = s->rank_stack[r - 1];
        s->rank_stack[r - 1] = s->rank_stack[j];
        s->rank_stack[j] = t;
    }
    return 0;
}

static uint32_t pick_stack(struct synth *s)
{
    double u = uniform(s);
    size_t lo = 0, hi = s->stacks - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return s->rank_stack[lo];
}

/* With -r: the context of the request thread th serves at ticks t (t0: the log's start), its
 * CONTEXT and ENDPOINT2 records written when it is new (ENDPOINT with -v 1). 0 without -r. */
static uint64_t request_ctx(struct synth *s, uint64_t th, uint64_t t, uint64_t t0)
{
    static const char *const endpoints[8] = {"GET /orders",   "POST /orders", "GET /report",
                                             "GET /users",    "PUT /users",   "GET /search",
                                             "POST /payments", "GET /health"};
    if (!s->request_ms)
        return 0;
    uint64_t len = TPS / 1000 * s->request_ms;
    uint64_t idx = (t - t0 + th * (len / (s->threads + 1))) / len; /* threads out of step */
    uint64_t id = idx * s->threads + th + 1;
    if (s->thread_ctx[th] != id) {
        s->thread_ctx[th] = id;
        s->contexts++;
        size_t r = fpl_rec_begin(&s->chunk, FPL_REC_CONTEXT);
        fpl_put_v(&s->chunk, id);
        fpl_put_v(&s->chunk, id);
        fpl_put_v(&s->chunk, id);
        fpl_rec_end(&s->chunk, r);
        if (s->version == 1) {
            r = fpl_rec_begin(&s->chunk, FPL_REC_ENDPOINT);
            fpl_put_v(&s->chunk, id);
            fpl_put_str(&s->chunk, endpoints[id % 8]);
            fpl_rec_end(&s->chunk, r);
            return id;
        }
        /* as the agent writes them: each name once, then its id (FORMAT.md 5.19, 5.20) */
        if (!s->named[id % 8]) {
            s->named[id % 8] = 1;
            r = fpl_rec_begin(&s->chunk, FPL_REC_ENDPOINT_NAME);
            fpl_put_v(&s->chunk, id % 8 + 1);
            fpl_put_str(&s->chunk, endpoints[id % 8]);
            fpl_rec_end(&s->chunk, r);
        }
        r = fpl_rec_begin(&s->chunk, FPL_REC_ENDPOINT2);
        fpl_put_v(&s->chunk, id);
        fpl_put_v(&s->chunk, id % 8 + 1);
        fpl_rec_end(&s->chunk, r);
    }
    return id;
}

/* One sample as a SAMPLE record (-v 1). */
static void put_sample1(struct synth *s, uint64_t ticks, uint64_t thread, uint32_t st,
                        uint64_t weight, uint8_t kind, uint8_t state, uint64_t tick_id,
                        uint64_t ctx)
{
    struct fpl_buf *b = &s->chunk;
    size_t r = fpl_rec_begin(b, FPL_REC_SAMPLE);
    fpl_put_sv(b, (int64_t)(ticks - s->last_ticks));
    s->last_ticks = ticks;
    fpl_put_v(b, thread + 1);
    fpl_put_v(b, (uint64_t)st + 1);
    fpl_put_v(b, weight);
    fpl_put_u8(b, kind);
    fpl_put_u8(b, state);
    if (kind == FPL_KIND_WALL || ctx)
        fpl_put_v(b, tick_id);
    if (ctx)
        fpl_put_v(b, ctx);
    fpl_rec_end(b, r);
}

/* One sample as a SAMPLE2 record: the fields the chunk's chains imply are left out, as the
 * agent's writer leaves them out (a thread's first sample in a chunk has its thread, kind and
 * stack). */
static void put_sample2(struct synth *s, uint64_t ticks, uint64_t thread, uint32_t st,
                        uint64_t weight, uint8_t kind, uint8_t state, uint64_t tick_id,
                        uint64_t ctx)
{
    struct s2_chain *c = &s->s2[thread];
    int found = c->seq1 == s->seq + 1;
    uint8_t f = 0;
    if (!s->s2_have_thread || thread != s->s2_thread)
        f |= FPL_S2_THREAD;
    if (!found || c->kind != kind || c->state != state)
        f |= FPL_S2_KIND;
    if (!found || c->stack != st)
        f |= FPL_S2_STACK;
    if (weight != 1)
        f |= FPL_S2_WEIGHT;
    if (tick_id)
        f |= FPL_S2_TICK;
    if (found ? c->ctx != ctx : ctx != 0)
        f |= FPL_S2_CONTEXT;
    struct fpl_buf *b = &s->chunk;
    size_t r = fpl_rec_begin(b, FPL_REC_SAMPLE2);
    fpl_put_u8(b, f);
    fpl_put_sv(b, (int64_t)(ticks - s->last_ticks));
    s->last_ticks = ticks;
    if (f & FPL_S2_THREAD)
        fpl_put_v(b, thread + 1);
    if (f & FPL_S2_KIND) {
        fpl_put_u8(b, kind);
        fpl_put_u8(b, state);
    }
    if (f & FPL_S2_STACK)
        fpl_put_v(b, (uint64_t)st + 1);
    if (f & FPL_S2_WEIGHT)
        fpl_put_v(b, weight);
    if (f & FPL_S2_TICK) {
        fpl_put_sv(b, (int64_t)(tick_id - s->s2_tick));
        s->s2_tick = tick_id;
    }
    if (f & FPL_S2_CONTEXT)
        fpl_put_v(b, ctx);
    fpl_rec_end(b, r);
    *c = (struct s2_chain){
        .seq1 = s->seq + 1, .stack = st, .ctx = ctx, .kind = kind, .state = state};
    s->s2_thread = thread;
    s->s2_have_thread = 1;
}

static void put_sample(struct synth *s, uint64_t ticks, uint64_t thread, uint32_t st,
                       uint64_t weight, uint8_t kind, uint8_t state, uint64_t tick_id,
                       uint64_t ctx)
{
    size_t before = s->chunk.len;
    if (s->version == 1)
        put_sample1(s, ticks, thread, st, weight, kind, state, tick_id, ctx);
    else
        put_sample2(s, ticks, thread, st, weight, kind, state, tick_id, ctx);
    s->sample_bytes += s->chunk.len - before;
}

static void put_counters(struct synth *s, uint64_t samples)
{
    struct fpl_buf *b = &s->chunk;
    size_t r = fpl_rec_begin(b, FPL_REC_COUNTERS);
    fpl_put_v(b, 3);
    fpl_put_v(b, FPL_CTR_SIGNALS);
    fpl_put_v(b, samples);
    fpl_put_v(b, FPL_CTR_SAMPLES);
    fpl_put_v(b, samples);
    fpl_put_v(b, FPL_CTR_BYTES);
    fpl_put_v(b, s->bytes);
    fpl_rec_end(b, r);
}

static int generate(struct synth *s)
{
    const uint64_t t0 = 1000000000000000ull;
    /* one thread's samples are 10 ms of CPU apart; the threads share the timeline */
    const uint64_t step = TPS / 100 / (s->threads ? s->threads : 1) + 1;
    static const uint8_t states[] = {FPL_STATE_RUNNING, FPL_STATE_RUNNING,      FPL_STATE_SLEEPING,
                                     FPL_STATE_PARKED,  FPL_STATE_WAITING,      FPL_STATE_BLOCKED,
                                     FPL_STATE_NATIVE,  FPL_STATE_TIMED_WAITING};
    uint64_t t = t0, tick_id = 0, tick_left = 0, wall_thresh;
    int rc;

    if (fpl_chunk_write_preamble(s->fd) != 0)
        return -errno;
    s->bytes = FPL_PREAMBLE_SIZE;
    put_header(s, t0);
    for (uint64_t th = 0; th < s->threads; th++) {
        char name[48];
        if (th == 0)
            snprintf(name, sizeof(name), "main");
        else
            snprintf(name, sizeof(name), "pool-%llu-thread-%llu", (unsigned long long)(th % 3 + 1),
                     (unsigned long long)th);
        size_t r = fpl_rec_begin(&s->chunk, FPL_REC_THREAD);
        fpl_put_v(&s->chunk, th + 1);
        fpl_put_v(&s->chunk, 1000 + th);
        fpl_put_str(&s->chunk, name);
        fpl_rec_end(&s->chunk, r);
    }
    wall_thresh = (uint64_t)(s->wall * 18446744073709551615.0);
    for (uint64_t i = 0; i < s->samples; i++) {
        uint32_t st = pick_stack(s);
        uint64_t th = below(s, 10) < 7 ? s->home[st] : below(s, s->threads);
        uint64_t w = below(s, 100) == 0 ? 2 : 1;
        t += below(s, 2 * step);
        define_stack(s, st);
        uint64_t ctx = request_ctx(s, th, t, t0);
        if (s->wall > 0 && rnd(s) < wall_thresh) {
            if (!tick_left) {
                size_t r = fpl_rec_begin(&s->chunk, FPL_REC_WALL_TICK);
                fpl_put_v(&s->chunk, ++tick_id);
                fpl_put_u64(&s->chunk, t);
                fpl_put_v(&s->chunk, 16 + below(s, 49));
                fpl_put_v(&s->chunk, 16);
                fpl_put_v(&s->chunk, 16);
                fpl_put_v(&s->chunk, 0);
                fpl_rec_end(&s->chunk, r);
                tick_left = 16;
            }
            tick_left--;
            put_sample(s, t, th, st, 1, FPL_KIND_WALL, states[below(s, 8)], tick_id, ctx);
        } else {
            put_sample(s, t, th, st, w, FPL_KIND_CPU, FPL_STATE_RUNNING, 0, ctx);
        }
        if (s->chunk.len >= CHUNK_BYTES) {
            if (s->seq % 64 == 0)
                put_counters(s, i + 1);
            if ((rc = flush_chunk(s)) != 0)
                return rc;
        }
    }
    /* a late anchor (the frequency refines), final counters, END */
    size_t r = fpl_rec_begin(&s->chunk, FPL_REC_ANCHOR);
    fpl_put_u64(&s->chunk, t);
    fpl_put_u64(&s->chunk, 1000000000000ull + (t - t0) / 3);
    fpl_put_u64(&s->chunk, 1700000000000000000ull + (t - t0) / 3);
    fpl_rec_end(&s->chunk, r);
    put_counters(s, s->samples);
    r = fpl_rec_begin(&s->chunk, FPL_REC_END);
    fpl_put_u64(&s->chunk, t + 1);
    fpl_rec_end(&s->chunk, r);
    if ((rc = maybe_flush(s)) != 0)
        return rc;
    return s->chunk.len ? flush_chunk(s) : 0;
}

static int parse_count(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    double mult = 1;
    if (*end == 'k' || *end == 'K')
        mult = 1e3, end++;
    else if (*end == 'M' || *end == 'm')
        mult = 1e6, end++;
    else if (*end == 'G' || *end == 'g')
        mult = 1e9, end++;
    if (errno || end == v || *end || d < 0 || d * mult > 1e15)
        return -1;
    *out = (uint64_t)(d * mult + 0.5);
    return 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: fplsynth -o OUT.fpl [-n SAMPLES] [-u STACKS] [-m METHODS] [-t THREADS]\n"
               "                [-d MEAN_DEPTH] [-z ZIPF_S] [-w WALL_FRACTION] [-s SEED]\n"
               "                [-r REQUEST_MS] [-v 1|2]\n"
               "  defaults: -n 10M -u 100k -m 20k -t 32 -d 40 -z 1.0 -w 0 -s 1, no requests,\n"
               "  -v 4 (samples as SAMPLE2 records, methods as METHOD2, as the agent writes\n"
               "  them; 1: SAMPLE and METHOD, 2 or 3: SAMPLE2 and METHOD)\n"
               "  counts take k, M, G suffixes\n");
}

int main(int argc, char **argv)
{
    struct synth s = {.samples = 10000000,
                      .stacks = 100000,
                      .methods = 20000,
                      .threads = 32,
                      .depth = 40,
                      .seed = 1,
                      .version = FPL_VERSION,
                      .zipf = 1.0,
                      .wall = 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t *cnt = NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            return 0;
        }
        if (!v || a[0] != '-' || strlen(a) != 2) {
            fprintf(stderr, "fplsynth: bad argument '%s'\n", a);
            usage(stderr);
            return 2;
        }
        i++;
        switch (a[1]) {
        case 'o':
            s.out = v;
            break;
        case 'n':
            cnt = &s.samples;
            break;
        case 'u':
            cnt = &s.stacks;
            break;
        case 'm':
            cnt = &s.methods;
            break;
        case 't':
            cnt = &s.threads;
            break;
        case 'd':
            cnt = &s.depth;
            break;
        case 's':
            cnt = &s.seed;
            break;
        case 'r':
            cnt = &s.request_ms;
            break;
        case 'v':
            cnt = &s.version;
            break;
        case 'z':
            s.zipf = atof(v);
            break;
        case 'w':
            s.wall = atof(v);
            break;
        default:
            fprintf(stderr, "fplsynth: unknown option '%s'\n", a);
            usage(stderr);
            return 2;
        }
        if (cnt && parse_count(v, cnt) != 0) {
            fprintf(stderr, "fplsynth: %s needs a count, not '%s'\n", a, v);
            return 2;
        }
    }
    if (!s.out || !s.stacks || !s.methods || !s.threads || s.stacks > UINT32_MAX - 1 ||
        s.methods > UINT32_MAX - 1 || s.depth < 1 || s.wall < 0 || s.wall > 1 || s.zipf < 0 ||
        s.version < 1 || s.version > FPL_VERSION) {
        fprintf(stderr, "fplsynth: need -o, and positive -u -m -t -d, -w in [0, 1], -z >= 0, "
                        "-v 1 to %d\n", FPL_VERSION);
        return 2;
    }
    s.rng = s.seed;
    s.thread_ctx = calloc(s.threads, sizeof(*s.thread_ctx));
    s.s2 = calloc(s.threads, sizeof(*s.s2));
    if (!s.thread_ctx || !s.s2 || build_stacks(&s) != 0) {
        fprintf(stderr, "fplsynth: out of memory\n");
        return 1;
    }
    s.fd = open(s.out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (s.fd < 0) {
        fprintf(stderr, "fplsynth: cannot create %s: %s\n", s.out, strerror(errno));
        return 1;
    }
    int rc = generate(&s);
    if (close(s.fd) != 0 && rc == 0)
        rc = -errno;
    if (rc) {
        fprintf(stderr, "fplsynth: writing %s failed: %s\n", s.out, strerror(-rc));
        return 1;
    }
    uint64_t used = 0, mused = 0;
    for (uint64_t k = 0; k < s.stacks; k++)
        used += s.stack_written[k];
    for (uint64_t m = 0; m < s.methods; m++)
        mused += s.method_written[m];
    printf("fplsynth: %s: %llu samples, %llu stacks (%llu used, mean depth %.1f), %llu methods "
           "used, %llu threads, %.1f%% wall, %u chunks, %llu bytes\n"
           "fplsynth: samples as %s records (log version %llu): %.2f bytes per sample, %.2f "
           "with the dictionaries and the rest of the log\n",
           s.out, (unsigned long long)s.samples, (unsigned long long)s.stacks,
           (unsigned long long)used, (double)s.stack_off[s.stacks] / (double)s.stacks,
           (unsigned long long)mused, (unsigned long long)s.threads, s.wall * 100, s.seq,
           (unsigned long long)s.bytes, s.version == 1 ? "SAMPLE" : "SAMPLE2",
           (unsigned long long)s.version,
           s.samples ? (double)s.sample_bytes / (double)s.samples : 0.0,
           s.samples ? (double)s.bytes / (double)s.samples : 0.0);
    printf("fplsynth: methods as %s records\n",
           s.version >= 4 ? "METHOD2 (each class once as CLASS_NAME)" : "METHOD");
    if (s.request_ms)
        printf("fplsynth: %llu requests of %llu ms\n", (unsigned long long)s.contexts,
               (unsigned long long)s.request_ms);
    fpl_buf_free(&s.chunk);
    free(s.frames);
    free(s.bcis);
    free(s.sframes);
    fpl_stackring_destroy(&s.sring);
    free(s.stack_off);
    free(s.home);
    free(s.stack_written);
    free(s.method_written);
    free(s.class_written);
    free(s.cdf);
    free(s.rank_stack);
    free(s.s2);
    free(s.thread_ctx);
    return 0;
}
