/* test_collector_cli.c: runs the flyprof binary given as argv[1] on generated logs and bad
 * input, and checks exit codes, outputs and that error messages name the problem. `record`
 * runs against a copy of the binary next to a stand-in agent library, with `sh` as the
 * command, so the JAVA_TOOL_OPTIONS it builds can be read back without a JVM. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_run.h"
#include "fpl_format.h"
#include "fplgen.h"
#include "golden_log.h"
#include "harness.h"
#include "slurp.h"

static void test_convert(void)
{
    struct cli_run r;
    char out[PATH_MAX + 32];

    r = CLI_RUN("convert", "golden.fpl", "-o", "g.collapsed");
    CHECK_EQ_U(r.code, 0);
    CHECK(strcmp(r.err, "") == 0);
    cli_run_free(&r);
    cli_run_path(out, sizeof(out), "g.collapsed");
    char *text = slurp(out);
    CHECK(text && strcmp(text, GOLDEN_CPU) == 0);
    free(text);

    r = CLI_RUN("convert", "golden.fpl", "--threads", "-o", "-");
    CHECK_EQ_U(r.code, 0);
    CHECK(strcmp(r.out, GOLDEN_CPU_THREADS) == 0);
    cli_run_free(&r);

    r = CLI_RUN("convert", "--kind", "wall", "golden.fpl", "--output=g.folded");
    CHECK_EQ_U(r.code, 0);
    cli_run_free(&r);
    cli_run_path(out, sizeof(out), "g.folded");
    text = slurp(out);
    CHECK(text && cli_run_same(text, GOLDEN_WALL_STATES));
    free(text);

    r = CLI_RUN("convert", "golden.fpl", "-o", "g.svg");
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "unknown output format '.svg' of 'g.svg': use one of .collapsed"));
    cli_run_free(&r);

    r = CLI_RUN("convert", "golden.fpl", "-o", "g");
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "cannot tell the output format of 'g' (no extension)"));
    cli_run_free(&r);

    r = CLI_RUN("convert", "golden.fpl", "-o", "g.out", "--format", "collapsed");
    CHECK_EQ_U(r.code, 0);
    cli_run_free(&r);

    r = CLI_RUN("convert", "golden.fpl", "-o", "g.collapsed", "--kind", "gpu");
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "unknown kind 'gpu'"));
    cli_run_free(&r);

    r = CLI_RUN("convert", "golden.fpl");
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "no output"));
    cli_run_free(&r);

    r = CLI_RUN("convert", "missing.fpl", "-o", "x.collapsed");
    CHECK_EQ_U(r.code, 1);
    CHECK(cli_run_has(r.err, "flyprof: cannot open 'missing.fpl': No such file or directory"));
    cli_run_free(&r);
    cli_run_path(out, sizeof(out), "x.collapsed");
    CHECK(access(out, F_OK) != 0); /* nothing created on failure */

    r = CLI_RUN("convert", "notes.txt", "-o", "x.collapsed");
    CHECK_EQ_U(r.code, 1);
    CHECK(cli_run_has(r.err, "'notes.txt': not a flyprof log"));
    cli_run_free(&r);

    r = CLI_RUN("convert", "v7.fpl", "-o", "x.collapsed");
    CHECK_EQ_U(r.code, 1);
    CHECK(cli_run_has(r.err, "'v7.fpl': unsupported version 7"));
    cli_run_free(&r);

    r = CLI_RUN("convert", "golden.fpl", "-o", "no/such/dir/x.collapsed");
    CHECK_EQ_U(r.code, 1);
    CHECK(cli_run_has(r.err, "cannot create 'no/such/dir/x.collapsed'"));
    cli_run_free(&r);

    /* a cut log converts, with a warning */
    r = CLI_RUN("convert", "cut.fpl", "-o", "-");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_has(r.err, "no END record"));
    CHECK(strlen(r.out) > 0);
    cli_run_free(&r);
}

static void test_summary_and_usage(void)
{
    struct cli_run r;

    r = CLI_RUN("summary", "golden.fpl");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_has(r.out, "flyprof summary of golden.fpl"));
    CHECK(cli_run_has(r.out, "14 samples, weight 15"));
    CHECK(cli_run_has(r.out, "com.example.App.hash"));
    CHECK(cli_run_has(r.out, "ring drops: 3"));
    cli_run_free(&r);

    /* --json: one line, the facts of the text; the golden log's numbers (the JSON is parsed
     * and cross-checked against the text on a real log by int_summary_json) */
    r = CLI_RUN("summary", "--json", "golden.fpl");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_same(r.err, ""));
    CHECK_EQ_U(cli_run_lines(r.out), 1);
    CHECK(r.out[0] == '{' && strlen(r.out) > 2 && strcmp(r.out + strlen(r.out) - 2, "}\n") == 0);
    CHECK(cli_run_has(r.out, "\"format\":\"flyprof-summary\",\"version\":1,"));
    CHECK(cli_run_has(r.out, "\"pid\":4242,"));
    CHECK(cli_run_has(r.out, "\"duration_ns\":2000000000,"));
    CHECK(cli_run_has(r.out, "\"interval_ns\":{\"cpu\":10000000,\"wall\":50000000}"));
    CHECK(cli_run_has(r.out, "\"cpu\":{\"samples\":14,\"weight\":15,\"weight_ns\":150000000,"
                             "\"failed_samples\":1,\"failed\":{\"[agct:unknown_Java]\":1}}"));
    CHECK(cli_run_has(r.out, "\"wall\":{\"samples\":7,\"weight\":14.5000,\"raw_weight\":7,"
                             "\"weight_ns\":725000000,"));
    CHECK(cli_run_has(r.out, "\"drops\":3,"));
    CHECK(cli_run_has(r.out,
                      "{\"name\":\"pool-1_worker_2\",\"tid\":101,\"cpu_ns\":50000000,"
                      "\"wall_ns\":437500000,\"wall_by_state_ns\":{\"sleeping\":437500000}}"));
    CHECK(cli_run_has(r.out, "\"tid\":null,"));
    CHECK(cli_run_has(r.out, "\"top_self\":[{\"method\":\"com.example.App.hash\",\"kind\":\"cpu\","
                             "\"weight\":5,\"weight_ns\":50000000,\"share\":0.333333}"));
    CHECK(cli_run_has(r.out, "{\"method\":\"java.lang.Thread.sleep0\",\"kind\":\"wall\","
                             "\"weight\":8.7500,\"weight_ns\":437500000,"));
    CHECK(cli_run_has(r.out, "\"log_state\":{\"complete\":true,"));
    cli_run_free(&r);
    r = CLI_RUN("summary", "--json", "cut.fpl");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_has(r.out, "\"log_state\":{\"complete\":false,"));
    CHECK(cli_run_has(r.out, "\"reasons\":[\"no_end\"]}"));
    cli_run_free(&r);
    r = CLI_RUN("summary", "--json", "golden.fpl");
    CHECK(cli_run_has(r.out, "\"reasons\":[]}"));
    cli_run_free(&r);

    /* the agent could not write two chunks (a full disk) and then wrote END: the log has its
     * END but is not complete, and says why */
    r = CLI_RUN("summary", "--json", "unwritten.fpl");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_has(r.out, "\"log_state\":{\"complete\":false,\"chunks\":3,"
                             "\"chunks_damaged\":0,\"chunks_lost\":2,\"bad_records\":0,"
                             "\"write_lost_chunks\":2,\"write_lost_samples\":37,"
                             "\"write_errno\":28,\"reasons\":[\"lost_chunks\",\"write_errors\"]}"));
    cli_run_free(&r);
    r = CLI_RUN("summary", "unwritten.fpl");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_has(r.out, "2 chunks (37 samples) lost: the agent could not write them (No "
                             "space left on device)"));
    CHECK(cli_run_has(r.out, "the log is incomplete"));
    CHECK(!cli_run_has(r.out, "cut off"));
    cli_run_free(&r);
    r = CLI_RUN("convert", "unwritten.fpl", "-o", "-");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_has(r.err, "the agent could not write 2 chunks of it (No space left on "
                             "device); their 37 samples are missing"));
    cli_run_free(&r);

    r = CLI_RUN("summary", "missing.fpl");
    CHECK_EQ_U(r.code, 1);
    CHECK(cli_run_has(r.err, "cannot open 'missing.fpl'"));
    cli_run_free(&r);

    r = CLI_RUN("summary");
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "no input log"));
    cli_run_free(&r);

    /* several logs are one profile (profile_read_files): the missing one is named */
    r = CLI_RUN("summary", "a.fpl", "b.fpl");
    CHECK_EQ_U(r.code, 1);
    CHECK(cli_run_has(r.err, "cannot open 'a.fpl'"));
    cli_run_free(&r);
}

/* A usage error: exit 2, the error on one line and one line pointing at the help, so the error
 * does not scroll away under a page of usage. */
static void check_usage_error(struct cli_run *r, const char *want, const char *hint)
{
    CHECK_EQ_U(r->code, 2);
    CHECK(cli_run_has(r->err, want));
    CHECK(cli_run_has(r->err, hint));
    CHECK_EQ_U(cli_run_lines(r->err), 2);
    CHECK(cli_run_same(r->out, ""));
    cli_run_free(r);
}

/* One rule for the units of every time option: a duration's bare number is seconds (-d), any
 * other time (an interval, a resolution, a threshold) needs a unit, and a bare number is
 * refused with the ways to write it that fit; every message quotes what was typed. */
static void test_units(void)
{
    struct cli_run r;

    /* -i 5 was 5 ns, passed on as cpu=5ns, which the agent refused as '5ns' */
    r = CLI_RUN("attach", "1", "-i", "5");
    check_usage_error(&r, "flyprof: attach: -i 5: give a unit, e.g. -i 5ms or -i 5s (units ns, "
                          "us, ms, s, min, h)\n",
                      "'flyprof help attach'");
    /* 5000000 was 5ms in ns: a bare number is no interval, whatever it is */
    r = CLI_RUN("record", "-i", "5000000", "--", "true");
    check_usage_error(&r, "record: -i 5000000: give a unit, e.g. -i 5000000ns or -i 5000000us",
                      "'flyprof help record'");
    r = CLI_RUN("start", "1", "-e", "cpu,wall", "--wall", "20");
    check_usage_error(&r, "start: --wall 20: give a unit, e.g. --wall 20ms", "'flyprof help start'");
    /* out of range: said by the CLI, quoting the text typed (not the agent's "50000ns") */
    r = CLI_RUN("attach", "1", "-i", "50000ns");
    check_usage_error(&r, "attach: bad interval '50000ns' for -i: it must be from 100us to",
                      "'flyprof help attach'");
    /* fractions and every unit are one grammar; pid 1 is no JVM: it fails there, exit 1 */
    static const char *const good[] = {"1.5ms", "0.5s", "250us", "1min"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        r = CLI_RUN("attach", "1", "-i", good[i], "-d", "1");
        CHECK_EQ_U(r.code, 1);
        CHECK(strstr(r.err, "interval") == NULL);
        cli_run_free(&r);
    }

    /* jitter: -d is a duration (seconds), -r, -t, --knee and --min need a unit; each is
     * refused before any thread spins (a later bad --bins stops a good -d) */
    r = CLI_RUN("jitter", "-d", "2", "--bins", "1");
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "--bins: '1' is not a number"));
    CHECK(strstr(r.out, "gaps between") == NULL);
    cli_run_free(&r);
    r = CLI_RUN("jitter", "-r", "100");
    check_usage_error(&r, "jitter: -r 100: give a unit, e.g. -r 100ms", "'flyprof help jitter'");
    r = CLI_RUN("jitter", "-t", "300");
    check_usage_error(&r, "jitter: -t 300: give a unit, e.g. -t 300ns or -t 300us",
                      "'flyprof help jitter'");
    r = CLI_RUN("jitter", "--knee", "50");
    check_usage_error(&r, "jitter: --knee 50: give a unit, e.g. --knee 50ns",
                      "'flyprof help jitter'");
    r = CLI_RUN("jitter", "--min", "10");
    check_usage_error(&r, "jitter: --min 10: give a unit, e.g. --min 10ns",
                      "'flyprof help jitter'");
    r = CLI_RUN("jitter", "-r", "5ms");
    check_usage_error(&r, "jitter: bad report interval '5ms' for -r: it must be from 10ms to",
                      "'flyprof help jitter'");

    /* the help says the rule */
    r = CLI_RUN("help", "jitter");
    CHECK(cli_run_has(r.out, "only DURATION takes a\nbare number, in seconds"));
    CHECK(strstr(r.out, "bare number is ns") == NULL);
    cli_run_free(&r);
    r = CLI_RUN("help", "record");
    CHECK(cli_run_has(r.out, "-i, --interval TIME   the sampling interval (cpu; wall with -e wall): "
                             "a number and a\n"));
    cli_run_free(&r);
}

static void test_help(void)
{
    static const char *const cmds[] = {"record", "attach",  "start", "stop",    "dump",  "status",
                                       "list",   "convert", "diff",  "summary", "events"};
    struct cli_run r, r2;

    /* the overview: every command on one line, short enough for a terminal */
    r = CLI_RUN("--help");
    CHECK_EQ_U(r.code, 0);
    CHECK(cli_run_lines(r.out) <= 25);
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char line[64];
        snprintf(line, sizeof(line), "\n  %-9s ", cmds[i]);
        CHECK(cli_run_has(r.out, line));
    }
    CHECK(cli_run_has(r.out, "flyprof help COMMAND"));
    r2 = CLI_RUN("help");
    CHECK(r2.code == 0 && cli_run_same(r2.out, r.out));
    cli_run_free(&r2);
    r2 = CLI_RUN("-h");
    CHECK(r2.code == 0 && cli_run_same(r2.out, r.out));
    cli_run_free(&r2);
    cli_run_free(&r);

    /* per command: usage, options, an example; `help CMD` and `CMD --help` alike */
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char want[64];
        r = CLI_RUN("help", cmds[i]);
        CHECK_EQ_U(r.code, 0);
        snprintf(want, sizeof(want), "usage: flyprof %s", cmds[i]);
        CHECK(strncmp(r.out, want, strlen(want)) == 0);
        CHECK(cli_run_has(r.out, "\nexample"));
        CHECK(cli_run_lines(r.out) <= 40);
        snprintf(want, sizeof(want), "\n  flyprof %s ", cmds[i]);
        CHECK(cli_run_has(r.out, want) || strcmp(cmds[i], "list") == 0);
        r2 = CLI_RUN(cmds[i], "--help");
        CHECK(r2.code == 0 && cli_run_same(r2.out, r.out));
        cli_run_free(&r2);
        cli_run_free(&r);
    }

    r = CLI_RUN("--version");
    CHECK_EQ_U(r.code, 0);
    CHECK(strncmp(r.out, "flyprof ", 8) == 0 && strspn(r.out + 8, "0123456789.") >= 5);
    CHECK_EQ_U(cli_run_lines(r.out), 1);
    cli_run_free(&r);

    r = CLI_RUN("frobnicate");
    check_usage_error(&r, "flyprof: unknown command 'frobnicate'", "'flyprof help'");
    r = cli_run_prog(cli_run_bin, cli_run_dir, (char *)NULL);
    check_usage_error(&r, "flyprof: no command given", "'flyprof help'");
    r = CLI_RUN("help", "frobnicate");
    check_usage_error(&r, "unknown command 'frobnicate'", "'flyprof help'");
    r = CLI_RUN("convert", "golden.fpl");
    check_usage_error(&r, "convert: no output", "'flyprof help convert'");
    r = CLI_RUN("convert", "golden.fpl", "-o", "-", "--kind", "gpu");
    check_usage_error(&r, "unknown kind 'gpu'", "'flyprof help convert'");
    r = CLI_RUN("diff", "golden.fpl");
    check_usage_error(&r, "diff: needs two logs", "'flyprof help diff'");
    r = CLI_RUN("summary", "--bogus", "golden.fpl");
    check_usage_error(&r, "summary: unknown option '--bogus'", "'flyprof help summary'");
    r = CLI_RUN("record", "-o", "x.fpl");
    check_usage_error(&r, "record: no command", "'flyprof help record'");
    r = CLI_RUN("attach", "-d", "5");
    check_usage_error(&r, "attach: which JVM?", "'flyprof help attach'");
    r = CLI_RUN("stop", "12x");
    check_usage_error(&r, "stop: '12x' is not a process id", "'flyprof help stop'");
    r = CLI_RUN("dump", "1", "-x");
    check_usage_error(&r, "dump: unknown option '-x'", "'flyprof help dump'");
    r = CLI_RUN("status");
    check_usage_error(&r, "status: which JVM?", "'flyprof help status'");
    r = CLI_RUN("start", "1", "-e", "gpu");
    check_usage_error(&r, "start: unknown event 'gpu'", "'flyprof help start'");
    r = CLI_RUN("list", "x");
    check_usage_error(&r, "list: unexpected argument 'x'", "'flyprof help list'");
    r = CLI_RUN("start", "1", "-i", "5ms", "cpu=2ms");
    check_usage_error(&r, "start: the sampling modes are given twice", "'flyprof help start'");
    r = CLI_RUN("attach", "1", "--wall", "5 ms");
    check_usage_error(&r, "attach: bad interval '5 ms' for --wall", "'flyprof help attach'");

    /* -d takes seconds or a time with a unit; pid 1 is never a JVM here, so a -d that parses
     * fails later, at the target, with exit 1 */
    static const char *const good[] = {"5", "2.5", "5s", "500ms", "2min", "1h", "250000us"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        r = CLI_RUN("attach", "1", "-d", good[i]);
        CHECK_EQ_U(r.code, 1);
        CHECK(strstr(r.err, "bad duration") == NULL);
        cli_run_free(&r);
    }
    static const char *const bad[] = {"0", "-1", "5x", "s", "1e3", "0x10", "400d", "0.0000000001"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char want[64];
        r = CLI_RUN("start", "1", "-d", bad[i]);
        snprintf(want, sizeof(want), "start: bad duration '%s' for -d", bad[i]);
        check_usage_error(&r, want, "'flyprof help start'");
    }

    test_units();
}

/* Copies the binary to <root>/bin/flyprof; with lib set, puts a stand-in agent library in
 * <root>/lib. Returns 0 on success. */
static int make_install(const char *root, int lib, char *flyprof, size_t cap)
{
    char cmd[3 * PATH_MAX + 64];
    snprintf(flyprof, cap, "%s/bin/flyprof", root);
    snprintf(cmd, sizeof(cmd), "mkdir -p '%s/bin' '%s/lib' && cp '%s' '%s'%s%s%s", root, root,
             cli_run_bin, flyprof, lib ? " && : > '" : "", lib ? root : "",
             lib ? "/lib/libflyprof.so'" : "");
    return system(cmd);
}

static void test_record(void)
{
    char root[PATH_MAX + 16], fly[PATH_MAX + 32], lib[PATH_MAX + 64], want[4 * PATH_MAX];
    char jto[PATH_MAX + 32], real_dir[PATH_MAX], real_root[PATH_MAX + 16];
    struct cli_run r;

    cli_run_path(root, sizeof(root), "inst");
    CHECK(make_install(root, 1, fly, sizeof(fly)) == 0);
    CHECK(realpath(cli_run_dir, real_dir) != NULL);
    CHECK(realpath(root, real_root) != NULL);
    snprintf(lib, sizeof(lib), "%s/lib/libflyprof.so", real_root);
    cli_run_path(jto, sizeof(jto), "jto.txt");

    /* defaults; an existing JAVA_TOOL_OPTIONS is kept; the command's exit code comes back */
    setenv("JAVA_TOOL_OPTIONS", "-Xmx64m", 1);
    r = cli_run_prog(fly, cli_run_dir, "record", "--", "sh", "-c",
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
    CHECK(cli_run_has(r.err, "warning: no profile at"));
    cli_run_free(&r);

    /* both kinds, an interval, extra agent options; the "profile" the command writes (at %p =
     * its pid) is found */
    r = cli_run_prog(fly, cli_run_dir, "record", "-e", "cpu,wall", "-i", "5ms", "-o", "out-%p.fpl",
                     "-a", "threads", "--agent-options=depth=64", "--", "sh", "-c",
                     "printf '%s' \"$JAVA_TOOL_OPTIONS\" > jto.txt; : > out-$$.fpl", (char *)NULL);
    CHECK_EQ_U(r.code, 0);
    snprintf(want, sizeof(want),
             "-agentpath:%s=cpu=5ms,wall=50ms,file=%s/out-%%p.fpl,threads,depth=64", lib, real_dir);
    got = slurp(jto);
    CHECK(got && strcmp(got, want) == 0);
    if (got && strcmp(got, want) != 0)
        fprintf(stderr, "JAVA_TOOL_OPTIONS: got [%s], want [%s]\n", got, want);
    free(got);
    CHECK(cli_run_has(r.err, "flyprof: profile written to "));
    CHECK(cli_run_has(r.err, "/out-"));
    /* -i went to cpu only, and flyprof says which interval each mode got */
    CHECK(cli_run_has(r.err, "flyprof: recording cpu every 5ms, wall every 50ms (-i sets the cpu "
                             "interval; --wall TIME sets the wall one)\n"));
    cli_run_free(&r);

    /* --wall sets the wall interval (and turns wall sampling on); -i with -e wall alone is the
     * wall interval */
    r = cli_run_prog(fly, cli_run_dir, "record", "-i", "2ms", "--wall", "20ms", "--", "sh", "-c",
                     "printf '%s' \"$JAVA_TOOL_OPTIONS\" > jto.txt", (char *)NULL);
    CHECK_EQ_U(r.code, 0);
    snprintf(want, sizeof(want), "-agentpath:%s=cpu=2ms,wall=20ms,file=%s/flyprof-%%p.fpl", lib,
             real_dir);
    got = slurp(jto);
    CHECK(got && cli_run_same(got, want));
    free(got);
    CHECK(cli_run_has(r.err, "flyprof: recording cpu every 2ms, wall every 20ms\n"));
    cli_run_free(&r);
    r = cli_run_prog(fly, cli_run_dir, "record", "-e", "wall", "-i", "30000us", "--", "sh", "-c",
                     "printf '%s' \"$JAVA_TOOL_OPTIONS\" > jto.txt", (char *)NULL);
    CHECK_EQ_U(r.code, 0);
    snprintf(want, sizeof(want), "-agentpath:%s=wall=30ms,file=%s/flyprof-%%p.fpl", lib, real_dir);
    got = slurp(jto);
    CHECK(got && cli_run_same(got, want));
    free(got);
    CHECK(cli_run_has(r.err, "flyprof: recording wall every 30ms\n"));
    cli_run_free(&r);
    r = cli_run_prog(fly, cli_run_dir, "record", "-e", "cpu", "--wall", "20ms", "--", "true",
                     (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "-e cpu leaves wall-clock sampling off: use -e cpu,wall"));
    cli_run_free(&r);

    /* the first '--' ends flyprof's options: the command's own '--' and what follows are its
     * arguments, verbatim (they were taken for agent options and a command 'extra') */
    r = cli_run_prog(fly, cli_run_dir, "record", "-o", "x.fpl", "--", "sh", "-c",
                     "printf '%s|' \"$@\" > args.txt; printf '%s' \"$JAVA_TOOL_OPTIONS\" > jto.txt",
                     "sh", "-cp", ".", "App", "--", "extra", "--", (char *)NULL);
    CHECK_EQ_U(r.code, 0);
    CHECK(strstr(r.err, "cannot run") == NULL);
    cli_run_free(&r);
    char args[PATH_MAX + 32];
    cli_run_path(args, sizeof(args), "args.txt");
    got = slurp(args);
    CHECK(got && cli_run_same(got, "-cp|.|App|--|extra|--|"));
    free(got);
    snprintf(want, sizeof(want), "-agentpath:%s=cpu=10ms,file=%s/x.fpl", lib, real_dir);
    got = slurp(jto);
    CHECK(got && cli_run_same(got, want));
    free(got);
    /* the old form (agent options between two '--') now runs 'threads': said how to write it */
    r = cli_run_prog(fly, cli_run_dir, "record", "--", "threads", "--", "true", (char *)NULL);
    CHECK_EQ_U(r.code, 127);
    CHECK(cli_run_has(r.err, "cannot run 'threads': No such file or directory (everything after "
                             "the first '--' is the command, as given; agent options go in "
                             "--agent-options)"));
    cli_run_free(&r);
    r = cli_run_prog(fly, cli_run_dir, "record", "-a", "depth=64,file=y.fpl", "--", "true",
                     (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "--agent-options depth=64,file=y.fpl: the output is -o's"));
    cli_run_free(&r);
    r = cli_run_prog(fly, cli_run_dir, "record", "-a", "stop", "--", "true", (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "agent option 'stop' is not allowed here"));
    cli_run_free(&r);

    r = cli_run_prog(fly, cli_run_dir, "record", "-o", "a,b.fpl", "--", "true", (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "contains a comma"));
    cli_run_free(&r);

    r = cli_run_prog(fly, cli_run_dir, "record", "-e", "gpu", "--", "true", (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "unknown event 'gpu'"));
    cli_run_free(&r);
    r = cli_run_prog(fly, cli_run_dir, "record", "-e", "alloc,gpu,lock", "--", "true",
                     (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "unknown event 'gpu': use cpu, wall, alloc, lock"));
    cli_run_free(&r);
    r = cli_run_prog(fly, cli_run_dir, "record", "-e", "lock,cpu,lock", "--", "true",
                     (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "event 'lock' is named twice in 'lock,cpu,lock'"));
    cli_run_free(&r);
    r = cli_run_prog(fly, cli_run_dir, "record", "-e", "live,heap", "--", "true", (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "unknown event 'heap': use cpu, wall, alloc, lock, live"));
    cli_run_free(&r);
    r = cli_run_prog(fly, cli_run_dir, "record", "-e", "alloc", "-i", "5ms", "--", "true",
                     (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "-i sets the cpu or wall interval, but -e alloc names neither"));
    cli_run_free(&r);

    r = cli_run_prog(fly, cli_run_dir, "record", "-i", "10 parsecs", "--", "true", (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "bad interval '10 parsecs'"));
    cli_run_free(&r);

    r = cli_run_prog(fly, cli_run_dir, "record", "-o", "x.fpl", (char *)NULL);
    CHECK_EQ_U(r.code, 2);
    CHECK(cli_run_has(r.err, "no command"));
    cli_run_free(&r);

    r = cli_run_prog(fly, cli_run_dir, "record", "--", "/nonexistent/java", (char *)NULL);
    CHECK_EQ_U(r.code, 127);
    CHECK(cli_run_has(r.err, "cannot run '/nonexistent/java'"));
    cli_run_free(&r);

    /* a SIGTERM sent to flyprof reaches the command, whose exit code comes back */
    char ready[PATH_MAX + 16];
    cli_run_path(ready, sizeof(ready), "ready");
    unlink(ready);
    char *argv[] = {fly,  "record", "--",
                    "sh", "-c",     "trap 'exit 42' TERM; : > ready; while :; do sleep 0.02; done",
                    NULL};
    pid_t pid = cli_run_start(cli_run_dir, argv);
    for (int i = 0; i < 1000 && access(ready, F_OK) != 0; i++)
        usleep(10000);
    CHECK(access(ready, F_OK) == 0);
    kill(pid, SIGTERM);
    r = cli_run_finish(pid);
    CHECK_EQ_U(r.code, 42);
    cli_run_free(&r);

    /* no agent library next to the binary */
    char bare[PATH_MAX + 16], fly2[PATH_MAX + 32];
    cli_run_path(bare, sizeof(bare), "bare");
    CHECK(make_install(bare, 0, fly2, sizeof(fly2)) == 0);
    r = cli_run_prog(fly2, cli_run_dir, "record", "--", "true", (char *)NULL);
    CHECK_EQ_U(r.code, 1);
    CHECK(cli_run_has(r.err, "agent library not found at '"));
    CHECK(cli_run_has(r.err, "/bare/bin/../lib/libflyprof.so'"));
    cli_run_free(&r);
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
    cli_run_path(p, sizeof(p), "golden.fpl");
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
    cli_run_path(p, sizeof(p), "cut.fpl");
    rc = fplgen_write_file(p, d, cut);
    free(d);
    if (rc)
        return rc;
    /* the golden log, two chunks the agent could not write (their numbers skipped), then a
     * chunk with its counters and END */
    if ((rc = fplgen_init(&g)) != 0 || (rc = golden_log_build(&g, 0)) != 0)
        return rc;
    g.seq += 2;
    struct reader_counter lost[] = {{FPL_CTR_WRITE_LOST_CHUNKS, 2},
                                    {FPL_CTR_WRITE_LOST_SAMPLES, 37},
                                    {FPL_CTR_WRITE_ERRNO, ENOSPC}};
    fplgen_counters(&g, 3, lost);
    fplgen_end(&g, GOLDEN_ANCHOR_TICKS + 3 * GOLDEN_TPS);
    cli_run_path(p, sizeof(p), "unwritten.fpl");
    if ((rc = fplgen_flush(&g)) == 0)
        rc = fplgen_save(&g, p);
    fplgen_destroy(&g);
    if (rc)
        return rc;
    cli_run_path(p, sizeof(p), "notes.txt");
    if ((rc = fplgen_write_file(p, "some notes, not a log\n", 22)) != 0)
        return rc;
    cli_run_path(p, sizeof(p), "v7.fpl");
    return fplgen_write_file(p, v7, sizeof(v7));
}

int main(int argc, char **argv)
{
    int rc = cli_run_setup(argc, argv, "flyprof-cli");
    if (rc)
        return rc;
    CHECK(make_inputs() == 0);
    test_convert();
    test_summary_and_usage();
    test_help();
    test_record();
    cli_run_cleanup(harness_fail);
    return harness_result("test_collector_cli");
}
