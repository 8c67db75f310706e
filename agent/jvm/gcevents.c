/* gcevents.c: GC pauses stamped on the sample clock (gcevents.h). */
#include "gcevents.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "tsc.h"

#define RING 256 /* pauses the writer may lag behind; it drains every 10 ms */

static struct gcevents_pause ring[RING];
/* head: written by the GC thread with release after the entry; the writer's acquire load
 * pairs with it. tail: written by the writer with release after reading the entry; the GC
 * thread's acquire load pairs with it before overwriting. */
static _Atomic uint64_t head, tail;
static _Atomic uint64_t dropped; /* a statistic: relaxed, orders nothing */
static uint64_t started;         /* ticks at the open GarbageCollectionStart (GC thread only) */
static const struct perfdata *perf;
static int64_t last_inv[PERFDATA_MAX_COLLECTORS];
/* release by gcevents_start after perf and last_inv are set; the finish callback's acquire
 * load pairs with it before reading them */
static atomic_int enabled;

int gcevents_start(jvmtiEnv *jvmti, const struct perfdata *pd)
{
    perf = pd && pd->map ? pd : NULL;
    for (unsigned i = 0; perf && i < perf->ncollectors; i++)
        last_inv[i] = perfdata_get(perf->invocations[i]);
    started = 0;
    atomic_store_explicit(&enabled, 1, memory_order_release);
    if ((*jvmti)->SetEventNotificationMode(
            jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START, NULL) != JVMTI_ERROR_NONE ||
        (*jvmti)->SetEventNotificationMode(
            jvmti, JVMTI_ENABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH, NULL) != JVMTI_ERROR_NONE) {
        gcevents_stop(jvmti);
        return -EINVAL;
    }
    return 0;
}

void gcevents_stop(jvmtiEnv *jvmti)
{
    atomic_store_explicit(&enabled, 0, memory_order_release);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_GARBAGE_COLLECTION_START,
                                       NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_GARBAGE_COLLECTION_FINISH,
                                       NULL);
}

void JNICALL gcevents_on_start(jvmtiEnv *jvmti)
{
    (void)jvmti;
    started = tsc_read_sigsafe();
}

/* The collector whose invocation count moved since the last pause, or -1. */
static int which_collector(void)
{
    int found = -1;
    for (unsigned i = 0; perf && i < perf->ncollectors; i++) {
        int64_t v = perfdata_get(perf->invocations[i]);
        if (v != last_inv[i]) {
            found = found < 0 ? (int)i : found;
            last_inv[i] = v;
        }
    }
    return found;
}

void JNICALL gcevents_on_finish(jvmtiEnv *jvmti)
{
    (void)jvmti;
    uint64_t end = tsc_read_sigsafe();
    /* enabled: an acquire load, so perf and last_inv set by gcevents_start are seen */
    if (!started || !atomic_load_explicit(&enabled, memory_order_acquire))
        return;
    uint64_t h = atomic_load_explicit(&head, memory_order_relaxed);
    if (h - atomic_load_explicit(&tail, memory_order_acquire) >= RING) {
        atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
        started = 0;
        return;
    }
    ring[h % RING] = (struct gcevents_pause){started, end, which_collector()};
    started = 0;
    atomic_store_explicit(&head, h + 1, memory_order_release);
}

const struct gcevents_pause *gcevents_next(void)
{
    uint64_t t = atomic_load_explicit(&tail, memory_order_relaxed);
    if (atomic_load_explicit(&head, memory_order_acquire) == t)
        return NULL;
    return &ring[t % RING];
}

void gcevents_release(void)
{
    atomic_fetch_add_explicit(&tail, 1, memory_order_release);
}

uint64_t gcevents_dropped(void)
{
    return atomic_load_explicit(&dropped, memory_order_relaxed);
}
