/* test_starvation.c: CPU starvation (starvation.h) on logs built with fplgen, whose answers
 * are worked out by hand below: per-thread cpu and running wall time, the clamp at 0, threads
 * left out (CPU only, never RUNNING), upscaled wall samples, the wall tick period measured from
 * the ticks (ticks skipped by a late sampler make each sample stand for more time), the
 * interval used when there are too few ticks, the selection hook (also selecting nothing), a
 * log without wall samples, and the summary's text and JSON. Ticks are ns (ticks_per_sec 10^9). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpl_format.h"
#include "fplgen.h"
#include "harness.h"
#include "profile.h"
#include "starvation.h"
#include "summary.h"

#define MS 1000000ull
#define T0 1000000000ull

#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        double _a = (a), _b = (b);                                                                 \
        if (fabs(_a - _b) <= (tol)) {                                                              \
            harness_pass++;                                                                        \
        } else {                                                                                   \
            harness_fail++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK failed: %s ~ %s (%.6f != %.6f)\n", __FILE__, __LINE__,   \
                    #a, #b, _a, _b);                                                               \
        }                                                                                          \
    } while (0)

/* cpu=10ms, wall=20ms. Threads: A (tid 101) starved, B (102) not, C (103) CPU only (a GC
 * thread), D (104) wall samples sleeping only, E (105) more CPU than running wall time.
 * ticks: how many WALL_TICKs, spaced period ns apart (ids 1..ticks). */
static struct profile *build(unsigned ticks, uint64_t period, int wall)
{
    struct fplgen g;
    char err[512];
    if (fplgen_init(&g) != 0)
        return NULL;
    struct fplgen_header hd = {4242,
                               FPL_CLOCK_TSC,
                               1000000000ull,
                               T0,
                               5 * T0,
                               1700000000000000000ull,
                               10 * MS,
                               FPL_ENGINE_CPUTIMER,
                               wall ? 20 * MS : 0,
                               16,
                               64,
                               "cpu,wall",
                               "vm",
                               "17",
                               "Main"};
    fplgen_header(&g, &hd);
    struct reader_frame f = {1, 0, FPL_FRAME_JAVA};
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "A", "b", "()V", "A.java", 0, NULL);
    fplgen_stack(&g, 1, 1, &f);
    static const char *const names[] = {"A", "B", "C", "D", "E"};
    for (unsigned i = 0; i < 5; i++)
        fplgen_thread(&g, i + 1, 101 + i, names[i]);
    for (unsigned k = 1; k <= ticks; k++) { /* 4 candidates, 2 chosen: scale 2 */
        if (k != 6 || ticks < 12)           /* with 12 ticks or more, tick 6's record is lost */
            fplgen_wall_tick(&g, k, T0 + k * period, 4, 2, 2, 0);
    }
    uint64_t t = T0 + MS;
    /* A: cpu 10 x weight 3 = 300 ms; wall: 30 RUNNING samples of tick 1 (upscaled 60) */
    for (unsigned i = 0; i < 10; i++)
        fplgen_sample(&g, t++, 1, 1, 3, FPL_KIND_CPU, FPL_STATE_RUNNING);
    /* B: cpu 50 = 500 ms; wall: 25 RUNNING without a tick (scale 1), 40 SLEEPING */
    for (unsigned i = 0; i < 50; i++)
        fplgen_sample(&g, t++, 2, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    /* C: cpu 20 = 200 ms, no wall sample */
    for (unsigned i = 0; i < 20; i++)
        fplgen_sample(&g, t++, 3, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    /* E: cpu 4 = 40 ms; wall: 1 RUNNING (no tick) */
    for (unsigned i = 0; i < 4; i++)
        fplgen_sample(&g, t++, 5, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    if (wall) {
        for (unsigned i = 0; i < 30; i++)
            fplgen_sample_tick(&g, t++, 1, 1, 1, FPL_KIND_WALL, FPL_STATE_RUNNING, 1);
        for (unsigned i = 0; i < 25; i++)
            fplgen_sample(&g, t++, 2, 1, 1, FPL_KIND_WALL, FPL_STATE_RUNNING);
        for (unsigned i = 0; i < 40; i++)
            fplgen_sample(&g, t++, 2, 1, 1, FPL_KIND_WALL, FPL_STATE_SLEEPING);
        for (unsigned i = 0; i < 7; i++) /* D */
            fplgen_sample(&g, t++, 4, 1, 1, FPL_KIND_WALL, FPL_STATE_SLEEPING);
        fplgen_sample(&g, t++, 5, 1, 1, FPL_KIND_WALL, FPL_STATE_RUNNING);
    }
    fplgen_end(&g, T0 + 3 * T0);
    struct profile *p = NULL;
    size_t len;
    uint8_t *bytes = fplgen_flush(&g) == 0 ? fplgen_bytes(&g, &len) : NULL;
    if (bytes) {
        p = profile_new();
        if (p && profile_read_mem(p, bytes, len, "s.fpl", err, sizeof(err)) != 0) {
            fprintf(stderr, "%s\n", err);
            profile_free(p);
            p = NULL;
        }
    }
    free(bytes);
    fplgen_destroy(&g);
    return p;
}

static const struct starvation_thread *row(const struct profile *p, const struct starvation *s,
                                           uint64_t tid)
{
    for (size_t i = 0; i < s->nthreads; i++) {
        if (s->threads[i].thread != PROFILE_NONE && p->threads[s->threads[i].thread].os_tid == tid)
            return &s->threads[i];
    }
    return NULL;
}

/* 12 ticks 40 ms apart (tick 6's record lost: 11 read) with a 20 ms interval: the sampler
 * skipped every other tick, so each wall sample stands for 40 ms (counting records instead
 * of ids would say 44 ms). A: 300 / (60 x 40 = 2400) -> 0.875; B: 500 / (25 x 40 = 1000)
 * -> 0.5; E: 40 / 40 -> 0; C and D left out. Overall 1 - 840 / 3440. */
static void test_skipped_ticks(void)
{
    struct profile *p = build(12, 40 * MS, 1);
    CHECK(p != NULL);
    if (!p)
        return;
    struct starvation s;
    CHECK(starvation_compute(p, NULL, NULL, &s) == 0);
    CHECK(s.available);
    CHECK_EQ_U(s.tick_ns, 40 * MS);
    CHECK_EQ_U(s.nthreads, 3);
    const struct starvation_thread *a = row(p, &s, 101), *b = row(p, &s, 102), *e = row(p, &s, 105);
    CHECK(a && b && e && !row(p, &s, 103) && !row(p, &s, 104));
    if (a && b && e) {
        CHECK_EQ_U(a->cpu_ns, 300 * MS);
        CHECK_EQ_U(a->running_wall_ns, 2400 * MS);
        CHECK_NEAR(a->starvation, 0.875, 1e-9);
        CHECK_EQ_U(b->cpu_ns, 500 * MS);
        CHECK_EQ_U(b->running_wall_ns, 1000 * MS);
        CHECK_NEAR(b->starvation, 0.5, 1e-9);
        CHECK_EQ_U(e->running_wall_ns, 40 * MS);
        CHECK_NEAR(e->starvation, 0.0, 0);
        /* the error^2: (1 - starvation)^2 / RUNNING samples (counted, not upscaled) +
         * threads x (cpu interval / running wall)^2 / 12 */
        CHECK_EQ_U(a->running_samples, 30);
        CHECK_NEAR(a->error, sqrt(0.125 * 0.125 / 30 + 1.0 / (240 * 240) / 12), 1e-9);
        CHECK_EQ_U(b->running_samples, 25);
        CHECK_NEAR(b->error, sqrt(0.01 + 1.0 / 10000 / 12), 1e-9);
        CHECK_EQ_U(e->running_samples, 1);
        CHECK_NEAR(e->error, sqrt(1.0 + 1.0 / 16 / 12), 1e-9);
    }
    CHECK(s.threads[0].running_wall_ns == 2400 * MS); /* longest running first */
    CHECK_EQ_U(s.cpu_ns, 840 * MS);
    CHECK_EQ_U(s.running_wall_ns, 3440 * MS);
    CHECK_NEAR(s.overall, 1.0 - 840.0 / 3440.0, 1e-9);
    CHECK_EQ_U(s.running_samples, 56);
    CHECK_NEAR(s.error, sqrt(pow(840.0 / 3440, 2) / 56 + 3 * pow(10.0 / 3440, 2) / 12), 1e-9);
    starvation_destroy(&s);
    profile_free(p);
}

/* Fewer than STARVATION_MIN_TICKS ticks: the interval (20 ms) weighs the samples. A: 300 /
 * 1200 -> 0.75; B: 500 / 500 -> 0; E: 40 / 20 -> clamped at 0. Overall 1 - 840 / 1720. */
static void test_interval(void)
{
    struct profile *p = build(2, 40 * MS, 1);
    CHECK(p != NULL);
    if (!p)
        return;
    struct starvation s;
    CHECK(starvation_compute(p, NULL, NULL, &s) == 0);
    CHECK_EQ_U(s.tick_ns, 20 * MS);
    const struct starvation_thread *a = row(p, &s, 101), *b = row(p, &s, 102), *e = row(p, &s, 105);
    CHECK(a && b && e);
    if (a && b && e) {
        CHECK_EQ_U(a->running_wall_ns, 1200 * MS);
        CHECK_NEAR(a->starvation, 0.75, 1e-9);
        CHECK_NEAR(b->starvation, 0.0, 0);
        CHECK_NEAR(e->starvation, 0.0, 0);
    }
    CHECK_NEAR(s.overall, 1.0 - 840.0 / 1720.0, 1e-9);
    starvation_destroy(&s);
    profile_free(p);
}

/* A selection that drops thread B's cells (as an endpoint's would): A and E only. */
static int not_b(const struct profile *p, const struct profile_entry *e, void *ctx)
{
    (void)ctx;
    return e->thread == PROFILE_NONE || p->threads[e->thread].os_tid != 102;
}

static void test_select(void)
{
    struct profile *p = build(2, 40 * MS, 1);
    if (!p)
        return;
    struct starvation s;
    CHECK(starvation_compute(p, not_b, NULL, &s) == 0);
    CHECK_EQ_U(s.nthreads, 2);
    CHECK(row(p, &s, 102) == NULL);
    CHECK_EQ_U(s.cpu_ns, 340 * MS);
    CHECK_EQ_U(s.running_wall_ns, 1220 * MS);
    CHECK_NEAR(s.overall, 1.0 - 340.0 / 1220.0, 1e-9);
    starvation_destroy(&s);
    profile_free(p);
}

/* A selection of nothing: available, no rows, overall 0 (and no sort of an empty array). */
static int none(const struct profile *p, const struct profile_entry *e, void *ctx)
{
    (void)p;
    (void)e;
    (void)ctx;
    return 0;
}

static void test_select_none(void)
{
    struct profile *p = build(11, 40 * MS, 1);
    if (!p)
        return;
    struct starvation s;
    CHECK(starvation_compute(p, none, NULL, &s) == 0);
    CHECK(s.available && s.nthreads == 0 && s.threads == NULL);
    CHECK_EQ_U(s.running_wall_ns, 0);
    CHECK_NEAR(s.overall, 0.0, 0);
    starvation_destroy(&s);
    profile_free(p);
}

/* The summary's text section and JSON key, and both when there are no wall samples. */
static void test_summary(void)
{
    char *buf = NULL, err[256];
    size_t len = 0;
    struct profile *p = build(12, 40 * MS, 1);
    if (!p)
        return;
    FILE *f = open_memstream(&buf, &len);
    CHECK(summary_write(p, "s.fpl", f, err, sizeof(err)) == 0);
    fclose(f);
    CHECK(strstr(buf, "\nCPU starvation") != NULL);
    CHECK(strstr(buf, "overall 0.756: 840.0 ms of CPU in 3440.0 ms of running wall time, 3 "
                      "threads (+- 0.065: two standard errors of 56 running samples)") != NULL);
    CHECK(strstr(buf, "mean time between wall ticks, 40.000 ms") != NULL);
    CHECK(strstr(buf, "0.875  0.046        300.0         2400.0      101  A") != NULL);
    CHECK(strstr(buf, "0.500  0.200        500.0         1000.0      102  B") != NULL);
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK(summary_write_json(p, "s.fpl", NULL, f, err, sizeof(err)) == 0);
    fclose(f);
    CHECK(strstr(buf, "\"starvation\":{\"overall\":0.7558,\"cpu_ns\":840000000,"
                      "\"running_wall_ns\":3440000000,\"running_samples\":56,\"error\":0.0327,"
                      "\"wall_tick_ns\":40000000,\"threads\":[{\"name\":\"A\",\"tid\":101,"
                      "\"cpu_ns\":300000000,\"running_wall_ns\":2400000000,"
                      "\"running_samples\":30,\"starvation\":0.8750,\"error\":0.0229},") != NULL);
    free(buf);
    profile_free(p);

    p = build(11, 40 * MS, 0);
    if (!p)
        return;
    struct starvation s;
    CHECK(starvation_compute(p, NULL, NULL, &s) == 0 && !s.available && !s.nthreads);
    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK(summary_write(p, "s.fpl", f, err, sizeof(err)) == 0);
    CHECK(summary_write_json(p, "s.fpl", NULL, f, err, sizeof(err)) == 0);
    fclose(f);
    CHECK(strstr(buf, "CPU starvation") == NULL);
    CHECK(strstr(buf, "\"starvation\":null") != NULL);
    free(buf);
    profile_free(p);
}

int main(void)
{
    test_skipped_ticks();
    test_interval();
    test_select();
    test_select_none();
    test_summary();
    return harness_result("test_starvation");
}
