/* gcevents.h: garbage collection pauses on the sample clock. JVMTI GarbageCollectionStart and
 * GarbageCollectionFinish (posted by HotSpot around each stop-the-world collection, in the
 * thread that runs it, at a safepoint) stamp the TSC into a ring the writer drains; at finish
 * the collector that ran is found from PerfData (the sun.gc.collector.N.invocations counter
 * that moved). The callbacks neither allocate, lock nor call JVMTI or JNI.
 *
 * gcevents_start/stop on control threads; the callbacks on the JVM's GC thread; gcevents_next
 * and gcevents_release on the writer thread only.
 */
#ifndef GCEVENTS_H
#define GCEVENTS_H

#include <jvmti.h>
#include <stdint.h>

#include "perfdata.h"

struct gcevents_pause {
    uint64_t start, end; /* ticks */
    int collector;       /* index into the PerfData collectors, -1: unknown */
};

/* Enables the two events; pd (may be NULL or closed) names collectors. Returns 0 or -EINVAL
 * when JVMTI refused (the capability is then missing: pauses are simply not recorded). */
int gcevents_start(jvmtiEnv *jvmti, const struct perfdata *pd);

/* Disables the events. Pauses already recorded stay for the writer. */
void gcevents_stop(jvmtiEnv *jvmti);

/* The JVMTI callbacks (agent.c registers them). */
void JNICALL gcevents_on_start(jvmtiEnv *jvmti);
void JNICALL gcevents_on_finish(jvmtiEnv *jvmti);

/* The oldest pause not yet released, or NULL. */
const struct gcevents_pause *gcevents_next(void);

/* Releases the pause gcevents_next returned. */
void gcevents_release(void);

/* Pauses lost because the ring was full (the writer fell behind). */
uint64_t gcevents_dropped(void);

#endif
