/* wallclock.c: the wall-clock sampler thread. Runs on its own JVMTI agent thread; start/stop
 * on control threads. */
#include "wallclock.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "context.h"
#include "cpuclock.h"
#include "counters.h"
#include "fpl_format.h"
#include "handler.h"
#include "saferead.h"
#include "sample.h"
#include "signals.h"
#include "thread_filter.h"
#include "threads.h"
#include "tsc.h"
#include "vmstructs.h"

#define MAX_CHOSEN 1024
#define TEST_STALL_TICK 50

struct sampler {
    jvmtiEnv *jvmti;
    struct ring *ring;
    uint64_t interval_ns;
    unsigned max_threads;
    int filter;
    /* java.lang.Thread's status word, read with JNI: constant time, where JVMTI's
     * GetThreadState scans the whole thread list on JDK 17. JDK 19+ keeps it in Thread.holder. */
    jfieldID status;        /* Thread.threadStatus, or FieldHolder.threadStatus */
    jfieldID holder;        /* Thread.holder, NULL before JDK 19 */
    unsigned depth;
    jvmtiFrameInfo *frames; /* depth entries, for threads walked without a signal */
    /* a thread's JVM state (JavaThread::_thread_state), to tell a RUNNABLE thread in native
     * code (walked with JVMTI, never signalled) from one running Java code: Thread.eetop is
     * the JavaThread*, state_off the field's offset (VMStructs); NULL / -1 when unknown */
    jfieldID eetop;
    int64_t state_off;
    pid_t pid;
    /* test hook FLYPROF_TEST_SAMPLER_STALL=SECONDS (never in production use): tick
     * TEST_STALL_TICK sleeps that long before it sends its signals */
    unsigned test_stall_s;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int running;         /* under mu */
/* wakes the sampler's ppoll when stopping: one syscall per tick, no mutex or condvar */
static int stop_fd = -1;
static struct sampler cfg;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t next_rand(uint64_t *s)
{
    /* xorshift64*: fast, and plenty for picking threads */
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* Uniform in (0, 1): never 0, so log() is finite. */
static double rand_open(uint64_t *s)
{
    return ((double)(next_rand(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

uint32_t wallclock_choose(uint32_t n, uint32_t k, uint64_t *rng, uint32_t *out)
{
    if (k == 0)
        return 0;
    uint32_t m = n < k ? n : k;
    for (uint32_t i = 0; i < m; i++)
        out[i] = i;
    if (n > k) {
        /* Algorithm L (Li 1994): skip geometrically many items between replacements, so the
         * cost is O(k (1 + log(n / k))) random numbers instead of one per item */
        double w = exp(log(rand_open(rng)) / k);
        uint64_t i = k - 1;
        for (;;) {
            i += (uint64_t)floor(log(rand_open(rng)) / log1p(-w)) + 1;
            if (i >= n)
                break;
            out[next_rand(rng) % k] = (uint32_t)i;
            w *= exp(log(rand_open(rng)) / k);
        }
    }
    qsort(out, m, sizeof(*out), cmp_u32);
    return m;
}

int wallclock_state(jint s)
{
    if (!(s & JVMTI_THREAD_STATE_ALIVE))
        return FPL_STATE_UNKNOWN;
    if (s & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER)
        return FPL_STATE_BLOCKED;
    if (s & JVMTI_THREAD_STATE_SLEEPING)
        return FPL_STATE_SLEEPING;
    if (s & JVMTI_THREAD_STATE_PARKED)
        return FPL_STATE_PARKED;
    if (s & JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT)
        return FPL_STATE_TIMED_WAITING;
    if (s & JVMTI_THREAD_STATE_WAITING)
        return FPL_STATE_WAITING;
    if (s & JVMTI_THREAD_STATE_IN_NATIVE)
        return FPL_STATE_NATIVE;
    if (s & JVMTI_THREAD_STATE_RUNNABLE)
        return FPL_STATE_RUNNING;
    return FPL_STATE_UNKNOWN;
}

/* Index of the r-th set bit of word x (r < popcount(x)). */
static unsigned select_bit(uint64_t x, unsigned r)
{
    while (r--)
        x &= x - 1;
    return (unsigned)__builtin_ctzll(x);
}

/* The JVMTI-style state bits of a thread (java.lang.Thread's threadStatus uses them), 0 when
 * they cannot be read. */
static jint thread_status(struct sampler *s, JNIEnv *jni, jobject thread)
{
    if (!s->holder)
        return (*jni)->GetIntField(jni, thread, s->status);
    jobject h = (*jni)->GetObjectField(jni, thread, s->holder);
    if (!h)
        return 0;
    jint st = (*jni)->GetIntField(jni, h, s->status);
    (*jni)->DeleteLocalRef(jni, h);
    return st;
}

/* The trace context of a thread the sampler reads from its own thread: one that changes it
 * meanwhile is left without (counted), never given a torn pair. */
static void put_context(struct sample_rec *r, uint32_t slot)
{
    if (!context_read_sigsafe(slot, &r->span, &r->root))
        counters_add_sigsafe(FPL_CTR_CONTEXT_LOST, 1);
}

/* Walks a thread that cannot be running Java code (blocked, waiting, parked, sleeping, or
 * RUNNABLE in native code) with JVMTI and pushes its sample. Such a thread is at a safe
 * point already (the handshake is done by the sampler without waiting for it), so
 * GetStackTrace is exact, costs no signal and wakes nothing: a thread blocked in a native
 * read or poll is not interrupted (no EINTR); and AGCT fails on some of these threads: a
 * thread blocked on a monitor from compiled code (not_walkable_not_Java), a JVM service thread
 * with no Java frames. Returns 0 (pushed, or counted as a ring drop: *pushed says which), or
 * -1 so the caller signals. */
static int walk(struct sampler *s, struct threads_entry *e, int state, uint32_t id, uint64_t now,
                uint32_t weight, int *pushed)
{
    jint n = 0;
    *pushed = 0;
    if (!s->frames || (*s->jvmti)->GetStackTrace(s->jvmti, e->gref, 0, (jint)s->depth,
                                                 s->frames, &n) != JVMTI_ERROR_NONE || n < 0)
        return -1;
    uint32_t len = (uint32_t)(sizeof(struct sample_rec) + (size_t)n * sizeof(struct sample_frame));
    struct sample_rec *r = ring_reserve(s->ring, len);
    if (!r)
        return 0; /* counted as a ring drop */
    memset(r, 0, sizeof(*r));
    r->ticks = now;
    r->tid = e->tid;
    r->slot1 = e->slot + 1;
    r->weight = weight;
    r->tick = id;
    r->kind = FPL_KIND_WALL;
    r->state = (uint8_t)state;
    r->num_frames = n ? n : SAMPLE_ERR_NO_JAVA_FRAMES;
    put_context(r, e->slot);
    for (jint i = 0; i < n; i++) {
        r->frames[i].method_id = s->frames[i].method;
        r->frames[i].lineno = (jint)s->frames[i].location;
    }
    ring_commit(s->ring, r);
    counters_add_sigsafe(FPL_CTR_SAMPLES, 1);
    counters_add_sigsafe(FPL_CTR_WALL_WALKED, 1);
    *pushed = 1;
    return 0;
}

/* Pushes a wall sample that repeats the thread's previous wall stack (it has not run since). */
static void push_repeat(struct sampler *s, struct threads_entry *e, int state, uint32_t id,
                        uint64_t now, uint32_t weight)
{
    struct sample_rec *r = ring_reserve(s->ring, sizeof(*r));
    if (!r)
        return; /* counted as a ring drop */
    memset(r, 0, sizeof(*r));
    r->ticks = now;
    r->tid = e->tid;
    r->slot1 = e->slot + 1;
    r->weight = weight;
    r->tick = id;
    r->kind = FPL_KIND_WALL;
    r->state = (uint8_t)state;
    r->num_frames = SAMPLE_WALL_REPEAT;
    put_context(r, e->slot);
    ring_commit(s->ring, r);
    counters_add_sigsafe(FPL_CTR_SAMPLES, 1);
    counters_add_sigsafe(FPL_CTR_WALL_IDLE, 1);
}


/* HotSpot's JavaThreadState values the sampler tells apart (globalDefinitions.hpp). */
#define JS_IN_NATIVE 4
#define JS_IN_NATIVE_TRANS 5
#define JS_BLOCKED 10
#define JS_BLOCKED_TRANS 11

/* The JVM state of a RUNNABLE thread (JavaThread::_thread_state), or -1 when unknown. Read
 * with saferead, which fails cleanly instead of faulting: the JavaThread is freed when its
 * thread ends, which may happen while we read. */
static int java_state(struct sampler *s, JNIEnv *jni, struct threads_entry *e)
{
    if (!s->eetop || s->state_off < 0)
        return -1;
    jlong jt = (*jni)->GetLongField(jni, e->gref, s->eetop);
    if (!jt)
        return -1;
    int v = -1;
    if (saferead(&v, (uintptr_t)(jt + s->state_off), sizeof(v)) != 0)
        return -1;
    return v;
}

/* Whether a thread in JVM state js can be walked with JVMTI without waiting for it and without
 * disturbing it: in native code or blocked in the VM, its Java frames are fixed and walkable.
 * A thread running Java code would first have to reach a safepoint poll: it gets a signal. */
static int js_walkable(int js)
{
    return js == JS_IN_NATIVE || js == JS_IN_NATIVE_TRANS || js == JS_BLOCKED ||
           js == JS_BLOCKED_TRANS;
}

/* Whether a wall signal is still pending for thread tid (queued, blocked): its /proc status
 * lists signo in SigPnd. An old claim whose signal is gone (taken by a sigwaitinfo of the
 * thread's own) is given up. */
static int signal_still_pending(pid_t pid, int tid, int signo)
{
    char path[64], buf[2048];
    snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 1; /* cannot tell: keep the claim */
    buf[n] = 0;
    const char *p = strstr(buf, "SigPnd:");
    if (!p)
        return 1;
    unsigned long long mask = strtoull(p + 7, NULL, 16);
    return signo > 0 && signo <= 64 && ((mask >> (signo - 1)) & 1);
}

/* A thread whose CPU time moved by at most this since its last wall stack has not run: the
 * handler's own epilogue after it read the clock and the return from the signal take a few
 * microseconds */
#define IDLE_CPU_NS 10000u
/* a claim older than this many ticks is checked against /proc (at most one check a tick) */
#define STALE_TICKS 100u

/* The context sequence number (context_seq) of each slot when the sampler last sampled it:
 * a thread that set or cleared its trace context since has run, however little CPU time
 * that took, so its last stack is not repeated (a request ending and the next one starting
 * often take under IDLE_CPU_NS). Sampler thread only. */
static uint32_t seen_seq[THREADS_MAX];

/* Samples one chosen thread. A thread whose wall signal is still queued (it waits for a core,
 * or blocks signals) is not sent another: the sample that signal brings will weigh this tick
 * too (at most one is ever queued per thread). A thread that has not run since its last wall
 * stack (its CPU time is where it was) gets that stack again, without a signal or a walk: most
 * threads of a server wait, and this is what keeps their cost flat. Otherwise a thread that
 * cannot be in Java code (not RUNNABLE, or RUNNABLE in native code) is walked with JVMTI, and
 * a thread in Java code gets the wall signal. Returns 1 when sampled, 0 when not. */
static int sample_one(struct sampler *s, JNIEnv *jni, struct threads_entry *e, jint st,
                      uint32_t id, uint64_t now, int signo, uid_t uid, int *stale_checks)
{
    uint32_t extra = 0; /* ticks owed by a signal that was lost: they weigh on this sample */
    uint32_t pending = handler_wall_pending(e->slot);
    if (pending) {
        int check = id - pending >= STALE_TICKS && *stale_checks == 0;
        *stale_checks += check;
        if (!check || signal_still_pending(s->pid, e->tid, signo)) {
            handler_wall_miss(e->slot);
            counters_add_sigsafe(FPL_CTR_WALL_UNTAKEN, 1);
            return 1;
        }
        /* gone (taken by a sigwaitinfo of the thread's own): this sample carries its ticks */
        extra = handler_wall_unclaim(e->slot);
    }
    int state = wallclock_state(st);
    int runnable = (st & JVMTI_THREAD_STATE_RUNNABLE) != 0;
    uint64_t cpu = cpuclock_ns(e->tid);
    uint64_t base = handler_wall_base(e->slot);
    uint32_t cseq = context_seq(e->slot);
    int ctx_moved = e->slot < THREADS_MAX && seen_seq[e->slot] != cseq;
    if (e->slot < THREADS_MAX)
        seen_seq[e->slot] = cseq;
    if (!ctx_moved && cpu && base && cpu >= base && cpu - base <= IDLE_CPU_NS) {
        /* a RUNNABLE thread that has not run is in the JVM state its last sample saw (only
         * running changes it): the writer takes that sample's state too */
        push_repeat(s, e, runnable ? FPL_STATE_UNKNOWN : state, id, now, 1 + extra);
        return 1;
    }
    int js = runnable ? java_state(s, jni, e) : -1;
    if (runnable && (js == JS_IN_NATIVE || js == JS_IN_NATIVE_TRANS))
        state = FPL_STATE_NATIVE;
    /* RUNNABLE to JVMTI but blocked inside the VM (a VM lock, a safepoint): JVM service
     * threads (Notification Thread, Service Thread) spend their lives so. Not running: as
     * RUNNING they would read as threads that never get a CPU (CPU starvation) */
    if (runnable && (js == JS_BLOCKED || js == JS_BLOCKED_TRANS))
        state = FPL_STATE_BLOCKED;
    if (!runnable || js_walkable(js)) {
        int pushed;
        if (walk(s, e, state, id, now, 1 + extra, &pushed) == 0) {
            if (pushed && cpu)
                handler_wall_set_base(e->slot, cpu);
            return 1;
        }
    }
    handler_wall_claim(e->slot, id);
    handler_wall_miss_n(e->slot, extra);
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    si.si_signo = signo;
    si.si_code = SI_QUEUE;
    si.si_pid = s->pid;
    si.si_uid = uid;
    si.si_value.sival_ptr = (void *)(uintptr_t)handler_wall_value(state, id);
    if (syscall(SYS_rt_tgsigqueueinfo, s->pid, e->tid, signo, &si) == 0)
        return 1;
    handler_wall_unclaim(e->slot);
    return 0;
}

/* One tick: choose, read states, sample, and push the tick record. */
static void tick(struct sampler *s, JNIEnv *jni, uint32_t id, uint64_t *rng, uid_t uid)
{
    static uint64_t cand[THREADS_WORDS];
    static uint32_t ranks[MAX_CHOSEN];
    uint32_t words = threads_words_used();
    uint32_t n = 0;
    for (uint32_t w = 0; w < words; w++) {
        cand[w] = threads_live_word(w) & (s->filter ? thread_filter_word(w) : ~0ull);
        n += (uint32_t)__builtin_popcountll(cand[w]);
    }
    uint32_t k = wallclock_choose(n, s->max_threads, rng, ranks);
    uint32_t signaled = 0, failed = 0;
    uint64_t now = tsc_read_sigsafe();
    int signo = signals_wall_signo();
    int stale_checks = 0;
    if (s->test_stall_s && id == TEST_STALL_TICK) {
        /* a test: the sampler stuck in a tick (as in a JVM call that does not return) that
         * sends its signals when it resumes, after the session's stop stopped waiting */
        struct timespec ts = {(time_t)s->test_stall_s, 0};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }

    threads_read_lock();
    uint32_t next = 0, seen = 0;
    for (uint32_t w = 0; w < words && next < k; w++) {
        uint32_t pc = (uint32_t)__builtin_popcountll(cand[w]);
        while (next < k && ranks[next] < seen + pc) {
            uint32_t slot = w * 64 + select_bit(cand[w], ranks[next] - seen);
            next++;
            struct threads_entry *e = threads_at(slot);
            jint st = e && e->gref ? thread_status(s, jni, e->gref) : 0;
            if (!(st & JVMTI_THREAD_STATE_ALIVE)) {
                failed++; /* ended since the candidates were taken */
                continue;
            }
            if (sample_one(s, jni, e, st, id, now, signo, uid, &stale_checks))
                signaled++;
            else
                failed++;
        }
        seen += pc;
    }
    threads_read_unlock();

    struct tick_rec *t = ring_reserve(s->ring, sizeof(*t));
    if (t) {
        memset(t, 0, sizeof(*t));
        t->ticks = now;
        t->tick = id;
        t->kind = SAMPLE_KIND_TICK;
        t->candidates = n;
        t->chosen = k;
        t->signaled = signaled;
        t->failed = failed;
        ring_commit(s->ring, t);
    }
}

/* Waits about ns, or less when stop is requested. Returns 1 when stop was requested. */
static int wait_stop(uint64_t ns)
{
    struct pollfd p = {stop_fd, POLLIN, 0};
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    int r;
    while ((r = ppoll(&p, 1, &ts, NULL)) < 0 && errno == EINTR)
        ; /* a signal: wait again (the period is dithered anyway) */
    return r > 0;
}

static void JNICALL sampler_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)jvmti;
    struct sampler *s = arg;
    threads_reader_register();
    uint64_t rng = tsc_read_sigsafe() | 1;
    uid_t uid = getuid();
    uint32_t id = 0;
    uint64_t deadline = mono_ns();
    for (;;) {
        /* dither the period by up to +-10% so ticks do not beat with periodic work; ticks
         * keep to absolute deadlines, so the time spent ticking does not stretch the period
         * (the upscaled totals assume one tick per interval) */
        double f = 0.9 + 0.2 * rand_open(&rng);
        deadline += (uint64_t)((double)s->interval_ns * f);
        uint64_t now = mono_ns();
        if (deadline + s->interval_ns < now)
            deadline = now; /* fell behind by more than a period: do not burst to catch up */
        if (wait_stop(deadline > now ? deadline - now : 0))
            break;
        if (++id == 0)
            id = 1; /* 0 means "no tick" in the log */
        tick(s, jni, id, &rng, uid);
    }
    threads_reader_unregister();
    pthread_mutex_lock(&mu);
    running = 0;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

int wallclock_start(jvmtiEnv *jvmti, JNIEnv *jni, struct ring *ring, uint64_t interval_ns,
                    unsigned max_threads, int filter, unsigned depth)
{
    if (wallclock_running())
        return -EBUSY; /* an earlier sampler never left its tick: cfg is still its own */
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    if (!cls)
        return -EINVAL;
    jmethodID ctor = (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V");
    jstring name = (*jni)->NewStringUTF(jni, "flyprof wall sampler");
    jobject thread = ctor && name ? (*jni)->NewObject(jni, cls, ctor, name) : NULL;
    if (!thread)
        return -EINVAL;
    jvmtiFrameInfo *frames = cfg.frames; /* kept across sessions, reallocated below */
    cfg = (struct sampler){.jvmti = jvmti, .ring = ring, .interval_ns = interval_ns,
                           .max_threads = max_threads > MAX_CHOSEN ? MAX_CHOSEN : max_threads,
                           .filter = filter, .frames = frames, .state_off = -1};
    cfg.status = (*jni)->GetFieldID(jni, cls, "threadStatus", "I");
    if (!cfg.status) {
        (*jni)->ExceptionClear(jni);
        cfg.holder = (*jni)->GetFieldID(jni, cls, "holder", "Ljava/lang/Thread$FieldHolder;");
        jclass hc = (*jni)->FindClass(jni, "java/lang/Thread$FieldHolder");
        cfg.status = hc ? (*jni)->GetFieldID(jni, hc, "threadStatus", "I") : NULL;
        if (hc)
            (*jni)->DeleteLocalRef(jni, hc);
    }
    if (!cfg.status || (!cfg.holder && (*jni)->ExceptionCheck(jni))) {
        (*jni)->ExceptionClear(jni);
        return -ENOTSUP;
    }
    cfg.pid = getpid();
    const char *stall = getenv("FLYPROF_TEST_SAMPLER_STALL");
    cfg.test_stall_s = stall ? (unsigned)atoi(stall) : 0;
    cfg.eetop = (*jni)->GetFieldID(jni, cls, "eetop", "J");
    if (!cfg.eetop)
        (*jni)->ExceptionClear(jni);
    cfg.state_off = vmstructs_offset("JavaThread", "_thread_state");
    handler_wall_reset_all();
    cfg.depth = depth;
    free(cfg.frames);
    cfg.frames = calloc(depth, sizeof(*cfg.frames));
    if (stop_fd < 0)
        stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (stop_fd < 0)
        return -errno;
    uint64_t drain;
    while (read(stop_fd, &drain, sizeof(drain)) > 0)
        ; /* a stop of an earlier session */
    pthread_mutex_lock(&mu);
    running = 1;
    pthread_mutex_unlock(&mu);
    jvmtiError err =
        (*jvmti)->RunAgentThread(jvmti, thread, sampler_main, &cfg, JVMTI_THREAD_MAX_PRIORITY);
    (*jni)->DeleteLocalRef(jni, thread);
    (*jni)->DeleteLocalRef(jni, name);
    (*jni)->DeleteLocalRef(jni, cls);
    if (err != JVMTI_ERROR_NONE) {
        pthread_mutex_lock(&mu);
        running = 0;
        pthread_mutex_unlock(&mu);
        return -EINVAL;
    }
    return 0;
}

int wallclock_stop(uint64_t timeout_ns)
{
    uint64_t one = 1;
    int rc = 0;
    pthread_mutex_lock(&mu);
    if (running) {
        ssize_t w = write(stop_fd, &one, sizeof(one));
        (void)w; /* an eventfd write fails only when its counter would overflow */
    }
    /* bounded: a sampler stuck in a JVMTI walk (a handshake with a thread that never
     * answers) must not hang the JVM's exit */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t t = (uint64_t)ts.tv_nsec + timeout_ns % 1000000000ull;
    ts.tv_sec += (time_t)(timeout_ns / 1000000000ull + t / 1000000000ull);
    ts.tv_nsec = (long)(t % 1000000000ull);
    while (running && rc == 0)
        rc = pthread_cond_timedwait(&cv, &mu, &ts);
    rc = running ? -ETIMEDOUT : 0;
    pthread_mutex_unlock(&mu);
    return rc;
}

int wallclock_running(void)
{
    pthread_mutex_lock(&mu);
    int r = running;
    pthread_mutex_unlock(&mu);
    return r;
}

/* How long stop waits for the sampler: longer than any healthy tick takes (milliseconds); a
 * sampler still in a tick after that is stuck in a JVMTI walk and is left behind. */
#define STOP_WAIT_NS (5ull * 1000000000ull)

static int wall_enabled(const struct options *o)
{
    return o->wall_interval_ns != 0;
}

static int wall_probe(const struct options *o, char *err, size_t errlen)
{
    (void)o;
    if (!wallclock_running())
        return 0;
    snprintf(err, errlen, "the wall-clock sampler of the previous session has not stopped "
                          "(stuck in a JVM stack walk?): wall-clock profiling cannot start "
                          "again until it does");
    return -EBUSY;
}

static int wall_start(const struct engine_session *s, char *err, size_t errlen)
{
    const struct options *o = s->o;
    int rc = wallclock_start(s->jvmti, s->jni, s->ring, o->wall_interval_ns, o->wall_threads,
                             o->filter, o->depth);
    if (rc != 0)
        snprintf(err, errlen, "cannot start the wall-clock sampler thread");
    return rc;
}

static int wall_stop(const struct engine_session *s)
{
    (void)s;
    return wallclock_stop(STOP_WAIT_NS);
}

static void wall_thread_start(int tid, uint32_t slot)
{
    (void)tid;
    handler_wall_reset(slot); /* a new thread in the slot: no wall stack, no signal yet */
}

const struct engine wall_engine = {
    .name = "wall",
    .id = FPL_ENGINE_NONE,
    .signals = SIGNALS_WALL,
    .what = "wall-clock sampling",
    .enabled = wall_enabled,
    .probe = wall_probe,
    .start = wall_start,
    .stop = wall_stop,
    .stuck = "the wall-clock sampler thread did not stop within 5 s (stuck in a JVM stack "
             "walk?); stopped waiting for it; wall-clock profiling cannot start again until "
             "it stops",
    .lingering = wallclock_running,
    .thread_start = wall_thread_start,
};
