/* tasks.c: a CPU sampler on every thread of the process (see tasks.h). Control, JVMTI
 * callbacks and the writer; never a signal handler. */
#include "tasks.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "engine.h"
#include "fpl_format.h"
#include "writer.h"

enum task_state {
    TASK_NEW,       /* not armed yet */
    TASK_ARMED,     /* its timer or perf event exists */
    TASK_FAILED,    /* arming failed (counted as a timer error); not retried */
    TASK_ENDED,     /* ThreadEnd ran: not armed again while this incarnation is exiting */
};

/* A thread still listed this long after its ThreadEnd is not exiting: it detached from the
 * JVM (JNI DetachCurrentThread posts ThreadEnd) and runs on as a native thread, so it is
 * armed again (tasks_refresh lists the threads then, whatever their count). An exiting thread
 * leaves the listing within milliseconds; one that takes longer is armed for a moment,
 * harmlessly. A new thread that reuses the tid meanwhile is armed by its ThreadStart if it
 * is a Java thread, else at most DETACHED_NS late: the kernel hands tids out in a cycle, so
 * that takes pid_max thread creations within DETACHED_NS. Nothing here reads /proc on a
 * ThreadEnd: it runs under the registry's lock, which every thread start and end takes. */
#define DETACHED_NS 200000000ull

struct task {
    int tid;
    int state;
    uint64_t ended_ns;  /* TASK_ENDED: when ThreadEnd ran (CLOCK_MONOTONIC) */
    union engine_thread h; /* the engine's sampler, when armed */
    uint32_t seen;      /* generation of the last scan that listed it */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const struct engine *engine; /* under lock; NULL: off */
static struct task *tasks;      /* under lock */
static size_t ntasks, captasks;
static int32_t *index_;         /* under lock: open addressing, task index + 1, 0 = empty */
static size_t capindex;         /* power of two, > 2 * ntasks */
static uint32_t gen;            /* under lock */
/* when a thread ended by ThreadEnd is due to be looked at again (DETACHED_NS after it), 0 if
 * none: set under lock, read by tasks_refresh (relaxed: a hint) */
static _Atomic uint64_t recheck_ns;
static int armed;               /* under lock */

static size_t slot_of(int tid)
{
    return ((uint32_t)tid * 2654435761u) & (capindex - 1);
}

static struct task *find(int tid)
{
    if (!capindex)
        return NULL;
    for (size_t i = slot_of(tid);; i = (i + 1) & (capindex - 1)) {
        int32_t k = index_[i];
        if (!k)
            return NULL;
        if (tasks[k - 1].tid == tid)
            return &tasks[k - 1];
    }
}

/* Rebuilds the index over tasks[0..ntasks), growing it as needed. Returns 0 or -ENOMEM. */
static int reindex(size_t want)
{
    size_t cap = capindex ? capindex : 256;
    while (cap < 2 * want + 2)
        cap *= 2;
    if (cap != capindex) {
        int32_t *p = calloc(cap, sizeof(*p));
        if (!p)
            return -ENOMEM;
        free(index_);
        index_ = p;
        capindex = cap;
    } else {
        memset(index_, 0, capindex * sizeof(*index_));
    }
    for (size_t t = 0; t < ntasks; t++) {
        size_t i = slot_of(tasks[t].tid);
        while (index_[i])
            i = (i + 1) & (capindex - 1);
        index_[i] = (int32_t)(t + 1);
    }
    return 0;
}

/* A new entry for tid (absent), or NULL when out of memory. */
static struct task *add(int tid)
{
    if (ntasks == captasks) {
        size_t cap = captasks ? captasks * 2 : 256;
        struct task *p = realloc(tasks, cap * sizeof(*p));
        if (!p)
            return NULL;
        tasks = p;
        captasks = cap;
    }
    if (2 * (ntasks + 1) + 2 > capindex && reindex(ntasks + 1) != 0)
        return NULL;
    struct task *t = &tasks[ntasks];
    memset(t, 0, sizeof(*t));
    t->tid = tid;
    t->seen = gen;
    size_t i = slot_of(tid);
    while (index_[i])
        i = (i + 1) & (capindex - 1);
    index_[i] = (int32_t)(++ntasks);
    return t;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void arm(struct task *t)
{
    int rc = engine && engine->arm ? engine->arm(t->tid, &t->h) : -EINVAL;
    if (rc < 0) {
        t->state = TASK_FAILED;
        /* a thread that ended between the listing and here is not an error */
        if (rc != -ESRCH && rc != -ENOENT)
            counters_add_sigsafe(FPL_CTR_TIMER_ERRORS, 1);
        return;
    }
    t->state = TASK_ARMED;
    armed++;
}

static void disarm(struct task *t)
{
    if (t->state != TASK_ARMED)
        return;
    engine->disarm(&t->h);
    t->state = TASK_FAILED;
    armed--;
}

/* Lists /proc/self/task: arms new threads, re-arms an ended thread still listed DETACHED_NS
 * after its ThreadEnd (it detached, or a native thread reuses its tid), forgets (and
 * disarms) threads no longer listed. Under lock. */
static int scan_locked(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -errno;
    gen++;
    uint64_t now = mono_ns(), recheck = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        int tid = atoi(de->d_name);
        struct task *t = find(tid);
        if (!t) {
            t = add(tid);
            if (!t)
                break;
            arm(t);
        } else if (t->state == TASK_ENDED && now - t->ended_ns >= DETACHED_NS) {
            arm(t);
        } else if (t->state == TASK_ENDED && (!recheck || t->ended_ns + DETACHED_NS < recheck)) {
            recheck = t->ended_ns + DETACHED_NS; /* still exiting, or not yet known */
        }
        t->seen = gen;
    }
    closedir(d);
    atomic_store_explicit(&recheck_ns, recheck, memory_order_relaxed);
    size_t j = 0;
    for (size_t i = 0; i < ntasks; i++) {
        if (tasks[i].seen != gen) {
            disarm(&tasks[i]);
            continue;
        }
        tasks[j++] = tasks[i];
    }
    if (j != ntasks) {
        ntasks = j;
        reindex(ntasks);
    }
    return 0;
}

static _Atomic uint64_t started_ns; /* tasks_start's time (relaxed: a hint for next_due) */

int tasks_start(const struct engine *eng)
{
    atomic_store_explicit(&started_ns, mono_ns(), memory_order_relaxed);
    pthread_mutex_lock(&lock);
    engine = eng;
    int rc = scan_locked();
    pthread_mutex_unlock(&lock);
    return rc;
}

void tasks_stop(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < ntasks; i++)
        disarm(&tasks[i]);
    ntasks = 0;
    if (capindex)
        memset(index_, 0, capindex * sizeof(*index_));
    engine = NULL;
    armed = 0;
    pthread_mutex_unlock(&lock);
}

void tasks_thread_start(int tid)
{
    pthread_mutex_lock(&lock);
    if (engine) {
        struct task *t = find(tid);
        if (!t)
            t = add(tid);
        /* ThreadStart runs on a live Java thread: arm it, whatever the entry says. ENDED is a
         * new thread reusing the tid, or the main thread's second start (DestroyJavaVM).
         * ARMED may be this very thread (a scan listed it before its ThreadStart; the main
         * thread's second start) or an earlier thread with this tid that ended unseen (a
         * native thread, or a Java thread past its ThreadEnd when the events were enabled),
         * whose timer or event died with it; the scans would never arm the new one, whose tid
         * they know. Telling the two apart would take a /proc read on every thread start, so
         * the entry is armed again: a timer deleted and made anew */
        if (t) {
            disarm(t);
            arm(t);
        }
    }
    pthread_mutex_unlock(&lock);
}

void tasks_thread_end(int tid)
{
    pthread_mutex_lock(&lock);
    struct task *t = find(tid);
    /* an end for a task already ended (a thread's second ThreadEnd) does nothing */
    if (t && t->state != TASK_ENDED) {
        disarm(t);
        t->state = TASK_ENDED;
        t->ended_ns = mono_ns();
        uint64_t due = t->ended_ns + DETACHED_NS, was = atomic_load(&recheck_ns);
        if (!was || due < was)
            atomic_store_explicit(&recheck_ns, due, memory_order_relaxed);
        /* the writer, asleep for up to its period, learns when to list the threads (at most
         * one wake per listing: the listing clears recheck_ns once the exiting are gone) */
        if (!was)
            writer_wake();
    }
    pthread_mutex_unlock(&lock);
}

void tasks_engine_thread_start(int tid, uint32_t slot)
{
    (void)slot;
    tasks_thread_start(tid);
}

void tasks_engine_thread_end(int tid, uint32_t slot)
{
    (void)slot;
    tasks_thread_end(tid);
}

/* The process's thread count (/proc/self/stat field 20), -1 when unknown. */
static long thread_count(void)
{
    char buf[1024];
    int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    for (int field = 2; field < 20 && p; field++)
        p = strchr(p + 1, ' ');
    return p ? strtol(p + 1, NULL, 10) : -1;
}

/* writer only (no lock needed): when the threads were last listed and counted, when their
 * number last changed, and what the last listing cost */
static uint64_t last_scan_ns, last_poll_ns, last_change_ns, scan_cost_ns;
static long last_count = -1;

/* The least time between two listings: a process creating thousands of threads changes its
 * count at every poll, and listing them all each time could cost more than profiling; the
 * scans stay under 5% of a core. */
static uint64_t scan_gap(void)
{
    return scan_cost_ns * 20 > TASKS_POLL_NS ? scan_cost_ns * 20 : TASKS_POLL_NS;
}

/* When the next call is due: soon while the thread count is changing, or when a thread that
 * ended is to be looked at again (recheck_ns); else whenever the writer wakes next (its
 * period is a second: the full scan rides on it, no wakeup of its own). */
static uint64_t next_due(uint64_t now)
{
    uint64_t due = UINT64_MAX;
    if (now - last_change_ns < TASKS_BUSY_NS) {
        uint64_t at = last_poll_ns + TASKS_POLL_NS;
        due = at > now ? at - now : 0;
    } else if (now - atomic_load_explicit(&started_ns, memory_order_relaxed) <
               TASKS_STARTUP_NS) {
        /* a session's first seconds: the JVM starts its GC workers with the first
         * collections, which nothing else tells the writer of; waiting for its one-second
         * period left each unsampled for up to that long (int_native_gc: 92% of the process
         * CPU sampled, 98% before, when libjvm's slow table build happened to poll) */
        uint64_t at = last_poll_ns + TASKS_STARTUP_POLL_NS;
        due = at > now ? at - now : 0;
    }
    uint64_t re = atomic_load_explicit(&recheck_ns, memory_order_relaxed);
    if (re) {
        if (re < last_scan_ns + scan_gap())
            re = last_scan_ns + scan_gap();
        uint64_t r = re > now ? re - now : 0;
        if (r < due)
            due = r;
    }
    return due;
}

uint64_t tasks_refresh(void)
{
    uint64_t now = mono_ns();
    uint64_t re = atomic_load_explicit(&recheck_ns, memory_order_relaxed);
    int recheck = re && now >= re; /* list now, whatever the count */
    if (now - last_scan_ns < scan_gap() || (!recheck && now - last_poll_ns < TASKS_POLL_NS))
        return next_due(now);
    last_poll_ns = now;
    long count = thread_count();
    if (count != last_count && last_count >= 0)
        last_change_ns = now; /* the first count is no change */
    if (!recheck && count == last_count && now - last_scan_ns < TASKS_SCAN_NS)
        return next_due(now);
    last_count = count;
    last_scan_ns = now;
    pthread_mutex_lock(&lock);
    if (engine)
        scan_locked();
    pthread_mutex_unlock(&lock);
    scan_cost_ns = mono_ns() - now;
    return next_due(mono_ns());
}

int tasks_armed(void)
{
    pthread_mutex_lock(&lock);
    int n = armed;
    pthread_mutex_unlock(&lock);
    return n;
}
