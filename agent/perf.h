/* perf.h: the perf_events CPU engine: one PERF_COUNT_SW_CPU_CLOCK event per Java thread,
 * whose overflow sends the CPU signal (SIGPROF, or the signal handler_install chose when another
 * library handles SIGPROF: F_SETSIG) to that thread (F_SETOWN_EX). Unlike CPU timers it is not
 * limited to one signal per kernel tick, so 1 ms sampling really takes 1000 samples/s. */
#ifndef PERF_H
#define PERF_H

#include <stdint.h>

#include "threads.h"

/* Checks that perf events can be opened here (permissions, kernel). Returns 0 or -errno.
 * Control context. */
int perf_probe(void);

/* Opens events on every live registered thread. Returns 0 or -errno. Control context. */
int perf_start(uint64_t interval_ns);

/* Closes every event. Control context. */
void perf_stop(void);

/* Opens the event of one thread if the engine runs (idempotent). Under the registry lock,
 * from ThreadStart. */
void perf_thread_start(struct threads_entry *e);

/* Closes one thread's event. Under the registry lock, from ThreadEnd. */
void perf_thread_end(struct threads_entry *e);

#endif
