/* cli_target.c: arguments, targets and agent actions of the commands acting on running JVMs
 * (see cli_target.h). The protocol and the agent actions are attach.c's. */
#include "cli_target.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_msg.h"
#include "fpl_optval.h"

#define ERR_MAX 2048

/* Set by SIGINT / SIGTERM / SIGHUP: attach stops profiling early and still writes. */
volatile sig_atomic_t cli_target_interrupted;

static void on_signal(int sig)
{
    if (cli_target_interrupted) {
        static const char m[] =
            "\nflyprof: cli_target_interrupted again: leaving now; profiling may still "
            "run in the JVM ('flyprof stop PID' ends it)\n";
        ssize_t w = write(STDERR_FILENO, m, sizeof(m) - 1);
        (void)w;
        _exit(128 + sig);
    }
    cli_target_interrupted = sig;
}

void cli_target_catch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal; /* no SA_RESTART: a sleep ends at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
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
 * as -o would; the action and reply= belong to flyprof. Returns 0 or CLI_EXIT_USAGE (printed). */
static int take_agent_options(struct cli_target_args *a, char *word)
{
    for (char *item = strtok(word, ","); item; item = strtok(NULL, ",")) {
        size_t klen = strcspn(item, "=");
        if (!strncmp(item, "file", klen) && klen == 4) {
            if (a->output)
                return cli_msg_usage(a->cmd, "%s: the output is given twice (-o and file=)",
                                     a->cmd);
            a->output = item + 5;
            continue;
        }
        static const char *const own[] = {"start", "stop", "dump", "status", "reply"};
        for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
            if (klen == strlen(own[i]) && !strncmp(item, own[i], klen))
                return cli_msg_usage(a->cmd,
                                     "%s: agent option '%s' is not allowed here (the command "
                                     "sets it)",
                                     a->cmd, item);
        if (klen == 8 && !strncmp(item, "duration", 8))
            a->extra_duration = 1;
        if ((klen == 3 && !strncmp(item, "cpu", 3)) || (klen == 4 && !strncmp(item, "wall", 4)))
            a->extra_modes = 1;
        if (klen == 5 && !strncmp(item, "alloc", 5))
            a->extra_alloc = 1;
        if (klen == 4 && !strncmp(item, "lock", 4))
            a->extra_lock = 1;
        if (klen == 4 && !strncmp(item, "live", 4))
            a->extra_live = 1;
        if (add_opt(a->extra, sizeof(a->extra), &a->extra_len, item))
            return cli_msg_usage(a->cmd, "%s: agent options too long", a->cmd);
    }
    return 0;
}

int cli_target_parse(int argc, char **argv, unsigned allowed, const struct cli_cmd *c,
                     struct cli_target_args *a)
{
    memset(a, 0, sizeof(*a));
    a->cmd = argv[0];
    a->duration_ns = CLI_TARGET_DEFAULT_NS;
    int have_pid = 0, dashdash = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!dashdash && (!strcmp(arg, "-h") || !strcmp(arg, "--help"))) {
            cli_args_help(c, stdout);
            return -1;
        }
        if (!dashdash && !strcmp(arg, "--")) {
            if (!(allowed & CLI_TARGET_EXTRA))
                return cli_msg_usage(a->cmd, "%s takes no agent options", a->cmd);
            dashdash = 1;
            continue;
        }
        if (!dashdash && arg[0] == '-' && arg[1]) {
            int takes = !strcmp(arg, "-d") || !strcmp(arg, "-e") || !strcmp(arg, "-i") ||
                        !strcmp(arg, "-o") || !strcmp(arg, "--wall") ||
                        !strcmp(arg, "--loop") || !strcmp(arg, "--keep");
            if (takes && !val)
                return cli_msg_usage(a->cmd, "%s: %s needs a value", a->cmd, arg);
            if (!strcmp(arg, "-d") && (allowed & CLI_TARGET_D)) {
                if (cli_args_duration(val, CLI_TARGET_MAX_NS, &a->duration_ns) != 0)
                    return cli_msg_usage(a->cmd,
                                         "%s: bad duration '%s' for -d: use " CLI_ARGS_DURATION_HINT
                                         ", more than 0 and at most 365 days",
                                         a->cmd, val);
                a->duration_given = 1;
            } else if (!strcmp(arg, "-e") && (allowed & CLI_TARGET_MODE)) {
                a->events = val;
            } else if (!strcmp(arg, "-i") && (allowed & CLI_TARGET_MODE)) {
                a->interval = val;
            } else if (!strcmp(arg, "--wall") && (allowed & CLI_TARGET_MODE)) {
                a->wall = val;
            } else if (!strcmp(arg, "-o") && (allowed & CLI_TARGET_O)) {
                if (a->output)
                    return cli_msg_usage(a->cmd, "%s: the output is given twice", a->cmd);
                a->output = val;
            } else if ((!strcmp(arg, "--loop") || !strcmp(arg, "--keep")) &&
                       (allowed & CLI_TARGET_MODE)) {
                /* the agent's loop= and keep=, which check them and say what is wrong */
                char item[64];
                if ((size_t)snprintf(item, sizeof(item), "%s=%s", arg + 2, val) >= sizeof(item) ||
                    strchr(val, ',') || add_opt(a->extra, sizeof(a->extra), &a->extra_len, item))
                    return cli_msg_usage(a->cmd, "%s: bad value '%s' for %s", a->cmd, val, arg);
            } else if (!strcmp(arg, "--threads") && (allowed & CLI_TARGET_MODE)) {
                a->threads = 1;
                continue;
            } else {
                return cli_msg_usage(a->cmd, "%s: unknown option '%s'", a->cmd, arg);
            }
            i++;
            continue;
        }
        if (!have_pid && !dashdash) {
            if (parse_pid(arg, &a->pid) != 0)
                return cli_msg_usage(a->cmd, "%s: '%s' is not a process id", a->cmd, arg);
            have_pid = 1;
            continue;
        }
        if (!(allowed & CLI_TARGET_EXTRA))
            return cli_msg_usage(a->cmd, "%s: unexpected argument '%s'", a->cmd, arg);
        char word[ATTACH_ARG_MAX];
        if (strlen(arg) >= sizeof(word))
            return cli_msg_usage(a->cmd, "%s: agent options too long", a->cmd);
        strcpy(word, arg);
        int rc = take_agent_options(a, word);
        if (rc)
            return rc;
    }
    if (!have_pid)
        return cli_msg_usage(
            a->cmd, "%s: which JVM? give its process id ('flyprof list' shows them)", a->cmd);
    uint64_t cpu_ns, wall_ns; /* checked here, passed on when profiling starts */
    if (a->extra_modes && (a->events || a->interval || a->wall))
        return cli_msg_usage(a->cmd,
                             "%s: the sampling modes are given twice, by -e/-i/--wall and by the "
                             "agent options cpu= or wall=: use one or the other",
                             a->cmd);
    if (allowed & CLI_TARGET_MODE)
        return cli_args_modes(a->cmd, a->events, a->interval, a->wall, &cpu_ns, &wall_ns);
    return 0;
}

/* The output path made absolute (the JVM has another working directory). The agent splits
 * its options at commas, and the status reply is one line: neither may be in the path. */
int cli_target_absolute_output(const char *cmd, const char *path, char *out, size_t cap)
{
    if (!*path)
        return cli_msg_usage(cmd, "%s: empty output file name", cmd);
    if (strpbrk(path, ",\n"))
        return cli_msg_usage(cmd,
                             "%s: output file '%s' contains a %s, which the agent cannot take: "
                             "choose a name without one",
                             cmd, path, strchr(path, ',') ? "comma" : "newline");
    if (path[0] == '/') {
        if (strlen(path) >= cap) {
            cli_msg_error("output path too long: '%s'", path);
            return CLI_EXIT_FAIL;
        }
        strcpy(out, path);
        return 0;
    }
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof(cwd))) {
        cli_msg_error("cannot get the current directory: %s", strerror(errno));
        return CLI_EXIT_FAIL;
    }
    if (strchr(cwd, ','))
        return cli_msg_usage(cmd,
                             "%s: the current directory '%s' contains a comma, which the agent "
                             "cannot take: give -o an absolute path",
                             cmd, cwd);
    if ((size_t)snprintf(out, cap, "%s/%s", cwd, path) >= cap) {
        cli_msg_error("output path too long: '%s/%s'", cwd, path);
        return CLI_EXIT_FAIL;
    }
    return 0;
}

int cli_target_inspect(pid_t pid, struct attach_target *t)
{
    char err[ERR_MAX];
    if (attach_inspect(pid, t, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        return CLI_EXIT_FAIL;
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

const char *cli_target_describe(const struct attach_target *t, char *buf, size_t cap)
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
const char *cli_target_seen_from_here(const struct attach_target *t, const char *path, char *buf,
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

int cli_target_action(const struct attach_target *t, const char *lib, const char *opts,
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
        return CLI_EXIT_FAIL;
    }
    return 0;
}

/* The "start,..." option string of attach and start; file is absolute. */
static int start_options(const struct cli_target_args *a, const char *file, uint64_t duration_ms,
                         int safety, char *buf, size_t cap)
{
    size_t len = 0;
    char item[PATH_MAX + 16];
    int bad = add_opt(buf, cap, &len, "start");
    uint64_t cpu_ns, wall_ns;
    char t1[32];
    if (cli_args_modes(a->cmd, a->events, a->interval, a->wall, &cpu_ns, &wall_ns) != 0)
        return CLI_EXIT_USAGE;
    if (a->extra_modes)
        cpu_ns = wall_ns = 0; /* the agent options cpu= / wall= say it all */
    /* explicit intervals: the agent then samples exactly what the CLI says it does */
    if (cpu_ns) {
        snprintf(item, sizeof(item), "cpu=%s", fpl_optval_time_str(cpu_ns, t1, sizeof(t1)));
        bad |= add_opt(buf, cap, &len, item);
    }
    if (wall_ns) {
        snprintf(item, sizeof(item), "wall=%s", fpl_optval_time_str(wall_ns, t1, sizeof(t1)));
        bad |= add_opt(buf, cap, &len, item);
    }
    /* -e alloc / lock: the agent's defaults (alloc=BYTES, lock=TIME after -- set others) */
    unsigned ev = a->events ? cli_args_event_bits(a->events) : 0;
    if ((ev & CLI_ARGS_EV_ALLOC) && !a->extra_alloc)
        bad |= add_opt(buf, cap, &len, "alloc");
    if ((ev & CLI_ARGS_EV_LOCK) && !a->extra_lock)
        bad |= add_opt(buf, cap, &len, "lock");
    if ((ev & CLI_ARGS_EV_LIVE) && !a->extra_live)
        bad |= add_opt(buf, cap, &len, "live");
    snprintf(item, sizeof(item), "file=%s", file);
    bad |= add_opt(buf, cap, &len, item);
    if (a->threads)
        bad |= add_opt(buf, cap, &len, "threads");
    if (duration_ms && (safety || !a->extra_duration)) {
        /* attach's own stop is internal (safety=): the log then shows what the user asked */
        snprintf(item, sizeof(item), "%s=%llums", safety ? "safety" : "duration",
                 (unsigned long long)duration_ms);
        bad |= add_opt(buf, cap, &len, item);
    }
    if (a->extra_len)
        bad |= add_opt(buf, cap, &len, a->extra);
    if (bad) {
        cli_msg_error(
            "%s: the agent options are too long for the attach protocol (at most %d bytes): "
            "use a shorter output path",
            a->cmd, ATTACH_ARG_MAX - 1);
        return CLI_EXIT_FAIL;
    }
    return 0;
}

void cli_target_reported_file(const struct attach_reply *r, const char *fallback, char *out,
                              size_t cap)
{
    struct attach_status st;
    if (r->have && attach_parse_status(r->text, &st) == 0 && st.file[0] && strcmp(st.file, "-"))
        snprintf(out, cap, "%s", st.file);
    else
        snprintf(out, cap, "%s", fallback);
}

int cli_target_gone(pid_t pid)
{
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 1;
    /* a JVM that died but was not reaped yet (its parent is busy) is a zombie: gone too */
    char path[64], stat[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(stat, 1, sizeof(stat) - 1, f);
    fclose(f);
    stat[n] = 0;
    const char *paren = strrchr(stat, ')'); /* the command name may hold spaces or parens */
    return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

/* Shared by attach and start: inspect, stage the agent, start. On success *t, lib and file
 * (the output as the agent expanded it) are set. */
int cli_target_start(const struct cli_target_args *a, uint64_t duration_ms, int safety,
                     struct attach_target *t, char *lib, size_t libcap, char *file, size_t filecap,
                     char *modes, size_t modescap)
{
    char err[ERR_MAX], out[PATH_MAX], opts[ATTACH_ARG_MAX + 64], def[64];
    int rc = cli_target_inspect(a->pid, t);
    if (rc)
        return rc;
    snprintf(def, sizeof(def), "flyprof-%d.fpl", (int)a->pid);
    if ((rc = cli_target_absolute_output(a->cmd, a->output ? a->output : def, out, sizeof(out))) !=
        0)
        return rc;
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", out);
    *strrchr(dir, '/') = 0;
    if (!strchr(dir, '%') && attach_check_writable(t, out, err, sizeof(err)) != 0) {
        cli_msg_error("%s: choose another output with -o", err);
        return CLI_EXIT_FAIL;
    }
    if ((rc = agent_for(t, lib, libcap)) != 0)
        return rc;
    if ((rc = start_options(a, out, duration_ms, safety, opts, sizeof(opts))) != 0)
        return rc;
    if (attach_warns_dynamic(t))
        cli_msg_error("warning: JDK %d prints a warning about a dynamically loaded agent on the "
                      "standard error of process %d; start the JVM with "
                      "-XX:+EnableDynamicAgentLoading to allow flyprof silently",
                      t->java_major, (int)t->pid);
    struct attach_reply r;
    rc = cli_target_action(t, lib, opts, &r);
    if (rc == -EBUSY && r.have) {
        cli_msg_error("see 'flyprof status %d'; 'flyprof stop %d' stops the running profile",
                      (int)a->pid, (int)a->pid);
        return CLI_EXIT_FAIL;
    }
    if (rc)
        return CLI_EXIT_FAIL;
    cli_target_reported_file(&r, out, file, filecap);
    struct attach_status st;
    uint64_t cpu_ns = 0, wall_ns = 0;
    if (r.have && attach_parse_status(r.text, &st) == 0) {
        cpu_ns = st.cpu_ns;
        wall_ns = st.wall_ns;
    } else if (cli_args_modes(a->cmd, a->events, a->interval, a->wall, &cpu_ns, &wall_ns) != 0) {
        cpu_ns = wall_ns = 0;
    }
    cli_args_modes_str_ev(cpu_ns, wall_ns, a->events ? cli_args_event_bits(a->events) : 0,
                          cpu_ns && wall_ns && a->interval && !a->wall, modes, modescap);
    return 0;
}

int cli_target_loaded(const struct cli_target_args *a, struct attach_target *t, const char *what)
{
    int rc = cli_target_inspect(a->pid, t);
    if (rc)
        return rc;
    if (!t->agent[0]) {
        char desc[512];
        cli_msg_error("flyprof is not loaded in %s: nothing to %s",
                      cli_target_describe(t, desc, sizeof(desc)), what);
        return CLI_EXIT_FAIL;
    }
    return 0;
}
