/* cmd_record.c: `flyprof record [options] -- COMMAND...`: runs a Java command with the agent,
 * set up through JAVA_TOOL_OPTIONS, and says where the profile went. */
#include "cmd_record.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "cli_msg.h"
#include "fpl_optval.h"

#define ERR_MAX 1024

static void bufprintf(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* snprintf where a result cut short is acceptable or checked by the caller. */
static void bufprintf(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

/* Appends text to buf[0..cap) at *len; -ENAMETOOLONG when it does not fit. */
static int append(char *buf, size_t cap, size_t *len, const char *text)
{
    size_t n = strlen(text);
    if (n >= cap - *len)
        return -ENAMETOOLONG;
    memcpy(buf + *len, text, n + 1);
    *len += n;
    return 0;
}

/* The JVM splits JAVA_TOOL_OPTIONS at white space and honours '...' and "..." quotes; a token
 * with either gets quoted. Returns 0, or -EINVAL when it holds both kinds of quote. */
static int quote_token(const char *tok, char *out, size_t cap)
{
    size_t len = 0;
    const char *q = "";

    out[0] = 0;
    if (strpbrk(tok, " \t\n\r\f\v'\"")) {
        q = strchr(tok, '"') ? "'" : "\"";
        if (strchr(tok, q[0]))
            return -EINVAL;
    }
    if (append(out, cap, &len, q) || append(out, cap, &len, tok) || append(out, cap, &len, q))
        return -ENAMETOOLONG;
    return 0;
}

/* The agent's file template expanded as the agent does it; "" when it cannot be. */
static void expand_file(const char *tmpl, long pid, time_t start, char *out, size_t cap)
{
    if (fpl_optval_expand_file(tmpl, (int)pid, (long)start, out, cap) != 0)
        snprintf(out, cap, "%s", tmpl);
}

/* Finds the output the agent wrote: with %t in the template, the start time is some second
 * between the launch and now, so each is tried. Returns 1 and the path in out if found. */
static int find_output(const char *tmpl, long pid, time_t launched, char *out, size_t cap)
{
    struct stat sb;
    time_t now = time(NULL);
    if (!strstr(tmpl, "%t")) {
        expand_file(tmpl, pid, launched, out, cap);
        return stat(out, &sb) == 0;
    }
    for (time_t t = launched - 1; t <= now + 1; t++) {
        expand_file(tmpl, pid, t, out, cap);
        if (stat(out, &sb) == 0)
            return 1;
    }
    expand_file(tmpl, pid, launched, out, cap);
    return 0;
}

static volatile sig_atomic_t child_pid;

/* Forwards a signal sent to flyprof (kill, a supervisor) to the command. A signal from the
 * terminal (Ctrl-C, Ctrl-\, hangup: si_code SI_KERNEL) already reached the whole foreground
 * process group, the command included; sending it twice would make a JVM see two interrupts
 * or print two thread dumps. Either way flyprof itself stays to report where the profile is. */
static void forward_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved = errno;
    if (child_pid > 0 && si->si_code != SI_KERNEL)
        kill((pid_t)child_pid, sig);
    errno = saved;
}

/* Adds the agent options of one --agent-options value (comma-separated items) to extra.
 * file= is -o's, and the actions belong to flyprof. Returns 0 or CLI_EXIT_USAGE (printed). */
static int take_agent_options(const char *list, char *extra, size_t cap, size_t *len)
{
    static const char *const own[] = {"start", "stop", "dump", "status", "reply"};
    const char *item = list;
    for (;;) {
        size_t n = strcspn(item, ","), klen = strcspn(item, "=,");
        if (klen == 4 && strncmp(item, "file", 4) == 0)
            return cli_msg_usage("record",
                                 "record: --agent-options %s: the output is -o's; "
                                 "use -o FILE",
                                 list);
        for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
            if (klen == strlen(own[i]) && strncmp(item, own[i], klen) == 0)
                return cli_msg_usage("record",
                                     "record: --agent-options %s: agent option '%.*s' "
                                     "is not allowed here (flyprof sets it)",
                                     list, (int)klen, item);
        if (n) {
            if ((*len && append(extra, cap, len, ",")) || *len + n >= cap) {
                cli_msg_error("agent options too long");
                return CLI_EXIT_FAIL;
            }
            memcpy(extra + *len, item, n);
            *len += n;
            extra[*len] = '\0';
        }
        if (!item[n])
            return 0;
        item += n + 1;
    }
}

static int run(int argc, char **argv)
{
    const char *events = NULL, *interval = NULL, *wall = NULL, *file = "flyprof-%p.fpl";
    int i, sep = -1;
    char err[ERR_MAX], lib[PATH_MAX], abs_file[PATH_MAX], opts[8192], tok[PATH_MAX + 8300];
    char extra[4096] = "";
    size_t olen = 0, elen = 0;

    /* flyprof's options end at the first "--": everything after it is the command line,
     * verbatim, its own "--" included */
    for (i = 1; i < argc; i++) {
        const char *v = NULL;
        int m;
        if (strcmp(argv[i], "--") == 0) {
            sep = i;
            break;
        }
        if (cli_args_is_help(argv[i])) {
            cli_args_help(&cmd_record, stdout);
            return CLI_EXIT_OK;
        } else if ((m = cli_args_value(argc, argv, &i, "--event", "-e", &v)) != 0) {
            if (m < 0)
                return cli_msg_usage("record", "record: -e needs a list of cpu, wall, alloc, lock");
            events = v;
        } else if ((m = cli_args_value(argc, argv, &i, "--interval", "-i", &v)) != 0) {
            if (m < 0)
                return cli_msg_usage("record", "record: -i needs a TIME such as 10ms");
            interval = v;
        } else if ((m = cli_args_value(argc, argv, &i, "--wall", NULL, &v)) != 0) {
            if (m < 0)
                return cli_msg_usage("record", "record: --wall needs a TIME such as 50ms");
            wall = v;
        } else if ((m = cli_args_value(argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (m < 0)
                return cli_msg_usage("record", "record: -o needs a file");
            file = v;
        } else if ((m = cli_args_value(argc, argv, &i, "--agent-options", "-a", &v)) != 0) {
            if (m < 0)
                return cli_msg_usage("record", "record: --agent-options needs agent options "
                                               "such as threads,depth=64");
            int rc = take_agent_options(v, extra, sizeof(extra), &elen);
            if (rc)
                return rc;
        } else {
            return cli_msg_usage(
                "record", "record: unknown option '%s' (the command goes after '--')", argv[i]);
        }
    }
    if (sep < 0)
        return cli_msg_usage("record", "record: no command: put it after '--'");
    int cmd_at = sep + 1;
    if (cmd_at >= argc)
        return cli_msg_usage("record", "record: no command after '--'");

    uint64_t ns[2];
    int rc = cli_args_modes("record", events, interval, wall, &ns[0], &ns[1]);
    if (rc)
        return rc;
    if (strchr(file, ','))
        return cli_msg_usage("record",
                             "record: output file '%s' contains a comma, which separates agent "
                             "options: choose a name without one",
                             file);
    if (!*file)
        return cli_msg_usage("record", "record: empty output file name");

    if (attach_find_agent(lib, sizeof(lib), err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        return 1;
    }
    if (file[0] == '/') {
        if (strlen(file) >= sizeof(abs_file)) {
            cli_msg_error("output path too long: '%s'", file);
            return 1;
        }
        bufprintf(abs_file, sizeof(abs_file), "%s", file);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof(cwd))) {
            cli_msg_error("cannot get the current directory: %s", strerror(errno));
            return 1;
        }
        if ((size_t)snprintf(abs_file, sizeof(abs_file), "%s/%s", cwd, file) >= sizeof(abs_file)) {
            cli_msg_error("output path too long: '%s/%s'", cwd, file);
            return 1;
        }
    }
    opts[0] = 0;
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        char t[32];
        if (!ns[k])
            continue;
        bad |= olen && append(opts, sizeof(opts), &olen, ",");
        bad |= append(opts, sizeof(opts), &olen, k == 0 ? "cpu=" : "wall=");
        bad |= append(opts, sizeof(opts), &olen, fpl_optval_time_str(ns[k], t, sizeof(t)));
    }
    unsigned ev = events ? cli_args_event_bits(events) : 0;
    /* alloc, lock: the agent's defaults; given with a value after --, the agent takes that */
    int ex_alloc = elen && (!strncmp(extra, "alloc", 5) || strstr(extra, ",alloc"));
    int ex_lock = elen && (!strncmp(extra, "lock", 4) || strstr(extra, ",lock"));
    if ((ev & CLI_ARGS_EV_ALLOC) && !ex_alloc)
        bad |= (olen && append(opts, sizeof(opts), &olen, ",")) ||
               append(opts, sizeof(opts), &olen, "alloc");
    if ((ev & CLI_ARGS_EV_LOCK) && !ex_lock)
        bad |= (olen && append(opts, sizeof(opts), &olen, ",")) ||
               append(opts, sizeof(opts), &olen, "lock");
    int ex_live = elen && (!strncmp(extra, "live", 4) || strstr(extra, ",live"));
    if ((ev & CLI_ARGS_EV_LIVE) && !ex_live)
        bad |= (olen && append(opts, sizeof(opts), &olen, ",")) ||
               append(opts, sizeof(opts), &olen, "live");
    bad |= (olen && append(opts, sizeof(opts), &olen, ",")) ||
           append(opts, sizeof(opts), &olen, "file=") ||
           append(opts, sizeof(opts), &olen, abs_file);
    if (elen)
        bad |= append(opts, sizeof(opts), &olen, ",") || append(opts, sizeof(opts), &olen, extra);
    if (bad) {
        cli_msg_error("agent options too long");
        return 1;
    }

    char agentarg[sizeof(lib) + sizeof(opts) + 16];
    bufprintf(agentarg, sizeof(agentarg), "-agentpath:%s=%s", lib, opts);
    int qrc = quote_token(agentarg, tok, sizeof(tok));
    if (qrc == -EINVAL) {
        cli_msg_error("cannot pass '%s' through JAVA_TOOL_OPTIONS: it holds both ' and \"",
                      agentarg);
        return 1;
    } else if (qrc) {
        cli_msg_error("agent options too long");
        return 1;
    }
    const char *old = getenv("JAVA_TOOL_OPTIONS");
    size_t envlen = (old ? strlen(old) + 1 : 0) + strlen(tok) + 1;
    char *env = malloc(envlen);
    if (!env) {
        cli_msg_error("out of memory");
        return 1;
    }
    snprintf(env, envlen, "%s%s%s", old && *old ? old : "", old && *old ? " " : "", tok);
    if (setenv("JAVA_TOOL_OPTIONS", env, 1) != 0) {
        cli_msg_error("cannot set JAVA_TOOL_OPTIONS: %s", strerror(errno));
        free(env);
        return 1;
    }
    free(env);

    /* signals stay blocked until the handler knows the child, so none is lost or misrouted */
    static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    sigset_t block, saved;
    sigemptyset(&block);
    for (size_t k = 0; k < sizeof(forwarded) / sizeof(forwarded[0]); k++)
        sigaddset(&block, forwarded[k]);
    sigprocmask(SIG_BLOCK, &block, &saved);
    char modes[160];
    cli_msg_error("recording %s",
                  cli_args_modes_str_ev(ns[0], ns[1], events ? cli_args_event_bits(events) : 0,
                                        ns[0] && ns[1] && interval && !wall, modes,
                                        sizeof(modes)));
    fflush(NULL);
    time_t launched = time(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        cli_msg_error("cannot fork: %s", strerror(errno));
        sigprocmask(SIG_SETMASK, &saved, NULL);
        return 1;
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &saved, NULL);
        execvp(argv[cmd_at], argv + cmd_at);
        int e = errno;
        /* agent options after '--', as an earlier record took them between two '--' */
        int looks_opts = strchr(argv[cmd_at], '=') != NULL;
        for (int k = cmd_at + 1; k < argc && !looks_opts; k++)
            looks_opts = strcmp(argv[k], "--") == 0;
        cli_msg_error("cannot run '%s': %s%s", argv[cmd_at], strerror(e),
                      e == ENOENT && looks_opts
                          ? " (everything after the first '--' is the command, as given; agent "
                            "options go in --agent-options)"
                          : "");
        _exit(e == ENOENT ? 127 : 126);
    }
    child_pid = pid;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = forward_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < sizeof(forwarded) / sizeof(forwarded[0]); k++)
        sigaction(forwarded[k], &sa, NULL);
    sigprocmask(SIG_SETMASK, &saved, NULL);

    int status, code;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            cli_msg_error("waiting for '%s': %s", argv[cmd_at], strerror(errno));
            return 1;
        }
    }
    if (WIFEXITED(status))
        code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        code = 128 + WTERMSIG(status);
    else
        code = 1;

    char found[PATH_MAX], logt[PATH_MAX + 8], log[PATH_MAX + 8];
    size_t flen = strlen(abs_file);
    int rendered = flen <= 4 || strcmp(abs_file + flen - 4, ".fpl") != 0;
    if (find_output(abs_file, (long)pid, launched, found, sizeof(found))) {
        cli_msg_error("profile written to %s", found);
    } else if (rendered &&
               (size_t)snprintf(logt, sizeof(logt), "%s.fpl", abs_file) < sizeof(logt) &&
               find_output(logt, (long)pid, launched, log, sizeof(log))) {
        /* the agent writes a rendered output at the JVM's exit, from OUTPUT.fpl */
        cli_msg_error("warning: no profile at '%s': the command ended before the agent rendered "
                      "it; its log %s is readable up to its last complete chunk (flyprof "
                      "convert %s -o %s)",
                      found, log, log, found);
    } else {
        cli_msg_error(
            "warning: no profile at '%s' (%%p is the pid of the command, %ld: a JVM started "
            "by a wrapper script has another; see the JVM's messages above)",
            found, (long)pid);
    }
    return code;
}

const struct cli_cmd cmd_record = {
    "record",
    "run a Java command with the agent and write its profile",
    "usage: flyprof record [-e EVENTS] [-i TIME] [--wall TIME] [-o FILE]\n"
    "                      [--agent-options LIST] -- COMMAND [ARGS...]\n"
    "\n"
    "Runs COMMAND (a java command line, or a script that starts one) with the flyprof agent,\n"
    "set up through JAVA_TOOL_OPTIONS, and says where the profile was written when it ends.\n"
    "flyprof's options end at the first '--': what follows is the command line as given, its\n"
    "own '--' included. flyprof exits with the command's exit status.\n"
    "\n"
    "options:\n"
    "  -e, --event EVENTS    what to sample, comma-separated: cpu, wall, alloc\n"
    "                        (allocations), lock (contended locks), live (alloc and\n"
    "                        what stays reachable at the end) (default cpu)\n"
    "  -i, --interval TIME   the sampling interval (cpu; wall with -e wall): a number and a\n"
    "                        unit, 5ms or 500us (ns, us, ms, s; default cpu 10ms, wall 50ms)\n"
    "  --wall TIME           the wall-clock interval; turns wall-clock sampling on\n"
    "  -o, --output FILE     the output, %p = pid, %t = start time (default flyprof-%p.fpl);\n"
    "                        its extension picks the format as for convert\n"
    "  -a, --agent-options LIST\n"
    "                        more agent options, comma-separated (see the README), e.g.\n"
    "                        -a threads,depth=64; may be repeated\n"
    "\n"
    "example:\n"
    "  flyprof record -e cpu,wall -o app.fpl -- java -jar app.jar --port 8080\n",
    run,
};
