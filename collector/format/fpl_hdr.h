/* fpl_hdr.h: the latency histogram layout shared by the agent's hiccup probes, `flyprof jitter`
 * and the exports: exactly HdrHistogram's counts array for lowestDiscernibleValue 1,
 * highestTrackableValue 3600 s in ns and 2 significant digits, so a histogram is written to an
 * `.hlog` (HdrHistogram's V2 encoding) by copying its counts, and HdrHistogram's readers see
 * the same buckets we do.
 *
 * Values are nanoseconds. A value v falls in bucket b = floor(log2(v | 255)) - 7 and sub-bucket
 * s = v >> b, at index (b + 1) * 128 + s - 128: exact below 256 ns, then 128 sub-buckets per
 * power of two (each under 0.8% of its value wide). Values above FPL_HDR_HIGHEST are counted
 * at FPL_HDR_HIGHEST.
 * Header-only; pure; any thread, async-signal-safe.
 */
#ifndef FPL_HDR_H
#define FPL_HDR_H

#include <stdint.h>

#define FPL_HDR_SUB_BITS 8                       /* sub-bucket count 256: 2 digits */
#define FPL_HDR_HALF_BITS (FPL_HDR_SUB_BITS - 1) /* 128 sub-buckets per bucket above 0 */
#define FPL_HDR_HALF (1u << FPL_HDR_HALF_BITS)
#define FPL_HDR_DIGITS 2
#define FPL_HDR_LOWEST 1ull
#define FPL_HDR_HIGHEST 3600000000000ull /* 1 h in ns */
#define FPL_HDR_BUCKETS 35               /* 256 << 34 = 2^42 > FPL_HDR_HIGHEST */
#define FPL_HDR_COUNTS ((FPL_HDR_BUCKETS + 1) * FPL_HDR_HALF) /* 4608 */

/* The counts-array index of v (ns). */
static inline unsigned fpl_hdr_index(uint64_t v)
{
    if (v > FPL_HDR_HIGHEST)
        v = FPL_HDR_HIGHEST;
    unsigned bucket = 64u - FPL_HDR_SUB_BITS - (unsigned)__builtin_clzll(v | 0xff);
    unsigned sub = (unsigned)(v >> bucket);
    return ((bucket + 1) << FPL_HDR_HALF_BITS) + sub - FPL_HDR_HALF;
}

/* The smallest value counted at index i (HdrHistogram's valueFromIndex). */
static inline uint64_t fpl_hdr_lowest(unsigned i)
{
    int bucket = (int)(i >> FPL_HDR_HALF_BITS) - 1;
    uint64_t sub = (i & (FPL_HDR_HALF - 1)) + FPL_HDR_HALF;
    if (bucket < 0) {
        sub -= FPL_HDR_HALF;
        bucket = 0;
    }
    return sub << bucket;
}

/* The largest value counted at index i (HdrHistogram's highestEquivalentValue). */
static inline uint64_t fpl_hdr_highest(unsigned i)
{
    int bucket = (int)(i >> FPL_HDR_HALF_BITS) - 1;
    return fpl_hdr_lowest(i) + (1ull << (bucket < 0 ? 0 : bucket)) - 1;
}

#endif
