/* hdr.c: the HdrHistogram-layout latency histogram (hdr.h). */
#include "hdr.h"

#include <math.h>
#include <string.h>

void hdr_reset(struct hdr *h)
{
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

void hdr_record(struct hdr *h, uint64_t v, uint64_t n)
{
    if (!n)
        return;
    h->counts[fpl_hdr_index(v)] += n;
    h->total += n;
    if (v < h->min)
        h->min = v;
    if (v > h->max)
        h->max = v;
    h->sum += (long double)v * (long double)n;
}

void hdr_record_index(struct hdr *h, unsigned i, uint64_t n)
{
    if (!n)
        return;
    if (i >= FPL_HDR_COUNTS)
        i = FPL_HDR_COUNTS - 1;
    uint64_t lo = fpl_hdr_lowest(i), hi = fpl_hdr_highest(i);
    h->counts[i] += n;
    h->total += n;
    if (lo < h->min)
        h->min = lo;
    if (hi > h->max)
        h->max = hi;
    h->sum += ((long double)lo + (long double)hi) / 2 * (long double)n;
}

void hdr_add(struct hdr *dst, const struct hdr *src)
{
    if (!src->total)
        return;
    unsigned used = hdr_used(src);
    for (unsigned i = 0; i < used; i++)
        dst->counts[i] += src->counts[i];
    dst->total += src->total;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    dst->sum += src->sum;
}

uint64_t hdr_percentile(const struct hdr *h, double pct)
{
    if (!h->total)
        return 0;
    if (pct < 0)
        pct = 0;
    if (pct > 100)
        pct = 100;
    /* HdrHistogram takes one ulp off first, so that 100 * k / total does not round past k */
    double p = nextafter(pct, -INFINITY);
    if (p < 0)
        p = 0;
    uint64_t want = (uint64_t)ceil(p * (double)h->total / 100.0);
    if (want < 1)
        want = 1;
    uint64_t run = 0;
    for (unsigned i = 0; i < FPL_HDR_COUNTS; i++) {
        run += h->counts[i];
        if (run >= want) {
            uint64_t v = pct == 0 ? fpl_hdr_lowest(i) : fpl_hdr_highest(i);
            return v > h->max ? h->max : v;
        }
    }
    return h->max;
}

double hdr_mean(const struct hdr *h)
{
    return h->total ? (double)(h->sum / (long double)h->total) : 0.0;
}

uint64_t hdr_count_above(const struct hdr *h, uint64_t v)
{
    uint64_t n = 0;
    for (unsigned i = fpl_hdr_index(v); i < FPL_HDR_COUNTS; i++)
        n += h->counts[i];
    return n;
}

unsigned hdr_used(const struct hdr *h)
{
    unsigned used = FPL_HDR_COUNTS;
    while (used && !h->counts[used - 1])
        used--;
    return used;
}
