/* test_options.c: the agent option string: defaults, every key valid and invalid, the error
 * messages, TIME parsing, path expansion, and random input that must never crash. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fpl_format.h"
#include "harness.h"
#include "loopfiles.h"
#include "options.h"

#define MS 1000000ull
#define SEC 1000000000ull

static struct options o;
static char err[1024];

static int parse(const char *s)
{
    memset(&o, 0, sizeof(o));
    return options_parse(s, &o, err, sizeof(err));
}

/* Parses s, which must succeed; reports the input and message when it does not. */
#define OK(s) expect_ok(__LINE__, (s))
static int expect_ok(int line, const char *s)
{
    int rc = parse(s);
    if (rc != 0 || err[0] != '\0')
        fprintf(stderr, "line %d: options_parse(\"%s\") = %d: %s\n", line, s, rc, err);
    CHECK(rc == 0 && err[0] == '\0');
    return rc == 0;
}

/* Parses s, which must fail with a one-line message containing `want`, leaving *o untouched. */
#define ERR(s, want) expect_err(__LINE__, (s), (want), 0)
#define ERR_EXACT(s, want) expect_err(__LINE__, (s), (want), 1)
static void expect_err(int line, const char *s, const char *want, int exact)
{
    static struct options before;
    int rc, ok;

    memset(&o, 0x5a, sizeof(o));
    memcpy(&before, &o, sizeof(o));
    rc = options_parse(s, &o, err, sizeof(err));
    ok = rc == -EINVAL && (exact ? strcmp(err, want) == 0 : strstr(err, want) != NULL) &&
         !strchr(err, '\n') && memcmp(&o, &before, sizeof(o)) == 0;
    if (!ok)
        fprintf(stderr, "line %d: options_parse(\"%.80s\") = %d, err \"%s\", want \"%s\"\n", line,
                s, rc, err, want);
    CHECK(ok);
}

static void check_defaults(const struct options *d)
{
    CHECK_EQ_U(d->action, OPTIONS_START);
    CHECK_EQ_U(d->cpu_interval_ns, 10 * MS);
    CHECK_EQ_U(d->wall_interval_ns, 0);
    CHECK_EQ_U(d->engine, FPL_ENGINE_CPUTIMER);
    CHECK_EQ_U(d->wall_threads, 16);
    CHECK_EQ_U(d->filter, 0);
    CHECK_EQ_U(d->depth, 2048);
    CHECK(strcmp(d->file, "flyprof-%p.fpl") == 0);
    CHECK_EQ_U(d->file_given, 0);
    CHECK_EQ_U(d->threads, 0);
    CHECK_EQ_U(d->duration_ns, 0);
    CHECK_EQ_U(d->events, 32768);
    CHECK_EQ_U(d->event_wait_ns, 1000000000ull);
    CHECK_EQ_U(d->cstack, OPTIONS_CSTACK_AUTO);
}

static void test_defaults(void)
{
    struct options d;

    memset(&d, 0x5a, sizeof(d));
    options_defaults(&d);
    check_defaults(&d);
    CHECK(d.raw[0] == '\0');

    strcpy(err, "junk");
    CHECK(parse(NULL) == 0);
    check_defaults(&o);
    CHECK(o.raw[0] == '\0');
    CHECK(err[0] == '\0');

    CHECK(OK(""));
    check_defaults(&o);

    /* a single trailing comma is tolerated */
    CHECK(OK("cpu,"));
    CHECK_EQ_U(o.cpu_interval_ns, 10 * MS);
}

static void test_actions(void)
{
    static const struct {
        const char *s;
        enum options_action a;
    } cases[] = {
        {"start", OPTIONS_START},
        {"stop", OPTIONS_STOP},
        {"dump", OPTIONS_DUMP},
        {"status", OPTIONS_STATUS},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK(OK(cases[i].s));
        CHECK_EQ_U(o.action, cases[i].a);
        CHECK_EQ_U(o.cpu_interval_ns, 10 * MS); /* the mode default still applies */
    }
    CHECK(OK("dump,file=out.html"));
    CHECK_EQ_U(o.action, OPTIONS_DUMP);
    CHECK(strcmp(o.file, "out.html") == 0);

    ERR_EXACT("start,stop", "conflicting actions 'start' and 'stop'");
    ERR_EXACT("cpu,status,dump", "conflicting actions 'status' and 'dump'");
    ERR_EXACT("start,start", "duplicate option 'start'");
    ERR_EXACT("stop=now", "option 'stop' takes no value");
    ERR_EXACT("status=", "option 'status' takes no value");
    ERR("Start", "unknown option 'Start'");
}

static void test_modes(void)
{
    CHECK(OK("cpu"));
    CHECK_EQ_U(o.cpu_interval_ns, 10 * MS);
    CHECK_EQ_U(o.wall_interval_ns, 0);

    CHECK(OK("cpu=20ms"));
    CHECK_EQ_U(o.cpu_interval_ns, 20 * MS);
    CHECK_EQ_U(o.wall_interval_ns, 0);

    CHECK(OK("wall"));
    CHECK_EQ_U(o.cpu_interval_ns, 0);
    CHECK_EQ_U(o.wall_interval_ns, 50 * MS);

    CHECK(OK("wall=1s"));
    CHECK_EQ_U(o.cpu_interval_ns, 0);
    CHECK_EQ_U(o.wall_interval_ns, SEC);

    CHECK(OK("cpu,wall"));
    CHECK_EQ_U(o.cpu_interval_ns, 10 * MS);
    CHECK_EQ_U(o.wall_interval_ns, 50 * MS);

    CHECK(OK("wall=2ms,cpu=1ms"));
    CHECK_EQ_U(o.cpu_interval_ns, 1 * MS);
    CHECK_EQ_U(o.wall_interval_ns, 2 * MS);

    /* limits: 100us .. 1 day */
    CHECK(OK("cpu=100us"));
    CHECK_EQ_U(o.cpu_interval_ns, 100000);
    CHECK(OK("cpu=100000ns"));
    CHECK_EQ_U(o.cpu_interval_ns, 100000);
    CHECK(OK("cpu=1.5ms"));
    CHECK_EQ_U(o.cpu_interval_ns, 1500000);
    CHECK(OK("wall=0.25s"));
    CHECK_EQ_U(o.wall_interval_ns, 250 * MS);
    CHECK(OK("wall=1min"));
    CHECK_EQ_U(o.wall_interval_ns, 60 * SEC);
    CHECK(OK("wall=86400s"));
    CHECK_EQ_U(o.wall_interval_ns, 86400 * SEC);
    ERR_EXACT("cpu=99us", "bad value '99us' for cpu: the interval must be at least 100us");
    ERR("cpu=99999ns", "at least 100us");
    ERR("wall=0ms", "bad value '0ms' for wall: the interval must be at least 100us");
    ERR("wall=86401s", "bad value '86401s' for wall: the interval must be at most 1 day");
    ERR("cpu=99999999999999999999s", "'99999999999999999999s' for cpu: the interval must be at "
                                     "most 1 day");
    ERR("cpu=18446744073709551616ns", "at most 1 day");

    /* a bare number is no interval: refused with the ways to write it that fit the range */
    ERR_EXACT("cpu=5", "bad value '5' for cpu: give a unit, e.g. cpu=5ms or cpu=5s (units ns, "
                       "us, ms, s, min, h)");
    ERR_EXACT("cpu=500000", "bad value '500000' for cpu: give a unit, e.g. cpu=500000ns or "
                            "cpu=500000us (units ns, us, ms, s, min, h)");
    ERR("wall=2.5", "bad value '2.5' for wall: give a unit, e.g. wall=2.5ms or wall=2.5s");
    ERR_EXACT("wall=0", "bad value '0' for wall: give a unit (units ns, us, ms, s, min, h)");
    ERR("cpu=18446744073709551616", "bad value '18446744073709551616' for cpu: give a unit");

    ERR_EXACT("cpu=fast", "bad value 'fast' for cpu: expected a number and a unit such as 10ms "
                          "(units ns, us, ms, s, min, h)");
    ERR("wall=", "bad value '' for wall: expected a number and a unit");
    ERR("cpu=10 ms", "bad value '10 ms' for cpu");
    ERR("cpu=-10ms", "bad value '-10ms' for cpu");
    ERR("cpu=1m", "bad value '1m' for cpu");
    ERR("cpu=1.5.ms", "bad value '1.5.ms' for cpu");
    ERR("cpu=.ms", "bad value '.ms' for cpu");
    ERR("cpu=1e3us", "bad value '1e3us' for cpu");
    ERR("cpu=10MS", "bad value '10MS' for cpu");
    ERR("wall=10ms=5", "bad value '10ms=5' for wall");
    ERR_EXACT("cpu,cpu=5ms", "duplicate option 'cpu'");
    ERR_EXACT("wall=5ms,cpu,wall", "duplicate option 'wall'");
}

static void test_engine(void)
{
    CHECK(OK("engine=cputimer"));
    CHECK_EQ_U(o.engine, FPL_ENGINE_CPUTIMER);
    CHECK(OK("engine=itimer"));
    CHECK_EQ_U(o.engine, FPL_ENGINE_ITIMER);
    CHECK(OK("cpu=1ms,engine=perf"));
    CHECK_EQ_U(o.engine, FPL_ENGINE_PERF);
    CHECK_EQ_U(o.cpu_interval_ns, 1 * MS);

    ERR_EXACT("engine=foo", "engine=foo: expected cputimer, itimer or perf");
    ERR("engine=PERF", "engine=PERF: expected");
    ERR("engine=perf2", "engine=perf2: expected");
    ERR("engine=cpu", "engine=cpu: expected");
    ERR_EXACT("engine", "option 'engine' needs a value (engine=cputimer|itimer|perf)");
    ERR("engine=", "option 'engine' needs a value");
    ERR_EXACT("engine=perf,engine=perf", "duplicate option 'engine'");
}

static void test_cstack(void)
{
    CHECK(OK("cstack=off"));
    CHECK_EQ_U(o.cstack, OPTIONS_CSTACK_OFF);
    CHECK(OK("cstack=auto,cpu=5ms"));
    CHECK_EQ_U(o.cstack, OPTIONS_CSTACK_AUTO);
    CHECK_EQ_U(o.cpu_interval_ns, 5 * MS);
    CHECK(OK("wall,cstack=off"));
    CHECK_EQ_U(o.cstack, OPTIONS_CSTACK_OFF);
    CHECK_EQ_U(o.cpu_interval_ns, 0);

    ERR_EXACT("cstack=on", "cstack=on: expected auto or off");
    ERR("cstack=OFF", "cstack=OFF: expected auto or off");
    ERR("cstack=autox", "cstack=autox: expected");
    ERR("cstack=of", "cstack=of: expected");
    ERR_EXACT("cstack", "option 'cstack' needs a value (cstack=auto|off)");
    ERR("cstack=", "option 'cstack' needs a value");
    ERR_EXACT("cstack=off,cstack=auto", "duplicate option 'cstack'");
}

static void test_counts(void)
{
    CHECK(OK("wallthreads=1"));
    CHECK_EQ_U(o.wall_threads, 1);
    CHECK(OK("wall,wallthreads=1024"));
    CHECK_EQ_U(o.wall_threads, 1024);
    CHECK(OK("wallthreads=007"));
    CHECK_EQ_U(o.wall_threads, 7);
    ERR_EXACT("wallthreads=0", "bad value '0' for wallthreads: expected N from 1 to 1024");
    ERR("wallthreads=1025", "bad value '1025' for wallthreads");
    ERR("wallthreads=-1", "bad value '-1' for wallthreads");
    ERR("wallthreads=abc", "bad value 'abc' for wallthreads");
    ERR("wallthreads=4x", "bad value '4x' for wallthreads");
    ERR("wallthreads=99999999999999999999999", "bad value '99999999999999999999999' for "
                                               "wallthreads");
    ERR("wallthreads=4294967297", "bad value '4294967297'"); /* 2^32 + 1 must not wrap to 1 */
    ERR_EXACT("wallthreads", "option 'wallthreads' needs a value (wallthreads=N)");

    CHECK(OK("depth=1"));
    CHECK_EQ_U(o.depth, 1);
    CHECK(OK("depth=8192"));
    CHECK_EQ_U(o.depth, 8192);
    ERR_EXACT("depth=0", "bad value '0' for depth: expected N from 1 to 8192");
    ERR("depth=8193", "bad value '8193' for depth");
    ERR("depth=+5", "bad value '+5' for depth");
    ERR("depth= 5", "bad value ' 5' for depth");
    ERR("depth=", "option 'depth' needs a value");

    CHECK(OK("events=0"));
    CHECK_EQ_U(o.events, 0);
    CHECK(OK("events=64"));
    CHECK_EQ_U(o.events, 64);
    CHECK(OK("events=16777216"));
    CHECK_EQ_U(o.events, 16777216);
    CHECK(OK("events=1000"));
    CHECK_EQ_U(o.events, 1000);
    ERR_EXACT("events=63", "bad value '63' for events: expected 0 (off) or N from 64 to 16777216 "
                           "(events per thread buffer, 16 bytes each)");
    ERR("events=16777217", "bad value '16777217' for events");
    ERR("events=4294967360", "bad value '4294967360' for events"); /* 2^32 + 64: no wrap */
    ERR("events=-1", "bad value '-1' for events");
    ERR("events=1k", "bad value '1k' for events");
    ERR_EXACT("events", "option 'events' needs a value (events=N)");
    ERR_EXACT("events=64,events=64", "duplicate option 'events'");
    CHECK(OK("eventwait=0ns"));
    CHECK_EQ_U(o.event_wait_ns, 0);
    CHECK(OK("eventwait=250ms"));
    CHECK_EQ_U(o.event_wait_ns, 250000000ull);
    CHECK(OK("eventwait=10s"));
    CHECK_EQ_U(o.event_wait_ns, 10000000000ull);
    ERR("eventwait=11s", "bad value '11s' for eventwait: the wait must be from 0ns (never wait)");
    ERR("eventwait=5", "bad value '5' for eventwait: give a unit");
    ERR_EXACT("eventwait", "option 'eventwait' needs a value (eventwait=TIME)");
}

static void test_walk(void)
{
    CHECK(OK("cpu"));
    CHECK_EQ_U(o.walk_agct, 0);
    CHECK(OK("walk=agct"));
    CHECK_EQ_U(o.walk_agct, 1);
    CHECK(OK("walk=vm,cpu=1ms"));
    CHECK_EQ_U(o.walk_agct, 0);
    CHECK(OK("walk=check"));
    CHECK_EQ_U(o.walk_agct, 2);
    ERR_EXACT("walk=rbp", "walk=rbp: expected vm (HotSpot's structures, AsyncGetCallTrace where "
                          "they do not say), agct (AsyncGetCallTrace alone) or check (both, "
                          "counting where they differ)");
    ERR("walk=AGCT", "walk=AGCT: expected vm");
    ERR("walk=agct ", "walk=agct : expected vm");
    ERR("walk=checks", "walk=checks: expected vm");
    ERR_EXACT("walk", "option 'walk' needs a value (walk=vm|agct|check)");
    ERR_EXACT("walk=vm,walk=agct", "duplicate option 'walk'");
}

static void test_flags(void)
{
    CHECK(OK("filter"));
    CHECK_EQ_U(o.filter, 1);
    CHECK_EQ_U(o.threads, 0);
    CHECK(OK("threads"));
    CHECK_EQ_U(o.threads, 1);
    CHECK_EQ_U(o.filter, 0);
    CHECK(OK("wall,filter,threads"));
    CHECK_EQ_U(o.filter, 1);
    CHECK_EQ_U(o.threads, 1);
    ERR_EXACT("filter=1", "option 'filter' takes no value");
    ERR_EXACT("threads=", "option 'threads' takes no value");
    ERR_EXACT("filter,filter", "duplicate option 'filter'");
}

static void test_file(void)
{
    static char buf[OPTIONS_FILE_MAX + 64];

    CHECK(OK("file=profile.html"));
    CHECK(strcmp(o.file, "profile.html") == 0);
    CHECK_EQ_U(o.file_given, 1);

    CHECK(OK("file=a=b"));
    CHECK(strcmp(o.file, "a=b") == 0);

    CHECK(OK("file=/tmp/%p-%t.collapsed"));
    CHECK(strcmp(o.file, "/tmp/%p-%t.collapsed") == 0); /* expanded later, not here */

    CHECK(OK("file=\xc3\xa9t\xc3\xa9.fpl"));
    CHECK(strcmp(o.file, "\xc3\xa9t\xc3\xa9.fpl") == 0);

    ERR_EXACT("file", "option 'file' needs a value (file=PATH)");
    ERR_EXACT("file=", "option 'file' needs a value (file=PATH)");
    ERR("file=a,b", "unknown option 'b'"); /* a comma always separates options */
    ERR_EXACT("file=a,file=b", "duplicate option 'file'");

    /* longest path that fits: OPTIONS_FILE_MAX - 1 bytes */
    memcpy(buf, "file=", 5);
    memset(buf + 5, 'x', OPTIONS_FILE_MAX - 1);
    buf[5 + OPTIONS_FILE_MAX - 1] = '\0';
    CHECK(OK(buf));
    CHECK_EQ_U(strlen(o.file), OPTIONS_FILE_MAX - 1);
    buf[5 + OPTIONS_FILE_MAX - 1] = 'x';
    buf[5 + OPTIONS_FILE_MAX] = '\0';
    ERR(buf, "is too long: 1024 bytes, at most 1023");
    ERR(buf, "file='xxxxxxxx");
}

static void test_duration(void)
{
    CHECK(OK("duration=30s"));
    CHECK_EQ_U(o.duration_ns, 30 * SEC);
    /* a bare number is seconds, as the CLI's -d reads it */
    CHECK(OK("duration=3"));
    CHECK_EQ_U(o.duration_ns, 3 * SEC);
    CHECK(OK("duration=2.5"));
    CHECK_EQ_U(o.duration_ns, 2500 * MS);
    CHECK(OK("duration=1ns"));
    CHECK_EQ_U(o.duration_ns, 1);
    CHECK(OK("duration=1h"));
    CHECK_EQ_U(o.duration_ns, 3600 * SEC);
    CHECK(OK("duration=2min"));
    CHECK_EQ_U(o.duration_ns, 120 * SEC);
    CHECK(OK("duration=31536000s"));
    CHECK_EQ_U(o.duration_ns, 31536000ull * SEC);
    CHECK(OK("duration=31536000"));
    CHECK_EQ_U(o.duration_ns, 31536000ull * SEC);
    ERR_EXACT("duration=0", "bad value '0' for duration: expected a TIME greater than 0");
    ERR("duration=0s", "greater than 0");
    ERR("duration=0.0000000001", "greater than 0");
    ERR("duration=31536001s", "bad value '31536001s' for duration: at most 365 days");
    ERR("duration=31536001", "bad value '31536001' for duration: at most 365 days");
    ERR("duration=99999999999999999999999", "at most 365 days");
    ERR_EXACT("duration=1d", "bad value '1d' for duration: expected seconds (30, 2.5) or a number "
                             "and a unit such as 500ms or 2min (units ns, us, ms, s, min, h)");
    ERR_EXACT("duration", "option 'duration' needs a value (duration=TIME)");
}

static void test_hiccup(void)
{
    CHECK(OK("cpu"));
    CHECK_EQ_U(o.hiccup_ns, 0);
    CHECK_EQ_U(o.stall_ns, 0);
    CHECK(OK("hiccup"));
    CHECK_EQ_U(o.hiccup_ns, 1 * MS);
    CHECK_EQ_U(o.stall_ns, 5 * MS);
    CHECK_EQ_U(o.cpu_interval_ns, 10 * MS); /* hiccup is not a sampling mode: cpu stays on */
    CHECK(OK("hiccup=250us,stall=20ms,wall"));
    CHECK_EQ_U(o.hiccup_ns, 250000);
    CHECK_EQ_U(o.stall_ns, 20 * MS);
    CHECK_EQ_U(o.cpu_interval_ns, 0);
    CHECK(OK("stall=2ms")); /* stall alone asks for hiccup mode */
    CHECK_EQ_U(o.hiccup_ns, 1 * MS);
    CHECK_EQ_U(o.stall_ns, 2 * MS);
    CHECK(OK("hiccup=1s"));
    ERR_EXACT("hiccup=99us",
              "bad value '99us' for hiccup: the resolution must be from 100us to 1s");
    ERR("hiccup=2s", "from 100us to 1s");
    ERR("hiccup=fast", "bad value 'fast' for hiccup: expected a number and a unit");
    ERR_EXACT("hiccup=1", "bad value '1' for hiccup: give a unit, e.g. hiccup=1ms or hiccup=1s "
                          "(units ns, us, ms, s, min, h)");
    ERR_EXACT("stall", "option 'stall' needs a value (stall=TIME)");
    ERR("stall=0ns", "bad value '0ns' for stall: the threshold must be above 0");
    ERR("stall=5", "bad value '5' for stall: give a unit, e.g. stall=5ms or stall=5us");
    ERR("hiccup,hiccup=2ms", "duplicate option 'hiccup'");
}

static void test_errors(void)
{
    static const char accepted[] =
        "(accepted: cpu[=TIME], wall[=TIME], engine=cputimer|itimer|perf, wallthreads=N, filter, "
        "depth=N, walk=vm|agct|check, file=PATH, log=PATH, threads, duration=TIME, events=N, "
        "eventwait=TIME, cstack=auto|off, idle, hiccup[=TIME], stall=TIME, loop=TIME, keep=N, "
        "alloc[=BYTES], live, lock[=TIME])";
    char want[512];
    char small[8];
    int rc;

    snprintf(want, sizeof(want), "unknown option 'cpuu' %s", accepted);
    ERR_EXACT("cpuu", want);
    ERR("cpu,wal=5ms", "unknown option 'wal'");
    ERR(" cpu", "unknown option ' cpu'");
    ERR("CPU", "unknown option 'CPU'");
    ERR("=5ms", "option '=5ms' has no name (accepted: cpu[=TIME],");
    /* the list offers only what a user gives: no action, no internal key */
    ERR("bogus", "(accepted: cpu");
    CHECK(strstr(err, "reply") == NULL && strstr(err, "safety") == NULL);
    CHECK(strstr(err, "start") == NULL && strstr(err, "status") == NULL);
    ERR("=", "option '=' has no name");

    ERR("cpu,,wall", "empty option (item 2)");
    ERR(",cpu", "empty option (item 1)");
    ERR(",", "empty option (item 1)");
    ERR("cpu,,", "empty option (item 2)");

    /* offending text is made printable and kept on one line */
    ERR("a\nb", "unknown option 'a\\x0ab'");
    ERR("cpu=\xff", "bad value '\\xff' for cpu");
    ERR("\xc3\xa9", "unknown option '\\xc3\\xa9'");
    ERR("x\\y", "unknown option 'x\\x5cy'");

    /* err: NULL, empty and tiny buffers, always NUL-terminated; o NULL */
    CHECK(options_parse("bogus", &o, NULL, 0) == -EINVAL);
    CHECK(options_parse("bogus", &o, NULL, 100) == -EINVAL);
    small[0] = 'z';
    CHECK(options_parse("bogus", &o, small, 0) == -EINVAL);
    CHECK(small[0] == 'z');
    CHECK(options_parse("bogus", &o, small, 1) == -EINVAL);
    CHECK(small[0] == '\0');
    memset(small, 'z', sizeof(small));
    CHECK(options_parse("bogus", &o, small, sizeof(small)) == -EINVAL);
    CHECK(strcmp(small, "unknown") == 0);
    rc = options_parse("cpu", NULL, err, sizeof(err));
    CHECK(rc == -EINVAL);
    CHECK(err[0] != '\0');
    CHECK(options_parse("cpu", &o, NULL, 0) == 0);
}

/* What the log shows: the user's options, without the action and the CLI's internal keys;
 * safety= stops like duration= unless duration= is given; idle stands alone. */
static void test_shown_safety_idle(void)
{
    CHECK(OK("start,cpu=5ms,file=/tmp/x.fpl,reply=/tmp/r,safety=40000ms,threads"));
    CHECK(strcmp(o.shown, "cpu=5ms,file=/tmp/x.fpl,threads") == 0);
    CHECK_EQ_U(o.duration_ns, 40000 * MS);
    CHECK(strcmp(o.reply, "/tmp/r") == 0);
    CHECK(OK("safety=40s,duration=3s"));
    CHECK_EQ_U(o.duration_ns, 3000 * MS);
    CHECK(strcmp(o.shown, "duration=3s") == 0);
    CHECK(OK("stop,file=/tmp/y.html"));
    CHECK(strcmp(o.shown, "file=/tmp/y.html") == 0);
    CHECK(OK(""));
    CHECK(strcmp(o.shown, "") == 0);
    ERR("safety=0", "bad value '0' for safety");
    CHECK(OK("safety=40"));
    CHECK_EQ_U(o.duration_ns, 40 * SEC);
    ERR("safety=", "option 'safety' needs a value");

    CHECK(OK("idle"));
    CHECK(o.idle == 1 && o.action == OPTIONS_START);
    CHECK(strcmp(o.shown, "idle") == 0);
    CHECK(OK("start,idle,reply=/tmp/r"));
    CHECK(o.idle == 1);
    CHECK(OK("cpu"));
    CHECK(o.idle == 0);
    ERR("idle,cpu=5ms", "idle loads the agent without profiling: it takes no other option");
    ERR("file=x.fpl,idle", "it takes no other option");
    ERR("idle=1", "option 'idle' takes no value");
}

static void test_raw_and_huge(void)
{
    const size_t big = 1u << 20;
    char *s = malloc(big + 16);
    size_t n;

    if (!s) {
        CHECK(!"malloc");
        return;
    }
    CHECK(OK("cpu=1ms,wall,threads"));
    CHECK(strcmp(o.raw, "cpu=1ms,wall,threads") == 0);

    /* a valid string longer than raw: raw keeps its first OPTIONS_FILE_MAX - 1 bytes */
    memcpy(s, "file=", 5);
    memset(s + 5, 'a', 1000);
    strcpy(s + 1005, ",cpu=10ms,wall=50ms,depth=100");
    n = strlen(s);
    CHECK(n > OPTIONS_FILE_MAX);
    CHECK(OK(s));
    CHECK_EQ_U(strlen(o.raw), OPTIONS_FILE_MAX - 1);
    CHECK(memcmp(o.raw, s, OPTIONS_FILE_MAX - 1) == 0);
    CHECK_EQ_U(o.depth, 100);
    CHECK_EQ_U(o.wall_interval_ns, 50 * MS);

    /* one megabyte key: the message quotes a prefix and fits in err */
    memset(s, 'a', big);
    s[big] = '\0';
    ERR(s, "unknown option 'aaaaaaaaaaaaaaaa");
    CHECK(strstr(err, "aaa...' (accepted:") != NULL);
    CHECK(strlen(err) < 512);

    /* one megabyte path */
    memcpy(s, "file=", 5);
    ERR(s, "bytes, at most 1023");
    CHECK(strstr(err, "1048571 bytes") != NULL);

    /* a megabyte of commas after a valid item */
    memcpy(s, "cpu", 3);
    memset(s + 3, ',', big - 3);
    ERR(s, "empty option (item 2)");

    /* many valid-looking items: the first duplicate stops it */
    s[0] = '\0';
    for (n = 0; n < 1000; n++)
        strcat(s, n ? ",depth=5" : "depth=5");
    ERR(s, "duplicate option 'depth'");
    free(s);
}

static void test_parse_time(void)
{
    static const struct {
        const char *s;
        int rc;
        uint64_t ns;
    } cases[] = {
        {"0", -EDOM, 0},
        {"123", -EDOM, 0},
        {"2.5", -EDOM, 0},
        {"5ns", 0, 5},
        {"5us", 0, 5000},
        {"5ms", 0, 5000000},
        {"5s", 0, 5000000000ull},
        {"2min", 0, 120000000000ull},
        {"1h", 0, 3600000000000ull},
        {"0s", 0, 0},
        {"007ms", 0, 7000000},
        {"1.5ms", 0, 1500000},
        {".5s", 0, 500000000},
        {"5.s", 0, 5000000000ull},
        {"0.0000000015s", 0, 2}, /* to the nearest ns, halves up */
        {"1.0000000004s", 0, 1000000000},
        {"18446744073709551615ns", 0, UINT64_MAX},
        {"18446744073s", 0, 18446744073000000000ull},
        {"18446744073709551616", -EDOM, 0},
        {"18446744073709551616ns", -ERANGE, 0},
        {"18446744074s", -ERANGE, 0},
        {"18446744073709552ms", -ERANGE, 0},
        {"99999999999999999999999999999999s", -ERANGE, 0},
        {"", -EINVAL, 0},
        {".", -EINVAL, 0},
        {"ms", -EINVAL, 0},
        {"s", -EINVAL, 0},
        {".s", -EINVAL, 0},
        {"-5ms", -EINVAL, 0},
        {"+5", -EINVAL, 0},
        {" 5", -EINVAL, 0},
        {"5 ", -EINVAL, 0},
        {"5 ms", -EINVAL, 0},
        {"5m", -EINVAL, 0},
        {"5sec", -EINVAL, 0},
        {"5MS", -EINVAL, 0},
        {"5mss", -EINVAL, 0},
        {"5.5.5ms", -EINVAL, 0},
        {"1e3ms", -EINVAL, 0},
        {"0x10", -EINVAL, 0},
        {"5ms5", -EINVAL, 0},
        {"5d", -EINVAL, 0},
        {"99999999999999999999999xyz", -EINVAL, 0}, /* garbage outranks overflow */
    };
    size_t i;
    uint64_t ns;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc;
        ns = 0xdeadbeef;
        rc = options_parse_time(cases[i].s, &ns);
        if (rc != cases[i].rc || (rc == 0 && ns != cases[i].ns))
            fprintf(stderr, "options_parse_time(\"%s\") = %d, %llu\n", cases[i].s, rc,
                    (unsigned long long)ns);
        CHECK(rc == cases[i].rc);
        if (rc == 0)
            CHECK_EQ_U(ns, cases[i].ns);
    }
    CHECK(options_parse_time(NULL, &ns) == -EINVAL);
    CHECK(options_parse_time("5ms", NULL) == -EINVAL);
}

static void test_expand_file(void)
{
    static const struct {
        const char *tmpl;
        int pid;
        const char *want;
    } cases[] = {
        {"flyprof-%p.fpl", 1234, "flyprof-1234.fpl"},
        {"%p%p", 7, "77"},
        {"%t.html", 1, "20231114-221320.html"},
        {"/tmp/%p/%t-%t", 42, "/tmp/42/20231114-221320-20231114-221320"},
        {"%%p", 1, "%p"},
        {"100%%", 1, "100%"},
        {"a%%%p", 12, "a%12"},
        {"%x%d%", 1, "%x%d%"},
        {"%", 1, "%"},
        {"%%%", 1, "%%"},
        {"plain", 1, "plain"},
        {"", 1, ""},
        {"%p", -1, "-1"},
        {"%p", 2147483647, "2147483647"},
    };
    char out[256], *tight;
    size_t i, n;

    setenv("TZ", "UTC0", 1);
    tzset();
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = options_expand_file(cases[i].tmpl, cases[i].pid, 1700000000L, out, sizeof(out));
        if (rc != 0 || strcmp(out, cases[i].want) != 0)
            fprintf(stderr, "expand(\"%s\") = %d \"%s\", want \"%s\"\n", cases[i].tmpl, rc, out,
                    cases[i].want);
        CHECK(rc == 0 && strcmp(out, cases[i].want) == 0);
    }
    CHECK(options_expand_file("%t", 1, 0, out, sizeof(out)) == 0);
    CHECK(strcmp(out, "19700101-000000") == 0);

    /* %t is local time: two hours east of UTC */
    setenv("TZ", "XYZ-2", 1);
    tzset();
    CHECK(options_expand_file("%t", 1, 1700000000L, out, sizeof(out)) == 0);
    CHECK(strcmp(out, "20231115-001320") == 0);
    setenv("TZ", "UTC0", 1);
    tzset();

    /* exact fit and one byte short, in heap buffers of exactly that size for ASan */
    n = strlen("flyprof-1234.fpl") + 1;
    tight = malloc(n);
    if (tight) {
        CHECK(options_expand_file("flyprof-%p.fpl", 1234, 0, tight, n) == 0);
        CHECK(strcmp(tight, "flyprof-1234.fpl") == 0);
        CHECK(options_expand_file("flyprof-%p.fpl", 12345, 0, tight, n) == -ENAMETOOLONG);
        CHECK(tight[0] == '\0');
        CHECK(options_expand_file("x%t", 1, 0, tight, n) == 0); /* 16 bytes + NUL */
        CHECK(options_expand_file("xy%t", 1, 0, tight, n) == -ENAMETOOLONG);
        free(tight);
    }
    CHECK(options_expand_file("", 1, 0, out, 1) == 0);
    CHECK(out[0] == '\0');
    CHECK(options_expand_file("a", 1, 0, out, 1) == -ENAMETOOLONG);
    CHECK(options_expand_file("a", 1, 0, out, 0) == -ENAMETOOLONG);
    CHECK(options_expand_file(NULL, 1, 0, out, sizeof(out)) == -EINVAL);
    CHECK(options_expand_file("a", 1, 0, NULL, 10) == -EINVAL);
    /* a time with no calendar date: an error, not garbage */
    {
        CHECK(options_expand_file("%t", 1, LONG_MAX, out, sizeof(out)) == -EINVAL);
        CHECK(options_expand_file("%p", 1, LONG_MAX, out, sizeof(out)) == 0);
    }
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* What any successful parse must satisfy, whatever the input. */
static int sane(const struct options *r, const char *s)
{
    size_t rawlen = strnlen(s, OPTIONS_FILE_MAX - 1);
    return r->action <= OPTIONS_STATUS && (r->cpu_interval_ns || r->wall_interval_ns) &&
           (!r->cpu_interval_ns || (r->cpu_interval_ns >= OPTIONS_MIN_INTERVAL_NS &&
                                    r->cpu_interval_ns <= OPTIONS_MAX_INTERVAL_NS)) &&
           (!r->wall_interval_ns || (r->wall_interval_ns >= OPTIONS_MIN_INTERVAL_NS &&
                                     r->wall_interval_ns <= OPTIONS_MAX_INTERVAL_NS)) &&
           r->engine >= FPL_ENGINE_CPUTIMER && r->engine <= FPL_ENGINE_PERF &&
           r->wall_threads >= 1 && r->wall_threads <= OPTIONS_MAX_WALL_THREADS && r->depth >= 1 &&
           r->depth <= OPTIONS_MAX_DEPTH && (r->filter | r->threads) <= 1 &&
           r->duration_ns <= OPTIONS_MAX_DURATION_NS &&
           (r->events == 0 ||
            (r->events >= OPTIONS_MIN_EVENTS && r->events <= OPTIONS_MAX_EVENTS)) &&
           strnlen(r->file, OPTIONS_FILE_MAX) > 0 && strnlen(r->file, OPTIONS_FILE_MAX) < OPTIONS_FILE_MAX && strlen(r->raw) == rawlen &&
           memcmp(r->raw, s, rawlen) == 0 && !strchr(r->file, ',');
}

static void test_random(void)
{
    /* clang-format off */
    static const char *const tok[] = {
        "start", "stop", "dump", "status", "cpu", "wall", "engine", "wallthreads", "filter",
        "depth", "file", "threads", "duration", "events", "=", "=", ",", ",", ",", "10ms",
        "100us", "1s", "64", "0", "1", "1024", "8192", "cputimer", "perf", "itimer", "%p", "%t", "%%", "%", "\xff",
        "\xc3\xa9", " ", "-", "99999999999999999999", "ns", "us", "ms", "s", "\n", "\\",
    };
    /* clang-format on */
    const size_t ntok = sizeof(tok) / sizeof(tok[0]);
    int iter, parse_bad = 0, parse_ok = 0, expand_bad = 0;
    char out[512];

    for (iter = 0; iter < 30000; iter++) {
        size_t cap = (rng() % 16 == 0) ? 4096 : 96, len = 0, errlen = rng() % 48;
        char *s = malloc(cap + 1), *e = malloc(errlen ? errlen : 1);
        struct options r;
        int rc;

        if (!s || !e) {
            free(s);
            free(e);
            CHECK(!"malloc");
            return;
        }
        while (len < cap && rng() % 24) {
            if (rng() % 4 == 0) {
                s[len++] = (char)(1 + rng() % 255); /* any byte but NUL */
            } else {
                const char *t = tok[rng() % ntok];
                size_t n = strlen(t);
                if (n > cap - len)
                    break;
                memcpy(s + len, t, n);
                len += n;
            }
        }
        s[len] = '\0';

        /* exact-size heap buffers so that ASan sees any overrun */
        rc = options_parse(s, &r, errlen ? e : NULL, errlen);
        if (rc == 0) {
            parse_ok++;
            if (!sane(&r, s) || (errlen && e[0] != '\0')) {
                if (!parse_bad++)
                    fprintf(stderr, "random: accepted but not sane: \"%s\"\n", s);
            }
        } else if (rc != -EINVAL || (errlen && (strnlen(e, errlen) == errlen || strchr(e, '\n') ||
                                                (errlen > 1 && !e[0])))) {
            if (!parse_bad++)
                fprintf(stderr, "random: rc %d bad message for \"%s\"\n", rc, s);
        }

        /* expansion: a tight buffer succeeds exactly when the roomy result fits */
        {
            size_t outlen = rng() % 40, want;
            char *t = malloc(outlen ? outlen : 1);
            int pid = (int)(rng() % 100000), rc2;
            long when = (long)(rng() % 4000000000ull);
            const char *tmpl = len < 200 ? s : "%p-%t";

            rc = options_expand_file(tmpl, pid, when, out, sizeof(out));
            rc2 = t ? options_expand_file(tmpl, pid, when, t, outlen) : 0;
            want = strlen(out);
            if (rc != 0 || (t && outlen > want && (rc2 != 0 || strcmp(t, out) != 0)) ||
                (t && outlen <= want && (rc2 != -ENAMETOOLONG || (outlen && t[0])))) {
                if (!expand_bad++)
                    fprintf(stderr, "random: expand(\"%s\", %zu) = %d/%d\n", tmpl, outlen, rc, rc2);
            }
            free(t);
        }
        free(s);
        free(e);
    }
    CHECK_EQ_U(parse_bad, 0);
    CHECK_EQ_U(expand_bad, 0);
    CHECK(parse_ok > 0); /* the generator does reach valid strings */
}

/* Flips bytes of valid strings: near-misses are where a parser slips. */
static void test_mutations(void)
{
    static const char *const seeds[] = {
        "cpu=1ms,wall=5ms,engine=perf,wallthreads=8,filter,depth=64,file=a=b,threads,duration=5s",
        "events=4096,cpu",
        "stop",
        "wall=100us,file=%p-%t.fpl",
    };
    int iter, bad = 0;
    char s[256], e[256];

    for (iter = 0; iter < 20000; iter++) {
        const char *seed = seeds[rng() % (sizeof(seeds) / sizeof(seeds[0]))];
        size_t len = strlen(seed), k, flips = 1 + rng() % 3;
        struct options r;
        int rc;

        memcpy(s, seed, len + 1);
        for (k = 0; k < flips; k++) {
            size_t at = rng() % len;
            switch (rng() % 3) {
            case 0:
                s[at] = (char)(1 + rng() % 255);
                break;
            case 1:
                s[at] = ",=0%"[rng() % 4];
                break;
            default:
                s[at] = '\0'; /* truncate */
                len = at ? at : 1;
                break;
            }
        }
        rc = options_parse(s, &r, e, sizeof(e));
        if ((rc == 0 && (!sane(&r, s) || e[0])) || (rc != 0 && (rc != -EINVAL || !e[0]))) {
            if (!bad++)
                fprintf(stderr, "mutation: \"%s\" rc %d: %s\n", s, rc, e);
        }
    }
    CHECK_EQ_U(bad, 0);
}

/* reply= is internal (the attach CLI's result file): parsed, but never advertised. */
static void test_reply(void)
{
    struct options ro;
    char msg[512];
    CHECK(options_parse("status,reply=/tmp/r.1", &ro, msg, sizeof(msg)) == 0);
    CHECK(strcmp(ro.reply, "/tmp/r.1") == 0);
    CHECK(ro.action == OPTIONS_STATUS);
    CHECK(options_parse("start", &ro, msg, sizeof(msg)) == 0);
    CHECK(ro.reply[0] == 0);
    CHECK(options_parse("reply", &ro, msg, sizeof(msg)) == -EINVAL);
    CHECK(strstr(msg, "reply") != NULL);
    CHECK(options_parse("bogus", &ro, msg, sizeof(msg)) == -EINVAL);
    CHECK(strstr(msg, "reply") == NULL);
    /* log= keeps the raw log next to a rendered output */
    CHECK(options_parse("file=p.html,log=/tmp/p.fpl", &ro, msg, sizeof(msg)) == 0);
    CHECK(strcmp(ro.log, "/tmp/p.fpl") == 0);
    CHECK(options_parse("log", &ro, msg, sizeof(msg)) == -EINVAL);
    CHECK(strstr(msg, "log=PATH") != NULL);
}

/* _faultevery= is test-only (forced faults inside the crash guard): parsed, never advertised. */
static void test_faultevery(void)
{
    struct options fo;
    char msg[512];
    CHECK(options_parse("start", &fo, msg, sizeof(msg)) == 0);
    CHECK_EQ_U(fo.fault_every, 0);
    CHECK(options_parse("cpu=1ms,_faultevery=2", &fo, msg, sizeof(msg)) == 0);
    CHECK_EQ_U(fo.fault_every, 2);
    CHECK(options_parse("_faultevery=0", &fo, msg, sizeof(msg)) == -EINVAL);
    CHECK(strstr(msg, "_faultevery") != NULL);
    CHECK(options_parse("_faultevery", &fo, msg, sizeof(msg)) == -EINVAL);
    CHECK(strstr(msg, "_faultevery=N") != NULL);
    CHECK(options_parse("bogus", &fo, msg, sizeof(msg)) == -EINVAL);
    CHECK(strstr(msg, "fault") == NULL);
}

/* loop= and keep=, %n, and loopfiles.c: the names of loop='s logs and keep='s deletions. */
static void test_loop(void)
{
    struct options lo;
    char msg[512];
    CHECK(options_parse("cpu", &lo, msg, sizeof(msg)) == 0);
    CHECK(lo.loop_ns == 0 && lo.keep == 0);
    CHECK(options_parse("loop=2s,keep=3", &lo, msg, sizeof(msg)) == 0);
    CHECK(lo.loop_ns == 2000000000ull && lo.keep == 3);
    CHECK(options_parse("loop=90", &lo, msg, sizeof(msg)) == 0); /* a bare number: seconds */
    CHECK(lo.loop_ns == 90000000000ull);
    CHECK(options_parse("loop=1h", &lo, msg, sizeof(msg)) == 0);
    CHECK(lo.loop_ns == 3600000000000ull);
    ERR("loop=500ms", "a log covers at least 1s");
    ERR("loop=abc", "bad value 'abc' for loop");
    ERR("loop", "option 'loop' needs a value (loop=TIME)");
    ERR("loop=2s,keep=0", "bad value '0' for keep: expected N from 1 to 1000000");
    ERR("keep=5", "keep=5 bounds the files of loop=: give loop=TIME too");

    char out[256];
    setenv("TZ", "UTC0", 1);
    tzset();
    CHECK(options_expand_file_seq("a-%n-%p.fpl", 7, 1700000000L, 12, out, sizeof(out)) == 0);
    CHECK(strcmp(out, "a-000012-7.fpl") == 0);
    CHECK(options_expand_file_seq("%n", 7, 0, 1234567, out, sizeof(out)) == 0);
    CHECK(strcmp(out, "1234567") == 0);
    CHECK(options_expand_file_seq("%%n%n", 7, 0, 1, out, sizeof(out)) == 0);
    CHECK(strcmp(out, "%n000001") == 0);
    CHECK(options_expand_file("x-%n.fpl", 7, 0, out, sizeof(out)) == 0); /* no number: kept */
    CHECK(strcmp(out, "x-%n.fpl") == 0);

    static const struct {
        const char *file, *want;
    } tm[] = {
        {"/tmp/x.fpl", "/tmp/x-%n.fpl"},
        {"/tmp/x.pb.gz", "/tmp/x-%n.pb.gz"},
        {"/tmp/x.y/z", "/tmp/x.y/z-%n"},
        {"/tmp/.hidden", "/tmp/.hidden-%n"},
        {"run-%t.html", "run-%t-%n.html"},
        {"run-%n.html", "run-%n.html"},
        {"run-%%n.html", "run-%%n-%n.html"},
    };
    for (size_t i = 0; i < sizeof(tm) / sizeof(tm[0]); i++) {
        CHECK(loopfiles_template(tm[i].file, out, sizeof(out)) == 0);
        if (strcmp(out, tm[i].want) != 0)
            fprintf(stderr, "loopfiles_template(\"%s\") = \"%s\", want \"%s\"\n", tm[i].file,
                    out, tm[i].want);
        CHECK(strcmp(out, tm[i].want) == 0);
    }
    char tight[8];
    CHECK(loopfiles_template("abcd.fpl", tight, sizeof(tight)) == -ENAMETOOLONG);

    /* keep=2 over five logs in a folder of our own: after each, only the newest two remain;
     * the names carry %t, so prune must rebuild each old name with its own start time */
    char dir[] = "/tmp/flyprof-loopfiles-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char tmpl[300], logt[300];
    snprintf(tmpl, sizeof(tmpl), "%s/o-%%t-%%n.collapsed", dir);
    snprintf(logt, sizeof(logt), "%s/l.fpl", dir);
    struct loopfiles lf = {0};
    CHECK(loopfiles_init(&lf, tmpl, logt, 9, 2) == 0);
    char outs[6][300], logs[6][300];
    for (int n = 1; n <= 5; n++) {
        CHECK(loopfiles_next(&lf, 1700000000L + 7 * n, outs[n], sizeof(outs[n]), logs[n],
                             sizeof(logs[n])) == 0);
        CHECK(lf.seq == n);
        FILE *f = fopen(outs[n], "w"), *g = fopen(logs[n], "w");
        CHECK(f && g);
        if (f)
            fclose(f);
        if (g)
            fclose(g);
        int deleted = loopfiles_prune(&lf);
        CHECK(deleted == (n > 2 ? 2 : 0));
        for (int k = 1; k <= n; k++) {
            int want = k > n - 2;
            CHECK((access(outs[k], F_OK) == 0) == want);
            CHECK((access(logs[k], F_OK) == 0) == want);
        }
    }
    CHECK(strstr(logs[3], "/l-000003.fpl") != NULL);
    CHECK(strstr(outs[1], "/o-20231114-221327-000001.collapsed") != NULL);
    for (int k = 4; k <= 5; k++) {
        unlink(outs[k]);
        unlink(logs[k]);
    }
    rmdir(dir);
    loopfiles_free(&lf);
}

/* alloc[=BYTES] and lock[=TIME]: defaults, units, limits, what they do to CPU sampling, and
 * errors that name what was wrong. */
static void test_alloc_lock(void)
{
    CHECK(OK("alloc"));
    CHECK_EQ_U(o.alloc, 1);
    CHECK_EQ_U(o.alloc_bytes, 512 * 1024);
    CHECK_EQ_U(o.cpu_interval_ns, 0); /* named alone: instead of cpu */
    CHECK_EQ_U(o.lock, 0);
    CHECK(OK("cpu,alloc=1m"));
    CHECK_EQ_U(o.alloc_bytes, 1u << 20);
    CHECK_EQ_U(o.cpu_interval_ns, 10 * MS);
    CHECK(OK("alloc=256k"));
    CHECK_EQ_U(o.alloc_bytes, 256 * 1024);
    CHECK(OK("alloc=2KiB"));
    CHECK_EQ_U(o.alloc_bytes, 2048);
    CHECK(OK("alloc=1GB"));
    CHECK_EQ_U(o.alloc_bytes, 1u << 30);
    CHECK(OK("alloc=100b"));
    CHECK_EQ_U(o.alloc_bytes, 100);
    CHECK(OK("alloc=0"));
    CHECK_EQ_U(o.alloc, 1);
    CHECK_EQ_U(o.alloc_bytes, 0);
    CHECK(OK("alloc=2147483647"));
    CHECK_EQ_U(o.alloc_bytes, 2147483647u);
    ERR_EXACT("alloc=abc", "bad value 'abc' for alloc: expected bytes, a number with an optional "
                           "unit k, m or g (e.g. alloc=512k)");
    ERR("alloc=2g", "bad value '2g' for alloc: at most 2147483647 bytes");
    ERR("alloc=12x", "bad value '12x' for alloc");
    ERR("alloc=1kbb", "bad value '1kbb' for alloc");
    ERR("alloc=bb", "bad value 'bb' for alloc");
    ERR("alloc=-1", "bad value '-1' for alloc");
    ERR("alloc=99999999999999999999999", "for alloc");
    ERR("alloc,alloc=1m", "duplicate option 'alloc'");

    CHECK(OK("lock"));
    CHECK_EQ_U(o.lock, 1);
    CHECK_EQ_U(o.lock_ns, 10000);
    CHECK_EQ_U(o.cpu_interval_ns, 0);
    CHECK_EQ_U(o.alloc, 0);
    CHECK(OK("lock=1ms,wall,alloc"));
    CHECK_EQ_U(o.lock_ns, MS);
    CHECK_EQ_U(o.wall_interval_ns, 50 * MS);
    CHECK_EQ_U(o.cpu_interval_ns, 0);
    CHECK(OK("cpu,wall,alloc,lock"));
    CHECK_EQ_U(o.cpu_interval_ns, 10 * MS);
    CHECK(o.alloc && o.lock);
    CHECK(OK("lock=0ns"));
    CHECK_EQ_U(o.lock_ns, 0);
    ERR("lock=10", "bad value '10' for lock: give a unit");
    ERR("lock=2s", "bad value '2s' for lock: the threshold must be from 0ns to 1s");
    ERR("lock=soon", "bad value 'soon' for lock");
    CHECK(OK("live"));
    CHECK(o.live && o.alloc && o.alloc_bytes == 512 * 1024 && !o.cpu_interval_ns);
    CHECK(OK("alloc=1m,live,cpu"));
    CHECK(o.live && o.alloc_bytes == (1u << 20) && o.cpu_interval_ns == 10 * MS);
    ERR("live=1", "option 'live' takes no value");
    /* the log shows them as given */
    CHECK(OK("alloc=1m,lock"));
    CHECK(strcmp(o.shown, "alloc=1m,lock") == 0);
}

int main(void)
{
    test_loop();
    test_faultevery();
    test_reply();
    test_defaults();
    test_actions();
    test_modes();
    test_engine();
    test_cstack();
    test_counts();
    test_walk();
    test_flags();
    test_file();
    test_duration();
    test_hiccup();
    test_alloc_lock();
    test_errors();
    test_shown_safety_idle();
    test_raw_and_huge();
    test_parse_time();
    test_expand_file();
    test_random();
    test_mutations();
    return harness_result("test_options");
}
