/* cmd_stop.c: `flyprof stop PID`: stops profiling in a running JVM; the output is complete. */
#include "cmd_stop.h"

#include <limits.h>

#include "cli_msg.h"
#include "cli_target.h"

#define ERR_MAX 2048

static int run(int argc, char **argv)
{
    struct cli_target_args a;
    int rc = cli_target_parse(argc, argv, 0, &cmd_stop, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct attach_target t;
    if ((rc = cli_target_loaded(&a, &t, "stop")) != 0)
        return rc;
    cli_target_catch_signals();
    struct attach_reply r;
    char file[PATH_MAX] = "", where[2 * PATH_MAX + 128], err[ERR_MAX];
    int64_t deadline = attach_now_ns() + (int64_t)ATTACH_TIMEOUT_MS * 1000000;
    if (attach_action(&t, t.agent, "status", deadline, &r, err, sizeof(err)) == 0)
        cli_target_reported_file(&r, "", file, sizeof(file));
    if (cli_target_action(&t, t.agent, "stop", NULL) != 0)
        return CLI_EXIT_FAIL;
    if (file[0])
        cli_msg_error("stopped profiling process %d; profile written to %s", (int)t.pid,
                      cli_target_seen_from_here(&t, file, where, sizeof(where)));
    else
        cli_msg_error("stopped profiling process %d", (int)t.pid);
    return 0;
}

const struct cli_cmd cmd_stop = {
    "stop",
    "stop profiling in a running JVM and complete the output",
    "usage: flyprof stop PID\n"
    "\n"
    "Stops profiling in the JVM PID and completes the output named when it started.\n"
    "\n"
    "example:\n"
    "  flyprof stop 4242\n",
    run,
};
