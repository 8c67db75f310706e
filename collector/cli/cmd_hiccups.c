/* cmd_hiccups.c: `flyprof hiccups IN.fpl`: reads the log (profile.c for the clock and the
 * names, hiccups.c for the probes' records and the causes), prints out_hiccups.c's report and
 * exports the probes' intervals (export.c). */
#include "cmd_hiccups.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_msg.h"
#include "export.h"
#include "hiccups.h"
#include "out_hiccups.h"
#include "profile.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define ERR_MAX 1024
#define DEFAULT_TOP 20

const char cmd_hiccups_help[] =
    "usage: flyprof hiccups IN.fpl [--top N] [--stalls F] [--hlog F] [--csv F] [--influx URL]\n"
    "\n"
    "Shows the hiccups of a log recorded with the agent option hiccup[=RESOLUTION] (and\n"
    "stall=THRESHOLD): per probe (java: a Java thread, stopped by safepoints and GC; os: a\n"
    "native thread, the OS alone) the delays' percentiles and max, the stalls by cause, the\n"
    "JVM's GC pauses and safepoints, steal, and the longest stalls: when, how long, their\n"
    "cause (gc, safepoint, os/cpu, unknown) and why, and what the sampled threads were doing.\n"
    "\n"
    "options:\n"
    "  --top N         the N longest stalls (default 20)\n"
    "  --stalls F      every stall as CSV: start, end (ns since the epoch), duration_ns,\n"
    "                  probe, cause, GC and OS-probe overlap, run-queue wait, safepoints and\n"
    "                  their time, samples in its window\n"
    "  --hlog F        HdrHistogram interval log: one histogram per probe and second\n"
    "  --csv F         time series: time (ns since the epoch), probe, count, p50, p99, p99.9\n"
    "                  and max in ns, when the max began, % stalled, GC ms, safepoint ms\n"
    "  --influx URL    the same points into InfluxDB: http://HOST:PORT/write?db=NAME or\n"
    "                  udp://HOST:PORT\n"
    "\n"
    "example:\n"
    "  java -agentpath:libflyprof.so=hiccup,stall=10ms,file=app.fpl -jar app.jar\n"
    "  flyprof hiccups app.fpl --csv hiccups.csv\n";

static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_msg_verror(fmt, ap);
    va_end(ap);
    fprintf(stderr, "see 'flyprof hiccups --help'\n");
    return EXIT_USAGE;
}

int cmd_hiccups_run(int argc, char **argv)
{
    const char *in = NULL, *hlog = NULL, *csv = NULL, *influx = NULL, *stalls = NULL;
    size_t top = DEFAULT_TOP;
    char err[ERR_MAX];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(cmd_hiccups_help, stdout);
            return 0;
        }
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], **dst = NULL;
        const char *name = a;
        if (strcmp(a, "--hlog") == 0 || strncmp(a, "--hlog=", 7) == 0)
            dst = &hlog, name = "--hlog";
        else if (strcmp(a, "--csv") == 0 || strncmp(a, "--csv=", 6) == 0)
            dst = &csv, name = "--csv";
        else if (strcmp(a, "--influx") == 0 || strncmp(a, "--influx=", 9) == 0)
            dst = &influx, name = "--influx";
        else if (strcmp(a, "--stalls") == 0 || strncmp(a, "--stalls=", 9) == 0)
            dst = &stalls, name = "--stalls";
        else if (strcmp(a, "--top") == 0 || strncmp(a, "--top=", 6) == 0)
            name = "--top";
        if (dst || strcmp(name, "--top") == 0) {
            const char *v = strchr(a, '=');
            if (v) {
                v++;
            } else if (i + 1 < argc) {
                v = argv[++i];
            } else {
                return usage("hiccups: %s needs a value", name);
            }
            if (dst) {
                *dst = v;
            } else {
                char *end;
                long n = strtol(v, &end, 10);
                if (*end || end == v || n < 0 || n > 100000)
                    return usage("hiccups: --top: '%s' is not a number from 0 to 100000", v);
                top = (size_t)n;
            }
        } else if (a[0] == '-' && a[1]) {
            return usage("hiccups: unknown option '%s'", a);
        } else if (in) {
            return usage("hiccups: one input log only ('%s' and '%s')", in, a);
        } else {
            in = a;
        }
    }
    if (!in)
        return usage("hiccups: no input log");

    struct profile *p = profile_new();
    if (!p) {
        cli_msg_error("out of memory");
        return EXIT_FAIL;
    }
    struct hiccups h;
    memset(&h, 0, sizeof(h));
    struct exporter *e = NULL;
    int rc = profile_read_file(p, in, err, sizeof(err));
    if (rc == 0)
        rc = hiccups_read(&h, p, in, err, sizeof(err));
    if (rc) {
        cli_msg_error("%s", err);
        goto out;
    }
    if (!h.present) {
        cli_msg_error("hiccups: '%s' has no hiccup records: record with the agent option "
                      "hiccup (e.g. -agentpath:libflyprof.so=hiccup,file=app.fpl)",
                      in);
        rc = -ENOENT;
        goto out;
    }
    if (!p->end_seen)
        cli_msg_error("warning: '%s' has no END record: it was cut off (crash) or is still being "
                      "written",
                      in);
    if (hlog || csv || influx) {
        struct export_opts eo = {hlog,
                                 csv,
                                 influx,
                                 "hiccups",
                                 "flyprof hiccups: probe delays "
                                 "in ns",
                                 profile_ticks_to_real_ns(p, p->base_ticks)};
        if ((rc = export_open(&e, &eo, err, sizeof(err))) != 0 ||
            (rc = out_hiccups_export(p, &h, e, err, sizeof(err))) != 0) {
            cli_msg_error("hiccups: %s", err);
            goto out;
        }
    }
    if (stalls) {
        FILE *f = fopen(stalls, "w");
        rc = f ? out_hiccups_stalls_csv(f, p, &h) : -errno;
        if (f && (fclose(f) != 0 && !rc))
            rc = -errno;
        if (rc) {
            cli_msg_error("hiccups: cannot write '%s': %s", stalls, strerror(-rc));
            goto out;
        }
    }
    rc = out_hiccups_text(stdout, p, &h, top);
    if (rc)
        cli_msg_error("hiccups: writing the report: %s", strerror(-rc));
out:
    if (e && export_close(e, err, sizeof(err)) != 0 && !rc) {
        cli_msg_error("hiccups: %s", err);
        rc = -EIO;
    }
    hiccups_free(&h);
    profile_free(p);
    return rc ? EXIT_FAIL : 0;
}

const struct cli_cmd cmd_hiccups = {
    "hiccups",
    "the hiccups of a log recorded with hiccup mode: stalls and their causes",
    cmd_hiccups_help,
    cmd_hiccups_run,
};
