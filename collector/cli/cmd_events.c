/* cmd_events.c: `flyprof events`: reads a log's events (eventlog.c) and writes the listing and
 * interval table (out_events.c). */
#include "cmd_events.h"

#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli_msg.h"
#include "eventlog.h"
#include "out_events.h"

#define EXIT_FAIL 1
#define ERR_MAX 1024

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "flyprof: events: <message>" and where the usage is; returns CLI_EXIT_USAGE. */
static int usage_error(const char *fmt, ...)
{
    char msg[ERR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return cli_msg_usage("events", "events: %s", msg);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Warns about what makes the listing incomplete. */
static void warn(const struct eventlog *el, const char *in)
{
    const struct reader_stats *s = &el->p->stats;
    if (s->chunks_damaged || s->chunks_lost || s->chunks_bad_framing || s->bad_records)
        cli_msg_error("warning: '%s' is damaged (%llu damaged regions, %llu chunks lost, %llu "
                      "undecodable records): the events of those parts are missing",
                      in, (unsigned long long)s->chunks_damaged, (unsigned long long)s->chunks_lost,
                      (unsigned long long)s->bad_records);
    if (!el->p->end_seen)
        cli_msg_error("warning: '%s' has no END record: it was cut off (crash) or is still being "
                      "written",
                      in);
    if (el->p->window.set && !el->p->window.resolved)
        cli_msg_error("warning: '%s' has no clock information (header lost): --from/--to cannot "
                      "be placed, no events are selected",
                      in);
    if (!el->nevents && !el->p->events.dropped)
        cli_msg_error("warning: '%s' has no events (the program logged none with "
                      "dev.flyprof.Events while profiling ran, or events=0)",
                      in);
}

static int run(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *thread = NULL, *from_s = NULL, *to_s = NULL;
    int table_only = 0;
    char err[ERR_MAX];

    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int m;
        if (cli_args_is_help(argv[i])) {
            cli_args_help(&cmd_events, stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--table") == 0) {
            table_only = 1;
        } else if ((m = cli_args_value(argc, argv, &i, "--thread", NULL, &v)) != 0) {
            if (m < 0)
                return usage_error("--thread needs a regular expression");
            thread = v;
        } else if ((m = cli_args_value(argc, argv, &i, "--from", NULL, &v)) != 0) {
            if (m < 0)
                return usage_error("--from needs a time such as 2.5s or 14:03:05");
            from_s = v;
        } else if ((m = cli_args_value(argc, argv, &i, "--to", NULL, &v)) != 0) {
            if (m < 0)
                return usage_error("--to needs a time such as 2.5s or 14:03:05");
            to_s = v;
        } else if ((m = cli_args_value(argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (m < 0)
                return usage_error("-o needs a file (.txt or .csv, or - for stdout)");
            out = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("unknown option '%s'", argv[i]);
        } else if (in) {
            return usage_error("one input log only ('%s' and '%s')", in, argv[i]);
        } else {
            in = argv[i];
        }
    }
    if (!in)
        return usage_error("no input log");
    int csv = 0;
    if (out && strcmp(out, "-") != 0) {
        if (ends_with(out, ".csv"))
            csv = 1;
        else if (!ends_with(out, ".txt"))
            return usage_error("output '%s': name it .txt (text) or .csv", out);
    }
    regex_t re;
    if (thread) {
        int rc = regcomp(&re, thread, REG_EXTENDED | REG_NOSUB);
        if (rc) {
            char msg[256];
            regerror(rc, &re, msg, sizeof(msg));
            return usage_error("--thread: bad regular expression '%s': %s (POSIX extended "
                               "syntax)",
                               thread, msg);
        }
    }
    struct profile_time from = {PROFILE_TIME_NONE, 0}, to = {PROFILE_TIME_NONE, 0};
    const char *bad = from_s && profile_time_parse(from_s, &from, err, sizeof(err)) != 0 ? "--from"
                      : to_s && profile_time_parse(to_s, &to, err, sizeof(err)) != 0     ? "--to"
                                                                                         : NULL;
    if (bad || (from_s && to_s && from.kind == to.kind && from.ns >= to.ns)) {
        if (thread)
            regfree(&re);
        if (bad)
            return usage_error("%s: %s", bad, err);
        return usage_error("empty time window: --from %s is not before --to %s", from_s, to_s);
    }

    int code = EXIT_FAIL;
    FILE *f = NULL;
    struct eventlog *el = eventlog_read(in, &from, &to, err, sizeof(err));
    if (!el) {
        cli_msg_error("%s", err);
        goto out;
    }
    warn(el, in);
    if (out && strcmp(out, "-") != 0) {
        f = fopen(out, "w");
        if (!f) {
            cli_msg_error("cannot write '%s': %s", out, strerror(errno));
            goto out;
        }
    }
    struct eventlog_select sel = {thread ? &re : NULL};
    struct out_events_opts o = {&sel, table_only, in};
    int rc = csv ? out_events_csv(el, &o, f ? f : stdout, err, sizeof(err))
                 : out_events_text(el, &o, f ? f : stdout, err, sizeof(err));
    if (f && fclose(f) != 0 && rc == 0) {
        snprintf(err, sizeof(err), "events: cannot write '%s': %s", out, strerror(errno));
        rc = -EIO;
    }
    f = NULL;
    if (rc)
        cli_msg_error("%s", err);
    else
        code = 0;
out:
    if (f)
        fclose(f);
    eventlog_free(el);
    if (thread)
        regfree(&re);
    return code;
}

const struct cli_cmd cmd_events = {
    "events",
    "the events a program logged with dev.flyprof.Events, and their intervals",
    "usage: flyprof events IN.fpl [--thread RE] [--from T] [--to T] [--table]\n"
    "                      [-o FILE.txt|FILE.csv]\n"
    "\n"
    "Lists the events logged with dev.flyprof.Events, per thread and in order: each event's\n"
    "time since the first event and distance from the thread's previous one in ns, n and the\n"
    "string; then count, min, p50, p99 and max of the interval for each pair of consecutive\n"
    "event numbers (n -> next n on the same thread).\n"
    "\n"
    "options:\n"
    "  --thread RE           only threads whose name matches RE (POSIX ERE)\n"
    "  --from T, --to T      only events in this time window (as for convert)\n"
    "  --table               only the interval table\n"
    "  -o FILE               write there (.txt: text, .csv: one row per event); default stdout\n"
    "\n"
    "example:\n"
    "  flyprof events app.fpl --thread '^http-' --table\n",
    run,
};
