/* hdr.h: a latency histogram in HdrHistogram's layout (fpl_hdr.h: 1 ns .. 1 h, 2 significant
 * digits), with the exact count, min, max and sum kept beside the buckets. Used by
 * `flyprof jitter`, `flyprof hiccups` and the exports (out_hlog writes the counts as they are).
 * Caller-owned storage (about 37 KB): hdr_reset before first use. Pure; any thread, one
 * writer at a time.
 */
#ifndef HDR_H
#define HDR_H

#include <stdint.h>

#include "fpl_hdr.h"

struct hdr {
    uint64_t counts[FPL_HDR_COUNTS];
    uint64_t total;    /* values recorded */
    uint64_t min, max; /* exact, ns; min is UINT64_MAX while empty */
    long double sum;   /* of the values, for the mean */
};

/* Empties h. */
void hdr_reset(struct hdr *h);

/* Records n values v (ns); values above FPL_HDR_HIGHEST count in its bucket but keep their
 * exact size in max and sum. */
void hdr_record(struct hdr *h, uint64_t v, uint64_t n);

/* Records n values known only by their bucket index i (counts read from a log): min, max
 * and sum take the bucket's lowest, highest and middle value; callers that know the exact max
 * set it afterwards. Indexes past FPL_HDR_COUNTS count in the last bucket. */
void hdr_record_index(struct hdr *h, unsigned i, uint64_t n);

/* Adds src's values to dst. */
void hdr_add(struct hdr *dst, const struct hdr *src);

/* The value at percentile pct (0..100) as HdrHistogram's getValueAtPercentile computes it:
 * the highest value of the first bucket at which the count so far reaches
 * ceil(pct / 100 * total) (at least 1), capped at the exact max; pct 0 gives the lowest value
 * of the first non-empty bucket. 0 when empty. */
uint64_t hdr_percentile(const struct hdr *h, double pct);

/* The mean, ns; 0 when empty. */
double hdr_mean(const struct hdr *h);

/* The number of values at or above v (whole buckets: a bucket counts when its lowest value is
 * at or above v's bucket's lowest value). */
uint64_t hdr_count_above(const struct hdr *h, uint64_t v);

/* The index one past the last non-empty bucket (0 when empty): how much of counts an encoder
 * needs to write. */
unsigned hdr_used(const struct hdr *h);

#endif
