/* test_render_cli.c: runs the flyprof binary given as argv[1] on the golden log and checks the
 * convert and diff options: every format by extension and by --format, --threads, --kind,
 * --state, --include / --exclude, --from / --to (relative and clock time), --reverse,
 * --title; exact folded outputs where they are known; exit code 2 with a message naming the
 * bad value and what is accepted for every malformed option; an existing output left whole
 * when a conversion fails. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_run.h"
#include "fplgen.h"
#include "golden_log.h"
#include "harness.h"
#include "slurp.h"

/* When the golden log's samples were (TZ=UTC). */
#define GOLDEN_SPAN "0.010 s to 0.147 s after its start (22:13:20.010 to 22:13:20.147)"

/* A run that must succeed with exactly this standard output and nothing on stderr. */
#define CHECK_OUT(want, ...)                                                                       \
    do {                                                                                           \
        struct cli_run _r = CLI_RUN(__VA_ARGS__);                                                  \
        CHECK_EQ_U(_r.code, 0);                                                                    \
        CHECK(cli_run_same(_r.out, want));                                                         \
        CHECK(cli_run_same(_r.err, ""));                                                           \
        cli_run_free(&_r);                                                                         \
    } while (0)

/* A run that must fail with this exit code and a message holding want. */
#define CHECK_FAIL(code_, want, ...)                                                               \
    do {                                                                                           \
        struct cli_run _r = CLI_RUN(__VA_ARGS__);                                                  \
        CHECK_EQ_U(_r.code, code_);                                                                \
        CHECK(cli_run_has(_r.err, want));                                                          \
        cli_run_free(&_r);                                                                         \
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
              "java.lang.Thread.run;com.foo.Bar$$Lambda.run;"
              "com.example.App.fib;com.example.App.fib;com.example.App.fib 4\n",
              "convert", "golden.fpl", "-o", "-", "--exclude", "hash|^\\[");
    CHECK_OUT("pool-1_worker_2;[agct:unknown_Java] 1\n"
              "pool-1_worker_2;java.lang.Thread.run;com.foo.Bar$$Lambda."
              "run;com.example.App.fib;com.example.App.fib;com.example.App.fib 4\n",
              "convert", "golden.fpl", "-o", "-", "--threads", "--include", "^pool");
    CHECK_OUT(SLEEP9, "convert", "golden.fpl", "-o", "-", "--state", "sleeping");
    /* generated class names are normalized unless --raw-names */
    CHECK_OUT("java.lang.Thread.run;com.foo.Bar$$Lambda$14/0x0000000800c03000.run;"
              "com.example.App.fib;com.example.App.fib;com.example.App.fib 4\n",
              "convert", "golden.fpl", "-o", "-", "--raw-names", "--include", "fib");
    CHECK_OUT("java.lang.Thread.run;com.foo.Bar$$Lambda.run;"
              "com.example.App.fib;com.example.App.fib;com.example.App.fib 4\n",
              "convert", "golden.fpl", "-o", "-", "--include", "fib");
    CHECK_OUT(HASH3, "convert", "golden.fpl", "-o", "-", "--from", "25ms", "--to", "45ms");
    CHECK_OUT(HASH3, "convert", "golden.fpl", "-o", "-", "--from", "0.025", "--to=0.045s");
    CHECK_OUT(HASH3, "convert", "golden.fpl", "-o", "-", "--from", "22:13:20.025", "--to",
              "2023-11-14T22:13:20.045");
    CHECK_OUT("com.example.App.hash;com.example.App.work;com.example.App.main 5\n", "convert",
              "golden.fpl", "-o", "-", "--reverse", "--include", "hash");
    /* both kinds weigh ns: 8.75 wall intervals of 50 ms */
    CHECK_OUT("[wall];java.lang.Thread.run;java.lang.Thread.sleep0;[sleeping] 437500000\n",
              "convert", "golden.fpl", "-o", "-", "--kind", "all", "--include", "sleep");
    CHECK_OUT("[wall];java.lang.Thread.run;java.lang.Thread.sleep0 437500000\n", "convert",
              "golden.fpl", "-o", "-", "--kind", "all", "--include", "sleep", "--no-states");

    /* a window past the end (or before the start) selects no sample of the log: an error that
     * names the bound as given and when the samples were, and nothing written (an empty
     * output would pass for a profile); one line, not also "no wall samples" (the kind an
     * empty selection resolves to) */
    char path[PATH_MAX + 32];
    cli_run_path(path, sizeof(path), "late.collapsed");
    struct cli_run r = CLI_RUN("convert", "golden.fpl", "-o", "late.collapsed", "--from", "5s");
    CHECK_EQ_U(r.code, 1);
    CHECK(cli_run_same(r.err, "flyprof: --from 5s is after the last sample of 'golden.fpl': its "
                              "samples span " GOLDEN_SPAN "; nothing written\n"));
    CHECK(access(path, F_OK) != 0);
    cli_run_free(&r);
    r = CLI_RUN("convert", "golden.fpl", "-o", "-", "--to", "22:13:19");
    CHECK_EQ_U(r.code, 1);
    CHECK(cli_run_same(r.out, ""));
    CHECK(cli_run_has(r.err, "flyprof: --to 22:13:19 is before the first sample of 'golden.fpl'"));
    cli_run_free(&r);
    r = CLI_RUN("diff", "golden.fpl", "golden.fpl", "-o", "late.html", "--from", "2min");
    CHECK_EQ_U(r.code, 1);
    CHECK(cli_run_has(r.err, "flyprof: --from 2min is after the last sample of 'golden.fpl'"));
    cli_run_free(&r);
    cli_run_path(path, sizeof(path), "late.html");
    CHECK(access(path, F_OK) != 0);
    r = CLI_RUN("convert", "golden.fpl", "-o", "-", "--include", "nomatch");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_same(r.out, ""));
    CHECK(cli_run_has(r.err, "no cpu samples match the selection"));
    cli_run_free(&r);
    r = CLI_RUN("convert", "golden.fpl", "-o", "-", "--kind", "cpu", "--state", "parked");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_same(r.out, ""));
    CHECK(cli_run_has(r.err, "no cpu samples match the selection"));
    cli_run_free(&r);
}

static void test_formats(void)
{
    char path[PATH_MAX + 32];
    struct cli_run r = CLI_RUN("convert", "golden.fpl", "-o", "r.txt", "--title", "Golden & co");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_same(r.err, ""));
    cli_run_free(&r);
    cli_run_path(path, sizeof(path), "r.txt");
    char *text = slurp(path);
    CHECK(text && strncmp(text, "Golden & co\n", 12) == 0);
    CHECK(cli_run_has(text, "Top 6 of 6 methods by self weight:"));
    CHECK(cli_run_has(text, " 33.33%  33.33%            5        com.example.App.hash\n"));
    free(text);

    r = CLI_RUN("convert", "golden.fpl", "-o", "-", "--format", "txt", "--kind", "wall",
                "--threads");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_has(r.out, "wall profile of java -jar app.jar (pid 4242), 2.00 s, 7 samples\n"));
    CHECK(cli_run_has(r.out, "[sleeping]"));
    cli_run_free(&r);

    /* the html and pprof writers, chosen by extension: a page and a gzip stream */
    const char *outs[] = {"r.html", "r.pb.gz"};
    for (int i = 0; i < 2; i++) {
        r = CLI_RUN("convert", "golden.fpl", "-o", outs[i]);
        cli_run_path(path, sizeof(path), outs[i]);
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
        cli_run_free(&r);
    }
    r = CLI_RUN("convert", "golden.fpl", "-o", "r.data", "--format", "collapsed");
    CHECK_EQ_U(r.code, 0);
    cli_run_free(&r);
    cli_run_path(path, sizeof(path), "r.data");
    text = slurp(path);
    CHECK(text && cli_run_same(text, GOLDEN_CPU));
    free(text);
}

static void test_errors(void)
{
    CHECK_FAIL(2,
               "convert: unknown state 'bogus': use one of running, blocked, waiting, "
               "timed_waiting, parked, sleeping, native",
               "convert", "golden.fpl", "-o", "-", "--state", "bogus");
    CHECK_FAIL(2, "convert: unknown kind 'both': use cpu, wall, alloc, lock, live or all",
               "convert", "golden.fpl", "-o", "-", "--kind", "both");
    CHECK_FAIL(2, "unknown output format 'svg': use one of collapsed, html, jfr, pprof, txt", "convert",
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
    CHECK_FAIL(2, "convert: no output: add -o OUT (.collapsed, .folded, .html, .jfr, .pb.gz, .txt",
               "convert", "golden.fpl");

    /* a failed conversion leaves an existing output whole (and writes no temp file) */
    char path[PATH_MAX + 32];
    cli_run_path(path, sizeof(path), "keep.txt");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("keep me\n", f);
        fclose(f);
    }
    CHECK_FAIL(1, "cannot open 'missing.fpl'", "convert", "missing.fpl", "-o", "keep.txt");
    char *text = slurp(path);
    CHECK(text && cli_run_same(text, "keep me\n"));
    free(text);
    DIR *d = opendir(cli_run_dir);
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
    cli_run_path(path, sizeof(path), "d.html");
    CHECK(access(path, F_OK) != 0);

    struct cli_run r = CLI_RUN("diff", "golden.fpl", "golden.fpl", "-o", "d.html", "--threads");
    struct stat st;
    CHECK_EQ_U(r.code, 0);
    CHECK(stat(path, &st) == 0 && st.st_size > 0);
    cli_run_free(&r);

    r = CLI_RUN("help", "diff");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_has(r.out, "usage: flyprof diff BASE.fpl NEW.fpl -o DIFF.html [SELECTION]"));
    CHECK(cli_run_has(r.out, "--from T, --to T"));
    cli_run_free(&r);
    r = CLI_RUN("help", "convert");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_has(r.out, "--format FORMAT       collapsed, html, jfr, pprof or txt"));
    cli_run_free(&r);
}

int main(int argc, char **argv)
{
    char p[PATH_MAX + 32];
    struct fplgen g;
    int rc = cli_run_setup(argc, argv, "flyprof-render-cli");
    if (rc)
        return rc;
    cli_run_path(p, sizeof(p), "golden.fpl");
    rc = fplgen_init(&g);
    if (rc == 0 && (rc = golden_log_build(&g, 1)) == 0)
        rc = fplgen_save(&g, p);
    fplgen_destroy(&g);
    CHECK_EQ_U(rc, 0);
    test_selection();
    test_formats();
    test_errors();
    test_diff();
    cli_run_cleanup(harness_fail);
    return harness_result("test_render_cli");
}
