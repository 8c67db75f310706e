/* wallclock.h: the wall-clock sampler. A JVMTI agent thread wakes every interval (dithered
 * by about +-10% so it does not beat with periodic work), takes the candidates (every live
 * Java thread, or only the thread filter's members), reservoir-samples up to N of them
 * uniformly (Algorithm L), reads each chosen thread's state (java.lang.Thread's status word,
 * in constant time) and samples it the cheapest exact way:
 * - a thread whose CPU time has not moved since its last wall stack has not run, so its stack
 *   is that one: the writer repeats it (no signal, no walk; most threads of a server wait);
 * - a thread that cannot be running Java code -- blocked, waiting, parked, sleeping, or
 *   RUNNABLE in native code (its JVM state, read from its JavaThread) -- is at a safe point:
 *   the sampler reads its stack with JVMTI GetStackTrace, exactly and without waking it (a
 *   thread blocked in a native poll or read gets no EINTR); AsyncGetCallTrace cannot walk a
 *   thread that blocked on a monitor from compiled code;
 * - a thread running Java code gets the wall signal, tagged with the state and the tick id,
 *   unless the one sent before is still queued (it waits for a core, or blocks signals): then
 *   none is sent and that one's sample weighs this tick too. At most one is ever queued.
 * The tick's "signaled" count covers all of these. Each tick's counts go into the ring as a
 * tick record, so converters can upscale: a sample stands for candidates / chosen threads.
 */
#ifndef WALLCLOCK_H
#define WALLCLOCK_H

#include <jvmti.h>
#include <stdint.h>

#include "engine.h"
#include "ring.h"

/* The engine (engine.h): enabled by wall=; probe refuses while the sampler of an earlier
 * session has not stopped; start runs the sampler thread, stop stops it (waiting up to 5 s),
 * lingering says whether it is still running after that; thread_start forgets a new thread's
 * slot state (handler_wall_reset). */
extern const struct engine wall_engine;

/* Starts the sampler thread. Live phase, a thread with a JNIEnv. Returns 0 or -errno. */
int wallclock_start(jvmtiEnv *jvmti, JNIEnv *jni, struct ring *ring, uint64_t interval_ns,
                    unsigned max_threads, int filter, unsigned depth);

/* Stops the sampler and waits up to timeout_ns until its thread has left its loop. Returns 0,
 * or -ETIMEDOUT when it is still in a tick (then it still uses its ring and configuration:
 * wallclock_start refuses until it has left). Idempotent. Any thread but the sampler. */
int wallclock_stop(uint64_t timeout_ns);

/* 1 while a sampler thread runs (including one wallclock_stop stopped waiting for). */
int wallclock_running(void);

/* Chooses k of n items uniformly (Algorithm L over the stream 0..n-1): writes min(n, k)
 * distinct indices, sorted ascending, into out and returns how many. rng is the state of a
 * xorshift generator (non-zero). Pure; exposed for tests. */
uint32_t wallclock_choose(uint32_t n, uint32_t k, uint64_t *rng, uint32_t *out);

/* Maps JVMTI thread state bits to enum fpl_state. Pure; exposed for tests. */
int wallclock_state(jint jvmti_state);

#endif
