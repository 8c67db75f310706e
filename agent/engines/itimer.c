/* itimer.c: ITIMER_PROF engine. Control context only. */
#include "itimer.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "fpl_format.h"
#include "handler.h"
#include "signals.h"

static int set(uint64_t ns)
{
    struct itimerval v;
    v.it_interval.tv_sec = (time_t)(ns / 1000000000ull);
    v.it_interval.tv_usec = (suseconds_t)(ns % 1000000000ull / 1000);
    v.it_value = v.it_interval;
    return setitimer(ITIMER_PROF, &v, NULL) == 0 ? 0 : -errno;
}

static int itimer_enabled(const struct options *o)
{
    return engine_cpu_enabled(o, FPL_ENGINE_ITIMER);
}

static int itimer_start(const struct engine_session *s, char *err, size_t errlen)
{
    /* the process has one ITIMER_PROF: if it runs, it is someone else's (ours is stopped
     * between sessions), and setting it would take it over */
    struct itimerval cur;
    if (getitimer(ITIMER_PROF, &cur) == 0 &&
        (cur.it_value.tv_sec || cur.it_value.tv_usec || cur.it_interval.tv_sec ||
         cur.it_interval.tv_usec)) {
        snprintf(err, errlen,
                 "engine=itimer: the process's ITIMER_PROF is already running for someone else "
                 "(another profiler?); flyprof does not take it over. Use engine=cputimer or "
                 "perf");
        return -EBUSY;
    }
    handler_set_itimer_period(s->o->cpu_interval_ns);
    int rc = set(s->o->cpu_interval_ns);
    if (rc != 0)
        snprintf(err, errlen, "cannot start the CPU engine (engine=itimer): %s", strerror(-rc));
    return rc;
}

static int itimer_stop(const struct engine_session *s)
{
    (void)s;
    set(0);
    handler_set_itimer_period(0);
    return 0;
}

const struct engine itimer_engine = {
    .name = "itimer",
    .id = FPL_ENGINE_ITIMER,
    .flags = ENGINE_EARLY | ENGINE_LATE,
    .signals = SIGNALS_CPU | SIGNALS_SIGPROF, /* ITIMER_PROF only ever sends SIGPROF */
    .what = "CPU sampling",
    .enabled = itimer_enabled,
    .start = itimer_start,
    .stop = itimer_stop,
};
