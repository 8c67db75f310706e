/* itimer.h: the process-wide CPU engine, setitimer(ITIMER_PROF). Cheap to set up, but the
 * kernel picks which thread gets each signal, so per-thread splits are unfair (FACTS.md). */
#ifndef ITIMER_H
#define ITIMER_H

#include <stdint.h>

/* Starts ITIMER_PROF. Returns 0, -EBUSY when the process's ITIMER_PROF already runs (someone
 * else's: flyprof does not take it over), or -errno. Control context. */
int itimer_start(uint64_t interval_ns);

/* Control context. */
void itimer_stop(void);

#endif
