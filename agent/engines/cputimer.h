/* cputimer.h: the default CPU engine: one CPU-time timer per thread of the process, Java or
 * not (timer_create on the thread's CPU clock, SIGEV_THREAD_ID, the CPU signal
 * handler_install chose: SIGPROF, or a real-time signal when another library handles
 * SIGPROF); tasks.c decides which threads have one. Each sample weighs 1 + si_overrun, because
 * the kernel delivers at most one signal per tick (FACTS.md). */
#ifndef CPUTIMER_H
#define CPUTIMER_H

#include <stdint.h>
#include <time.h>


/* Arms timers on every thread of the process (tasks_start). Returns 0 or -errno. Control
 * context. */
int cputimer_start(uint64_t interval_ns);

/* Deletes every timer. Control context. */
void cputimer_stop(void);

/* Creates and arms a CPU-time timer on thread tid at the engine's interval. Returns 0 with
 * *out set, -ESRCH when the thread is gone, or -errno. tasks.c only, under its lock. */
int cputimer_arm(int tid, timer_t *out);

/* Deletes a timer made by cputimer_arm. tasks.c only. */
void cputimer_disarm(timer_t t);

#endif
