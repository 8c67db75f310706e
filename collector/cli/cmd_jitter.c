/* cmd_jitter.c: `flyprof jitter`: the standalone jitter test. The measuring is jitter.c's
 * (pinned spin threads), the text report jitter_report.c's and the exports export.c's; this
 * file reads the options, checks every input before any thread spins, drains the intervals
 * the spin threads hand over, and prints. */
#include "cmd_jitter.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_args.h"
#include "cli_msg.h"
#include "export.h"
#include "jclock.h"
#include "jitter.h"
#include "jitter_report.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define ERR_MAX 1024
#define MAX_CPUS 1024
#define WORST 5
#define MAX_TIME_NS (86400ull * 1000000000ull) /* any time option: at most a day */

const char cmd_jitter_help[] =
    "usage: flyprof jitter [-c CPUS] [-d DURATION] [-r REPORT] [-t THRESHOLD] [--hlog F]\n"
    "                      [--csv F] [--influx URL] [--outliers F] [--bins N] [--knee T]\n"
    "                      [--min T] [--sum]\n"
    "\n"
    "Measures how long this machine keeps a running thread from running: one thread per CPU,\n"
    "pinned, reads the CPU's time-stamp counter back to back and counts every gap between two\n"
    "reads. No JVM is involved. Prints per CPU a histogram of the gaps (linear bins up to the\n"
    "knee, then logarithmic; on a TSC that counts in steps, bins too narrow to hold one are\n"
    "merged), its statistics and values to use for --knee and --min, and a table of\n"
    "interruptions (gaps of THRESHOLD or more): count, rate, quantiles, time lost.\n"
    "\n"
    "options:\n"
    "  -c CPUS         CPUs to measure, e.g. 0,2-3 (default: every CPU this process may use)\n"
    "  -d DURATION     how long: seconds (10, 2.5) or a time with a unit (default 10s)\n"
    "  -r REPORT       one interval of the time series per REPORT (default 1s)\n"
    "  -t THRESHOLD    a gap this long is an interruption (default 1us)\n"
    "  --hlog F        HdrHistogram interval log: one histogram per CPU and interval\n"
    "  --csv F         time series: per CPU and interval the time (ns since the epoch), gaps,\n"
    "                  p50, p99, p99.9 and max in ns, when the max began, % stalled\n"
    "  --influx URL    the same points into InfluxDB: http://HOST:PORT/write?db=NAME or\n"
    "                  udp://HOST:PORT\n"
    "  --outliers F    every interruption: cpu, time (ns since the epoch), offset from the\n"
    "                  start in ms, length in us\n"
    "  --bins N        histogram bins, 4 to 200 (default 20)\n"
    "  --knee T        end of the linear bins (default 4 TSC reads)\n"
    "  --min T         start of the linear bins (default half a TSC read)\n"
    "  --sum           bins show the time spent in their gaps instead of their count\n"
    "\n"
    "Times are a number and a unit: ns, us, ms, s, min or h (2.5us); only DURATION takes a\n"
    "bare number, in seconds. The resolution is the cost of one TSC read, printed at the\n"
    "start; THRESHOLD must be at least two of them. The spin threads keep their CPUs\n"
    "busy for DURATION; flyprof's own thread wakes a few times a second to collect intervals,\n"
    "and its cost is measured with the rest.\n"
    "\n"
    "example:\n"
    "  flyprof jitter -c 0,1 -d 30 -t 5us --csv jitter.csv --hlog jitter.hlog\n";

struct args {
    const char *cpus, *hlog, *csv, *influx, *outliers;
    const char *knee_s, *min_s; /* --knee and --min as typed, for messages */
    uint64_t duration_ns, report_ns, threshold_ns, knee_ns, min_ns;
    unsigned bins;
    int sum;
};

/* An interval with a long gap, for the list of the worst. */
struct worst {
    int cpu;
    uint64_t start_ns, max_ns, at_ns;
};

static struct jitter_run *volatile running;

static void on_signal(int sig)
{
    (void)sig;
    struct jitter_run *r = running;
    if (r)
        jitter_stop(r);
}

static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_msg_verror(fmt, ap);
    va_end(ap);
    fprintf(stderr, "see 'flyprof jitter --help'\n");
    return EXIT_USAGE;
}

/* "0,2-3" into cpus (ascending, no duplicates). Returns the count, or -EINVAL. */
static int parse_cpus(const char *s, int *cpus, int max)
{
    char seen[MAX_CPUS] = {0};
    const char *p = s;
    if (!*p)
        return -EINVAL;
    while (*p) {
        char *end;
        long a = strtol(p, &end, 10), b;
        if (end == p || a < 0 || a >= MAX_CPUS || *p == '-' || *p == '+')
            return -EINVAL;
        b = a;
        p = end;
        if (*p == '-') {
            b = strtol(p + 1, &end, 10);
            if (end == p + 1 || b < a || b >= MAX_CPUS || p[1] == '-' || p[1] == '+')
                return -EINVAL;
            p = end;
        }
        for (long c = a; c <= b; c++)
            seen[c] = 1;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            return -EINVAL;
    }
    int n = 0;
    for (int c = 0; c < MAX_CPUS && n < max; c++) {
        if (seen[c])
            cpus[n++] = c;
    }
    return n;
}

/* The allowed CPUs as a list, for messages. */
static void mask_text(const cpu_set_t *set, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int c = 0; c < MAX_CPUS && n + 16 < len; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int e = c;
        while (e + 1 < MAX_CPUS && CPU_ISSET(e + 1, set))
            e++;
        n += (size_t)snprintf(buf + n, len - n, n ? ",%d" : "%d", c);
        if (e > c)
            n += (size_t)snprintf(buf + n, len - n, "-%d", e);
        c = e;
    }
}

static int parse_args(int argc, char **argv, struct args *a)
{
    int rc;
    memset(a, 0, sizeof(*a));
    a->duration_ns = 10000000000ull;
    a->report_ns = 1000000000ull;
    a->threshold_ns = 1000;
    a->bins = 20;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i], *v = NULL;
        static const char *const valued[] = {"-c",     "-d",     "-r",       "-t",
                                             "--hlog", "--csv",  "--influx", "--outliers",
                                             "--bins", "--knee", "--min"};
        if (strcmp(o, "--sum") == 0) {
            a->sum = 1;
            continue;
        }
        size_t k, nv = sizeof(valued) / sizeof(valued[0]);
        for (k = 0; k < nv; k++) {
            size_t l = strlen(valued[k]);
            if (strcmp(o, valued[k]) == 0) {
                if (i + 1 >= argc)
                    return usage("jitter: %s needs a value", o);
                v = argv[++i];
                break;
            }
            if (valued[k][1] == '-' && strncmp(o, valued[k], l) == 0 && o[l] == '=') {
                v = o + l + 1;
                break;
            }
        }
        if (k == nv) {
            if (o[0] == '-')
                return usage("jitter: unknown option '%s'", o);
            return usage("jitter: unexpected argument '%s'", o);
        }
        const char *name = valued[k];
        if (strcmp(name, "-c") == 0) {
            a->cpus = v;
        } else if (strcmp(name, "-d") == 0) {
            if (cli_args_duration(v, MAX_TIME_NS, &a->duration_ns) || a->duration_ns < 1000000)
                return usage("jitter: -d: bad duration '%s': use seconds (10, 2.5) or a time "
                             "with a unit (500ms, 2min), at least 1ms",
                             v);
        } else if (strcmp(name, "-r") == 0) {
            if ((rc = cli_args_time("jitter", "-r", v, 10000000, MAX_TIME_NS, 1000000000,
                                    "report interval", &a->report_ns)) != 0)
                return rc;
        } else if (strcmp(name, "-t") == 0) {
            if ((rc = cli_args_time("jitter", "-t", v, 1, MAX_TIME_NS, 1000, "threshold",
                                    &a->threshold_ns)) != 0)
                return rc;
        } else if (strcmp(name, "--knee") == 0) {
            if ((rc = cli_args_time("jitter", "--knee", v, 1, MAX_TIME_NS, 50, "time",
                                    &a->knee_ns)) != 0)
                return rc;
            a->knee_s = v;
        } else if (strcmp(name, "--min") == 0) {
            if ((rc = cli_args_time("jitter", "--min", v, 0, MAX_TIME_NS, 10, "time",
                                    &a->min_ns)) != 0)
                return rc;
            a->min_s = v;
            a->min_ns += !a->min_ns; /* 0 means "not given" below */
        } else if (strcmp(name, "--bins") == 0) {
            char *end;
            long b = strtol(v, &end, 10);
            if (*end || end == v || b < 4 || b > 200)
                return usage("jitter: --bins: '%s' is not a number from 4 to 200", v);
            a->bins = (unsigned)b;
        } else if (strcmp(name, "--hlog") == 0) {
            a->hlog = v;
        } else if (strcmp(name, "--csv") == 0) {
            a->csv = v;
        } else if (strcmp(name, "--influx") == 0) {
            a->influx = v;
        } else {
            a->outliers = v;
        }
    }
    return 0;
}

/* ns since the epoch of a tick, through the anchor taken at start. */
static uint64_t epoch_ns(const struct jclock_anchor *a, double hz, uint64_t ticks)
{
    long double d = ((long double)ticks - (long double)a->ticks) * 1e9L / (long double)hz;
    return (uint64_t)((long double)a->real_ns + d);
}

static void keep_worst(struct worst *w, int cpu, uint64_t start_ns, uint64_t max_ns, uint64_t at_ns)
{
    int k = WORST - 1;
    if (max_ns <= w[k].max_ns)
        return;
    while (k > 0 && w[k - 1].max_ns < max_ns) {
        w[k] = w[k - 1];
        k--;
    }
    w[k] = (struct worst){cpu, start_ns, max_ns, at_ns};
}

/* Everything a run keeps while intervals arrive. */
struct state {
    const struct args *a;
    struct jitter_run *run;
    const int *cpus;
    unsigned ncpu;
    double hz;
    struct jclock_anchor anchor;
    struct exporter *exp;
    FILE *outliers;
    struct jitter_counts *total; /* per CPU */
    struct hdr *hist;            /* scratch */
    struct worst worst[WORST];
    uint64_t intervals, merged, outliers_lost;
    int failed;
};

/* One interval of CPU k: totals, outliers, the exports. */
static void take_slot(struct state *st, unsigned k, const struct jitter_slot *s)
{
    char err[ERR_MAX], probe[16];
    const struct jitter_counts *c = &s->c;
    jitter_counts_add(&st->total[k], c);
    st->intervals++;
    st->merged += c->periods - 1;
    uint64_t start_ns = epoch_ns(&st->anchor, st->hz, c->start);
    uint64_t max_ns = (uint64_t)jclock_ns(c->max, st->hz);
    uint64_t at_ns = epoch_ns(&st->anchor, st->hz, c->max_at);
    keep_worst(st->worst, st->cpus[k], start_ns, max_ns, at_ns);
    if (st->outliers) {
        for (uint64_t i = 0; i < s->nout; i++) {
            const struct jitter_outlier *o = &s->out[i];
            double off_ms = ((double)o->at - (double)st->run->start_tick) / st->hz * 1e3;
            fprintf(st->outliers, "%d,%llu,%.6f,%.3f\n", st->cpus[k],
                    (unsigned long long)epoch_ns(&st->anchor, st->hz, o->at), off_ms,
                    jclock_ns(o->ticks, st->hz) / 1e3);
        }
        st->outliers_lost += c->nint - s->nout;
    }
    if (!st->exp || st->failed)
        return;
    jitter_counts_hdr(c, st->hz, st->hist);
    st->hist->max = max_ns; /* exact, not the converted bucket's */
    snprintf(probe, sizeof(probe), "cpu%d", st->cpus[k]);
    uint64_t len = c->end > c->start ? c->end - c->start : 0;
    struct export_point p = {
        .probe = probe,
        .start_ns = start_ns,
        .length_ns = (uint64_t)jclock_ns(len, st->hz),
        .hist = st->hist,
        .max_time_ns = at_ns,
        .stalled_pct = len ? 100.0 * (double)c->int_ticks / (double)len : 0,
        .gc_ms = -1,
        .safepoint_ms = -1,
    };
    if (export_point(st->exp, &p, err, sizeof(err)) != 0) {
        cli_msg_error("%s; stopping", err);
        st->failed = 1;
        jitter_stop(st->run);
    }
}

/* Drains every CPU's filled slots. Returns 1 once all spin threads ended and nothing is left. */
static int drain(struct state *st)
{
    int done = 1;
    for (unsigned k = 0; k < st->ncpu; k++) {
        int ended = jitter_ended(st->run, k);
        const struct jitter_slot *s;
        while ((s = jitter_next(st->run, k)) != NULL) {
            take_slot(st, k, s);
            jitter_release(st->run, k);
        }
        if (!ended)
            done = 0;
    }
    return done;
}

int cmd_jitter_run(int argc, char **argv)
{
    struct args a;
    char err[ERR_MAX], t1[32], t2[32], t3[32], allowed[256];
    static int cpus[MAX_CPUS];
    int ncpu;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(cmd_jitter_help, stdout);
            return 0;
        }
    }
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc;

    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof(mask), &mask) != 0) {
        cli_msg_error("jitter: cannot read this process's CPU affinity: %s", strerror(errno));
        return EXIT_FAIL;
    }
    mask_text(&mask, allowed, sizeof(allowed));
    if (a.cpus) {
        ncpu = parse_cpus(a.cpus, cpus, MAX_CPUS);
        if (ncpu < 0)
            return usage("jitter: -c: bad CPU list '%s': use numbers and ranges such as 0,2-3",
                         a.cpus);
        for (int i = 0; i < ncpu; i++) {
            if (!CPU_ISSET(cpus[i], &mask))
                return usage("jitter: -c: CPU %d is not in this process's affinity mask (it "
                             "may use %s)",
                             cpus[i], allowed);
        }
    } else {
        ncpu = 0;
        for (int c = 0; c < MAX_CPUS; c++) {
            if (CPU_ISSET(c, &mask))
                cpus[ncpu++] = c;
        }
    }
    if (a.report_ns > a.duration_ns)
        a.report_ns = a.duration_ns;

    /* FLYPROF_TSC_INVARIANT=0 plays a CPU without an invariant TSC, to test the warning */
    const char *force = getenv("FLYPROF_TSC_INVARIANT");
    int invariant = force && strcmp(force, "0") == 0 ? 0 : jclock_invariant();
    double hz;
    if (jclock_rate(100, &hz) != 0) {
        cli_msg_error("jitter: cannot measure the TSC's rate against CLOCK_MONOTONIC_RAW: the "
                      "TSC does not count time here");
        return EXIT_FAIL;
    }
    uint64_t cost = jclock_read_cost();
    double res_ns = jclock_ns(cost, hz);
    uint64_t thr = jclock_ticks((double)a.threshold_ns, hz);
    if (thr < 2 * cost)
        return usage("jitter: -t: the threshold %s is below the resolution: one TSC read takes "
                     "%s here; use %s or more",
                     jitter_report_time((double)a.threshold_ns, t1, sizeof(t1)),
                     jitter_report_time(res_ns, t2, sizeof(t2)),
                     jitter_report_time(2 * res_ns, t3, sizeof(t3)));
    uint64_t knee = a.knee_ns ? jclock_ticks((double)a.knee_ns, hz) : 4 * cost;
    uint64_t min = a.min_ns ? jclock_ticks((double)a.min_ns, hz) : cost / 2;
    if (min >= knee || knee - min < a.bins / 2) {
        /* the values as typed; a default as the time it comes to here */
        snprintf(t1, sizeof(t1), "%s%s", a.min_s ? "" : "(default) ",
                 a.min_s ? a.min_s : jitter_report_time(jclock_ns(min, hz), t3, sizeof(t3)));
        snprintf(t2, sizeof(t2), "%s%s", a.knee_s ? "" : "(default) ",
                 a.knee_s ? a.knee_s : jitter_report_time(jclock_ns(knee, hz), t3, sizeof(t3)));
        return usage("jitter: --min %s must be below --knee %s by at least %u TSC ticks (one "
                     "per linear bin; %llu and %llu ticks here)",
                     t1, t2, a.bins / 2, (unsigned long long)min, (unsigned long long)knee);
    }

    struct state st;
    memset(&st, 0, sizeof(st));
    st.a = &a;
    st.cpus = cpus;
    st.ncpu = (unsigned)ncpu;
    st.hz = hz;
    FILE *outliers = NULL;
    if (a.outliers) {
        outliers = fopen(a.outliers, "w");
        if (!outliers) {
            cli_msg_error("jitter: --outliers: cannot create '%s': %s", a.outliers,
                          strerror(errno));
            return EXIT_FAIL;
        }
        fprintf(outliers, "cpu,time,offset_ms,delay_us\n");
    }
    jclock_anchor(&st.anchor);
    char comment[256];
    snprintf(comment, sizeof(comment),
             "flyprof jitter: TSC gaps in ns, TSC %.2f MHz, resolution %.1f ns, threshold %s",
             hz / 1e6, res_ns, jitter_report_time((double)a.threshold_ns, t1, sizeof(t1)));
    struct export_opts eo = {a.hlog, a.csv, a.influx, "jitter", comment, st.anchor.real_ns};
    if ((a.hlog || a.csv || a.influx) && export_open(&st.exp, &eo, err, sizeof(err)) != 0) {
        cli_msg_error("jitter: %s", err);
        if (outliers) {
            fclose(outliers);
            unlink(a.outliers);
        }
        return EXIT_FAIL;
    }
    st.outliers = outliers;
    st.total = malloc((size_t)ncpu * sizeof(*st.total));
    st.hist = malloc(sizeof(*st.hist));
    struct jitter_run *run = malloc(sizeof(*run));
    if (!st.total || !st.hist || !run) {
        cli_msg_error("out of memory");
        rc = EXIT_FAIL;
        goto out;
    }
    for (int k = 0; k < ncpu; k++)
        jitter_counts_reset(&st.total[k]);

    printf("flyprof jitter: %d CPU%s (", ncpu, ncpu == 1 ? "" : "s");
    for (int k = 0; k < ncpu; k++)
        printf(k ? ",%d" : "%d", cpus[k]);
    printf("), %s, intervals of %s, interruptions from %s\n",
           jitter_report_time((double)a.duration_ns, t1, sizeof(t1)),
           jitter_report_time((double)a.report_ns, t2, sizeof(t2)),
           jitter_report_time((double)a.threshold_ns, t3, sizeof(t3)));
    printf("TSC: %.2f MHz, %s; resolution: one read takes %.1f ns (%llu ticks): shorter "
           "delays are not seen\n",
           hz / 1e6, invariant ? "invariant" : "NOT invariant", res_ns, (unsigned long long)cost);
    fflush(stdout);
    if (!invariant)
        cli_msg_error("warning: the TSC is not invariant (CPUID 0x80000007): its rate may change "
                      "with the CPU's frequency or stop in idle states, so the gaps are only as "
                      "right as the rate measured at the start");

    struct jitter_config cfg = {
        .cpus = cpus,
        .ncpu = (unsigned)ncpu,
        .hz = hz,
        .duration_ticks = jclock_ticks((double)a.duration_ns, hz),
        .report_ticks = jclock_ticks((double)a.report_ns, hz),
        .threshold_ticks = thr,
    };
    st.run = run;
    if (jitter_start(run, &cfg, err, sizeof(err)) != 0) {
        cli_msg_error("jitter: %s", err);
        rc = EXIT_FAIL;
        goto out;
    }
    running = run;
    printf("measuring%s\n", isatty(STDOUT_FILENO) ? " (Ctrl-C stops early)" : "");
    fflush(stdout);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    uint64_t nap = a.report_ns / 2;
    if (nap > 200000000ull)
        nap = 200000000ull;
    if (nap < 5000000ull)
        nap = 5000000ull;
    while (!drain(&st)) {
        struct timespec ts = {(time_t)(nap / 1000000000ull), (long)(nap % 1000000000ull)};
        nanosleep(&ts, NULL);
    }
    running = NULL;
    struct jclock_anchor end;
    jclock_anchor(&end);
    jitter_join(run);
    if (end.mono_ns > st.anchor.mono_ns + 500000000ull)
        hz =
            (double)(end.ticks - st.anchor.ticks) * 1e9 / (double)(end.mono_ns - st.anchor.mono_ns);

    struct jitter_report_opts ro = {
        .hz = hz,
        .bins = a.bins,
        .knee_ticks = knee,
        .min_ticks = min,
        .sum = a.sum,
        .threshold_ticks = thr,
        .width = 80,
    };
    printf("\n");
    for (int k = 0; k < ncpu; k++)
        jitter_report_histogram(stdout, cpus[k], &st.total[k], &ro);
    jitter_report_table(stdout, cpus, st.total, (unsigned)ncpu, &ro);
    printf("\nWorst intervals (longest gap, when it began):\n");
    for (int i = 0; i < WORST && st.worst[i].max_ns; i++) {
        time_t sec = (time_t)(st.worst[i].at_ns / 1000000000ull);
        struct tm tm;
        char when[32] = "";
        if (localtime_r(&sec, &tm))
            strftime(when, sizeof(when), "%H:%M:%S", &tm);
        printf("  cpu%-3d %9s at %s.%09llu (%.3f s after the start)\n", st.worst[i].cpu,
               jitter_report_time((double)st.worst[i].max_ns, t1, sizeof(t1)), when,
               (unsigned long long)(st.worst[i].at_ns % 1000000000ull),
               ((double)st.worst[i].at_ns - (double)st.anchor.real_ns) / 1e9);
    }
    if (st.merged)
        cli_msg_error("warning: %llu report intervals were merged into the previous one: "
                      "flyprof's reading thread fell behind",
                      (unsigned long long)st.merged);
    if (st.outliers_lost)
        cli_msg_error("warning: %llu interruptions were not written to '%s' (more than %d in "
                      "one interval)",
                      (unsigned long long)st.outliers_lost, a.outliers, JITTER_OUT_MAX);
    rc = st.failed ? EXIT_FAIL : 0;
out:
    if (export_close(st.exp, err, sizeof(err)) != 0) {
        cli_msg_error("jitter: %s", err);
        rc = EXIT_FAIL;
    }
    if (outliers && (ferror(outliers) | fclose(outliers))) {
        cli_msg_error("jitter: cannot write '%s': %s", a.outliers, strerror(errno));
        rc = EXIT_FAIL;
    }
    free(st.total);
    free(st.hist);
    free(run);
    return rc;
}

const struct cli_cmd cmd_jitter = {
    "jitter",
    "this machine's jitter: how long a spinning thread is kept from running, per CPU (no JVM)",
    cmd_jitter_help,
    cmd_jitter_run,
};
