/* alloc.c: allocation samples from JVMTI SampledObjectAlloc; see alloc.h. */
#include "alloc.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "classnames.h"
#include "counters.h"
#include "evsample.h"
#include "fpl_format.h"
#include "sample.h"
#include "threads.h"
#include "tsc.h"

/* the interval in force, read by callbacks (relaxed: a weight computed with the previous
 * session's interval at the instant of a restart is harmless) */
static _Atomic uint64_t interval_now;
static atomic_int enabled;

/* The live view's table: slot id % ALLOC_LIVE_SLOTS holds the newest tracked sample that maps
 * there. busy guards a slot's pair for the few instructions of an exchange (callbacks on
 * different threads, and alloc_live_flush after they are drained). */
struct live_slot {
    atomic_flag busy;
    uint64_t id;
    jweak ref;
};
static struct live_slot live_tab[ALLOC_LIVE_SLOTS];
static atomic_int live_on;
static _Atomic uint64_t live_next; /* the last id handed out; ids start at 1 */

static void slot_lock(struct live_slot *s)
{
    while (atomic_flag_test_and_set_explicit(&s->busy, memory_order_acquire))
        ; /* held for an exchange of two words */
}

static void slot_unlock(struct live_slot *s)
{
    atomic_flag_clear_explicit(&s->busy, memory_order_release);
}

/* Tracks object for the live view: its id, or 0 when it could not be. */
static uint64_t live_track(JNIEnv *jni, jobject object)
{
    jweak ref = (*jni)->NewWeakGlobalRef(jni, object);
    if (!ref)
        return 0;
    uint64_t id = atomic_fetch_add_explicit(&live_next, 1, memory_order_relaxed) + 1;
    struct live_slot *s = &live_tab[id % ALLOC_LIVE_SLOTS];
    slot_lock(s);
    jweak old = s->ref;
    s->ref = ref;
    s->id = id;
    slot_unlock(s);
    if (old) {
        (*jni)->DeleteWeakGlobalRef(jni, old);
        counters_add_sigsafe(FPL_CTR_LIVE_EVICTED, 1);
    }
    counters_add_sigsafe(FPL_CTR_LIVE_TRACKED, 1);
    return id;
}

uint64_t alloc_weight(uint64_t size, uint64_t interval)
{
    if (!interval || !size)
        return size;
    double x = (double)size / (double)interval;
    /* -expm1(-x) = 1 - exp(-x), exact for small x where 1 - exp(-x) would cancel */
    double w = (double)size / -expm1(-x);
    return w >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)(w + 0.5);
}

int alloc_capability(jvmtiEnv *jvmti)
{
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_sampled_object_alloc_events = 1;
    return (*jvmti)->AddCapabilities(jvmti, &caps) == JVMTI_ERROR_NONE ? 0 : -ENOTSUP;
}

int alloc_start(jvmtiEnv *jvmti, uint64_t interval_bytes, int live, char *err, size_t errlen)
{
    atomic_store_explicit(&live_on, live, memory_order_relaxed);
    if (interval_bytes > INT32_MAX) {
        snprintf(err, errlen, "alloc=%llu: at most %d bytes", (unsigned long long)interval_bytes,
                 INT32_MAX);
        return -EINVAL;
    }
    jvmtiError e = (*jvmti)->SetHeapSamplingInterval(jvmti, (jint)interval_bytes);
    if (e != JVMTI_ERROR_NONE) {
        snprintf(err, errlen,
                 "cannot profile allocations: JVMTI SetHeapSamplingInterval failed "
                 "(error %d)",
                 (int)e);
        return -ENOTSUP;
    }
    atomic_store_explicit(&interval_now, interval_bytes, memory_order_relaxed);
    e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                                           NULL);
    if (e != JVMTI_ERROR_NONE) {
        (*jvmti)->SetHeapSamplingInterval(jvmti, ALLOC_DEFAULT_INTERVAL);
        snprintf(err, errlen,
                 "cannot profile allocations: enabling SampledObjectAlloc failed "
                 "(JVMTI error %d)",
                 (int)e);
        return -ENOTSUP;
    }
    atomic_store_explicit(&enabled, 1, memory_order_release);
    return 0;
}

void alloc_stop(jvmtiEnv *jvmti)
{
    if (!atomic_exchange_explicit(&enabled, 0, memory_order_acq_rel))
        return;
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_SAMPLED_OBJECT_ALLOC,
                                       NULL);
    (*jvmti)->SetHeapSamplingInterval(jvmti, ALLOC_DEFAULT_INTERVAL);
}

void JNICALL alloc_on_sampled(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                              jclass klass, jlong size)
{
    (void)thread;
    if (!evsample_enter())
        return;
    uint64_t ticks = tsc_read_sigsafe();
    uint64_t s = size > 0 ? (uint64_t)size : 0;
    uint64_t w = alloc_weight(s, atomic_load_explicit(&interval_now, memory_order_relaxed));
    const char *name = classnames_of(jvmti, klass);
    uint64_t id =
        atomic_load_explicit(&live_on, memory_order_relaxed) ? live_track(jni, object) : 0;
    if (evsample_push(jni, FPL_KIND_ALLOC, FPL_STATE_RUNNING, w, name, ticks, s, id))
        counters_add_sigsafe(FPL_CTR_ALLOC_SAMPLES, 1);
    evsample_leave();
}

unsigned alloc_live_flush(jvmtiEnv *jvmti, JNIEnv *jni, struct ring *ring)
{
    if (!atomic_exchange_explicit(&live_on, 0, memory_order_acq_rel))
        return 0;
    if (!jni)
        jni = threads_current_jni();
    if (!jni)
        return 0; /* the weak references stay: a few hundred KiB at most */
    /* only what is reachable survives a full collection; weak references to the rest are
     * cleared by it */
    (*jvmti)->ForceGarbageCollection(jvmti);
    uint64_t now = tsc_read_sigsafe();
    unsigned live = 0;
    for (size_t i = 0; i < ALLOC_LIVE_SLOTS; i++) {
        struct live_slot *s = &live_tab[i];
        slot_lock(s);
        jweak ref = s->ref;
        uint64_t id = s->id;
        s->ref = NULL;
        s->id = 0;
        slot_unlock(s);
        if (!ref)
            continue;
        if (!(*jni)->IsSameObject(jni, ref, NULL)) {
            struct sample_rec *r = ring_reserve(ring, sizeof(*r));
            if (r) {
                memset(r, 0, sizeof(*r));
                r->ticks = now;
                r->kind = FPL_KIND_LIVE;
                r->num_frames = SAMPLE_LIVE_REF;
                r->weight = (uint32_t)id;
                r->tick = (uint32_t)(id >> 32);
                ring_commit(ring, r);
                live++;
            }
        }
        (*jni)->DeleteWeakGlobalRef(jni, ref);
    }
    return live;
}

static int alloc_enabled(const struct options *o)
{
    return o->alloc;
}

static int alloc_engine_start(const struct engine_session *s, char *err, size_t errlen)
{
    if (alloc_capability(s->jvmti) != 0) {
        snprintf(err, errlen,
                 "cannot profile allocations: the JVM refused the JVMTI capability "
                 "can_generate_sampled_object_alloc_events (JDK 11+ HotSpot needed); "
                 "profiling the rest");
        return ENGINE_SKIPPED;
    }
    if (alloc_start(s->jvmti, s->o->alloc_bytes, s->o->live, err, errlen) != 0)
        return ENGINE_SKIPPED;
    return 0;
}

static int alloc_engine_stop(const struct engine_session *s)
{
    alloc_stop(s->jvmti);
    return 0;
}

const struct engine alloc_engine = {
    .name = "alloc",
    .id = FPL_ENGINE_NONE,
    .enabled = alloc_enabled,
    .start = alloc_engine_start,
    .stop = alloc_engine_stop,
};

static int live_enabled(const struct options *o)
{
    return o->live;
}

static int live_stop(const struct engine_session *s)
{
    /* a callback still inside (evsample's stop timed out) may still track an object */
    if (evsample_idle())
        alloc_live_flush(s->jvmti, NULL, s->ring);
    return 0;
}

const struct engine live_engine = {
    .name = "live",
    .id = FPL_ENGINE_NONE,
    .enabled = live_enabled,
    .stop = live_stop,
};
