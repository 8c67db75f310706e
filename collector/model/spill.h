/* spill.h: each sample's time, cell and upscaled weight, in the order read, kept in a temporary
 * file so that an output can put every sample at its own time (JFR events) in bounded memory.
 * The timeline (timeline.h) keeps the same weights in bins of 1 ms or coarser and costs a hash
 * lookup per sample; the spill costs an append of ~8 bytes, and its file, not the process,
 * holds them: a 10M-sample log spills ~80 MB to $TMPDIR (else /tmp), unlinked at once so it
 * goes with the process. Memory: two 1 MiB buffers.
 *
 * A record is (cell, ticks, fp) as LEB128 varints: the cell index shifted left by one, its
 * low bit set for a weight of exactly one sample (every CPU sample of a timer): the ticks'
 * difference to the previous record's (zigzag: a wall sample whose tick came late is written
 * late); other weights then as their fixed-point (profile.h) integer and fraction parts.
 *
 * Filled by profile.c while reading (profile_want_spill), read by one output afterwards
 * (spill_rewind, spill_next). Never prints. One thread at a time.
 */
#ifndef SPILL_H
#define SPILL_H

#include <stddef.h>
#include <stdint.h>

struct spill;

struct spill_rec {
    uint32_t cell;
    uint64_t ticks;
    unsigned __int128 fp; /* upscaled weight, fixed point (PROFILE_FP_SHIFT) */
};

/* A new spill with its file made in dir (NULL: $TMPDIR, else /tmp) and unlinked. Returns 0
 * and *out, or -errno (the directory cannot take a file, out of memory). */
int spill_new(const char *dir, struct spill **out);

/* Frees s and closes its file. NULL is a no-op. */
void spill_free(struct spill *s);

/* Appends a record. Returns 0 or -errno of the write; after an error every later call
 * returns it again and nothing more is kept. */
int spill_add(struct spill *s, uint32_t cell, uint64_t ticks, unsigned __int128 fp);

/* The records appended so far. */
uint64_t spill_count(const struct spill *s);

/* The first write error (negative errno), 0 while there is none; with it, the bytes written
 * until then. */
int spill_error(const struct spill *s, uint64_t *written);

/* Writes what is buffered and starts reading from the first record. Returns 0 or -errno (of
 * this write or of an earlier spill_add). */
int spill_rewind(struct spill *s);

/* The next record into *r: 1, 0 after the last one, or -errno (a read error, or -EBADMSG if
 * the file no longer holds what was written). */
int spill_next(struct spill *s, struct spill_rec *r);

#endif
