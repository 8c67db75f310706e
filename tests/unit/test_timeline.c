/* test_timeline: the samples' times kept for the HTML page's timeline (collector/model/
 * timeline.h) and the page data made from them (collector/render/out_html_timeline.h).
 *
 * - Totals are exact: every (bin, cell) pair holds exactly the weight of the cell's samples
 *   whose time falls in that bin (computed here from the samples as written), after the bins
 *   were doubled to fit a 30 s log, with wall samples upscaled by WALL_TICKs that come after
 *   them.
 * - Caps: a bin never holds more than TIMELINE_BIN_CELLS cells; the rest of its weight is in
 *   an overflow pair of its thread, kind and state -- also when two bins merge, where the
 *   lightest cells go.
 * - The page: summing its per-bin entries gives the tree's self weight of every node; rows
 *   sum to each thread's weight by state; a page whose bins hold more stacks than its cap has
 *   at most cap entries per bin and the same per-bin totals.
 *
 * `test_timeline --write DIR` writes the log of the browser test (tests/browser/
 * test_html_timeline.py), timeline.fpl, and timeline.json: every sample's time, thread, kind,
 * state, weight and leaf frame, from which that test computes what a range must weigh; and
 * spans.fpl / spans.json, requests traced across threads (tests/browser/test_html_spans.py);
 * layout.fpl, a service's busy threads, states, GC pauses and stalls under a long command line
 * (tests/browser/test_html_layout.py).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fplgen.h"
#include "harness.h"
#include "out_html.h"
#include "out_html_timeline.h"
#include "profile.h"
#include "render.h"
#include "timeline.h"

#define ANCHOR 1000u /* ticks of the log's start; ticks are ns (1 GHz) */
#define MS 1000000ull

/* A sample as the test wrote it. */
struct smp {
    uint64_t t;      /* ns after the start */
    uint64_t thread; /* thread id */
    uint64_t stack;  /* stack id */
    uint8_t kind, state;
    uint64_t weight;
    uint64_t scale;  /* wall upscaling: candidates / chosen (chosen 1) */
    uint64_t ctx;    /* CONTEXT id, 0 for none */
};

struct gen {
    struct fplgen g;
    struct smp *s;
    size_t n, cap;
    uint64_t next_method;
    int failed;
};

static void gen_header(struct gen *G, const char *command)
{
    const struct fplgen_header h = {
        .pid = 4321,
        .clock = FPL_CLOCK_MONOTONIC,
        .ticks_per_sec = 1000000000ull,
        .anchor_ticks = ANCHOR,
        .anchor_mono_ns = 5000,
        .anchor_real_ns = 1700000000000000000ull,
        .cpu_interval_ns = 10 * MS,
        .engine = FPL_ENGINE_CPUTIMER,
        .wall_interval_ns = 50 * MS,
        .wall_threads = 16,
        .depth = 2048,
        .options = "cpu=10ms,wall=50ms",
        .jvm_name = "TestVM",
        .jvm_version = "1.0",
        .command = command,
    };
    fplgen_header(&G->g, &h);
}

/* Defines stack id with the given frames, root first, "pkg.Class.method" each. */
static void gen_stack(struct gen *G, uint64_t id, size_t n, const char *const *frames)
{
    struct reader_frame fr[16];
    for (size_t i = 0; i < n && i < 16; i++) {
        char cls[256];
        const char *dot = strrchr(frames[i], '.');
        uint64_t mid = ++G->next_method;
        snprintf(cls, sizeof(cls), "%.*s", (int)(dot - frames[i]), frames[i]);
        fplgen_method(&G->g, mid, FPL_METHOD_JAVA, cls, dot + 1, "()V", "", 0, NULL);
        fr[n - 1 - i] = (struct reader_frame){mid, -1, FPL_FRAME_JAVA}; /* leaf first */
    }
    fplgen_stack(&G->g, id, n, fr);
}

/* Remembers a sample the log got (flushing the chunk now and then). */
static void gen_remember(struct gen *G, struct smp sm)
{
    if (G->n == G->cap) {
        size_t cap = G->cap ? G->cap * 2 : 1024;
        struct smp *q = realloc(G->s, cap * sizeof(*q));
        if (!q) {
            G->failed = 1;
            return;
        }
        G->s = q;
        G->cap = cap;
    }
    if (!sm.scale)
        sm.scale = 1;
    G->s[G->n++] = sm;
    if (G->n % 8192 == 0 && fplgen_flush(&G->g))
        G->failed = 1;
}

/* Writes a sample (tick id for wall samples upscaled later) and remembers it. */
static void gen_sample(struct gen *G, uint64_t t, uint64_t thread, uint64_t stack, uint8_t kind,
                       uint8_t state, uint64_t weight, uint64_t tick_id, uint64_t scale)
{
    if (tick_id)
        fplgen_sample_tick(&G->g, ANCHOR + t, thread, stack, weight, kind, state, tick_id);
    else
        fplgen_sample(&G->g, ANCHOR + t, thread, stack, weight, kind, state);
    gen_remember(G, (struct smp){t, thread, stack, kind, state, weight, scale, 0});
}

/* As gen_sample, with a context id (0: none). */
static void gen_sample_ctx(struct gen *G, uint64_t t, uint64_t thread, uint64_t stack,
                           uint8_t kind, uint8_t state, uint64_t weight, uint64_t tick_id,
                           uint64_t scale, uint64_t ctx)
{
    fplgen_sample_ctx(&G->g, ANCHOR + t, thread, stack, weight, kind, state, tick_id, ctx);
    gen_remember(G, (struct smp){t, thread, stack, kind, state, weight, scale, ctx});
}

/* A GC record (FORMAT.md 5.14) of [start, end) ns after the start. */
static void gen_gc(struct gen *G, uint64_t start, uint64_t end)
{
    struct fpl_buf b = {0};
    fpl_put_u64(&b, ANCHOR + start);
    fpl_put_u64(&b, ANCHOR + end);
    fpl_put_str(&b, "G1 young collection pauses");
    fplgen_record(&G->g, FPL_REC_GC, b.data, b.len);
    fpl_buf_free(&b);
}

static struct profile *gen_profile(struct gen *G, uint64_t end_t)
{
    char err[256];
    size_t len;
    fplgen_end(&G->g, ANCHOR + end_t);
    if (fplgen_flush(&G->g) || G->failed)
        return NULL;
    uint8_t *data = fplgen_bytes(&G->g, &len);
    struct profile *p = profile_new();
    if (!data || !p || profile_want_timeline(p) ||
        profile_read_mem(p, data, len, "timeline.fpl", err, sizeof(err))) {
        fprintf(stderr, "reading the generated log failed: %s\n", err);
        free(data);
        profile_free(p);
        return NULL;
    }
    free(data);
    return p;
}

static void gen_destroy(struct gen *G)
{
    fplgen_destroy(&G->g);
    free(G->s);
}

/* The cell of a sample in p, or UINT32_MAX. */
static uint32_t cell_of(const struct profile *p, const struct smp *s)
{
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->thread_id == s->thread && e->stack_id == s->stack && e->kind == s->kind &&
            e->state == s->state)
            return (uint32_t)i;
    }
    return UINT32_MAX;
}

static unsigned __int128 fp_of(const struct smp *s)
{
    return (unsigned __int128)(s->weight * s->scale) << PROFILE_FP_SHIFT;
}

/* The pair (bin, cell) of tl, or NULL. */
static const struct timeline_pair *pair_get(const struct timeline *tl, uint32_t bin, uint32_t cell)
{
    for (size_t i = 0; i < tl->npairs; i++) {
        if (tl->pairs[i].bin == bin && tl->pairs[i].cell == cell)
            return &tl->pairs[i];
    }
    return NULL;
}

/* Every pair holds exactly the weight of its cell's samples in its bin, and nothing else is
 * there: the sum over the samples of each pair equals the pair. */
static void check_exact(const struct profile *p, const struct gen *G)
{
    const struct timeline *tl = p->timeline;
    unsigned __int128 *sum = calloc(tl->npairs ? tl->npairs : 1, sizeof(*sum));
    size_t missing = 0, matched = 0;
    uint32_t *cache = malloc(G->n * sizeof(*cache));
    CHECK(sum && cache);
    if (!sum || !cache) {
        free(sum);
        free(cache);
        return;
    }
    for (size_t i = 0; i < G->n; i++) {
        const struct smp *s = &G->s[i];
        uint32_t cell = cell_of(p, s), bin = (uint32_t)(s->t / tl->bin_ticks);
        const struct timeline_pair *pr = cell == UINT32_MAX ? NULL : pair_get(tl, bin, cell);
        if (!pr) {
            missing++;
            continue;
        }
        sum[pr - tl->pairs] += fp_of(s);
        matched++;
    }
    CHECK_EQ_U(missing, 0);
    size_t bad = 0;
    for (size_t i = 0; i < tl->npairs; i++)
        bad += sum[i] != timeline_fp(&tl->pairs[i]);
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(matched, G->n);
    free(sum);
    free(cache);
}

/* A 30 s log of three threads: two CPU threads cycling through 5 stacks, one parked thread
 * whose wall samples are upscaled 3x by WALL_TICKs written after them. */
static struct profile *three_threads(struct gen *G)
{
    static const char *const st[5][3] = {
        {"demo.Main.run", "demo.Phase.a", "demo.Leaf.x"},
        {"demo.Main.run", "demo.Phase.a", "demo.Leaf.y"},
        {"demo.Main.run", "demo.Phase.b", "demo.Leaf.x"},
        {"demo.Main.run", "demo.Phase.b"},
        {"demo.Main.run", "demo.Phase.c", "demo.Leaf.z"},
    };
    static const char *const park[2] = {"demo.Pool.run", "jdk.internal.misc.Unsafe.park"};
    memset(G, 0, sizeof(*G));
    if (fplgen_init(&G->g))
        return NULL;
    gen_header(G, "java Three");
    fplgen_thread(&G->g, 1, 101, "cpu-a");
    fplgen_thread(&G->g, 2, 102, "cpu-b");
    fplgen_thread(&G->g, 3, 103, "parked");
    for (uint64_t k = 0; k < 5; k++)
        gen_stack(G, k + 1, k == 3 ? 2 : 3, st[k]);
    gen_stack(G, 9, 2, park);
    uint64_t tick = 0;
    for (uint64_t t = 0; t < 30000 * MS; t += 10 * MS) {
        uint64_t i = t / (10 * MS);
        gen_sample(G, t + 3, 1, 1 + i % 5, FPL_KIND_CPU, FPL_STATE_RUNNING, 1 + (i % 7 == 0), 0,
                   1);
        gen_sample(G, t + 5 * MS, 2, 1 + (i * 3) % 5, FPL_KIND_CPU, FPL_STATE_RUNNING, 1, 0, 1);
        if (i % 5 == 0) {
            gen_sample(G, t + 7, 3, 9, FPL_KIND_WALL, FPL_STATE_PARKED, 1, ++tick, 3);
            fplgen_wall_tick(&G->g, tick, ANCHOR + t + 8, 3, 1, 0, 0);
        }
        if (t == 12000 * MS || t == 20000 * MS)
            gen_gc(G, t + 100, t + 100 + 45 * MS);
    }
    return gen_profile(G, 30000 * MS);
}

static void test_model_exact(void)
{
    struct gen G;
    struct profile *p = three_threads(&G);
    CHECK(p && p->timeline);
    if (!p || !p->timeline) {
        gen_destroy(&G);
        profile_free(p);
        return;
    }
    const struct timeline *tl = p->timeline;
    /* 30 s in at most 2048 bins: 1 ms doubled to 16 ms (2048 x 8 ms = 16.4 s is too short) */
    CHECK_EQ_U(tl->bin_ticks, 16 * MS);
    CHECK(tl->nbins <= TIMELINE_MAX_BINS && tl->nbins * tl->bin_ticks >= 30000 * MS - 16 * MS);
    CHECK_EQ_U(tl->coarsened, 4);
    CHECK_EQ_U(tl->over_pairs, 0);
    check_exact(p, &G);
    /* the pairs hold every cell's upscaled weight */
    unsigned __int128 pairs = 0, cells = 0;
    for (size_t i = 0; i < tl->npairs; i++)
        pairs += timeline_fp(&tl->pairs[i]);
    for (size_t i = 0; i < p->nentries; i++)
        cells += p->entries[i].upscaled;
    CHECK(pairs == cells && pairs != 0);
    CHECK(p->wall.scaled > 0);
    /* GC pauses are kept for the same time axis */
    CHECK_EQ_U(tl->ngcs, 2);
    CHECK(tl->ngcs == 2 && tl->gcs[0].start == ANCHOR + 12000 * MS + 100 &&
          tl->gcs[1].end == ANCHOR + 20000 * MS + 100 + 45 * MS);
    gen_destroy(&G);
    profile_free(p);
}

/* ---- requests: the context pairs --------------------------------------------------------- */

/* The root span of context id ctx in the logs below: a request's root and its child span have
 * ids 2k-1 and 2k, root span 1e18 + k. */
static uint64_t root_of_ctx(uint64_t ctx)
{
    return 1000000000000000000ull + (ctx + 1) / 2;
}

static int cmp_cpair(const void *a, const void *b)
{
    const struct timeline_ctx_pair *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    if (x->bin != y->bin)
        return x->bin < y->bin ? -1 : 1;
    return x->cell < y->cell ? -1 : x->cell > y->cell;
}

/* Every context pair holds exactly the weight of its context's samples of its cell in its bin:
 * summed over the samples, per pair; and the samples of kept requests all have a pair. Returns
 * the number of samples of kept requests. */
static size_t check_ctx_exact(const struct profile *p, const struct gen *G)
{
    const struct timeline *tl = p->timeline;
    unsigned __int128 *sum = calloc(tl->ncpairs ? tl->ncpairs : 1, sizeof(*sum));
    struct timeline_ctx_pair *sorted = malloc((tl->ncpairs ? tl->ncpairs : 1) * sizeof(*sorted));
    CHECK(sum != NULL && sorted != NULL);
    if (!sum || !sorted) {
        free(sum);
        free(sorted);
        return 0;
    }
    memcpy(sorted, tl->cpairs, tl->ncpairs * sizeof(*sorted));
    qsort(sorted, tl->ncpairs, sizeof(*sorted), cmp_cpair);
    size_t missing = 0, kept = 0, cell_cache_i = SIZE_MAX;
    uint32_t cell = UINT32_MAX;
    for (size_t i = 0; i < G->n; i++) {
        const struct smp *s = &G->s[i];
        if (!s->ctx || !timeline_ctx_kept(tl, root_of_ctx(s->ctx)))
            continue;
        kept++;
        if (cell_cache_i == SIZE_MAX || G->s[cell_cache_i].thread != s->thread ||
            G->s[cell_cache_i].stack != s->stack || G->s[cell_cache_i].kind != s->kind ||
            G->s[cell_cache_i].state != s->state) {
            cell = cell_of(p, s);
            cell_cache_i = i;
        }
        struct timeline_ctx_pair key = {.bin = (uint32_t)(s->t / tl->bin_ticks), .cell = cell,
                                        .ctx = s->ctx};
        const struct timeline_ctx_pair *cp =
            bsearch(&key, sorted, tl->ncpairs, sizeof(*sorted), cmp_cpair);
        if (!cp) {
            missing++;
            continue;
        }
        sum[cp - sorted] += fp_of(s);
    }
    CHECK_EQ_U(missing, 0);
    size_t bad = 0, foreign = 0;
    for (size_t k = 0; k < tl->ncpairs; k++) {
        bad += sum[k] != timeline_ctx_fp(&sorted[k]);
        foreign += !timeline_ctx_kept(tl, root_of_ctx(sorted[k].ctx));
    }
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(foreign, 0);
    free(sum);
    free(sorted);
    return kept;
}

/* A 30 s log (bins doubled 4 times) of three threads: "server" serves requests of 100 ms on
 * CPU, each in its root span and then, for its second half, a child span; "batch" works for no
 * request; "waiter" serves requests of 500 ms parked, its wall samples upscaled 3x by WALL_TICKs
 * written after them (the samples wait for their ticks with their context). Every request is
 * kept, whole: its context pairs hold exactly its samples, through the doubling. */
static void test_model_requests(void)
{
    static const char *const st[2][2] = {{"demo.Server.run", "demo.Server.handle"},
                                         {"demo.Batch.run", "demo.Batch.crunch"}};
    static const char *const park[2] = {"demo.Pool.run", "jdk.internal.misc.Unsafe.park"};
    struct gen G;
    memset(&G, 0, sizeof(G));
    CHECK(fplgen_init(&G.g) == 0);
    gen_header(&G, "java Requests");
    fplgen_thread(&G.g, 1, 101, "server");
    fplgen_thread(&G.g, 2, 102, "batch");
    fplgen_thread(&G.g, 3, 103, "waiter");
    gen_stack(&G, 1, 2, st[0]);
    gen_stack(&G, 2, 2, st[1]);
    gen_stack(&G, 3, 2, park);
    uint64_t tick = 0, defined = 0;
    for (uint64_t t = 0; t < 30000 * MS; t += 10 * MS) {
        uint64_t i = t / (10 * MS), req = 1 + i / 10, wreq = 100000 + t / (500 * MS);
        uint64_t ctx = 2 * req - 1 + (i % 10 >= 5), wctx = 2 * wreq - 1;
        while (defined < req) { /* the server's request and its child span */
            defined++;
            fplgen_context(&G.g, 2 * defined - 1, root_of_ctx(2 * defined - 1),
                           root_of_ctx(2 * defined - 1));
            fplgen_context(&G.g, 2 * defined, 77000 + defined, root_of_ctx(2 * defined));
        }
        if (t % (500 * MS) == 0)
            fplgen_context(&G.g, wctx, root_of_ctx(wctx), root_of_ctx(wctx));
        gen_sample_ctx(&G, t + 3, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING, 1 + (i % 7 == 0), 0, 1,
                       ctx);
        gen_sample_ctx(&G, t + 5 * MS, 2, 2, FPL_KIND_CPU, FPL_STATE_RUNNING, 1, 0, 1, 0);
        if (i % 5 == 0) {
            gen_sample_ctx(&G, t + 7, 3, 3, FPL_KIND_WALL, FPL_STATE_PARKED, 1, ++tick, 3, wctx);
            fplgen_wall_tick(&G.g, tick, ANCHOR + t + 8, 3, 1, 0, 0);
        }
    }
    struct profile *p = gen_profile(&G, 30000 * MS);
    CHECK(p && p->timeline);
    if (p && p->timeline) {
        const struct timeline *tl = p->timeline;
        CHECK_EQ_U(tl->bin_ticks, 16 * MS);
        CHECK_EQ_U(tl->ctx_purges, 0);
        CHECK_EQ_U(tl->ctx_let_go, 0);
        size_t with_ctx = 0;
        for (size_t i = 0; i < G.n; i++)
            with_ctx += G.s[i].ctx != 0;
        CHECK_EQ_U(check_ctx_exact(p, &G), with_ctx);
        /* the batch thread's samples are in no context pair */
        size_t batch = 0;
        for (size_t k = 0; k < tl->ncpairs; k++)
            batch += p->entries[tl->cpairs[k].cell].thread_id == 2;
        CHECK_EQ_U(batch, 0);
        CHECK(p->wall.scaled > 0);
    }
    gen_destroy(&G);
    profile_free(p);
}

/* The weight of the one-sample request i of test_model_requests_cap: 1 to 100, spread. */
static uint64_t cap_weight(uint64_t i)
{
    return 1 + (i * 7919) % 100;
}

/* More context pairs than TIMELINE_MAX_CTX_PAIRS: 400k requests of one CPU sample each,
 * weighing 1 to 100. Each time the pairs fill, the lighter half of the requests kept is let
 * go, whole: the pairs stay within the bound, every kept request has all its samples, none let
 * go has any, every request is either, and the heaviest (weight 100) are all kept. */
static void test_model_requests_cap(void)
{
    static const char *const st[2] = {"demo.Server.run", "demo.Server.handle"};
    const uint64_t n = 400000;
    struct gen G;
    memset(&G, 0, sizeof(G));
    CHECK(fplgen_init(&G.g) == 0);
    gen_header(&G, "java ManyRequests");
    fplgen_thread(&G.g, 1, 101, "server");
    gen_stack(&G, 1, 2, st);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t ctx = 2 * (i + 1) - 1;
        fplgen_context(&G.g, ctx, root_of_ctx(ctx), root_of_ctx(ctx));
        gen_sample_ctx(&G, i * 50000, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING, cap_weight(i), 0, 1,
                       ctx);
    }
    struct profile *p = gen_profile(&G, n * 50000);
    CHECK(p && p->timeline);
    if (p && p->timeline) {
        const struct timeline *tl = p->timeline;
        CHECK(tl->ctx_purges >= 1);
        CHECK(tl->ncpairs <= TIMELINE_MAX_CTX_PAIRS);
        size_t kept = check_ctx_exact(p, &G);
        CHECK_EQ_U(tl->ncpairs, kept); /* one sample, one pair each */
        CHECK_EQ_U(kept + tl->nlet_go, n);
        size_t heavy = 0, heavy_kept = 0;
        unsigned __int128 kept_w = 0;
        for (uint64_t i = 0; i < n; i++) {
            int k = timeline_ctx_kept(tl, root_of_ctx(2 * (i + 1) - 1));
            heavy += cap_weight(i) == 100;
            heavy_kept += cap_weight(i) == 100 && k;
            kept_w += k ? cap_weight(i) : 0;
        }
        CHECK(heavy > 0);
        CHECK_EQ_U(heavy_kept, heavy);
        /* what is kept is heavier than the mean request (50.5) */
        double mean_kept = (double)kept_w / (double)(kept ? kept : 1);
        CHECK(mean_kept > 60);
        printf("requests cap: %llu requests, %u purges: %zu kept (mean weight %.1f, %zu of the "
               "%zu of weight 100), %zu let go\n", (unsigned long long)n, tl->ctx_purges, kept,
               mean_kept, heavy_kept, heavy, tl->nlet_go);
    }
    gen_destroy(&G);
    profile_free(p);
}

/* Sums the overflow weight of bin. */
static unsigned __int128 over_in(const struct timeline *tl, uint32_t bin, size_t *n)
{
    unsigned __int128 w = 0;
    *n = 0;
    for (size_t i = 0; i < tl->npairs; i++) {
        if (tl->pairs[i].bin == bin && (tl->pairs[i].cell & TIMELINE_OVER)) {
            w += timeline_fp(&tl->pairs[i]);
            (*n)++;
        }
    }
    return w;
}

static void test_model_caps(void)
{
    struct gen G;
    memset(&G, 0, sizeof(G));
    CHECK(fplgen_init(&G.g) == 0);
    gen_header(&G, "java Caps");
    fplgen_thread(&G.g, 1, 101, "many");
    /* bin 0 ([0, 1 ms)): 700 distinct stacks; bins 1 and 2: 300 each, the second's heavier;
     * then a sample at 2.1 s doubles the bins, so bins 2 and 3 merge (600 cells > 512) */
    char names[1000][32];
    for (uint64_t k = 0; k < 1000; k++) {
        const char *fr[2] = {"demo.Main.run", names[k]};
        snprintf(names[k], sizeof(names[k]), "demo.S.m%llu", (unsigned long long)k);
        gen_stack(&G, k + 1, 2, fr);
    }
    for (uint64_t k = 0; k < 700; k++)
        gen_sample(&G, k * 1000, 1, k + 1, FPL_KIND_CPU, FPL_STATE_RUNNING, 1, 0, 1);
    for (uint64_t k = 0; k < 300; k++) {
        gen_sample(&G, 2 * MS + k * 1000, 1, k + 1, FPL_KIND_CPU, FPL_STATE_RUNNING, 1, 0, 1);
        gen_sample(&G, 3 * MS + k * 1000, 1, 300 + k + 1, FPL_KIND_CPU, FPL_STATE_RUNNING, 5, 0,
                   1);
    }
    gen_sample(&G, 2100 * MS, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING, 1, 0, 1);
    struct profile *p = gen_profile(&G, 2200 * MS);
    CHECK(p && p->timeline);
    if (!p || !p->timeline) {
        gen_destroy(&G);
        profile_free(p);
        return;
    }
    const struct timeline *tl = p->timeline;
    CHECK_EQ_U(tl->bin_ticks, 2 * MS);
    /* bin 0 (was 0 and 1): 700 cells came, 512 kept, 188 samples of weight 1 overflowed */
    size_t n = 0;
    CHECK(tl->bin_cells[0] == TIMELINE_BIN_CELLS);
    CHECK(over_in(tl, 0, &n) == (unsigned __int128)188 << PROFILE_FP_SHIFT);
    CHECK_EQ_U(n, 1);
    /* bin 1 (was 2 and 3): 600 cells merged, the 88 lightest (weight 1, of the first 300)
     * went to overflow, the 300 of weight 5 all stayed */
    CHECK(tl->bin_cells[1] == TIMELINE_BIN_CELLS);
    CHECK(over_in(tl, 1, &n) == (unsigned __int128)88 << PROFILE_FP_SHIFT);
    size_t heavy = 0;
    for (size_t i = 0; i < tl->npairs; i++) {
        const struct timeline_pair *pr = &tl->pairs[i];
        if (pr->bin == 1 && !(pr->cell & TIMELINE_OVER) &&
            timeline_fp(pr) == (unsigned __int128)5 << PROFILE_FP_SHIFT)
            heavy++;
    }
    CHECK_EQ_U(heavy, 300);
    for (uint32_t b = 0; b < tl->nbins; b++)
        CHECK(tl->bin_cells[b] <= TIMELINE_BIN_CELLS);
    /* totals per bin exact: bin 0 700, bin 1 300 + 1500 */
    unsigned __int128 w[3] = {0, 0, 0};
    for (size_t i = 0; i < tl->npairs; i++) {
        if (tl->pairs[i].bin < 2)
            w[tl->pairs[i].bin] += timeline_fp(&tl->pairs[i]);
        else
            w[2] += timeline_fp(&tl->pairs[i]);
    }
    CHECK(w[0] == (unsigned __int128)700 << PROFILE_FP_SHIFT);
    CHECK(w[1] == (unsigned __int128)1800 << PROFILE_FP_SHIFT);
    CHECK(w[2] == (unsigned __int128)1 << PROFILE_FP_SHIFT);
    /* the overflow belongs to the thread, kind and state of the samples */
    CHECK(tl->nseries >= 1 && tl->series[0].thread_id == 1 && tl->series[0].kind == FPL_KIND_CPU);
    gen_destroy(&G);
    profile_free(p);
}

/* ---- the page's data ---------------------------------------------------------------------- */

/* A digit stream of the page's encoding. */
struct digits {
    const char *s, *end;
    int bad;
};

static uint64_t dnum(struct digits *d)
{
    static const char more[] = OUT_HTML_MORE, end[] = OUT_HTML_END;
    uint64_t v = 0, mul = 1;
    while (d->s < d->end) {
        char c = *d->s++;
        const char *at = strchr(end, c);
        if (at && c) {
            return v + (uint64_t)(at - end) * mul;
        }
        at = strchr(more, c);
        if (!at || !c) {
            d->bad = 1;
            return 0;
        }
        v += (uint64_t)(at - more) * mul;
        mul *= OUT_HTML_BASE;
    }
    d->bad = 1;
    return 0;
}

/* The string value of "key":"..." in the page's data (no escapes in digit strings). */
static struct digits dstr(const char *html, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":\"", key);
    const char *a = strstr(html, pat);
    struct digits d = {NULL, NULL, 1};
    if (!a)
        return d;
    a += strlen(pat);
    const char *b = strchr(a, '"');
    if (b)
        d = (struct digits){a, b, 0};
    return d;
}

static uint64_t dint(const char *html, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *a = strstr(html, pat);
    return a ? strtoull(a + strlen(pat), NULL, 10) : UINT64_MAX;
}

static char *page_of(const struct profile *p, const struct render_opts *o)
{
    char *buf = NULL, err[256] = "";
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int rc = out_html_write(p, o, f, err, sizeof(err));
    fclose(f);
    if (rc) {
        fprintf(stderr, "html: %s\n", err);
        free(buf);
        return NULL;
    }
    return buf;
}

/* The page's tree, as out_html builds it, and its nodes' preorder positions. */
static int page_tree(const struct profile *p, const struct render_opts *o, struct render_tree *t,
                     uint32_t **pos)
{
    char err[256];
    struct render_opts b = *o;
    b.min_share = OUT_HTML_MIN_SHARE;
    b.max_nodes = OUT_HTML_MAX_NODES;
    b.frame_types = 1;
    if (render_tree_build(t, p, &b, err, sizeof(err)))
        return -1;
    *pos = malloc(t->nnodes * sizeof(**pos));
    if (!*pos)
        return -1;
    /* preorder along first_child / next_sibling, as the page lays the tree out */
    uint32_t v = 0, k = 0;
    for (;;) {
        (*pos)[v] = k++;
        if (t->nodes[v].first_child != UINT32_MAX) {
            v = t->nodes[v].first_child;
            continue;
        }
        while (v != 0 && t->nodes[v].next_sibling == UINT32_MAX)
            v = t->nodes[v].parent;
        if (v == 0)
            break;
        v = t->nodes[v].next_sibling;
    }
    return k == t->nnodes ? 0 : -1;
}

/* Per bin entries: positions and weights. Returns per-bin sums in bins[] (nbins) and per
 * position sums in self[] (nnodes); the largest entry count of a bin in *maxm. */
static int decode_stk(const char *html, uint64_t nbins, size_t nnodes, uint64_t *bins,
                      uint64_t *self, uint64_t *maxm)
{
    struct digits d = dstr(html, "stk");
    *maxm = 0;
    for (uint64_t b = 0; b < nbins && !d.bad; b++) {
        uint64_t m = dnum(&d), at = 0;
        if (m > *maxm)
            *maxm = m;
        for (uint64_t k = 0; k < m && !d.bad; k++) {
            at += dnum(&d);
            uint64_t w = dnum(&d);
            if (at >= nnodes)
                return -1;
            self[at] += w;
            bins[b] += w;
        }
    }
    return d.bad || d.s != d.end ? -1 : 0;
}

static void test_page_sums(void)
{
    struct gen G;
    struct profile *p = three_threads(&G);
    struct render_tree t = {0};
    uint32_t *pos = NULL;
    CHECK(p != NULL);
    if (!p) {
        gen_destroy(&G);
        return;
    }
    struct render_opts o = {.kind = PROFILE_KIND_ALL, .state = RENDER_STATE_ALL};
    char *html = page_of(p, &o);
    CHECK(html && page_tree(p, &o, &t, &pos) == 0);
    if (!html || !pos)
        goto out;
    uint64_t nbins = dint(html, "nbins");
    CHECK_EQ_U(nbins, p->timeline->nbins);
    uint64_t *bins = calloc(nbins, sizeof(*bins)), *self = calloc(t.nnodes, sizeof(*self)), maxm;
    CHECK(bins && self && decode_stk(html, nbins, t.nnodes, bins, self, &maxm) == 0);
    /* every node's self weight is the sum of its entries over the bins */
    size_t bad = 0;
    for (size_t v = 0; v < t.nnodes; v++)
        bad += self[pos[v]] != t.nodes[v].self;
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(dint(html, "moved"), 0);
    CHECK_EQ_U(dint(html, "over"), 0);
    CHECK(strstr(html, "\"gc\":[[12000000100,12045000100],[20000000100,20045000100]]") != NULL);
    /* every bin weighs what its samples do: both kinds on the page, so in ns (weight x
     * interval, upscaled for wall) */
    uint64_t *want = calloc(nbins, sizeof(*want));
    for (size_t i = 0; want && i < G.n; i++)
        want[G.s[i].t / p->timeline->bin_ticks] += G.s[i].weight * G.s[i].scale *
                                                    (G.s[i].kind == FPL_KIND_CPU ? 10 : 50) * MS;
    bad = 0;
    for (uint64_t b = 0; want && b < nbins; b++)
        bad += bins[b] != want[b];
    CHECK(want && bad == 0);
    /* rows: per thread, by category; the parked thread's weight is all "parked" (cat 6) */
    const char *rows = strstr(html, "\"rows\":[");
    CHECK(rows != NULL);
    uint64_t by[4][9] = {{0}};
    for (int r = 0; rows && r < 3; r++) {
        const char *q = strstr(rows, r == 0 ? "[\"cpu-a\",\"" : r == 1 ? "[\"cpu-b\",\"" :
                                                                         "[\"parked\",\"");
        CHECK(q != NULL);
        if (!q)
            continue;
        q = strchr(q + 2, ',') + 2;
        struct digits d = {q, strchr(q, '"'), 0};
        while (d.s < d.end && !d.bad) {
            dnum(&d);
            uint64_t c = dnum(&d), w = dnum(&d);
            if (c < 9)
                by[r][c] += w;
        }
        CHECK(!d.bad);
    }
    uint64_t thr[3] = {0, 0, 0};
    for (size_t i = 0; i < G.n; i++)
        thr[G.s[i].thread - 1] +=
            G.s[i].weight * G.s[i].scale * (G.s[i].kind == FPL_KIND_CPU ? 10 : 50) * MS;
    CHECK_EQ_U(by[0][0], thr[0]);
    CHECK_EQ_U(by[1][0], thr[1]);
    CHECK_EQ_U(by[2][1 + FPL_STATE_PARKED], thr[2]);
    CHECK_EQ_U(by[2][0], 0);
    free(want);
    free(bins);
    free(self);
out:
    free(html);
    free(pos);
    render_tree_destroy(&t);
    gen_destroy(&G);
    profile_free(p);
}

/* More stacks per bin than the page keeps: 2048 bins of 160 stacks (depth 3) each. */
static void test_page_cap(void)
{
    struct gen G;
    memset(&G, 0, sizeof(G));
    CHECK(fplgen_init(&G.g) == 0);
    gen_header(&G, "java Cap");
    fplgen_thread(&G.g, 1, 101, "t");
    char mid[16][32], leaf[10][32];
    for (int i = 0; i < 16; i++)
        snprintf(mid[i], sizeof(mid[i]), "demo.P.p%d", i);
    for (int i = 0; i < 10; i++)
        snprintf(leaf[i], sizeof(leaf[i]), "demo.L.f%d", i);
    for (uint64_t k = 0; k < 160; k++) {
        const char *fr[3] = {"demo.Main.run", mid[k / 10], leaf[k % 10]};
        gen_stack(&G, k + 1, 3, fr);
    }
    for (uint64_t b = 0; b < 2048; b++) {
        for (uint64_t k = 0; k < 160; k++)
            gen_sample(&G, b * MS + k * 5000, 1, 1 + (k + b) % 160, FPL_KIND_CPU,
                       FPL_STATE_RUNNING, 1 + (k % 3 == 0), 0, 1);
    }
    struct profile *p = gen_profile(&G, 2048 * MS);
    struct render_tree t = {0};
    uint32_t *pos = NULL;
    struct render_opts o = {.kind = FPL_KIND_CPU, .state = RENDER_STATE_ALL};
    char *html = p ? page_of(p, &o) : NULL;
    CHECK(html && page_tree(p, &o, &t, &pos) == 0);
    if (html && pos) {
        uint64_t nbins = dint(html, "nbins"), cap = dint(html, "cap"), maxm = 0;
        CHECK_EQ_U(nbins, 2048);
        CHECK_EQ_U(cap, OUT_HTML_TL_MAX_ENTRIES / 2048);
        uint64_t *bins = calloc(nbins, sizeof(*bins)), *self = calloc(t.nnodes, sizeof(*self));
        CHECK(bins && self && decode_stk(html, nbins, t.nnodes, bins, self, &maxm) == 0);
        CHECK(maxm <= cap && maxm > 0);
        CHECK(dint(html, "moved") > 0);
        /* each bin keeps its weight, moved or not: 160 samples, a third of weight 2 */
        size_t bad = 0;
        uint64_t sum = 0;
        for (uint64_t b = 0; bins && b < nbins; b++) {
            uint64_t want = 0;
            for (uint64_t k = 0; k < 160; k++)
                want += 1 + (k % 3 == 0);
            bad += bins[b] != want;
            sum += bins[b];
        }
        CHECK_EQ_U(bad, 0);
        CHECK_EQ_U(sum, t.nodes[0].total);
        free(bins);
        free(self);
    }
    free(html);
    free(pos);
    render_tree_destroy(&t);
    gen_destroy(&G);
    profile_free(p);
}

/* ---- the browser test's log --------------------------------------------------------------- */

static int write_fixture(const char *dir)
{
    static const char *const spin_a[] = {"demo.Spin.run", "demo.Phase.first", "demo.Spin.hash"};
    static const char *const spin_b[] = {"demo.Spin.run", "demo.Phase.second", "demo.Spin.mix"};
    static const char *const sleep_st[] = {"demo.Sleeper.run", "java.lang.Thread.sleep"};
    static const char *const lock_st[] = {"demo.Locker.run", "demo.Locker.take"};
    static const char *const park_st[] = {"demo.Pool.run", "jdk.internal.misc.Unsafe.park"};
    static const char *const leaf[] = {"", "demo.Spin.hash", "demo.Spin.mix",
                                       "java.lang.Thread.sleep", "demo.Locker.take",
                                       "jdk.internal.misc.Unsafe.park"};
    static const char *const tname[] = {"", "spinner", "sleeper", "locker", "parker"};
    char path[4096];
    struct gen G;
    memset(&G, 0, sizeof(G));
    mkdir(dir, 0755);
    if (fplgen_init(&G.g))
        return 1;
    gen_header(&G, "java demo.Timeline");
    for (uint64_t i = 1; i <= 4; i++)
        fplgen_thread(&G.g, i, 200 + i, tname[i]);
    gen_stack(&G, 1, 3, spin_a);
    gen_stack(&G, 2, 3, spin_b);
    gen_stack(&G, 3, 2, sleep_st);
    gen_stack(&G, 4, 2, lock_st);
    gen_stack(&G, 5, 2, park_st);
    gen_gc(&G, 3000 * MS, 3200 * MS);
    gen_gc(&G, 7500 * MS, 7550 * MS);
    /* 10 s: the spinner on CPU (first phase, then second at 5 s), three threads off CPU in
     * their states (the locker from 2 s to 8 s only) */
    for (uint64_t t = 0; t < 10000 * MS; t += 10 * MS) {
        gen_sample(&G, t + 1000, 1, t < 5000 * MS ? 1 : 2, FPL_KIND_CPU, FPL_STATE_RUNNING,
                   1 + (t / (10 * MS)) % 2, 0, 1);
        if (t % (50 * MS) == 0) {
            gen_sample(&G, t + 2000, 2, 3, FPL_KIND_WALL, FPL_STATE_SLEEPING, 1, 0, 1);
            if (t >= 2000 * MS && t < 8000 * MS)
                gen_sample(&G, t + 3000, 3, 4, FPL_KIND_WALL, FPL_STATE_BLOCKED, 1, 0, 1);
            gen_sample(&G, t + 4000, 4, 5, FPL_KIND_WALL, FPL_STATE_PARKED, 1, 0, 1);
        }
    }
    fplgen_end(&G.g, ANCHOR + 10000 * MS);
    snprintf(path, sizeof(path), "%s/timeline.fpl", dir);
    int rc = G.failed || fplgen_flush(&G.g) || fplgen_save(&G.g, path);
    snprintf(path, sizeof(path), "%s/timeline.json", dir);
    FILE *f = rc ? NULL : fopen(path, "w");
    if (f) {
        fprintf(f, "{\"samples\":[\n");
        for (size_t i = 0; i < G.n; i++) {
            const struct smp *s = &G.s[i];
            fprintf(f, "%s[%llu,\"%s\",\"%s\",%u,%llu,\"%s\"]", i ? ",\n" : "",
                    (unsigned long long)s->t, tname[s->thread],
                    s->kind == FPL_KIND_CPU ? "cpu" : "wall", s->state,
                    (unsigned long long)(s->weight * s->scale), leaf[s->stack]);
        }
        fprintf(f, "\n],\"gc\":[[%llu,%llu],[%llu,%llu]]}\n", 3000 * MS, 3200 * MS,
                7500 * MS, 7550 * MS);
        rc = fclose(f) != 0;
    } else {
        rc = 1;
    }
    gen_destroy(&G);
    if (rc)
        fprintf(stderr, "test_timeline: writing the browser log into %s failed\n", dir);
    return rc;
}

/* ---- the browser test's requests ------------------------------------------------------- */

#define ROOT_A 7000000000000000001ull /* past 2^53: the page must keep ids exact */
#define SPAN_A2 7000000000000000002ull
#define ROOT_B 900ull
#define ROOT_C 901ull

/* The contexts of spans.fpl: request A (GET /a) accepted on the acceptor, then handed to
 * worker-1 in a child span; B (GET /b) sleeping on worker-2, then finished on the acceptor;
 * C (GET /a too) on worker-1 after A. */
static const struct {
    uint64_t id, span, root;
    const char *endpoint;
} span_ctx[] = {
    {1, ROOT_A, ROOT_A, "GET /a"},
    {2, SPAN_A2, ROOT_A, "GET /a"},
    {3, ROOT_B, ROOT_B, "GET /b"},
    {4, ROOT_C, ROOT_C, "GET /a"},
};

/* Who was sampled when: thread, stack, context (0: none), kind and state, every `every` ms in
 * [from, to) ms. The idle thread works for no request. */
static const struct {
    uint64_t thread, stack, ctx;
    uint8_t kind, state;
    uint64_t from, to, every;
} span_runs[] = {
    {1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING, 1000, 1200, 10},
    {2, 2, 2, FPL_KIND_CPU, FPL_STATE_RUNNING, 1200, 1800, 10},
    {3, 3, 3, FPL_KIND_WALL, FPL_STATE_SLEEPING, 500, 3000, 50},
    {1, 4, 3, FPL_KIND_CPU, FPL_STATE_RUNNING, 3000, 3100, 10},
    {2, 5, 4, FPL_KIND_CPU, FPL_STATE_RUNNING, 2000, 2500, 10},
    {4, 6, 0, FPL_KIND_WALL, FPL_STATE_PARKED, 0, 4000, 50},
};

/* Writes spans.fpl and spans.json (contexts, and every sample: time ns, thread, kind, state,
 * weight, leaf frame, span, root; ids as strings) into dir. 0, or 1 on failure. */
static int write_spans(const char *dir)
{
    static const char *const st[7][3] = {
        {NULL},
        {"demo.Acceptor.run", "demo.A.accept"},
        {"demo.Worker.run", "demo.A.work"},
        {"demo.Worker.run", "demo.B.query", "java.lang.Thread.sleep"},
        {"demo.Acceptor.run", "demo.B.accept"},
        {"demo.Worker.run", "demo.C.work"},
        {"demo.Idle.run", "jdk.internal.misc.Unsafe.park"},
    };
    static const size_t depth[7] = {0, 2, 2, 3, 2, 2, 2};
    static const char *const tname[] = {"", "acceptor", "worker-1", "worker-2", "idle"};
    char path[4096];
    struct gen G;
    memset(&G, 0, sizeof(G));
    if (fplgen_init(&G.g))
        return 1;
    gen_header(&G, "java demo.Requests");
    for (uint64_t i = 1; i <= 4; i++)
        fplgen_thread(&G.g, i, 300 + i, tname[i]);
    for (uint64_t k = 1; k <= 6; k++)
        gen_stack(&G, k, depth[k], st[k]);
    for (size_t c = 0; c < sizeof(span_ctx) / sizeof(span_ctx[0]); c++)
        fplgen_context(&G.g, span_ctx[c].id, span_ctx[c].span, span_ctx[c].root);
    snprintf(path, sizeof(path), "%s/spans.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        gen_destroy(&G);
        return 1;
    }
    fprintf(f, "{\"samples\":[\n");
    size_t n = 0;
    for (uint64_t t = 0; t < 4000 * MS; t += 10 * MS) {
        for (size_t r = 0; r < sizeof(span_runs) / sizeof(span_runs[0]); r++) {
            const __typeof__(span_runs[0]) *u = &span_runs[r];
            if (t < u->from * MS || t >= u->to * MS || (t - u->from * MS) % (u->every * MS))
                continue;
            uint64_t at = t + 1000 * (r + 1);
            uint64_t w = u->kind == FPL_KIND_CPU ? 1 + (t / MS / 10) % 2 : 1;
            fplgen_sample_ctx(&G.g, ANCHOR + at, u->thread, u->stack, w, u->kind, u->state, 0,
                              u->ctx);
            uint64_t span = u->ctx ? span_ctx[u->ctx - 1].span : 0;
            uint64_t root = u->ctx ? span_ctx[u->ctx - 1].root : 0;
            fprintf(f, "%s[%llu,\"%s\",\"%s\",%u,%llu,\"%s\",\"%llu\",\"%llu\"]", n++ ? ",\n" : "",
                    (unsigned long long)at, tname[u->thread],
                    u->kind == FPL_KIND_CPU ? "cpu" : "wall", u->state, (unsigned long long)w,
                    st[u->stack][depth[u->stack] - 1], (unsigned long long)span,
                    (unsigned long long)root);
            if (n % 4096 == 0 && fplgen_flush(&G.g))
                G.failed = 1;
        }
    }
    fprintf(f, "\n],\"contexts\":[");
    for (size_t c = 0; c < sizeof(span_ctx) / sizeof(span_ctx[0]); c++) {
        fplgen_endpoint(&G.g, span_ctx[c].root, span_ctx[c].endpoint); /* after the samples */
        fprintf(f, "%s[\"%llu\",\"%llu\",\"%s\"]", c ? "," : "",
                (unsigned long long)span_ctx[c].span, (unsigned long long)span_ctx[c].root,
                span_ctx[c].endpoint);
    }
    fprintf(f, "]}\n");
    fplgen_end(&G.g, ANCHOR + 4000 * MS);
    snprintf(path, sizeof(path), "%s/spans.fpl", dir);
    int rc = fclose(f) != 0;
    rc = rc || G.failed || fplgen_flush(&G.g) || fplgen_save(&G.g, path);
    gen_destroy(&G);
    if (rc)
        fprintf(stderr, "test_timeline: writing the requests' log into %s failed\n", dir);
    return rc;
}

/* A STALL record (FORMAT.md 5.13) of probe (enum fpl_probe), [start, end) ns after the
 * start. */
static void gen_stall(struct gen *G, uint64_t probe, uint64_t start, uint64_t end)
{
    struct fpl_buf b = {0};
    fpl_put_v(&b, probe);
    fpl_put_u8(&b, 0);
    fpl_put_u64(&b, ANCHOR + start);
    fpl_put_u64(&b, ANCHOR + end);
    fpl_put_v(&b, 0);
    fpl_put_v(&b, 0);
    fpl_put_v(&b, 0);
    fpl_put_v(&b, 0);
    fplgen_record(&G->g, FPL_REC_STALL, b.data, b.len);
    fpl_buf_free(&b);
}

/* Writes layout.fpl into dir: a service's 6 s as the page's layout test (tests/browser/
 * test_html_layout.py) sees it, under a long command line: eight busy threads http-1..8, each
 * on CPU every 10 ms (half of them 40 frames deep) and sampled every 50 ms in every state in
 * turn (running, blocked, waiting, timed_waiting, parked, sleeping, native, a second each,
 * shifted by thread); the Notification Thread blocked in the VM without Java frames
 * (jvm_idle); hiccup mode's GC pauses, both probes' stalls and their two threads on CPU. 0, or
 * 1 on failure. */
static int write_layout(const char *dir)
{
    static const char *const work[] = {"demo.Http.run", "demo.Orders.handle", "demo.Json.parse"};
    static const char *const wait[8][3] = {
        {"demo.Http.run", "demo.Orders.handle", "demo.Orders.price"},
        {"demo.Http.run", "demo.Stats.record", "demo.Stats.lock"},
        {"demo.Http.run", "demo.Queue.take", "java.lang.Object.wait"},
        {"demo.Http.run", "demo.Queue.poll", "java.lang.Object.wait"},
        {"demo.Http.run", "demo.Pool.acquire", "jdk.internal.misc.Unsafe.park"},
        {"demo.Http.run", "demo.Reports.query", "java.lang.Thread.sleep"},
        {"demo.Http.run", "demo.Net.read", "sun.nio.ch.SocketDispatcher.read0"},
    };
    static const uint8_t states[7] = {FPL_STATE_RUNNING,  FPL_STATE_BLOCKED, FPL_STATE_WAITING,
                                      FPL_STATE_TIMED_WAITING, FPL_STATE_PARKED,
                                      FPL_STATE_SLEEPING, FPL_STATE_NATIVE};
    char path[4096], name[32];
    struct gen G;
    memset(&G, 0, sizeof(G));
    mkdir(dir, 0755);
    if (fplgen_init(&G.g))
        return 1;
    gen_header(&G, "java -Xmx512m -cp /opt/shop/lib/shop.jar com.example.shop.OrderServer "
                   "--port 8080");
    for (uint64_t i = 1; i <= 8; i++) {
        snprintf(name, sizeof(name), "http-%llu", (unsigned long long)i);
        fplgen_thread(&G.g, i, 500 + i, name);
    }
    fplgen_thread(&G.g, 9, 509, "Notification Thread");
    fplgen_thread(&G.g, 10, 510, "flyprof hiccup java");
    fplgen_thread(&G.g, 11, 511, "flyprof hiccup os");
    gen_stack(&G, 1, 3, work);
    for (uint64_t k = 0; k < 7; k++)
        gen_stack(&G, 2 + k, 3, wait[k]);
    /* a parser's recursion, 40 frames deep: a flame graph taller than the window */
    uint64_t value = ++G.next_method;
    fplgen_method(&G.g, value, FPL_METHOD_JAVA, "demo.Json", "value", "()V", "", 0, NULL);
    struct reader_frame deep[40];
    for (size_t k = 0; k < 40; k++)
        deep[k] = (struct reader_frame){value, 3, FPL_FRAME_JAVA};
    fplgen_stack(&G.g, 21, 40, deep);
    uint64_t marker = ++G.next_method;
    fplgen_method(&G.g, marker, FPL_METHOD_MARKER, "", "[no_Java_frames]", "", "", 0, NULL);
    const struct reader_frame none[] = {{marker, -1, FPL_FRAME_MARKER}};
    fplgen_stack(&G.g, 20, 1, none);
    gen_gc(&G, 1500 * MS, 1580 * MS);
    gen_gc(&G, 4200 * MS, 4260 * MS);
    gen_stall(&G, FPL_PROBE_JAVA, 1490 * MS, 1590 * MS);
    gen_stall(&G, FPL_PROBE_OS, 3000 * MS, 3030 * MS);
    for (uint64_t t = 0; t < 6000 * MS; t += 10 * MS) {
        for (uint64_t i = 1; i <= 8; i++) {
            gen_sample(&G, t + 100 * i, i, i % 2 ? 1 : 21, FPL_KIND_CPU, FPL_STATE_RUNNING, 1,
                       0, 1);
            if (t % (50 * MS) == 0) {
                uint64_t k = (t / (1000 * MS) + i) % 7;
                gen_sample(&G, t + 100 * i + 50, i, 2 + k, FPL_KIND_WALL, states[k], 1, 0, 1);
            }
        }
        if (t % (50 * MS) == 0)
            gen_sample(&G, t + 900, 9, 20, FPL_KIND_WALL, FPL_STATE_BLOCKED, 1, 0, 1);
        if (t % (500 * MS) == 0) {
            gen_sample(&G, t + 950, 10, 20, FPL_KIND_CPU, FPL_STATE_RUNNING, 1, 0, 1);
            gen_sample(&G, t + 960, 11, 20, FPL_KIND_CPU, FPL_STATE_RUNNING, 1, 0, 1);
        }
    }
    fplgen_end(&G.g, ANCHOR + 6000 * MS);
    snprintf(path, sizeof(path), "%s/layout.fpl", dir);
    int rc = G.failed || fplgen_flush(&G.g) || fplgen_save(&G.g, path);
    gen_destroy(&G);
    if (rc)
        fprintf(stderr, "test_timeline: writing the layout log into %s failed\n", dir);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_fixture(argv[2]) || write_spans(argv[2]) || write_layout(argv[2]);
    if (argc > 1) {
        fprintf(stderr, "usage: test_timeline [--write DIR]\n");
        return 2;
    }
    test_model_exact();
    test_model_caps();
    test_model_requests();
    test_model_requests_cap();
    test_page_sums();
    test_page_cap();
    return harness_result("test_timeline");
}
