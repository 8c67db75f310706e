/* ring.c: the lock-free MPSC record ring. Protocol, synchronization table and memory orders
 * are in ring.h.
 *
 * ASYNC-SIGNAL-SAFE: ring_reserve, ring_commit, ring_discard and ring_drops run inside signal
 * handlers. They touch only the preallocated buffer and lock-free atomics: no allocation,
 * no locks; the one system call is ring_commit's write(2) to the consumer's wakeup fd, once
 * per crossing of the wakeup level (async-signal-safe; it may set errno, which the handlers
 * save and restore).
 */
#include "ring.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* A handler may interrupt the thread that holds a non-lock-free atomic's internal lock. */
_Static_assert(ATOMIC_LONG_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2,
               "ring: 64-bit atomics must be lock-free to be used in signal handlers");

#define HDR_LEN(h) ((uint32_t)(h))

/* Bytes a record of len payload bytes takes: header + payload rounded up to 8. */
static inline uint64_t record_size(uint32_t len)
{
    return RING_HEADER_SIZE + (((uint64_t)len + 7) & ~UINT64_C(7));
}

static inline _Atomic uint64_t *header_at(struct ring *r, uint64_t off)
{
    return (_Atomic uint64_t *)(void *)(r->data + off);
}

static inline _Atomic uint64_t *header_of(void *payload)
{
    return (_Atomic uint64_t *)(void *)((uint8_t *)payload - RING_HEADER_SIZE);
}

int ring_init(struct ring *r, size_t capacity)
{
    size_t cap = RING_MIN_CAPACITY;

    while (cap < capacity) {
        if (cap > SIZE_MAX / 2)
            return -EINVAL;
        cap <<= 1;
    }
    /* MAP_POPULATE: the pages are faulted in here, not by the first handler that writes them.
     * Anonymous memory is zero, which the protocol requires of every free byte. */
    void *p =
        mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED)
        return -errno;
    /* Populated is not enough on the paravirtualized guests we run on: the kernel fills the
     * pages through its own mapping, and the first store through ours still costs 10-50 us
     * (a hypervisor exit), which a handler paid each time its record began a new page (one
     * sample in five at ~750 bytes; no guest page fault is counted). A store of the zero the
     * page already holds, once per page, pays it here. */
    for (size_t off = 0; off < cap; off += RING_PAGE)
        ((volatile uint8_t *)p)[off] = 0;
    memset(r, 0, sizeof(*r));
    r->data = p;
    r->capacity = cap;
    r->mask = cap - 1;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    atomic_init(&r->drops, 0);
    atomic_init(&r->wake_armed, 0);
    r->wake_fd = -1;
    return 0;
}

void ring_set_wakeup(struct ring *r, int fd, size_t level)
{
    r->wake_fd = fd;
    r->wake_level = level;
    atomic_store_explicit(&r->wake_armed, 0, memory_order_seq_cst);
}

int ring_rearm(struct ring *r)
{
    if (r->wake_fd < 0)
        return 0;
    /* seq_cst, as the producers' exchange and the loads below: either a producer that moved
     * head past the level sees the flag armed and writes the fd, or we see its head here
     * (a store-load pair; acquire/release alone would let both miss) */
    atomic_store_explicit(&r->wake_armed, 1, memory_order_seq_cst);
    uint64_t h = atomic_load_explicit(&r->head, memory_order_seq_cst);
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    return h - t >= r->wake_level;
}

/* Wakes the consumer when the ring holds at least the wakeup level, once per ring_rearm. */
static void maybe_wake(struct ring *r)
{
    if (r->wake_fd < 0 || !atomic_load_explicit(&r->wake_armed, memory_order_relaxed))
        return;
    /* relaxed: only a size estimate; the seq_cst exchange below is the handshake with
     * ring_rearm */
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t h = atomic_load_explicit(&r->head, memory_order_seq_cst);
    if (h - t < r->wake_level)
        return;
    if (atomic_exchange_explicit(&r->wake_armed, 0, memory_order_seq_cst)) {
        uint64_t one = 1;
        ssize_t w = write(r->wake_fd, &one, sizeof(one));
        (void)w; /* an eventfd write fails only when its counter is full: already awake */
    }
}

void ring_destroy(struct ring *r)
{
    if (!r || !r->data)
        return;
    munmap(r->data, r->capacity);
    r->data = NULL;
    r->capacity = 0;
    r->mask = 0;
}

void *ring_reserve(struct ring *r, uint32_t len)
{
    uint64_t need = record_size(len);

    if (len == 0 || need > r->capacity / 4)
        goto drop;
    for (;;) {
        /* acquire: pairs with the release store of tail in consume(); the consumer zeroed the
         * bytes below t before that store, so our writes into them come after its memset.
         * Loaded before head: head only grows and was >= t when the consumer stored t, so
         * the head we read next is >= t too (coherence through this acquire). */
        uint64_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
        /* relaxed: head carries no data between producers; the CAS below validates it. */
        uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
        uint64_t off = h & r->mask;
        uint64_t pad = off + need > r->capacity ? r->capacity - off : 0;

        if (h + pad + need - t > r->capacity)
            goto drop;
        /* relaxed: the CAS only claims [h, h + pad + need); what we may write there was
         * ordered by the acquire load of tail above, and nothing is published through head
         * (the consumer never reads it). A failed CAS (another producer, possibly a handler
         * that interrupted us) reloads both positions. */
        if (!atomic_compare_exchange_weak_explicit(&r->head, &h, h + pad + need,
                                                   memory_order_relaxed, memory_order_relaxed))
            continue;
        if (pad) {
            /* release: pairs with the acquire load in ring_peek, so a consumer that skips the
             * padding and stores tail past it carries our head CAS along to the next
             * producer's tail acquire (keeps tail <= head for everyone). pad - 8 < 2^32:
             * pad < need <= 8 + 2^32. */
            atomic_store_explicit(header_at(r, off), RING_HDR_DISCARD | (pad - RING_HEADER_SIZE),
                                  memory_order_release);
            off = 0;
        }
        /* relaxed: a busy header publishes nothing; the consumer stops at it exactly as at the
         * 0 it replaces. It is stored so that commit and discard know the length. */
        atomic_store_explicit(header_at(r, off), RING_HDR_BUSY | len, memory_order_relaxed);
        return r->data + off + RING_HEADER_SIZE;
    }
drop:
    /* relaxed: an independent statistic. */
    atomic_fetch_add_explicit(&r->drops, 1, memory_order_relaxed);
    return NULL;
}

void ring_commit(struct ring *r, void *payload)
{
    _Atomic uint64_t *hp = header_of(payload);

    /* relaxed: our own BUSY store; no one else writes a header while it is busy. */
    uint64_t h = atomic_load_explicit(hp, memory_order_relaxed);
    /* release: pairs with the acquire load in ring_peek; the payload writes before it are
     * visible to the consumer once it sees BUSY cleared. */
    atomic_store_explicit(hp, HDR_LEN(h), memory_order_release);
    maybe_wake(r);
}

void ring_discard(struct ring *r, void *payload)
{
    _Atomic uint64_t *hp = header_of(payload);

    (void)r;
    /* relaxed: our own BUSY store, as in ring_commit. */
    uint64_t h = atomic_load_explicit(hp, memory_order_relaxed);
    /* release: pairs with the acquire load in ring_peek; any payload bytes we wrote are
     * ordered before the consumer zeroes them. */
    atomic_store_explicit(hp, HDR_LEN(h) | RING_HDR_DISCARD, memory_order_release);
}

/* Zeroes the record at tail t (header h) and hands its bytes back to the producers. */
static void consume(struct ring *r, uint64_t t, uint64_t h)
{
    uint64_t size = record_size(HDR_LEN(h));

    /* Plain writes: no producer may touch these bytes until the tail store below. */
    memset(r->data + (t & r->mask), 0, size);
    /* release: pairs with the acquire load of tail in ring_reserve; the zeroing above happens
     * before any producer writes into the freed bytes. */
    atomic_store_explicit(&r->tail, t + size, memory_order_release);
}

const void *ring_peek(struct ring *r, uint32_t *len)
{
    for (;;) {
        /* relaxed: the consumer is the only writer of tail. */
        uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
        uint64_t off = t & r->mask;
        /* acquire: pairs with the release stores in ring_commit, ring_discard and the padding
         * store in ring_reserve: the payload is complete, or the producer is done with it. */
        uint64_t h = atomic_load_explicit(header_at(r, off), memory_order_acquire);

        if (h == 0 || (h & RING_HDR_BUSY))
            return NULL;
        if (h & RING_HDR_DISCARD) {
            consume(r, t, h);
            continue;
        }
        *len = HDR_LEN(h);
        return r->data + off + RING_HEADER_SIZE;
    }
}

void ring_release(struct ring *r)
{
    /* relaxed: the consumer is the only writer of tail. */
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    /* relaxed: ring_peek already acquired this committed header; it cannot change until we
     * release it. */
    uint64_t h = atomic_load_explicit(header_at(r, t & r->mask), memory_order_relaxed);

    if (h == 0 || (h & RING_HDR_BUSY))
        return;
    consume(r, t, h);
}

uint64_t ring_drops(struct ring *r)
{
    /* relaxed: a statistic; orders nothing. */
    return atomic_load_explicit(&r->drops, memory_order_relaxed);
}
