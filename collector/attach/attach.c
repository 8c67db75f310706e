/* attach.c: the HotSpot attach protocol client and flyprof's agent actions on top of it.
 * Never prints; see attach.h for the protocol and the error contract. */
#include "attach.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PROTOCOL_VERSION "1"
#define CMD_NAME_MAX 16          /* HotSpot: AttachOperation::name_length_max */
#define ARGS_FILE_MAX (4u << 20) /* cmdline / environ bytes read; classpaths can be long */
#define AGENT_NAME "libflyprof.so"

static void msg(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* snprintf into the caller's message buffer; a message cut short is still a message. */
static void msg(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int64_t attach_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL); /* a signal ends it early: callers re-check their deadline */
}

/* Milliseconds left until deadline, rounded up, at least 0. */
static int ms_left(int64_t deadline_ns)
{
    int64_t d = deadline_ns - attach_now_ns();
    return d <= 0 ? 0 : (int)((d + 999999) / 1000000);
}

/* Formats path into buf; -ENAMETOOLONG when it does not fit. */
static int pathf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int pathf(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
}

/* Reads a whole (proc) file, at most max bytes, into a malloc'd NUL-terminated buffer. */
static int read_all(const char *path, size_t max, char **out, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    int rc = 0;
    while (buf) {
        if (n == cap) {
            if (cap >= max)
                break;
            char *b = realloc(buf, (cap *= 2) + 1);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = -errno;
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (!buf)
        return -ENOMEM;
    if (rc) {
        free(buf);
        return rc;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}

int attach_read_proc(pid_t pid, const char *name, size_t max, char **out, size_t *len)
{
    char path[96];
    if (pathf(path, sizeof(path), "/proc/%d/%s", (int)pid, name))
        return -ENAMETOOLONG;
    int rc = read_all(path, max, out, len);
    return rc == -ENOENT ? -ESRCH : rc;
}

static const char *user_name(uid_t uid, char *buf, size_t cap)
{
    struct passwd *pw = getpwuid(uid);
    snprintf(buf, cap, "%s", pw ? pw->pw_name : "?");
    return buf;
}

/* --- credentials: HotSpot talks only to its own euid/egid or root ---------------------- */

struct creds {
    int switched;
    uid_t euid;
    gid_t egid;
    int ngroups;
    gid_t *groups;
};

/* Restores what become() changed: uid first, to get back the right to change the rest. */
static void restore(struct creds *c)
{
    if (!c->switched)
        return;
    if (seteuid(c->euid) != 0 || setegid(c->egid) != 0 ||
        (c->ngroups >= 0 && setgroups((size_t)c->ngroups, c->groups) != 0)) {
        /* cannot happen for root getting its own ids back; never go on half-switched */
        abort();
    }
    free(c->groups);
    c->groups = NULL;
    c->switched = 0;
}

/* As root, takes the target's effective uid and gid (and no other groups), so the JVM accepts
 * the connection and the files we create there belong to its user. No-op otherwise. */
static int become(const struct attach_target *t, struct creds *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof(*c));
    c->ngroups = -1;
    if (!t->switch_creds)
        return 0;
    c->euid = geteuid();
    c->egid = getegid();
    int n = getgroups(0, NULL);
    if (n >= 0) {
        c->groups = malloc(sizeof(gid_t) * (size_t)(n ? n : 1));
        if (!c->groups)
            return -ENOMEM;
        c->ngroups = getgroups(n, c->groups);
    }
    c->switched = 1;
    int rc = 0;
    if (setgroups(1, &t->gid) != 0 || setegid(t->gid) != 0 || seteuid(t->uid) != 0)
        rc = -errno;
    if (rc) {
        restore(c);
        msg(err, errlen, "cannot take uid %u gid %u to reach process %d: %s", (unsigned)t->uid,
            (unsigned)t->gid, (int)t->pid, strerror(-rc));
    }
    return rc;
}

/* --- inspecting the target ------------------------------------------------------------- */

int attach_read_maps(pid_t pid, char *libjvm, size_t jvmcap, char *agent, size_t agentcap,
                     int *openj9)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
    if (jvmcap)
        libjvm[0] = 0;
    if (agentcap)
        agent[0] = 0;
    *openj9 = 0;
    FILE *f = fopen(path, "re");
    if (!f)
        return errno == ENOENT ? -ESRCH : -errno;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    errno = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        char *p = strchr(line, '/');
        if (!p)
            continue;
        if (line[n - 1] == '\n')
            line[--n] = 0;
        size_t len = strlen(p);
        static const char deleted[] = " (deleted)";
        if (len > sizeof(deleted) - 1 && !strcmp(p + len - (sizeof(deleted) - 1), deleted))
            p[len -= sizeof(deleted) - 1] = 0;
        const char *base = strrchr(p, '/') + 1;
        if (!strcmp(base, "libjvm.so") && jvmcap && !libjvm[0] && len < jvmcap)
            memcpy(libjvm, p, len + 1);
        else if (!strcmp(base, AGENT_NAME) && agentcap && !agent[0] && len < agentcap)
            memcpy(agent, p, len + 1);
        else if (!strncmp(base, "libj9vm", 7))
            *openj9 = 1;
    }
    if (ferror(f))
        rc = errno ? -errno : -EIO;
    free(line);
    fclose(f);
    return rc;
}

/* The major version in a release file's JAVA_VERSION="..." ("1.8.0_x" is 8); 0 if none. */
static int release_major(const char *text)
{
    const char *v = strstr(text, "JAVA_VERSION=\"");
    while (v && v != text && v[-1] != '\n')
        v = strstr(v + 1, "JAVA_VERSION=\"");
    if (!v)
        return 0;
    v += strlen("JAVA_VERSION=\"");
    if (!strncmp(v, "1.", 2))
        v += 2;
    return isdigit((unsigned char)*v) ? atoi(v) : 0;
}

int attach_java_major(const char *root, const char *libjvm, char *home, size_t homecap)
{
    char dir[PATH_MAX], path[PATH_MAX + 64];
    if (homecap)
        home[0] = 0;
    if (strlen(libjvm) >= sizeof(dir))
        return 0;
    strcpy(dir, libjvm);
    /* <home>/lib/server/libjvm.so (9+), <home>/jre/lib/amd64/server/libjvm.so (8): the
     * release file sits two to four levels above the library's directory */
    for (int up = 0; up < 5; up++) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir)
            return 0;
        *slash = 0;
        if (up < 2)
            continue;
        if (pathf(path, sizeof(path), "%s%s/release", root, dir))
            return 0;
        char *text;
        size_t len;
        if (read_all(path, 65536, &text, &len) != 0)
            continue;
        int major = release_major(text);
        free(text);
        if (major) {
            if (homecap)
                snprintf(home, homecap, "%s", dir);
            return major;
        }
    }
    return 0;
}

/* Applies one JVM option to the flags it may set. */
static void scan_flag(const char *a, struct attach_cmdline *c)
{
    if (!strcmp(a, "-XX:+DisableAttachMechanism"))
        c->attach_disabled = 1;
    else if (!strcmp(a, "-XX:-DisableAttachMechanism"))
        c->attach_disabled = 0;
    else if (!strcmp(a, "-XX:+EnableDynamicAgentLoading"))
        c->dynamic_loading = 1;
    else if (!strcmp(a, "-XX:-EnableDynamicAgentLoading"))
        c->dynamic_loading = -1;
}

/* The java launcher's options that take their value as the next argument. */
static int takes_value(const char *a)
{
    static const char *const opts[] = {
        "-cp",
        "-classpath",
        "--class-path",
        "-p",
        "--module-path",
        "--upgrade-module-path",
        "--add-modules",
        "--limit-modules",
        "--add-exports",
        "--add-opens",
        "--add-reads",
        "--patch-module",
        "--enable-native-access",
        "--illegal-native-access",
        "-d",
        "--describe-module",
    };
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
        if (!strcmp(a, opts[i]))
            return 1;
    return 0;
}

void attach_scan_args(const char *buf, size_t len, int is_cmdline, struct attach_cmdline *c)
{
    const char *end = buf + len;
    int first = 1;
    for (const char *a = buf; a < end; a += strlen(a) + 1) {
        const char *next = a + strlen(a) + 1;
        if (is_cmdline && first) {
            /* another launcher (javac, jshell, an application's own): its arguments are not
             * java's, so the launcher is the best name there is */
            const char *base = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
            if (strcmp(base, "java") && strcmp(base, "javaw")) {
                snprintf(c->main, sizeof(c->main), "%s", base);
                return;
            }
            first = 0;
            continue;
        }
        if (!*a)
            continue;
        if (!is_cmdline) {
            scan_flag(a, c);
            continue;
        }
        const char *main = NULL;
        if (a[0] == '@') {
            continue; /* an argument file: not read, the main class may follow */
        } else if (a[0] != '-') {
            main = a;
        } else if (!strcmp(a, "-jar") || !strcmp(a, "-m") || !strcmp(a, "--module")) {
            main = next < end ? next : "";
        } else if (!strncmp(a, "--module=", 9)) {
            main = a + 9;
        } else if (!strcmp(a, "--source")) {
            a = next; /* source-file mode: the file follows the options */
            if (a >= end)
                break;
            continue;
        } else if (takes_value(a)) {
            a = next; /* skip the value */
            if (a >= end)
                break;
            continue;
        } else {
            scan_flag(a, c);
            continue;
        }
        snprintf(c->main, sizeof(c->main), "%s", main);
        return; /* the rest are the program's own arguments */
    }
}

/* Adds the JVM options of one environment variable (NAME=value, split at white space). */
static void scan_env(const char *env, size_t len, const char *name, struct attach_cmdline *c)
{
    size_t nl = strlen(name);
    for (const char *e = env; e < env + len; e += strlen(e) + 1) {
        if (strncmp(e, name, nl) || e[nl] != '=')
            continue;
        char *copy = strdup(e + nl + 1);
        if (!copy)
            return;
        size_t n = strlen(copy);
        for (size_t i = 0; i < n; i++)
            if (isspace((unsigned char)copy[i]))
                copy[i] = 0;
        attach_scan_args(copy, n + 1, 0, c);
        free(copy);
        return;
    }
}

/* Fills the flags from the environment and the command line, in the order the JVM reads them:
 * JAVA_TOOL_OPTIONS, then the launcher's options (JDK_JAVA_OPTIONS first), then _JAVA_OPTIONS. */
static void read_flags(struct attach_target *t)
{
    char *env = NULL, *cmd = NULL;
    size_t envlen = 0, cmdlen = 0;
    struct attach_cmdline c;
    memset(&c, 0, sizeof(c));
    if (attach_read_proc(t->pid, "environ", ARGS_FILE_MAX, &env, &envlen) != 0)
        env = NULL;
    if (attach_read_proc(t->pid, "cmdline", ARGS_FILE_MAX, &cmd, &cmdlen) != 0)
        cmd = NULL;
    if (env) {
        scan_env(env, envlen, "JAVA_TOOL_OPTIONS", &c);
        scan_env(env, envlen, "JDK_JAVA_OPTIONS", &c);
    }
    if (cmd)
        attach_scan_args(cmd, cmdlen, 1, &c);
    if (env)
        scan_env(env, envlen, "_JAVA_OPTIONS", &c);
    free(env);
    free(cmd);
    t->attach_disabled = c.attach_disabled;
    t->dynamic_loading = c.dynamic_loading;
}

/* Reads the fields of /proc/PID/status we need. */
static int read_status(struct attach_target *t, char *state, unsigned long long *sigcgt)
{
    char path[64], *text;
    size_t len;
    snprintf(path, sizeof(path), "/proc/%d/status", (int)t->pid);
    int rc = read_all(path, 1 << 16, &text, &len);
    if (rc)
        return rc == -ENOENT ? -ESRCH : rc;
    int have_uid = 0, have_gid = 0;
    *state = '?';
    *sigcgt = 0;
    for (char *line = text; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        unsigned r, e;
        if (!strncmp(line, "State:", 6)) {
            const char *s = line + 6;
            while (*s == ' ' || *s == '\t')
                s++;
            *state = *s;
        } else if (sscanf(line, "Uid: %u %u", &r, &e) == 2) {
            t->uid = (uid_t)e;
            have_uid = 1;
        } else if (sscanf(line, "Gid: %u %u", &r, &e) == 2) {
            t->gid = (gid_t)e;
            have_gid = 1;
        } else if (!strncmp(line, "NSpid:", 6)) {
            /* the last field is the pid in the process's own namespace */
            const char *last = strrchr(line, '\t');
            last = last ? last + 1 : line + 6;
            int ns = atoi(last);
            if (ns > 0)
                t->nspid = ns;
        } else if (!strncmp(line, "SigCgt:", 7)) {
            *sigcgt = strtoull(line + 7, NULL, 16);
        }
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    return have_uid && have_gid ? 0 : -EPROTO;
}

int attach_inspect(pid_t pid, struct attach_target *t, char *err, size_t errlen)
{
    char path[64], who[64], me[64];
    memset(t, 0, sizeof(*t));
    t->pid = pid;
    t->nspid = pid;
    if (pid <= 0) {
        msg(err, errlen, "no process with pid %d", (int)pid);
        return -ESRCH;
    }
    char state;
    unsigned long long sigcgt;
    int rc = read_status(t, &state, &sigcgt);
    if (rc == -ESRCH) {
        msg(err, errlen, "no process with pid %d", (int)pid);
        return rc;
    } else if (rc) {
        msg(err, errlen, "cannot read /proc/%d/status: %s", (int)pid, strerror(-rc));
        return rc;
    }
    snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, t->comm, sizeof(t->comm) - 1);
        t->comm[n > 0 ? n : 0] = 0;
        t->comm[strcspn(t->comm, "\n")] = 0;
        close(fd);
    }
    if (state == 'Z' || state == 'X') {
        msg(err, errlen, "process %d (%s) has exited", (int)pid, t->comm);
        return -ESRCH;
    }
    t->catches_sigquit = (sigcgt >> (SIGQUIT - 1)) & 1;
    t->stopped = state == 'T' || state == 't';

    uid_t euid = geteuid();
    if (euid != 0 && euid != t->uid) {
        msg(err, errlen,
            "process %d (%s) belongs to user %s (uid %u) and flyprof runs as %s (uid %u): the "
            "JVM accepts only its own user or root; run flyprof as %s%s",
            (int)pid, t->comm, user_name(t->uid, who, sizeof(who)), (unsigned)t->uid,
            user_name(euid, me, sizeof(me)), (unsigned)euid, who, t->uid ? " or as root" : "");
        return -EPERM;
    }
    if (euid != 0 && getegid() != t->gid) {
        msg(err, errlen,
            "process %d (%s) runs with gid %u and flyprof with gid %u: the JVM accepts only a "
            "client with its own uid and gid, or root",
            (int)pid, t->comm, (unsigned)t->gid, (unsigned)getegid());
        return -EPERM;
    }
    t->switch_creds = euid == 0 && (t->uid != 0 || t->gid != 0);

    int openj9;
    rc = attach_read_maps(pid, t->libjvm, sizeof(t->libjvm), t->agent, sizeof(t->agent), &openj9);
    if (rc == -ESRCH) {
        msg(err, errlen, "process %d (%s) has exited", (int)pid, t->comm);
        return rc;
    } else if (rc) {
        msg(err, errlen, "cannot read /proc/%d/maps of process %d (%s): %s", (int)pid, (int)pid,
            t->comm, strerror(-rc));
        return rc == -EACCES ? -EPERM : rc;
    }
    if (openj9) {
        msg(err, errlen,
            "process %d (%s) is an OpenJ9 JVM: flyprof attaches to HotSpot JVMs only (nothing "
            "was sent to it)",
            (int)pid, t->comm);
        return -ENOEXEC;
    }
    if (!t->libjvm[0]) {
        msg(err, errlen,
            "process %d (%s) is not a Java VM: no libjvm.so is mapped in it (nothing was sent "
            "to it)",
            (int)pid, t->comm);
        return -ENOEXEC;
    }
    snprintf(t->root, sizeof(t->root), "/proc/%d/root", (int)pid);
    t->java_major = attach_java_major(t->root, t->libjvm, t->java_home, sizeof(t->java_home));
    read_flags(t);

    char mine[64] = "", theirs[64] = "";
    snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
    if (readlink("/proc/self/ns/mnt", mine, sizeof(mine) - 1) > 0 &&
        readlink(path, theirs, sizeof(theirs) - 1) > 0)
        t->other_mntns = strcmp(mine, theirs) != 0;
    return 0;
}

int attach_warns_dynamic(const struct attach_target *t)
{
    return t->java_major >= 21 && t->dynamic_loading == 0 && !t->agent[0];
}

/* --- the socket ------------------------------------------------------------------------- */

/* Connects to the attach socket at path if it is there, owned by the JVM's user and
 * listening. Returns an fd, -ENOENT when there is no (live) socket, or another -errno. */
static int try_connect(const struct attach_target *t, const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -ENOENT;
    if (!S_ISSOCK(st.st_mode))
        return -ENOENT;
    if (st.st_uid != t->uid) {
        /* someone else's socket under the JVM's name: never send it anything */
        msg(err, errlen, "%s is owned by uid %u, not by the JVM's user (uid %u): not using it",
            path, (unsigned)st.st_uid, (unsigned)t->uid);
        return -EPERM;
    }
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof(sa.sun_path))
        return -ENAMETOOLONG;
    strcpy(sa.sun_path, path);
    /* non-blocking: a full backlog must not block us past the deadline */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        int e = errno;
        close(fd);
        /* ECONNREFUSED: a stale socket of a JVM that died (the pid was reused); EAGAIN: the
         * listener's backlog is full (other clients), try again */
        return e == ECONNREFUSED || e == ENOENT ? -ENOENT : -e;
    }
    return fd;
}

/* try_connect, again while the listener is busy (-EAGAIN), until the deadline. */
static int connect_busy(const struct attach_target *t, const char *path, int64_t deadline_ns,
                        char *err, size_t errlen)
{
    for (;;) {
        int rc = try_connect(t, path, err, errlen);
        if (rc != -EAGAIN)
            return rc;
        if (ms_left(deadline_ns) == 0) {
            msg(err, errlen, "the attach socket %s stays busy (other clients?)", path);
            return -ETIMEDOUT;
        }
        sleep_ms(5);
    }
}

/* Creates the trigger file the JVM's signal dispatcher looks for: in its working directory,
 * else in its /tmp. Returns 0 with the path in out, or -errno. */
static int make_trigger(const struct attach_target *t, char *out, size_t cap)
{
    int rc = -ENAMETOOLONG;
    for (int k = 0; k < 2; k++) {
        if (k == 0 && pathf(out, cap, "/proc/%d/cwd/.attach_pid%d", (int)t->pid, (int)t->nspid))
            continue;
        if (k == 1 && pathf(out, cap, "%s/tmp/.attach_pid%d", t->root, (int)t->nspid))
            continue;
        int fd = open(out, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            close(fd);
            return 0;
        }
        rc = -errno;
    }
    out[0] = 0;
    return rc;
}

int attach_connect(const struct attach_target *t, int64_t deadline_ns, char *err, size_t errlen)
{
    char sock[128], trigger[128] = "";
    struct creds c;
    int rc = become(t, &c, err, errlen);
    if (rc)
        return rc;
    if ((rc = pathf(sock, sizeof(sock), "%s/tmp/.java_pid%d", t->root, (int)t->nspid)))
        goto out;
    rc = connect_busy(t, sock, deadline_ns, err, errlen);
    if (rc != -ENOENT)
        goto out;
    /* the attach mechanism is not running: start it, but only when the signal cannot hurt */
    if (kill(t->pid, 0) != 0 && errno == ESRCH) {
        msg(err, errlen, "process %d has exited", (int)t->pid);
        rc = -ESRCH;
        goto out;
    }
    if (t->attach_disabled) {
        msg(err, errlen,
            "attach is disabled in process %d (it runs with -XX:+DisableAttachMechanism): "
            "nothing was sent to it",
            (int)t->pid);
        rc = -EPERM;
        goto out;
    }
    if (!t->catches_sigquit) {
        msg(err, errlen,
            "process %d does not handle SIGQUIT (it runs with -Xrs, or is still starting): "
            "signalling it could kill it, so nothing was sent",
            (int)t->pid);
        rc = -EAGAIN;
        goto out;
    }
    if (t->stopped) {
        msg(err, errlen,
            "process %d is stopped (SIGSTOP, Ctrl-Z or a debugger) and cannot answer: continue "
            "it first (kill -CONT %d); nothing was sent to it",
            (int)t->pid, (int)t->pid);
        rc = -EAGAIN;
        goto out;
    }
    if ((rc = make_trigger(t, trigger, sizeof(trigger))) != 0) {
        msg(err, errlen,
            "cannot create the attach trigger file .attach_pid%d in the working directory or "
            "/tmp of process %d: %s",
            (int)t->nspid, (int)t->pid, strerror(-rc));
        goto out;
    }
    if (kill(t->pid, SIGQUIT) != 0) {
        rc = -errno;
        msg(err, errlen, "cannot signal process %d: %s", (int)t->pid, strerror(-rc));
        goto out;
    }
    int64_t sock_deadline = attach_now_ns() + (int64_t)ATTACH_SOCKET_TIMEOUT_MS * 1000000;
    if (sock_deadline > deadline_ns)
        sock_deadline = deadline_ns;
    int step = 2;
    for (;;) {
        rc = connect_busy(t, sock, deadline_ns, err, errlen);
        if (rc != -ENOENT)
            break;
        if (kill(t->pid, 0) != 0 && errno == ESRCH) {
            msg(err, errlen, "process %d exited while attaching", (int)t->pid);
            rc = -ESRCH;
            break;
        }
        int left = ms_left(sock_deadline);
        if (left == 0) {
            msg(err, errlen,
                "process %d did not open its attach socket %s within %.1f s: the JVM is not "
                "responding (stopped, or stuck), or attach is disabled in it "
                "(-XX:+DisableAttachMechanism)",
                (int)t->pid, sock + strlen(t->root), (double)ATTACH_SOCKET_TIMEOUT_MS / 1000);
            rc = -ETIMEDOUT;
            break;
        }
        sleep_ms(step < left ? step : left);
        if (step < 100)
            step *= 2;
    }
out:
    if (trigger[0])
        unlink(trigger);
    restore(&c);
    return rc;
}

/* Sends all of buf before the deadline. */
static int send_all(int fd, const char *buf, size_t len, int64_t deadline_ns)
{
    while (len) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return -errno;
        struct pollfd p = {fd, POLLOUT, 0};
        int left = ms_left(deadline_ns);
        if (left == 0)
            return -ETIMEDOUT;
        if (poll(&p, 1, left) < 0 && errno != EINTR)
            return -errno;
    }
    return 0;
}

int attach_exchange(int fd, const char *cmd, const char *const args[3], int64_t deadline_ns,
                    char *out, size_t outlen, char *err, size_t errlen)
{
    char req[sizeof(PROTOCOL_VERSION) + CMD_NAME_MAX + 1 + 3 * ATTACH_ARG_MAX];
    size_t len = 0;
    if (strlen(cmd) > CMD_NAME_MAX) {
        msg(err, errlen, "attach command '%s' is too long", cmd);
        return -E2BIG;
    }
    const char *parts[5] = {PROTOCOL_VERSION, cmd, args ? args[0] : NULL, args ? args[1] : NULL,
                            args ? args[2] : NULL};
    for (int i = 0; i < 5; i++) {
        const char *s = parts[i] ? parts[i] : "";
        size_t n = strlen(s);
        if (i >= 2 && n >= ATTACH_ARG_MAX) {
            msg(err, errlen,
                "an argument of the attach command is %zu bytes long; the JVM takes at most %d", n,
                ATTACH_ARG_MAX - 1);
            return -E2BIG;
        }
        memcpy(req + len, s, n + 1);
        len += n + 1;
    }
    int rc = send_all(fd, req, len, deadline_ns);
    if (rc) {
        msg(err, errlen, "sending the '%s' command to the JVM: %s", cmd,
            rc == -ETIMEDOUT ? "timed out" : strerror(-rc));
        return rc;
    }
    size_t got = 0;
    if (outlen)
        out[0] = 0;
    for (;;) {
        char scratch[512];
        char *dst = got + 1 < outlen ? out + got : scratch;
        size_t room = got + 1 < outlen ? outlen - 1 - got : sizeof(scratch);
        ssize_t n = recv(fd, dst, room, MSG_DONTWAIT);
        if (n > 0) {
            if (dst != scratch)
                got += (size_t)n; /* else: past what the caller wants, drained and dropped */
            continue;
        }
        if (n == 0)
            break;
        if (errno != EAGAIN && errno != EINTR) {
            rc = -errno;
            msg(err, errlen, "reading the JVM's answer to '%s': %s", cmd, strerror(-rc));
            break;
        }
        int left = ms_left(deadline_ns);
        if (left == 0) {
            rc = -ETIMEDOUT;
            msg(err, errlen, "no complete answer from the JVM to '%s' in time (got %zu bytes)", cmd,
                got);
            break;
        }
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, left) < 0 && errno != EINTR) {
            rc = -errno;
            msg(err, errlen, "waiting for the JVM's answer: %s", strerror(-rc));
            break;
        }
    }
    if (outlen)
        out[got] = 0;
    return rc;
}

int attach_parse_load(const char *answer, int *status, int *agent_rc, const char **text)
{
    char *end;
    *agent_rc = INT_MIN;
    *text = "";
    errno = 0;
    long st = strtol(answer, &end, 10);
    if (end == answer || errno || (*end && *end != '\n') || st < INT_MIN || st > INT_MAX)
        return -EPROTO;
    *status = (int)st;
    const char *t = *end ? end + 1 : end;
    *text = t;
    for (const char *line = t; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
        static const char rcs[] = "return code: ";
        const char *num = NULL;
        if (!strncmp(line, rcs, sizeof(rcs) - 1))
            num = line + sizeof(rcs) - 1;
        else if (line == t)
            num = line; /* JDK 8: the agent's return code alone on the second line */
        if (!num)
            continue;
        long v = strtol(num, &end, 10);
        if (end != num && (*end == '\n' || !*end) && v >= INT_MIN && v <= INT_MAX) {
            *agent_rc = (int)v;
            break;
        }
    }
    return 0;
}

/* The JVM's output as one line: newlines become "; ", the trailing one dropped. */
static void one_line(const char *text, char *out, size_t cap)
{
    size_t j = 0;
    for (const char *s = text; *s && j + 3 < cap; s++) {
        if (*s == '\n') {
            if (s[1]) {
                out[j++] = ';';
                out[j++] = ' ';
            }
        } else if ((unsigned char)*s >= ' ') {
            out[j++] = *s;
        }
    }
    out[j] = 0;
}

int attach_load(const struct attach_target *t, const char *lib, const char *options,
                int64_t deadline_ns, int *agent_rc, char *err, size_t errlen)
{
    char answer[4096], line[1024];
    const char *args[3] = {lib, "true", options};
    *agent_rc = INT_MIN;
    if (strlen(lib) >= ATTACH_ARG_MAX || strlen(options) >= ATTACH_ARG_MAX) {
        msg(err, errlen,
            "the agent %s is too long for the attach protocol (%zu bytes, at most %d): use a "
            "shorter output path",
            strlen(lib) >= ATTACH_ARG_MAX ? "path" : "options",
            strlen(strlen(lib) >= ATTACH_ARG_MAX ? lib : options), ATTACH_ARG_MAX - 1);
        return -E2BIG;
    }
    int fd = attach_connect(t, deadline_ns, err, errlen);
    if (fd < 0)
        return fd;
    int rc = attach_exchange(fd, "load", args, deadline_ns, answer, sizeof(answer), err, errlen);
    close(fd);
    if (rc)
        return rc;
    int status;
    const char *text;
    if (attach_parse_load(answer, &status, agent_rc, &text) != 0) {
        one_line(answer, line, sizeof(line));
        msg(err, errlen, "process %d gave an answer to 'load' that is not understood: '%s'",
            (int)t->pid, line);
        return -EPROTO;
    }
    one_line(text, line, sizeof(line));
    if (strstr(text, "Dynamic agent loading is not enabled")) {
        msg(err, errlen,
            "process %d refuses agents loaded at run time: it runs with "
            "-XX:-EnableDynamicAgentLoading. Start it with -XX:+EnableDynamicAgentLoading, or "
            "with the agent from the start (-agentpath, flyprof record)",
            (int)t->pid);
        return -EPERM;
    }
    if (*agent_rc == INT_MIN) {
        if (strstr(text, "was not loaded")) {
            msg(err, errlen, "process %d could not load the agent: %s", (int)t->pid, line);
            return -ENOENT;
        }
        msg(err, errlen, "process %d refused to load the agent (status %d): %s", (int)t->pid,
            status, line[0] ? line : "no message");
        return -EPROTO;
    }
    return 0;
}

/* --- the agent library ------------------------------------------------------------------ */

int attach_find_agent(char *out, size_t cap, char *err, size_t errlen)
{
    static const char rel[] = "/../lib/" AGENT_NAME;
    char exe[PATH_MAX], path[PATH_MAX + sizeof(rel)], real[PATH_MAX];
    if (!realpath("/proc/self/exe", exe)) {
        int e = errno;
        msg(err, errlen, "cannot locate the flyprof binary (/proc/self/exe): %s", strerror(e));
        return -e;
    }
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = 0;
    snprintf(path, sizeof(path), "%s%s", exe, rel);
    if (!realpath(path, real)) {
        int e = errno;
        msg(err, errlen,
            "agent library not found at '%s': %s (it is looked for next to the flyprof binary, "
            "in ../lib)",
            path, strerror(e));
        return -e;
    }
    if (strlen(real) >= cap) {
        msg(err, errlen, "agent path too long: '%s'", real);
        return -ENAMETOOLONG;
    }
    strcpy(out, real);
    return 0;
}

/* 16 random hex digits, for names nobody can guess ahead of time. */
static void random_hex(char out[17])
{
    unsigned char b[8];
    if (getrandom(b, sizeof(b), GRND_NONBLOCK) != (ssize_t)sizeof(b)) {
        uint64_t x = (uint64_t)attach_now_ns() ^ ((uint64_t)getpid() << 32);
        memcpy(b, &x, sizeof(b));
    }
    for (int i = 0; i < 8; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* Copies the open file in to a new file at path (mode 0755). */
static int copy_to(int in, const char *path)
{
    int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755);
    if (out < 0)
        return -errno;
    char buf[65536];
    int rc = 0;
    for (;;) {
        ssize_t n = read(in, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -errno : 0;
            break;
        }
        for (ssize_t off = 0; off < n && !rc;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno != EINTR)
                rc = -errno;
            else if (w > 0)
                off += w;
        }
        if (rc)
            break;
    }
    if (close(out) != 0 && !rc)
        rc = -errno;
    if (rc)
        unlink(path);
    return rc;
}

int attach_stage_agent(const struct attach_target *t, const char *lib, char *out, size_t cap,
                       char *err, size_t errlen)
{
    char there[PATH_MAX + 64], dir[128], tmp[192], final[192];
    struct stat mine, theirs;
    struct creds c;
    if (t->agent[0]) {
        if (strlen(t->agent) >= cap)
            return -ENAMETOOLONG;
        strcpy(out, t->agent);
        return 0;
    }
    /* opened as ourselves: the target's user may not be able to read our copy */
    int in = open(lib, O_RDONLY | O_CLOEXEC);
    if (in < 0 || fstat(in, &mine) != 0) {
        int e = errno;
        if (in >= 0)
            close(in);
        msg(err, errlen, "cannot read the agent library %s: %s", lib, strerror(e));
        return -e;
    }
    int rc = become(t, &c, err, errlen);
    if (rc) {
        close(in);
        return rc;
    }
    if (pathf(there, sizeof(there), "%s%s", t->root, lib) == 0) {
        int fd = open(there, O_RDONLY | O_CLOEXEC);
        int same = fd >= 0 && fstat(fd, &theirs) == 0 && theirs.st_dev == mine.st_dev &&
                   theirs.st_ino == mine.st_ino;
        if (fd >= 0)
            close(fd);
        if (same) {
            if (strlen(lib) >= cap)
                rc = -ENAMETOOLONG;
            else
                strcpy(out, lib);
            goto out;
        }
    }
    /* the target cannot read it (permissions) or does not see it (another mount namespace):
     * copy it into a private directory of the target's user in its /tmp */
    char hex[17];
    random_hex(hex);
    pathf(dir, sizeof(dir), "%s/tmp/flyprof-%u", t->root, (unsigned)t->uid);
    pathf(tmp, sizeof(tmp), "%s/." AGENT_NAME ".%s", dir, hex);
    pathf(final, sizeof(final), "%s/" AGENT_NAME, dir);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        rc = -errno;
        msg(err, errlen, "cannot create %s for a copy of the agent: %s", dir, strerror(-rc));
        goto out;
    }
    struct stat d;
    if (lstat(dir, &d) != 0 || !S_ISDIR(d.st_mode) || d.st_uid != t->uid || (d.st_mode & 022)) {
        msg(err, errlen, "%s is not a private directory of uid %u: not copying the agent into it",
            dir, (unsigned)t->uid);
        rc = -EPERM;
        goto out;
    }
    if ((rc = copy_to(in, tmp)) != 0 || (rename(tmp, final) != 0 && (rc = -errno))) {
        unlink(tmp);
        msg(err, errlen, "cannot copy the agent to %s for process %d: %s", final, (int)t->pid,
            strerror(-rc));
        goto out;
    }
    if (pathf(out, cap, "/tmp/flyprof-%u/" AGENT_NAME, (unsigned)t->uid))
        rc = -ENAMETOOLONG;
out:
    restore(&c);
    close(in);
    return rc;
}

int attach_check_writable(const struct attach_target *t, const char *path, char *err, size_t errlen)
{
    char dir[PATH_MAX], there[PATH_MAX + 64], who[64];
    struct creds c;
    if (strlen(path) >= sizeof(dir) || path[0] != '/')
        return -EINVAL;
    strcpy(dir, path);
    *strrchr(dir, '/') = 0;
    if (pathf(there, sizeof(there), "%s%s", t->root, dir[0] ? dir : "/"))
        return -ENAMETOOLONG;
    int rc = become(t, &c, err, errlen);
    if (rc)
        return rc;
    /* AT_EACCESS: checked with the effective ids, which are now the target's */
    if (faccessat(AT_FDCWD, there, W_OK | X_OK, AT_EACCESS) != 0)
        rc = -errno;
    restore(&c);
    if (rc == -ENOENT)
        msg(err, errlen, "directory %s does not exist (as process %d sees it)", dir[0] ? dir : "/",
            (int)t->pid);
    else if (rc)
        msg(err, errlen, "process %d runs as %s (uid %u), who cannot create files in %s (%s)",
            (int)t->pid, user_name(t->uid, who, sizeof(who)), (unsigned)t->uid, dir[0] ? dir : "/",
            strerror(-rc));
    return rc;
}

/* --- agent actions ---------------------------------------------------------------------- */

/* Reads the reply file: "<code>\n<text>\n", text one line or two (a warning after it). */
static void parse_reply(const char *buf, struct attach_reply *r)
{
    char *end;
    long code = strtol(buf, &end, 10);
    if (end == buf || (*end != '\n' && *end))
        return;
    r->have = 1;
    r->code = code < 0 || code > 4095 ? EIO : (int)code;
    const char *t = *end ? end + 1 : end;
    size_t n = strcspn(t, "\n");
    size_t k = n >= sizeof(r->text) ? sizeof(r->text) - 1 : n;
    memcpy(r->text, t, k);
    r->text[k] = 0;
    t += n;
    if (*t == '\n' && t[1]) {
        t++;
        n = strcspn(t, "\n");
        k = n >= sizeof(r->more) ? sizeof(r->more) - 1 : n;
        memcpy(r->more, t, k);
        r->more[k] = 0;
    }
}

int attach_action(const struct attach_target *t, const char *lib, const char *options,
                  int64_t deadline_ns, struct attach_reply *r, char *err, size_t errlen)
{
    char inner[96], outer[160], opts[ATTACH_ARG_MAX + 128], hex[17];
    struct creds c;
    memset(r, 0, sizeof(*r));
    r->agent_rc = INT_MIN;
    random_hex(hex);
    pathf(inner, sizeof(inner), "/tmp/flyprof-reply-%d-%s", (int)getpid(), hex);
    pathf(outer, sizeof(outer), "%s%s", t->root, inner);
    if (pathf(opts, sizeof(opts), "%s%sreply=%s", options, options[0] ? "," : "", inner)) {
        msg(err, errlen, "agent options too long");
        return -E2BIG;
    }
    int rc = become(t, &c, err, errlen);
    if (rc)
        return rc;
    int fd = open(outer, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        rc = -errno;
    else
        close(fd);
    restore(&c);
    if (rc) {
        msg(err, errlen, "cannot create the reply file %s: %s", outer, strerror(-rc));
        return rc;
    }

    rc = attach_load(t, lib, opts, deadline_ns, &r->agent_rc, err, errlen);

    char buf[ATTACH_REPLY_MAX + 32];
    ssize_t n = -1;
    if (become(t, &c, NULL, 0) == 0) {
        fd = open(outer, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            n = read(fd, buf, sizeof(buf) - 1);
            close(fd);
        }
        unlink(outer);
        restore(&c);
    }
    if (rc)
        return rc;
    if (n > 0) {
        buf[n] = 0;
        parse_reply(buf, r);
    }
    if (r->have) {
        if (r->code == 0)
            return 0;
        msg(err, errlen, "%s", r->text[0] ? r->text : strerror(r->code));
        return -r->code;
    }
    if (r->agent_rc == 0)
        return 0;
    msg(err, errlen,
        "the agent in process %d failed (Agent_OnAttach returned %d) and wrote no reply: see "
        "the JVM's standard error for its message",
        (int)t->pid, r->agent_rc);
    return -EIO;
}

int attach_parse_status(const char *line, struct attach_status *st)
{
    int have_running = 0;
    memset(st, 0, sizeof(*st));
    st->live_threads = -1;
    const char *p = line;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p || *p == '\n')
            break;
        const char *eq = strchr(p, '=');
        size_t tok = strcspn(p, " \n");
        if (!eq || (size_t)(eq - p) > tok) {
            p += tok;
            continue;
        }
        size_t klen = (size_t)(eq - p);
        const char *v = eq + 1;
        if (klen == 4 && !strncmp(p, "file", 4)) {
            /* the last field: the rest of the line, spaces included */
            size_t n = strcspn(v, "\n");
            if (n >= sizeof(st->file))
                n = sizeof(st->file) - 1;
            memcpy(st->file, v, n);
            st->file[n] = 0;
            break;
        }
        size_t vlen = tok - klen - 1;
        unsigned long long num = strtoull(v, NULL, 10);
        if (klen == 7 && !strncmp(p, "running", 7)) {
            st->running = num != 0;
            have_running = 1;
        } else if (klen == 3 && !strncmp(p, "cpu", 3)) {
            st->cpu_ns = num;
        } else if (klen == 4 && !strncmp(p, "wall", 4)) {
            st->wall_ns = num;
        } else if (klen == 5 && !strncmp(p, "alloc", 5)) {
            st->alloc = strncmp(v, "off", 3) != 0;
            st->alloc_bytes = num;
        } else if (klen == 4 && !strncmp(p, "lock", 4)) {
            st->lock = strncmp(v, "off", 3) != 0;
            st->lock_ns = num;
        } else if (klen == 7 && !strncmp(p, "samples", 7)) {
            st->samples = num;
        } else if (klen == 5 && !strncmp(p, "drops", 5)) {
            st->drops = num;
        } else if (klen == 11 && !strncmp(p, "wallthreads", 11)) {
            st->wall_threads = (unsigned)num;
        } else if (klen == 6 && !strncmp(p, "filter", 6)) {
            st->filter = num != 0;
        } else if (klen == 7 && !strncmp(p, "threads", 7)) {
            st->live_threads = (int)num;
        } else if (klen == 11 && !strncmp(p, "lost_chunks", 11)) {
            st->lost_chunks = num;
        } else if (klen == 12 && !strncmp(p, "lost_samples", 12)) {
            st->lost_samples = num;
        } else if (klen == 11 && !strncmp(p, "write_errno", 11)) {
            st->write_errno = (int)num;
        } else if (klen == 6 && !strncmp(p, "engine", 6)) {
            size_t n = vlen < sizeof(st->engine) ? vlen : sizeof(st->engine) - 1;
            memcpy(st->engine, v, n);
            st->engine[n] = 0;
        }
        p += tok;
    }
    return have_running ? 0 : -EPROTO;
}
