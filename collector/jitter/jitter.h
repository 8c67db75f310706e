/* jitter.h: the measuring core of `flyprof jitter`: one thread per CPU of a list, pinned to
 * it, reading the TSC back to back in unrolled blocks (as SLJ Test does) and counting every
 * gap between two reads; a gap at or above the threshold is an interruption (as sysjitter
 * counts them) and is kept with its start time.
 *
 * Each spin thread fills one interval slot per report period and hands it to the reading
 * thread through a small ring (JITTER_SLOTS per CPU): the spin thread never allocates, prints
 * or waits, so the only work between two blocks of reads is counting the block's gaps. When
 * the reader falls behind and no slot is free, the spin thread keeps filling the current slot
 * over the next period (its `periods` says how many it covers) instead of waiting.
 *
 * Threads: jitter_start and jitter_join on the reading thread; jitter_next / jitter_release
 * on the reading thread only (one reader); jitter_stop from any thread or a signal handler.
 */
#ifndef JITTER_H
#define JITTER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hdr.h"

#define JITTER_SMALL 4096   /* gaps below this many ticks are counted exactly, by ticks */
#define JITTER_BLOCK 16     /* reads per unrolled block */
#define JITTER_SLOTS 8      /* interval slots per CPU */
#define JITTER_OUT_MAX 4096 /* interruptions kept with their time per interval */

/* Counts of gaps between reads, over an interval or a whole run. */
struct jitter_counts {
    uint64_t start, end;          /* ticks: what the counts cover */
    uint64_t periods;             /* report periods covered (intervals: > 1 when merged) */
    uint64_t reads;               /* gaps counted */
    uint64_t max, max_at;         /* the longest gap, ticks, and the tick it began at */
    uint64_t nint, int_ticks;     /* interruptions (gaps >= threshold): count, ticks */
    uint64_t small[JITTER_SMALL]; /* gaps below JITTER_SMALL ticks, by length in ticks */
    struct hdr large;             /* gaps of JITTER_SMALL ticks or more, ns */
    long double large_sumsq;      /* sum of the squares of large's values, ns^2 */
};

struct jitter_outlier {
    uint64_t at;    /* tick the gap began at */
    uint64_t ticks; /* its length */
};

struct jitter_slot {
    struct jitter_counts c;
    uint64_t nout; /* interruptions kept in out: the first JITTER_OUT_MAX of c.nint */
    struct jitter_outlier out[JITTER_OUT_MAX];
};

struct jitter_config {
    const int *cpus; /* CPUs to measure (the caller keeps the array alive) */
    unsigned ncpu;
    double hz;                /* TSC ticks per second */
    uint64_t duration_ticks;  /* the run's length */
    uint64_t report_ticks;    /* one interval slot per this many ticks */
    uint64_t threshold_ticks; /* a gap this long or longer is an interruption */
};

struct jitter_cpu;

struct jitter_run {
    struct jitter_config cfg;
    struct jitter_cpu *cpu; /* cfg.ncpu */
    uint64_t start_tick;    /* when measuring began (set by jitter_start) */
    /* release by jitter_start once every spin thread runs pinned and start_tick is set; the
     * spin threads' acquire load pairs with it before they read start_tick */
    atomic_int go;
    /* set by jitter_stop; read relaxed at each interval's end: it orders nothing, a late look
     * costs at most one more interval */
    atomic_int stop;
};

/* Starts one pinned spin thread per CPU and returns once all of them measure. Returns 0, or
 * -errno with err filled (a CPU that cannot be pinned, out of memory, thread creation) and
 * nothing left running. */
int jitter_start(struct jitter_run *r, const struct jitter_config *c, char *err, size_t errlen);

/* Asks every spin thread to finish its interval at the next block and end. Async-signal-safe. */
void jitter_stop(struct jitter_run *r);

/* The oldest filled slot of CPU index k (0 .. ncpu-1) not yet released, or NULL. */
const struct jitter_slot *jitter_next(struct jitter_run *r, unsigned k);

/* Gives the slot jitter_next returned back to CPU k's spin thread (emptied). */
void jitter_release(struct jitter_run *r, unsigned k);

/* 1 once CPU k's spin thread has ended (its last slot is then filled). */
int jitter_ended(struct jitter_run *r, unsigned k);

/* Waits for the spin threads and frees everything. Releases slots not consumed. */
void jitter_join(struct jitter_run *r);

/* Adds the counts of src to dst (dst->start/end widen to cover both). */
void jitter_counts_add(struct jitter_counts *dst, const struct jitter_counts *src);

/* Empties c. */
void jitter_counts_reset(struct jitter_counts *c);

/* All of c's gaps as a histogram in ns (reset first): the exact small gaps converted at hz,
 * and the large ones. */
void jitter_counts_hdr(const struct jitter_counts *c, double hz, struct hdr *out);

/* c's interruptions (gaps >= threshold_ticks) as a histogram in ns (reset first). Large gaps
 * count by bucket: those in the bucket that holds the threshold count whole. */
void jitter_counts_int_hdr(const struct jitter_counts *c, uint64_t threshold_ticks, double hz,
                           struct hdr *out);

#endif
