/* evsample.h: samples taken in JVMTI event callbacks on the thread the event is about (alloc.c's
 * SampledObjectAlloc, lock.c's monitor events and park hook): the thread's Java stack from
 * JVMTI GetStackTrace, a class leaf frame (SAMPLE_FT_CLASS), a 64-bit weight (bytes, ns), and
 * the thread, state, TSC time and trace context that CPU and wall samples carry, pushed into
 * the ring like theirs.
 *
 * Callbacks may run while a session stops (an event already being posted when it was
 * disabled): each one brackets its work with evsample_enter / evsample_leave, which refuse
 * once evsample_stop has begun, and evsample_stop waits (bounded) for those inside. Stacks are
 * walked into one of EVSAMPLE_BUFFERS preallocated buffers of `depth` frames; a callback
 * finding them all busy drops its sample and counts it (FPL_CTR_EVSAMPLE_BUSY), so memory is
 * bounded whatever the number of threads. Never blocks, never allocates (but JVMTI's own
 * GetClassSignature in classnames.c). */
#ifndef EVSAMPLE_H
#define EVSAMPLE_H

#include <jvmti.h>
#include <stdint.h>

#include "engine.h"
#include "ring.h"

#define EVSAMPLE_BUFFERS 16

/* The engine (engine.h) of what alloc and lock share, enabled by either: start readies the
 * buffers and opens the gate (-EBUSY: a callback of the previous session has not returned),
 * stop closes it and waits up to 2 s for the callbacks inside. */
extern const struct engine evsample_engine;

/* 1 when no callback is inside and the gate is closed: what they pushed is all there is. Any
 * thread. */
int evsample_idle(void);

/* Readies the buffers for stacks of up to depth frames and opens the gate. Control context,
 * before the events are enabled. Returns 0 or -errno (-EBUSY: a callback of an earlier session
 * has not left). on_thread_start: what ThreadStart does, for the threads evsample_push
 * registers. */
int evsample_start(jvmtiEnv *jvmti, struct ring *ring, unsigned depth,
                   void (*on_thread_start)(struct threads_entry *e));

/* Closes the gate and waits up to timeout_ns for callbacks inside to leave. Returns 0 or
 * -ETIMEDOUT. Idempotent. Control context, after the events were disabled. */
int evsample_stop(uint64_t timeout_ns);

/* 1 when the calling callback may sample (then evsample_leave must follow), 0 when no session
 * takes samples. Any thread. */
int evsample_enter(void);
void evsample_leave(void);

/* Walks the calling thread's Java stack and pushes a sample of kind (enum fpl_kind) and state
 * (enum fpl_state) with weight, class_name (interned, classnames.h) as its leaf frame, taken
 * at ticks (tsc_read_sigsafe); size (an allocation's bytes, else 0) and id (an allocation
 * tracked for the live view, else 0) go after the frames (sample.h). jni: the calling
 * thread's (a thread adopted at attach is registered through it, threads.h). Between
 * evsample_enter and evsample_leave. Returns 1 when pushed, 0 when dropped (counted: ring
 * full, buffers busy). */
int evsample_push(JNIEnv *jni, int kind, int state, uint64_t weight, const char *class_name,
                  uint64_t ticks, uint64_t size, uint64_t id);

#endif
