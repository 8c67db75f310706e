/* cmd_dump.c: `flyprof dump PID`: writes the profile so far without stopping. */
#include "cmd_dump.h"

#include <limits.h>
#include <stdio.h>

#include "cli_msg.h"
#include "cli_target.h"

#define ERR_MAX 2048

static int run(int argc, char **argv)
{
    struct cli_target_args a;
    int rc = cli_target_parse(argc, argv, CLI_TARGET_O, &cmd_dump, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct attach_target t;
    char out[PATH_MAX], def[64], opts[PATH_MAX + 16], err[ERR_MAX], where[2 * PATH_MAX + 128];
    snprintf(def, sizeof(def), "flyprof-%d-dump.fpl", (int)a.pid);
    if ((rc = cli_target_absolute_output(a.cmd, a.output ? a.output : def, out, sizeof(out))) != 0)
        return rc;
    if ((rc = cli_target_loaded(&a, &t, "dump")) != 0)
        return rc;
    if (attach_check_writable(&t, out, err, sizeof(err)) != 0) {
        cli_msg_error("%s: choose another output with -o", err);
        return CLI_EXIT_FAIL;
    }
    if ((size_t)snprintf(opts, sizeof(opts), "dump,file=%s", out) >= sizeof(opts)) {
        cli_msg_error("output path too long: '%s'", out);
        return CLI_EXIT_FAIL;
    }
    cli_target_catch_signals();
    if (cli_target_action(&t, t.agent, opts, NULL) != 0)
        return CLI_EXIT_FAIL;
    cli_msg_error("profile of process %d so far written to %s", (int)t.pid,
                  cli_target_seen_from_here(&t, out, where, sizeof(where)));
    return 0;
}

const struct cli_cmd cmd_dump = {
    "dump",
    "write the profile so far without stopping",
    "usage: flyprof dump PID [-o FILE]\n"
    "\n"
    "Writes what the running profile of JVM PID holds so far to FILE; profiling goes on.\n"
    "\n"
    "options:\n"
    "  -o FILE               the output (default flyprof-PID-dump.fpl); its extension picks the\n"
    "                        format as for convert\n"
    "\n"
    "example:\n"
    "  flyprof dump 4242 -o /tmp/so-far.html\n",
    run,
};
