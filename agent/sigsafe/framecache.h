/* framecache.h: the Java frames of a compiled frame at a pc, decoded once.
 *
 * Reading a compiled frame from HotSpot's structures (which blob holds the pc, its PcDesc, the
 * chain of scopes, a jmethodID per Method*) is a chain of a dozen dependent loads, nearly all
 * cache misses when a sample comes a millisecond after the last: about 2 us a frame here.
 * The same return addresses recur in sample after sample, so the walker keeps what it decoded
 * for a pc -- the frames (jmethodID and packed bci each), the frame size -- in a table of its
 * own, and reads an entry back with two loads of JVM memory to prove it still holds: the
 * nmethod's compile id (unique per compilation, never reused) and its Method*. A pc whose
 * nmethod was freed and whose memory now holds another cannot match: the frames of a pc are
 * fixed for as long as its nmethod lives.
 *
 * A fixed table (FRAMECACHE_SLOTS entries, direct-mapped: an entry is replaced by the next pc
 * hashed to its slot); each entry is a sequence lock: a handler takes it (odd) with a
 * compare-and-swap, which a handler on another thread or nested on the same one never waits
 * for: it finds the entry busy and decodes without it.
 *
 * ASYNC-SIGNAL-SAFE: every function. Lookups read JVM memory: call inside a crash guard.
 */
#ifndef FRAMECACHE_H
#define FRAMECACHE_H

#include <stdint.h>

#include "sample.h"

#define FRAMECACHE_SLOTS 4096 /* a power of two: 4096 x 128 bytes */
#define FRAMECACHE_FRAMES 7   /* the most Java frames (inlined ones and their compiled frame)
                               * one entry holds; deeper inlining is decoded every time */

/* Copies into frames[0..room) the frames cached for the compiled frame at pc (near: a pc where
 * a signal stopped the code rather than a return address; see stackwalk.c) and sets
 * *frame_size (words); returns their count (cut to room), or 0 on a miss. */
int framecache_lookup_sigsafe(uintptr_t pc, int near, struct sample_frame *frames, int room,
                              int *frame_size);

/* Remembers the n frames (1..FRAMECACHE_FRAMES, whole: never a stack cut at its depth)
 * decoded for the compiled frame at pc of nmethod `blob` whose frame is frame_size words.
 * Does nothing when the entry is busy or the nmethod cannot be identified (no compile id in
 * this JDK's VMStructs). */
void framecache_store_sigsafe(uintptr_t pc, int near, uintptr_t blob, int frame_size,
                              const struct sample_frame *frames, int n);

#endif
