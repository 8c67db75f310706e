/* engines.c: the table of engines (engines.h), in start order. */
#include "engines.h"

#include "alloc.h"
#include "cputimer.h"
#include "evsample.h"
#include "hiccup.h"
#include "itimer.h"
#include "lock.h"
#include "perf.h"
#include "wallclock.h"

const struct engine *const engines[] = {
    &cputimer_engine, &perf_engine, &itimer_engine, /* CPU: one of them, before the writer */
    &live_engine,     /* stops after evsample: it reads what the callbacks left */
    &evsample_engine, /* before alloc and lock, which sample through it */
    &alloc_engine,    &lock_engine, &hiccup_engine, &wall_engine,
};
const size_t engines_count = sizeof(engines) / sizeof(engines[0]);
_Static_assert(sizeof(engines) / sizeof(engines[0]) <= ENGINES_MAX, "engines.h: ENGINES_MAX");

const struct engine *engine_of(int id)
{
    for (size_t i = 0; i < engines_count; i++)
        if (engines[i]->id != FPL_ENGINE_NONE && engines[i]->id == id)
            return engines[i];
    return &cputimer_engine;
}
