/* ring.h: a preallocated, lock-free multi-producer single-consumer ring of variable-length
 * records. Producers are signal handlers on any thread (async-signal-safe, never block: when
 * the ring is full they drop and count); the single consumer is the writer thread.
 *
 * (Synchronization table and per-function memory orders: see the implementation notes below
 * and in ring.c.)
 */
#ifndef RING_H
#define RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct ring {
    uint8_t *data;                  /* capacity bytes, mmap'ed, 8-byte aligned */
    size_t capacity;                /* power of two */
    size_t mask;
    _Atomic uint64_t head;          /* producers: next byte to reserve (monotonic) */
    _Atomic uint64_t tail;          /* consumer: next byte to read (monotonic) */
    _Atomic uint64_t drops;         /* reservations refused: ring full */
};

/* Allocates capacity bytes (rounded up to a power of two, at least 4 KiB) with mmap.
 * Returns 0 or -errno. Setup context (not a signal handler). */
int ring_init(struct ring *r, size_t capacity);

/* Releases the memory. No producer or consumer may be running. */
void ring_destroy(struct ring *r);

/* Producer. Reserves a record of len payload bytes (len > 0) and returns an 8-byte aligned
 * pointer to its payload, or NULL (ring full or len too large; counted in drops). The record
 * is invisible to the consumer until ring_commit. Async-signal-safe, lock-free, reentrant:
 * may be called from a handler that interrupted another producer on the same thread. */
void *ring_reserve(struct ring *r, uint32_t len);

/* Producer. Publishes the record returned by ring_reserve. Async-signal-safe. */
void ring_commit(struct ring *r, void *payload);

/* Producer. Abandons a reserved record; the consumer skips it. Async-signal-safe. */
void ring_discard(struct ring *r, void *payload);

/* Consumer. Returns the next committed record's payload and its length in *len, or NULL when
 * the ring is empty or the next record is not committed yet (records are consumed in
 * reservation order). Discarded records and wrap padding are skipped. Writer thread only. */
const void *ring_peek(struct ring *r, uint32_t *len);

/* Consumer. Frees the record returned by the last ring_peek. Writer thread only. */
void ring_release(struct ring *r);

/* Records dropped so far. Any thread. */
uint64_t ring_drops(struct ring *r);

#endif
