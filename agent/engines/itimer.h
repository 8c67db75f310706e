/* itimer.h: the process-wide CPU engine, setitimer(ITIMER_PROF). Cheap to set up, but the
 * kernel picks which thread gets each signal, so per-thread splits are unfair (FACTS.md). */
#ifndef ITIMER_H
#define ITIMER_H

#include "engine.h"

/* The engine (engine.h): start sets ITIMER_PROF, -EBUSY when the process's ITIMER_PROF
 * already runs (someone else's: flyprof does not take it over); no per-thread samplers. */
extern const struct engine itimer_engine;

#endif
