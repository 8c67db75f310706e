/* cputimer.h: the default CPU engine: one CPU-time timer per Java thread
 * (timer_create on the thread's CPU clock, SIGEV_THREAD_ID, the CPU signal handler_install
 * chose: SIGPROF, or a real-time signal when another library handles SIGPROF). Each sample weighs
 * 1 + si_overrun, because the kernel delivers at most one signal per tick (FACTS.md). */
#ifndef CPUTIMER_H
#define CPUTIMER_H

#include <stdint.h>

#include "threads.h"

/* Arms timers on every live registered thread. Returns 0 or -errno. Control context. */
int cputimer_start(uint64_t interval_ns);

/* Deletes every timer. Control context. */
void cputimer_stop(void);

/* Creates and arms the timer of one thread, if the engine runs and the thread has none
 * (idempotent). Called under the registry lock from ThreadStart. */
void cputimer_thread_start(struct threads_entry *e);

/* Deletes one thread's timer. Called under the registry lock from ThreadEnd. */
void cputimer_thread_end(struct threads_entry *e);

#endif
