/* cputimer.c: per-thread CPU timers. Runs in JVMTI callbacks and control paths, never in a
 * signal handler. Timer bookkeeping lives in the thread registry entries, under its lock. */
#include "cputimer.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "counters.h"
#include "fpl_format.h"
#include "handler.h"

/* The kernel's per-thread CPU clock id: CPUCLOCK_SCHED of thread tid (see clock_getcpuclockid
 * and pthread_getcpuclockid, which do the same for the caller / a pthread_t). */
#define THREAD_CPUCLOCK(tid) ((~(clockid_t)(tid) << 3) | 6)

static _Atomic uint64_t interval;   /* 0: engine off. Read under the registry lock. */

void cputimer_thread_start(struct threads_entry *e)
{
    uint64_t ns = atomic_load_explicit(&interval, memory_order_relaxed);
    if (!ns || e->has_timer)
        return;
    struct sigevent sev;
    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = handler_cpu_signo(); /* SIGPROF unless another library handles it */
    sev.sigev_value.sival_int = HANDLER_COOKIE;
    sev._sigev_un._tid = e->tid;
    timer_t t;
    if (timer_create(THREAD_CPUCLOCK(e->tid), &sev, &t) != 0) {
        counters_add_sigsafe(FPL_CTR_TIMER_ERRORS, 1);
        return;
    }
    struct itimerspec its;
    its.it_interval.tv_sec = (time_t)(ns / 1000000000ull);
    its.it_interval.tv_nsec = (long)(ns % 1000000000ull);
    its.it_value = its.it_interval;
    if (timer_settime(t, 0, &its, NULL) != 0) {
        counters_add_sigsafe(FPL_CTR_TIMER_ERRORS, 1);
        timer_delete(t);
        return;
    }
    e->timer = t; /* a timer id of 0 is valid: has_timer says whether it exists */
    e->has_timer = 1;
}

void cputimer_thread_end(struct threads_entry *e)
{
    if (e->has_timer) {
        timer_delete(e->timer);
        e->has_timer = 0;
    }
}

static void start_one(struct threads_entry *e, void *arg)
{
    (void)arg;
    cputimer_thread_start(e);
}

static void stop_one(struct threads_entry *e, void *arg)
{
    (void)arg;
    cputimer_thread_end(e);
}

int cputimer_start(uint64_t interval_ns)
{
    atomic_store_explicit(&interval, interval_ns, memory_order_relaxed);
    threads_foreach_live(start_one, NULL);
    return 0;
}

void cputimer_stop(void)
{
    atomic_store_explicit(&interval, 0, memory_order_relaxed);
    threads_foreach_live(stop_one, NULL);
}
