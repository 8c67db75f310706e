/* context.c: the per-slot trace context table (see context.h).
 * ASYNC-SIGNAL-SAFE: context_read_sigsafe runs in signal handlers; everything here only loads
 * and stores C11 atomics in a preallocated table. */
#include "context.h"

#include <stdatomic.h>

#include "slots.h"

#define READ_TRIES 4

/* One cache line per slot: each is written by its own thread, and neighbours must not make
 * each other's Context.set calls miss in cache. */
struct context_slot {
    _Atomic uint32_t seq;
    _Atomic uint64_t span[2];
    _Atomic uint64_t root[2];
} __attribute__((aligned(64)));

/* 2 MiB of zero pages; a page is touched only when one of its 64 slots sets a context */
static struct context_slot slots[THREADS_MAX];

void context_set(uint32_t slot, uint64_t span, uint64_t root)
{
    if (slot >= THREADS_MAX)
        return;
    struct context_slot *c = &slots[slot];
    /* relaxed: only this thread stores seq */
    uint32_t s = atomic_load_explicit(&c->seq, memory_order_relaxed) + 1;
    /* release fence: the previous set's store of seq happens before the pair stores below,
     * so a reader on another thread that reads one of them (it is rewriting the pair that
     * reader was told to read) and then fences sees seq moved, and retries */
    atomic_thread_fence(memory_order_release);
    /* relaxed: the pair is published by the release store of seq below */
    atomic_store_explicit(&c->span[s & 1], span, memory_order_relaxed);
    atomic_store_explicit(&c->root[s & 1], root, memory_order_relaxed);
    /* release: the pair's stores happen before a reader that sees this seq reads them (a
     * handler on this thread needs only the compiler ordering this also gives) */
    atomic_store_explicit(&c->seq, s, memory_order_release);
}

void context_clear(uint32_t slot)
{
    context_set(slot, 0, 0);
}

uint32_t context_seq(uint32_t slot)
{
    /* relaxed: a hint compared with an earlier reading, ordering nothing */
    return slot < THREADS_MAX ? atomic_load_explicit(&slots[slot].seq, memory_order_relaxed) : 0;
}

int context_read_sigsafe(uint32_t slot, uint64_t *span, uint64_t *root)
{
    *span = *root = 0;
    if (slot >= THREADS_MAX)
        return 0;
    struct context_slot *c = &slots[slot];
    for (int i = 0; i < READ_TRIES; i++) {
        /* acquire: pairs with context_set's release; the pair read below is at least as new */
        uint32_t s = atomic_load_explicit(&c->seq, memory_order_acquire);
        uint64_t sp = atomic_load_explicit(&c->span[s & 1], memory_order_relaxed);
        uint64_t rt = atomic_load_explicit(&c->root[s & 1], memory_order_relaxed);
        /* acquire fence: the pair's loads happen before the second load of seq, so a writer
         * that started rewriting this pair (two sets later) is seen as a changed seq */
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&c->seq, memory_order_relaxed) == s) {
            *span = sp;
            *root = rt;
            return 1;
        }
    }
    return 0;
}
