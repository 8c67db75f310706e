/* counters.c: cumulative counters. Async-signal-safe: counters_handler_time_sigsafe. */
#include "counters.h"

struct counters counters;

void counters_handler_time_sigsafe(uint64_t ns)
{
    atomic_fetch_add_explicit(&counters.hist[fpl_hist_bucket(ns)], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&counters.hist_total_ns, ns, memory_order_relaxed);
    uint64_t m = atomic_load_explicit(&counters.hist_max_ns, memory_order_relaxed);
    while (ns > m && !atomic_compare_exchange_weak_explicit(&counters.hist_max_ns, &m, ns,
                                                            memory_order_relaxed,
                                                            memory_order_relaxed))
        ;
}

void counters_reset(void)
{
    for (unsigned i = 0; i < FPL_CTR_MAX; i++)
        atomic_store_explicit(&counters.c[i], 0, memory_order_relaxed);
    for (unsigned i = 0; i < FPL_HIST_BUCKETS; i++)
        atomic_store_explicit(&counters.hist[i], 0, memory_order_relaxed);
    atomic_store_explicit(&counters.hist_max_ns, 0, memory_order_relaxed);
    atomic_store_explicit(&counters.hist_total_ns, 0, memory_order_relaxed);
}
