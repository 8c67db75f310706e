/* engine.c: the CPU engines by their log id (engine.h). */
#include "engine.h"

#include <stddef.h>

static const struct cpu_engine *const engines[] = {&cputimer_engine, &perf_engine,
                                                   &itimer_engine};

const struct cpu_engine *engine_of(int id)
{
    for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
        if (engines[i]->id == id)
            return engines[i];
    return &cputimer_engine;
}
