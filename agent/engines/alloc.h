/* alloc.h: allocation profiling (agent option alloc[=BYTES]). HotSpot samples allocations
 * itself (JEP 331, JDK 11+): each thread takes a sample when its allocated bytes pass a random
 * point, the distance between points drawn from an exponential distribution of mean
 * `interval` bytes (JVMTI SetHeapSamplingInterval), and posts SampledObjectAlloc on that
 * thread, outside any lock, with the object's class and size. The callback pushes a sample
 * (evsample.h) of kind ALLOC whose leaf is the class and whose weight is the bytes it stands
 * for: an object of s bytes is sampled with probability p = 1 - exp(-s / interval), so
 * s / p bytes and 1 / p objects is the unbiased estimate (collector/format/FORMAT.md,
 * section 10). The callback runs on Java threads, never in a signal handler.
 *
 * Lifecycle (control context): alloc_start after evsample_start; alloc_stop disables the
 * event and puts the interval back to HotSpot's default, so an idle agent costs nothing. */
#ifndef ALLOC_H
#define ALLOC_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "ring.h"

#define ALLOC_DEFAULT_INTERVAL (512u * 1024u) /* HotSpot's own default too */

/* The engines (engine.h). alloc, enabled by alloc=: start adds the capability (refused: the
 * session goes on without it, ENGINE_SKIPPED) and calls alloc_start; stop is alloc_stop.
 * live, enabled by live: nothing to start (alloc tracks the objects); its stop, which comes
 * after evsample's, makes the live view (alloc_live_flush) once the callbacks have drained. */
extern const struct engine alloc_engine, live_engine;

/* Adds the capability can_generate_sampled_object_alloc_events (live phase allowed on
 * HotSpot). Returns 0 or -ENOTSUP. Control context. */
int alloc_capability(jvmtiEnv *jvmti);

/* Sets the sampling interval and enables SampledObjectAlloc; with live, each sampled object
 * is also tracked by a JNI weak reference, in a table of ALLOC_LIVE_SLOTS (a sample replaces
 * the one in its slot, id % ALLOC_LIVE_SLOTS, and the writer mirrors the table), for
 * alloc_live_flush. Returns 0 or -errno with err filled. */
int alloc_start(jvmtiEnv *jvmti, uint64_t interval_bytes, int live, char *err, size_t errlen);

#define ALLOC_LIVE_SLOTS 16384

/* The live view, at the end of a session (after alloc_stop, callbacks drained): forces a
 * garbage collection (JVMTI ForceGarbageCollection, so only reachable objects remain), pushes
 * into ring one LIVE record (SAMPLE_LIVE_REF) per tracked object still reachable, and frees
 * every weak reference. A no-op unless the session tracked objects. Control context; jni: the
 * calling thread's (NULL: found through the JavaVM). Returns how many are live. */
unsigned alloc_live_flush(jvmtiEnv *jvmti, JNIEnv *jni, struct ring *ring);

/* Disables the event and restores the default interval. Idempotent. */
void alloc_stop(jvmtiEnv *jvmti);

/* The SampledObjectAlloc callback (agent.c registers it). */
void JNICALL alloc_on_sampled(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object,
                              jclass klass, jlong size);

/* The weight of a sampled object of size bytes at mean interval bytes:
 * size / (1 - exp(-size / interval)), rounded; size when interval is 0 (every allocation
 * sampled). Pure; exposed for tests. */
uint64_t alloc_weight(uint64_t size, uint64_t interval);

#endif
