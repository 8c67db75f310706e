/* perf.h: the perf_events CPU engine: one PERF_COUNT_SW_CPU_CLOCK event per thread of the
 * process, Java or not (tasks.c decides which threads have one), whose overflow sends the
 * CPU signal (SIGPROF, or the signal handler_install chose when another library handles
 * SIGPROF: F_SETSIG) to that thread (F_SETOWN_EX). Unlike CPU timers it is not
 * limited to one signal per kernel tick, so 1 ms sampling really takes 1000 samples/s. */
#ifndef PERF_H
#define PERF_H

#include <stdint.h>


/* Checks that perf events can be opened here (permissions, kernel). Returns 0 or -errno.
 * Control context. */
int perf_probe(void);

/* Opens events on every thread of the process (tasks_start). Returns 0 or -errno. Control
 * context. */
int perf_start(uint64_t interval_ns);

/* Closes every event. Control context. */
void perf_stop(void);

/* Opens and arms the event of thread tid (its overflow signals that thread). Returns the fd
 * or -errno (-ESRCH: no such thread). tasks.c only, under its lock. */
int perf_arm(int tid);

/* Disables and closes an event made by perf_arm, once no handler run uses it (at most 100 ms
 * of waiting for one; a run stopped inside keeps the number open on /dev/null, counted in
 * FPL_CTR_PERF_FDS_HELD). Safe from any thread while handlers run. tasks.c only. */
void perf_disarm(int fd);

#endif
