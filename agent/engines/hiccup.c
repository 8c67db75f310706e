/* hiccup.c: the hiccup probes and their records (hiccup.h). */
#include "hiccup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "fpl_format.h"
#include "fpl_hdr.h"
#include "gcevents.h"
#include "hdr.h"
#include "perfdata.h"
#include "tsc.h"
#include "writer_service.h"

#define SLOTS 4     /* intervals a probe may be ahead of the writer */
#define STALLS 2048 /* stalls a probe may be ahead of the writer (it drains once a second) */
#define INTERVAL_NS 1000000000ull
/* schedstat is read every RD_EVERY wake-ups (and after a stall, and where an interval ends):
 * a read costs ~3.5 us, a quarter of what a wake-up costs in all */
#define RD_EVERY 8u
#define STOP_GRACE_NS 1000000000ull

struct interval {
    uint64_t start, end; /* ticks */
    uint64_t wakeups, max_ns, max_at, stalls, stalled_ns, run_delay_ns;
    struct hdr hist; /* delays, ns */
};

struct stall {
    uint64_t start, end; /* ticks */
    uint64_t run_delay_ns, safepoints, safepoint_ns, sync_ns;
    uint8_t flags; /* FPL_STALL_* */
};

struct probe {
    int kind; /* enum fpl_probe */
    /* interval n % SLOTS is filled while n == published; release on publish orders the
     * slot's contents before the count (the writer's acquire load pairs with it) */
    _Atomic uint64_t published;
    /* release by the writer after encoding a slot; the probe's acquire load pairs with it
     * before it reuses the slot */
    _Atomic uint64_t released;
    struct interval slots[SLOTS];
    /* the same protocol for the stall ring */
    _Atomic uint64_t shead, stail;
    struct stall stalls[STALLS];
    _Atomic uint64_t stalls_dropped; /* a statistic: relaxed */
    /* release by the probe as it ends, after its last publish; hiccup_stop's acquire load
     * pairs with it */
    atomic_int ended;
};

static struct probe probes[2];
static struct perfdata perf;
static int perf_open_rc = -ENOENT;
static jvmtiEnv *jvmti_env;
static uint64_t res_ns, thr_ns;
/* release by hiccup_stop; the probes' relaxed loads see it within a wake-up (nothing else is
 * ordered by it: each probe publishes its own data with release) */
static atomic_int stopping;
/* release by hiccup_start once the settings above are written; the writer's acquire load
 * pairs with it before writing PAUSE_STATS */
static atomic_int active;
static int probes_live; /* control threads only: probes that may still run */

/* The thread's run-queue wait so far, ns (the second field of schedstat), or 0. Parsed by
 * hand: sscanf cost about as much as the kernel's formatting of the file (2% of the probe
 * thread's CPU in a profile of it). */
static uint64_t run_delay(int fd)
{
    char b[96];
    if (fd < 0)
        return 0;
    ssize_t n = pread(fd, b, sizeof(b) - 1, 0);
    if (n <= 0)
        return 0;
    b[n] = 0;
    const char *c = b;
    while (*c >= '0' && *c <= '9') /* the time on a CPU */
        c++;
    if (c == b || *c++ != ' ' || *c < '0' || *c > '9')
        return 0;
    uint64_t wait = 0;
    while (*c >= '0' && *c <= '9')
        wait = wait * 10 + (uint64_t)(*c++ - '0');
    return wait;
}

static void reset_interval(struct interval *iv, uint64_t start, uint64_t len)
{
    memset(iv, 0, offsetof(struct interval, hist));
    hdr_reset(&iv->hist);
    iv->start = start;
    iv->end = start + len;
}

static void push_stall(struct probe *p, const struct stall *s)
{
    uint64_t h = atomic_load_explicit(&p->shead, memory_order_relaxed);
    if (h - atomic_load_explicit(&p->stail, memory_order_acquire) >= STALLS) {
        atomic_fetch_add_explicit(&p->stalls_dropped, 1, memory_order_relaxed);
        return;
    }
    p->stalls[h % STALLS] = *s;
    atomic_store_explicit(&p->shead, h + 1, memory_order_release);
}

/* One probe's side of the shared loop: its current interval and a stall whose safepoint
 * time is still to be read. */
struct track {
    struct probe *p;
    struct interval *cur;
    uint64_t n; /* intervals published */
    int sp;     /* reads HotSpot's safepoint counters (the Java probe, with PerfData) */
    /* HotSpot adds a safepoint's time to sun.rt.safepointTime only after it has released the
     * threads, so a stall's safepoint time is read one wake-up later: the stall waits in
     * `pending` with the time counters as they were before it */
    struct stall pending;
    int have_pending;
    int64_t pend_spt, pend_sync;
    uint64_t iv_rd; /* the run-queue wait so far where the current interval began */
};

/* The counters as they were at the wake-up before, for a stall's share of them. */
struct before {
    uint64_t rd;           /* run-queue wait so far (schedstat), ns */
    int64_t sp, spt, sync; /* safepoint counters (PerfData) */
};

static void track_init(struct track *k, struct probe *p, int sp, uint64_t start, uint64_t len,
                       uint64_t rd)
{
    memset(k, 0, sizeof(*k));
    k->p = p;
    k->sp = sp;
    k->cur = &p->slots[0];
    k->iv_rd = rd;
    reset_interval(k->cur, start, len);
}

static void track_flush_pending(struct track *k)
{
    if (!k->have_pending)
        return;
    k->pending.safepoint_ns = perfdata_ns(&perf, perfdata_get(perf.safepoint_time) - k->pend_spt);
    k->pending.sync_ns = perfdata_ns(&perf, perfdata_get(perf.sync_time) - k->pend_sync);
    push_stall(k->p, &k->pending);
    k->have_pending = 0;
}

/* Accounts one wake-up of the probe: due is when it should have run, at when it did, rd the
 * run-queue wait so far (valid when rd_ok: read at this wake-up, fd open). */
static void track_wake(struct track *k, uint64_t due, uint64_t at, uint64_t rd, int rd_ok,
                       const struct before *b)
{
    struct interval *cur = k->cur;
    uint64_t late = at > due ? tsc_ticks_to_ns_sigsafe(at - due) : 0;
    hdr_record(&cur->hist, late, 1);
    cur->wakeups++;
    if (late > cur->max_ns || cur->wakeups == 1) {
        cur->max_ns = late;
        cur->max_at = due;
    }
    track_flush_pending(k);
    if (late < thr_ns)
        return;
    struct stall s = {due, at, 0, 0, 0, 0, 0};
    if (rd_ok) {
        s.run_delay_ns = rd - b->rd;
        s.flags |= FPL_STALL_RUN_DELAY;
    }
    cur->stalls++;
    cur->stalled_ns += late;
    if (k->sp) {
        /* the count moves when a safepoint begins: it is right already */
        s.safepoints = (uint64_t)(perfdata_get(perf.safepoints) - b->sp);
        s.flags |= FPL_STALL_SAFEPOINTS;
        k->pending = s;
        k->pend_spt = b->spt;
        k->pend_sync = b->sync;
        k->have_pending = 1;
    } else {
        push_stall(k->p, &s);
    }
}

/* Publishes the track's interval when t passed its end, or at the last wake-up (last), with
 * the run-queue wait rd read at this wake-up. */
static void track_roll(struct track *k, uint64_t t, uint64_t iv_ticks, uint64_t rd, int last)
{
    struct probe *p = k->p;
    if (!last && t < k->cur->end)
        return;
    uint64_t rel = atomic_load_explicit(&p->released, memory_order_acquire);
    if (!last && k->n + 2 - rel > SLOTS) {
        k->cur->end += iv_ticks; /* the writer lags: this interval covers the next too */
        return;
    }
    k->cur->run_delay_ns = rd - k->iv_rd;
    k->iv_rd = rd;
    uint64_t boundary = k->cur->end;
    if (last) {
        track_flush_pending(k);
        k->cur->end = t;
    }
    atomic_store_explicit(&p->published, ++k->n, memory_order_release);
    if (!last) {
        k->cur = &p->slots[k->n % SLOTS];
        reset_interval(k->cur, boundary, iv_ticks);
    }
}

/* Both probes' loop, until hiccup_stop, on the probe thread (a JVMTI agent thread). One
 * thread measures both, so a resolution costs one wake-up, not two (a wake-up is what the
 * probes cost, almost all of it the kernel's): it sleeps in native code, where safepoints do
 * not hold it, and stamps the TSC as it wakes -- the OS probe, a thread the JVM does not
 * hold -- then makes a JNI call, which enters the VM and so waits while a safepoint or a GC is
 * in progress, and stamps again: the Java probe. */
static void probe_loop(JNIEnv *jni)
{
    /* timer slack (50 us by default) would count as lateness the probe asked for */
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    const uint64_t hz = tsc_ticks_per_sec();
    const uint64_t res_ticks = (uint64_t)((unsigned __int128)res_ns * hz / 1000000000u);
    const uint64_t iv_ticks = (uint64_t)((unsigned __int128)INTERVAL_NS * hz / 1000000000u);
    const uint64_t thr_ticks = (uint64_t)((unsigned __int128)thr_ns * hz / 1000000000u);
    const int sp = perf.map != NULL;
    struct timespec nap = {(time_t)(res_ns / 1000000000u), (long)(res_ns % 1000000000u)};
    struct before b = {run_delay(fd), 0, 0, 0};
    if (sp) {
        b.sp = perfdata_get(perf.safepoints);
        b.spt = perfdata_get(perf.safepoint_time);
        b.sync = perfdata_get(perf.sync_time);
    }
    struct track java, os;
    uint64_t t = tsc_read_sigsafe();
    track_init(&java, &probes[0], sp, t, iv_ticks, b.rd);
    track_init(&os, &probes[1], 0, t, iv_ticks, b.rd);
    uint32_t since_rd = 0;
    for (;;) {
        int last = atomic_load_explicit(&stopping, memory_order_relaxed);
        uint64_t t0 = tsc_read_sigsafe();
        if (!last)
            nanosleep(&nap, NULL);
        uint64_t t_os = tsc_read_sigsafe();
        /* a JNI call from native code enters the VM, and so waits for a safepoint to end */
        (*jni)->ExceptionCheck(jni);
        uint64_t t1 = tsc_read_sigsafe();
        uint64_t rd = b.rd;
        if (!last) {
            uint64_t due = t0 + res_ticks;
            /* the run-queue wait only where it is used: a stall's (whose "before" is then at
             * most RD_EVERY - 1 wake-ups old), an interval's end, and every RD_EVERY
             * wake-ups; the Java probe is never less late than the OS probe (t1 >= t_os) */
            int rd_now = fd >= 0 && ((t1 > due && t1 - due >= thr_ticks) || t1 >= java.cur->end ||
                                     t1 >= os.cur->end || ++since_rd >= RD_EVERY);
            if (rd_now) {
                rd = run_delay(fd);
                since_rd = 0;
            }
            track_wake(&java, due, t1, rd, rd_now, &b);
            track_wake(&os, due, t_os, rd, rd_now, &b);
            b.rd = rd;
            if (sp) {
                b.sp = perfdata_get(perf.safepoints);
                b.spt = perfdata_get(perf.safepoint_time);
                b.sync = perfdata_get(perf.sync_time);
            }
        } else {
            rd = run_delay(fd);
        }
        track_roll(&java, t1, iv_ticks, rd, last);
        track_roll(&os, t1, iv_ticks, rd, last);
        if (last)
            break;
    }
    if (fd >= 0)
        close(fd);
    atomic_store_explicit(&probes[1].ended, 1, memory_order_release);
    atomic_store_explicit(&probes[0].ended, 1, memory_order_release);
}

static void JNICALL probe_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)jvmti;
    (void)arg;
    probe_loop(jni);
}

static void reset_probe(struct probe *p, int kind)
{
    p->kind = kind;
    atomic_store_explicit(&p->published, 0, memory_order_relaxed);
    atomic_store_explicit(&p->released, 0, memory_order_relaxed);
    atomic_store_explicit(&p->shead, 0, memory_order_relaxed);
    atomic_store_explicit(&p->stail, 0, memory_order_relaxed);
    atomic_store_explicit(&p->stalls_dropped, 0, memory_order_relaxed);
    atomic_store_explicit(&p->ended, 0, memory_order_relaxed);
}

/* Starts the probe thread, a JVMTI agent thread named HICCUP_PROBE_NAME (the registry treats
 * threads named flyprof* as the agent's own: never wall-sampled). */
static int start_probe(jvmtiEnv *jvmti, JNIEnv *jni)
{
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    if (!cls)
        return -EINVAL;
    jmethodID ctor = (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V");
    jstring name = (*jni)->NewStringUTF(jni, HICCUP_PROBE_NAME);
    jobject thread = ctor && name ? (*jni)->NewObject(jni, cls, ctor, name) : NULL;
    int rc = 0;
    if (!thread || (*jvmti)->RunAgentThread(jvmti, thread, probe_main, NULL,
                                            JVMTI_THREAD_MAX_PRIORITY) != JVMTI_ERROR_NONE)
        rc = -EINVAL;
    if (thread)
        (*jni)->DeleteLocalRef(jni, thread);
    if (name)
        (*jni)->DeleteLocalRef(jni, name);
    (*jni)->DeleteLocalRef(jni, cls);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni);
        rc = -EINVAL;
    }
    return rc;
}

/* The probe thread of the last session has ended (it touches probes[] no more). */
static int probes_ended(void)
{
    return atomic_load_explicit(&probes[0].ended, memory_order_acquire) &&
           atomic_load_explicit(&probes[1].ended, memory_order_acquire);
}

int hiccup_start(jvmtiEnv *jvmti, JNIEnv *jni, uint64_t resolution_ns, uint64_t threshold_ns,
                 char *err, size_t errlen)
{
    if (probes_live && probes_ended()) {
        /* a probe left behind by a slow stop (a long safepoint) has ended since */
        probes_live = 0;
    }
    if (probes_live) {
        snprintf(err, errlen, "hiccup: the probes of the last session have not ended yet");
        return -EBUSY;
    }
    res_ns = resolution_ns;
    thr_ns = threshold_ns;
    jvmti_env = jvmti;
    if (!perf.map)
        perf_open_rc = perfdata_open(&perf, NULL);
    reset_probe(&probes[0], FPL_PROBE_JAVA);
    reset_probe(&probes[1], FPL_PROBE_OS);
    atomic_store_explicit(&stopping, 0, memory_order_relaxed);
    atomic_store_explicit(&active, 1, memory_order_release);
    int rc = start_probe(jvmti, jni);
    if (rc != 0) {
        atomic_store_explicit(&active, 0, memory_order_release);
        snprintf(err, errlen, "hiccup: cannot start the probe thread");
        return rc;
    }
    probes_live = 1;
    gcevents_start(jvmti, &perf);
    return 0;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void hiccup_stop(void)
{
    if (!probes_live)
        return;
    atomic_store_explicit(&stopping, 1, memory_order_release);
    gcevents_stop(jvmti_env);
    /* the probe thread ends within one resolution; blocked by a very long safepoint it is left
     * behind rather than hang the caller (probes_live then stays set until the next start
     * finds it ended) */
    uint64_t deadline = mono_ns() + res_ns + STOP_GRACE_NS;
    int ended = 0;
    while (mono_ns() < deadline) {
        ended = probes_ended();
        if (ended)
            break;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    if (ended)
        probes_live = 0;
    atomic_store_explicit(&active, 0, memory_order_release);
}

static void put_interval(struct fpl_buf *b, int kind, const struct interval *iv)
{
    size_t r = fpl_rec_begin(b, FPL_REC_HICCUP);
    fpl_put_v(b, (uint64_t)kind);
    fpl_put_u64(b, iv->start);
    fpl_put_u64(b, iv->end);
    fpl_put_v(b, res_ns);
    fpl_put_v(b, thr_ns);
    fpl_put_v(b, iv->wakeups);
    fpl_put_v(b, iv->max_ns);
    fpl_put_u64(b, iv->max_at);
    fpl_put_v(b, iv->stalls);
    fpl_put_v(b, iv->stalled_ns);
    fpl_put_v(b, iv->run_delay_ns);
    unsigned nb = 0, used = hdr_used(&iv->hist);
    for (unsigned i = 0; i < used; i++)
        nb += iv->hist.counts[i] != 0;
    fpl_put_v(b, nb);
    long prev = -1;
    for (unsigned i = 0; i < used; i++) {
        if (!iv->hist.counts[i])
            continue;
        fpl_put_v(b, (uint64_t)((long)i - prev));
        fpl_put_v(b, iv->hist.counts[i]);
        prev = (long)i;
    }
    fpl_rec_end(b, r);
}

static void put_stall(struct fpl_buf *b, int kind, const struct stall *s)
{
    size_t r = fpl_rec_begin(b, FPL_REC_STALL);
    fpl_put_v(b, (uint64_t)kind);
    fpl_put_u8(b, s->flags);
    fpl_put_u64(b, s->start);
    fpl_put_u64(b, s->end);
    fpl_put_v(b, s->run_delay_ns);
    fpl_put_v(b, s->safepoints);
    fpl_put_v(b, s->safepoint_ns);
    fpl_put_v(b, s->sync_ns);
    fpl_rec_end(b, r);
}

/* Steal time of all CPUs so far, ns (/proc/stat's eighth cpu field), or -1. */
static int64_t steal_ns(void)
{
    char line[256];
    FILE *f = fopen("/proc/stat", "re");
    if (!f)
        return -1;
    unsigned long long v[8];
    int ok = fgets(line, sizeof(line), f) &&
             sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                    &v[4], &v[5], &v[6], &v[7]) == 8;
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    return ok && hz > 0 ? (int64_t)(v[7] * (1000000000ull / (unsigned long long)hz)) : -1;
}

/* The writer's view of the lost time since its last PAUSE_STATS record. */
static struct {
    int have;
    uint64_t ticks;
    int64_t safepoints, safepoint_time, sync_time, steal;
} last;

static void put_pause_stats(struct fpl_buf *b)
{
    uint64_t now = tsc_read_sigsafe();
    int64_t sp = perfdata_get(perf.safepoints), spt = perfdata_get(perf.safepoint_time);
    int64_t sync = perfdata_get(perf.sync_time), st = steal_ns();
    if (last.have) {
        uint8_t flags = (perf.map ? FPL_PAUSE_SAFEPOINTS : 0) |
                        (st >= 0 && last.steal >= 0 ? FPL_PAUSE_STEAL : 0);
        size_t r = fpl_rec_begin(b, FPL_REC_PAUSE_STATS);
        fpl_put_u64(b, last.ticks);
        fpl_put_u64(b, now);
        fpl_put_u8(b, flags);
        fpl_put_v(b, (uint64_t)(sp - last.safepoints));
        fpl_put_v(b, perfdata_ns(&perf, spt - last.safepoint_time));
        fpl_put_v(b, perfdata_ns(&perf, sync - last.sync_time));
        fpl_put_v(b, flags & FPL_PAUSE_STEAL ? (uint64_t)(st - last.steal) : 0);
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        fpl_put_v(b, cpus > 0 ? (uint64_t)cpus : 0);
        fpl_put_v(b, atomic_load_explicit(&probes[0].stalls_dropped, memory_order_relaxed) +
                         atomic_load_explicit(&probes[1].stalls_dropped, memory_order_relaxed));
        fpl_put_v(b, gcevents_dropped());
        fpl_rec_end(b, r);
    }
    last.have = 1;
    last.ticks = now;
    last.safepoints = sp;
    last.safepoint_time = spt;
    last.sync_time = sync;
    last.steal = st;
}

void hiccup_drain(struct fpl_buf *b)
{
    for (int k = 0; k < 2; k++) {
        struct probe *p = &probes[k];
        uint64_t rel = atomic_load_explicit(&p->released, memory_order_relaxed);
        while (atomic_load_explicit(&p->published, memory_order_acquire) > rel) {
            put_interval(b, p->kind, &p->slots[rel % SLOTS]);
            atomic_store_explicit(&p->released, ++rel, memory_order_release);
        }
        uint64_t t = atomic_load_explicit(&p->stail, memory_order_relaxed);
        while (atomic_load_explicit(&p->shead, memory_order_acquire) > t) {
            put_stall(b, p->kind, &p->stalls[t % STALLS]);
            atomic_store_explicit(&p->stail, ++t, memory_order_release);
        }
    }
    const struct gcevents_pause *g;
    while ((g = gcevents_next()) != NULL) {
        size_t r = fpl_rec_begin(b, FPL_REC_GC);
        fpl_put_u64(b, g->start);
        fpl_put_u64(b, g->end);
        fpl_put_str(b, g->collector >= 0 && perf.map ? perf.collector_name[g->collector] : "");
        fpl_rec_end(b, r);
        gcevents_release();
    }
    int on = atomic_load_explicit(&active, memory_order_acquire);
    if (!on) {
        if (last.have)
            put_pause_stats(b); /* the last stretch */
        last.have = 0;
        return;
    }
    uint64_t hz = tsc_ticks_per_sec();
    if (!last.have || tsc_read_sigsafe() - last.ticks >= hz)
        put_pause_stats(b);
}

static int hiccup_enabled(const struct options *o)
{
    return o->hiccup_ns != 0;
}

static int hiccup_engine_start(const struct engine_session *s, char *err, size_t errlen)
{
    return hiccup_start(s->jvmti, s->jni, s->o->hiccup_ns, s->o->stall_ns, err, errlen);
}

static int hiccup_engine_stop(const struct engine_session *s)
{
    (void)s;
    hiccup_stop();
    return 0;
}

/* The probes' and GC events' records, after each drain; at a seam and at the end too, so
 * each log has the intervals that ended in it. */
static uint64_t hiccup_service_run(struct fpl_buf *chunk, JNIEnv *jni)
{
    (void)jni;
    hiccup_drain(chunk);
    return UINT64_MAX;
}

static void hiccup_service_end(struct fpl_buf *chunk, JNIEnv *jni)
{
    (void)jni;
    hiccup_drain(chunk); /* the probes' last intervals (they stopped with sampling) */
}

static const struct writer_service hiccup_service = {
    .name = "hiccup records",
    .run = hiccup_service_run,
    .at_seam = 1,
    .end = hiccup_service_end,
};

const struct engine hiccup_engine = {
    .name = "hiccup",
    .id = FPL_ENGINE_NONE,
    .enabled = hiccup_enabled,
    .start = hiccup_engine_start,
    .stop = hiccup_engine_stop,
    .service = &hiccup_service,
};
