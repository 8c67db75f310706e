/* framecache.c: the Java frames of a compiled frame at a pc, decoded once (see framecache.h).
 *
 * ASYNC-SIGNAL-SAFE: every function runs in signal handlers. No locks (an entry busy is
 * skipped, never waited for), no allocation: the table is static. JVM memory is read only
 * before an entry is taken (a fault there leaves no entry odd) or after it is released.
 */
#include "framecache.h"

#include <stdatomic.h>

#include "codecache.h"

struct entry {
    _Atomic uint32_t seq; /* odd while a handler writes the entry; 0: never written */
    _Atomic int32_t compile_id;
    _Atomic uintptr_t pc;
    _Atomic uintptr_t blob;
    _Atomic uintptr_t method;
    _Atomic int32_t frame_size;
    _Atomic uint8_t n;
    _Atomic uint8_t near;
    _Atomic uintptr_t ids[FRAMECACHE_FRAMES];
    _Atomic int32_t linenos[FRAMECACHE_FRAMES];
} __attribute__((aligned(64)));

static struct entry table[FRAMECACHE_SLOTS];

static inline struct entry *slot(uintptr_t pc, int near)
{
    uint64_t h = ((uint64_t)pc ^ (uint64_t)near) * 0x9e3779b97f4a7c15u;
    return &table[h >> (64 - 12)];
}

_Static_assert(FRAMECACHE_SLOTS == 1 << 12, "slot() takes the hash's top 12 bits");

/* The nmethod's identity: its compile id and Method*. 0 when this JDK does not say. */
static int identify(const struct codecache_layout *l, uintptr_t blob, int32_t *cid,
                    uintptr_t *method)
{
    if (!l || l->nm_compile_id < 0 || l->nm_method < 0 || !blob || (blob & 7))
        return 0;
    *cid = *(const volatile int32_t *)(blob + (uintptr_t)l->nm_compile_id);
    *method = *(const volatile uintptr_t *)(blob + (uintptr_t)l->nm_method);
    return 1;
}

int framecache_lookup_sigsafe(uintptr_t pc, int near, struct sample_frame *frames, int room,
                              int *frame_size)
{
    const struct codecache_layout *l = codecache_layout_sigsafe();
    if (!l || l->nm_compile_id < 0 || room <= 0 || !pc)
        return 0;
    struct entry *e = slot(pc, near);
    /* acquire: pairs with the release that ended the entry's last write */
    uint32_t s1 = atomic_load_explicit(&e->seq, memory_order_acquire);
    if (!s1 || (s1 & 1) || atomic_load_explicit(&e->pc, memory_order_acquire) != pc ||
        atomic_load_explicit(&e->near, memory_order_acquire) != (uint8_t)near)
        return 0;
    uintptr_t blob = atomic_load_explicit(&e->blob, memory_order_acquire);
    int32_t cid = atomic_load_explicit(&e->compile_id, memory_order_acquire);
    uintptr_t method = atomic_load_explicit(&e->method, memory_order_acquire);
    int fs = atomic_load_explicit(&e->frame_size, memory_order_acquire);
    int n = atomic_load_explicit(&e->n, memory_order_acquire);
    if (n > FRAMECACHE_FRAMES)
        return 0;
    if (n > room)
        n = room; /* the stack is cut at depth inside this frame, as a decode would cut it */
    for (int i = 0; i < n; i++) {
        frames[i].method_id = (jmethodID)atomic_load_explicit(&e->ids[i], memory_order_acquire);
        frames[i].lineno = atomic_load_explicit(&e->linenos[i], memory_order_acquire);
    }
    /* the loads above are acquires: they happen before the second seq load */
    if (atomic_load_explicit(&e->seq, memory_order_relaxed) != s1)
        return 0;
    int32_t now_cid;
    uintptr_t now_method;
    if (!identify(l, blob, &now_cid, &now_method) || now_cid != cid || now_method != method)
        return 0;
    *frame_size = fs;
    return n;
}

void framecache_store_sigsafe(uintptr_t pc, int near, uintptr_t blob, int frame_size,
                              const struct sample_frame *frames, int n)
{
    const struct codecache_layout *l = codecache_layout_sigsafe();
    int32_t cid;
    uintptr_t method;
    if (n < 1 || n > FRAMECACHE_FRAMES || !pc || !identify(l, blob, &cid, &method))
        return;
    struct entry *e = slot(pc, near);
    uint32_t s = atomic_load_explicit(&e->seq, memory_order_relaxed);
    if ((s & 1) || !atomic_compare_exchange_strong_explicit(&e->seq, &s, s + 1,
                                                            memory_order_relaxed,
                                                            memory_order_relaxed))
        return; /* another handler writes it: this one does without */
    /* the fields' stores are releases: a reader that sees one sees the odd seq before it
     * (pairs with the readers' acquire loads before their second seq load) */
    atomic_store_explicit(&e->pc, pc, memory_order_release);
    atomic_store_explicit(&e->near, (uint8_t)near, memory_order_release);
    atomic_store_explicit(&e->blob, blob, memory_order_release);
    atomic_store_explicit(&e->compile_id, cid, memory_order_release);
    atomic_store_explicit(&e->method, method, memory_order_release);
    atomic_store_explicit(&e->frame_size, frame_size, memory_order_release);
    atomic_store_explicit(&e->n, (uint8_t)n, memory_order_release);
    for (int i = 0; i < n; i++) {
        atomic_store_explicit(&e->ids[i], (uintptr_t)frames[i].method_id, memory_order_release);
        atomic_store_explicit(&e->linenos[i], frames[i].lineno, memory_order_release);
    }
    /* release: the fields are complete before a reader can see the even seq */
    atomic_store_explicit(&e->seq, s + 2, memory_order_release);
}
