/* threads.h: the registry of Java threads. Each live thread owns a dense slot (the index of
 * its bit in the thread filter and in the live bitset); the entry holds its tid, a JNI global
 * ref and its last known name. The CPU engines' per-thread samplers are not here but in
 * tasks.c, keyed by tid (every thread of the process has one, Java or not).
 *
 * Synchronization:
 * - Mutators (ThreadStart/ThreadEnd callbacks, engine start/stop, purge) take `lock`.
 * - Readers (the wall-clock sampler, the writer) use liburcu's memb flavor: inside
 *   threads_read_lock/unlock an entry returned by threads_at stays allocated, and its gref
 *   valid, even if the thread ends meanwhile: purge unpublishes an entry, waits for a grace
 *   period, and only then frees it and reuses its slot.
 * - The live bitset is C11 atomics: set (release) after the entry is published, cleared
 *   (release) before it is unpublished; readers load it with acquire.
 * - Signal handlers never touch the registry: they read their own slot and JNIEnv from TLS.
 */
#ifndef THREADS_H
#define THREADS_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "slots.h"

#define THREADS_NAME_MAX 128

struct threads_entry {
    int tid;
    uint32_t slot;
    jthread gref;               /* global ref to the java.lang.Thread */
    char name[THREADS_NAME_MAX];/* under lock */
    int64_t java_id;            /* java.lang.Thread's id (getId, threadId); 0 unknown */
    int alive;                  /* under lock */
    /* flyprof's own threads: CPU-sampled like every thread (tasks.c), but never wall-sampled,
     * not in the live count, no JNIEnv in TLS; named in full by their slot */
    int is_agent;
    int adopted;                /* registered at attach (envtable), not by ThreadStart */
    uint64_t dead_gen;          /* purge generation at death */
};

/* ThreadStart callback (on the new thread): registers it (idempotent: the main thread is
 * reported twice), caches its JNIEnv and slot in TLS, and calls on_start(entry) under the
 * lock. */
void threads_on_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                      void (*on_start)(struct threads_entry *));

/* ThreadEnd callback (on the ending thread): clears its TLS, live bit and filter bit, records
 * the final name, calls on_end(entry) under the lock, marks the entry dead. */
void threads_on_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                    void (*on_end)(struct threads_entry *));

/* Calls fn(entry, arg) for each live, sampled entry under the lock. fn must not block. */
void threads_foreach_live(void (*fn)(struct threads_entry *, void *), void *arg);

/* RCU reader registration, once per reader thread before its first read section. */
void threads_reader_register(void);
void threads_reader_unregister(void);

/* An RCU read-side section. Short; may call JVMTI (GetThreadState) but must not wait for
 * threads_purge (no lock held by a mutator). */
void threads_read_lock(void);
void threads_read_unlock(void);

/* The entry in slot, or NULL. Inside a read section; the entry may be dead (alive == 0). */
struct threads_entry *threads_at(uint32_t slot);

/* Word w (0 .. THREADS_WORDS-1) of the live bitset: live Java threads that may be sampled.
 * Any thread. */
uint64_t threads_live_word(uint32_t w);

/* Number of words of the bitsets that can hold set bits (slots ever used, rounded up). */
uint32_t threads_words_used(void);

/* Copies the last known name of the thread in slot (as carried by a sample: slot + 1, 0 for
 * none) into buf when that slot still belongs to tid. Returns 1 when found. Writer. */
int threads_name(uint32_t slot1, int tid, char *buf, size_t len);

/* The Java thread id (Thread.getId) of the thread in slot (slot + 1 as threads_name takes
 * it) when that slot still belongs to tid, else 0. Writer. */
int64_t threads_java_id(uint32_t slot1, int tid);

/* Re-reads the name of the thread in slot1 (when it still belongs to tid) through JVMTI and
 * stores it. Returns 1 if the name changed. Writer thread (a JVMTI agent thread). */
int threads_refresh_name(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t slot1, int tid);

/* Frees entries dead for a full period (their samples have been drained and named), after
 * an RCU grace period, and returns their slots; first retires adopted entries whose thread
 * has ended without a ThreadEnd (Thread.eetop cleared). The writer calls it once per period,
 * outside any read section. */
void threads_purge(JNIEnv *jni);

/* Registers the Java threads that were running before the agent attached (no ThreadStart
 * reached them): finds each one's OS tid and JNIEnv through HotSpot's structures, so the
 * signal handler can walk their stacks (envtable), and calls on_start for each. The calling
 * thread is not adopted (it registers itself when it calls into the agent). Exact: a thread
 * that ends while this runs is not adopted (its ThreadEnd is seen, or its Thread.eetop is
 * cleared), one that ends afterwards is removed by its ThreadEnd, and one that ended with no
 * ThreadEnd at all (it was past that point when the events were enabled) is removed by the
 * next threads_purge, calling on_end. Also sets up the envtable's probe of HotSpot's
 * thread-local, so handlers check every entry against their own thread. Returns the number
 * adopted, or -ENOTSUP with err filled when this JVM's layout is unknown. Agent_OnAttach. */
int threads_adopt_existing(jvmtiEnv *jvmti, JNIEnv *jni,
                           void (*on_start)(struct threads_entry *),
                           void (*on_end)(struct threads_entry *), char *err, size_t errlen);

/* The offset of a thread's JNIEnv inside its JavaThread (the same for every thread), from
 * the calling thread's own pair: Thread.eetop and its JNIEnv. Returns 0, or -ENOTSUP when the
 * layout looks unfamiliar. A thread with a JNIEnv. */
int threads_env_offset(jvmtiEnv *jvmti, JNIEnv *jni, intptr_t *off);

/* While on, dead entries wait for threads_purge (the writer may still name their samples);
 * while off, ThreadEnd frees them in batches, and turning it off frees all of them.
 * Control context, a thread with a JNIEnv. */
void threads_set_deferred_purge(JNIEnv *jni, int on);

/* CPU time of flyprof's own live threads, by role (the writer reports its own): the wall
 * sampler and any other agent thread. An agent thread that ends adds its final CPU time to
 * its counter (FPL_CTR_SAMPLER_CPU_NS, FPL_CTR_AGENT_OTHER_CPU_NS) at ThreadEnd, so the
 * counter plus this is the role's CPU time in the session. Writer thread. */
void threads_agent_cpu(uint64_t *sampler_ns, uint64_t *other_ns);

/* Number of live Java threads (flyprof's own threads not counted). */
int threads_count_live(void);

/* The calling thread's JNIEnv, found through the JavaVM (JNI_GetCreatedJavaVMs, GetEnv), or
 * NULL when the thread is not attached to the JVM. For the control paths that are handed no
 * JNIEnv (a session stopped by the writer when duration= ends, VMDeath): every thread that
 * stops a session is attached. Any thread but a signal handler. */
JNIEnv *threads_current_jni(void);

#endif
