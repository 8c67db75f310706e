/* evsample.c: samples pushed from JVMTI event callbacks; see evsample.h. */
#include "evsample.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context.h"
#include "counters.h"
#include "fpl_format.h"
#include "sample.h"
#include "threads.h"
#include "tls.h"

static jvmtiEnv *env;
static struct ring *ring_of;
static unsigned depth_of;
/* the walk buffers: allocated at the first start (and again, larger, when a session asks for
 * more frames; the old set is kept, a callback stuck in a walk may still write it) */
static jvmtiFrameInfo *bufs;
static unsigned bufs_depth;
static atomic_flag busy[EVSAMPLE_BUFFERS];
/* the gate: active and inflight form a Dekker pair (seq_cst) like the signal handler's:
 * evsample_enter increments inflight, then reads active; evsample_stop clears active, then
 * reads inflight, so either the callback sees the gate closed or stop sees it inside */
static atomic_int active;
/* the session's ThreadStart work; written at start, before the gate opens */
static void (*on_start)(struct threads_entry *e);
static atomic_int inflight;

int evsample_enter(void)
{
    if (!atomic_load_explicit(&active, memory_order_relaxed))
        return 0;
    atomic_fetch_add_explicit(&inflight, 1, memory_order_seq_cst);
    if (!atomic_load_explicit(&active, memory_order_seq_cst)) {
        atomic_fetch_sub_explicit(&inflight, 1, memory_order_release);
        return 0;
    }
    return 1;
}

void evsample_leave(void)
{
    /* release: what the callback wrote into the ring is done before stop sees it leave */
    atomic_fetch_sub_explicit(&inflight, 1, memory_order_release);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int evsample_stop(uint64_t timeout_ns)
{
    atomic_store_explicit(&active, 0, memory_order_seq_cst);
    uint64_t end = mono_ns() + timeout_ns;
    while (atomic_load_explicit(&inflight, memory_order_seq_cst) > 0) {
        if (mono_ns() > end)
            return -ETIMEDOUT;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

int evsample_start(jvmtiEnv *jvmti, struct ring *ring, unsigned depth,
                   void (*on_thread_start)(struct threads_entry *e))
{
    if (atomic_load_explicit(&inflight, memory_order_acquire) > 0)
        return -EBUSY;
    if (!bufs || bufs_depth < depth) {
        jvmtiFrameInfo *b = calloc((size_t)EVSAMPLE_BUFFERS * depth, sizeof(*b));
        if (!b)
            return -ENOMEM;
        bufs = b; /* an older, smaller set is left allocated: see above */
        bufs_depth = depth;
    }
    env = jvmti;
    ring_of = ring;
    on_start = on_thread_start;
    depth_of = depth;
    atomic_store_explicit(&active, 1, memory_order_seq_cst);
    return 0;
}

/* A free walk buffer's index, or -1. */
static int grab(void)
{
    /* start at a per-thread spot so threads rarely contend for the same flag */
    unsigned start = (unsigned)tls_tid_sigsafe();
    for (unsigned i = 0; i < EVSAMPLE_BUFFERS; i++) {
        unsigned k = (start + i) % EVSAMPLE_BUFFERS;
        if (!atomic_flag_test_and_set_explicit(&busy[k], memory_order_acquire))
            return (int)k;
    }
    return -1;
}

/* The calling thread's registry slot + 1. A thread that ran before an attach was adopted
 * without its TLS (only ThreadStart on the thread sets it): registered on the spot, as the
 * Java API does, so its samples name it even after it ends. */
static uint32_t current_slot(JNIEnv *jni)
{
    uint32_t s = tls_slot();
    if (s || !jni)
        return s;
    jthread self = NULL;
    if ((*env)->GetCurrentThread(env, &self) != JVMTI_ERROR_NONE || !self)
        return 0;
    threads_on_start(env, jni, self, on_start);
    (*jni)->DeleteLocalRef(jni, self);
    return tls_slot();
}

int evsample_push(JNIEnv *jni, int kind, int state, uint64_t weight, const char *class_name,
                  uint64_t ticks, uint64_t size, uint64_t id)
{
    int b = grab();
    if (b < 0) {
        counters_add_sigsafe(FPL_CTR_EVSAMPLE_BUSY, 1);
        return 0;
    }
    jvmtiFrameInfo *fr = bufs + (size_t)b * bufs_depth;
    jint n = 0;
    if ((*env)->GetStackTrace(env, NULL, 0, (jint)depth_of, fr, &n) != JVMTI_ERROR_NONE || n < 0)
        n = 0;
    uint32_t nf = (uint32_t)n + 1;
    uint32_t len =
        (uint32_t)(sizeof(struct sample_rec) + nf * sizeof(struct sample_frame) +
                              2 * sizeof(uint64_t));
    struct sample_rec *r = ring_reserve(ring_of, len);
    if (!r) {
        atomic_flag_clear_explicit(&busy[b], memory_order_release);
        return 0; /* counted as a ring drop */
    }
    memset(r, 0, sizeof(*r));
    uint32_t slot1 = current_slot(jni);
    r->ticks = ticks;
    r->tid = tls_tid_sigsafe();
    r->slot1 = slot1;
    r->weight = (uint32_t)weight;
    r->tick = (uint32_t)(weight >> 32);
    r->kind = (uint8_t)kind;
    r->state = (uint8_t)state;
    r->num_frames = (int32_t)nf;
    if (slot1 && !context_read_sigsafe(slot1 - 1, &r->span, &r->root))
        counters_add_sigsafe(FPL_CTR_CONTEXT_LOST, 1);
    r->frames[0].lineno = SAMPLE_FRAME_PACK(SAMPLE_FT_CLASS, -1);
    r->frames[0].method_id = (jmethodID)(uintptr_t)class_name;
    for (jint i = 0; i < n; i++) {
        r->frames[i + 1].method_id = fr[i].method;
        r->frames[i + 1].lineno = (jint)fr[i].location;
    }
    memcpy(&r->frames[nf], &size, sizeof(size));
    memcpy((char *)&r->frames[nf] + sizeof(size), &id, sizeof(id));
    atomic_flag_clear_explicit(&busy[b], memory_order_release);
    ring_commit(ring_of, r);
    counters_add_sigsafe(FPL_CTR_SAMPLES, 1);
    return 1;
}

int evsample_idle(void)
{
    return !atomic_load_explicit(&active, memory_order_seq_cst) &&
           atomic_load_explicit(&inflight, memory_order_seq_cst) == 0;
}

/* a callback takes microseconds: one still inside after this is on a stopped thread */
#define STOP_WAIT_NS (2ull * 1000000000ull)

static int evsample_enabled(const struct options *o)
{
    return o->alloc || o->lock;
}

static int evsample_engine_start(const struct engine_session *s, char *err, size_t errlen)
{
    int rc = evsample_start(s->jvmti, s->ring, s->o->depth, s->on_thread_start);
    if (rc != 0)
        snprintf(err, errlen, "cannot start alloc/lock profiling: %s",
                 rc == -EBUSY ? "a callback of the previous session has not returned"
                              : strerror(-rc));
    return rc;
}

static int evsample_engine_stop(const struct engine_session *s)
{
    (void)s;
    return evsample_stop(STOP_WAIT_NS);
}

const struct engine evsample_engine = {
    .name = "evsample",
    .id = FPL_ENGINE_NONE,
    .enabled = evsample_enabled,
    .start = evsample_engine_start,
    .stop = evsample_engine_stop,
    .stuck = "an allocation or lock callback did not return within 2 s; stopped waiting for "
             "it; alloc and lock profiling cannot start again until it returns",
};
