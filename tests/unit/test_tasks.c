/* test_tasks: the per-thread CPU samplers' table (agent/engines/tasks.c) with the cputimer engine,
 * outside any JVM, on a thread that burns CPU throughout:
 * - armed at the start, its CPU-time timer fires;
 * - after a ThreadEnd (tasks_thread_end) while it goes on running -- what JNI's
 *   DetachCurrentThread does to a native thread that called into Java -- the timer stops at
 *   once (an exiting thread is not re-armed: no timer fires in the first 100 ms), and is
 *   armed again by the scan due DETACHED_NS (200 ms) after: its CPU is sampled again. Before, a detached
 *   thread was never sampled again for the rest of the session.
 * The assertions count timer signals, not rates: at 10 ms of CPU per signal, a thread that
 * burns for a second and more gets tens of them, and none while disarmed. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "cputimer.h"
#include "handler.h"
#include "harness.h"
#include "options.h"
#include "signals.h"
#include "perf.h"
#include "tasks.h"
#include "writer.h"

struct counters counters;

int signals_cpu_signo(void)
{
    return SIGPROF;
}

/* the writer: tasks_refresh is called here every 20 ms instead */
void writer_wake(void)
{
}

static atomic_int burner_tid;
static atomic_long hits;
static atomic_int stop;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    if (si->si_code == SI_TIMER && (int)syscall(SYS_gettid) == atomic_load(&burner_tid))
        atomic_fetch_add(&hits, 1);
}

static void *burn(void *arg)
{
    (void)arg;
    atomic_store(&burner_tid, (int)syscall(SYS_gettid));
    volatile unsigned long x = 0;
    while (!atomic_load(&stop))
        x++;
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Calls tasks_refresh as the writer does, for secs; returns the timer signals meanwhile. */
static long run(double secs)
{
    long before = atomic_load(&hits);
    double end = now_s() + secs;
    while (now_s() < end) {
        tasks_refresh();
        usleep(20000);
    }
    return atomic_load(&hits) - before;
}

/* the session cputimer runs for: 10 ms of CPU per signal */
static struct options opts = {.cpu_interval_ns = 10000000};
static const struct engine_session session = {.o = &opts};

static char errbuf[256];

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    pthread_t th;
    pthread_create(&th, NULL, burn, NULL);
    while (!atomic_load(&burner_tid))
        usleep(1000);
    CHECK(cputimer_engine.start(&session, errbuf, sizeof(errbuf)) == 0); /* 10 ms of CPU per signal */

    long armed = run(0.5);
    tasks_thread_end(atomic_load(&burner_tid)); /* detached: ThreadEnd, the thread runs on */
    long exiting = run(0.1);                    /* before DETACHED_NS: left disarmed */
    run(0.3);                                   /* a scan after DETACHED_NS re-arms it */
    long again = run(1.0);
    printf("test_tasks: timer signals on the burning thread: %ld in 0.5 s armed, %ld in the "
           "0.1 s after its ThreadEnd, %ld in 1 s once armed again\n", armed, exiting, again);
    CHECK(armed >= 10);
    CHECK(exiting <= 1); /* one may have been queued when it was disarmed */
    CHECK(again >= 20);

    atomic_store(&stop, 1);
    pthread_join(th, NULL);
    cputimer_engine.stop(&session);
    return harness_result("test_tasks");
}
