/* lock.h: lock profiling (agent option lock[=TIME]): waits of TIME or longer (default 10us)
 * to enter a contended lock, as samples of kind LOCK weighing the ns waited, with the lock's
 * class as their leaf frame (evsample.h), taken on the waiting thread when it gets the lock:
 *
 * - `synchronized`: JVMTI MonitorContendedEnter (the thread starts to wait: its TSC time goes
 *   into a thread-local) and MonitorContendedEntered (it got the monitor: the wait is the
 *   difference). HotSpot posts them only on the contended path, so uncontended locking costs
 *   nothing. State BLOCKED; the leaf is the monitor object's class.
 * - java.util.concurrent locks: JVMTI has no park event, and a wall sample of a PARKED thread
 *   neither times the wait nor tells a lock from a queue. A thread waiting for a
 *   ReentrantLock, ReentrantReadWriteLock, Semaphore, ... parks in Unsafe.park with its
 *   Thread.parkBlocker set to the lock's AbstractQueuedSynchronizer (or
 *   AbstractQueuedLongSynchronizer; a CountDownLatch's is one too, and is left out: a latch
 *   is no lock); a Condition's await or a pool's queue parks with another
 *   blocker. So the agent binds Unsafe.park's native entry to a function of its own (JNI
 *   RegisterNatives, called from a class it defines in the boot loader so that HotSpot logs
 *   no warning; Unsafe.park is not a compiler intrinsic, so every call goes through the
 *   native entry) that reads parkBlocker, calls HotSpot's Unsafe_Park (found in libjvm's
 *   symbol table), and times the park when the blocker is such a synchronizer. A thread that
 *   parks more than once for one acquisition (woken, then beaten to the lock) gives one
 *   sample per park of TIME or longer. State PARKED; the leaf is the blocker's class
 *   (java.util.concurrent.locks.ReentrantLock$NonfairSync).
 *
 * Lifecycle (control context): lock_start after evsample_start; lock_stop disables the events
 * and binds Unsafe.park back to HotSpot's function. Callbacks are on Java threads (never in
 * a signal handler); the park hook stays callable after a stop (a thread may be inside it)
 * and then only calls HotSpot's function. */
#ifndef LOCK_H
#define LOCK_H

#include <jvmti.h>
#include <stdint.h>

#include "engine.h"

#define LOCK_DEFAULT_THRESHOLD_NS 10000ull /* 10 us */

/* The engine (engine.h), enabled by lock=: start adds the capability (refused: the session
 * goes on without it, ENGINE_SKIPPED) and calls lock_start; stop is lock_stop. */
extern const struct engine lock_engine;

/* Adds can_generate_monitor_events. Returns 0 or -ENOTSUP. Control context. */
int lock_capability(jvmtiEnv *jvmti);

/* Enables the monitor events and the park hook for waits of threshold_ns or longer. Returns
 * 0, or -errno with err filled. When only the park hook cannot be installed (Unsafe_Park not
 * found) it returns 0 with a warning in err (monitors are still profiled). */
int lock_start(jvmtiEnv *jvmti, JNIEnv *jni, uint64_t threshold_ns, char *err, size_t errlen);

/* Disables the events and unhooks Unsafe.park. Idempotent. jni: the calling thread's. */
void lock_stop(jvmtiEnv *jvmti, JNIEnv *jni);

/* The monitor callbacks (agent.c registers them). */
void JNICALL lock_on_contended_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object);
void JNICALL lock_on_contended_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                                       jobject object);

#endif
