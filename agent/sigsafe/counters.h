/* counters.h: the agent's cumulative counters (enum fpl_counter) and the handler-time
 * histogram. Incremented from signal handlers with relaxed atomics (they order nothing: each
 * is an independent statistic), read by the writer.
 */
#ifndef COUNTERS_H
#define COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

#include "fpl_format.h"

struct counters {
    _Atomic uint64_t c[FPL_CTR_MAX];
    _Atomic uint64_t hist[FPL_HIST_BUCKETS];
    _Atomic uint64_t hist_max_ns;
    _Atomic uint64_t hist_total_ns;
};

extern struct counters counters;

/* Adds v to counter id. Async-signal-safe. */
static inline void counters_add_sigsafe(unsigned id, uint64_t v)
{
    atomic_fetch_add_explicit(&counters.c[id], v, memory_order_relaxed);
}

/* Records one handler duration. Async-signal-safe. */
void counters_handler_time_sigsafe(uint64_t ns);

/* Reads counter id. Any thread. */
static inline uint64_t counters_get(unsigned id)
{
    return atomic_load_explicit(&counters.c[id], memory_order_relaxed);
}

/* Zeroes everything (at a profiling start). No handler may run concurrently. */
void counters_reset(void);

#endif
