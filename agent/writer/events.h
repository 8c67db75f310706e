/* events.h: the flyweight event log of dev.flyprof.Events: `Events.log(n)` and
 * `Events.log(n, s)` stamp a raw clock tick (agent/sigsafe/tsc.h's clock) on an event in a buffer of the
 * calling thread's own; the writer drains the buffers into the log (FPL_REC_EVENTS).
 *
 * Buffers. A thread gets its buffer on its first event of a profiling session (found through
 * initial-exec TLS after that): N x 16 bytes rounded up to a power of two (agent option
 * events=N). It is a single-producer (the thread) single-consumer (the writer) byte ring of
 * records: 16 bytes for an event without a string, 16 + 2 x chars rounded up to 16 with one
 * (the string's first EVENTS_MAX_CHARS UTF-16 units, copied with GetStringRegion; the writer
 * converts them to modified UTF-8). Nothing on the way is shared with other threads: the ring,
 * its counters and its drop count are the thread's. GetStringRegion with the length passed from
 * Java measured ~21 ns per call on JDK 17 here, GetStringUTFRegion + strlen ~30 ns, and asking
 * JNI for the length (GetStringLength) another ~10 ns: each JNI callback is a VM transition.
 *
 * Waking the writer. A buffer passing a quarter full asks the writer to drain (a wake
 * callback that never blocks), at most once until the writer has moved on. That wake is a
 * syscall on the logging thread (an eventfd write, and an inter-processor interrupt to wake the
 * writer's core, a VM exit here), and the writer then drains on the other core while the
 * thread goes on writing: with a wake every 2048 events (a loop of 4000 18-character events
 * into the default buffer) it doubled Events.log(int, String)'s time. So while events flow the
 * writer polls instead: it looks at the buffers every EVENTS_POLL_NS on its own clock, a
 * quarter of that after a drain that found many (events_set_polling; writer.c), and a buffer
 * wakes it only once half full; or at a quarter full as before when its last drain began more
 * than 1.5 periods ago (it did not get a core in time). The writer stops polling, and sleeps
 * until woken again, once no event came for a while. At 10M events/s over 4 threads on a
 * loaded 2-core machine (load 6-7) nothing is dropped either way, and the calls that wait for
 * the writer are as many as with the wakes, within the runs' spread (61-308 with the wakes,
 * 70-862 polling, over six runs each).
 *
 * Waiting, not losing. A thread whose
 * buffer is full anyway (it logs faster than the writer drains, or the writer did not get a
 * core in time) wakes the writer and sleeps on a futex (the low half of the buffer's tail)
 * until the writer has made room, at most wait_ns (agent option eventwait=, 1 s by default):
 * so up to the writer's pace nothing is lost, and a faster thread is slowed to that pace. A
 * profiler must not stop the application for long: a wait that runs out drops the event, and
 * the thread then drops without waiting until the writer's tail moves again (a stuck writer
 * costs each thread one wait, not one per event). Measured with 4 threads at 10M events/s in
 * all on a loaded 2-core machine: 0 dropped (10% before the waits), 381 calls waited,
 * 0.7 s in all. Counters 56-58 count the waits, their time and the ones that ran out.
 *
 * Nothing is lost silently. A dropped event is counted in the buffer; the next event that fits
 * carries the count (a gap record in the ring, the "dropped" field of the event in the log),
 * and drops after a thread's last event are logged when the thread ends or profiling stops.
 *
 * Memory: at most one buffer per live thread that has logged an event while profiling ran (it
 * keeps it until it ends or logs in a later session), plus buffers of ended threads until the
 * writer has drained them: N x 16 bytes (rounded up to a power of two) + 192 bytes each, and
 * EVENTS_MAX_TOTAL_BYTES in all (a thread that would pass it drops its events, counted as
 * when memory runs out). When profiling stops, the data pages of the buffers left to live
 * threads go back to the system (madvise).
 *
 * Lifetime. Only the owner thread ever lets a buffer go (when it ends: a pthread key
 * destructor; or when it logs in a newer session: the old buffer is retired). A buffer the
 * writer is still draining (of the session being drained) is then marked gone and freed by
 * the writer once empty; any other is freed at once. So neither side can touch freed memory.
 *
 * Synchronization (what each shared datum orders):
 *  - events_gen (atomic): the running session's generation, 0 when off. Release store in
 *    events_start (after the buffer size and clock are set) pairs with the producer's acquire
 *    load. A producer that loaded a generation just before events_stop may still put its event
 *    into its buffer after the writer's last drain: such an event is not logged (the stop race,
 *    nanoseconds wide).
 *  - buffer head (atomic): release store by the producer after writing its records pairs with
 *    the writer's acquire load: the writer reads only whole records.
 *  - buffer tail (atomic): release store by the writer after reading records pairs with the
 *    producer's acquire load: the producer overwrites only bytes the writer is done with.
 *  - buffer waiting (atomic): a producer about to sleep stores 1, then loads tail; the writer
 *    stores tail, then loads waiting and wakes the futex when it is set; all four seq_cst.
 *    One of the two sees the other's store: no wakeup is lost (and FUTEX_WAIT itself returns
 *    at once when the tail moved since the producer read it).
 *  - pending drops (atomic, relaxed): written by the producer alone; read by the writer only
 *    once the owner is gone (after `lock`, which orders it) or profiling stopped.
 *  - the list of buffers, `gone`, and the generation being drained: under `lock` (buffer
 *    creation and end: once per thread and session; the writer's snapshot and frees).
 *
 * Contexts: events_jni_* are JNI natives (application threads; they may malloc on a thread's
 * first event). events_start runs on a control thread before the writer starts; events_stop,
 * events_drain and events_finish on the writer thread. Not for signal handlers.
 */
#ifndef EVENTS_H
#define EVENTS_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "fpl_codec.h"

#define EVENTS_MAX_CHARS 63 /* UTF-16 units of a string kept; longer ones are truncated */
#define EVENTS_UNIT 16      /* bytes of the smallest record (an event without a string) */
#define EVENTS_MAX_TOTAL_BYTES (256ull << 20) /* every thread's buffer together */

/* Where events_drain writes: the chunk being filled and a way to name a thread. */
struct events_sink {
    struct fpl_buf *buf;
    /* The THREAD dictionary id of the thread with registry slot slot1 (0: not registered) and
     * kernel tid. May append a THREAD record to buf (it is called before each EVENTS record
     * begins). */
    uint32_t (*thread_id)(void *ctx, uint32_t slot1, int tid);
    void *ctx;
    size_t flush_bytes; /* events_drain returns once buf holds this many bytes */
};

/* Starts a session's events: buffers of units x 16 bytes (rounded up to a power of two;
 * units 0: events off for this session), clock ticks from tsc.h's clock (tsc_init done),
 * wake() called (never from a signal handler, any application thread, must not block) when a
 * buffer passes a quarter full or is full; a producer waits up to wait_ns for room in its full
 * buffer (0: drops at once). Control thread, before the writer starts; not while a session's
 * events run. Returns 0, or -errno when the thread-exit hook cannot be set up (events off). */
int events_start(uint32_t units, uint64_t wait_ns, void (*wake)(void));

/* Turns the producers off: calls return at once from now on. Writer thread, before its last
 * drain. */
void events_stop(void);

/* How often the writer looks at the buffers while it polls, in ns. */
#define EVENTS_POLL_NS 1000000ull

/* on 1: the writer polls the buffers every EVENTS_POLL_NS from now on, so producers wake it
 * only when a buffer passes half full; 0: it sleeps until woken (a quarter full). Writer
 * thread. */
void events_set_polling(int on);

/* Moves events from the threads' buffers into s->buf as EVENTS records (and THREAD records
 * through s->thread_id), at most max events, stopping early once s->buf->len reaches
 * s->flush_bytes; frees the buffers of ended threads once drained. Sets *more when it stopped
 * early (more may be waiting). Returns the events written. Writer thread. */
size_t events_drain(const struct events_sink *s, size_t max, int *more);

/* After events_stop and the last events_drain: logs the drops that no later event carried
 * (s NULL: logs nothing, when no writer ran) and frees what no thread owns any more. Writer
 * thread, or the control thread whose writer failed to start. */
void events_finish(const struct events_sink *s);

/* The natives of dev.flyprof.Events: log0(int) and log1(int, String, int length), the length
 * being s.length() (the Java side passes it and a non-null s). Application threads, JNI. */
/* Bytes held by the event buffers now (at most EVENTS_MAX_TOTAL_BYTES). Any thread. */
uint64_t events_bytes(void);

void JNICALL events_jni_log(JNIEnv *jni, jclass cls, jint n);
void JNICALL events_jni_log_str(JNIEnv *jni, jclass cls, jint n, jstring s, jint len);

#endif
