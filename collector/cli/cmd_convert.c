/* cmd_convert.c: `flyprof convert IN.fpl -o OUT`: renders a log into a flame graph, pprof,
 * folded stacks or a text report. */
#include "cmd_convert.h"

#include "cli_msg.h"
#include "cli_select.h"
#include "render_file.h"

#define ERR_MAX 1024

static int run(int argc, char **argv)
{
    const char *in = NULL;
    struct cli_select a = {0};
    struct render_opts o;
    struct profile_time from, to;
    char err[ERR_MAX];
    int rc;

    for (int i = 1; i < argc; i++) {
        if (cli_args_is_help(argv[i])) {
            cli_args_help(&cmd_convert, stdout);
            return CLI_EXIT_OK;
        } else if ((rc = cli_select_option("convert", argc, argv, &i, &a)) != 0) {
            if (rc != 1)
                return rc;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_msg_usage("convert", "convert: unknown option '%s'", argv[i]);
        } else if (in) {
            return cli_msg_usage("convert", "convert: one input log only ('%s' and '%s')", in,
                                 argv[i]);
        } else {
            in = argv[i];
        }
    }
    if (!in)
        return cli_msg_usage("convert", "convert: no input log");
    if (!a.out)
        return cli_msg_usage("convert", "convert: no output: add -o OUT (%s; or -o - for stdout)",
                             RENDER_FILE_EXTENSIONS);
    if ((rc = cli_select_parse("convert", &a, &o, &from, &to)) != 0)
        return rc;
    int format = render_file_format(a.out, a.format, err, sizeof(err));
    if (format < 0)
        return cli_msg_usage("convert", "convert: %s", err);

    /* pprof labels each sample with its trace context; the page's timeline needs the
     * samples' times (and keeps their requests apart, timeline.h) */
    a.cells_by_context = format == RENDER_FILE_PPROF;
    a.timeline = format == RENDER_FILE_HTML;
    struct profile *p = cli_select_read(in, &a, &from, &to);
    if (!p)
        return CLI_EXIT_FAIL;
    cli_select_warn_empty(p, in, &o);
    rc = render_file_write(p, &o, a.out, a.format, err, sizeof(err));
    if (rc)
        cli_msg_error("%s", err);
    profile_free(p);
    return rc ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_cmd cmd_convert = {
    "convert",
    "render a log: flame graph, pprof, folded stacks or a text report",
    "usage: flyprof convert IN.fpl -o OUT [--format FORMAT] [SELECTION]\n"
    "\n"
    "Renders the log IN.fpl into OUT. OUT's extension picks the format: .html (an interactive\n"
    "flame graph), .pb.gz (pprof), .collapsed or .folded (folded stacks), .txt (top methods and\n"
    "a call tree).\n"
    "\n"
    "options:\n"
    "  -o, --output OUT      the output file; '-' writes folded stacks to standard output\n"
    "  --format FORMAT       collapsed, html, pprof or txt, whatever OUT's "
    "extension\n" CLI_SELECT_HELP "\n"
    "examples:\n"
    "  flyprof convert profile.fpl -o profile.html\n"
    "  flyprof convert profile.fpl --kind all -o t.html   (open t.html#view=timeline&span=ID:\n"
    "                                  one request, as `flyprof summary` names the slowest)\n"
    "  flyprof convert profile.fpl --kind wall --state blocked -o blocked.collapsed\n",
    run,
};
