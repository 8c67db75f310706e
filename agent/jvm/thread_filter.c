/* thread_filter.c: the thread filter bitset. Any thread. */
#include "thread_filter.h"

#include <stdatomic.h>

#include "slots.h"

static _Atomic uint64_t bits[THREADS_WORDS];

void thread_filter_add(uint32_t slot)
{
    if (slot < THREADS_MAX)
        atomic_fetch_or_explicit(&bits[slot / 64], 1ull << (slot % 64), memory_order_relaxed);
}

void thread_filter_remove(uint32_t slot)
{
    if (slot < THREADS_MAX)
        atomic_fetch_and_explicit(&bits[slot / 64], ~(1ull << (slot % 64)),
                                  memory_order_relaxed);
}

void thread_filter_clear(uint32_t slot)
{
    thread_filter_remove(slot);
}

uint64_t thread_filter_word(uint32_t w)
{
    return w < THREADS_WORDS ? atomic_load_explicit(&bits[w], memory_order_relaxed) : 0;
}

int thread_filter_has(uint32_t slot)
{
    return slot < THREADS_MAX && ((thread_filter_word(slot / 64) >> (slot % 64)) & 1);
}
