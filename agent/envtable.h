/* envtable.h: JNIEnv and registry slot by kernel tid, for Java threads that were already
 * running when the agent attached: ThreadStart never ran on them, so their TLS is empty and
 * their signal handler looks them up here. A preallocated open-addressing table; lookups are
 * lock-free and async-signal-safe, inserts and removals are serialized by the registry lock.
 */
#ifndef ENVTABLE_H
#define ENVTABLE_H

#include <jni.h>
#include <stdint.h>

/* Adds or replaces tid -> (env, slot1). Returns 0, or -ENOSPC when the table is full.
 * Registry lock held. */
int envtable_put(int tid, JNIEnv *env, uint32_t slot1);

/* Removes tid (no-op when absent). Registry lock held. */
void envtable_remove(int tid);

/* The env and slot + 1 of tid: returns the env, or NULL when tid is absent.
 * Async-signal-safe. */
JNIEnv *envtable_get_sigsafe(int tid, uint32_t *slot1);

#endif
