/* cmd_convert.c: `flyprof convert IN.fpl... -o OUT`: renders a log, or several as one profile,
 * into a flame graph, pprof, JFR, folded stacks or a text report. */
#include "cmd_convert.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cli_args.h"
#include "cli_msg.h"
#include "cli_select.h"
#include "fleetlog.h"
#include "render_file.h"

#define ERR_MAX 1024
#define CONVERT_MAX_LOGS 65536 /* the logs one convert merges (profile_read_files' ids) */
#define CHUNK_MIN_BYTES 1024ull
#define CHUNK_MAX_BYTES (1ull << 40)

/* A size for --chunk-size: a number of bytes with an optional k, M or G (powers of 1024).
 * Returns 0 with *bytes set, or -EINVAL. */
static int parse_size(const char *s, uint64_t *bytes)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno || *s == '-')
        return -EINVAL;
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10, end++;
    else if (*end == 'M')
        shift = 20, end++;
    else if (*end == 'G')
        shift = 30, end++;
    if (*end == 'B')
        end++;
    if (*end || v > (CHUNK_MAX_BYTES >> shift))
        return -EINVAL;
    *bytes = (uint64_t)v << shift;
    return 0;
}

/* Reads the logs ins[0..nin) with the selection of a and writes a->out; chunk_size and
 * chunk_time (may be NULL): JFR's chunks. */
static int convert(const char *const *ins, size_t nin, struct cli_select *a,
                   const char *chunk_size, const char *chunk_time)
{
    struct render_opts o;
    struct profile_time from, to;
    char err[ERR_MAX];
    int rc;

    if (!a->out)
        return cli_msg_usage("convert", "convert: no output: add -o OUT (%s; or -o - for stdout)",
                             RENDER_FILE_EXTENSIONS);
    if ((rc = cli_select_parse("convert", a, &o, &from, &to)) != 0)
        return rc;
    int format = render_file_format(a->out, a->format, err, sizeof(err));
    if (format < 0)
        return cli_msg_usage("convert", "convert: %s", err);
    if ((chunk_size || chunk_time) && format != RENDER_FILE_JFR)
        return cli_msg_usage("convert", "convert: --chunk-size and --chunk-time are for JFR "
                                        "output (.jfr, --format jfr)");
    if (chunk_size &&
        (parse_size(chunk_size, &o.chunk_bytes) != 0 || o.chunk_bytes < CHUNK_MIN_BYTES))
        return cli_msg_usage("convert",
                             "convert: --chunk-size '%s': give bytes, at least 1k (4096, 512k, "
                             "12M, 1G)",
                             chunk_size);
    if (chunk_time && (rc = cli_args_time("convert", "--chunk-time", chunk_time, 1000000ull,
                                          366ull * 86400 * 1000000000ull, 3600000000000ull,
                                          "chunk time", &o.chunk_ns)) != 0)
        return rc;

    /* pprof labels each sample with its trace context (JFR: flyprof.ContextSample); the
     * page's timeline needs the samples' times (and keeps their requests apart, timeline.h) */
    a->cells_by_context = format == RENDER_FILE_PPROF || format == RENDER_FILE_JFR;
    a->timeline = format == RENDER_FILE_HTML || format == RENDER_FILE_JFR; /* JFR: event times */
    struct profile *p = cli_select_read_logs(ins, nin, a, &from, &to);
    if (!p)
        return CLI_EXIT_FAIL;
    cli_select_warn_empty(p, p->name, &o);
    rc = render_file_write(p, &o, a->out, a->format, err, sizeof(err));
    if (rc)
        cli_msg_error("%s", err);
    profile_free(p);
    return rc ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

/* A --from/--to bound for ClickHouse: seconds since the epoch (a clock time is today's). */
static int db_time(const char *opt, const char *v, int64_t *s)
{
    struct profile_time t;
    char err[ERR_MAX];
    if (profile_time_parse(v, &t, err, sizeof(err)) != 0)
        return cli_msg_usage("convert", "convert: %s", err);
    if (t.kind == PROFILE_TIME_REL)
        return cli_msg_usage("convert", "convert: with --db, %s takes a clock time (14:03:05) "
                                        "or a date and time (2026-11-21T14:03:05), not '%s'",
                             opt, v);
    if (t.kind == PROFILE_TIME_CLOCK) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
        tm.tm_isdst = -1;
        *s = (int64_t)mktime(&tm) + (int64_t)(t.ns / 1000000000ull);
    } else {
        *s = (int64_t)(t.ns / 1000000000ull);
    }
    return 0;
}

/* convert --db: the fleet's profile from ClickHouse, written as a log into a memory file and
 * read as any log. */
static int convert_db(const char *db, struct fleet_sel *sel, struct cli_select *a,
                      const char *chunk_size, const char *chunk_time)
{
    struct chttp_url u;
    char err[ERR_MAX];
    int rc;
    if (!sel->service)
        return cli_msg_usage("convert", "convert: --db needs --service NAME");
    if (chttp_url_parse(db, &u, err, sizeof(err)) != 0)
        return cli_msg_usage("convert", "convert: %s", err);
    if ((a->from && (rc = db_time("--from", a->from, &sel->from_s)) != 0) ||
        (a->to && (rc = db_time("--to", a->to, &sel->to_s)) != 0))
        return rc;
    a->from = a->to = NULL; /* the window is ClickHouse's WHERE */
    int fd = memfd_create("flyprof-fleet", MFD_CLOEXEC);
    if (fd < 0) {
        cli_msg_error("cannot make a memory file for the fleet's profile: %s", strerror(errno));
        return CLI_EXIT_FAIL;
    }
    uint64_t rows = 0;
    if (fleetlog_write(&u, sel, fd, &rows, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        close(fd);
        return CLI_EXIT_FAIL;
    }
    char path[64], title[200];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    if (!a->title) {
        snprintf(title, sizeof(title), "%s%s%s", sel->service, sel->host ? " on " : "",
                 sel->host ? sel->host : "");
        a->title = title;
    }
    const char *in = path;
    rc = convert(&in, 1, a, chunk_size, chunk_time);
    close(fd);
    return rc;
}

static int run(int argc, char **argv)
{
    struct cli_select a = {0};
    const char *chunk_size = NULL, *chunk_time = NULL, *db = NULL;
    struct fleet_sel sel = {0};
    int rc;
    /* the logs: at most every argument */
    const char **ins = calloc((size_t)argc, sizeof(*ins));
    const char **labels = calloc((size_t)argc, sizeof(*labels));
    size_t nin = 0;
    if (!ins || !labels) {
        free(labels);
        cli_msg_error("out of memory");
        return CLI_EXIT_FAIL;
    }
    for (int i = 1; i < argc; i++) {
        if (cli_args_is_help(argv[i])) {
            cli_args_help(&cmd_convert, stdout);
            free(ins);
            free(labels);
            return CLI_EXIT_OK;
        } else if ((rc = cli_args_value(argc, argv, &i, "--chunk-size", NULL, &chunk_size)) ||
                   (rc = cli_args_value(argc, argv, &i, "--chunk-time", NULL, &chunk_time)) ||
                   (rc = cli_args_value(argc, argv, &i, "--db", NULL, &db)) ||
                   (rc = cli_args_value(argc, argv, &i, "--service", NULL, &sel.service)) ||
                   (rc = cli_args_value(argc, argv, &i, "--host", NULL, &sel.host)) ||
                   (rc = cli_args_value(argc, argv, &i, "--label", NULL,
                                        &labels[sel.nlabels]))) {
            if (rc < 0) {
                free(ins);
                free(labels);
                return cli_msg_usage("convert", "convert: %s needs a value", argv[i]);
            }
            if (labels[sel.nlabels])
                sel.nlabels++;
        } else if ((rc = cli_select_option("convert", argc, argv, &i, &a)) != 0) {
            if (rc != 1) {
                free(ins);
                free(labels);
                return rc;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            free(ins);
            free(labels);
            return cli_msg_usage("convert", "convert: unknown option '%s'", argv[i]);
        } else if (nin == CONVERT_MAX_LOGS) {
            free(ins);
            free(labels);
            return cli_msg_usage("convert", "convert: more than %d input logs", CONVERT_MAX_LOGS);
        } else {
            ins[nin++] = argv[i];
        }
    }
    sel.labels = labels;
    if (db && nin)
        rc = cli_msg_usage("convert", "convert: logs or --db, not both");
    else if (db)
        rc = convert_db(db, &sel, &a, chunk_size, chunk_time);
    else if (sel.service || sel.host || sel.nlabels)
        rc = cli_msg_usage("convert", "convert: --service, --host and --label select in --db");
    else
        rc = nin ? convert(ins, nin, &a, chunk_size, chunk_time)
                 : cli_msg_usage("convert", "convert: no input log");
    free(ins);
    free(labels);
    return rc;
}

const struct cli_cmd cmd_convert = {
    "convert",
    "render a log: flame graph, pprof, JFR, folded stacks or a text report",
    "usage: flyprof convert IN.fpl... -o OUT [--format FORMAT] [SELECTION]\n"
    "\n"
    "Renders the log IN.fpl, several as one profile (the logs of loop=, of many JVMs; the\n"
    "window from the first one's start), or a JFR recording into OUT, in the format of its\n"
    "extension: .html (a flame graph), .pb.gz (pprof), .jfr (JFR: jfr, JDK Mission Control,\n"
    "IntelliJ), .collapsed or .folded (folded stacks), .txt (top methods and a call tree).\n"
    "\n"
    "options:\n"
    "  -o, --output OUT      the output file; '-' writes folded stacks to standard output\n"
    "  --format FORMAT       collapsed, html, jfr, pprof or txt, whatever OUT's "
    "extension\n"
    "  --chunk-size SIZE     JFR: a new chunk per SIZE bytes (12M), --chunk-time TIME (1h)\n"
    "  --db URL --service S  the fleet's profile from ClickHouse (flyprof push) instead of\n"
    "                        logs; --host H, --label K=V narrow it\n" CLI_SELECT_HELP
    "\n"
    "examples:\n"
    "  flyprof convert profile.fpl -o profile.html\n"
    "  flyprof convert app-*.fpl -o day.html    (every log of loop= as one profile)\n"
    "  flyprof convert profile.fpl --kind all -o t.html  (open t.html#view=timeline&span=ID)\n"
    "  flyprof convert --db http://ch:8123 --service orders --from 14:00 -o fleet.html\n",
    run,
};
