/* cmd_stop.c: `flyprof stop PID`: stops profiling in a running JVM; the output is complete. */
#include "cmd_stop.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli_msg.h"
#include "cli_target.h"

#define ERR_MAX 2048

static int run(int argc, char **argv)
{
    struct cli_target_args a;
    int rc = cli_target_parse(argc, argv, CLI_TARGET_O, &cmd_stop, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct attach_target t;
    char out[PATH_MAX], opts[PATH_MAX + 16];
    if (a.output && (rc = cli_target_absolute_output(a.cmd, a.output, out, sizeof(out))) != 0)
        return rc;
    if ((rc = cli_target_loaded(&a, &t, "stop")) != 0)
        return rc;
    if (a.output) {
        char err[ERR_MAX];
        if (attach_check_writable(&t, out, err, sizeof(err)) != 0) {
            cli_msg_error("%s: choose another output with -o", err);
            return CLI_EXIT_FAIL;
        }
        if ((size_t)snprintf(opts, sizeof(opts), "stop,file=%s", out) >= sizeof(opts)) {
            cli_msg_error("output path too long: '%s'", out);
            return CLI_EXIT_FAIL;
        }
    } else {
        snprintf(opts, sizeof(opts), "stop");
    }
    cli_target_catch_signals();
    struct attach_reply r;
    char file[PATH_MAX] = "", where[2 * PATH_MAX + 128], err[ERR_MAX];
    int64_t deadline = attach_now_ns() + (int64_t)ATTACH_TIMEOUT_MS * 1000000;
    if (attach_action(&t, t.agent, "status", deadline, &r, err, sizeof(err)) == 0)
        cli_target_reported_file(&r, "", file, sizeof(file));
    if (cli_target_action(&t, t.agent, opts, &r) != 0)
        return CLI_EXIT_FAIL;
    /* the agent says where the output went ("stopped, output PATH"); an older one does not */
    static const char said[] = "stopped, output ";
    if (r.have && strncmp(r.text, said, sizeof(said) - 1) == 0)
        snprintf(file, sizeof(file), "%s", r.text + sizeof(said) - 1);
    else if (a.output)
        cli_msg_error("warning: the agent in process %d is older than stop -o: the output went "
                      "where it was named at start",
                      (int)t.pid);
    if (file[0])
        cli_msg_error("stopped profiling process %d; profile written to %s", (int)t.pid,
                      cli_target_seen_from_here(&t, file, where, sizeof(where)));
    else
        cli_msg_error("stopped profiling process %d", (int)t.pid);
    if (r.have && r.more[0]) /* chunks of the log lost to write errors */
        cli_msg_error("%s", r.more);
    return 0;
}

const struct cli_cmd cmd_stop = {
    "stop",
    "stop profiling in a running JVM and complete the output",
    "usage: flyprof stop PID [-o FILE]\n"
    "\n"
    "Stops profiling in the JVM PID and completes the output: the one named when it started,\n"
    "or FILE.\n"
    "\n"
    "options:\n"
    "  -o FILE               the output, instead of the one named at start; its extension picks\n"
    "                        the format as for convert (a .fpl output named at start is moved)\n"
    "\n"
    "example:\n"
    "  flyprof stop 4242 -o /tmp/profile.html\n",
    run,
};
