/* test_render_cli.c: runs the flyprof binary given as argv[1] on the golden log and checks the
 * convert and diff options: every format by extension and by --format, --threads, --kind,
 * --state, --include / --exclude, --from / --to (relative and clock time), --reverse,
 * --title; exact folded outputs where they are known; exit code 2 with a message naming the
 * bad value and what is accepted for every malformed option; an existing output left whole
 * when a conversion fails. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* Runs bin with the NULL-terminated arguments in the scratch directory, TZ=UTC. */
static struct run run_args(const char *first, ...)
{
    char *argv[40], o[PATH_MAX + 16], e[PATH_MAX + 16];
    struct run r = {-1, NULL, NULL};
    int n = 0, st;
    va_list ap;
    argv[n++] = (char *)bin;
    argv[n++] = (char *)first;
    va_start(ap, first);
    for (char *a; n < 39 && (a = va_arg(ap, char *)) != NULL;)
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    path_in(o, sizeof(o), "stdout.txt");
    path_in(e, sizeof(e), "stderr.txt");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0 || chdir(dir) != 0)
            _exit(99);
        setenv("TZ", "UTC", 1);
        execv(argv[0], argv);
        _exit(98);
    }
    if (pid > 0 && waitpid(pid, &st, 0) == pid)
        r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.out = slurp(o);
    r.err = slurp(e);
    if (!r.out)
        r.out = strdup("");
    if (!r.err)
        r.err = strdup("");
    return r;
}

#define RUN(...) run_args(__VA_ARGS__, (char *)NULL)

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

static int same(const char *got, const char *want)
{
    if (got && strcmp(got, want) == 0)
        return 1;
    fprintf(stderr, "got:\n%s\nwant:\n%s\n", got ? got : "(null)", want);
    return 0;
}

/* A run that must succeed with exactly this standard output and nothing on stderr. */
#define CHECK_OUT(want, ...)                                                                       \
    do {                                                                                           \
        struct run _r = RUN(__VA_ARGS__);                                                          \
        CHECK_EQ_U(_r.code, 0);                                                                    \
        CHECK(same(_r.out, want));                                                                 \
        CHECK(same(_r.err, ""));                                                                   \
        run_free(&_r);                                                                             \
    } while (0)

/* A run that must fail with this exit code and a message holding want. */
#define CHECK_FAIL(code_, want, ...)                                                               \
    do {                                                                                           \
        struct run _r = RUN(__VA_ARGS__);                                                          \
        CHECK_EQ_U(_r.code, code_);                                                                \
        CHECK(has(_r.err, want));                                                                  \
        run_free(&_r);                                                                             \
    } while (0)

static const char HASH5[] = "com.example.App.main;com.example.App.work;com.example.App.hash 5\n";
static const char HASH3[] = "com.example.App.main;com.example.App.work;com.example.App.hash 3\n";
static const char SLEEP9[] = "java.lang.Thread.run;java.lang.Thread.sleep0 9\n";

static void test_selection(void)
{
    CHECK_OUT(GOLDEN_CPU, "convert", "golden.fpl", "-o", "-");
    CHECK_OUT(HASH5, "convert", "golden.fpl", "-o", "-", "--include", "hash$");
    CHECK_OUT(HASH5, "convert", "golden.fpl", "--include=App\\.(hash|nothing)", "-o", "-");
    CHECK_OUT("com.example.App.main;com.example.App.work 3\n" /* thread 3's and main's */
              "java.lang.Thread.run;com.foo.Bar$$Lambda$14/0x0000000800c03000.run;"
              "com.example.App.fib;com.example.App.fib;com.example.App.fib 4\n",
              "convert", "golden.fpl", "-o", "-", "--exclude", "hash|^\\[");
    CHECK_OUT("pool-1_worker_2;[agct:unknown_Java] 1\n"
              "pool-1_worker_2;java.lang.Thread.run;com.foo.Bar$$Lambda$14/0x0000000800c03000."
              "run;com.example.App.fib;com.example.App.fib;com.example.App.fib 4\n",
              "convert", "golden.fpl", "-o", "-", "--threads", "--include", "^pool");
    CHECK_OUT(SLEEP9, "convert", "golden.fpl", "-o", "-", "--state", "sleeping");
    CHECK_OUT(HASH3, "convert", "golden.fpl", "-o", "-", "--from", "25ms", "--to", "45ms");
    CHECK_OUT(HASH3, "convert", "golden.fpl", "-o", "-", "--from", "0.025", "--to=0.045s");
    CHECK_OUT(HASH3, "convert", "golden.fpl", "-o", "-", "--from", "22:13:20.025", "--to",
              "2023-11-14T22:13:20.045");
    CHECK_OUT("com.example.App.hash;com.example.App.work;com.example.App.main 5\n", "convert",
              "golden.fpl", "-o", "-", "--reverse", "--include", "hash");
    CHECK_OUT("[wall];java.lang.Thread.run;java.lang.Thread.sleep0 9\n", "convert", "golden.fpl",
              "-o", "-", "--kind", "all", "--include", "sleep");

    /* nothing selected: an empty output and a warning */
    struct run r = RUN("convert", "golden.fpl", "-o", "-", "--from", "5s");
    CHECK_EQ_U(r.code, 0);
    CHECK(same(r.out, ""));
    CHECK(has(r.err,
              "warning: 'golden.fpl' has no samples in the window from 5.000 s after its start "
              "(21 samples outside it)"));
    run_free(&r);
    r = RUN("convert", "golden.fpl", "-o", "-", "--include", "nomatch");
    CHECK_EQ_U(r.code, 0);
    CHECK(same(r.out, ""));
    CHECK(has(r.err, "no cpu samples match the selection"));
    run_free(&r);
    r = RUN("convert", "golden.fpl", "-o", "-", "--kind", "cpu", "--state", "parked");
    CHECK_EQ_U(r.code, 0);
    CHECK(same(r.out, ""));
    CHECK(has(r.err, "no cpu samples match the selection"));
    run_free(&r);
}

static void test_formats(void)
{
    char path[PATH_MAX + 32];
    struct run r = RUN("convert", "golden.fpl", "-o", "r.txt", "--title", "Golden & co");
    CHECK_EQ_U(r.code, 0);
    CHECK(same(r.err, ""));
    run_free(&r);
    path_in(path, sizeof(path), "r.txt");
    char *text = slurp(path);
    CHECK(text && strncmp(text, "Golden & co\n", 12) == 0);
    CHECK(has(text, "Top 6 of 6 methods by self weight:"));
    CHECK(has(text, " 33.33%  33.33%            5        com.example.App.hash\n"));
    free(text);

    r = RUN("convert", "golden.fpl", "-o", "-", "--format", "txt", "--kind", "wall", "--threads");
    CHECK_EQ_U(r.code, 0);
    CHECK(has(r.out, "wall profile of java -jar app.jar (pid 4242), 2.00 s, 7 samples\n"));
    CHECK(has(r.out, "[sleeping]"));
    run_free(&r);

    /* the html and pprof writers, chosen by extension: a page and a gzip stream */
    const char *outs[] = {"r.html", "r.pb.gz"};
    for (int i = 0; i < 2; i++) {
        r = RUN("convert", "golden.fpl", "-o", outs[i]);
        path_in(path, sizeof(path), outs[i]);
        CHECK_EQ_U(r.code, 0);
        unsigned char head[16] = {0};
        FILE *hf = fopen(path, "rb");
        CHECK(hf != NULL);
        if (hf) {
            CHECK(fread(head, 1, sizeof(head), hf) > 2);
            fclose(hf);
        }
        if (i == 0)
            CHECK(memcmp(head, "<!DOCTYPE html", 14) == 0);
        else
            CHECK(head[0] == 0x1f && head[1] == 0x8b);
        run_free(&r);
    }
    r = RUN("convert", "golden.fpl", "-o", "r.data", "--format", "collapsed");
    CHECK_EQ_U(r.code, 0);
    run_free(&r);
    path_in(path, sizeof(path), "r.data");
    text = slurp(path);
    CHECK(text && same(text, GOLDEN_CPU));
    free(text);
}

static void test_errors(void)
{
    CHECK_FAIL(2,
               "convert: unknown state 'bogus': use one of running, blocked, waiting, "
               "timed_waiting, parked, sleeping, native",
               "convert", "golden.fpl", "-o", "-", "--state", "bogus");
    CHECK_FAIL(2, "convert: unknown kind 'both': use cpu, wall or all", "convert", "golden.fpl",
               "-o", "-", "--kind", "both");
    CHECK_FAIL(2, "unknown output format 'svg': use one of collapsed, html, pprof, txt", "convert",
               "golden.fpl", "-o", "x", "--format", "svg");
    CHECK_FAIL(2, "convert: --from: bad time 'soon': use seconds from the start of the profile",
               "convert", "golden.fpl", "-o", "-", "--from", "soon");
    CHECK_FAIL(2, "(14:03:05, 14:03:05.250, 2026-11-21T14:03:05)", "convert", "golden.fpl", "-o",
               "-", "--to", "25:00");
    CHECK_FAIL(2, "convert: empty time window: --from 2s is not before --to 1s", "convert",
               "golden.fpl", "-o", "-", "--from", "2s", "--to", "1s");
    CHECK_FAIL(2, "convert: --include: bad regular expression '(': ", "convert", "golden.fpl", "-o",
               "-", "--include", "(");
    CHECK_FAIL(2, "convert: --exclude: bad regular expression 'a{1'", "convert", "golden.fpl", "-o",
               "-", "--exclude", "a{1");
    CHECK_FAIL(2, "convert: --state needs a state (running, blocked", "convert", "golden.fpl", "-o",
               "-", "--state");
    CHECK_FAIL(2, "convert: --from needs a time such as 2.5s or 14:03:05", "convert", "golden.fpl",
               "-o", "-", "--from");
    CHECK_FAIL(2, "convert: -o needs a file", "convert", "golden.fpl", "-o");
    CHECK_FAIL(2, "convert: unknown option '--revers'", "convert", "golden.fpl", "-o", "-",
               "--revers");
    CHECK_FAIL(2, "convert: no output: add -o OUT (.collapsed, .folded, .html, .pb.gz, .txt",
               "convert", "golden.fpl");

    /* a failed conversion leaves an existing output whole (and writes no temp file) */
    char path[PATH_MAX + 32];
    path_in(path, sizeof(path), "keep.txt");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("keep me\n", f);
        fclose(f);
    }
    CHECK_FAIL(1, "cannot open 'missing.fpl'", "convert", "missing.fpl", "-o", "keep.txt");
    char *text = slurp(path);
    CHECK(text && same(text, "keep me\n"));
    free(text);
    DIR *d = opendir(dir);
    int stray = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        stray += strstr(e->d_name, ".tmp") != NULL;
    if (d)
        closedir(d);
    CHECK(d != NULL);
    CHECK_EQ_U(stray, 0);
}

static void test_diff(void)
{
    CHECK_FAIL(2, "diff: needs two logs: BASE.fpl NEW.fpl", "diff", "golden.fpl", "-o", "d.html");
    CHECK_FAIL(2, "diff: two logs only, BASE and NEW ('c.fpl' is a third)", "diff", "a.fpl",
               "b.fpl", "c.fpl", "-o", "d.html");
    CHECK_FAIL(2, "diff: no output: add -o DIFF.html", "diff", "golden.fpl", "golden.fpl");
    CHECK_FAIL(2, "diff: the output is an html flame graph: name it with .html ('d.txt')", "diff",
               "golden.fpl", "golden.fpl", "-o", "d.txt");
    CHECK_FAIL(2, "diff: unknown state 'zzz'", "diff", "golden.fpl", "golden.fpl", "-o", "d.html",
               "--state", "zzz");
    CHECK_FAIL(1, "cannot open 'nope.fpl'", "diff", "golden.fpl", "nope.fpl", "-o", "d.html");
    char path[PATH_MAX + 32];
    path_in(path, sizeof(path), "d.html");
    CHECK(access(path, F_OK) != 0);

    struct run r = RUN("diff", "golden.fpl", "golden.fpl", "-o", "d.html", "--threads");
    struct stat st;
    CHECK_EQ_U(r.code, 0);
    CHECK(stat(path, &st) == 0 && st.st_size > 0);
    run_free(&r);

    r = RUN("--help");
    CHECK_EQ_U(r.code, 0);
    CHECK(has(r.out, "flyprof diff BASE.fpl NEW.fpl -o DIFF.html [SELECTION]"));
    CHECK(has(r.out, "--from T, --to T"));
    CHECK(has(r.out, "--format collapsed|html|pprof|txt"));
    run_free(&r);
}

int main(int argc, char **argv)
{
    static char bin_abs[PATH_MAX];
    char p[PATH_MAX + 32];
    struct fplgen g;

    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH_TO_FLYPROF\n", argv[0]);
        return 2;
    }
    if (!realpath(argv[1], bin_abs)) {
        perror(argv[1]);
        return 1;
    }
    bin = bin_abs;
    snprintf(dir, sizeof(dir), "%s/flyprof-render-cli-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    path_in(p, sizeof(p), "golden.fpl");
    int rc = fplgen_init(&g);
    if (rc == 0 && (rc = golden_log_build(&g, 1)) == 0)
        rc = fplgen_save(&g, p);
    fplgen_destroy(&g);
    CHECK_EQ_U(rc, 0);
    test_selection();
    test_formats();
    test_errors();
    test_diff();
    if (!harness_fail) {
        char cmd[PATH_MAX + 16];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    } else {
        fprintf(stderr, "files kept in %s\n", dir);
    }
    return harness_result("test_render_cli");
}
