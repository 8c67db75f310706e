/* threads.h: the registry of Java threads: tid -> JNI global ref, last known name, CPU timer.
 * Changed by JVMTI ThreadStart/ThreadEnd (on the thread itself), read by the engines and the
 * writer. Protected by a mutex that signal handlers never take: a handler only reads its own
 * thread's JNIEnv from TLS (tls.h).
 */
#ifndef THREADS_H
#define THREADS_H

#include <jvmti.h>
#include <stdint.h>
#include <time.h>

#define THREADS_NAME_MAX 128

struct threads_entry {
    int tid;
    jthread gref;               /* global ref to the java.lang.Thread, owned by the registry */
    char name[THREADS_NAME_MAX];
    timer_t timer;              /* cputimer: valid when has_timer */
    int has_timer;
    int perf_fd;                /* perf engine: the thread's event fd, -1 when none */
    int alive;
    int is_agent;               /* flyprof's own threads: never sampled */
    uint64_t dead_gen;          /* purge generation at death */
    struct threads_entry *next; /* hash chain */
};

/* ThreadStart callback (on the new thread): registers it (idempotent: the main thread is
 * reported twice), caches its JNIEnv in TLS, and calls on_start(entry) under the registry
 * lock if given. Returns the entry. */
void threads_on_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                      void (*on_start)(struct threads_entry *));

/* ThreadEnd callback (on the ending thread): clears the TLS env, records the final name,
 * calls on_end(entry) under the lock if given, marks the entry dead. */
void threads_on_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                    void (*on_end)(struct threads_entry *));

/* Calls fn(entry, arg) for each live entry under the registry lock. fn must not block. */
void threads_foreach_live(void (*fn)(struct threads_entry *, void *), void *arg);

/* Copies the last known name of tid into buf; returns 1 if tid is registered (alive or dead
 * and not yet purged), 0 otherwise. Any thread. */
int threads_name(int tid, char *buf, size_t len);

/* Re-reads the current name of a live thread tid through JVMTI and stores it. Returns 1 if
 * the name changed. Writer thread (needs a JNIEnv of an attached thread). */
int threads_refresh_name(jvmtiEnv *jvmti, JNIEnv *jni, int tid);

/* Frees entries that died at least one full purge period ago, so samples taken before their
 * death have been drained and named. Called by the writer once per period after a drain. */
void threads_purge(JNIEnv *jni);

/* Number of live entries. */
int threads_count_live(void);

#endif
