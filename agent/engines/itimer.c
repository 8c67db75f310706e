/* itimer.c: ITIMER_PROF engine. Control context only. */
#include "itimer.h"

#include <errno.h>
#include <stddef.h>
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

static int itimer_start(uint64_t interval_ns)
{
    /* the process has one ITIMER_PROF: if it runs, it is someone else's (ours is stopped
     * between sessions), and setting it would take it over */
    struct itimerval cur;
    if (getitimer(ITIMER_PROF, &cur) == 0 &&
        (cur.it_value.tv_sec || cur.it_value.tv_usec || cur.it_interval.tv_sec ||
         cur.it_interval.tv_usec))
        return -EBUSY;
    handler_set_itimer_period(interval_ns);
    return set(interval_ns);
}

static void itimer_stop(void)
{
    set(0);
    handler_set_itimer_period(0);
}

const struct cpu_engine itimer_engine = {
    .name = "itimer",
    .id = FPL_ENGINE_ITIMER,
    .handler = SIGNALS_CPU | SIGNALS_SIGPROF,
    .start = itimer_start,
    .busy = "engine=itimer: the process's ITIMER_PROF is already running for someone else "
            "(another profiler?); flyprof does not take it over. Use engine=cputimer or perf",
    .stop = itimer_stop,
};
