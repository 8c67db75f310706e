/* itimer.h: the process-wide CPU engine, setitimer(ITIMER_PROF). Cheap to set up, but the
 * kernel picks which thread gets each signal, so per-thread splits are unfair (FACTS.md). */
#ifndef ITIMER_H
#define ITIMER_H

#include <stdint.h>

/* Returns 0 or -errno. Control context. */
int itimer_start(uint64_t interval_ns);

/* Control context. */
void itimer_stop(void);

#endif
