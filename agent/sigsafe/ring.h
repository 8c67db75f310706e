/* ring.h: a preallocated, lock-free multi-producer single-consumer ring of variable-length
 * records. Producers are signal handlers on any thread (async-signal-safe, never block: when
 * the ring is full they drop and count); the single consumer is the writer thread.
 *
 * Layout. `head` and `tail` are byte positions that only grow (64 bits: they never wrap); a
 * position p lives at data[p & mask]. Bytes [tail, head) hold records, back to back, each an
 * 8-byte header followed by the payload rounded up to 8 bytes; every other byte of the buffer
 * is zero. A header is one 64-bit atomic word: payload length in bits 0-31, RING_HDR_BUSY,
 * RING_HDR_DISCARD. A word of 0 is "not written yet". A record never wraps: when it does not
 * fit before the end of the buffer, the same reservation first takes a padding record (a
 * discarded record) up to the end, and the record starts at offset 0.
 *
 * Protocol.
 *  - reserve: load tail (acquire), then head; if the record (+ padding) does not fit, count a
 *    drop and return NULL; else CAS head forward. Write the padding header (discarded,
 *    release) if any, then the record's header as BUSY|len.
 *  - commit / discard: store len (resp. len|DISCARD) into the header with release.
 *  - peek: load the header at tail with acquire; 0 or BUSY: stop (return NULL, try later);
 *    DISCARD: zero it, advance tail, go on; otherwise return the payload.
 *  - release: zero the whole record, then store tail + size with release.
 * Zeroing before releasing is what makes stale bytes harmless: record boundaries differ
 * between laps, so a future header can land on any old payload word; a producer that has
 * moved head but not yet written its header leaves a 0 there, which the consumer reads as
 * "not committed", never as a header left over from the last lap.
 *
 * Synchronization table (which calls may overlap):
 *
 *                    reserve  commit  discard  peek  release  drops  init/destroy
 *   reserve            yes     yes     yes     yes    yes     yes        no
 *   commit/discard     yes     yes     yes     yes    yes     yes        no
 *   peek/release       yes     yes     yes     no     no      yes        no
 *   drops              yes     yes     yes     yes    yes     yes        no
 *
 * "yes" includes the same thread: a handler may interrupt a producer anywhere, even between
 * its reserve and its commit, and reserve and commit a record of its own (the consumer then
 * stops at the older, uncommitted record until it is committed). peek and release belong to
 * one consumer thread at a time. init and destroy exclude everything.
 *
 * Memory orders (what each atomic orders against what):
 *  - tail: release store in release/peek (after zeroing the freed bytes) pairs with the
 *    acquire load in reserve, so a producer writes only into bytes the consumer is done with.
 *  - header: release store in commit/discard (and of the padding) pairs with the acquire load
 *    in peek, so the consumer sees the whole payload, and zeroes a discarded record only after
 *    its producer stopped writing. The BUSY store in reserve is relaxed: it publishes nothing.
 *  - head: relaxed CAS; producers exchange no data through it, each only claims a range.
 *    (tail is loaded before head, so tail <= head always holds for the free-space check.)
 *  - drops: relaxed counter; orders nothing.
 *  - wake_armed: seq_cst exchange in ring_commit against the seq_cst store + head load in
 *    ring_rearm (a store-load handshake): a consumer that re-arms either sees the fill a
 *    producer reached, or that producer sees the flag armed and wakes it.
 *
 * Consumer wakeup. Instead of polling an empty ring, the consumer sleeps until the ring holds
 * wake_level bytes (ring_set_wakeup): the ring_commit that finds it there with the wakeup
 * armed disarms it and writes 1 to wake_fd (an eventfd); the consumer re-arms it after
 * draining (ring_rearm). So it wakes once per level's worth of records, not on a timer.
 * A record that is reserved and never committed or discarded stalls the consumer for good:
 * every reserve must be followed by exactly one commit or discard.
 */
#ifndef RING_H
#define RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define RING_MIN_CAPACITY 4096u
#define RING_PAGE 4096u /* the smallest page size: ring_init writes one byte per page */
#define RING_HEADER_SIZE 8u
#define RING_HDR_BUSY (UINT64_C(1) << 32)
#define RING_HDR_DISCARD (UINT64_C(1) << 33)

struct ring {
    uint8_t *data;   /* capacity bytes, mmap'ed, 8-byte aligned */
    size_t capacity; /* power of two, >= RING_MIN_CAPACITY */
    size_t mask;
    _Atomic uint64_t head;  /* producers: next byte to reserve (monotonic) */
    _Atomic uint64_t drops; /* reservations refused: ring full, len 0 or too large */
    int wake_fd;            /* the consumer's eventfd, -1: no wakeups (set while no producer
                             * runs) */
    uint64_t wake_level;    /* bytes held that wake the consumer */
    _Atomic int wake_armed; /* 1: the next commit at or above the level wakes the consumer */
    char pad_[64];          /* keeps tail off the cache line the producers write */
    _Atomic uint64_t tail;  /* consumer: next byte to read (monotonic) */
};

/* Allocates capacity bytes (rounded up to a power of two, at least RING_MIN_CAPACITY) with
 * mmap, prefaulted and written once per page so that producers do not fault (see ring.c).
 * Returns 0, -EINVAL (capacity too large) or -errno from mmap. Setup context (not a signal
 * handler). */
int ring_init(struct ring *r, size_t capacity);

/* Releases the memory; a second call is a no-op. No producer or consumer may be running. */
void ring_destroy(struct ring *r);

/* Largest payload ring_reserve accepts: a whole record (header + payload rounded up to 8)
 * may take at most a quarter of the ring. Any thread. */
static inline uint32_t ring_max_len(const struct ring *r)
{
    size_t max = r->capacity / 4 - RING_HEADER_SIZE;
    return max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
}

/* Producer. Reserves a record of len payload bytes (0 < len <= ring_max_len) and returns an
 * 8-byte aligned pointer to its payload, or NULL (ring full, len 0 or too large; counted in
 * drops). The record is invisible to the consumer until ring_commit; the caller must commit
 * or discard it, soon: until then the consumer cannot get past it. Async-signal-safe,
 * lock-free (never waits for the consumer or another producer), reentrant: may be called from
 * a handler that interrupted another producer on the same thread. */
void *ring_reserve(struct ring *r, uint32_t len);

/* Producer. Publishes the record returned by ring_reserve (release: the payload writes before
 * this call are visible to the consumer). Async-signal-safe. */
void ring_commit(struct ring *r, void *payload);

/* Producer. Abandons a reserved record; the consumer skips it. Async-signal-safe. */
void ring_discard(struct ring *r, void *payload);

/* Makes ring_commit write 1 to fd (an eventfd of the consumer's; -1: never) when the ring
 * holds level bytes or more and the wakeup is armed; disarmed until ring_rearm. Only while no
 * producer runs. */
void ring_set_wakeup(struct ring *r, int fd, size_t level);

/* Consumer. Arms the wakeup; returns 1 when the ring already holds the wakeup level (drain
 * again instead of sleeping: the write may not come), else 0. Writer thread only. */
int ring_rearm(struct ring *r);

/* Consumer. Returns the next committed record's payload and its length in *len, or NULL when
 * the ring is empty or the next record is not committed yet (records are consumed in
 * reservation order; call again later). Discarded records and wrap padding are skipped. The
 * payload stays valid until ring_release. Writer thread only. */
const void *ring_peek(struct ring *r, uint32_t *len);

/* Consumer. Frees the record returned by the last ring_peek; call it once per record peeked,
 * never after a peek that returned NULL. Writer thread only. */
void ring_release(struct ring *r);

/* Records dropped so far. Async-signal-safe, any thread. */
uint64_t ring_drops(struct ring *r);

#endif
