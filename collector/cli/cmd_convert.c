/* cmd_convert.c: `flyprof convert IN.fpl... -o OUT`: renders a log, or several as one profile,
 * into a flame graph, pprof, folded stacks or a text report. */
#include "cmd_convert.h"

#include <stdlib.h>

#include "cli_msg.h"
#include "cli_select.h"
#include "render_file.h"

#define ERR_MAX 1024
#define CONVERT_MAX_LOGS 65536 /* the logs one convert merges (profile_read_files' ids) */

/* Reads the logs ins[0..nin) with the selection of a and writes a->out. */
static int convert(const char *const *ins, size_t nin, struct cli_select *a)
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

    /* pprof labels each sample with its trace context; the page's timeline needs the
     * samples' times (and keeps their requests apart, timeline.h) */
    a->cells_by_context = format == RENDER_FILE_PPROF;
    a->timeline = format == RENDER_FILE_HTML;
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

static int run(int argc, char **argv)
{
    struct cli_select a = {0};
    int rc;
    /* the logs: at most every argument */
    const char **ins = calloc((size_t)argc, sizeof(*ins));
    size_t nin = 0;
    if (!ins) {
        cli_msg_error("out of memory");
        return CLI_EXIT_FAIL;
    }
    for (int i = 1; i < argc; i++) {
        if (cli_args_is_help(argv[i])) {
            cli_args_help(&cmd_convert, stdout);
            free(ins);
            return CLI_EXIT_OK;
        } else if ((rc = cli_select_option("convert", argc, argv, &i, &a)) != 0) {
            if (rc != 1) {
                free(ins);
                return rc;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            free(ins);
            return cli_msg_usage("convert", "convert: unknown option '%s'", argv[i]);
        } else if (nin == CONVERT_MAX_LOGS) {
            free(ins);
            return cli_msg_usage("convert", "convert: more than %d input logs", CONVERT_MAX_LOGS);
        } else {
            ins[nin++] = argv[i];
        }
    }
    rc = nin ? convert(ins, nin, &a) : cli_msg_usage("convert", "convert: no input log");
    free(ins);
    return rc;
}

const struct cli_cmd cmd_convert = {
    "convert",
    "render a log: flame graph, pprof, folded stacks or a text report",
    "usage: flyprof convert IN.fpl... -o OUT [--format FORMAT] [SELECTION]\n"
    "\n"
    "Renders the log IN.fpl into OUT. OUT's extension picks the format: .html (an interactive\n"
    "flame graph), .pb.gz (pprof), .collapsed or .folded (folded stacks), .txt (top methods and\n"
    "a call tree). Several logs make one profile: the logs of loop= (app-*.fpl), or of many\n"
    "JVMs (--from/--to: times after the first log's start, or clock times).\n"
    "\n"
    "options:\n"
    "  -o, --output OUT      the output file; '-' writes folded stacks to standard output\n"
    "  --format FORMAT       collapsed, html, pprof or txt, whatever OUT's "
    "extension\n" CLI_SELECT_HELP "\n"
    "examples:\n"
    "  flyprof convert profile.fpl -o profile.html\n"
    "  flyprof convert app-*.fpl -o day.html         (every log of loop= as one profile)\n"
    "  flyprof convert profile.fpl --kind all -o t.html   (open t.html#view=timeline&span=ID:\n"
    "                                  one request, as `flyprof summary` names the slowest)\n"
    "  flyprof convert profile.fpl --kind wall --state blocked -o blocked.collapsed\n",
    run,
};
