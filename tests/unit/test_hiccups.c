/* test_hiccups.c: hiccup-mode records (FORMAT.md 5.11-5.14) through the reader and the
 * hiccups model: every field decoded, each cause rule on a stall built to meet it (and only
 * it), GC and OS-probe overlaps, samples counted in stall windows, per-interval GC and
 * prorated safepoint time, the exported series, and a bad bucket step rejected. Ticks are ns
 * (ticks_per_sec 10^9) so the expected values read plainly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "fpl_format.h"
#include "fplgen.h"
#include "harness.h"
#include "hiccups.h"
#include "out_hiccups.h"
#include "profile.h"
#include "slurp.h"

#define MS 1000000ull
#define T0 1000000000ull /* the log's start: 1 s of ticks */

static void put_hiccup(struct fplgen *g, int probe, uint64_t start, uint64_t end, uint64_t wakeups,
                       uint64_t max_ns, uint64_t max_at, uint64_t stalls, uint64_t stalled,
                       size_t n, const uint64_t *idx, const uint64_t *cnt)
{
    struct fpl_buf b = {0};
    fpl_put_v(&b, (uint64_t)probe);
    fpl_put_u64(&b, start);
    fpl_put_u64(&b, end);
    fpl_put_v(&b, 1 * MS);
    fpl_put_v(&b, 5 * MS);
    fpl_put_v(&b, wakeups);
    fpl_put_v(&b, max_ns);
    fpl_put_u64(&b, max_at);
    fpl_put_v(&b, stalls);
    fpl_put_v(&b, stalled);
    fpl_put_v(&b, 123);
    fpl_put_v(&b, n);
    long prev = -1;
    for (size_t i = 0; i < n; i++) {
        fpl_put_v(&b, idx[i] - (uint64_t)prev);
        fpl_put_v(&b, cnt[i]);
        prev = (long)idx[i];
    }
    fplgen_record(g, FPL_REC_HICCUP, b.data, b.len);
    fpl_buf_free(&b);
}

static void put_stall(struct fplgen *g, int probe, uint8_t flags, uint64_t start, uint64_t end,
                      uint64_t run_delay, uint64_t sps, uint64_t sp_ns)
{
    struct fpl_buf b = {0};
    fpl_put_v(&b, (uint64_t)probe);
    fpl_put_u8(&b, flags);
    fpl_put_u64(&b, start);
    fpl_put_u64(&b, end);
    fpl_put_v(&b, run_delay);
    fpl_put_v(&b, sps);
    fpl_put_v(&b, sp_ns);
    fpl_put_v(&b, sp_ns / 10);
    fplgen_record(g, FPL_REC_STALL, b.data, b.len);
    fpl_buf_free(&b);
}

static void put_gc(struct fplgen *g, uint64_t start, uint64_t end, const char *name)
{
    struct fpl_buf b = {0};
    fpl_put_u64(&b, start);
    fpl_put_u64(&b, end);
    fpl_put_str(&b, name);
    fplgen_record(g, FPL_REC_GC, b.data, b.len);
    fpl_buf_free(&b);
}

static void put_pauses(struct fplgen *g, uint64_t start, uint64_t end, uint64_t sps, uint64_t sp_ns,
                       uint64_t steal)
{
    struct fpl_buf b = {0};
    fpl_put_u64(&b, start);
    fpl_put_u64(&b, end);
    fpl_put_u8(&b, FPL_PAUSE_SAFEPOINTS | FPL_PAUSE_STEAL);
    fpl_put_v(&b, sps);
    fpl_put_v(&b, sp_ns);
    fpl_put_v(&b, sp_ns / 10);
    fpl_put_v(&b, steal);
    fpl_put_v(&b, 2);
    fpl_put_v(&b, 0);
    fpl_put_v(&b, 0);
    fplgen_record(g, FPL_REC_PAUSE_STATS, b.data, b.len);
    fpl_buf_free(&b);
}

static const uint8_t BOTH = FPL_STALL_RUN_DELAY | FPL_STALL_SAFEPOINTS;

/* The log: one interval per probe over [1 s, 2 s), seven stalls each built for one rule. */
static int build(const char *path)
{
    struct fplgen g;
    if (fplgen_init(&g) != 0)
        return -1;
    struct fplgen_header hd = {4242,
                               FPL_CLOCK_TSC,
                               1000000000ull,
                               T0,
                               5 * T0,
                               1700000000000000000ull,
                               10 * MS,
                               FPL_ENGINE_CPUTIMER,
                               0,
                               0,
                               64,
                               "hiccup",
                               "vm",
                               "17",
                               "Main"};
    fplgen_header(&g, &hd);
    struct reader_frame f1 = {1, 3, FPL_FRAME_JAVA}, f2 = {2, 0, FPL_FRAME_JAVA};
    fplgen_thread(&g, 1, 100, "worker");
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "A", "b", "()V", "A.java", 0, NULL);
    fplgen_method(&g, 2, FPL_METHOD_JAVA, "C", "d", "()V", "C.java", 0, NULL);
    fplgen_stack(&g, 1, 1, &f1);
    fplgen_stack(&g, 2, 1, &f2);
    /* java: 800 x 50us, 97 x 2ms, one 7ms, one 200ms */
    uint64_t jidx[] = {fpl_hdr_index(50000), fpl_hdr_index(2 * MS), fpl_hdr_index(7 * MS),
                       fpl_hdr_index(200 * MS)};
    uint64_t jcnt[] = {800, 97, 1, 1};
    put_hiccup(&g, FPL_PROBE_JAVA, T0, 2 * T0, 899, 200 * MS, T0 + 200 * MS, 5, 250 * MS, 4, jidx,
               jcnt);
    uint64_t oidx[] = {fpl_hdr_index(30000)};
    uint64_t ocnt[] = {950};
    put_hiccup(&g, FPL_PROBE_OS, T0 + 1000, 2 * T0 + 1000, 950, 31000, T0 + 5 * MS, 0, 0, 1, oidx,
               ocnt);
    /* A: a GC covers 190 of its 200 ms: gc (though run_delay and safepoints say more) */
    put_stall(&g, FPL_PROBE_JAVA, BOTH, T0 + 200 * MS, T0 + 400 * MS, 150 * MS, 1, 199 * MS);
    put_gc(&g, T0 + 210 * MS, T0 + 400 * MS, "Serial full collection pauses");
    /* B: 20 ms, one safepoint of 18 ms: safepoint */
    put_stall(&g, FPL_PROBE_JAVA, BOTH, T0 + 500 * MS, T0 + 520 * MS, 1 * MS, 1, 18 * MS);
    /* C: 10 ms, 9 ms in the run queue: os/cpu */
    put_stall(&g, FPL_PROBE_JAVA, BOTH, T0 + 600 * MS, T0 + 610 * MS, 9 * MS, 0, 0);
    /* D: 10 ms, 1 ms run queue, nothing else: unknown */
    put_stall(&g, FPL_PROBE_JAVA, BOTH, T0 + 700 * MS, T0 + 710 * MS, 1 * MS, 0, 0);
    /* E: java, no run-queue wait, but the OS probe stalled over it: os/cpu */
    put_stall(&g, FPL_PROBE_JAVA, BOTH, T0 + 800 * MS, T0 + 810 * MS, 0, 0, 0);
    /* F: the OS probe's stall, in the run queue: os/cpu */
    put_stall(&g, FPL_PROBE_OS, FPL_STALL_RUN_DELAY, T0 + 799 * MS, T0 + 811 * MS, 11 * MS, 0, 0);
    /* G: the OS probe during the GC, not in the run queue: GC does not stop it: unknown */
    put_stall(&g, FPL_PROBE_OS, FPL_STALL_RUN_DELAY, T0 + 250 * MS, T0 + 260 * MS, 0, 0, 0);
    /* 400 ms of safepoints over [0.5 s, 2.5 s): half of it inside [1 s, 2 s) */
    put_pauses(&g, T0 / 2, 5 * T0 / 2, 3, 400 * MS, 7 * MS);
    /* samples: 3 + 1 in A's window, 1 in C's, one outside any */
    fplgen_sample(&g, T0 + 300 * MS, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(&g, T0 + 310 * MS, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(&g, T0 + 320 * MS, 1, 2, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(&g, T0 + 330 * MS, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(&g, T0 + 605 * MS, 1, 2, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(&g, T0 + 900 * MS, 1, 2, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    /* a HICCUP whose bucket step is 0: a bad record, skipped */
    struct fpl_buf b = {0};
    fpl_put_v(&b, 0);
    fpl_put_u64(&b, T0);
    fpl_put_u64(&b, 2 * T0);
    for (int i = 0; i < 3; i++)
        fpl_put_v(&b, 1);
    fpl_put_v(&b, 1);
    fpl_put_u64(&b, T0);
    for (int i = 0; i < 3; i++)
        fpl_put_v(&b, 0);
    fpl_put_v(&b, 2);
    fpl_put_v(&b, 5);
    fpl_put_v(&b, 1);
    fpl_put_v(&b, 0); /* step 0 */
    fpl_put_v(&b, 1);
    fplgen_record(&g, FPL_REC_HICCUP, b.data, b.len);
    fpl_buf_free(&b);
    fplgen_end(&g, 3 * T0);
    int rc = fplgen_flush(&g) || fplgen_save(&g, path);
    fplgen_destroy(&g);
    return rc;
}

static const struct hiccups_stall *stall_at(const struct hiccups *h, int probe, uint64_t start)
{
    for (size_t i = 0; i < h->nstalls; i++) {
        if (h->stalls[i].probe == probe && h->stalls[i].start == start)
            return &h->stalls[i];
    }
    return NULL;
}

static void test_log(void)
{
    char dir[] = "/tmp/test_hiccups-XXXXXX", path[300], csv[300], err[512];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/h.fpl", dir);
    snprintf(csv, sizeof(csv), "%s/h.csv", dir);
    CHECK(build(path) == 0);
    struct profile *p = profile_new();
    CHECK(p && profile_read_file(p, path, err, sizeof(err)) == 0);
    CHECK_EQ_U(p->stats.bad_records, 1);
    struct hiccups h;
    CHECK(hiccups_read(&h, p, path, err, sizeof(err)) == 0);
    CHECK(h.present && h.have_settings);
    CHECK_EQ_U(h.resolution_ns, 1 * MS);
    CHECK_EQ_U(h.threshold_ns, 5 * MS);
    CHECK_EQ_U(h.nintervals, 2);
    CHECK_EQ_U(h.nstalls, 7);
    CHECK_EQ_U(h.ngcs, 1);
    CHECK(h.ngcs == 1 && strcmp(h.gcs[0].collector, "Serial full collection pauses") == 0);

    const struct hiccups_interval *j = &h.intervals[0], *o = &h.intervals[1];
    CHECK_EQ_U(j->probe, FPL_PROBE_JAVA);
    CHECK_EQ_U(j->hist->total, 899);
    CHECK_EQ_U(j->hist->counts[fpl_hdr_index(2 * MS)], 97);
    CHECK_EQ_U(j->hist->max, 200 * MS);
    CHECK_EQ_U(hdr_percentile(j->hist, 50), fpl_hdr_highest(fpl_hdr_index(50000)));
    CHECK_EQ_U(j->run_delay_ns, 123);
    CHECK_EQ_U(j->gc_ns, 190 * MS);
    CHECK(j->have_safepoints);
    CHECK_EQ_U(j->safepoint_ns, 200 * MS);
    CHECK_EQ_U(o->probe, FPL_PROBE_OS);
    CHECK_EQ_U(o->hist->total, 950);
    CHECK_EQ_U(h.total[FPL_PROBE_JAVA]->total, 899);
    CHECK_EQ_U(h.safepoints, 3);
    CHECK_EQ_U(h.steal_ns, 7 * MS);
    CHECK_EQ_U(h.gc_ns, 190 * MS);

    const struct hiccups_stall *a = stall_at(&h, FPL_PROBE_JAVA, T0 + 200 * MS);
    CHECK(a && a->cause == HICCUPS_GC && a->gc == 0 && a->gc_overlap_ns == 190 * MS);
    CHECK(a && a->duration_ns == 200 * MS);
    CHECK(a && a->samples == 4 && a->nstacks == 2 && a->stacks[0].stack_id == 1 &&
          a->stacks[0].weight == 3 && a->stacks[1].stack_id == 2);
    const struct hiccups_stall *s = stall_at(&h, FPL_PROBE_JAVA, T0 + 500 * MS);
    CHECK(s && s->cause == HICCUPS_SAFEPOINT && s->samples == 0);
    s = stall_at(&h, FPL_PROBE_JAVA, T0 + 600 * MS);
    CHECK(s && s->cause == HICCUPS_OS_CPU && s->samples == 1);
    s = stall_at(&h, FPL_PROBE_JAVA, T0 + 700 * MS);
    CHECK(s && s->cause == HICCUPS_UNKNOWN);
    s = stall_at(&h, FPL_PROBE_JAVA, T0 + 800 * MS);
    CHECK(s && s->cause == HICCUPS_OS_CPU && s->os_overlap_ns == 10 * MS);
    s = stall_at(&h, FPL_PROBE_OS, T0 + 799 * MS);
    CHECK(s && s->cause == HICCUPS_OS_CPU);
    s = stall_at(&h, FPL_PROBE_OS, T0 + 250 * MS);
    CHECK(s && s->cause == HICCUPS_UNKNOWN && s->gc_overlap_ns == 10 * MS);
    CHECK_EQ_U(h.by_cause[FPL_PROBE_JAVA][HICCUPS_GC], 1);
    CHECK_EQ_U(h.by_cause[FPL_PROBE_JAVA][HICCUPS_OS_CPU], 2);
    CHECK_EQ_U(h.cause_ns[FPL_PROBE_JAVA][HICCUPS_GC], 200 * MS);

    /* the series: java first (its interval starts 1 us earlier), GC and safepoint time */
    struct exporter *e = NULL;
    struct export_opts eo = {NULL, csv, NULL, "hiccups", NULL, 0};
    CHECK(export_open(&e, &eo, err, sizeof(err)) == 0);
    CHECK(out_hiccups_export(p, &h, e, err, sizeof(err)) == 0);
    CHECK(export_close(e, err, sizeof(err)) == 0);
    char *text = slurp(csv);
    char want[256];
    snprintf(want, sizeof(want), "\n%llu,java,899,", 1700000000000000000ull);
    CHECK(text && strstr(text, want));
    CHECK(text && strstr(text, ",200000000,1700000000200000000,25.000,190.000,200.000\n"));
    snprintf(want, sizeof(want), "\n%llu,os,950,", 1700000000000001000ull);
    CHECK(text && strstr(text, want) > strstr(text, "java"));
    free(text);

    FILE *f = tmpfile();
    CHECK(f && out_hiccups_text(f, p, &h, 3) == 0);
    if (f) {
        rewind(f);
        char buf[8192];
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = 0;
        fclose(f);
        CHECK(strstr(buf, "probes woke every 1ms; a delay of 5ms or more is a stall"));
        CHECK(strstr(buf, "java        899"));
        CHECK(strstr(buf, "1/1/2/1"));
        CHECK(strstr(buf, "1 GC pause, 190ms in all, the longest 190ms (Serial full"));
        CHECK(strstr(buf, "The 3 longest stalls of 7:"));
        CHECK(strstr(buf, "    0.200 "));
        CHECK(strstr(buf, "200ms java  gc        GC pause over 190ms of it"));
        CHECK(strstr(buf, "4 samples in its window: A.b in worker (3); C.d in worker (1)"));
        CHECK(strstr(buf, "1 safepoint, 18ms"));
    }
    f = tmpfile();
    CHECK(f && out_hiccups_json(f, p, &h) == 0);
    if (f) {
        rewind(f);
        char buf[8192];
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        buf[n] = 0;
        fclose(f);
        snprintf(want, sizeof(want),
                 "{\"resolution_ns\":1000000,\"threshold_ns\":5000000,\"p50_ns\":%llu,",
                 (unsigned long long)fpl_hdr_highest(fpl_hdr_index(50000)));
        CHECK(strncmp(buf, want, strlen(want)) == 0);
        CHECK(strstr(buf, ",\"max_ns\":200000000,\"os\":{\"p50_ns\":"));
        CHECK(strstr(buf, "\"gc_pauses\":1,\"gc_ns\":190000000,\"safepoints\":3,"
                          "\"safepoint_ns\":400000000,\"stalls\":[{\"start_ns\":"
                          "1700000000200000000,\"duration_ns\":200000000,\"probe\":\"java\","
                          "\"cause\":\"gc\"},{\"start_ns\":1700000000250000000,"));
        CHECK(n > 2 && strcmp(buf + n - 2, "]}") == 0);
        CHECK(strstr(buf, "\"cause\":\"safepoint\"") && strstr(buf, "\"cause\":\"os/cpu\"") &&
              strstr(buf, "\"cause\":\"unknown\""));
    }
    struct hiccups none;
    memset(&none, 0, sizeof(none));
    f = tmpfile();
    CHECK(f && out_hiccups_json(f, p, &none) == 0);
    if (f) {
        char buf[16] = "";
        rewind(f);
        CHECK(fread(buf, 1, sizeof(buf) - 1, f) == 4 && strcmp(buf, "null") == 0);
        fclose(f);
    }
    hiccups_free(&h);
    profile_free(p);
    snprintf(path, sizeof(path), "rm -rf %s", dir);
    CHECK(system(path) == 0);
}

static void test_cause_rules(void)
{
    /* half of it in a GC wins over anything else, Java probe only */
    CHECK_EQ_U(hiccups_cause(FPL_PROBE_JAVA, 100, 100, 1, 100, 50, 100), HICCUPS_GC);
    CHECK_EQ_U(hiccups_cause(FPL_PROBE_OS, 100, 0, 0, 0, 100, 0), HICCUPS_UNKNOWN);
    /* below half: the largest share, when it reaches a quarter */
    CHECK_EQ_U(hiccups_cause(FPL_PROBE_JAVA, 100, 30, 1, 40, 49, 0), HICCUPS_GC);
    CHECK_EQ_U(hiccups_cause(FPL_PROBE_JAVA, 100, 30, 1, 60, 20, 0), HICCUPS_SAFEPOINT);
    CHECK_EQ_U(hiccups_cause(FPL_PROBE_JAVA, 100, 70, 1, 60, 20, 0), HICCUPS_OS_CPU);
    CHECK_EQ_U(hiccups_cause(FPL_PROBE_JAVA, 100, 24, 0, 0, 0, 0), HICCUPS_UNKNOWN);
    CHECK_EQ_U(hiccups_cause(FPL_PROBE_JAVA, 100, 25, 0, 0, 0, 0), HICCUPS_OS_CPU);
    /* safepoint time without a completed safepoint does not count */
    CHECK_EQ_U(hiccups_cause(FPL_PROBE_JAVA, 100, 0, 0, 90, 0, 0), HICCUPS_UNKNOWN);
    CHECK_EQ_U(hiccups_cause(FPL_PROBE_JAVA, 100, 0, 0, 0, 0, 60), HICCUPS_OS_CPU);
    CHECK_EQ_U(hiccups_cause(FPL_PROBE_OS, 100, 0, 0, 0, 0, 60), HICCUPS_UNKNOWN);
    CHECK_EQ_U(hiccups_cause(FPL_PROBE_JAVA, 0, 0, 0, 0, 0, 0), HICCUPS_UNKNOWN);
    CHECK(strcmp(hiccups_cause_name(HICCUPS_OS_CPU), "os/cpu") == 0);
    CHECK(strcmp(hiccups_probe_name(FPL_PROBE_OS), "os") == 0);
}

int main(void)
{
    test_cause_rules();
    test_log();
    return harness_result("test_hiccups");
}
