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
#include "cli_fleet.h"
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
    a->kept = format == RENDER_FILE_JFR; /* an event per allocation, per lock wait */
    a->spill = format == RENDER_FILE_JFR; /* an event per sample, at its own time */
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

/* convert --db: the fleet's profile from ClickHouse, written as a log into a memory file and
 * read as any log. */
static int convert_db(struct cli_fleet *f, struct cli_select *a, const char *chunk_size,
                      const char *chunk_time)
{
    char path[64], title[200];
    int fd = cli_fleet_open("convert", f, a->from, a->to, path, sizeof(path));
    if (fd < 0)
        return -fd;
    a->from = a->to = NULL; /* the window is ClickHouse's WHERE */
    if (!a->title) {
        snprintf(title, sizeof(title), "%s%s%s", f->sel.service, f->sel.host ? " on " : "",
                 f->sel.host ? f->sel.host : "");
        a->title = title;
    }
    const char *in = path;
    int rc = convert(&in, 1, a, chunk_size, chunk_time);
    close(fd);
    return rc;
}

static int run(int argc, char **argv)
{
    struct cli_select a = {0};
    const char *chunk_size = NULL, *chunk_time = NULL;
    struct cli_fleet f;
    int rc;
    /* the logs: at most every argument */
    const char **ins = calloc((size_t)argc, sizeof(*ins));
    size_t nin = 0;
    if (!ins || cli_fleet_init(&f, argc) != 0) {
        free(ins);
        cli_msg_error("out of memory");
        return CLI_EXIT_FAIL;
    }
    for (int i = 1; i < argc; i++) {
        if (cli_args_is_help(argv[i])) {
            cli_args_help(&cmd_convert, stdout);
            rc = CLI_EXIT_OK;
            goto out;
        } else if ((rc = cli_args_value(argc, argv, &i, "--chunk-size", NULL, &chunk_size)) ||
                   (rc = cli_args_value(argc, argv, &i, "--chunk-time", NULL, &chunk_time))) {
            if (rc < 0) {
                rc = cli_msg_usage("convert", "convert: %s needs a value", argv[i]);
                goto out;
            }
        } else if ((rc = cli_fleet_option("convert", argc, argv, &i, &f)) != 0) {
            if (rc < 0) {
                rc = -rc;
                goto out;
            }
        } else if ((rc = cli_select_option("convert", argc, argv, &i, &a)) != 0) {
            if (rc != 1)
                goto out;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rc = cli_msg_usage("convert", "convert: unknown option '%s'", argv[i]);
            goto out;
        } else if (nin == CONVERT_MAX_LOGS) {
            rc = cli_msg_usage("convert", "convert: more than %d input logs", CONVERT_MAX_LOGS);
            goto out;
        } else {
            ins[nin++] = argv[i];
        }
    }
    if (f.db && nin)
        rc = cli_msg_usage("convert", "convert: logs or --db, not both");
    else if (f.db)
        rc = convert_db(&f, &a, chunk_size, chunk_time);
    else if (f.sel.service || f.sel.host || f.sel.nlabels)
        rc = cli_msg_usage("convert", "convert: --service, --host and --label select in --db");
    else
        rc = nin ? convert(ins, nin, &a, chunk_size, chunk_time)
                 : cli_msg_usage("convert", "convert: no input log");
out:
    free(ins);
    cli_fleet_destroy(&f);
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
    CLI_FLEET_HELP CLI_SELECT_HELP
    "\n"
    "examples:\n"
    "  flyprof convert profile.fpl -o profile.html\n"
    "  flyprof convert app-*.fpl -o day.html    (every log of loop= as one profile)\n"
    "  flyprof convert profile.fpl --kind all -o t.html  (open t.html#view=timeline&span=ID)\n"
    "  flyprof convert --db http://ch:8123 --service orders --from 14:00 -o fleet.html\n",
    run,
};
