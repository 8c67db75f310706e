/* cmd_diff.c: `flyprof diff BASE.fpl NEW.fpl -o DIFF.html`: a differential flame graph. */
#include "cmd_diff.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli_fleet.h"
#include "cli_msg.h"
#include "cli_select.h"
#include "render_file.h"

#define ERR_MAX 1024

/* One side of diff --db: the common selection f narrowed by spec, a label K=V or a time
 * range FROM..TO (either end may be left out); read as a profile. NULL when it failed (said). */
static struct profile *fleet_side(struct cli_fleet *f, const char *which, const char *spec,
                                  const char *db_from, const char *db_to, struct cli_select *a,
                                  const struct profile_time *from,
                                  const struct profile_time *to, int *rc)
{
    char path[64], lo[128] = "", hi[128] = "";
    const char *range = strstr(spec, "..");
    size_t n0 = f->sel.nlabels;
    const char *fr = db_from, *t = db_to;
    if (range) {
        snprintf(lo, sizeof(lo), "%.*s", (int)(range - spec), spec);
        snprintf(hi, sizeof(hi), "%s", range + 2);
        fr = lo[0] ? lo : fr;
        t = hi[0] ? hi : t;
    } else if (strchr(spec, '=') && spec[0] != '=') {
        f->labels[f->sel.nlabels++] = spec;
    } else {
        *rc = cli_msg_usage("diff", "diff: %s '%s': give a label K=V or a time range FROM..TO "
                                    "(13:00..14:00)", which, spec);
        return NULL;
    }
    int fd = cli_fleet_open("diff", f, fr, t, path, sizeof(path));
    f->sel.nlabels = n0;
    if (fd < 0) {
        *rc = -fd;
        return NULL;
    }
    struct profile *p = cli_select_read(path, a, from, to);
    close(fd);
    if (!p)
        *rc = CLI_EXIT_FAIL;
    else
        snprintf(p->name, sizeof(p->name), "%s %s", f->sel.service, spec);
    return p;
}

static int run(int argc, char **argv)
{
    const char *in[2] = {NULL, NULL}, *side[2] = {NULL, NULL};
    struct cli_select a = {0};
    struct cli_fleet f;
    struct render_opts o;
    struct profile_time from, to;
    char err[ERR_MAX];
    int rc, n = 0;

    if (cli_fleet_init(&f, argc) != 0)
        return CLI_EXIT_FAIL;
    for (int i = 1; i < argc; i++) {
        if (cli_args_is_help(argv[i])) {
            cli_args_help(&cmd_diff, stdout);
            cli_fleet_destroy(&f);
            return CLI_EXIT_OK;
        } else if ((rc = cli_args_value(argc, argv, &i, "--base", NULL, &side[0])) ||
                   (rc = cli_args_value(argc, argv, &i, "--new", NULL, &side[1]))) {
            if (rc < 0) {
                cli_fleet_destroy(&f);
                return cli_msg_usage("diff", "diff: %s needs a label or a range", argv[i]);
            }
        } else if ((rc = cli_fleet_option("diff", argc, argv, &i, &f)) != 0) {
            if (rc < 0) {
                cli_fleet_destroy(&f);
                return -rc;
            }
        } else if ((rc = cli_select_option("diff", argc, argv, &i, &a)) != 0) {
            if (rc != 1) {
                cli_fleet_destroy(&f);
                return rc;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_fleet_destroy(&f);
            return cli_msg_usage("diff", "diff: unknown option '%s'", argv[i]);
        } else if (n == 2) {
            cli_fleet_destroy(&f);
            return cli_msg_usage("diff", "diff: two logs only, BASE and NEW ('%s' is a third)",
                                 argv[i]);
        } else {
            in[n++] = argv[i];
        }
    }
    rc = CLI_EXIT_OK;
    if (f.db && (n || !side[0] || !side[1]))
        rc = cli_msg_usage("diff", "diff: with --db, no logs but --base and --new: each a label "
                                   "K=V or a time range FROM..TO");
    else if (!f.db && (side[0] || side[1] || f.sel.service || f.sel.host || f.sel.nlabels))
        rc = cli_msg_usage("diff", "diff: --base, --new, --service, --host and --label select "
                                   "in --db");
    else if (!f.db && n < 2)
        rc = cli_msg_usage("diff", "diff: needs two logs: BASE.fpl NEW.fpl");
    else if (!a.out)
        rc = cli_msg_usage("diff", "diff: no output: add -o DIFF.html");
    if (rc != CLI_EXIT_OK) {
        cli_fleet_destroy(&f);
        return rc;
    }
    const char *db_from = a.from, *db_to = a.to;
    if (f.db)
        a.from = a.to = NULL; /* bounds of ClickHouse's WHERE, not of the logs */
    if ((rc = cli_select_parse("diff", &a, &o, &from, &to)) != 0) {
        cli_fleet_destroy(&f);
        return rc;
    }
    const char *format = a.format ? a.format : strcmp(a.out, "-") ? NULL : "html";
    int fmt = render_file_format(a.out, format, err, sizeof(err));
    if (fmt < 0 || fmt != RENDER_FILE_HTML) {
        cli_fleet_destroy(&f);
        if (fmt < 0)
            return cli_msg_usage("diff", "diff: %s", err);
        return cli_msg_usage(
            "diff", "diff: the output is an html flame graph: name it with .html ('%s')", a.out);
    }

    struct profile *base = NULL, *cur = NULL;
    rc = CLI_EXIT_FAIL;
    if (f.db) {
        base = fleet_side(&f, "--base", side[0], db_from, db_to, &a, &from, &to, &rc);
        cur = base ? fleet_side(&f, "--new", side[1], db_from, db_to, &a, &from, &to, &rc)
                   : NULL;
        in[0] = base ? base->name : side[0];
        in[1] = cur ? cur->name : side[1];
    } else {
        base = cli_select_read(in[0], &a, &from, &to);
        cur = base ? cli_select_read(in[1], &a, &from, &to) : NULL;
    }
    if (!base || !cur) {
        profile_free(base);
        cli_fleet_destroy(&f);
        return rc;
    }
    cli_select_warn_empty(base, in[0], &o);
    cli_select_warn_empty(cur, in[1], &o);
    rc = render_file_write_diff(base, cur, &o, a.out, a.format, err, sizeof(err));
    if (rc)
        cli_msg_error("%s", err);
    profile_free(base);
    profile_free(cur);
    cli_fleet_destroy(&f);
    return rc ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_cmd cmd_diff = {
    "diff",
    "a differential flame graph of two logs, or of two selections of the fleet",
    "usage: flyprof diff BASE.fpl NEW.fpl -o DIFF.html [SELECTION]\n"
    "       flyprof diff --db URL --service S --base SEL --new SEL -o DIFF.html [SELECTION]\n"
    "\n"
    "Draws NEW's flame graph with every frame colored by the change of its share of all\n"
    "samples from BASE to NEW: red grew, blue shrank. Only changes beyond sampling noise are\n"
    "colored (a z test of the frame's two shares; the page's legend gives the limit), the\n"
    "rest stays grey. Frames only in BASE are drawn where they were, as wide as the share\n"
    "they lost. Both logs are selected alike. With --db, two selections of one service:\n"
    "each SEL a label K=V or a time range FROM..TO (13:00..14:00, 2h..1h), over the rest.\n"
    "\n"
    "options:\n"
    "  -o, --output DIFF.html   the output file (an html flame graph)\n"
    "  --base SEL, --new SEL    with --db: the two selections\n" CLI_FLEET_HELP CLI_SELECT_HELP
    "\n"
    "examples:\n"
    "  flyprof diff before.fpl after.fpl -o diff.html\n"
    "  flyprof diff --db http://ch:8123 --service orders --base version=1.4 --new version=1.5 "
    "-o d.html\n",
    run,
};
