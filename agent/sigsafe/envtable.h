/* envtable.h: JNIEnv and registry slot by kernel tid, for Java threads that were already
 * running when the agent attached: ThreadStart never ran on them, so their TLS is empty and
 * their signal handler looks them up here. A preallocated open-addressing table; lookups are
 * lock-free and async-signal-safe, inserts and removals are serialized by the registry lock.
 *
 * Exactness: an entry is put while its thread is known to be alive and removed when it ends
 * (threads.c), but a tid can outlive the thread in the table for a moment (a thread that ended
 * without a ThreadEnd event, checked once a period) and the kernel reuses tids. So a handler
 * never takes an entry on trust: envtable_get_sigsafe hands out an entry's JNIEnv only when it
 * is the calling thread's own, read from HotSpot's own thread-local (the Thread* HotSpot keeps
 * under a pthread key for its signal handlers, ThreadLocalStorage::thread()), once that probe
 * is set up (envtable_set_probe).
 */
#ifndef ENVTABLE_H
#define ENVTABLE_H

#include <jni.h>
#include <pthread.h>
#include <stdint.h>

/* Adds or replaces tid -> (env, slot1). Returns 0, or -ENOSPC when the table is full.
 * Registry lock held. */
int envtable_put(int tid, JNIEnv *env, uint32_t slot1);

/* Removes tid (no-op when absent). Registry lock held. Leaves a tombstone only inside a run
 * of cells that other keys' probes pass: removing every entry leaves the table empty. */
void envtable_remove(int tid);

/* Cells holding an entry or a tombstone (what a lookup of an absent tid may walk). Registry
 * lock held, or no writer. */
unsigned envtable_used_cells(void);

/* The entry of tid as stored, whoever asks: 1 with *env and *slot1 set, or 0 when absent.
 * Registry lock held. */
int envtable_find(int tid, JNIEnv **env, uint32_t *slot1);

/* The env and slot + 1 of tid, which must be the calling thread's kernel tid: returns the
 * env, or NULL when tid is absent or (probe set up) the entry's env is not the calling
 * thread's own. Async-signal-safe. */
JNIEnv *envtable_get_sigsafe(int tid, uint32_t *slot1);

/* Sets up the probe of HotSpot's thread-local: key is the pthread key under which HotSpot
 * keeps each thread's Thread*, env_off the offset of a JavaThread's JNIEnv inside it, and
 * functions the JNI function table every JavaThread's JNIEnv points to (what tells a
 * JavaThread from HotSpot's other threads). Before any handler can look entries up. */
void envtable_set_probe(pthread_key_t key, intptr_t env_off, const void *functions);

/* The calling thread's JNIEnv as HotSpot knows it: NULL when the probe is not set up, the
 * thread is not one of HotSpot's, or not a JavaThread. Async-signal-safe. */
JNIEnv *envtable_current_env_sigsafe(void);

/* 1 when the probe is set up. */
int envtable_probe_ready(void);

#endif
