/* tls.h: the per-thread state a signal handler may read: the thread's JNIEnv and kernel tid,
 * in initial-exec TLS (static TLS, never allocated lazily by __tls_get_addr, so it is safe on
 * every thread, including threads created before the library was loaded). */
#ifndef TLS_H
#define TLS_H

#include <jni.h>
#include <stdint.h>

/* The calling thread's cached JNIEnv, or NULL. Async-signal-safe. */
JNIEnv *tls_env_sigsafe(void);

/* Sets the calling thread's JNIEnv (NULL to clear), with a signal fence so a handler on this
 * thread sees either the old or the new value. Thread-start/-end callbacks on the thread. */
void tls_set_env(JNIEnv *env);

/* The calling thread's registry slot + 1 (0: not registered). Async-signal-safe. */
uint32_t tls_slot(void);

/* Sets the calling thread's registry slot + 1. ThreadStart on the thread. */
void tls_set_slot(uint32_t slot1);

/* The calling thread's stack bounds, 0 when unknown. Async-signal-safe. */
uintptr_t tls_stack_lo(void);
uintptr_t tls_stack_hi(void);

/* Sets the calling thread's stack bounds. */
void tls_set_stack(uintptr_t lo, uintptr_t hi);

/* The calling thread's kernel tid, cached after the first call. Async-signal-safe. */
int tls_tid_sigsafe(void);

#endif
