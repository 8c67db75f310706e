/* test_collector_cli.c: runs the flyprof binary given as argv[1] on generated logs and bad
 * input, and checks exit codes, outputs and that error messages name the problem. `record`
 * runs against a copy of the binary next to a stand-in agent library, with `sh` as the
 * command, so the JAVA_TOOL_OPTIONS it builds can be read back without a JVM. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fpl_format.h"
#include "fplgen.h"
#include "golden_log.h"
#include "harness.h"
#include "slurp.h"

static char dir[PATH_MAX]; /* scratch directory */
static const char *bin;    /* the flyprof under test */

struct run {
    int code; /* exit code, or 128 + signal */
    char *out;
    char *err;
};

static void path_in(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

/* Starts argv (argv[0] the program) in cwd with stdout/stderr to files; returns the pid. */
static pid_t start(const char *cwd, char *const argv[])
{
    char o[PATH_MAX + 16], e[PATH_MAX + 16];
    path_in(o, sizeof(o), "stdout.txt");
    path_in(e, sizeof(e), "stderr.txt");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0 || chdir(cwd) != 0)
            _exit(99);
        execv(argv[0], argv);
        _exit(98);
    }
    return pid;
}

static struct run finish(pid_t pid)
{
    struct run r = {-1, NULL, NULL};
    char o[PATH_MAX + 16], e[PATH_MAX + 16];
    int st;
    if (pid > 0 && waitpid(pid, &st, 0) == pid)
        r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    path_in(o, sizeof(o), "stdout.txt");
    path_in(e, sizeof(e), "stderr.txt");
    r.out = slurp(o);
    r.err = slurp(e);
    if (!r.out)
        r.out = calloc(1, 1);
    if (!r.err)
        r.err = calloc(1, 1);
    return r;
}

/* Runs the flyprof under test (or prog when given) with the NULL-terminated arguments. */
static struct run run_prog(const char *prog, const char *cwd, ...)
{
    char *argv[32];
    int n = 0;
    va_list ap;
    argv[n++] = (char *)prog;
    va_start(ap, cwd);
    for (char *a; n < 31 && (a = va_arg(ap, char *)) != NULL;)
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    return finish(start(cwd, argv));
}

#define RUN(...) run_prog(bin, dir, __VA_ARGS__, (char *)NULL)

static void run_free(struct run *r)
{
    free(r->out);
    free(r->err);
}

static int has(const char *text, const char *want)
{
    if (text && strstr(text, want))
        return 1;
    fprintf(stderr, "expected [%s] in:\n%s\n", want, text ? text : "(null)");
    return 0;
}

static void test_convert(void)
{
    struct run r;
    char out[PATH_MAX + 32];

    r = RUN("convert", "golden.fpl", "-o", "g.collapsed");
    CHECK_EQ_U(r.code, 0);
    CHECK(strcmp(r.err, "") == 0);
    run_free(&r);
    path_in(out, sizeof(out), "g.collapsed");
    char *text = slurp(out);
    CHECK(text && strcmp(text, GOLDEN_CPU) == 0);
    free(text);

    r = RUN("convert", "golden.fpl", "--threads", "-o", "-");
    CHECK_EQ_U(r.code, 0);
    CHECK(strcmp(r.out, GOLDEN_CPU_THREADS) == 0);
    run_free(&r);

    r = RUN("convert", "--kind", "wall", "golden.fpl", "--output=g.folded");
    CHECK_EQ_U(r.code, 0);
    run_free(&r);
    path_in(out, sizeof(out), "g.folded");
    text = slurp(out);
    CHECK(text && strcmp(text, GOLDEN_WALL) == 0);
    free(text);

    r = RUN("convert", "golden.fpl", "-o", "g.svg");
    CHECK_EQ_U(r.code, 2);
    CHECK(has(r.err, "unknown output format '.svg' of 'g.svg': use one of .collapsed"));
    run_free(&r);

    r = RUN("convert", "golden.fpl", "-o", "g");
    CHECK_EQ_U(r.code, 2);
    CHECK(has(r.err, "cannot tell the output format of 'g' (no extension)"));
    run_free(&r);

    r = RUN("convert", "golden.fpl", "-o", "g.out", "--format", "collapsed");
    CHECK_EQ_U(r.code, 0);
    run_free(&r);

    r = RUN("convert", "golden.fpl", "-o", "g.collapsed", "--kind", "gpu");
    CHECK_EQ_U(r.code, 2);
    CHECK(has(r.err, "unknown kind 'gpu'"));
    run_free(&r);

    r = RUN("convert", "golden.fpl");
    CHECK_EQ_U(r.code, 2);
    CHECK(has(r.err, "no output"));
    CHECK(has(r.err, "usage:"));
    run_free(&r);

    r = RUN("convert", "missing.fpl", "-o", "x.collapsed");
    CHECK_EQ_U(r.code, 1);
    CHECK(has(r.err, "flyprof: cannot open 'missing.fpl': No such file or directory"));
    run_free(&r);
    path_in(out, sizeof(out), "x.collapsed");
    CHECK(access(out, F_OK) != 0); /* nothing created on failure */

    r = RUN("convert", "notes.txt", "-o", "x.collapsed");
    CHECK_EQ_U(r.code, 1);
    CHECK(has(r.err, "'notes.txt': not a flyprof log"));
    run_free(&r);

    r = RUN("convert", "v7.fpl", "-o", "x.collapsed");
    CHECK_EQ_U(r.code, 1);
    CHECK(has(r.err, "'v7.fpl': unsupported version 7"));
    run_free(&r);

    r = RUN("convert", "golden.fpl", "-o", "no/such/dir/x.collapsed");
    CHECK_EQ_U(r.code, 1);
    CHECK(has(r.err, "cannot create 'no/such/dir/x.collapsed'"));
    run_free(&r);

    /* a cut log converts, with a warning */
    r = RUN("convert", "cut.fpl", "-o", "-");
    CHECK_EQ_U(r.code, 0);
    CHECK(has(r.err, "no END record"));
    CHECK(strlen(r.out) > 0);
    run_free(&r);
}

static void test_summary_and_usage(void)
{
    struct run r;

    r = RUN("summary", "golden.fpl");
    CHECK_EQ_U(r.code, 0);
    CHECK(has(r.out, "flyprof summary of golden.fpl"));
    CHECK(has(r.out, "14 samples, weight 15"));
    CHECK(has(r.out, "com.example.App.hash"));
    CHECK(has(r.out, "ring drops: 3"));
    run_free(&r);

    r = RUN("summary", "missing.fpl");
    CHECK_EQ_U(r.code, 1);
    CHECK(has(r.err, "cannot open 'missing.fpl'"));
    run_free(&r);

    r = RUN("summary");
    CHECK_EQ_U(r.code, 2);
    CHECK(has(r.err, "no input log"));
    run_free(&r);

    r = RUN("summary", "a.fpl", "b.fpl");
    CHECK_EQ_U(r.code, 2);
    run_free(&r);

    r = RUN("frobnicate");
    CHECK_EQ_U(r.code, 2);
    CHECK(has(r.err, "unknown command 'frobnicate'"));
    run_free(&r);

    r = RUN("--help");
    CHECK_EQ_U(r.code, 0);
    CHECK(has(r.out, "flyprof convert IN.fpl -o OUT"));
    run_free(&r);

    r = run_prog(bin, dir, (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(has(r.err, "usage:"));
    run_free(&r);
}

/* Copies the binary to <root>/bin/flyprof; with lib set, puts a stand-in agent library in
 * <root>/lib. Returns 0 on success. */
static int make_install(const char *root, int lib, char *flyprof, size_t cap)
{
    char cmd[3 * PATH_MAX + 64];
    snprintf(flyprof, cap, "%s/bin/flyprof", root);
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s/bin' '%s/lib' && cp '%s' '%s'%s%s%s", root, root, bin,
             flyprof, lib ? " && : > '" : "", lib ? root : "", lib ? "/lib/libflyprof.so'" : "");
    return system(cmd);
}

static void test_record(void)
{
    char root[PATH_MAX + 16], fly[PATH_MAX + 32], lib[PATH_MAX + 64], want[4 * PATH_MAX];
    char jto[PATH_MAX + 32], real_dir[PATH_MAX], real_root[PATH_MAX + 16];
    struct run r;

    path_in(root, sizeof(root), "inst");
    CHECK(make_install(root, 1, fly, sizeof(fly)) == 0);
    CHECK(realpath(dir, real_dir) != NULL);
    CHECK(realpath(root, real_root) != NULL);
    snprintf(lib, sizeof(lib), "%s/lib/libflyprof.so", real_root);
    path_in(jto, sizeof(jto), "jto.txt");

    /* defaults; an existing JAVA_TOOL_OPTIONS is kept; the command's exit code comes back */
    setenv("JAVA_TOOL_OPTIONS", "-Xmx64m", 1);
    r = run_prog(fly, dir, "record", "--", "sh", "-c",
                 "printf '%s' \"$JAVA_TOOL_OPTIONS\" > jto.txt; exit 3", (char *)NULL);
    unsetenv("JAVA_TOOL_OPTIONS");
    CHECK_EQ_U(r.code, 3);
    snprintf(want, sizeof(want), "-Xmx64m -agentpath:%s=cpu=10ms,file=%s/flyprof-%%p.fpl", lib,
             real_dir);
    char *got = slurp(jto);
    CHECK(got && strcmp(got, want) == 0);
    if (got && strcmp(got, want) != 0)
        fprintf(stderr, "JAVA_TOOL_OPTIONS: got [%s], want [%s]\n", got, want);
    free(got);
    CHECK(has(r.err, "warning: no profile at"));
    run_free(&r);

    /* both kinds, an interval, extra agent options between two '--'; the "profile" the
     * command writes (at %p = its pid) is found */
    r = run_prog(fly, dir, "record", "-e", "cpu,wall", "-i", "5ms", "-o", "out-%p.fpl", "--",
                 "threads", "depth=64", "--", "sh", "-c",
                 "printf '%s' \"$JAVA_TOOL_OPTIONS\" > jto.txt; : > out-$$.fpl", (char *)NULL);
    CHECK_EQ_U(r.code, 0);
    snprintf(want, sizeof(want),
             "-agentpath:%s=cpu=5ms,wall=5ms,file=%s/out-%%p.fpl,threads,depth=64", lib, real_dir);
    got = slurp(jto);
    CHECK(got && strcmp(got, want) == 0);
    if (got && strcmp(got, want) != 0)
        fprintf(stderr, "JAVA_TOOL_OPTIONS: got [%s], want [%s]\n", got, want);
    free(got);
    CHECK(has(r.err, "flyprof: profile written to "));
    CHECK(has(r.err, "/out-"));
    run_free(&r);

    r = run_prog(fly, dir, "record", "-o", "a,b.fpl", "--", "true", (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(has(r.err, "contains a comma"));
    run_free(&r);

    r = run_prog(fly, dir, "record", "-e", "gpu", "--", "true", (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(has(r.err, "unknown event 'gpu'"));
    run_free(&r);

    r = run_prog(fly, dir, "record", "-i", "10 parsecs", "--", "true", (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(has(r.err, "bad interval '10 parsecs'"));
    run_free(&r);

    r = run_prog(fly, dir, "record", "-o", "x.fpl", (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(has(r.err, "no command"));
    run_free(&r);

    r = run_prog(fly, dir, "record", "--", "/nonexistent/java", (char *)NULL);
    CHECK_EQ_U(r.code, 127);
    CHECK(has(r.err, "cannot run '/nonexistent/java'"));
    run_free(&r);

    /* a SIGTERM sent to flyprof reaches the command, whose exit code comes back */
    char ready[PATH_MAX + 16];
    path_in(ready, sizeof(ready), "ready");
    unlink(ready);
    char *argv[] = {fly,  "record", "--",
                    "sh", "-c",     "trap 'exit 42' TERM; : > ready; while :; do sleep 0.02; done",
                    NULL};
    pid_t pid = start(dir, argv);
    for (int i = 0; i < 1000 && access(ready, F_OK) != 0; i++)
        usleep(10000);
    CHECK(access(ready, F_OK) == 0);
    kill(pid, SIGTERM);
    r = finish(pid);
    CHECK_EQ_U(r.code, 42);
    run_free(&r);

    /* no agent library next to the binary */
    char bare[PATH_MAX + 16], fly2[PATH_MAX + 32];
    path_in(bare, sizeof(bare), "bare");
    CHECK(make_install(bare, 0, fly2, sizeof(fly2)) == 0);
    r = run_prog(fly2, dir, "record", "--", "true", (char *)NULL);
    CHECK_EQ_U(r.code, 1);
    CHECK(has(r.err, "agent library not found at '"));
    CHECK(has(r.err, "/bare/bin/../lib/libflyprof.so'"));
    run_free(&r);
}

static int make_inputs(void)
{
    char p[PATH_MAX + 32];
    struct fplgen g;
    uint8_t v7[FPL_PREAMBLE_SIZE] = "FLYPROF";
    int rc;

    v7[8] = 7;
    if ((rc = fplgen_init(&g)) != 0 || (rc = golden_log_build(&g, 1)) != 0)
        return rc;
    path_in(p, sizeof(p), "golden.fpl");
    rc = fplgen_save(&g, p);
    fplgen_destroy(&g);
    if (rc)
        return rc;
    /* the golden log without END, cut in the middle of its last chunk */
    if ((rc = fplgen_init(&g)) != 0 || (rc = golden_log_build(&g, 0)) != 0)
        return rc;
    size_t len;
    uint8_t *d = fplgen_bytes(&g, &len);
    size_t cut = g.chunks[1].start + 40;
    fplgen_destroy(&g);
    if (!d)
        return -ENOMEM;
    path_in(p, sizeof(p), "cut.fpl");
    rc = fplgen_write_file(p, d, cut);
    free(d);
    if (rc)
        return rc;
    path_in(p, sizeof(p), "notes.txt");
    if ((rc = fplgen_write_file(p, "some notes, not a log\n", 22)) != 0)
        return rc;
    path_in(p, sizeof(p), "v7.fpl");
    return fplgen_write_file(p, v7, sizeof(v7));
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH_TO_FLYPROF\n", argv[0]);
        return 2;
    }
    static char bin_abs[PATH_MAX];
    if (!realpath(argv[1], bin_abs)) {
        perror(argv[1]);
        return 1;
    }
    bin = bin_abs; /* the commands run in the scratch directory */
    snprintf(dir, sizeof(dir), "%s/flyprof-cli-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    CHECK(make_inputs() == 0);
    test_convert();
    test_summary_and_usage();
    test_record();
    if (!harness_fail) {
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    } else {
        fprintf(stderr, "files kept in %s\n", dir);
    }
    return harness_result("test_collector_cli");
}
