/* cmd_summary.c: `flyprof summary IN.fpl`: what a log holds, in one page of text. */
#include "cmd_summary.h"

#include <string.h>

#include "cli_msg.h"
#include "profile.h"
#include "summary.h"

#define ERR_MAX 1024

static int run(int argc, char **argv)
{
    const char *in = NULL;
    char err[ERR_MAX];
    int raw_names = 0, json = 0;

    for (int i = 1; i < argc; i++) {
        if (cli_args_is_help(argv[i])) {
            cli_args_help(&cmd_summary, stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
            continue;
        } else if (strcmp(argv[i], "--raw-names") == 0) {
            raw_names = 1;
            continue;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_msg_usage("summary", "summary: unknown option '%s'", argv[i]);
        } else if (in) {
            return cli_msg_usage("summary", "summary: one input log only ('%s' and '%s')", in,
                                 argv[i]);
        }
        in = argv[i];
    }
    if (!in)
        return cli_msg_usage("summary", "summary: no input log");
    struct profile *p = profile_new();
    if (!p) {
        cli_msg_error("out of memory");
        return CLI_EXIT_FAIL;
    }
    p->raw_names = raw_names;
    int rc = profile_read_file(p, in, err, sizeof(err));
    if (rc == 0 &&
        (rc = (json ? summary_write_json : summary_write)(p, in, stdout, err, sizeof(err))) != 0)
        cli_msg_error("writing the summary: %s", err);
    else if (rc)
        cli_msg_error("%s", err);
    profile_free(p);
    return rc ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}

const struct cli_cmd cmd_summary = {
    "summary",
    "what a log holds: samples, failures, hottest methods, threads, agent cost",
    "usage: flyprof summary IN.fpl [--json] [--raw-names]\n"
    "\n"
    "Prints what the log IN.fpl holds: the JVM and command, duration and sampling setup,\n"
    "samples and weight by kind, failed stack walks by cause, drops, the hottest methods by\n"
    "self and total weight, threads, the agent's own cost, and any damage to the log.\n"
    "\n"
    "options:\n"
    "  --json                the same facts as one JSON object, for scripts (its keys are\n"
    "                        listed in collector/format/SUMMARY_JSON.md and kept stable)\n"
    "  --raw-names           method names as the JVM gave them (see flyprof help convert)\n"
    "\n"
    "examples:\n"
    "  flyprof summary profile.fpl\n"
    "  flyprof summary --json profile.fpl | jq .cpu.weight_ns\n",
    run,
};
