/* fpl_stackring.h: the chunk's last FPL_STACK2_RING stack records, which a STACK2 record
 * (FORMAT.md 5.21) builds on: a new stack is its new leaf frames plus the root-side frames it
 * shares with one of them. The writer (agent/writer/writer.c) and the reader
 * (collector/read/reader.c) keep the same ring, record for record, through this one code: both
 * push every STACK and STACK2 record of a chunk in order (one that cannot be kept, or a bad
 * one, as an entry no STACK2 may use, so that the positions still agree) and empty it when a
 * chunk begins.
 *
 * Memory: the frames of FPL_STACK2_RING stacks, 24 bytes a frame (entries keep their arrays
 * and grow them). Not for signal handlers (it allocates). One thread at a time.
 */
#ifndef FPL_STACKRING_H
#define FPL_STACKRING_H

#include <stddef.h>
#include <stdint.h>

#include "fpl_format.h"

struct fpl_sframe {
    uint64_t method_id;
    int64_t bci;  /* < 0: none */
    uint8_t type; /* enum fpl_frame_type */
};

struct fpl_stackring {
    struct {
        struct fpl_sframe *f;
        uint32_t n, cap;
        int valid;
    } e[FPL_STACK2_RING];
    unsigned used; /* entries pushed since the reset, FPL_STACK2_RING at most */
    unsigned next; /* where the next push goes */
};

/* An empty ring (caller storage). */
void fpl_stackring_init(struct fpl_stackring *r);

/* Frees what r holds; r is empty again. */
void fpl_stackring_destroy(struct fpl_stackring *r);

/* A chunk begins: no entry may be a base any more. */
void fpl_stackring_reset(struct fpl_stackring *r);

/* Pushes a stack record's n frames (leaf first); f NULL: a record no STACK2 may build on (a
 * bad one). Returns 0, or -ENOMEM (pushed as unusable). */
int fpl_stackring_push(struct fpl_stackring *r, const struct fpl_sframe *f, size_t n);

/* The frames of the back-th previous stack record (1: the newest) and their number, or NULL
 * when back is 0, beyond what was pushed since the reset, or an unusable entry. */
const struct fpl_sframe *fpl_stackring_get(const struct fpl_stackring *r, uint64_t back,
                                           size_t *n);

/* The entry sharing the most root-side frames with f[0..n) (equal method, bci and type):
 * their number (0: none), and *back its position for fpl_stackring_get. */
size_t fpl_stackring_best(const struct fpl_stackring *r, const struct fpl_sframe *f, size_t n,
                          unsigned *back);

#endif
