/* cmd_attach.c: `flyprof attach PID`: loads the agent into a running JVM, profiles it for a
 * while with a progress line, writes the output and stops. */
#include "cmd_attach.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli_msg.h"
#include "cli_target.h"
#include "fpl_optval.h"
#include "profile.h"

#define ERR_MAX 2048
/* attach passes duration = -d + this to the agent, so that profiling ends even when this
 * process is killed before it can send stop */
#define SAFETY_MS 10000

/* Sleeps until deadline or one second, whichever is first; a signal ends it early. */
static void nap(int64_t deadline_ns)
{
    int64_t ns = deadline_ns - attach_now_ns();
    if (ns > 1000000000)
        ns = 1000000000;
    if (ns <= 0)
        return;
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    nanosleep(&ts, NULL);
}

/* One progress line on a terminal: seconds left, samples so far. */
static void progress(const struct attach_target *t, const char *lib, int64_t end_ns, int *shown,
                     int *running)
{
    char err[ERR_MAX], line[160];
    struct attach_reply r;
    struct attach_status st;
    int64_t deadline = attach_now_ns() + (int64_t)ATTACH_TIMEOUT_MS * 1000000;
    double left = (double)(end_ns - attach_now_ns()) / 1e9;
    if (left < 0)
        left = 0;
    int n = snprintf(line, sizeof(line), "flyprof: profiling process %d, %.0f s left", (int)t->pid,
                     ceil(left));
    if (attach_action(t, lib, "status", deadline, &r, err, sizeof(err)) == 0 && r.have &&
        attach_parse_status(r.text, &st) == 0) {
        *running = st.running;
        snprintf(line + n, sizeof(line) - (size_t)n, ", %llu samples%s",
                 (unsigned long long)st.samples, st.running ? "" : " (stopped)");
    }
    fprintf(stderr, "\r%-72s", line);
    fflush(stderr);
    *shown = 1;
}

/* 1 when the log at path ends with END (the JVM completed it), 0 when not, -1 when it cannot
 * be read from here. */
static int log_complete(const char *path)
{
    char err[ERR_MAX];
    struct profile *p = profile_new();
    if (!p)
        return -1;
    int rc = profile_read_file(p, path, err, sizeof(err));
    int done = rc ? -1 : p->end_seen;
    profile_free(p);
    return done;
}

/* Says what became of the profile of a target that exited while it was profiled. A JVM that
 * shuts down completes its log; one that was killed leaves the chunks written so far (every
 * second), which flyprof reads up to the last whole one. Returns the exit code. */
static int report_gone(const struct attach_target *t, const char *file)
{
    size_t n = strlen(file);
    int is_log = n > 4 && strcmp(file + n - 4, ".fpl") == 0;
    int done = is_log && !t->other_mntns ? log_complete(file) : -1;
    if (done == 1) {
        cli_msg_error("process %d exited while it was profiled; it completed the profile at its "
                      "exit: %s",
                      (int)t->pid, file);
        return CLI_EXIT_OK;
    }
    if (!is_log && !t->other_mntns && access(file, F_OK) == 0) {
        cli_msg_error("process %d exited while it was profiled; it wrote the profile at its "
                      "exit: %s",
                      (int)t->pid, file);
        return CLI_EXIT_OK;
    }
    if (is_log)
        cli_msg_error("process %d exited while it was profiled%s: the log %s is readable up to "
                      "its last complete chunk (one is written every second); its end is missing",
                      (int)t->pid, done == 0 ? " without completing the profile" : "", file);
    else
        cli_msg_error("process %d exited while it was profiled: %s is rendered only when the JVM "
                      "shuts down normally; if it was killed, its log %s.fpl is readable up to "
                      "its last complete chunk (flyprof convert %s.fpl -o %s)",
                      (int)t->pid, file, file, file, file);
    return CLI_EXIT_FAIL;
}

static int run(int argc, char **argv)
{
    struct cli_target_args a;
    int rc = cli_target_parse(argc, argv,
                              CLI_TARGET_D | CLI_TARGET_MODE | CLI_TARGET_O | CLI_TARGET_EXTRA,
                              &cmd_attach, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct attach_target t;
    char lib[PATH_MAX], file[PATH_MAX], where[2 * PATH_MAX + 128], desc[512], modes[160], d[32];
    uint64_t ms = (a.duration_ns + 999999) / 1000000;
    cli_target_catch_signals();
    int64_t t0 = attach_now_ns();
    if ((rc = cli_target_start(&a, ms + SAFETY_MS, 1, &t, lib, sizeof(lib), file, sizeof(file),
                               modes, sizeof(modes))))
        return rc;
    int64_t started = attach_now_ns();
    cli_msg_error("profiling %s for %s (attached in %.0f ms): %s%s",
                  cli_target_describe(&t, desc, sizeof(desc)),
                  fpl_optval_time_str(a.duration_ns, d, sizeof(d)), (double)(started - t0) / 1e6,
                  modes, cli_target_interrupted ? "" : "; Ctrl-C stops early");

    int64_t end = started + (int64_t)a.duration_ns;
    int tty = isatty(STDERR_FILENO), shown = 0, running = 1, gone = 0;
    while (!cli_target_interrupted && running && attach_now_ns() < end) {
        if (cli_target_gone(t.pid)) {
            gone = 1;
            break;
        }
        if (tty)
            progress(&t, lib, end, &shown, &running);
        nap(end);
    }
    if (shown)
        fprintf(stderr, "\r%-72s\r", "");
    if (gone || cli_target_gone(t.pid))
        return report_gone(&t, file);
    struct attach_reply r;
    char err[ERR_MAX];
    int64_t deadline = attach_now_ns() + (int64_t)ATTACH_TIMEOUT_MS * 1000000;
    rc = attach_action(&t, lib, "stop", deadline, &r, err, sizeof(err));
    if (rc == -ENOENT && r.have) {
        cli_msg_error("profiling had stopped already in process %d (duration= reached, or another "
                      "'flyprof stop'); the profile is %s",
                      (int)t.pid, cli_target_seen_from_here(&t, file, where, sizeof(where)));
        return 0;
    }
    if (rc) {
        if (cli_target_gone(t.pid))
            return report_gone(&t, file);
        cli_msg_error("%s%s", r.have ? "stopping: " : "", err);
        return CLI_EXIT_FAIL;
    }
    cli_msg_error("%sprofile written to %s", cli_target_interrupted ? "interrupted: " : "",
                  cli_target_seen_from_here(&t, file, where, sizeof(where)));
    if (r.have && r.more[0]) /* chunks of the log lost to write errors */
        cli_msg_error("%s", r.more);
    return 0;
}

const struct cli_cmd cmd_attach = {
    "attach",
    "profile a running JVM for a while, write the output and stop",
    "usage: flyprof attach PID [-d DURATION] [-e EVENTS] [-i TIME] [--wall TIME]\n"
    "                      [-o FILE] [--threads] [--loop TIME [--keep N]] [-- AGENT_OPTIONS]\n"
    "\n"
    "Loads the agent into the running JVM PID (nothing is needed at its startup), profiles it\n"
    "for DURATION with a progress line, writes FILE and stops profiling. Ctrl-C stops early and\n"
    "still writes the output.\n"
    "\n"
    "options:\n"
    "  -d DURATION           how long to profile: seconds (30, 2.5) or with a unit (500ms, 5s,\n"
    "                        2min); default 10s\n"
    "  -e EVENTS             what to sample, comma-separated: cpu, wall, alloc\n"
    "                        (allocations), lock (contended locks), live (alloc and\n"
    "                        what stays reachable at the end) (default cpu)\n"
    "  -i TIME               the sampling interval (cpu; wall with -e wall): a number and a\n"
    "                        unit, 5ms or 500us (ns, us, ms, s; default cpu 10ms, wall 50ms)\n"
    "  --wall TIME           the wall-clock interval; turns wall-clock sampling on\n"
    "  -o FILE               the output (default flyprof-PID.fpl); its extension picks the format\n"
    "                        as for convert; %p = pid, %t = start time\n"
    "  --threads             one root frame per thread in a rendered output\n"
    "  --loop TIME           a new output every TIME: FILE's %n is its number, %t its start\n"
    "                        time (without %n, -%n goes before the extension)\n"
    "  --keep N              with --loop: keep the newest N outputs, delete older ones\n"
    "  -- AGENT_OPTIONS      more agent options (see the README), e.g. -- depth=64 wallthreads=8\n"
    "\n"
    "examples:\n"
    "  flyprof attach 4242 -d 30s -o hot.html\n"
    "  flyprof attach 4242 -e cpu,wall -i 5ms --wall 20ms -d 1min -o slow.fpl\n",
    run,
};
