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
#include "tsc.h"

/* the interval in force, read by callbacks (relaxed: a weight computed with the previous
 * session's interval at the instant of a restart is harmless) */
static _Atomic uint64_t interval_now;
static atomic_int enabled;

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

int alloc_start(jvmtiEnv *jvmti, uint64_t interval_bytes, char *err, size_t errlen)
{
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
    (void)object;
    if (!evsample_enter())
        return;
    uint64_t ticks = tsc_read_sigsafe();
    uint64_t s = size > 0 ? (uint64_t)size : 0;
    uint64_t w = alloc_weight(s, atomic_load_explicit(&interval_now, memory_order_relaxed));
    const char *name = classnames_of(jvmti, klass);
    if (evsample_push(jni, FPL_KIND_ALLOC, FPL_STATE_RUNNING, w, name, ticks, s))
        counters_add_sigsafe(FPL_CTR_ALLOC_SAMPLES, 1);
    evsample_leave();
}
