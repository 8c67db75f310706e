/* hiccup.h: hiccup mode (options hiccup[=RESOLUTION], stall=THRESHOLD): two probe threads
 * that each ask to sleep RESOLUTION, again and again, and measure with the sample clock how
 * late they run again, as jHiccup does:
 *   - the Java probe, a JVMTI agent thread: after each sleep it makes a JNI call, which enters
 *     the VM and so waits while a safepoint or a GC is in progress: it sees the JVM's pauses
 *     on top of the OS's;
 *   - the OS probe, a plain thread the JVM does not know: the OS and hypervisor alone.
 * Each probe keeps per 1 s interval a histogram of its delays (fpl_hdr.h buckets), their max
 * and when it began, and the delays at or above THRESHOLD (stalls), each also kept with its
 * start and end, the probe's run-queue wait meanwhile (/proc/thread-self/schedstat, read
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

/* The probes' thread names: apart, so a profile's two rows are told apart. The OS probe's
 * kernel name (its comm, 15 characters at most) is a cut of its name. */
#define HICCUP_JAVA_PROBE_NAME "flyprof hiccup java"
#define HICCUP_OS_PROBE_NAME "flyprof hiccup os"
#define HICCUP_OS_PROBE_COMM "flyprof hic os"

/* The name of thread tid when it is the OS probe (a thread the JVM does not know): its name
 * into buf[0..len), 1; 0 for any other thread. Any thread. */
int hiccup_thread_name(int tid, char *buf, size_t len);

/* The engine (engine.h): enabled by hiccup=; start and stop are hiccup_start and
 * hiccup_stop. */
extern const struct engine hiccup_engine;

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
