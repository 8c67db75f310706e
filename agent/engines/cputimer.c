/* cputimer.c: per-thread CPU timers. Runs in JVMTI callbacks, control paths and the writer,
 * never in a signal handler. Which threads have a timer is tasks.c's business. */
#include "cputimer.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "counters.h"
#include "cpuclock.h"
#include "fpl_format.h"
#include "handler.h"
#include "signals.h"
#include "tasks.h"


/* 0: engine off. Relaxed: read under tasks.c's lock, which orders it. */
static _Atomic uint64_t interval;

static int cputimer_arm(int tid, union engine_thread *out)
{
    uint64_t ns = atomic_load_explicit(&interval, memory_order_relaxed);
    if (!ns)
        return -EINVAL;
    struct sigevent sev;
    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = signals_cpu_signo(); /* SIGPROF unless another library handles it */
    sev.sigev_value.sival_int = HANDLER_COOKIE;
    sev._sigev_un._tid = tid;
    timer_t t;
    if (timer_create(cpuclock_of(tid), &sev, &t) != 0)
        return errno == EINVAL ? -ESRCH : -errno; /* EINVAL: no such thread (any more) */
    struct itimerspec its;
    its.it_interval.tv_sec = (time_t)(ns / 1000000000ull);
    its.it_interval.tv_nsec = (long)(ns % 1000000000ull);
    its.it_value = its.it_interval;
    if (timer_settime(t, 0, &its, NULL) != 0) {
        int rc = -errno;
        timer_delete(t);
        return rc;
    }
    out->timer = t; /* a timer id of 0 is valid */
    return 0;
}

static void cputimer_disarm(union engine_thread *t)
{
    timer_delete(t->timer);
}

static int cputimer_enabled(const struct options *o)
{
    return engine_cpu_enabled(o, FPL_ENGINE_CPUTIMER);
}

static int cputimer_start(const struct engine_session *s, char *err, size_t errlen)
{
    atomic_store_explicit(&interval, s->o->cpu_interval_ns, memory_order_relaxed);
    int rc = tasks_start(&cputimer_engine);
    if (rc != 0)
        snprintf(err, errlen, "cannot start the CPU engine (engine=cputimer): %s", strerror(-rc));
    return rc;
}

static int cputimer_stop(const struct engine_session *s)
{
    (void)s;
    tasks_stop();
    atomic_store_explicit(&interval, 0, memory_order_relaxed);
    return 0;
}

const struct engine cputimer_engine = {
    .name = "cputimer",
    .id = FPL_ENGINE_CPUTIMER,
    .flags = ENGINE_EARLY | ENGINE_LATE,
    .signals = SIGNALS_CPU,
    .what = "CPU sampling",
    .enabled = cputimer_enabled,
    .start = cputimer_start,
    .stop = cputimer_stop,
    .thread_start = tasks_engine_thread_start,
    .thread_end = tasks_engine_thread_end,
    .arm = cputimer_arm,
    .disarm = cputimer_disarm,
};
