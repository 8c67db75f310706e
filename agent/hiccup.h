/* hiccup.h: hiccup mode (options hiccup[=RESOLUTION], stall=THRESHOLD): a probe thread (a
 * JVMTI agent thread named "flyprof hiccup") that asks to sleep RESOLUTION, again and again, and
 * measures with the sample clock how late it runs again, as jHiccup does, for two probes:
 *   - the OS probe: when it wakes, in native code, where safepoints do not hold it: the OS
 *     and hypervisor alone;
 *   - the Java probe: when, after that, a JNI call has entered the VM, which waits while a
 *     safepoint or a GC is in progress: the JVM's pauses on top of the OS's.
 * One thread for both halves the cost, which is the wake-ups' (10-20 us of kernel CPU each on
 * a KVM guest) more than anything the probe does.
 * Each probe keeps per 1 s interval a histogram of its delays (fpl_hdr.h buckets), their max
 * and when it began, and the delays at or above THRESHOLD (stalls), each also kept with its
 * start and end, the thread's run-queue wait meanwhile (/proc/thread-self/schedstat, read
 * every 8 wake-ups and after each stall) and, for the Java probe, the safepoints that
 * completed meanwhile (HotSpot's PerfData counters, plain memory loads). GC pauses are
 * stamped by gcevents.c. The writer drains everything into HICCUP, STALL, GC and PAUSE_STATS
 * records (FORMAT.md 5.12-5.15); the collector attributes each stall to a cause.
 *
 * hiccup_start / hiccup_stop on control threads (serialized by control.c); hiccup_drain on the
 * writer thread only.
 */
#ifndef HICCUP_H
#define HICCUP_H

#include <jvmti.h>
#include <stdint.h>

#include "fpl_codec.h"

/* Starts both probes and the GC events. Returns 0, or -errno with err filled (a probe thread
 * could not start, or probes of an earlier session are still stuck). */
int hiccup_start(jvmtiEnv *jvmti, JNIEnv *jni, uint64_t resolution_ns, uint64_t threshold_ns,
                 char *err, size_t errlen);

/* Stops the probes (waiting at most about a second past one resolution for each to publish
 * its last interval and end) and the GC events. Idempotent. */
void hiccup_stop(void);

/* Appends to b the records of everything the probes and the GC events finished since the
 * last call, and a PAUSE_STATS record once a second while the probes run. Writer thread. */
void hiccup_drain(struct fpl_buf *b);

#endif
