/* cmd_summary.c: `flyprof summary IN.fpl`: what a log holds, in one page of text. */
#include "cmd_summary.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_args.h"
#include "cli_fleet.h"
#include "cli_msg.h"
#include "hiccups.h"
#include "out_endpoints.h"
#include "out_hiccups.h"
#include "profile.h"
#include "summary.h"

#define ERR_MAX 1024

/* The `hiccups` member of the JSON summary, "\"hiccups\":{...}" or "\"hiccups\":null", into
 * *out (malloc'ed). Returns 0 or -errno with err filled. */
static int hiccups_member(const struct profile *p, const char *path, char **out, char *err,
                          size_t errlen)
{
    size_t len = 0;
    FILE *f = open_memstream(out, &len);
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    fputs("\"hiccups\":", f);
    int rc = 0;
    /* a log whose header shows no hiccup option has none: spare the second read */
    if (p->have_header && !strstr(p->header.options, "hiccup") &&
        !strstr(p->header.options, "stall=")) {
        fputs("null", f);
    } else {
        struct hiccups h;
        rc = hiccups_read(&h, p, path, err, errlen);
        if (!rc && out_hiccups_json(f, p, &h) != 0) {
            snprintf(err, errlen, "writing the hiccups: out of memory");
            rc = -ENOMEM;
        }
        hiccups_free(&h);
    }
    /* then the endpoints (dev.flyprof.Context) */
    if (!rc) {
        fputc(',', f);
        if (out_endpoints_json(f, p) != 0) {
            snprintf(err, errlen, "writing the endpoints: out of memory");
            rc = -ENOMEM;
        }
    }
    if (fclose(f) != 0 && !rc) {
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
    }
    return rc;
}

static int run(int argc, char **argv)
{
    const char *in = NULL;
    char err[ERR_MAX];
    int raw_names = 0, json = 0, fd = -1, m;
    const char *from = NULL, *to = NULL;
    char path[64], title[200];
    struct cli_fleet f;
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
            cli_args_help(&cmd_summary, stdout);
            free(ins);
            cli_fleet_destroy(&f);
            return CLI_EXIT_OK;
        } else if ((m = cli_fleet_option("summary", argc, argv, &i, &f)) != 0 ||
                   (m = cli_args_value(argc, argv, &i, "--from", NULL, &from)) != 0 ||
                   (m = cli_args_value(argc, argv, &i, "--to", NULL, &to)) != 0) {
            if (m < 0) {
                free(ins);
                cli_fleet_destroy(&f);
                return m < -1 ? -m
                              : cli_msg_usage("summary", "summary: %s needs a value", argv[i]);
            }
            continue;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
            continue;
        } else if (strcmp(argv[i], "--raw-names") == 0) {
            raw_names = 1;
            continue;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            free(ins);
            cli_fleet_destroy(&f);
            return cli_msg_usage("summary", "summary: unknown option '%s'", argv[i]);
        }
        ins[nin++] = argv[i];
    }
    const char *usage = f.db && nin ? "summary: logs or --db, not both"
                        : !f.db && (f.sel.service || f.sel.host || f.sel.nlabels)
                            ? "summary: --service, --host and --label select in --db"
                        : !f.db && !nin ? "summary: no input log"
                                        : NULL;
    if (!usage && (from || to) && !f.db)
        usage = "summary: --from and --to are for --db";
    if (usage) {
        free(ins);
        cli_fleet_destroy(&f);
        return cli_msg_usage("summary", "%s", usage);
    }
    if (f.db) {
        /* the fleet's selection as one log, named after it */
        fd = cli_fleet_open("summary", &f, from, to, path, sizeof(path));
        if (fd < 0) {
            free(ins);
            cli_fleet_destroy(&f);
            return -fd;
        }
        ins[nin++] = path;
        snprintf(title, sizeof(title), "%s%s%s in %s", f.sel.service, f.sel.host ? " on " : "",
                 f.sel.host ? f.sel.host : "", f.db);
    }
    in = ins[0];
    struct profile *p = profile_new();
    if (!p) {
        free(ins);
        cli_msg_error("out of memory");
        return CLI_EXIT_FAIL;
    }
    p->raw_names = raw_names;
    p->context_totals = 1; /* the endpoints' times, without splitting the cells */
    char *extra = NULL;
    int rc = profile_read_files(p, ins, nin, err, sizeof(err));
    /* several logs: one profile of them all, named by the first "(and N more)"; hiccup mode's
     * findings are per log (flyprof hiccups LOG) */
    const char *name = f.db ? title : nin > 1 ? p->name : in;
    if (rc == 0 && json && nin == 1)
        rc = hiccups_member(p, in, &extra, err, sizeof(err));
    if (rc == 0 &&
        (rc = json ? summary_write_json(p, name, extra, stdout, err, sizeof(err))
                   : summary_write(p, name, stdout, err, sizeof(err))) == 0 && !json) {
        if ((rc = out_endpoints_text(stdout, p)) != 0)
            snprintf(err, sizeof(err), "summary: writing the endpoints: %s", strerror(-rc));
        else if (nin == 1)
            rc = out_hiccups_summary(stdout, p, in, err, sizeof(err));
    }
    if (rc)
        cli_msg_error("%s", err);
    free(extra);
    free(ins);
    profile_free(p);
    if (fd >= 0)
        close(fd);
    cli_fleet_destroy(&f);
    return rc ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_cmd cmd_summary = {
    "summary",
    "what a log holds: samples, failures, hottest methods, threads, agent cost",
    "usage: flyprof summary IN.fpl... [--json] [--raw-names]\n"
    "       flyprof summary --db URL --service S [--host H] [--label K=V]... [--from T] [--to T]\n"
    "\n"
    "Prints what the log IN.fpl holds (several logs: as one profile, as convert reads them):\n"
    "the JVM and command, duration and sampling setup, samples and weight by kind, failed\n"
    "stack walks by cause, drops, the hottest methods by self and total weight, threads, the\n"
    "agent's own cost, and any damage to the log. With --db, the same of a service's profile\n"
    "in ClickHouse (flyprof push): its samples, weights, hottest methods and threads.\n"
    "\n"
    "options:\n"
    "  --json                the same facts as one JSON object, for scripts (its keys are\n"
    "                        listed in collector/format/SUMMARY_JSON.md and kept stable)\n"
    "  --raw-names           method names as the JVM gave them (see flyprof help convert)\n"
    CLI_FLEET_HELP
    "\n"
    "examples:\n"
    "  flyprof summary profile.fpl\n"
    "  flyprof summary --json profile.fpl | jq .cpu.weight_ns\n",
    run,
};
