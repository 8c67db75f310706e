/* test_render_file.c: output files. The format from a name or an extension, and errors that
 * list what is accepted; atomic replacement (the old file stays whole when rendering fails,
 * no temporary file is left behind, the new file gets the usual umask-derived mode); folded
 * output with the render options (reverse, include, state, both kinds with threads); text by
 * format name; diffs only as html; the formats of the other writers, when built. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpl_format.h"
#include "fplgen.h"
#include "golden_log.h"
#include "harness.h"
#include "slurp.h"
#include "profile.h"
#include "render.h"
#include "render_file.h"

static const struct render_opts DEFAULTS = {.kind = PROFILE_KIND_AUTO,
                                            .state = RENDER_STATE_ALL};
static char dir[] = "/tmp/test_render_file.XXXXXX";

static struct profile *load_golden(void)
{
    struct fplgen g;
    struct profile *p = NULL;
    char err[256];
    size_t len;
    uint8_t *data = NULL;
    if (fplgen_init(&g) == 0 && golden_log_build(&g, 1) == 0)
        data = fplgen_bytes(&g, &len);
    fplgen_destroy(&g);
    if (data && (p = profile_new()) != NULL &&
        profile_read_mem(p, data, len, "golden.fpl", err, sizeof(err)) != 0) {
        profile_free(p);
        p = NULL;
    }
    free(data);
    return p;
}

static void path_in(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static int put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* Files in the scratch directory, besides the ones the test named. */
static int stray_files(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (strstr(e->d_name, ".tmp")) {
            fprintf(stderr, "stray file: %s\n", e->d_name);
            n++;
        }
    }
    closedir(d);
    return n;
}

static void check_format(const char *path, const char *format, int want)
{
    char err[512] = "";
    int got = render_file_format(path, format, err, sizeof(err));
    CHECK_EQ_U(got, want);
    if (got != want)
        fprintf(stderr, "format of %s/%s: %d (%s)\n", path, format ? format : "-", got, err);
}

static void check_format_error(const char *path, const char *format, const char *want)
{
    char err[512] = "";
    CHECK_EQ_U(render_file_format(path, format, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, want) != NULL);
    if (!strstr(err, want))
        fprintf(stderr, "format error: got [%s], want [%s]\n", err, want);
}

static void test_formats(void)
{
    check_format("x.collapsed", NULL, RENDER_FILE_COLLAPSED);
    check_format("a.b/x.folded", NULL, RENDER_FILE_COLLAPSED);
    check_format("x.txt", NULL, RENDER_FILE_TXT);
    check_format("/tmp/p.html", NULL, RENDER_FILE_HTML);
    check_format("p.pb.gz", NULL, RENDER_FILE_PPROF);
    check_format("-", NULL, RENDER_FILE_COLLAPSED);
    check_format("-", "txt", RENDER_FILE_TXT);
    check_format("x.out", "text", RENDER_FILE_TXT);
    check_format("x", "pprof", RENDER_FILE_PPROF);
    check_format("x.txt", "html", RENDER_FILE_HTML);
    check_format("x.txt", "folded", RENDER_FILE_COLLAPSED);
    check_format_error("x.gz", NULL,
                       "unknown output format '.gz' of 'x.gz': use one of .collapsed, .folded, "
                       ".html, .jfr, .pb.gz, .txt");
    check_format("x.jfr", NULL, RENDER_FILE_JFR);
    check_format("x", "jfr", RENDER_FILE_JFR);
    check_format_error("x.svg", NULL, "unknown output format '.svg'");
    check_format_error("x.pb.gz.bak", NULL, "unknown output format '.pb.gz.bak'");
    check_format_error("noext", NULL, "cannot tell the output format of 'noext' (no extension)");
    check_format_error("d.txt/noext", NULL, "of 'd.txt/noext' (no extension)");
    check_format_error(".txt", NULL, "(no extension)");
    check_format_error("x.txt", "svg",
                       "unknown output format 'svg': use one of collapsed, html, jfr, pprof, txt");
    check_format_error("x.txt", "", "unknown output format ''");
}

static void test_atomic(const struct profile *p)
{
    char out[256], err[512];
    struct render_opts o = DEFAULTS;
    struct stat st;

    path_in(out, sizeof(out), "out.collapsed");
    CHECK(put(out, "old\n") == 0);
    CHECK(chmod(out, 0600) == 0);
    umask(022);
    CHECK_EQ_U(render_file_write(p, &o, out, NULL, err, sizeof(err)), 0);
    char *got = slurp(out);
    CHECK(got && strcmp(got, GOLDEN_CPU) == 0);
    free(got);
    CHECK(stat(out, &st) == 0 && (st.st_mode & 0777) == 0644); /* a new file */
    CHECK_EQ_U(stray_files(), 0);

    /* a failure after the temporary file was made leaves the old output whole */
    CHECK(put(out, "old\n") == 0);
    o.include = "(";
    CHECK_EQ_U(render_file_write(p, &o, out, NULL, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "out.collapsed': render: bad include regex '('") != NULL);
    got = slurp(out);
    CHECK(got && strcmp(got, "old\n") == 0);
    free(got);
    CHECK_EQ_U(stray_files(), 0);
    o.include = NULL;

    /* bad names create nothing */
    char bad[256];
    path_in(bad, sizeof(bad), "out.svg");
    CHECK_EQ_U(render_file_write(p, &o, bad, NULL, err, sizeof(err)), -EINVAL);
    CHECK(access(bad, F_OK) != 0);
    path_in(bad, sizeof(bad), "no/such/dir/x.txt");
    CHECK_EQ_U(render_file_write(p, &o, bad, NULL, err, sizeof(err)), -ENOENT);
    CHECK(strstr(err, "cannot create '") && strstr(err, "no/such/dir/x.txt': No such file"));
    path_in(bad, sizeof(bad), "");
    CHECK_EQ_U(render_file_write(p, &o, bad, "txt", err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "not a file name") != NULL);
    CHECK_EQ_U(stray_files(), 0);

    /* text by format name, whatever the extension */
    path_in(out, sizeof(out), "report.out");
    o.title = "the title";
    CHECK_EQ_U(render_file_write(p, &o, out, "txt", err, sizeof(err)), 0);
    got = slurp(out);
    CHECK(got && strncmp(got, "the title\nkind:      cpu\n", 25) == 0);
    CHECK(got && strstr(got, "Call tree"));
    free(got);
}

/* Folded output through render_file with options; returns the text written. */
static char *folded(const struct profile *p, const struct render_opts *o)
{
    char out[256], err[512];
    path_in(out, sizeof(out), "f.folded");
    unlink(out);
    if (render_file_write(p, o, out, NULL, err, sizeof(err)) != 0) {
        fprintf(stderr, "folded: %s\n", err);
        return NULL;
    }
    return slurp(out);
}

static void check_folded(const struct profile *p, const struct render_opts *o, const char *want)
{
    char *got = folded(p, o);
    CHECK(got && strcmp(got, want) == 0);
    if (got && strcmp(got, want) != 0)
        fprintf(stderr, "folded: got\n%s\nwant\n%s\n", got, want);
    free(got);
}

static void test_folded(const struct profile *p)
{
    struct render_opts o = DEFAULTS;
    o.reverse = 1;
    check_folded(p, &o,
                 "[agct:unknown_Java] 1\n"
                 "[unknown stack] 1\n"
                 "com.example.App.fib;com.example.App.fib;com.example.App.fib;"
                 "com.foo.Bar$$Lambda.run;java.lang.Thread.run 4\n"
                 "com.example.App.hash;com.example.App.work;com.example.App.main 5\n"
                 "com.example.App.work;com.example.App.main 3\n"
                 "os::javaTimeNanos;[unknown];com.example.App.main 1\n");
    o.include = "fib|hash";
    check_folded(p, &o,
                 "com.example.App.fib;com.example.App.fib;com.example.App.fib;"
                 "com.foo.Bar$$Lambda.run;java.lang.Thread.run 4\n"
                 "com.example.App.hash;com.example.App.work;com.example.App.main 5\n");
    o = DEFAULTS;
    o.state = FPL_STATE_SLEEPING; /* the automatic kind becomes wall */
    check_folded(p, &o, "java.lang.Thread.run;java.lang.Thread.sleep0 9\n");
    o.state = FPL_STATE_RUNNING;
    check_folded(p, &o, "com.example.App.main;com.example.App.work;com.example.App.hash 6\n");
    o = DEFAULTS;
    o.kind = PROFILE_KIND_ALL;
    o.threads = 1;
    o.exclude = "unknown|fib"; /* the unknown thread's name, an [unknown] frame, fib */
    check_folded(p, &o,
                 "[cpu];main;com.example.App.main;com.example.App.work 20000000\n"
                 "[cpu];main;com.example.App.main;com.example.App.work;com.example.App.hash "
                 "50000000\n"
                 "[wall];main;com.example.App.main;com.example.App.work;com.example.App.hash;"
                 "[running] 287500000\n"
                 "[wall];pool-1_worker_2;java.lang.Thread.run;java.lang.Thread.sleep0;"
                 "[sleeping] 437500000\n");
    /* wall lines end in their state frame, as in the flame graph: first with reverse (below
     * the roots), none with no_states */
    o = DEFAULTS;
    o.kind = FPL_KIND_WALL;
    check_folded(p, &o, GOLDEN_WALL_STATES);
    o.reverse = 1;
    check_folded(p, &o,
                 "[running];com.example.App.hash;com.example.App.work;com.example.App.main 6\n"
                 "[sleeping];java.lang.Thread.sleep0;java.lang.Thread.run 9\n");
    o.reverse = 0;
    o.no_states = 1;
    check_folded(p, &o, GOLDEN_WALL);
}

static void test_other_formats(const struct profile *p)
{
    char out[256], err[512];
    struct render_opts o = DEFAULTS;
    struct stat st;
    const char *names[] = {"p.html", "p.pb.gz"};
    for (size_t i = 0; i < 2; i++) {
        path_in(out, sizeof(out), names[i]);
        CHECK_EQ_U(render_file_write(p, &o, out, NULL, err, sizeof(err)), 0);
        CHECK(stat(out, &st) == 0 && st.st_size > 0);
    }
    path_in(out, sizeof(out), "d.txt");
    CHECK_EQ_U(render_file_write_diff(p, p, &o, out, NULL, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "a diff is an html flame graph") != NULL);
    CHECK(access(out, F_OK) != 0);
    path_in(out, sizeof(out), "d.html");
    int rc = render_file_write_diff(p, p, &o, out, NULL, err, sizeof(err));
    CHECK(rc == 0 || rc == -ENOSYS);
    if (rc == 0)
        CHECK(stat(out, &st) == 0 && st.st_size > 0);
    CHECK_EQ_U(stray_files(), 0);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    struct profile *p = load_golden();
    CHECK(p != NULL);
    test_formats();
    if (p) {
        test_atomic(p);
        test_folded(p);
        test_other_formats(p);
    }
    profile_free(p);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return harness_result("test_render_file");
}
