/* thread_filter.h: the tracer-managed thread filter, a bitset over the registry's dense
 * slots. A tracer marks the current thread while it serves a request (Java API
 * dev.flyprof.ThreadFilter); with the `filter` option, wall-clock sampling picks only marked
 * threads. Bits are C11 atomics with relaxed order: a membership is a hint read once per
 * tick, ordering nothing else.
 */
#ifndef THREAD_FILTER_H
#define THREAD_FILTER_H

#include <stdint.h>

/* Marks / unmarks slot. Any thread; add/remove are what the JNI natives call, ~1 ns. */
void thread_filter_add(uint32_t slot);
void thread_filter_remove(uint32_t slot);

/* Unmarks slot (thread start/end, so a reused slot starts unmarked). */
void thread_filter_clear(uint32_t slot);

/* Word w of the bitset. Any thread. */
uint64_t thread_filter_word(uint32_t w);

/* 1 if slot is marked. */
int thread_filter_has(uint32_t slot);

#endif
