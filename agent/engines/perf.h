/* perf.h: the perf_events CPU engine: one PERF_COUNT_SW_CPU_CLOCK event per thread of the
 * process, Java or not (tasks.c decides which threads have one), whose overflow sends the
 * CPU signal (SIGPROF, or the signal signals_install chose when another library handles
 * SIGPROF: F_SETSIG) to that thread (F_SETOWN_EX). Unlike CPU timers it is not
 * limited to one signal per kernel tick, so 1 ms sampling really takes 1000 samples/s. */
#ifndef PERF_H
#define PERF_H

#include "engine.h"

/* The engine (engine.h): probe checks that perf events can be opened here (permissions,
 * kernel); start opens events on every thread of the process (tasks_start), stop closes them;
 * arm opens and arms one thread's event (its overflow signals that thread); disarm disables
 * and closes it once no handler run uses it (at most 100 ms of waiting for one; a run stopped
 * inside keeps the number open on /dev/null, counted in FPL_CTR_PERF_FDS_HELD), safe while
 * handlers run. */
extern const struct engine perf_engine;

#endif
