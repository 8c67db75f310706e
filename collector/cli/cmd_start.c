/* cmd_start.c: `flyprof start PID`: starts profiling in a running JVM and returns. */
#include "cmd_start.h"

#include <limits.h>
#include <math.h>

#include "cli_msg.h"
#include "cli_target.h"

static int run(int argc, char **argv)
{
    struct cli_target_args a;
    int rc = cli_target_parse(argc, argv,
                              CLI_TARGET_D | CLI_TARGET_MODE | CLI_TARGET_O | CLI_TARGET_EXTRA,
                              &cmd_start, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct attach_target t;
    char lib[PATH_MAX], file[PATH_MAX], where[2 * PATH_MAX + 128], desc[512];
    uint64_t ms = a.seconds_given ? (uint64_t)llround(a.seconds * 1000) : 0;
    cli_target_catch_signals();
    if ((rc = cli_target_start(&a, ms, &t, lib, sizeof(lib), file, sizeof(file))))
        return rc;
    if (a.seconds_given)
        cli_msg_error("profiling %s for %g s into %s", cli_target_describe(&t, desc, sizeof(desc)),
                      a.seconds, cli_target_seen_from_here(&t, file, where, sizeof(where)));
    else
        cli_msg_error("profiling %s into %s; 'flyprof stop %d' stops it",
                      cli_target_describe(&t, desc, sizeof(desc)),
                      cli_target_seen_from_here(&t, file, where, sizeof(where)), (int)t.pid);
    return 0;
}

const struct cli_cmd cmd_start = {
    "start",
    "start profiling in a running JVM and return",
    "usage: flyprof start PID [-d SECONDS] [-e cpu|wall|cpu,wall] [-i TIME] [-o FILE] [--threads]\n"
    "                     [AGENT_OPTIONS]\n"
    "\n"
    "Loads the agent into the running JVM PID if needed and starts profiling; returns at once.\n"
    "'flyprof stop PID' ends the profile, 'flyprof dump PID' writes it so far.\n"
    "\n"
    "options:\n"
    "  -d SECONDS            stop by itself after SECONDS (default: when stopped or the JVM "
    "exits)\n"
    "  -e EVENTS             what to sample: cpu, wall or cpu,wall (default cpu)\n"
    "  -i TIME               sampling interval, e.g. 5ms (units ns, us, ms, s; default cpu 10ms,\n"
    "                        wall 50ms)\n"
    "  -o FILE               the output (default flyprof-PID.fpl); its extension picks the format\n"
    "  --threads             one root frame per thread in a rendered output\n"
    "  AGENT_OPTIONS         more agent options (see the README), e.g. depth=64\n"
    "\n"
    "example:\n"
    "  flyprof start 4242 -e cpu,wall -o /tmp/run.fpl\n",
    run,
};
