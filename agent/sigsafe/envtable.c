/* envtable.c: tid -> JNIEnv for threads adopted at attach.
 * ASYNC-SIGNAL-SAFE: envtable_get_sigsafe and envtable_current_env_sigsafe run in signal
 * handlers. */
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

/* HotSpot's thread-local probe (envtable_set_probe). Written once before handlers look
 * entries up, then read-only: probe_ready's release/acquire orders the three fields. */
static pthread_key_t probe_key;
static intptr_t probe_env_off;
static const void *probe_functions;
static atomic_int probe_ready;

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

/* Empties the run of tombstones that ends at cell i when the cell after i is empty: no key's
 * probe path goes through them (a path has no empty cell before its key), so a lookup stops
 * there as it would have a few cells later. Without this, tombstones only ever accumulate
 * (adopted threads end, attach after attach) until a lookup of an absent tid, which every
 * sample of a GC or compiler thread makes, walks the whole table. A handler walking the run
 * meanwhile stops at a cell made empty: what it looks for is not past it. Under the registry
 * lock, as every writer. */
static void clear_tombstones(unsigned i)
{
    if (atomic_load_explicit(&cells[(i + 1) & (CAP - 1)].tid, memory_order_relaxed) != EMPTY)
        return;
    for (unsigned n = 0; n < CAP; n++, i = (i - 1) & (CAP - 1)) {
        if (atomic_load_explicit(&cells[i].tid, memory_order_relaxed) != TOMBSTONE)
            return;
        atomic_store_explicit(&cells[i].tid, EMPTY, memory_order_relaxed);
    }
}

unsigned envtable_used_cells(void)
{
    unsigned n = 0;
    for (unsigned i = 0; i < CAP; i++)
        n += atomic_load_explicit(&cells[i].tid, memory_order_relaxed) != EMPTY;
    return n;
}

void envtable_remove(int tid)
{
    for (unsigned n = 0, i = hash(tid); n < CAP; n++, i = (i + 1) & (CAP - 1)) {
        int t = atomic_load_explicit(&cells[i].tid, memory_order_relaxed);
        if (t == EMPTY)
            return;
        if (t == tid) {
            /* a handler that still reads the old entry checks its env against its own
             * thread's before using it (envtable_get_sigsafe) */
            atomic_store_explicit(&cells[i].tid, TOMBSTONE, memory_order_release);
            clear_tombstones(i);
            return;
        }
    }
}

/* The cell of tid, or NULL. */
static struct cell *lookup(int tid)
{
    for (unsigned n = 0, i = hash(tid); n < CAP; n++, i = (i + 1) & (CAP - 1)) {
        /* acquire: pairs with envtable_put's release of the tid */
        int t = atomic_load_explicit(&cells[i].tid, memory_order_acquire);
        if (t == EMPTY)
            return NULL;
        if (t == tid)
            return &cells[i];
    }
    return NULL;
}

int envtable_find(int tid, JNIEnv **env, uint32_t *slot1)
{
    struct cell *c = lookup(tid);
    if (!c)
        return 0;
    *env = atomic_load_explicit(&c->env, memory_order_relaxed);
    *slot1 = atomic_load_explicit(&c->slot1, memory_order_relaxed);
    return 1;
}

void envtable_set_probe(pthread_key_t key, intptr_t env_off, const void *functions)
{
    probe_key = key;
    probe_env_off = env_off;
    probe_functions = functions;
    /* release: a handler that sees the probe ready sees its fields */
    atomic_store_explicit(&probe_ready, 1, memory_order_release);
}

int envtable_probe_ready(void)
{
    return atomic_load_explicit(&probe_ready, memory_order_acquire);
}

JNIEnv *envtable_current_env_sigsafe(void)
{
    if (!envtable_probe_ready())
        return NULL;
    /* HotSpot's own signal handler reads Thread::current the same way: glibc's
     * pthread_getspecific reads the calling thread's key slots, without locks or allocation */
    const char *thread = pthread_getspecific(probe_key);
    if (!thread)
        return NULL;
    JNIEnv *env = (JNIEnv *)(thread + probe_env_off);
    /* a JavaThread's JNIEnv points to the JNI function table; HotSpot's other threads (GC,
     * VM) hold something else at that offset */
    return *(const void *const *)env == probe_functions ? env : NULL;
}

JNIEnv *envtable_get_sigsafe(int tid, uint32_t *slot1)
{
    struct cell *c = lookup(tid);
    if (!c)
        return NULL;
    JNIEnv *env = atomic_load_explicit(&c->env, memory_order_relaxed);
    uint32_t s = atomic_load_explicit(&c->slot1, memory_order_relaxed);
    /* the entry may belong to a thread that has ended and whose tid this thread now has:
     * its env would be a dangling pointer for AsyncGetCallTrace */
    if (envtable_probe_ready() && env != envtable_current_env_sigsafe())
        return NULL;
    *slot1 = s;
    return env;
}
