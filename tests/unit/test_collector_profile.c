/* test_collector_profile.c: aggregation, outputs and clock conversion on hand-built logs:
 * the golden log gives exact folded text (with and without threads, per kind), method
 * tables (self, total with recursion counted once), summary figures, and exact wall
 * upscaling by two ticks of different candidates / chosen; undefined ids render as
 * placeholders; ticks convert exactly with 128-bit arithmetic and anchor refinement; wall
 * samples find their tick whichever comes first, and a lost or impossible tick scales by 1. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fpl_format.h"
#include "fplgen.h"
#include "fplgen_profile.h"
#include "golden_log.h"
#include "harness.h"
#include "out_collapsed.h"
#include "profile.h"
#include "summary.h"

static struct profile *load(struct fplgen *g)
{
    return fplgen_profile(g, "golden.fpl");
}

static struct profile *load_golden(int with_end)
{
    struct fplgen g;
    struct profile *p = NULL;
    if (fplgen_init(&g) == 0 && golden_log_build(&g, with_end) == 0)
        p = load(&g);
    fplgen_destroy(&g);
    return p;
}

/* Renders folded output into a malloc'd string. */
static char *collapsed(const struct profile *p, int kind, int threads)
{
    char *buf = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct out_collapsed_opts o = {kind, threads, 0};
    if (!f)
        return NULL;
    int rc = out_collapsed_write(p, &o, f, err, sizeof(err));
    fclose(f);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int same_text(const char *got, const char *want)
{
    if (got && strcmp(got, want) == 0)
        return 1;
    fprintf(stderr, "--- expected\n%s--- got\n%s---\n", want, got ? got : "(null)\n");
    return 0;
}

static void test_golden_collapsed(void)
{
    struct profile *p = load_golden(1);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_EQ_U(p->total[FPL_KIND_CPU].count, GOLDEN_CPU_SAMPLES);
    CHECK_EQ_U(p->total[FPL_KIND_CPU].weight, GOLDEN_CPU_WEIGHT);
    CHECK_EQ_U(p->total[FPL_KIND_WALL].count, GOLDEN_WALL_SAMPLES);
    CHECK(p->end_seen && p->have_header);
    CHECK_EQ_U(profile_resolve_kind(p, PROFILE_KIND_AUTO), FPL_KIND_CPU);

    char *s = collapsed(p, PROFILE_KIND_AUTO, 0);
    CHECK(same_text(s, GOLDEN_CPU));
    free(s);
    s = collapsed(p, FPL_KIND_CPU, 1);
    CHECK(same_text(s, GOLDEN_CPU_THREADS));
    free(s);
    s = collapsed(p, FPL_KIND_WALL, 0);
    CHECK(same_text(s, GOLDEN_WALL));
    free(s);
    /* all kinds: every line under its kind's root, the cpu lines first, weighed in ns (CPU
     * weight x 10 ms, upscaled wall weight x 50 ms) so that the two kinds add up */
    s = collapsed(p, PROFILE_KIND_ALL, 0);
    CHECK(s && strncmp(s, "[cpu];[agct:unknown_Java] 10000000\n", 35) == 0);
    CHECK(s && strstr(s, "\n[wall];java.lang.Thread.run;java.lang.Thread.sleep0 437500000\n"));
    size_t lines = 0;
    for (const char *q = s; q && *q; q++)
        lines += *q == '\n';
    CHECK_EQ_U(lines, 8);
    free(s);
    profile_free(p);
}

/* The golden log's wall samples, upscaled exactly (the scales 3.5 and 2.25 are exact in
 * binary fixed point): per cell, per kind, and the tick statistics. */
static void test_golden_wall(void)
{
    struct profile *p = load_golden(1);
    CHECK(p != NULL);
    if (!p)
        return;
    const unsigned __int128 quarter = PROFILE_FP_ONE / 4;
    const struct profile_total *w = &p->total[FPL_KIND_WALL];
    CHECK_EQ_U(w->count, GOLDEN_WALL_SAMPLES);
    CHECK_EQ_U(w->weight, GOLDEN_WALL_SAMPLES);
    CHECK(w->upscaled == (GOLDEN_WALL_SLEEP_X4 + GOLDEN_WALL_RUN_X4) * quarter);
    /* CPU is never upscaled, not even the sample that carries a tick id */
    CHECK(p->total[FPL_KIND_CPU].upscaled == (unsigned __int128)GOLDEN_CPU_WEIGHT
                                                 << PROFILE_FP_SHIFT);
    int cells = 0;
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kind == FPL_KIND_CPU) {
            CHECK(e->upscaled == (unsigned __int128)e->weight << PROFILE_FP_SHIFT);
            continue;
        }
        cells++;
        if (e->thread_id == 2) {
            CHECK_EQ_U(e->stack_id, 4);
            CHECK_EQ_U(e->weight, 5);
            CHECK(e->upscaled == GOLDEN_WALL_SLEEP_X4 * quarter);
        } else {
            CHECK_EQ_U(e->thread_id, 1);
            CHECK_EQ_U(e->weight, 2);
            CHECK(e->upscaled == GOLDEN_WALL_RUN_X4 * quarter);
        }
    }
    CHECK_EQ_U(cells, 2);
    CHECK_EQ_U(p->wall.ticks, GOLDEN_WALL_TICKS);
    CHECK_EQ_U(p->wall.candidates, 7 + 9);
    CHECK_EQ_U(p->wall.chosen, 2 + 4);
    CHECK_EQ_U(p->wall.signaled, 2 + 3);
    CHECK_EQ_U(p->wall.failed, 1);
    CHECK_EQ_U(p->wall.scaled, 4);
    CHECK_EQ_U(p->wall.no_tick, 2);
    CHECK_EQ_U(p->wall.unknown_tick, 1);
    CHECK_EQ_U(p->wall.bad_tick + p->wall.duplicate_ticks, 0);
    CHECK_EQ_U(profile_fp_round(w->upscaled), 15); /* 14.5, halves up */
    profile_free(p);
}

static void test_golden_methods(void)
{
    struct summary_method m[SUMMARY_TOP];
    size_t n = 0;
    struct profile *p = load_golden(1);
    CHECK(p != NULL);
    if (!p)
        return;

    CHECK(summary_top_methods(p, FPL_KIND_CPU, 0, m, SUMMARY_TOP, &n) == 0);
    static const char *const self_names[] = {
        "com.example.App.hash", "com.example.App.fib", "com.example.App.work",
        "[agct:unknown_Java]",  "[unknown stack]",     "os::javaTimeNanos",
    };
    static const uint64_t self_w[] = {5, 4, 3, 1, 1, 1};
    CHECK_EQ_U(n, 6);
    for (size_t i = 0; i < n && i < 6; i++) {
        CHECK(strcmp(m[i].name, self_names[i]) == 0);
        CHECK_EQ_U(m[i].weight, self_w[i]);
    }

    CHECK(summary_top_methods(p, FPL_KIND_CPU, 1, m, SUMMARY_TOP, &n) == 0);
    CHECK(n >= 4);
    CHECK(strcmp(m[0].name, "com.example.App.main") == 0 && m[0].weight == 9);
    CHECK(strcmp(m[1].name, "com.example.App.work") == 0 && m[1].weight == 8);
    CHECK(strcmp(m[2].name, "com.example.App.hash") == 0 && m[2].weight == 5);
    /* fib recurses three deep in 4 samples: counted once per sample */
    uint64_t fib = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(m[i].name, "com.example.App.fib") == 0)
            fib = m[i].weight;
    CHECK_EQ_U(fib, 4);
    /* the table is cut at max */
    CHECK(summary_top_methods(p, FPL_KIND_CPU, 1, m, 2, &n) == 0);
    CHECK_EQ_U(n, 2);
    /* wall tables rank upscaled weights: sleep0 8.75 (5 samples), hash 5.75 (2 samples) */
    CHECK(summary_top_methods(p, FPL_KIND_WALL, 0, m, SUMMARY_TOP, &n) == 0);
    CHECK_EQ_U(n, 2);
    CHECK(n == 2 && strcmp(m[0].name, "java.lang.Thread.sleep0") == 0);
    CHECK(n == 2 && m[0].weight == 9 && m[0].exact == 8.75);
    CHECK(n == 2 && strcmp(m[1].name, "com.example.App.hash") == 0);
    CHECK(n == 2 && m[1].weight == 6 && m[1].exact == 5.75);
    CHECK(summary_top_methods(p, FPL_KIND_WALL, 1, m, SUMMARY_TOP, &n) == 0);
    CHECK(n >= 1 && strcmp(m[0].name, "java.lang.Thread.run") == 0 && m[0].exact == 8.75);
    profile_free(p);
}

static void test_golden_summary(void)
{
    char *buf = NULL, err[256];
    size_t len = 0;
    struct profile *p = load_golden(1);
    CHECK(p != NULL);
    if (!p)
        return;

    /* the start time is printed in local time: pin the zone */
    setenv("TZ", "UTC", 1);
    tzset();
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    if (!f) {
        profile_free(p);
        return;
    }
    CHECK(summary_write(p, "golden.fpl", f, err, sizeof(err)) == 0);
    fclose(f);
    static const char *const want[] = {
        "flyprof summary of golden.fpl\n",
        "  jvm          OpenJDK 64-Bit Server VM 21.0.2+13\n",
        "  command      java -jar app.jar\n",
        "  pid          4242\n",
        "  started      2023-11-14T22:13:20.000+00:00\n",
        "  duration     2.000 s (start to END)\n",
        "cpu every 10 ms (engine cputimer), wall every 50 ms (16 threads per tick)",
        "  cpu           14 samples, weight 15 (0.150 s of CPU at 10 ms), 7.14% failed stack "
        "walks (failure marker)\n",
        "  wall           7 samples, weight 7, upscaled 14.50 (0.725 thread-seconds at 50 ms), "
        "0.00% failed stack walks (failure marker)\n",
        "  wall by thread state (upscaled): running 39.7% sleeping 60.3%\n",
        "  wall ticks: 2, on average 8.00 candidate threads and 3.00 chosen per tick; 5 threads "
        "signaled, 1 signals failed\n",
        "  wall upscaling: 4 samples scaled by candidates / chosen of their tick, 2 without a "
        "tick (x1), 1 whose tick was lost (x1)\n",
        "hottest methods, wall, by self upscaled weight (of 15)\n",
        "           9  60.34%  java.lang.Thread.sleep0\n",
        "threads, wall (2 with samples), by upscaled weight\n",
        "           9  60.34%          5      101  pool-1_worker_2\n",
        "           6  39.66%          2      100  main\n",
        "1 samples with an unknown stack, 1 with an unknown frame, 1 with an unknown thread\n",
        "  stack walks failed: 1 (7.14% of samples pushed)\n",
        "    unknown_Java                    1  (AGCT -5)\n",
        "  ring drops: 3 (17.65% of samples taken)\n",
        "  signals on threads without a JNIEnv: 2\n",
        "hottest methods, cpu, by self weight (of 15)\n",
        "           5  33.33%  com.example.App.hash\n",
        "hottest methods, cpu, by total weight (of 15)\n",
        "           9  60.00%  com.example.App.main\n",
        "           4  26.67%  com.example.App.fib\n",
        "threads, cpu (3 with samples)\n",
        "           9  60.00%          8      100  main\n",
        "           5  33.33%          5      101  pool-1_worker_2\n",
        "           1   6.67%          1        -  [unknown thread]\n",
        "  signal handler: p50 992 ns, p99 1 us, max 1 us, mean 990 ns over 100 runs",
        "  writer thread CPU: 20 ms (1.000% of the 2.000 s duration)\n",
        "  chunks: 2 read\n",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        int ok = buf && strstr(buf, want[i]);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "missing: [%s]\n", want[i]);
    }
    CHECK(buf && !strstr(buf, "END record missing"));
    if (harness_fail)
        fprintf(stderr, "--- summary\n%s", buf ? buf : "");
    free(buf);
    profile_free(p);

    /* without END: the duration spans the samples and the cut is reported */
    p = load_golden(0);
    CHECK(p != NULL && !p->end_seen);
    buf = NULL;
    f = p ? open_memstream(&buf, &len) : NULL;
    if (f) {
        CHECK(summary_write(p, "cut.fpl", f, err, sizeof(err)) == 0);
        fclose(f);
        CHECK(buf && strstr(buf, "log cut off: END record missing"));
        CHECK(buf && strstr(buf, "(first to last sample)"));
    }
    free(buf);
    profile_free(p);
}

/* Scales that are not exact in binary round each term to the nearest 2^-32 and still sum
 * to the right integer; a tick written after its samples (even chunks later) or never
 * written, one with impossible counts, and a repeated tick id are each handled as
 * FORMAT.md says. */
static void test_wall_scaling(void)
{
    const struct reader_frame f[] = {{1, 0, 0}};
    struct fplgen g;
    CHECK(fplgen_init(&g) == 0);
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "a.B", "c", "()V", "", 0, NULL);
    fplgen_stack(&g, 1, 1, f);
    fplgen_stack(&g, 2, 1, f);
    fplgen_stack(&g, 3, 1, f);
    fplgen_stack(&g, 4, 1, f);
    fplgen_stack(&g, 5, 1, f);
    fplgen_wall_tick(&g, 1, 0, 10, 3, 3, 0); /* 10/3: not exact in binary */
    for (int i = 0; i < 3; i++)
        fplgen_sample_tick(&g, 1, 1, 1, 1, FPL_KIND_WALL, FPL_STATE_RUNNING, 1);
    fplgen_wall_tick(&g, 2, 0, 3, 4, 4, 0);  /* chosen above candidates: scale 1 */
    fplgen_wall_tick(&g, 3, 0, 0, 0, 0, 0);  /* nothing chosen: scale 1 */
    fplgen_wall_tick(&g, 1, 0, 99, 1, 1, 0); /* a repeated id: the first definition stands */
    fplgen_sample_tick(&g, 2, 1, 2, 1, FPL_KIND_WALL, FPL_STATE_RUNNING, 2);
    fplgen_sample_tick(&g, 3, 1, 2, 1, FPL_KIND_WALL, FPL_STATE_RUNNING, 3);
    fplgen_sample_tick(&g, 4, 1, 1, 3, FPL_KIND_WALL, FPL_STATE_RUNNING, 1); /* weight 3: 10 */
    /* 600 samples of tick 4 before its record, which comes two chunks later: they wait */
    for (int i = 0; i < 600; i++)
        fplgen_sample_tick(&g, 5, 1, 3, 1, FPL_KIND_WALL, FPL_STATE_RUNNING, 4);
    CHECK(fplgen_flush(&g) == 0);
    fplgen_sample_tick(&g, 6, 1, 4, 2, FPL_KIND_WALL, FPL_STATE_RUNNING, 5); /* never written */
    fplgen_sample_tick(&g, 6, 1, 5, 2, FPL_KIND_CPU, FPL_STATE_RUNNING, 5);  /* CPU: ignored */
    CHECK(fplgen_flush(&g) == 0);
    /* many ticks, each answered by a sample before its record, so the queue of waiting
     * samples fills, is cleared and must not lose any */
    for (uint64_t t = 100; t < 1100; t++) {
        fplgen_sample_tick(&g, 7, 1, 5, 1, FPL_KIND_WALL, FPL_STATE_SLEEPING, t);
        fplgen_wall_tick(&g, t, 0, 8, 2, 2, 0); /* scale 4 */
    }
    fplgen_wall_tick(&g, 4, 0, 5, 2, 2, 0); /* 2.5 */
    CHECK(fplgen_flush(&g) == 0);
    struct profile *p = load(&g);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_EQ_U(p->wall.ticks, 1004);
    CHECK_EQ_U(p->wall.duplicate_ticks, 1);
    CHECK_EQ_U(p->wall.candidates, 10 + 3 + 0 + 5 + 1000 * 8);
    CHECK_EQ_U(p->wall.scaled, 3 + 1 + 600 + 1000);
    CHECK_EQ_U(p->wall.bad_tick, 2);
    CHECK_EQ_U(p->wall.unknown_tick, 1);
    CHECK_EQ_U(p->wall.no_tick, 0);
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        unsigned __int128 one = PROFILE_FP_ONE;
        if (e->kind == FPL_KIND_CPU) {
            CHECK(e->upscaled == 2 * one);
        } else if (e->stack_id == 1) {
            /* 3 x 1 x 10/3 + 3 x 10/3 = 20: each weight-1 term is rounded down by a third of
             * 2^-32, the weight-3 term is exact */
            CHECK(e->upscaled == 20 * one - 1);
            CHECK_EQ_U(profile_fp_round(e->upscaled), 20);
        } else if (e->stack_id == 2) {
            CHECK(e->upscaled == 2 * one);
        } else if (e->stack_id == 3) {
            CHECK(e->upscaled == 1500 * one);
        } else if (e->stack_id == 4) {
            CHECK(e->upscaled == 2 * one);
        } else {
            CHECK(e->upscaled == 4000 * one);
        }
    }
    char *s = collapsed(p, FPL_KIND_WALL, 0);
    CHECK(same_text(s, "a.B.c 5524\n"));
    free(s);
    profile_free(p);

    CHECK_EQ_U(profile_fp_round(PROFILE_FP_ONE / 2), 1);
    CHECK_EQ_U(profile_fp_round(PROFILE_FP_ONE / 2 - 1), 0);
    CHECK_EQ_U(profile_fp_round(~(unsigned __int128)0), UINT64_MAX);
    CHECK(profile_fp_scale(UINT64_MAX, UINT64_MAX, 1) == ~(unsigned __int128)0);
    CHECK(profile_fp_scale(UINT64_MAX, 2, 2) == (unsigned __int128)UINT64_MAX << 32);
    CHECK(profile_fp_scale(1, 2, 3) == (2 * PROFILE_FP_ONE + 1) / 3);
}

static void test_quantiles(void)
{
    struct profile *p = profile_new();
    CHECK(p != NULL);
    if (!p)
        return;
    p->have_hist = 1;
    /* 100 runs in the bucket of 1000 ns: [960, 1024); max 1000 */
    unsigned b = fpl_hist_bucket(1000);
    CHECK_EQ_U(fpl_hist_lower(b), 960);
    CHECK_EQ_U(fpl_hist_lower(b + 1), 1024);
    p->hist[b] = 100;
    p->hist_max_ns = 1000;
    CHECK_EQ_U(summary_hist_quantile(p, 0.5), 992);
    CHECK_EQ_U(summary_hist_quantile(p, 0.99), 1000); /* clamped to the maximum */
    /* 90 fast runs at 100 ns and 10 slow ones at 10 us: the median is fast, p99 slow */
    memset(p->hist, 0, sizeof(p->hist));
    p->hist[fpl_hist_bucket(100)] = 90;
    p->hist[fpl_hist_bucket(10000)] = 10;
    p->hist_max_ns = 10000;
    uint64_t p50 = summary_hist_quantile(p, 0.5), p99 = summary_hist_quantile(p, 0.99);
    CHECK(p50 >= 96 && p50 < 104);
    CHECK(p99 >= 9216 && p99 <= 10000);
    /* exact buckets below 16 ns */
    memset(p->hist, 0, sizeof(p->hist));
    p->hist[7] = 10;
    p->hist_max_ns = 7;
    CHECK_EQ_U(summary_hist_quantile(p, 0.5), 7);
    p->have_hist = 0;
    CHECK_EQ_U(summary_hist_quantile(p, 0.5), 0);
    profile_free(p);
}

static void test_time(void)
{
    const uint64_t base = 1ull << 62, tps = 3000000000ull, true_tps = 3003000000ull;
    struct fplgen_header h = {.ticks_per_sec = tps,
                              .anchor_ticks = base,
                              .anchor_mono_ns = 1000000000ull,
                              .anchor_real_ns = 5000000000ull,
                              .options = "",
                              .jvm_name = "",
                              .jvm_version = "",
                              .command = ""};
    struct fplgen g;

    /* header only: the header's frequency */
    CHECK(fplgen_init(&g) == 0);
    fplgen_header(&g, &h);
    CHECK(fplgen_flush(&g) == 0);
    struct profile *p = load(&g);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (p) {
        CHECK(p->time_known && !p->time_refined);
        CHECK_EQ_U(profile_ticks_to_ns(p, tps), 1000000000ull);
        CHECK_EQ_U(profile_ticks_to_real_ns(p, base + 3 * tps), 8000000000ull);
        CHECK_EQ_U(profile_ticks_to_real_ns(p, base - tps), 4000000000ull);
        /* 2^62 ticks * 1e9 overflows 64 bits; the exact value is 2^62 / 3 */
        CHECK_EQ_U(profile_ticks_to_ns(p, base),
                   (uint64_t)(((unsigned __int128)base * 1000000000u) / tps));
        CHECK_EQ_U(profile_ticks_to_ns(p, UINT64_MAX),
                   (uint64_t)(((unsigned __int128)UINT64_MAX * 1000000000u) / tps));
    }
    profile_free(p);

    /* a later anchor 100 s away measures the true frequency; one 0.5 s away does not */
    for (int far = 0; far < 2; far++) {
        uint64_t secs = far ? 100 : 0;
        uint64_t dt = far ? secs * true_tps : true_tps / 2;
        uint64_t dm = far ? secs * 1000000000ull : 500000000ull;
        CHECK(fplgen_init(&g) == 0);
        fplgen_header(&g, &h);
        fplgen_anchor(&g, base + dt / 2, 1000000000ull + dm / 2, 0);
        fplgen_anchor(&g, base + dt, 1000000000ull + dm, 0);
        CHECK(fplgen_flush(&g) == 0);
        p = load(&g);
        fplgen_destroy(&g);
        CHECK(p != NULL);
        if (!p)
            continue;
        CHECK_EQ_U(p->anchors, 2);
        CHECK_EQ_U(p->time_refined, far);
        CHECK_EQ_U(profile_ticks_to_ns(p, true_tps), far ? 1000000000ull : 1001000000ull);
        double f = profile_ticks_per_sec(p);
        CHECK(far ? (f > true_tps - 1.0 && f < true_tps + 1.0) : (f > tps - 1.0 && f < tps + 1.0));
        profile_free(p);
    }

    /* no header: two anchors far apart are enough */
    CHECK(fplgen_init(&g) == 0);
    fplgen_anchor(&g, 1000, 0, 7000000000ull);
    fplgen_anchor(&g, 1000 + 10 * tps, 10000000000ull, 17000000000ull);
    CHECK(fplgen_flush(&g) == 0);
    p = load(&g);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (p) {
        CHECK(p->time_known && !p->have_header);
        CHECK_EQ_U(profile_ticks_to_ns(p, tps), 1000000000ull);
        CHECK_EQ_U(profile_ticks_to_real_ns(p, 1000 + tps), 8000000000ull);
    }
    profile_free(p);
}

/* Names that would break a folded line are cleaned; a redefined id replaces the entry; a
 * log whose dictionaries are all missing still renders. */
static void test_names(void)
{
    char out[32];
    CHECK_EQ_U(profile_clean(out, sizeof(out), "a;b\nc\rd\te", 9), 9);
    CHECK(strcmp(out, "a_b_c_d_e") == 0);
    CHECK_EQ_U(profile_clean(out, 4, "abcdef", 6), 3);
    CHECK(strcmp(out, "abc") == 0);

    struct fplgen g;
    const struct reader_frame f[] = {{1, 0, 0}, {2, 0, 0}};
    CHECK(fplgen_init(&g) == 0);
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "a.B", "old", "()V", "", 0, NULL);
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "a.B", "new;x", "()V", "", 0, NULL);
    fplgen_method(&g, 2, FPL_METHOD_JAVA, "", "noClass", "()V", "", 0, NULL);
    fplgen_thread(&g, 1, 9, "t");
    fplgen_record(&g, FPL_REC_THREAD,
                  "\x02\x03\x03"
                  "a\0b",
                  6); /* thread 2 "a\0b": a NUL inside */
    fplgen_stack(&g, 1, 2, f);
    fplgen_sample(&g, 1, 1, 1, 1, FPL_KIND_WALL, FPL_STATE_RUNNING);
    fplgen_sample(&g, 2, 2, 1, 1, FPL_KIND_WALL, FPL_STATE_RUNNING);
    fplgen_sample(&g, 3, 2, 1, 1, 9, FPL_STATE_RUNNING); /* unknown kind */
    CHECK(fplgen_flush(&g) == 0);
    struct profile *p = load(&g);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_U(p->nmethods, 2);
        CHECK_EQ_U(p->unknown_kind_samples, 1);
        CHECK_EQ_U(profile_resolve_kind(p, PROFILE_KIND_AUTO), FPL_KIND_WALL);
        char *s = collapsed(p, PROFILE_KIND_AUTO, 1);
        CHECK(same_text(s, "a_b;noClass;a.B.new_x 1\n"
                           "t;noClass;a.B.new_x 1\n"));
        free(s);
    }
    profile_free(p);

    /* only samples: every reference is undefined */
    CHECK(fplgen_init(&g) == 0);
    fplgen_sample(&g, 1, 5, 6, 2, FPL_KIND_CPU, 0);
    CHECK(fplgen_flush(&g) == 0);
    p = load(&g);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (p) {
        char *s = collapsed(p, PROFILE_KIND_AUTO, 1);
        CHECK(same_text(s, "[unknown thread];[unknown stack] 2\n"));
        free(s);
        char *buf = NULL, err[128];
        size_t len;
        FILE *mf = open_memstream(&buf, &len);
        if (mf) {
            CHECK(summary_write(p, "bare", mf, err, sizeof(err)) == 0);
            fclose(mf);
            CHECK(buf && strstr(buf, "header       missing"));
            CHECK(buf && strstr(buf, "duration     unknown"));
        }
        free(buf);
    }
    profile_free(p);
}

/* Many distinct cells force the aggregation table through several resizes. */
static void test_many_cells(void)
{
    struct fplgen g;
    const struct reader_frame f[] = {{1, 0, 0}};
    uint64_t n = 0;

    CHECK(fplgen_init(&g) == 0);
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "a.B", "c", "()V", "", 0, NULL);
    for (uint64_t s = 0; s < 3000; s++)
        fplgen_stack(&g, s, 1, f);
    CHECK(fplgen_flush(&g) == 0);
    for (int round = 0; round < 3; round++) {
        for (uint64_t s = 0; s < 3000; s++) {
            fplgen_sample(&g, n, s % 7, s, 1 + s % 3, FPL_KIND_CPU, (uint8_t)(s % 8));
            n++;
        }
        CHECK(fplgen_flush(&g) == 0);
    }
    struct profile *p = load(&g);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_U(p->nentries, 3000);
        CHECK_EQ_U(p->total[FPL_KIND_CPU].count, 9000);
        CHECK_EQ_U(p->total[FPL_KIND_CPU].weight, 3 * (1000 * 1 + 1000 * 2 + 1000 * 3));
        uint64_t w = 0;
        for (size_t i = 0; i < p->nentries; i++) {
            w += p->entries[i].weight;
            CHECK(p->entries[i].count == 3);
        }
        CHECK_EQ_U(w, 18000);
        char *s = collapsed(p, FPL_KIND_CPU, 0);
        CHECK(same_text(s, "a.B.c 18000\n"));
        free(s);
    }
    profile_free(p);
}

/* A failed stack walk is a failed walk wherever its marker is: alone, or the root-most frame
 * below the native frames the agent walked first (cstack=auto). A summary that looked only at
 * the leaf said 0.00% (text) and failed_samples 0 (--json) for a profile whose counters said
 * 6% of the walks failed. [no_Java_frames] below native frames and a [truncated] root are not
 * failures. */
static void test_failed_walks(void)
{
    struct fplgen g;
    char *buf = NULL, *js = NULL, err[256];
    size_t len = 0, jlen = 0;
    const struct fplgen_header h = {
        .pid = 7,
        .clock = FPL_CLOCK_TSC,
        .ticks_per_sec = GOLDEN_TPS,
        .anchor_ticks = GOLDEN_ANCHOR_TICKS,
        .anchor_real_ns = GOLDEN_REAL_NS,
        .cpu_interval_ns = 1000000,
        .engine = FPL_ENGINE_CPUTIMER,
        .wall_interval_ns = 5000000,
        .wall_threads = 16,
        .depth = 2048,
        .options = "cpu=1ms,wall=5ms",
        .jvm_name = "VM",
        .jvm_version = "17",
        .command = "java Mon",
    };
    /* leaf first: pthread_cond_signal < ObjectMonitor::exit < complete_monitor_unlocking_C,
     * then the marker where the Java frames would be */
    const struct reader_frame lost[] = {{4, -1, FPL_FRAME_NATIVE},
                                        {3, -1, FPL_FRAME_NATIVE},
                                        {2, -1, FPL_FRAME_NATIVE},
                                        {5, -1, FPL_FRAME_MARKER}};
    const struct reader_frame alone[] = {{6, -1, FPL_FRAME_MARKER}};
    const struct reader_frame java[] = {{4, -1, FPL_FRAME_NATIVE}, {1, 3, FPL_FRAME_COMPILED}};
    const struct reader_frame cut[] = {{1, 3, FPL_FRAME_COMPILED}, {8, -1, FPL_FRAME_MARKER}};
    const struct reader_frame service[] = {{4, -1, FPL_FRAME_NATIVE}, {7, -1, FPL_FRAME_MARKER}};
    const uint64_t ms = GOLDEN_TPS / 1000;
    uint64_t t = GOLDEN_ANCHOR_TICKS;
    CHECK(fplgen_init(&g) == 0);
    fplgen_header(&g, &h);
    fplgen_thread(&g, 1, 100, "mon-0");
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "Mon", "round", "(J)J", "Mon.java", 0, NULL);
    fplgen_method(&g, 2, FPL_METHOD_CFUNC, "libjvm.so",
                  "SharedRuntime::complete_monitor_unlocking_C", "", "", 0, NULL);
    fplgen_method(&g, 3, FPL_METHOD_CFUNC, "libjvm.so", "ObjectMonitor::exit", "", "", 0, NULL);
    fplgen_method(&g, 4, FPL_METHOD_CFUNC, "libc.so.6", "pthread_cond_signal", "", "", 0, NULL);
    fplgen_method(&g, 5, FPL_METHOD_MARKER, "", "[agct:unknown_Java]", "", "", 0, NULL);
    fplgen_method(&g, 6, FPL_METHOD_MARKER, "", "[agct:not_walkable_Java]", "", "", 0, NULL);
    fplgen_method(&g, 7, FPL_METHOD_MARKER, "", "[no_Java_frames]", "", "", 0, NULL);
    fplgen_method(&g, 8, FPL_METHOD_MARKER, "", "[truncated]", "", "", 0, NULL);
    fplgen_stack(&g, 1, 4, lost);
    fplgen_stack(&g, 2, 1, alone);
    fplgen_stack(&g, 3, 2, java);
    fplgen_stack(&g, 4, 2, cut);
    fplgen_stack(&g, 5, 2, service);
    /* cpu: 2 lost below native frames, 1 lost alone, 4 walked, 1 cut at depth: 3 of 8 */
    for (int i = 0; i < 2; i++)
        fplgen_sample(&g, t += ms, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(&g, t += ms, 1, 2, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    for (int i = 0; i < 4; i++)
        fplgen_sample(&g, t += ms, 1, 3, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(&g, t += ms, 1, 4, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    /* wall: 1 lost below native frames, 2 walked, 1 without Java frames: 1 of 4 */
    fplgen_sample(&g, t += ms, 1, 1, 1, FPL_KIND_WALL, FPL_STATE_RUNNING);
    for (int i = 0; i < 2; i++)
        fplgen_sample(&g, t += ms, 1, 3, 1, FPL_KIND_WALL, FPL_STATE_RUNNING);
    fplgen_sample(&g, t += ms, 1, 5, 1, FPL_KIND_WALL, FPL_STATE_RUNNING);
    fplgen_end(&g, t + ms);
    CHECK(fplgen_flush(&g) == 0);
    struct profile *p = load(&g);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (!p)
        return;
    FILE *f = open_memstream(&buf, &len);
    FILE *fj = open_memstream(&js, &jlen);
    CHECK(f && fj);
    if (f) {
        CHECK(summary_write(p, "lost.fpl", f, err, sizeof(err)) == 0);
        fclose(f);
    }
    if (fj) {
        CHECK(summary_write_json(p, "lost.fpl", NULL, fj, err, sizeof(err)) == 0);
        fclose(fj);
    }
    static const char *const want[] = {
        "weight 8 (0.008 s of CPU at 1 ms), 37.50% failed stack walks (failure marker)\n",
        "upscaled 4.00 (0.020 thread-seconds at 5 ms), 25.00% failed stack walks (failure "
        "marker)\n",
        "\"failed_samples\":3,\"failed\":{\"[agct:unknown_Java]\":2,"
        "\"[agct:not_walkable_Java]\":1}}",
        "\"failed_samples\":1,\"failed\":{\"[agct:unknown_Java]\":1}}",
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const char *in = i < 2 ? buf : js;
        int ok = in && strstr(in, want[i]);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "missing: [%s]\n", want[i]);
    }
    if (harness_fail)
        fprintf(stderr, "--- summary\n%s--- json\n%s", buf ? buf : "", js ? js : "");
    free(buf);
    free(js);
    profile_free(p);
}

/* One small log for test_merge: thread 1 "main" runs stack 1 = a.B.m (method 1) or, with
 * other, x.Y.n (the same ids, other names); weight w; counters: samples pushed w, the CPU
 * signal 34; an END unless unended. start_s: its start in seconds of real time. */
static int merge_log(const char *path, int other, uint64_t w, uint64_t start_s, int unended)
{
    const uint64_t tps = 1000000000ull;
    struct fplgen_header h = {.ticks_per_sec = tps,
                              .anchor_ticks = start_s * tps,
                              .anchor_mono_ns = start_s * tps,
                              .anchor_real_ns = start_s * tps,
                              .cpu_interval_ns = 10000000ull,
                              .options = "cpu",
                              .jvm_name = "",
                              .jvm_version = "",
                              .command = ""};
    struct fplgen g;
    if (fplgen_init(&g) != 0)
        return -1;
    fplgen_header(&g, &h);
    fplgen_thread(&g, 1, 100, "main");
    fplgen_method(&g, 1, FPL_METHOD_JAVA, other ? "x.Y" : "a.B", other ? "n" : "m", "()V", "",
                  0, NULL);
    struct reader_frame fr = {1, -1, FPL_FRAME_JAVA};
    fplgen_stack(&g, 1, 1, &fr);
    for (uint64_t i = 0; i < w; i++)
        fplgen_sample(&g, (start_s + 1) * tps + i, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_UNKNOWN);
    struct reader_counter c[2] = {{FPL_CTR_SAMPLES, w}, {FPL_CTR_CPU_SIGNO, 34}};
    fplgen_counters(&g, 2, c);
    if (!unended)
        fplgen_end(&g, (start_s + 2) * tps);
    int rc = fplgen_flush(&g) == 0 && fplgen_save(&g, path) == 0 ? 0 : -1;
    fplgen_destroy(&g);
    return rc;
}

/* Several logs read as one profile: two logs whose ids mean different things stay apart
 * (before profile_read_files, the second log's stack 1 was the first's), their weights and
 * counts add up, a value that is not a count stays, a log without END makes the whole
 * incomplete, and a window placed by the first log's start finds the same moments in the
 * others. */
static void test_merge(void)
{
    char dir[] = "/tmp/flyprof-merge-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char a[64], b[64], c[64];
    snprintf(a, sizeof(a), "%s/a.fpl", dir);
    snprintf(b, sizeof(b), "%s/b.fpl", dir);
    snprintf(c, sizeof(c), "%s/c.fpl", dir);
    CHECK(merge_log(a, 0, 3, 1000, 0) == 0);
    CHECK(merge_log(b, 1, 5, 1010, 0) == 0);
    CHECK(merge_log(c, 0, 7, 1020, 1) == 0);
    char err[256];
    const char *ab[] = {a, b};
    struct profile *p = profile_new();
    CHECK(p && profile_read_files(p, ab, 2, err, sizeof(err)) == 0);
    if (p) {
        char *got = collapsed(p, FPL_KIND_CPU, 0);
        CHECK(same_text(got, "a.B.m 3\nx.Y.n 5\n"));
        free(got);
        CHECK_EQ_U(p->counters[FPL_CTR_SAMPLES], 8);
        CHECK_EQ_U(p->counters[FPL_CTR_CPU_SIGNO], 34);
        CHECK(p->end_seen);
        CHECK_EQ_U(p->stats.chunks_ok, 2);
        CHECK(strstr(p->name, "(and 1 more)") != NULL);
    }
    profile_free(p);

    const char *abc[] = {a, b, c};
    p = profile_new();
    CHECK(p && profile_read_files(p, abc, 3, err, sizeof(err)) == 0);
    if (p) {
        char *got = collapsed(p, FPL_KIND_CPU, 0);
        CHECK(same_text(got, "a.B.m 10\nx.Y.n 5\n"));
        free(got);
        CHECK(!p->end_seen); /* c has no END */
    }
    profile_free(p);

    /* 10.5 s to 21.5 s after a's start: b's samples (at 1011 s) and c's (1021 s), not a's */
    struct profile_time from = {PROFILE_TIME_REL, 10500000000ull};
    struct profile_time to = {PROFILE_TIME_REL, 21500000000ull};
    p = profile_new();
    CHECK(p && profile_set_window_times(p, &from, &to, err, sizeof(err)) == 0);
    CHECK(p && profile_read_files(p, abc, 3, err, sizeof(err)) == 0);
    if (p) {
        char *got = collapsed(p, FPL_KIND_CPU, 0);
        CHECK(same_text(got, "a.B.m 7\nx.Y.n 5\n"));
        free(got);
    }
    profile_free(p);

    const char *bad[] = {a, "/nonexistent/flyprof.fpl"};
    p = profile_new();
    CHECK(p && profile_read_files(p, bad, 2, err, sizeof(err)) != 0);
    CHECK(strstr(err, "/nonexistent/flyprof.fpl") != NULL);
    profile_free(p);
    unlink(a);
    unlink(b);
    unlink(c);
    rmdir(dir);
}

/* profile_want_kept: ALLOC, LOCK and LIVE samples one by one, in time order, each cell's
 * weights summing to the cell's; past the bound, a sample adds to its cell's last kept one
 * (a cell not kept yet still gets one), CPU and wall samples are never kept. */
static void test_kept(void)
{
    const struct reader_frame f[] = {{2, -1, FPL_FRAME_CLASS}, {1, 0, 0}};
    struct fplgen g;
    CHECK(fplgen_init(&g) == 0);
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "a.B", "c", "()V", "", 0, NULL);
    fplgen_method(&g, 2, FPL_METHOD_CLASS, "", "byte[]", "", "", 0, NULL);
    fplgen_stack(&g, 1, 2, f);
    fplgen_stack(&g, 2, 1, f + 1);
    /* ticks out of order: a lock sample is logged when its wait ends */
    fplgen_sample(&g, 50, 1, 1, 1000, FPL_KIND_ALLOC, FPL_STATE_RUNNING);
    fplgen_sample(&g, 10, 1, 1, 7000, FPL_KIND_LOCK, FPL_STATE_PARKED);
    fplgen_sample(&g, 30, 1, 2, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(&g, 20, 1, 1, 9000, FPL_KIND_LOCK, FPL_STATE_BLOCKED);
    fplgen_sample(&g, 40, 1, 1, 2000, FPL_KIND_ALLOC, FPL_STATE_RUNNING);
    /* the bound (4) is reached here: the next ones add to their cell's last kept sample */
    fplgen_sample(&g, 60, 1, 1, 3000, FPL_KIND_ALLOC, FPL_STATE_RUNNING);
    fplgen_sample(&g, 70, 1, 1, 11, FPL_KIND_LOCK, FPL_STATE_PARKED);
    fplgen_sample(&g, 5, 1, 1, 4096, FPL_KIND_LIVE, FPL_STATE_RUNNING); /* a new cell: kept */
    CHECK(fplgen_flush(&g) == 0);
    size_t len;
    uint8_t *data = fplgen_bytes(&g, &len);
    fplgen_destroy(&g);
    struct profile *p = profile_new();
    char err[256];
    CHECK(data && p);
    if (!data || !p) {
        free(data);
        profile_free(p);
        return;
    }
    profile_want_kept(p, 4);
    CHECK(profile_read_mem(p, data, len, "kept.fpl", err, sizeof(err)) == 0);
    free(data);
    CHECK_EQ_U(p->nkept, 5);
    CHECK_EQ_U(p->kept_merged, 2);
    static const uint64_t ticks[] = {5, 10, 20, 40, 50}, weight[] = {4096, 7011, 9000, 5000, 1000};
    for (size_t i = 0; i < p->nkept && i < 5; i++) {
        const struct profile_kept *k = &p->kept[i];
        CHECK_EQ_U(k->ticks, ticks[i]);
        CHECK_EQ_U(k->weight, weight[i]);
        CHECK(k->cell < p->nentries && p->entries[k->cell].kind >= FPL_KIND_ALLOC);
    }
    for (size_t c = 0; c < p->nentries; c++) {
        uint64_t sum = 0;
        for (size_t i = 0; i < p->nkept; i++)
            sum += p->kept[i].cell == c ? p->kept[i].weight : 0;
        CHECK_EQ_U(sum, p->entries[c].kind >= FPL_KIND_ALLOC ? p->entries[c].weight : 0);
    }
    profile_free(p);
}

int main(void)
{
    test_merge();
    test_golden_collapsed();
    test_golden_wall();
    test_golden_methods();
    test_wall_scaling();
    test_golden_summary();
    test_failed_walks();
    test_quantiles();
    test_time();
    test_names();
    test_many_cells();
    test_kept();
    return harness_result("test_collector_profile");
}
