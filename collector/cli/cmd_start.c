/* cmd_start.c: `flyprof start PID`: starts profiling in a running JVM and returns. */
#include "cmd_start.h"

#include <limits.h>

#include "cli_msg.h"
#include "cli_target.h"
#include "fpl_optval.h"

static int run(int argc, char **argv)
{
    struct cli_target_args a;
    int rc = cli_target_parse(argc, argv,
                              CLI_TARGET_D | CLI_TARGET_MODE | CLI_TARGET_O | CLI_TARGET_EXTRA,
                              &cmd_start, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct attach_target t;
    char lib[PATH_MAX], file[PATH_MAX], where[2 * PATH_MAX + 128], desc[512], modes[160], d[32];
    uint64_t ms = a.duration_given ? (a.duration_ns + 999999) / 1000000 : 0;
    cli_target_catch_signals();
    if ((rc = cli_target_start(&a, ms, 0, &t, lib, sizeof(lib), file, sizeof(file), modes,
                               sizeof(modes))))
        return rc;
    if (a.duration_given)
        cli_msg_error("profiling %s for %s, %s, into %s",
                      cli_target_describe(&t, desc, sizeof(desc)),
                      fpl_optval_time_str(a.duration_ns, d, sizeof(d)), modes,
                      cli_target_seen_from_here(&t, file, where, sizeof(where)));
    else
        cli_msg_error("profiling %s, %s, into %s; 'flyprof stop %d' stops it",
                      cli_target_describe(&t, desc, sizeof(desc)), modes,
                      cli_target_seen_from_here(&t, file, where, sizeof(where)), (int)t.pid);
    return 0;
}

const struct cli_cmd cmd_start = {
    "start",
    "start profiling in a running JVM and return",
    "usage: flyprof start PID [-d DURATION] [-e EVENTS] [-i TIME] [--wall TIME]\n"
    "                     [-o FILE] [--threads] [--loop TIME [--keep N]] [AGENT_OPTIONS]\n"
    "\n"
    "Loads the agent into the running JVM PID if needed and starts profiling; returns at once.\n"
    "'flyprof stop PID' ends the profile, 'flyprof dump PID' writes it so far.\n"
    "\n"
    "options:\n"
    "  -d DURATION           stop by itself after DURATION: seconds (30, 2.5) or with a unit\n"
    "                        (500ms, 5s, 2min); default: when stopped or when the JVM exits\n"
    "  -e EVENTS             what to sample, comma-separated: cpu, wall, alloc\n"
    "                        (allocations), lock (contended locks), live (alloc and\n"
    "                        what stays reachable at the end) (default cpu)\n"
    "  -i TIME               the sampling interval (cpu; wall with -e wall): a number and a\n"
    "                        unit, 5ms or 500us (ns, us, ms, s; default cpu 10ms, wall 50ms)\n"
    "  --wall TIME           the wall-clock interval; turns wall-clock sampling on\n"
    "  -o FILE               the output (default flyprof-PID.fpl); its extension picks the format\n"
    "  --threads             one root frame per thread in a rendered output\n"
    "  --loop TIME           a new output every TIME (30min, 1h): FILE's %n is its number,\n"
    "                        %t its start time (without %n, -%n goes before the extension)\n"
    "  --keep N              with --loop: keep the newest N outputs, delete older ones\n"
    "  AGENT_OPTIONS         more agent options (see the README), e.g. depth=64\n"
    "\n"
    "example:\n"
    "  flyprof start 4242 -e cpu,wall -o /tmp/run.fpl\n",
    run,
};
