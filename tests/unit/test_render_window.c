/* test_render_window.c: time windows (--from / --to). Parsing of every accepted form and
 * rejection of malformed ones with a message naming the value; windows applied while reading
 * the golden log (relative, clock time in two time zones, ISO date-time, UTC), the exact
 * boundaries (from inclusive, to exclusive), a clock time after midnight, a frequency refined
 * by a later anchor, a log whose header was lost, and durations and titles within a window. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fpl_format.h"
#include "fplgen.h"
#include "golden_log.h"
#include "harness.h"
#include "out_collapsed.h"
#include "profile.h"
#include "render.h"

#define MS 1000000ull
#define SEC 1000000000ull

static void set_tz(const char *tz)
{
    setenv("TZ", tz, 1);
    tzset();
}

static void check_parse(const char *s, int kind, uint64_t ns)
{
    struct profile_time t = {-1, 0};
    char err[256] = "";
    int rc = profile_time_parse(s, &t, err, sizeof(err));
    CHECK_EQ_U(rc, 0);
    CHECK_EQ_U(t.kind, kind);
    CHECK_EQ_U(t.ns, ns);
    if (rc || t.kind != kind || t.ns != ns)
        fprintf(stderr, "parse '%s': rc %d kind %d ns %llu (%s)\n", s, rc, t.kind,
                (unsigned long long)t.ns, err);
}

static void check_bad(const char *s)
{
    struct profile_time t;
    char err[512] = "", want[128];
    CHECK_EQ_U(profile_time_parse(s, &t, err, sizeof(err)), -EINVAL);
    snprintf(want, sizeof(want), "bad time '%s': use seconds", s);
    CHECK(strstr(err, want) != NULL);
    CHECK(strstr(err, "500ms") && strstr(err, "14:03:05") && strstr(err, "2026-11-21T14:03:05"));
    if (!strstr(err, want))
        fprintf(stderr, "bad '%s': got [%s]\n", s, err);
}

static void test_parse(void)
{
    set_tz("UTC");
    check_parse("2.5", PROFILE_TIME_REL, 2500 * MS);
    check_parse("2.5s", PROFILE_TIME_REL, 2500 * MS);
    check_parse("500ms", PROFILE_TIME_REL, 500 * MS);
    check_parse("250us", PROFILE_TIME_REL, 250000);
    check_parse("10ns", PROFILE_TIME_REL, 10);
    check_parse("2min", PROFILE_TIME_REL, 120 * SEC);
    check_parse("1.5m", PROFILE_TIME_REL, 90 * SEC);
    check_parse(".25", PROFILE_TIME_REL, 250 * MS);
    check_parse("0", PROFILE_TIME_REL, 0);
    check_parse("0.000000001", PROFILE_TIME_REL, 1);
    check_parse("1.0000000019", PROFILE_TIME_REL, SEC + 1); /* digits past ns are cut */
    check_parse("14:03:05", PROFILE_TIME_CLOCK, (14 * 3600 + 3 * 60 + 5) * SEC);
    check_parse("14:03", PROFILE_TIME_CLOCK, (14 * 3600 + 3 * 60) * SEC);
    check_parse("00:00:00.25", PROFILE_TIME_CLOCK, 250 * MS);
    check_parse("2026-11-21T14:03:05", PROFILE_TIME_REAL, 1795269785ull * SEC);
    check_parse("2026-11-21 14:03:05.5Z", PROFILE_TIME_REAL, 1795269785ull * SEC + 500 * MS);
    check_parse("2023-11-14T22:13:20", PROFILE_TIME_REAL, GOLDEN_REAL_NS);
    set_tz("EST5"); /* UTC-5, no daylight time, needs no zone files */
    check_parse("2023-11-14T17:13:20", PROFILE_TIME_REAL, GOLDEN_REAL_NS);
    check_parse("2023-11-14T22:13:20Z", PROFILE_TIME_REAL, GOLDEN_REAL_NS);
    set_tz("UTC");

    check_bad("");
    check_bad("abc");
    check_bad("-1");
    check_bad("1.2.3");
    check_bad("5 s");
    check_bad("1h");
    check_bad("s");
    check_bad("99999999999999999999");
    check_bad("99999999999min");
    check_bad("25:00:00");
    check_bad("14:60");
    check_bad("14:03:05.");
    check_bad("14:3:05");
    check_bad("2026-13-01T00:00:00");
    check_bad("2026-02-30T00:00:00");
    check_bad("2026-11-21T14:03:05+01:00");
    check_bad("2026-11-21");
}

/* The golden log read with a window, its CPU samples folded. */
static char *windowed(const struct profile_time *from, const struct profile_time *to,
                      struct profile **out)
{
    struct fplgen g;
    char err[256], *buf = NULL;
    size_t len = 0, n;
    uint8_t *data = NULL;
    struct profile *p = profile_new();
    *out = NULL;
    if (!p || fplgen_init(&g) != 0)
        return NULL;
    if (golden_log_build(&g, 1) == 0)
        data = fplgen_bytes(&g, &n);
    fplgen_destroy(&g);
    if (!data || profile_set_window_times(p, from, to, err, sizeof(err)) != 0 ||
        profile_read_mem(p, data, n, "golden.fpl", err, sizeof(err)) != 0) {
        free(data);
        profile_free(p);
        return NULL;
    }
    free(data);
    FILE *f = open_memstream(&buf, &len);
    struct out_collapsed_opts o = {FPL_KIND_CPU, 0, 0};
    if (f) {
        out_collapsed_write(p, &o, f, err, sizeof(err));
        fclose(f);
    }
    *out = p;
    return buf;
}

static const char HASH3[] = "com.example.App.main;com.example.App.work;com.example.App.hash 3\n";

static void check_window(const char *from_s, const char *to_s, const char *want, uint64_t samples)
{
    struct profile_time from = {PROFILE_TIME_NONE, 0}, to = {PROFILE_TIME_NONE, 0};
    struct profile *p;
    char err[256];
    if (from_s)
        CHECK_EQ_U(profile_time_parse(from_s, &from, err, sizeof(err)), 0);
    if (to_s)
        CHECK_EQ_U(profile_time_parse(to_s, &to, err, sizeof(err)), 0);
    char *got = windowed(&from, &to, &p);
    CHECK(got && strcmp(got, want) == 0);
    if (got && strcmp(got, want) != 0)
        fprintf(stderr, "window %s..%s: got\n%s\nwant\n%s\n", from_s ? from_s : "",
                to_s ? to_s : "", got, want);
    CHECK(p && p->samples == samples);
    CHECK(p && p->window.skipped + p->samples == GOLDEN_CPU_SAMPLES + GOLDEN_WALL_SAMPLES);
    free(got);
    profile_free(p);
}

/* Golden CPU samples are 10 ms apart from 10 ms after the start; those at 30 and 40 ms are
 * stack 1 (weight 1) and stack 2 (weight 2), both main;work;hash. */
static void test_golden_windows(void)
{
    set_tz("UTC");
    check_window("25ms", "45ms", HASH3, 2);
    check_window("0.03", "0.040000001", HASH3, 2); /* from inclusive */
    check_window("30ms", "40ms",
                 "com.example.App.main;com.example.App.work;com.example.App.hash 1\n",
                 1); /* to exclusive */
    check_window("22:13:20.025", "22:13:20.045", HASH3, 2);
    check_window("2023-11-14T22:13:20.025", "2023-11-14T22:13:20.045Z", HASH3, 2);
    check_window("2023-11-14 22:13:20.025Z", "45ms", HASH3, 2); /* mixed forms */
    set_tz("EST5");
    check_window("17:13:20.025", "17:13:20.045", HASH3, 2);
    check_window("2023-11-14T17:13:20.025", "2023-11-14T22:13:20.045Z", HASH3, 2);
    set_tz("UTC");
    /* only a start: the CPU samples from 130 ms on (stacks 3 of thread 3 and 42) */
    check_window("130ms", NULL, "[unknown stack] 1\ncom.example.App.main;com.example.App.work 1\n",
                 4);
    check_window(NULL, "15ms", "com.example.App.main;com.example.App.work;com.example.App.hash 1\n",
                 1);
    check_window("10s", NULL, "", 0);
    /* before the start: everything */
    check_window("22:00:00", NULL, GOLDEN_CPU, GOLDEN_CPU_SAMPLES + GOLDEN_WALL_SAMPLES);

    /* duration and title within the window; the full duration without */
    struct profile_time from = {PROFILE_TIME_REL, 25 * MS}, to = {PROFILE_TIME_REL, 45 * MS};
    struct profile *p;
    char *got = windowed(&from, &to, &p), title[256];
    CHECK(p && profile_duration_ns(p) == 20 * MS);
    if (p) {
        render_default_title(p, PROFILE_KIND_AUTO, title, sizeof(title));
        CHECK(strcmp(title, "cpu profile of java -jar app.jar (pid 4242), 0.02 s, window 0.025 s "
                            "to 0.045 s, 2 samples") == 0);
        if (strcmp(title, "cpu profile of java -jar app.jar (pid 4242), 0.02 s, window 0.025 s "
                          "to 0.045 s, 2 samples") != 0)
            fprintf(stderr, "title: %s\n", title);
    }
    free(got);
    profile_free(p);
    from.ns = 1900 * MS;
    to.ns = 5 * SEC; /* past END: cut there */
    got = windowed(&from, &to, &p);
    CHECK(p && profile_duration_ns(p) == 100 * MS);
    free(got);
    profile_free(p);

    /* errors found before reading */
    struct profile *q = profile_new();
    char err[256];
    CHECK(q != NULL);
    if (!q)
        return;
    from.ns = 2 * SEC;
    to.ns = SEC;
    CHECK_EQ_U(profile_set_window_times(q, &from, &to, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "empty time window: from 2.000000000s is not before to 1.000000000s"));
    CHECK_EQ_U(profile_set_window(q, 5, 5), -EINVAL);
    CHECK_EQ_U(profile_set_window(q, 5, UINT64_MAX), 0);
    CHECK(q->window.set && q->window.from.ns == 5 && q->window.to.kind == PROFILE_TIME_NONE);
    profile_free(q);
}

static const struct fplgen_header HDR = {
    .pid = 9,
    .clock = FPL_CLOCK_TSC,
    .ticks_per_sec = 1000000000ull,
    .anchor_ticks = 0,
    .anchor_mono_ns = 100 * SEC,
    .anchor_real_ns = 0,
    .cpu_interval_ns = 10000000,
    .engine = FPL_ENGINE_CPUTIMER,
    .depth = 64,
    .options = "",
    .jvm_name = "",
    .jvm_version = "",
    .command = "",
};

/* A log of one thread, two methods (A.a, B.b) as stacks 1 and 2. */
static void dicts(struct fplgen *g)
{
    const struct reader_frame a[] = {{1, 0, 0}}, b[] = {{2, 0, 0}};
    fplgen_thread(g, 1, 1, "t");
    fplgen_method(g, 1, FPL_METHOD_JAVA, "A", "a", "", "", 0, NULL);
    fplgen_method(g, 2, FPL_METHOD_JAVA, "B", "b", "", "", 0, NULL);
    fplgen_stack(g, 1, 1, a);
    fplgen_stack(g, 2, 1, b);
}

/* Reads g's log with the window from..to (relative ns; to UINT64_MAX: none) and folds it. */
static char *fold_window(struct fplgen *g, uint64_t from, uint64_t to, struct profile **out)
{
    char err[256], *buf = NULL;
    size_t len = 0, n;
    uint8_t *data = fplgen_bytes(g, &n);
    struct profile *p = profile_new();
    *out = p;
    if (!data || !p || profile_set_window(p, from, to) != 0 ||
        profile_read_mem(p, data, n, "w.fpl", err, sizeof(err)) != 0) {
        free(data);
        return NULL;
    }
    free(data);
    FILE *f = open_memstream(&buf, &len);
    struct out_collapsed_opts o = {FPL_KIND_CPU, 0, 0};
    if (f) {
        out_collapsed_write(p, &o, f, err, sizeof(err));
        fclose(f);
    }
    return buf;
}

/* A profile started at 23:59:59.5: a clock time of 00:00:00 means the next day. */
static void test_midnight(void)
{
    struct fplgen g;
    struct fplgen_header h = HDR;
    h.anchor_real_ns = GOLDEN_REAL_NS - 22 * 3600 * SEC - 13 * 60 * SEC - 20 * SEC +
                       24 * 3600 * SEC - 500 * MS; /* 2023-11-14T23:59:59.5Z */
    set_tz("UTC");
    CHECK_EQ_U(fplgen_init(&g), 0);
    fplgen_header(&g, &h);
    dicts(&g);
    fplgen_sample(&g, 400 * MS, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING); /* 23:59:59.9 */
    fplgen_sample(&g, 800 * MS, 1, 2, 1, FPL_KIND_CPU, FPL_STATE_RUNNING); /* 00:00:00.3 */
    CHECK_EQ_U(fplgen_flush(&g), 0);
    size_t n;
    uint8_t *data = fplgen_bytes(&g, &n);
    fplgen_destroy(&g);
    struct profile_time from, to;
    char err[256];
    CHECK_EQ_U(profile_time_parse("00:00:00", &from, err, sizeof(err)), 0);
    CHECK_EQ_U(profile_time_parse("23:59:59.95", &to, err, sizeof(err)), 0);
    for (int k = 0; k < 2; k++) {
        struct profile *p = profile_new();
        CHECK(p && data);
        if (!p || !data) {
            profile_free(p);
            break;
        }
        if (k == 0)
            CHECK_EQ_U(profile_set_window_times(p, &from, NULL, err, sizeof(err)), 0);
        else
            CHECK_EQ_U(profile_set_window_times(p, NULL, &to, err, sizeof(err)), 0);
        CHECK_EQ_U(profile_read_mem(p, data, n, "m.fpl", err, sizeof(err)), 0);
        CHECK_EQ_U(p->samples, 1);
        CHECK_EQ_U(p->window.from_ns, k == 0 ? 500 * MS : 0);
        CHECK_EQ_U(p->window.to_ns, k == 0 ? (uint64_t)INT64_MAX : 450 * MS);
        CHECK(p->nentries == 1 && p->entries[0].stack_id == (k == 0 ? 2u : 1u));
        profile_free(p);
    }
    free(data);
}

/* The header says 1 GHz; an anchor 2 s later says 2 GHz. Samples after it are placed with the
 * refined frequency, as the final conversion will place them. */
static void test_refined(void)
{
    struct fplgen g;
    struct profile *p;
    CHECK_EQ_U(fplgen_init(&g), 0);
    fplgen_header(&g, &HDR);
    dicts(&g);
    fplgen_sample(&g, 1 * SEC, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING); /* 0.5 s */
    fplgen_anchor(&g, 4 * SEC, 102 * SEC, 2 * SEC);
    fplgen_sample(&g, 5 * SEC, 1, 2, 1, FPL_KIND_CPU, FPL_STATE_RUNNING); /* 2.5 s, not 5 s */
    CHECK_EQ_U(fplgen_flush(&g), 0);
    char *got = fold_window(&g, 2400 * MS, 2600 * MS, &p);
    CHECK(got && strcmp(got, "B.b 1\n") == 0);
    CHECK(p && p->time_refined && p->window.skipped == 1);
    CHECK(p && profile_ticks_to_ns(p, 5 * SEC) == 2500 * MS);
    free(got);
    profile_free(p);
    fplgen_destroy(&g);
}

/* No header (its chunk lost): the first anchor is the start, and the frequency is known once
 * a second anchor comes; samples before that cannot be placed and are left out, counted. */
static void test_no_header(void)
{
    struct fplgen g;
    struct profile *p;
    CHECK_EQ_U(fplgen_init(&g), 0);
    dicts(&g);
    fplgen_sample(&g, 10, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING); /* before any anchor */
    fplgen_anchor(&g, 1000, 50 * SEC, 7 * SEC);
    fplgen_sample(&g, 2000, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING); /* no frequency yet */
    fplgen_anchor(&g, 1000 + 4 * SEC, 52 * SEC, 9 * SEC);              /* 2 GHz */
    fplgen_sample(&g, 1000 + 3 * SEC, 1, 2, 1, FPL_KIND_CPU, FPL_STATE_RUNNING); /* 1.5 s */
    fplgen_sample(&g, 1000 + 5 * SEC, 1, 2, 2, FPL_KIND_CPU, FPL_STATE_RUNNING); /* 2.5 s */
    CHECK_EQ_U(fplgen_flush(&g), 0);
    char *got = fold_window(&g, 1 * SEC, 2 * SEC, &p);
    CHECK(got && strcmp(got, "B.b 1\n") == 0);
    CHECK(p && p->window.untimed == 2 && p->window.skipped == 1 && p->samples == 1);
    free(got);
    profile_free(p);
    /* without a window nothing is left out */
    got = fold_window(&g, 0, UINT64_MAX, &p);
    CHECK(p && !p->window.set);
    CHECK(got && strcmp(got, "A.a 2\nB.b 3\n") == 0);
    free(got);
    profile_free(p);
    fplgen_destroy(&g);
}

int main(void)
{
    test_parse();
    test_golden_windows();
    test_midnight();
    test_refined();
    test_no_header();
    return harness_result("test_render_window");
}
