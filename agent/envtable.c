/* envtable.c: tid -> JNIEnv for threads adopted at attach.
 * ASYNC-SIGNAL-SAFE: envtable_get_sigsafe runs in signal handlers. */
#include "envtable.h"

#include <errno.h>
#include <stdatomic.h>

#define CAP 16384 /* power of two; adopted threads only */
#define EMPTY 0
#define TOMBSTONE (-1)

struct cell {
    _Atomic int tid;
    _Atomic(JNIEnv *) env;
    _Atomic uint32_t slot1;
};

static struct cell cells[CAP];

static unsigned hash(int tid)
{
    return ((unsigned)tid * 2654435761u) & (CAP - 1);
}

int envtable_put(int tid, JNIEnv *env, uint32_t slot1)
{
    unsigned free_at = CAP;
    for (unsigned n = 0, i = hash(tid); n < CAP; n++, i = (i + 1) & (CAP - 1)) {
        int t = atomic_load_explicit(&cells[i].tid, memory_order_relaxed);
        if (t == tid) {
            free_at = i;
            break;
        }
        if (t == TOMBSTONE && free_at == CAP)
            free_at = i;
        if (t == EMPTY) {
            if (free_at == CAP)
                free_at = i;
            break;
        }
    }
    if (free_at == CAP)
        return -ENOSPC;
    atomic_store_explicit(&cells[free_at].env, env, memory_order_relaxed);
    atomic_store_explicit(&cells[free_at].slot1, slot1, memory_order_relaxed);
    /* release: a handler that sees the tid sees the env and slot written above */
    atomic_store_explicit(&cells[free_at].tid, tid, memory_order_release);
    return 0;
}

void envtable_remove(int tid)
{
    for (unsigned n = 0, i = hash(tid); n < CAP; n++, i = (i + 1) & (CAP - 1)) {
        int t = atomic_load_explicit(&cells[i].tid, memory_order_relaxed);
        if (t == EMPTY)
            return;
        if (t == tid) {
            /* the thread is ending (ThreadEnd on itself) or the agent stops: its handler can
             * no longer be looking it up concurrently with a reuse of the cell's env */
            atomic_store_explicit(&cells[i].tid, TOMBSTONE, memory_order_release);
            return;
        }
    }
}

JNIEnv *envtable_get_sigsafe(int tid, uint32_t *slot1)
{
    for (unsigned n = 0, i = hash(tid); n < CAP; n++, i = (i + 1) & (CAP - 1)) {
        /* acquire: pairs with envtable_put's release of the tid */
        int t = atomic_load_explicit(&cells[i].tid, memory_order_acquire);
        if (t == EMPTY)
            return NULL;
        if (t == tid) {
            *slot1 = atomic_load_explicit(&cells[i].slot1, memory_order_relaxed);
            return atomic_load_explicit(&cells[i].env, memory_order_relaxed);
        }
    }
    return NULL;
}
