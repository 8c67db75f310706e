/* cmd_diff.c: `flyprof diff BASE.fpl NEW.fpl -o DIFF.html`: a differential flame graph. */
#include "cmd_diff.h"

#include <string.h>

#include "cli_msg.h"
#include "cli_select.h"
#include "render_file.h"

#define ERR_MAX 1024

static int run(int argc, char **argv)
{
    const char *in[2] = {NULL, NULL};
    struct cli_select a = {0};
    struct render_opts o;
    struct profile_time from, to;
    char err[ERR_MAX];
    int rc, n = 0;

    for (int i = 1; i < argc; i++) {
        if (cli_args_is_help(argv[i])) {
            cli_args_help(&cmd_diff, stdout);
            return CLI_EXIT_OK;
        } else if ((rc = cli_select_option("diff", argc, argv, &i, &a)) != 0) {
            if (rc != 1)
                return rc;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_msg_usage("diff", "diff: unknown option '%s'", argv[i]);
        } else if (n == 2) {
            return cli_msg_usage("diff", "diff: two logs only, BASE and NEW ('%s' is a third)",
                                 argv[i]);
        } else {
            in[n++] = argv[i];
        }
    }
    if (n < 2)
        return cli_msg_usage("diff", "diff: needs two logs: BASE.fpl NEW.fpl");
    if (!a.out)
        return cli_msg_usage("diff", "diff: no output: add -o DIFF.html");
    if ((rc = cli_select_parse("diff", &a, &o, &from, &to)) != 0)
        return rc;
    const char *format = a.format ? a.format : strcmp(a.out, "-") ? NULL : "html";
    int fmt = render_file_format(a.out, format, err, sizeof(err));
    if (fmt < 0)
        return cli_msg_usage("diff", "diff: %s", err);
    if (fmt != RENDER_FILE_HTML)
        return cli_msg_usage(
            "diff", "diff: the output is an html flame graph: name it with .html ('%s')", a.out);

    struct profile *base = cli_select_read(in[0], &a, &from, &to);
    if (!base)
        return CLI_EXIT_FAIL;
    struct profile *cur = cli_select_read(in[1], &a, &from, &to);
    if (!cur) {
        profile_free(base);
        return CLI_EXIT_FAIL;
    }
    cli_select_warn_empty(base, in[0], &o);
    cli_select_warn_empty(cur, in[1], &o);
    rc = render_file_write_diff(base, cur, &o, a.out, a.format, err, sizeof(err));
    if (rc)
        cli_msg_error("%s", err);
    profile_free(base);
    profile_free(cur);
    return rc ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_cmd cmd_diff = {
    "diff",
    "a differential flame graph of two logs",
    "usage: flyprof diff BASE.fpl NEW.fpl -o DIFF.html [SELECTION]\n"
    "\n"
    "Draws NEW's flame graph with every frame colored by the change of its share of all\n"
    "samples from BASE to NEW: red grew, blue shrank. Only changes beyond sampling noise are\n"
    "colored (a z test of the frame's two shares; the page's legend gives the limit), the\n"
    "rest stays grey. Frames only in BASE are drawn where they were, as wide as the share\n"
    "they lost. Both logs are selected alike.\n"
    "\n"
    "options:\n"
    "  -o, --output DIFF.html   the output file (an html flame graph)\n" CLI_SELECT_HELP "\n"
    "example:\n"
    "  flyprof diff before.fpl after.fpl -o diff.html\n",
    run,
};
