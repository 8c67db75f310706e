/* cmd_attach.c: `flyprof attach|start|stop|dump|status|list`: the CLI side of dynamic attach.
 * The protocol and the agent actions are attach.c's; this file parses arguments, builds the
 * agent's option string, and says what happened. */
#include "cmd_attach.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "cli_msg.h"
#include "fpl_optval.h"
#include "jvmlist.h"

#define EXIT_FAIL 1
#define EXIT_USAGE 2
#define ERR_MAX 2048
#define DEFAULT_SECONDS 10.0
#define MAX_SECONDS (365.0 * 86400)
/* attach passes duration = -d + this to the agent, so that profiling ends even when this
 * process is killed before it can send stop */
#define SAFETY_MS 10000

/* what a command accepts besides PID */
enum {
    ALLOW_D = 1,     /* -d SECONDS */
    ALLOW_MODE = 2,  /* -e, -i, --threads */
    ALLOW_O = 4,     /* -o FILE */
    ALLOW_EXTRA = 8, /* agent options */
};

struct cmd_args {
    const char *cmd;
    pid_t pid;
    double seconds;
    int seconds_given;
    const char *events;
    const char *interval;
    const char *output;
    int threads;
    int extra_duration;         /* duration= among the agent options */
    char extra[ATTACH_ARG_MAX]; /* agent options, comma-separated, without file= */
    size_t extra_len;
};

/* Set by SIGINT / SIGTERM / SIGHUP: attach stops profiling early and still writes. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    if (interrupted) {
        static const char m[] = "\nflyprof: interrupted again: leaving now; profiling may still "
                                "run in the JVM ('flyprof stop PID' ends it)\n";
        ssize_t w = write(STDERR_FILENO, m, sizeof(m) - 1);
        (void)w;
        _exit(128 + sig);
    }
    interrupted = sig;
}

static void catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal; /* no SA_RESTART: a sleep ends at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_msg_verror(fmt, ap);
    va_end(ap);
    fputs("usage:\n" CMD_ATTACH_USAGE "(flyprof --help lists every command)\n", stderr);
    return EXIT_USAGE;
}

int cmd_attach_is_command(const char *cmd)
{
    static const char *const cmds[] = {"attach", "start", "stop", "dump", "status", "list"};
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (!strcmp(cmd, cmds[i]))
            return 1;
    return 0;
}

/* A pid: decimal digits only. */
static int parse_pid(const char *s, pid_t *pid)
{
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
        return -EINVAL;
    long v = strtol(s, NULL, 10);
    if (v <= 0)
        return -EINVAL;
    *pid = (pid_t)v;
    return 0;
}

/* Appends ",text" (or "text" first) to the option string; -E2BIG when it would not fit. */
static int add_opt(char *buf, size_t cap, size_t *len, const char *text)
{
    size_t n = strlen(text);
    size_t sep = *len ? 1 : 0;
    if (*len + sep + n + 1 > cap)
        return -E2BIG;
    if (sep)
        buf[(*len)++] = ',';
    memcpy(buf + *len, text, n + 1);
    *len += n;
    return 0;
}

/* Adds the agent options of one argument (comma-separated items). file= becomes the output,
 * as -o would; the action and reply= belong to flyprof. Returns 0 or EXIT_USAGE (printed). */
static int take_agent_options(struct cmd_args *a, char *word)
{
    for (char *item = strtok(word, ","); item; item = strtok(NULL, ",")) {
        size_t klen = strcspn(item, "=");
        if (!strncmp(item, "file", klen) && klen == 4) {
            if (a->output)
                return usage_error("%s: the output is given twice (-o and file=)", a->cmd);
            a->output = item + 5;
            continue;
        }
        static const char *const own[] = {"start", "stop", "dump", "status", "reply"};
        for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
            if (klen == strlen(own[i]) && !strncmp(item, own[i], klen))
                return usage_error("%s: agent option '%s' is not allowed here (the command "
                                   "sets it)",
                                   a->cmd, item);
        if (klen == 8 && !strncmp(item, "duration", 8))
            a->extra_duration = 1;
        if (add_opt(a->extra, sizeof(a->extra), &a->extra_len, item))
            return usage_error("%s: agent options too long", a->cmd);
    }
    return 0;
}

/* Parses "PID [options]" for cmd (argv[0]); allowed says which options it takes. */
static int parse_args(int argc, char **argv, unsigned allowed, struct cmd_args *a)
{
    memset(a, 0, sizeof(*a));
    a->cmd = argv[0];
    a->seconds = DEFAULT_SECONDS;
    int have_pid = 0, dashdash = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!dashdash && (!strcmp(arg, "-h") || !strcmp(arg, "--help"))) {
            fputs("usage:\n" CMD_ATTACH_USAGE, stdout);
            return -1;
        }
        if (!dashdash && !strcmp(arg, "--")) {
            if (!(allowed & ALLOW_EXTRA))
                return usage_error("%s takes no agent options", a->cmd);
            dashdash = 1;
            continue;
        }
        if (!dashdash && arg[0] == '-' && arg[1]) {
            int takes = !strcmp(arg, "-d") || !strcmp(arg, "-e") || !strcmp(arg, "-i") ||
                        !strcmp(arg, "-o");
            if (takes && !val)
                return usage_error("%s: %s needs a value", a->cmd, arg);
            if (!strcmp(arg, "-d") && (allowed & ALLOW_D)) {
                char *end;
                a->seconds = strtod(val, &end);
                if (end == val || *end || !(a->seconds > 0) || a->seconds > MAX_SECONDS)
                    return usage_error("%s: -d takes a number of seconds greater than 0, not "
                                       "'%s'",
                                       a->cmd, val);
                a->seconds_given = 1;
            } else if (!strcmp(arg, "-e") && (allowed & ALLOW_MODE)) {
                if (strcmp(val, "cpu") && strcmp(val, "wall") && strcmp(val, "cpu,wall") &&
                    strcmp(val, "wall,cpu"))
                    return usage_error("%s: unknown event '%s': use cpu, wall or cpu,wall", a->cmd,
                                       val);
                a->events = val;
            } else if (!strcmp(arg, "-i") && (allowed & ALLOW_MODE)) {
                uint64_t ns;
                if (fpl_optval_time(val, strlen(val), &ns) != 0)
                    return usage_error("%s: bad interval '%s': use a TIME such as 10ms (units "
                                       "ns, us, ms, s)",
                                       a->cmd, val);
                a->interval = val;
            } else if (!strcmp(arg, "-o") && (allowed & ALLOW_O)) {
                if (a->output)
                    return usage_error("%s: the output is given twice", a->cmd);
                a->output = val;
            } else if (!strcmp(arg, "--threads") && (allowed & ALLOW_MODE)) {
                a->threads = 1;
                continue;
            } else {
                return usage_error("%s: unknown option '%s'", a->cmd, arg);
            }
            i++;
            continue;
        }
        if (!have_pid && !dashdash) {
            if (parse_pid(arg, &a->pid) != 0)
                return usage_error("%s: '%s' is not a process id", a->cmd, arg);
            have_pid = 1;
            continue;
        }
        if (!(allowed & ALLOW_EXTRA))
            return usage_error("%s: unexpected argument '%s'", a->cmd, arg);
        char word[ATTACH_ARG_MAX];
        if (strlen(arg) >= sizeof(word))
            return usage_error("%s: agent options too long", a->cmd);
        strcpy(word, arg);
        int rc = take_agent_options(a, word);
        if (rc)
            return rc;
    }
    if (!have_pid)
        return usage_error("%s: which JVM? give its process id ('flyprof list' shows them)",
                           a->cmd);
    return 0;
}

/* The output path made absolute (the JVM has another working directory). The agent splits
 * its options at commas, and the status reply is one line: neither may be in the path. */
static int absolute_output(const char *cmd, const char *path, char *out, size_t cap)
{
    if (!*path)
        return usage_error("%s: empty output file name", cmd);
    if (strpbrk(path, ",\n"))
        return usage_error("%s: output file '%s' contains a %s, which the agent cannot take: "
                           "choose a name without one",
                           cmd, path, strchr(path, ',') ? "comma" : "newline");
    if (path[0] == '/') {
        if (strlen(path) >= cap) {
            cli_msg_error("output path too long: '%s'", path);
            return EXIT_FAIL;
        }
        strcpy(out, path);
        return 0;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd))) {
        cli_msg_error("cannot get the current directory: %s", strerror(errno));
        return EXIT_FAIL;
    }
    if (strchr(cwd, ','))
        return usage_error("%s: the current directory '%s' contains a comma, which the agent "
                           "cannot take: give -o an absolute path",
                           cmd, cwd);
    if ((size_t)snprintf(out, cap, "%s/%s", cwd, path) >= cap) {
        cli_msg_error("output path too long: '%s/%s'", cwd, path);
        return EXIT_FAIL;
    }
    return 0;
}

/* Inspects the target; prints the error. */
static int inspect(pid_t pid, struct attach_target *t)
{
    char err[ERR_MAX];
    if (attach_inspect(pid, t, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        return EXIT_FAIL;
    }
    return 0;
}

/* The main class (or jar) on the target's command line, for messages. */
static void target_main(pid_t pid, char *out, size_t cap)
{
    char *cmd;
    size_t len;
    out[0] = 0;
    if (attach_read_proc(pid, "cmdline", 1u << 20, &cmd, &len) == 0) {
        struct attach_cmdline c;
        memset(&c, 0, sizeof(c));
        attach_scan_args(cmd, len, 1, &c);
        snprintf(out, cap, "%s", c.main);
        free(cmd);
    }
}

/* "process 123 (JDK 17, app.Main)" */
static const char *describe(const struct attach_target *t, char *buf, size_t cap)
{
    char main[256], jdk[32] = "JDK ?";
    target_main(t->pid, main, sizeof(main));
    if (t->java_major)
        snprintf(jdk, sizeof(jdk), "JDK %d", t->java_major);
    snprintf(buf, cap, "process %d (%s%s%s)", (int)t->pid, jdk, main[0] ? ", " : "", main);
    return buf;
}

/* Where the user finds a file the JVM wrote: through /proc/PID/root when it lives in another
 * mount namespace and is not the same file here. */
static const char *seen_from_here(const struct attach_target *t, const char *path, char *buf,
                                  size_t cap)
{
    char there[PATH_MAX + 64];
    struct stat a, b;
    snprintf(there, sizeof(there), "%s%s", t->root, path);
    int same =
        stat(path, &a) == 0 && stat(there, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
    if (t->other_mntns && !same)
        snprintf(buf, cap, "%s (in the JVM's file system; from here %s while it runs)", path,
                 there);
    else
        snprintf(buf, cap, "%s", path);
    return buf;
}

/* Runs one agent action and prints its failure. r may be NULL. */
static int action(const struct attach_target *t, const char *lib, const char *opts,
                  struct attach_reply *r)
{
    char err[ERR_MAX];
    struct attach_reply local;
    if (!r)
        r = &local;
    int64_t deadline = attach_now_ns() + (int64_t)ATTACH_TIMEOUT_MS * 1000000;
    int rc = attach_action(t, lib, opts, deadline, r, err, sizeof(err));
    if (rc == 0)
        return 0;
    if (r->have)
        cli_msg_error("process %d: %s", (int)t->pid, err);
    else
        cli_msg_error("%s", err);
    return rc;
}

/* The agent path for the target, staged when it cannot load ours; prints the error. */
static int agent_for(const struct attach_target *t, char *lib, size_t cap)
{
    char err[ERR_MAX], mine[PATH_MAX];
    if (t->agent[0]) {
        snprintf(lib, cap, "%s", t->agent);
        return 0;
    }
    if (attach_find_agent(mine, sizeof(mine), err, sizeof(err)) != 0 ||
        attach_stage_agent(t, mine, lib, cap, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        return EXIT_FAIL;
    }
    return 0;
}

/* The "start,..." option string of attach and start; file is absolute. */
static int start_options(const struct cmd_args *a, const char *file, uint64_t duration_ms,
                         char *buf, size_t cap)
{
    size_t len = 0;
    char item[PATH_MAX + 16];
    int bad = add_opt(buf, cap, &len, "start");
    int cpu = a->events ? strstr(a->events, "cpu") != NULL : a->interval != NULL;
    int wall = a->events && strstr(a->events, "wall");
    if (cpu) {
        snprintf(item, sizeof(item), "cpu%s%s", a->interval ? "=" : "",
                 a->interval ? a->interval : "");
        bad |= add_opt(buf, cap, &len, item);
    }
    if (wall) {
        snprintf(item, sizeof(item), "wall%s%s", a->interval ? "=" : "",
                 a->interval ? a->interval : "");
        bad |= add_opt(buf, cap, &len, item);
    }
    snprintf(item, sizeof(item), "file=%s", file);
    bad |= add_opt(buf, cap, &len, item);
    if (a->threads)
        bad |= add_opt(buf, cap, &len, "threads");
    if (duration_ms && !a->extra_duration) {
        snprintf(item, sizeof(item), "duration=%llums", (unsigned long long)duration_ms);
        bad |= add_opt(buf, cap, &len, item);
    }
    if (a->extra_len)
        bad |= add_opt(buf, cap, &len, a->extra);
    if (bad) {
        cli_msg_error(
            "%s: the agent options are too long for the attach protocol (at most %d bytes): "
            "use a shorter output path",
            a->cmd, ATTACH_ARG_MAX - 1);
        return EXIT_FAIL;
    }
    return 0;
}

/* The output path the agent reports in a status line (the expanded file=), else fallback. */
static void reported_file(const struct attach_reply *r, const char *fallback, char *out, size_t cap)
{
    struct attach_status st;
    if (r->have && attach_parse_status(r->text, &st) == 0 && st.file[0] && strcmp(st.file, "-"))
        snprintf(out, cap, "%s", st.file);
    else
        snprintf(out, cap, "%s", fallback);
}

static int process_gone(pid_t pid)
{
    return kill(pid, 0) != 0 && errno == ESRCH;
}

/* Shared by attach and start: inspect, stage the agent, start. On success *t, lib and file
 * (the output as the agent expanded it) are set. */
static int start_profiling(const struct cmd_args *a, uint64_t duration_ms, struct attach_target *t,
                           char *lib, size_t libcap, char *file, size_t filecap)
{
    char err[ERR_MAX], out[PATH_MAX], opts[ATTACH_ARG_MAX + 64], def[64];
    int rc = inspect(a->pid, t);
    if (rc)
        return rc;
    snprintf(def, sizeof(def), "flyprof-%d.fpl", (int)a->pid);
    if ((rc = absolute_output(a->cmd, a->output ? a->output : def, out, sizeof(out))) != 0)
        return rc;
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", out);
    *strrchr(dir, '/') = 0;
    if (!strchr(dir, '%') && attach_check_writable(t, out, err, sizeof(err)) != 0) {
        cli_msg_error("%s: choose another output with -o", err);
        return EXIT_FAIL;
    }
    if ((rc = agent_for(t, lib, libcap)) != 0)
        return rc;
    if ((rc = start_options(a, out, duration_ms, opts, sizeof(opts))) != 0)
        return rc;
    if (attach_warns_dynamic(t))
        cli_msg_error("warning: JDK %d prints a warning about a dynamically loaded agent on the "
                      "standard error of process %d; start the JVM with "
                      "-XX:+EnableDynamicAgentLoading to allow flyprof silently",
                      t->java_major, (int)t->pid);
    struct attach_reply r;
    rc = action(t, lib, opts, &r);
    if (rc == -EBUSY && r.have) {
        cli_msg_error("see 'flyprof status %d'; 'flyprof stop %d' stops the running profile",
                      (int)a->pid, (int)a->pid);
        return EXIT_FAIL;
    }
    if (rc)
        return EXIT_FAIL;
    reported_file(&r, out, file, filecap);
    return 0;
}

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

static int cmd_attach(int argc, char **argv)
{
    struct cmd_args a;
    int rc = parse_args(argc, argv, ALLOW_D | ALLOW_MODE | ALLOW_O | ALLOW_EXTRA, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct attach_target t;
    char lib[PATH_MAX], file[PATH_MAX], where[2 * PATH_MAX + 128], desc[512];
    uint64_t ms = (uint64_t)llround(a.seconds * 1000);
    catch_signals();
    int64_t t0 = attach_now_ns();
    if ((rc = start_profiling(&a, ms + SAFETY_MS, &t, lib, sizeof(lib), file, sizeof(file))))
        return rc;
    int64_t started = attach_now_ns();
    cli_msg_error("profiling %s for %g s (attached in %.0f ms)%s", describe(&t, desc, sizeof(desc)),
                  a.seconds, (double)(started - t0) / 1e6,
                  interrupted ? "" : "; Ctrl-C stops early");

    int64_t end = started + (int64_t)ms * 1000000;
    int tty = isatty(STDERR_FILENO), shown = 0, running = 1, gone = 0;
    while (!interrupted && running && attach_now_ns() < end) {
        if (process_gone(t.pid)) {
            gone = 1;
            break;
        }
        if (tty)
            progress(&t, lib, end, &shown, &running);
        nap(end);
    }
    if (shown)
        fprintf(stderr, "\r%-72s\r", "");
    if (gone || process_gone(t.pid)) {
        cli_msg_error(
            "process %d exited while it was profiled; the agent completes the profile when "
            "the JVM shuts down: %s",
            (int)t.pid, file);
        return 0;
    }
    struct attach_reply r;
    char err[ERR_MAX];
    int64_t deadline = attach_now_ns() + (int64_t)ATTACH_TIMEOUT_MS * 1000000;
    rc = attach_action(&t, lib, "stop", deadline, &r, err, sizeof(err));
    if (rc == -ENOENT && r.have) {
        cli_msg_error("profiling had stopped already in process %d (duration= reached, or another "
                      "'flyprof stop'); the profile is %s",
                      (int)t.pid, seen_from_here(&t, file, where, sizeof(where)));
        return 0;
    }
    if (rc) {
        cli_msg_error("%s%s", r.have ? "stopping: " : "", err);
        return EXIT_FAIL;
    }
    cli_msg_error("%sprofile written to %s", interrupted ? "interrupted: " : "",
                  seen_from_here(&t, file, where, sizeof(where)));
    return 0;
}

static int cmd_start(int argc, char **argv)
{
    struct cmd_args a;
    int rc = parse_args(argc, argv, ALLOW_D | ALLOW_MODE | ALLOW_O | ALLOW_EXTRA, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct attach_target t;
    char lib[PATH_MAX], file[PATH_MAX], where[2 * PATH_MAX + 128], desc[512];
    uint64_t ms = a.seconds_given ? (uint64_t)llround(a.seconds * 1000) : 0;
    catch_signals();
    if ((rc = start_profiling(&a, ms, &t, lib, sizeof(lib), file, sizeof(file))))
        return rc;
    if (a.seconds_given)
        cli_msg_error("profiling %s for %g s into %s", describe(&t, desc, sizeof(desc)), a.seconds,
                      seen_from_here(&t, file, where, sizeof(where)));
    else
        cli_msg_error("profiling %s into %s; 'flyprof stop %d' stops it",
                      describe(&t, desc, sizeof(desc)),
                      seen_from_here(&t, file, where, sizeof(where)), (int)t.pid);
    return 0;
}

/* The target with flyprof loaded in it; prints why not. */
static int loaded_target(const struct cmd_args *a, struct attach_target *t, const char *what)
{
    int rc = inspect(a->pid, t);
    if (rc)
        return rc;
    if (!t->agent[0]) {
        char desc[512];
        cli_msg_error("flyprof is not loaded in %s: nothing to %s", describe(t, desc, sizeof(desc)),
                      what);
        return EXIT_FAIL;
    }
    return 0;
}

static int cmd_stop(int argc, char **argv)
{
    struct cmd_args a;
    int rc = parse_args(argc, argv, 0, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct attach_target t;
    if ((rc = loaded_target(&a, &t, "stop")) != 0)
        return rc;
    catch_signals();
    struct attach_reply r;
    char file[PATH_MAX] = "", where[2 * PATH_MAX + 128], err[ERR_MAX];
    int64_t deadline = attach_now_ns() + (int64_t)ATTACH_TIMEOUT_MS * 1000000;
    if (attach_action(&t, t.agent, "status", deadline, &r, err, sizeof(err)) == 0)
        reported_file(&r, "", file, sizeof(file));
    if (action(&t, t.agent, "stop", NULL) != 0)
        return EXIT_FAIL;
    if (file[0])
        cli_msg_error("stopped profiling process %d; profile written to %s", (int)t.pid,
                      seen_from_here(&t, file, where, sizeof(where)));
    else
        cli_msg_error("stopped profiling process %d", (int)t.pid);
    return 0;
}

static int cmd_dump(int argc, char **argv)
{
    struct cmd_args a;
    int rc = parse_args(argc, argv, ALLOW_O, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct attach_target t;
    char out[PATH_MAX], def[64], opts[PATH_MAX + 16], err[ERR_MAX], where[2 * PATH_MAX + 128];
    snprintf(def, sizeof(def), "flyprof-%d-dump.fpl", (int)a.pid);
    if ((rc = absolute_output(a.cmd, a.output ? a.output : def, out, sizeof(out))) != 0)
        return rc;
    if ((rc = loaded_target(&a, &t, "dump")) != 0)
        return rc;
    if (attach_check_writable(&t, out, err, sizeof(err)) != 0) {
        cli_msg_error("%s: choose another output with -o", err);
        return EXIT_FAIL;
    }
    if ((size_t)snprintf(opts, sizeof(opts), "dump,file=%s", out) >= sizeof(opts)) {
        cli_msg_error("output path too long: '%s'", out);
        return EXIT_FAIL;
    }
    catch_signals();
    if (action(&t, t.agent, opts, NULL) != 0)
        return EXIT_FAIL;
    cli_msg_error("profile of process %d so far written to %s", (int)t.pid,
                  seen_from_here(&t, out, where, sizeof(where)));
    return 0;
}

static int cmd_status(int argc, char **argv)
{
    struct cmd_args a;
    int rc = parse_args(argc, argv, 0, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    struct attach_target t;
    char desc[512], b1[32], b2[32];
    if ((rc = inspect(a.pid, &t)) != 0)
        return rc;
    describe(&t, desc, sizeof(desc));
    if (!t.agent[0]) {
        printf("%s: flyprof is not loaded\n", desc);
        return 0;
    }
    catch_signals();
    struct attach_reply r;
    struct attach_status st;
    if (action(&t, t.agent, "status", &r) != 0)
        return EXIT_FAIL;
    if (!r.have || attach_parse_status(r.text, &st) != 0) {
        printf("%s: flyprof is loaded; its status: %s\n", desc,
               r.have ? r.text : "(no reply: an older agent prints it on the JVM's stderr)");
        return 0;
    }
    int has_file = st.file[0] && strcmp(st.file, "-");
    if (!st.running) {
        printf("%s: flyprof is loaded, not profiling%s%s%s\n", desc,
               has_file ? " (last output " : "", has_file ? st.file : "", has_file ? ")" : "");
        return 0;
    }
    printf("%s: flyprof is profiling\n", desc);
    if (st.cpu_ns)
        printf("  cpu       every %s (%s)\n", fpl_optval_time_str(st.cpu_ns, b1, sizeof(b1)),
               st.engine);
    if (st.wall_ns)
        printf("  wall      every %s, %u threads per tick%s\n",
               fpl_optval_time_str(st.wall_ns, b2, sizeof(b2)), st.wall_threads,
               st.filter ? ", marked threads only" : "");
    printf("  samples   %llu (%llu dropped)\n", (unsigned long long)st.samples,
           (unsigned long long)st.drops);
    if (st.live_threads >= 0)
        printf("  threads   %d\n", st.live_threads);
    printf("  output    %s\n", has_file ? st.file : "-");
    return 0;
}

static int cmd_list(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs("usage:\n" CMD_ATTACH_USAGE, stdout);
            return 0;
        }
        return usage_error("list: unexpected argument '%s'", argv[i]);
    }
    struct jvmlist_entry *v;
    size_t n, hidden;
    char err[ERR_MAX];
    if (jvmlist_scan(&v, &n, &hidden, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        return EXIT_FAIL;
    }
    if (n)
        printf("%-8s %-10s %-4s %-8s %s\n", "PID", "USER", "JDK", "FLYPROF", "MAIN");
    for (size_t i = 0; i < n; i++) {
        char user[32], jdk[16];
        struct passwd *pw = getpwuid(v[i].uid);
        if (pw)
            snprintf(user, sizeof(user), "%s", pw->pw_name);
        else
            snprintf(user, sizeof(user), "%u", (unsigned)v[i].uid);
        if (v[i].java_major)
            snprintf(jdk, sizeof(jdk), "%d", v[i].java_major);
        else
            snprintf(jdk, sizeof(jdk), "?");
        printf("%-8d %-10s %-4s %-8s %s\n", (int)v[i].pid, user, jdk, v[i].flyprof ? "loaded" : "-",
               v[i].main[0] ? v[i].main : "?");
    }
    if (!n)
        cli_msg_error("no Java VMs found");
    if (hidden)
        cli_msg_error(
            "%zu java process%s of other users not shown: run flyprof as root to see them", hidden,
            hidden == 1 ? "" : "es");
    free(v);
    return 0;
}

int cmd_attach_main(int argc, char **argv)
{
    const char *cmd = argv[0];
    if (!strcmp(cmd, "attach"))
        return cmd_attach(argc, argv);
    if (!strcmp(cmd, "start"))
        return cmd_start(argc, argv);
    if (!strcmp(cmd, "stop"))
        return cmd_stop(argc, argv);
    if (!strcmp(cmd, "dump"))
        return cmd_dump(argc, argv);
    if (!strcmp(cmd, "status"))
        return cmd_status(argc, argv);
    if (!strcmp(cmd, "list"))
        return cmd_list(argc, argv);
    return usage_error("unknown command '%s'", cmd);
}
