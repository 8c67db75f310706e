/* test_tasks_reuse: a Java thread that starts on the tid of a thread that ended unseen is
 * armed (agent/engines/tasks.c, cputimer engine, outside any JVM).
 *
 * A thread armed by a scan of /proc/self/task (a native thread, or a Java thread past its
 * ThreadEnd when the events were enabled) can end with no ThreadEnd. Until the next scan
 * (up to a second) its entry stays armed, with a timer that died with it. A new Java thread
 * given the same tid meanwhile has its ThreadStart (tasks_thread_start) find that entry
 * "armed" and, before the fix, was never armed: the scans list its tid, which they know.
 *
 * The kernel hands tids out in a cycle, so the test makes the reuse happen: as root it writes
 * the tid before the old one to /proc/sys/kernel/ns_last_pid and creates the new thread,
 * again until the new thread gets the tid (another process may take it first). The new thread
 * calls tasks_thread_start on itself, as ThreadStart does, and burns CPU for a second while
 * the test calls tasks_refresh as the writer does: it must get its timer's signals (10 ms of
 * CPU each: dozens; before the fix, none). Without root (no ns_last_pid) it exits 77
 * (skipped), or fails under CI=true. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
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

void writer_wake(void)
{
}

static atomic_int want_tid;   /* the tid the new thread must have to be the reuse */
static atomic_int burner_tid; /* the thread whose timer signals are counted */
static atomic_long hits;
static atomic_int stop;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    if (si->si_code == SI_TIMER && (int)syscall(SYS_gettid) == atomic_load(&burner_tid))
        atomic_fetch_add(&hits, 1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The old thread: listed and armed by the scan, then ends without a ThreadEnd. */
static void *old_thread(void *arg)
{
    atomic_store(&want_tid, (int)syscall(SYS_gettid));
    while (!atomic_load((atomic_int *)arg))
        usleep(1000);
    return NULL;
}

/* A candidate for the new thread: when it got the old tid, it starts as a Java thread does
 * (tasks_thread_start on itself) and burns CPU; else it ends at once. */
static void *new_thread(void *arg)
{
    (void)arg;
    int tid = (int)syscall(SYS_gettid);
    if (tid != atomic_load(&want_tid))
        return (void *)0;
    atomic_store(&burner_tid, tid);
    tasks_thread_start(tid);
    volatile unsigned long x = 0;
    while (!atomic_load(&stop))
        x++;
    return (void *)1;
}

/* Sets the pid namespace's last handed-out pid (root only). Returns 0 or -errno. */
static int set_last_pid(int pid)
{
    int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    char buf[32];
    int n = snprintf(buf, sizeof(buf), "%d", pid);
    int rc = write(fd, buf, (size_t)n) == n ? 0 : -errno;
    close(fd);
    return rc;
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

    atomic_int old_done = 0;
    pthread_t old;
    pthread_create(&old, NULL, old_thread, &old_done);
    while (!atomic_load(&want_tid))
        usleep(1000);
    int tid = atomic_load(&want_tid);
    CHECK(cputimer_engine.start(&session, errbuf, sizeof(errbuf)) == 0); /* the scan arms every thread, the old one too */
    CHECK(tasks_armed() >= 2);
    atomic_store(&old_done, 1);
    pthread_join(old, NULL); /* ended: no ThreadEnd, its entry still armed */

    int rc = set_last_pid(tid - 1);
    if (rc != 0) {
        const char *ci = getenv("CI");
        printf("test_tasks_reuse: SKIP: cannot write /proc/sys/kernel/ns_last_pid (%s): needs "
               "root\n", strerror(-rc));
        cputimer_engine.stop(&session);
        return ci && !strcmp(ci, "true") ? 1 : 77;
    }
    pthread_t th;
    int reused = 0, tries = 0;
    double give_up = now_s() + 10;
    while (!reused && now_s() < give_up) {
        tries++;
        if (set_last_pid(tid - 1) != 0 || pthread_create(&th, NULL, new_thread, NULL) != 0)
            break;
        /* the candidate that got the tid burns until stop: check for it without joining */
        double seen = now_s() + 0.05;
        while (!atomic_load(&burner_tid) && now_s() < seen)
            usleep(1000);
        if (atomic_load(&burner_tid)) {
            reused = 1;
        } else {
            pthread_join(th, NULL);
            usleep(2000); /* the old tid may still be held while the old thread is reaped */
        }
    }
    printf("test_tasks_reuse: tid %d reused after %d thread creation(s): %s\n", tid, tries,
           reused ? "yes" : "no");
    CHECK(reused);
    if (reused) {
        long before = atomic_load(&hits);
        double end = now_s() + 1.0;
        while (now_s() < end) {
            tasks_refresh();
            usleep(20000);
        }
        long got = atomic_load(&hits) - before;
        printf("test_tasks_reuse: timer signals on the new thread in 1 s: %ld\n", got);
        CHECK(got >= 20);
        atomic_store(&stop, 1);
        pthread_join(th, NULL);
    }
    cputimer_engine.stop(&session);
    return harness_result("test_tasks_reuse");
}
