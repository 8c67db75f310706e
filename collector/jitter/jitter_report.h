/* jitter_report.h: the text report of `flyprof jitter`: per CPU the two-part histogram of
 * SLJ Test (bins spaced linearly from --min up to the knee, then logarithmically: 2x, 10x,
 * 20x, 100x ... the knee; rotated, one bin per line with log-scaled bars), its statistics block
 * and advice on the knee and min settings; then sysjitter's table of interruptions per CPU.
 * Writes into a stream only; any thread.
 */
#ifndef JITTER_REPORT_H
#define JITTER_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jitter.h"

struct jitter_report_opts {
    double hz;                /* TSC ticks per second */
    unsigned bins;            /* histogram bins, >= 4: half linear, half logarithmic */
    uint64_t knee_ticks;      /* upper end of the linear bins */
    uint64_t min_ticks;       /* lower end of the linear bins (smaller gaps go in the first) */
    int sum;                  /* bins show the time spent in their gaps, not their count */
    uint64_t threshold_ticks; /* interruption threshold, for the table */
    unsigned width;           /* line width, >= 60 */
};

/* The upper bound in ticks of bin i of n for knee and min (UINT64_MAX for the last). */
uint64_t jitter_report_bin_upper(unsigned i, unsigned n, uint64_t knee, uint64_t min);

/* Fills per_bin[0..o->bins) with c's count (or, with o->sum, ticks) per bin. */
void jitter_report_bins(const struct jitter_counts *c, const struct jitter_report_opts *o,
                        double *per_bin);

/* The clock's step in ticks as c's gaps show it: the greatest common divisor of the gap
 * lengths that hold at least one in 1000 of the exact (small) gaps. 1 on a TSC that counts
 * every tick; 21 on VMs whose TSC advances 21 ticks (10 ns) at a time. */
uint64_t jitter_report_step(const struct jitter_counts *c);

/* Writes CPU cpu's histogram, statistics and advice. A bin that no multiple of the clock's
 * step (jitter_report_step) falls in is merged into the next, and a line says so; the last
 * bin's bound is "+inf". The advice gives --min and --knee values to paste (whole ns). Returns
 * 0 or -EIO. */
int jitter_report_histogram(FILE *f, int cpu, const struct jitter_counts *c,
                            const struct jitter_report_opts *o);

/* Writes the interruptions table, one column per CPU (cpus[k] counted in c[k]). Returns 0 or
 * -EIO. */
int jitter_report_table(FILE *f, const int *cpus, const struct jitter_counts *c, unsigned ncpu,
                        const struct jitter_report_opts *o);

/* Formats ns with 3 significant digits and a unit (ns, us, ms, s) into buf. Returns buf. */
const char *jitter_report_time(double ns, char *buf, size_t len);

#endif
