/* test_jitter.c: the jitter report's histogram bins (SLJ Test's spacing: linear from --min to
 * the knee, then 2x, 10x, 20x, 100x ... the knee) and its time format. The spin threads
 * themselves run in tests/integration/test_jitter.py, against an injected stall. */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "jitter_report.h"

/* SLJ Test's bins for knee 50 and min 10 with 20 bins: 10 linear, then 2x, 10x, 20x, 100x ...
 * the knee, the last unbounded; every gap in exactly one bin. */
static void test_bins(void)
{
    static const uint64_t want[] = {14,    18,    22,     26,     30,      34,        38,
                                    42,    46,    50,     100,    500,     1000,      5000,
                                    10000, 50000, 100000, 500000, 1000000, UINT64_MAX};
    for (unsigned i = 0; i < 20; i++)
        CHECK_EQ_U(jitter_report_bin_upper(i, 20, 50, 10), want[i]);
    static struct jitter_counts c;
    jitter_counts_reset(&c);
    c.small[3] = 5;                    /* below min: first bin */
    c.small[14] = 7;                   /* an upper bound is exclusive: second bin */
    c.small[49] = 11;                  /* last linear bin */
    c.small[120] = 13;                 /* 500 bin */
    hdr_record(&c.large, 1000000, 17); /* 1 ms at 1 GHz: 10^6 ticks */
    struct jitter_report_opts o = {.hz = 1e9,
                                   .bins = 20,
                                   .knee_ticks = 50,
                                   .min_ticks = 10,
                                   .threshold_ticks = 1000,
                                   .width = 80};
    double per[20];
    jitter_report_bins(&c, &o, per);
    CHECK(per[0] == 5);
    CHECK(per[1] == 7);
    CHECK(per[9] == 11);
    CHECK(per[11] == 13);
    CHECK(per[19] == 17); /* 10^6 ticks: above 1000000 = 20000 x knee, the last bin */
    double total = 0;
    for (int i = 0; i < 20; i++)
        total += per[i];
    CHECK(total == 53);
    o.sum = 1;
    jitter_report_bins(&c, &o, per);
    CHECK(per[1] == 14 * 7);
    char b[32];
    CHECK(strcmp(jitter_report_time(1670, b, sizeof(b)), "1.67us") == 0);
    CHECK(strcmp(jitter_report_time(12, b, sizeof(b)), "12ns") == 0);
    CHECK(strcmp(jitter_report_time(999.7, b, sizeof(b)), "1us") == 0);
    CHECK(strcmp(jitter_report_time(292079025, b, sizeof(b)), "292ms") == 0);
}

int main(void)
{
    test_bins();
    return harness_result("test_jitter");
}
