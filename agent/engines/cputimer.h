/* cputimer.h: the default CPU engine: one CPU-time timer per thread of the process, Java or
 * not (timer_create on the thread's CPU clock, SIGEV_THREAD_ID, the CPU signal
 * signals_install chose: SIGPROF, or a real-time signal when another library handles
 * SIGPROF); tasks.c decides which threads have one. Each sample weighs 1 + si_overrun, because
 * the kernel delivers at most one signal per tick (FACTS.md). */
#ifndef CPUTIMER_H
#define CPUTIMER_H

#include "engine.h"

/* The engine (engine.h): start arms timers on every thread of the process (tasks_start),
 * stop deletes them; arm makes one thread's timer at the engine's interval (-ESRCH: the thread
 * is gone). */
extern const struct engine cputimer_engine;

#endif
