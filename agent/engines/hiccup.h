/* hiccup.h: hiccup mode (options hiccup[=RESOLUTION], stall=THRESHOLD): a probe thread (a
 * JVMTI agent thread named HICCUP_PROBE_NAME) that asks to sleep RESOLUTION, again and again,
 * and measures with the sample clock how late it runs again, as jHiccup does, for two probes:
 *   - the OS probe: when it wakes, in native code, where safepoints do not hold it: the OS
 *     and hypervisor alone;
 *   - the Java probe: when, after that, a JNI call has entered the VM, which waits while a
 *     safepoint or a GC is in progress: the JVM's pauses on top of the OS's.
 * One thread for both costs one wake-up per resolution, which is what the probes cost (the
 * kernel's timer and context switches, more than anything the probe does).
 * Each probe keeps per 1 s interval a histogram of its delays (fpl_hdr.h buckets), their max
 * and when it began, and the delays at or above THRESHOLD (stalls), each also kept with its
 * start and end, the thread's run-queue wait meanwhile (/proc/thread-self/schedstat, read
 * every 8 wake-ups, after a stall and where an interval ends) and, for the Java probe, the
 * safepoints that completed meanwhile (HotSpot's PerfData counters, plain memory loads). GC
 * pauses are stamped by gcevents.c. The writer drains everything into HICCUP, STALL, GC and
 * PAUSE_STATS records (FORMAT.md 5.12-5.15); the collector attributes each stall to a cause.
 *
 * hiccup_start / hiccup_stop on control threads (serialized by control.c); hiccup_drain on the
 * writer thread only.
 */
#ifndef HICCUP_H
#define HICCUP_H

#include <jvmti.h>
#include <stdint.h>

#include "engine.h"
#include "fpl_codec.h"

/* The probe thread's name; 14 characters, so the kernel's name of it (its comm, 15 at most)
 * is the same. */
#define HICCUP_PROBE_NAME "flyprof hiccup"

/* The engine (engine.h): enabled by hiccup=; start and stop are hiccup_start and
 * hiccup_stop. */
extern const struct engine hiccup_engine;

/* Starts the probe thread and the GC events. Returns 0, or -errno with err filled (the probe
 * thread could not start, or the one of an earlier session is still stuck). */
int hiccup_start(jvmtiEnv *jvmti, JNIEnv *jni, uint64_t resolution_ns, uint64_t threshold_ns,
                 char *err, size_t errlen);

/* Stops the probes (waiting at most about a second past one resolution for their thread to
 * publish their last intervals and end) and the GC events. Idempotent. */
void hiccup_stop(void);

/* Appends to b the records of everything the probes and the GC events finished since the
 * last call, and a PAUSE_STATS record once a second while the probes run. Writer thread. */
void hiccup_drain(struct fpl_buf *b);

#endif
