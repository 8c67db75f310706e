/* context.h: the trace context of each Java thread (dev.flyprof.Context): the span a thread
 * works for and the root span of its request, kept per registry slot so that both the thread's
 * own signal handler and the wall-clock sampler (which walks threads that are not running from
 * its own thread) can read it without locks.
 *
 * Protocol (one writer per slot: the thread itself, or thread start/end on it):
 *  - each slot has a sequence number and two (span, root) pairs; pair (seq & 1) is current.
 *  - context_set writes the pair the readers are not told to read, pair ((seq + 1) & 1), then
 *    publishes it by storing seq + 1 (release). A reader on the same thread (the signal
 *    handler interrupting context_set) reads pair (seq & 1), which the writer is not touching:
 *    it sees the old or the new context, never a mix, and never loses one.
 *  - a reader on another thread loads seq (acquire), the pair, then seq again after an acquire
 *    fence: if it changed, the writer may have been rewriting that pair (it does so two sets
 *    later); it retries a few times, then reports no context (counted by the caller).
 * All fields are C11 atomics; on x86-64 every load and store of the protocol is a plain mov,
 * so context_set costs a few stores on top of the JNI call.
 */
#ifndef CONTEXT_H
#define CONTEXT_H

#include <stdint.h>

/* Sets slot's context (span 0 and root 0: none). The thread owning slot, or its thread
 * start/end callbacks. Async-signal-safe (plain atomics), lock-free, ~2 ns. */
void context_set(uint32_t slot, uint64_t span, uint64_t root);

/* Clears slot's context (thread start/end, so a reused slot starts without one). */
void context_clear(uint32_t slot);

/* A number that changes whenever slot's context is set (or cleared), for a sampler to tell
 * whether a thread has run since it last looked: only the thread itself sets it. Any thread. */
uint32_t context_seq(uint32_t slot);

/* Reads slot's context into *span and *root (0, 0: none). Returns 1 when read consistently,
 * 0 when slot is out of range, or when the pair kept changing under a reader on another
 * thread (then *span = *root = 0). Any thread, signal handlers included: ASYNC-SIGNAL-SAFE. */
int context_read_sigsafe(uint32_t slot, uint64_t *span, uint64_t *root);

#endif
