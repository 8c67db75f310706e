/* test_hdr.c: the HdrHistogram-layout histogram (fpl_hdr.h, hdr.c): bucket math, HdrHistogram's
 * percentile rule against exact percentiles of known data, merging. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "hdr.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_layout(void)
{
    /* HdrHistogram, 2 digits, lowest 1: exact to 255, then 128 sub-buckets per power of two */
    CHECK_EQ_U(fpl_hdr_index(0), 0);
    CHECK_EQ_U(fpl_hdr_index(255), 255);
    CHECK_EQ_U(fpl_hdr_index(256), 256);
    CHECK_EQ_U(fpl_hdr_index(257), 256);
    CHECK_EQ_U(fpl_hdr_index(258), 257);
    CHECK_EQ_U(fpl_hdr_index(511), 383);
    CHECK_EQ_U(fpl_hdr_index(512), 384);
    CHECK_EQ_U(fpl_hdr_index(1000), 506);
    CHECK(fpl_hdr_index(FPL_HDR_HIGHEST) < FPL_HDR_COUNTS);
    CHECK_EQ_U(fpl_hdr_index(UINT64_MAX), fpl_hdr_index(FPL_HDR_HIGHEST));
    CHECK_EQ_U(fpl_hdr_lowest(506), 1000);
    CHECK_EQ_U(fpl_hdr_highest(506), 1003);
    /* buckets tile the range: each starts one past the previous end, and is < 1% wide */
    int tiled = 1, narrow = 1;
    unsigned last = fpl_hdr_index(FPL_HDR_HIGHEST);
    for (unsigned i = 0; i < last; i++) {
        if (fpl_hdr_highest(i) + 1 != fpl_hdr_lowest(i + 1))
            tiled = 0;
        uint64_t lo = fpl_hdr_lowest(i), w = fpl_hdr_highest(i) - lo + 1;
        if (lo >= 256 && (double)w / (double)lo > 1.0 / 128 + 1e-12)
            narrow = 0;
    }
    CHECK(tiled);
    CHECK(narrow);
    int inside = 1;
    for (int k = 0; k < 100000; k++) {
        uint64_t v = next_rand() >> (next_rand() % 64);
        if (v > FPL_HDR_HIGHEST)
            continue;
        unsigned i = fpl_hdr_index(v);
        if (!(fpl_hdr_lowest(i) <= v && v <= fpl_hdr_highest(i)))
            inside = 0;
    }
    CHECK(inside);
}

/* Percentiles of log-uniform data (1 ns .. 10 s) against the exact order statistics: ours must
 * lie in the bucket of the exact value (HdrHistogram reports that bucket's highest value). */
static void test_percentiles(void)
{
    enum { N = 20011 };
    static uint64_t v[N];
    static struct hdr h;
    hdr_reset(&h);
    for (int i = 0; i < N; i++) {
        double e = (double)(next_rand() % 1000000) / 1000000.0 * 10;
        v[i] = (uint64_t)pow(10, e);
        hdr_record(&h, v[i], 1);
    }
    qsort(v, N, sizeof(v[0]), cmp_u64);
    CHECK_EQ_U(h.total, N);
    CHECK_EQ_U(h.min, v[0]);
    CHECK_EQ_U(h.max, v[N - 1]);
    static const double ps[] = {1, 25, 50, 90, 99, 99.9, 99.99, 100};
    for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
        uint64_t rank = (uint64_t)ceil(ps[k] / 100 * N);
        uint64_t exact = v[rank - 1];
        uint64_t got = hdr_percentile(&h, ps[k]);
        CHECK_EQ_U(fpl_hdr_index(got), fpl_hdr_index(exact));
        CHECK(got >= exact);
    }
    CHECK_EQ_U(hdr_percentile(&h, 100), v[N - 1]);
    CHECK_EQ_U(hdr_percentile(&h, 0), fpl_hdr_lowest(fpl_hdr_index(v[0])));
    long double sum = 0;
    for (int i = 0; i < N; i++)
        sum += v[i];
    CHECK(fabs(hdr_mean(&h) - (double)(sum / N)) < 1e-6 * (double)(sum / N));

    /* the rule's edge: 100 values 1..100, p50 is the 50th (not the 51st) */
    static struct hdr s;
    hdr_reset(&s);
    for (int i = 1; i <= 100; i++)
        hdr_record(&s, (uint64_t)i, 1);
    CHECK_EQ_U(hdr_percentile(&s, 50), 50);
    CHECK_EQ_U(hdr_percentile(&s, 99), 99);
    CHECK_EQ_U(hdr_percentile(&s, 99.9), 100);
    CHECK_EQ_U(hdr_count_above(&s, 90), 11);
    CHECK_EQ_U(hdr_used(&s), 101);
}

static void test_add_and_index(void)
{
    static struct hdr a, b, all;
    hdr_reset(&a);
    hdr_reset(&b);
    hdr_reset(&all);
    for (int i = 0; i < 5000; i++) {
        uint64_t x = next_rand() % 100000000;
        hdr_record(i % 2 ? &a : &b, x, 2);
        hdr_record(&all, x, 2);
    }
    hdr_add(&a, &b);
    CHECK(memcmp(a.counts, all.counts, sizeof(a.counts)) == 0);
    CHECK_EQ_U(a.total, all.total);
    CHECK_EQ_U(a.min, all.min);
    CHECK_EQ_U(a.max, all.max);

    /* counts read back by index land in the same buckets */
    static struct hdr r;
    hdr_reset(&r);
    for (unsigned i = 0; i < FPL_HDR_COUNTS; i++)
        hdr_record_index(&r, i, all.counts[i]);
    CHECK(memcmp(r.counts, all.counts, sizeof(r.counts)) == 0);
    CHECK_EQ_U(fpl_hdr_index(hdr_percentile(&r, 99)), fpl_hdr_index(hdr_percentile(&all, 99)));
    hdr_record_index(&r, FPL_HDR_COUNTS + 5, 1);
    CHECK_EQ_U(r.counts[FPL_HDR_COUNTS - 1], all.counts[FPL_HDR_COUNTS - 1] + 1);

    /* above the range: counted at the top, the exact max kept */
    static struct hdr big;
    hdr_reset(&big);
    hdr_record(&big, 2 * FPL_HDR_HIGHEST, 1);
    CHECK_EQ_U(big.max, 2 * FPL_HDR_HIGHEST);
    CHECK_EQ_U(big.counts[fpl_hdr_index(FPL_HDR_HIGHEST)], 1);
    CHECK_EQ_U(hdr_percentile(&big, 50), fpl_hdr_highest(fpl_hdr_index(FPL_HDR_HIGHEST)));
    static struct hdr empty;
    hdr_reset(&empty);
    CHECK_EQ_U(hdr_percentile(&empty, 50), 0);
    CHECK_EQ_U(hdr_used(&empty), 0);
}

int main(void)
{
    test_layout();
    test_percentiles();
    test_add_and_index();
    return harness_result("test_hdr");
}
