/* test_attach.c: the attach client without a JVM. The parsers (load answers of JDK 8 to 25,
 * status replies, launcher command lines) on inputs taken from real JVMs; the exchange over a
 * socketpair (request bytes, truncation, timeout, argument limits); the whole agent action
 * against a fake JVM: a listening socket at <root>/tmp/.java_pid<N> served by a thread that
 * plays HotSpot and the agent (answers, reply files); and the guards that keep SIGQUIT away
 * from processes it could kill. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach.h"
#include "harness.h"

#define MS 1000000ll

static char tmpdir[32];

/* --- parsers -------------------------------------------------------------------------- */

static void test_parse_load(void)
{
    int st, rc;
    const char *text;
    /* JDK 17 and 25: the agent's return code on a "return code:" line */
    CHECK(attach_parse_load("0\nreturn code: 0\n", &st, &rc, &text) == 0);
    CHECK(st == 0 && rc == 0);
    CHECK(attach_parse_load("0\nreturn code: -1\n", &st, &rc, &text) == 0);
    CHECK(st == 0 && rc == -1);
    /* JDK 8: the return code alone */
    CHECK(attach_parse_load("0\n0\n", &st, &rc, &text) == 0);
    CHECK(st == 0 && rc == 0);
    /* not loaded: JDK 17 says -1, JDK 25 says 0; neither has a return code */
    CHECK(attach_parse_load("-1\n/x/lib.so was not loaded.\n/x/lib.so: cannot open shared "
                            "object file: No such file or directory\n",
                            &st, &rc, &text) == 0);
    CHECK(st == -1 && rc == INT_MIN && strncmp(text, "/x/lib.so was not", 17) == 0);
    CHECK(attach_parse_load("0\n/x/lib.so was not loaded.\n", &st, &rc, &text) == 0);
    CHECK(st == 0 && rc == INT_MIN);
    /* -XX:-EnableDynamicAgentLoading: 17 without a final newline, 25 with */
    CHECK(attach_parse_load("-1\nDynamic agent loading is not enabled. Use "
                            "-XX:+EnableDynamicAgentLoading to launch target VM.",
                            &st, &rc, &text) == 0);
    CHECK(st == -1 && rc == INT_MIN && strstr(text, "Dynamic agent loading") == text);
    CHECK(attach_parse_load("0", &st, &rc, &text) == 0);
    CHECK(st == 0 && rc == INT_MIN && *text == 0);
    CHECK(attach_parse_load("", &st, &rc, &text) == -EPROTO);
    CHECK(attach_parse_load("ok\n", &st, &rc, &text) == -EPROTO);
    CHECK(attach_parse_load("0 \nreturn code: 0\n", &st, &rc, &text) == -EPROTO);
    /* a number in a message is not a return code */
    CHECK(attach_parse_load("0\nerror 12 happened\nreturn code: 3\n", &st, &rc, &text) == 0);
    CHECK(rc == 3);
}

static void test_parse_status(void)
{
    struct attach_status s;
    CHECK(attach_parse_status("running=1 cpu=10000000 engine=cputimer wall=50000000 "
                              "wallthreads=16 filter=1 samples=1234 drops=5 threads=12 "
                              "file=/tmp/a b/c.fpl\n",
                              &s) == 0);
    CHECK(s.running == 1);
    CHECK_EQ_U(s.cpu_ns, 10000000);
    CHECK_EQ_U(s.wall_ns, 50000000);
    CHECK_EQ_U(s.wall_threads, 16);
    CHECK(s.filter == 1);
    CHECK_EQ_U(s.samples, 1234);
    CHECK_EQ_U(s.drops, 5);
    CHECK(s.live_threads == 12);
    CHECK(strcmp(s.engine, "cputimer") == 0);
    CHECK(strcmp(s.file, "/tmp/a b/c.fpl") == 0);
    /* unknown keys skipped, no threads= */
    CHECK(attach_parse_status("running=0 newkey=x cpu=0 engine=none samples=7 drops=0 file=-",
                              &s) == 0);
    CHECK(s.running == 0 && s.samples == 7 && s.live_threads == -1);
    CHECK(strcmp(s.file, "-") == 0);
    CHECK(s.lost_chunks == 0 && s.lost_samples == 0 && s.write_errno == 0);
    /* chunks of the log lost to write errors */
    CHECK(attach_parse_status("running=1 samples=9 drops=0 threads=3 lost_chunks=4 "
                              "lost_samples=321 write_errno=28 file=/t/x.fpl",
                              &s) == 0);
    CHECK_EQ_U(s.lost_chunks, 4);
    CHECK_EQ_U(s.lost_samples, 321);
    CHECK(s.write_errno == 28 && s.live_threads == 3 && strcmp(s.file, "/t/x.fpl") == 0);
    /* a message is not a status */
    CHECK(attach_parse_status("profiling is already running", &s) == -EPROTO);
    CHECK(attach_parse_status("", &s) == -EPROTO);
}

/* Scans a literal with embedded NULs (sizeof - 1: the literal's own NUL is not an argument). */
#define SCAN(lit, cmdline, c) attach_scan_args(lit, sizeof(lit) - 1, cmdline, c)

static void test_scan_args(void)
{
    struct attach_cmdline c;
    memset(&c, 0, sizeof(c));
    SCAN("java\0-Xmx1g\0-cp\0a.jar:b.jar\0app.Main\0-XX:+DisableAttachMechanism\0", 1, &c);
    CHECK(strcmp(c.main, "app.Main") == 0);
    CHECK(c.attach_disabled == 0); /* after the main class: the program's argument */

    memset(&c, 0, sizeof(c));
    SCAN("/usr/lib/jvm/x/bin/java\0-XX:+DisableAttachMechanism\0-jar\0/opt/app.jar\0-v\0", 1, &c);
    CHECK(strcmp(c.main, "/opt/app.jar") == 0);
    CHECK(c.attach_disabled == 1);

    memset(&c, 0, sizeof(c));
    SCAN("java\0-XX:-EnableDynamicAgentLoading\0-XX:+EnableDynamicAgentLoading\0-p\0mods\0-m\0"
         "mod/app.Main\0",
         1, &c);
    CHECK(c.dynamic_loading == 1);
    CHECK(strcmp(c.main, "mod/app.Main") == 0);

    memset(&c, 0, sizeof(c));
    SCAN("java\0-XX:-EnableDynamicAgentLoading\0--module=mod/x\0", 1, &c);
    CHECK(c.dynamic_loading == -1 && strcmp(c.main, "mod/x") == 0);

    memset(&c, 0, sizeof(c));
    SCAN("java\0--source\0"
         "11\0Prog.java\0",
         1, &c);
    CHECK(strcmp(c.main, "Prog.java") == 0);

    memset(&c, 0, sizeof(c));
    SCAN("java\0@argfile\0--add-opens\0java.base/java.lang=ALL-UNNAMED\0Main\0", 1, &c);
    CHECK(strcmp(c.main, "Main") == 0);

    memset(&c, 0, sizeof(c));
    SCAN("/usr/bin/javac\0--release\0"
         "11\0X.java\0",
         1, &c);
    CHECK(strcmp(c.main, "javac") == 0);

    memset(&c, 0, sizeof(c));
    SCAN("java\0-cp\0", 1, &c); /* cut short */
    CHECK(c.main[0] == 0);
    attach_scan_args("", 0, 1, &c);
    CHECK(c.main[0] == 0);

    /* environment options: all JVM options; later ones override earlier ones */
    memset(&c, 0, sizeof(c));
    SCAN("-XX:+DisableAttachMechanism\0-Xmx1g\0", 0, &c);
    CHECK(c.attach_disabled == 1 && c.main[0] == 0);
    SCAN("java\0-XX:-DisableAttachMechanism\0Main\0", 1, &c);
    CHECK(c.attach_disabled == 0);
}

static void test_java_major(void)
{
    char path[512], home[256];
    snprintf(path, sizeof(path),
             "mkdir -p %s/jdk21/lib/server %s/jdk8/jre/lib/amd64/server "
             "%s/none/lib/server",
             tmpdir, tmpdir, tmpdir);
    CHECK(system(path) == 0);
    snprintf(path, sizeof(path), "%s/jdk21/release", tmpdir);
    FILE *f = fopen(path, "w");
    fputs("IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"21.0.2\"\nJAVA_VERSION_DATE=\"2024\"\n", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/jdk8/release", tmpdir);
    f = fopen(path, "w");
    fputs("JAVA_VERSION=\"1.8.0_392\"\n", f);
    fclose(f);
    /* root "" and the libraries' paths: the files need not exist, the release files do */
    snprintf(path, sizeof(path), "%s/jdk21/lib/server/libjvm.so", tmpdir);
    CHECK(attach_java_major("", path, home, sizeof(home)) == 21);
    CHECK(strstr(home, "/jdk21") && !strstr(home, "/lib"));
    snprintf(path, sizeof(path), "%s/jdk8/jre/lib/amd64/server/libjvm.so", tmpdir);
    CHECK(attach_java_major("", path, home, sizeof(home)) == 8);
    snprintf(path, sizeof(path), "%s/none/lib/server/libjvm.so", tmpdir);
    CHECK(attach_java_major("", path, home, sizeof(home)) == 0);
    CHECK(home[0] == 0);
}

static void test_warns(void)
{
    struct attach_target t;
    memset(&t, 0, sizeof(t));
    t.java_major = 17;
    CHECK(!attach_warns_dynamic(&t));
    t.java_major = 21;
    CHECK(attach_warns_dynamic(&t));
    t.dynamic_loading = 1; /* -XX:+EnableDynamicAgentLoading: silent */
    CHECK(!attach_warns_dynamic(&t));
    t.dynamic_loading = -1; /* refuses: an error, not a warning */
    CHECK(!attach_warns_dynamic(&t));
    t.dynamic_loading = 0;
    strcpy(t.agent, "/x/libflyprof.so"); /* loaded before: the JVM warned already, or not */
    CHECK(!attach_warns_dynamic(&t));
}

/* --- inspect ------------------------------------------------------------------------- */

static void test_inspect(void)
{
    struct attach_target t;
    char err[512];
    CHECK(attach_inspect(0, &t, err, sizeof(err)) == -ESRCH);
    /* a process that exited and was reaped */
    pid_t p = fork();
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    CHECK(attach_inspect(p, &t, err, sizeof(err)) == -ESRCH);
    CHECK(strstr(err, "no process") != NULL);
    /* a zombie */
    p = fork();
    if (p == 0)
        _exit(0);
    for (int i = 0; i < 2000; i++) {
        char st[64], buf[256] = "";
        snprintf(st, sizeof(st), "/proc/%d/stat", (int)p);
        FILE *f = fopen(st, "r");
        if (f) {
            if (!fgets(buf, sizeof(buf), f))
                buf[0] = 0;
            fclose(f);
        }
        if (strstr(buf, ") Z"))
            break;
        usleep(1000);
    }
    CHECK(attach_inspect(p, &t, err, sizeof(err)) == -ESRCH);
    CHECK(strstr(err, "exited") != NULL);
    waitpid(p, NULL, 0);
    /* this test is not a JVM */
    CHECK(attach_inspect(getpid(), &t, err, sizeof(err)) == -ENOEXEC);
    CHECK(strstr(err, "not a Java VM") && strstr(err, "nothing was sent"));
    char jvm[64], agent[64];
    int j9 = 1;
    CHECK(attach_read_maps(getpid(), jvm, sizeof(jvm), agent, sizeof(agent), &j9) == 0);
    CHECK(jvm[0] == 0 && agent[0] == 0 && j9 == 0);
}

/* --- the exchange over a socketpair ------------------------------------------------- */

struct server {
    int fd;
    char req[4096];
    size_t reqlen;
    const char *answer;
    size_t answer_len;
    int silent; /* read the request, never answer, keep the connection */
};

/* Reads one request (5 NUL-terminated strings) from fd. */
static size_t read_request(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    int nuls = 0;
    while (nuls < 5 && n < cap) {
        ssize_t r = read(fd, buf + n, 1);
        if (r <= 0)
            break;
        nuls += buf[n] == 0;
        n++;
    }
    return n;
}

static void *serve_pair(void *arg)
{
    struct server *s = arg;
    s->reqlen = read_request(s->fd, s->req, sizeof(s->req));
    if (s->silent) {
        usleep(400 * 1000);
    } else {
        for (size_t off = 0; off < s->answer_len;) {
            ssize_t w = send(s->fd, s->answer + off, s->answer_len - off, MSG_NOSIGNAL);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
    }
    close(s->fd);
    return NULL;
}

static int pair_exchange(struct server *s, const char *cmd, const char *const args[3],
                         int64_t timeout_ms, char *out, size_t outlen, char *err, size_t errlen)
{
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    s->fd = sv[1];
    pthread_t th;
    pthread_create(&th, NULL, serve_pair, s);
    int rc = attach_exchange(sv[0], cmd, args, attach_now_ns() + timeout_ms * MS, out, outlen, err,
                             errlen);
    close(sv[0]);
    pthread_join(th, NULL);
    return rc;
}

static void test_exchange(void)
{
    char out[256], err[512];
    struct server s;
    memset(&s, 0, sizeof(s));
    s.answer = "0\nreturn code: 0\n";
    s.answer_len = strlen(s.answer);
    const char *args[3] = {"/lib/libflyprof.so", "true", "start,file=/tmp/x.fpl"};
    CHECK(pair_exchange(&s, "load", args, 5000, out, sizeof(out), err, sizeof(err)) == 0);
    static const char want[] = "1\0load\0/lib/libflyprof.so\0true\0start,file=/tmp/x.fpl";
    CHECK(s.reqlen == sizeof(want) && memcmp(s.req, want, sizeof(want)) == 0);
    CHECK(strcmp(out, "0\nreturn code: 0\n") == 0);

    /* NULL args are empty strings: HotSpot wants exactly three */
    memset(&s, 0, sizeof(s));
    s.answer = "0\nx=y\n";
    s.answer_len = strlen(s.answer);
    CHECK(pair_exchange(&s, "properties", NULL, 5000, out, sizeof(out), err, sizeof(err)) == 0);
    static const char want2[] = "1\0properties\0\0\0";
    CHECK(s.reqlen == sizeof(want2) && memcmp(s.req, want2, sizeof(want2)) == 0);

    /* a long answer: cut to the buffer, drained to the end, NUL-terminated */
    static char big[20000];
    memset(big, 'x', sizeof(big));
    big[0] = '0';
    big[1] = '\n';
    memset(&s, 0, sizeof(s));
    s.answer = big;
    s.answer_len = sizeof(big);
    char small[100];
    CHECK(pair_exchange(&s, "load", args, 5000, small, sizeof(small), err, sizeof(err)) == 0);
    CHECK(strlen(small) == sizeof(small) - 1 && small[0] == '0' && small[98] == 'x');

    /* a JVM that never answers: the deadline ends the wait */
    memset(&s, 0, sizeof(s));
    s.silent = 1;
    CHECK(pair_exchange(&s, "load", args, 100, out, sizeof(out), err, sizeof(err)) == -ETIMEDOUT);
    CHECK(strstr(err, "in time") != NULL);

    /* HotSpot's argument limit: 1023 bytes pass, 1024 do not, and nothing is sent */
    static char arg[ATTACH_ARG_MAX + 1];
    memset(arg, 'a', ATTACH_ARG_MAX);
    arg[ATTACH_ARG_MAX] = 0;
    const char *longargs[3] = {"/lib.so", "true", arg};
    int sv[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    CHECK(attach_exchange(sv[0], "load", longargs, attach_now_ns() + 1000 * MS, out, sizeof(out),
                          err, sizeof(err)) == -E2BIG);
    close(sv[0]);
    close(sv[1]);
    arg[ATTACH_ARG_MAX - 1] = 0;
    memset(&s, 0, sizeof(s));
    s.answer = "0\nreturn code: 0\n";
    s.answer_len = strlen(s.answer);
    CHECK(pair_exchange(&s, "load", longargs, 5000, out, sizeof(out), err, sizeof(err)) == 0);
}

/* --- a fake JVM: the socket under a fake root, the agent's reply file -------------------- */

struct fake {
    int listen_fd;
    char root[40];
    const char *answer; /* what "HotSpot" answers to load */
    const char *reply;  /* what "the agent" writes into reply=PATH; NULL: nothing */
    char options[2048]; /* the options the agent got */
    int requests;
};

static void *serve_fake(void *arg)
{
    struct fake *f = arg;
    int c = accept(f->listen_fd, NULL, NULL);
    if (c < 0)
        return NULL;
    char req[4096];
    size_t n = read_request(c, req, sizeof(req));
    f->requests += n > 0; /* not the connection that only unblocks accept */
    /* version, command, lib, "true", options */
    const char *p = req;
    for (int i = 0; i < 4 && p < req + n; i++)
        p += strlen(p) + 1;
    snprintf(f->options, sizeof(f->options), "%s", p < req + n ? p : "");
    const char *r = strstr(f->options, "reply=");
    if (r && f->reply) {
        char path[256];
        snprintf(path, sizeof(path), "%s%.*s", f->root, (int)strcspn(r + 6, ","), r + 6);
        FILE *out = fopen(path, "r+"); /* the client created it */
        if (out) {
            fputs(f->reply, out);
            fclose(out);
        }
    }
    ssize_t w = send(c, f->answer, strlen(f->answer), MSG_NOSIGNAL);
    (void)w;
    close(c);
    return NULL;
}

static int fake_action(struct fake *f, struct attach_target *t, const char *opts,
                       struct attach_reply *r, char *err, size_t errlen)
{
    pthread_t th;
    pthread_create(&th, NULL, serve_fake, f);
    int rc =
        attach_action(t, "/lib/libflyprof.so", opts, attach_now_ns() + 5000 * MS, r, err, errlen);
    if (f->requests == 0) {
        /* the client never connected: unblock accept */
        int c = socket(AF_UNIX, SOCK_STREAM, 0);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/tmp/.java_pid%d", f->root, (int)t->nspid);
        if (connect(c, (struct sockaddr *)&sa, sizeof(sa)) != 0)
            perror("unblocking the fake JVM");
        close(c);
    }
    pthread_join(th, NULL);
    return rc;
}

/* Counts the reply files left in the fake root's /tmp. */
static int leftover_replies(const char *root)
{
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "ls %s/tmp | grep -c flyprof-reply >/dev/null", root);
    return system(cmd) == 0;
}

static void test_fake_jvm(void)
{
    struct fake f;
    memset(&f, 0, sizeof(f));
    snprintf(f.root, sizeof(f.root), "%.30s/root", tmpdir);
    char path[256];
    snprintf(path, sizeof(path), "%s/tmp", f.root);
    CHECK(mkdir(f.root, 0755) == 0 && mkdir(path, 01777) == 0);

    struct attach_target t;
    memset(&t, 0, sizeof(t));
    t.pid = getpid();
    t.nspid = 4242; /* the socket is named after the pid in the JVM's namespace */
    t.uid = geteuid();
    t.gid = getegid();
    snprintf(t.root, sizeof(t.root), "%s", f.root);

    f.listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/tmp/.java_pid4242", f.root);
    CHECK(bind(f.listen_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
    CHECK(listen(f.listen_fd, 5) == 0);

    struct attach_reply r;
    struct attach_status st;
    char err[1024];
    /* start: the reply carries the status line */
    f.answer = "0\nreturn code: 0\n";
    f.reply = "0\nrunning=1 cpu=10000000 engine=cputimer wall=0 samples=0 drops=0 file=/o.fpl\n";
    CHECK(fake_action(&f, &t, "start,file=/o.fpl", &r, err, sizeof(err)) == 0);
    CHECK(r.have && r.code == 0 && r.agent_rc == 0);
    CHECK(strncmp(f.options, "start,file=/o.fpl,reply=/tmp/flyprof-reply-", 43) == 0);
    CHECK(attach_parse_status(r.text, &st) == 0 && st.running && !strcmp(st.file, "/o.fpl"));
    CHECK(!leftover_replies(f.root));

    /* stop: the output on the first line, a warning on the second (an older CLI reads the
     * first alone) */
    f.reply = "0\nstopped, output /o.fpl\nwarning: 2 chunks of the log (40 samples) could not "
              "be written (No space left on device): the profile is incomplete\n";
    CHECK(fake_action(&f, &t, "stop", &r, err, sizeof(err)) == 0);
    CHECK(r.have && r.code == 0 && strcmp(r.text, "stopped, output /o.fpl") == 0);
    CHECK(strncmp(r.more, "warning: 2 chunks of the log (40 samples)", 41) == 0);
    CHECK(strstr(r.more, "incomplete\n") == NULL && strstr(r.more, "incomplete") != NULL);
    f.reply = "0\nstopped, output /o.fpl\n";
    CHECK(fake_action(&f, &t, "stop", &r, err, sizeof(err)) == 0);
    CHECK(strcmp(r.text, "stopped, output /o.fpl") == 0 && r.more[0] == 0);
    CHECK(!leftover_replies(f.root));

    /* the agent's own error: its errno and message */
    f.answer = "0\nreturn code: -1\n";
    f.reply = "16\nprofiling is already running (output /o.fpl): stop it first\n";
    CHECK(fake_action(&f, &t, "start", &r, err, sizeof(err)) == -16);
    CHECK(r.have && r.code == 16 && r.agent_rc == -1);
    CHECK(strcmp(err, "profiling is already running (output /o.fpl): stop it first") == 0);
    CHECK(!leftover_replies(f.root));

    /* an agent that writes no reply: its return code decides */
    f.reply = NULL;
    f.answer = "0\nreturn code: 0\n";
    CHECK(fake_action(&f, &t, "status", &r, err, sizeof(err)) == 0);
    CHECK(!r.have);
    f.answer = "0\nreturn code: -1\n";
    CHECK(fake_action(&f, &t, "status", &r, err, sizeof(err)) == -EIO);
    CHECK(strstr(err, "standard error") != NULL);

    /* loading refused (JDK 25 answers 0 and a message) */
    f.answer = "0\nDynamic agent loading is not enabled. Use -XX:+EnableDynamicAgentLoading to "
               "launch target VM.\n";
    CHECK(fake_action(&f, &t, "start", &r, err, sizeof(err)) == -EPERM);
    CHECK(strstr(err, "-XX:+EnableDynamicAgentLoading") != NULL);
    CHECK(!leftover_replies(f.root));

    /* the library could not be loaded: the JVM's dlerror is passed on */
    f.answer = "-1\n/lib/libflyprof.so was not loaded.\n/lib/libflyprof.so: cannot open shared "
               "object file: Permission denied\n";
    CHECK(fake_action(&f, &t, "start", &r, err, sizeof(err)) == -ENOENT);
    CHECK(strstr(err, "Permission denied") != NULL);

    /* options too long for HotSpot: nothing is sent */
    static char opts[ATTACH_ARG_MAX];
    memset(opts, 'x', sizeof(opts) - 1);
    opts[sizeof(opts) - 1] = 0;
    f.requests = 0;
    CHECK(fake_action(&f, &t, opts, &r, err, sizeof(err)) == -E2BIG);
    CHECK(!leftover_replies(f.root));

    /* a socket owned by someone else is never used (only checkable as root: chown) */
    if (geteuid() == 0) {
        CHECK(chown(sa.sun_path, 12345, 12345) == 0);
        f.requests = 0;
        CHECK(fake_action(&f, &t, "status", &r, err, sizeof(err)) == -EPERM);
        CHECK(f.requests == 0 && strstr(err, "owned by uid 12345"));
        CHECK(chown(sa.sun_path, t.uid, t.gid) == 0);
    }
    close(f.listen_fd);

    /* no live socket (a stale one: nobody listens), so attach must signal: but not a process
     * that does not handle SIGQUIT, not a stopped one, not with attach disabled */
    pid_t child = fork();
    if (child == 0) {
        signal(SIGQUIT, SIG_DFL);
        pause();
        _exit(0);
    }
    t.pid = child;
    t.catches_sigquit = 0;
    CHECK(attach_connect(&t, attach_now_ns() + 2000 * MS, err, sizeof(err)) == -EAGAIN);
    CHECK(strstr(err, "does not handle SIGQUIT") != NULL);
    t.catches_sigquit = 1;
    t.attach_disabled = 1;
    CHECK(attach_connect(&t, attach_now_ns() + 2000 * MS, err, sizeof(err)) == -EPERM);
    CHECK(strstr(err, "DisableAttachMechanism") != NULL);
    t.attach_disabled = 0;
    t.stopped = 1;
    CHECK(attach_connect(&t, attach_now_ns() + 2000 * MS, err, sizeof(err)) == -EAGAIN);
    CHECK(strstr(err, "stopped") != NULL);
    /* the child (default SIGQUIT: it would have died) is alive */
    CHECK(kill(child, 0) == 0 && waitpid(child, NULL, WNOHANG) == 0);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
}

int main(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_attach.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_parse_load();
    test_parse_status();
    test_scan_args();
    test_java_major();
    test_warns();
    test_inspect();
    test_exchange();
    test_fake_jvm();
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return harness_result("test_attach");
}
