/* tasks.h: one CPU sampler per thread of the process -- every thread, not only Java threads:
 * GC workers, JIT compilers, the VM thread, native threads. Each thread gets a CPU-time timer
 * (cputimer engine) or a perf event (perf engine), and never two: the table here, keyed by
 * kernel tid, is the only owner of both.
 *
 * Threads are found in /proc/self/task when the engine starts and again by tasks_refresh,
 * which the writer calls every loop: it lists the threads again every second, and, for a
 * second after the process's thread count changed, every TASKS_POLL_NS when it changes again
 * (or 20 times what the last listing took if more: scans stay under 5% of a core), so the
 * threads a JVM adds one after another under load (GC workers) lose little CPU time to the
 * wait, while a steady process costs the writer one wakeup a second: new threads are armed,
 * the samplers of vanished threads deleted. Java threads are armed at once by
 * ThreadStart (tasks_thread_start) and disarmed by ThreadEnd; an ended thread whose tid is
 * still listed (it is exiting) is not armed again unless it is still listed 200 ms later
 * (the threads are listed then): it detached from the JVM (DetachCurrentThread posts
 * ThreadEnd) and goes on as a native thread. ThreadStart and ThreadEnd read no /proc file
 * (only the timer's system calls, and at most one wakeup of the writer per listing): every
 * thread start and end in the JVM waits for them.
 * flyprof's own threads are armed too: their CPU is part of the process's, and their samples
 * name them ("flyprof writer", "flyprof wall sampler"), so the profile shows what the
 * profiler costs.
 *
 * Synchronization: one mutex over the table. tasks_thread_start/_end run under the thread
 * registry's lock (lock order: registry, then tasks); nothing here takes the registry lock.
 * Never from a signal handler. */
#ifndef TASKS_H
#define TASKS_H

#include <stdint.h>

#include "engine.h"

/* Arms every thread of the process with engine's arm (a per-thread engine, engine.h, whose
 * interval is already set). Returns 0 or -errno. Control context. */
int tasks_start(const struct engine *engine);

/* Disarms and forgets every thread. Control context (or the writer, when duration= ends). */
void tasks_stop(void);

/* A Java thread started (ThreadStart on it, or adopted at attach): arms tid, again when its
 * entry is armed already -- that may be the entry of an earlier thread with the same tid
 * that ended unseen (no ThreadEnd) before a scan noticed, whose timer died with it. A native
 * thread that reuses such a tid before the next scan is not armed while the tid stays listed
 * (the scans cannot tell it from the old thread without reading its /proc stat). */
void tasks_thread_start(int tid);

/* A Java thread is ending (ThreadEnd on it): disarms tid. */
void tasks_thread_end(int tid);

/* tasks_thread_start / tasks_thread_end as the thread hooks of a per-thread CPU engine
 * (engine.h); slot is not used. */
void tasks_engine_thread_start(int tid, uint32_t slot);
void tasks_engine_thread_end(int tid, uint32_t slot);

#define TASKS_POLL_NS 100000000ull    /* how often the thread count is read while it changes */
/* the threads are listed in any case when this long has passed: a bit under the writer's
 * one-second period, so that each periodic wakeup lists them */
#define TASKS_SCAN_NS 900000000ull
#define TASKS_BUSY_NS 1000000000ull   /* "while it changes": since the last change */
/* the first TASKS_STARTUP_NS of a session the count is read every TASKS_STARTUP_POLL_NS even
 * when it did not change (the JVM's GC workers start then, one by one) */
#define TASKS_STARTUP_NS 2000000000ull
#define TASKS_STARTUP_POLL_NS 250000000ull

/* Arms the threads that appeared since the last scan and deletes the samplers of threads that
 * are gone (see above for when it lists them). Returns the ns until it wants to be called
 * again: TASKS_POLL_NS while the thread count changed in the last TASKS_BUSY_NS, else
 * TASKS_STARTUP_POLL_NS in a session's first TASKS_STARTUP_NS, else UINT64_MAX (the writer's
 * next periodic wakeup will do). Writer thread, as often as it
 * likes. */
uint64_t tasks_refresh(void);

/* Threads armed now. Any thread. */
int tasks_armed(void);

#endif
