/* jitter_report.c: SLJ-style histograms and a sysjitter-style table (jitter_report.h). */
#include "jitter_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jclock.h"

const char *jitter_report_time(double ns, char *buf, size_t len)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    int u = 0;
    while (u < 3 && fabs(ns) >= 999.5) {
        ns /= 1000;
        u++;
    }
    snprintf(buf, len, "%.3g%s", ns, units[u]);
    return buf;
}

uint64_t jitter_report_bin_upper(unsigned i, unsigned n, uint64_t knee, uint64_t min)
{
    unsigned lin = n / 2;
    if (i + 1 >= n)
        return UINT64_MAX;
    if (i < lin)
        return min + (knee - min) * (i + 1) / lin;
    /* above the knee: 2, 10, 20, 100, 200, ... times the knee, two bins per decade */
    unsigned j = i - lin;
    double f = pow(10, (j + 1) / 2) * (j % 2 == 0 ? 2 : 1);
    double v = (double)knee * f;
    return v >= 1.8e19 ? UINT64_MAX - 1 : (uint64_t)v;
}

void jitter_report_bins(const struct jitter_counts *c, const struct jitter_report_opts *o,
                        double *per_bin)
{
    unsigned n = o->bins;
    memset(per_bin, 0, n * sizeof(*per_bin));
    unsigned b = 0;
    uint64_t upper = jitter_report_bin_upper(0, n, o->knee_ticks, o->min_ticks);
    for (uint64_t t = 0; t < JITTER_SMALL; t++) {
        while (t >= upper)
            upper = jitter_report_bin_upper(++b, n, o->knee_ticks, o->min_ticks);
        if (c->small[t])
            per_bin[b] += o->sum ? (double)t * (double)c->small[t] : (double)c->small[t];
    }
    /* large gaps are in ns buckets: each bucket goes to the bin holding its middle */
    b = 0;
    for (unsigned i = 0; i < FPL_HDR_COUNTS; i++) {
        uint64_t cnt = c->large.counts[i];
        if (!cnt)
            continue;
        double mid_ns = ((double)fpl_hdr_lowest(i) + (double)fpl_hdr_highest(i)) / 2;
        double ticks = mid_ns * o->hz / 1e9;
        while ((double)jitter_report_bin_upper(b, n, o->knee_ticks, o->min_ticks) <= ticks)
            b++;
        per_bin[b] += o->sum ? ticks * (double)cnt : (double)cnt;
    }
}

/* Greatest common divisor. */
static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* 1 when a gap length holds enough of the gaps to say something about the clock: one in
 * 1000. Stray gaps do not: on the project's VMs, whose TSC advances 21 ticks at a time, a
 * busy host also yields 1-tick gaps, up to one in 10000. */
static int common(const struct jitter_counts *c, uint64_t t, uint64_t small_total)
{
    return c->small[t] && c->small[t] * 1000 >= small_total;
}

static uint64_t small_total(const struct jitter_counts *c)
{
    uint64_t n = 0;
    for (unsigned t = 0; t < JITTER_SMALL; t++)
        n += c->small[t];
    return n;
}

uint64_t jitter_report_step(const struct jitter_counts *c)
{
    uint64_t n = small_total(c), g = 0;
    for (unsigned t = 1; t < JITTER_SMALL; t++) {
        if (common(c, t, n))
            g = gcd(t, g);
    }
    return g ? g : 1;
}

/* 1 when a gap of step ticks' multiples (1, 2, ... steps) can fall in [lo, hi). */
static int holds_step(uint64_t lo, uint64_t hi, uint64_t step)
{
    uint64_t first = lo <= step ? step : (lo + step - 1) / step * step;
    return first < hi;
}

/* The share (0..1) of c's gaps shorter than t ticks. */
static double share_below(const struct jitter_counts *c, uint64_t t, double hz)
{
    double below = 0, all = (double)small_total(c) + (double)c->large.total;
    for (uint64_t i = 0; i < JITTER_SMALL && i < t; i++)
        below += (double)c->small[i];
    if (t > JITTER_SMALL) {
        for (unsigned i = 0; i < FPL_HDR_COUNTS; i++) {
            double top = (double)fpl_hdr_highest(i) * hz / 1e9;
            if (c->large.counts[i] && top < (double)t)
                below += (double)c->large.counts[i];
        }
    }
    return all > 0 ? below / all : 0;
}

/* A knee for SLJ's rule (90% to 99% of the gaps below it), as a whole number of ns (what
 * --knee reads back): just above the shortest common gap length with 90% of the gaps at or
 * below it, by half a clock step, so that gap length falls below the knee and the next does
 * not. *share: the share below it. 0 when the 90% point is not among the exact small gaps. */
static uint64_t advised_knee_ns(const struct jitter_counts *c, uint64_t step, double hz,
                                double *share)
{
    double all = (double)small_total(c) + (double)c->large.total, cum = 0;
    if (all <= 0)
        return 0;
    for (uint64_t t = 0; t < JITTER_SMALL; t++) {
        cum += (double)c->small[t];
        if (cum < 0.9 * all)
            continue;
        uint64_t want = t + (step > 1 ? step / 2 : 1);
        uint64_t ns = (uint64_t)ceil(jclock_ns(want, hz));
        while (jclock_ticks((double)ns, hz) <= t)
            ns++;
        *share = share_below(c, jclock_ticks((double)ns, hz), hz);
        return ns;
    }
    /* past the exact gaps (a machine that interrupts nearly every read): the ns bucket */
    for (unsigned i = 0; i < FPL_HDR_COUNTS; i++) {
        cum += (double)c->large.counts[i];
        if (cum < 0.9 * all)
            continue;
        uint64_t ns = fpl_hdr_highest(i) + 1;
        *share = share_below(c, jclock_ticks((double)ns, hz), hz);
        return ns;
    }
    return 0;
}

/* Min, mean, standard deviation in ns of all gaps. */
static void gap_stats(const struct jitter_counts *c, double hz, double *min, double *mean,
                      double *sd)
{
    long double n = 0, s = 0, s2 = 0;
    *min = -1;
    for (unsigned t = 0; t < JITTER_SMALL; t++) {
        if (!c->small[t])
            continue;
        long double ns = (long double)jclock_ns(t, hz);
        if (*min < 0)
            *min = (double)ns;
        n += c->small[t];
        s += ns * c->small[t];
        s2 += ns * ns * c->small[t];
    }
    if (c->large.total) {
        if (*min < 0)
            *min = (double)c->large.min;
        n += c->large.total;
        s += c->large.sum;
        s2 += c->large_sumsq;
    }
    if (n == 0) {
        *min = *mean = *sd = 0;
        return;
    }
    *mean = (double)(s / n);
    long double var = s2 / n - (s / n) * (s / n);
    *sd = var > 0 ? (double)sqrtl(var) : 0;
}

int jitter_report_histogram(FILE *f, int cpu, const struct jitter_counts *c,
                            const struct jitter_report_opts *o)
{
    double per_bin[1024], total = 0, top = 0, cum = 0, cum_knee = 0;
    char t1[32], t2[32], t3[32], t4[32];
    unsigned n = o->bins;

    jitter_report_bins(c, o, per_bin);
    for (unsigned i = 0; i < n; i++) {
        total += per_bin[i];
        if (per_bin[i] > top)
            top = per_bin[i];
    }
    double secs = (double)(c->end - c->start) / o->hz;
    fprintf(f, "CPU %d: %llu gaps between TSC reads in %.3f s\n", cpu, (unsigned long long)c->reads,
            secs);
    fprintf(f, "%7s %10s %14s %9s %10s  Graph ln(%s)\n", "Time", "Ticks", o->sum ? "Sum" : "Count",
            "Percent", "Cumulative", o->sum ? "sum" : "count");
    /* the bar takes what the columns leave of the line */
    int bar_max = (int)o->width - 58;
    if (bar_max < 4)
        bar_max = 4;
    /* a clock that counts in steps (21 ticks on some VMs: gaps are 21, 42, 63 ...) leaves
     * bins narrower than a step always empty: such a bin goes into the next one */
    uint64_t step = jitter_report_step(c), lo = 0;
    double carry = 0;
    unsigned merged = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t up = jitter_report_bin_upper(i, n, o->knee_ticks, o->min_ticks);
        double v = per_bin[i] + carry;
        double pct = total > 0 ? 100.0 * v / total : 0;
        if (i + 1 < n && step > 1 && !holds_step(lo, up, step)) {
            carry = v;
            merged++;
            if (i + 1 == n / 2)
                cum_knee = cum + pct;
            continue;
        }
        carry = 0;
        lo = up;
        cum += pct;
        if (i + 1 == n / 2)
            cum_knee = cum;
        char tb[16], kb[24], cb[24];
        if (up == UINT64_MAX) {
            snprintf(tb, sizeof(tb), "+inf");
            snprintf(kb, sizeof(kb), "+inf");
        } else {
            jitter_report_time(jclock_ns(up, o->hz), tb, sizeof(tb));
            snprintf(kb, sizeof(kb), "%llu", (unsigned long long)up);
        }
        if (o->sum)
            jitter_report_time(v * 1e9 / o->hz, cb, sizeof(cb));
        else
            snprintf(cb, sizeof(cb), "%.0f", v);
        int bar = 0;
        if (v > 0 && top > 0)
            bar = (int)(bar_max * log1p(v) / log1p(top) + 0.5);
        if (v > 0 && bar < 1)
            bar = 1;
        fprintf(f, "%7s %10s %14s %8.4f%% %9.4f%%  ", tb, kb, cb, pct, cum > 100 ? 100 : cum);
        for (int k = 0; k < bar; k++)
            fputc('*', f);
        fputc('\n', f);
    }
    if (merged)
        fprintf(f,
                "Gaps come in steps of %llu ticks (%s) here, the clock's granularity: %u "
                "bins too narrow to hold one went into the next\n",
                (unsigned long long)step,
                jitter_report_time(jclock_ns(step, o->hz), t1, sizeof(t1)), merged);
    double mn, mean, sd;
    gap_stats(c, o->hz, &mn, &mean, &sd);
    double mx = jclock_ns(c->max, o->hz);
    fprintf(f, "TSC rate measured: %.2f MHz over %.3f s; %.2f M reads/s\n", o->hz / 1e6, secs,
            secs > 0 ? (double)c->reads / secs / 1e6 : 0);
    fprintf(f, "Min / Average / Std Dev / Max : %.0f / %.0f / %.0f / %llu ticks\n",
            mn * o->hz / 1e9, mean * o->hz / 1e9, sd * o->hz / 1e9, (unsigned long long)c->max);
    fprintf(f, "Min / Average / Std Dev / Max : %s / %s / %s / %s\n",
            jitter_report_time(mn, t1, sizeof(t1)), jitter_report_time(mean, t2, sizeof(t2)),
            jitter_report_time(sd, t3, sizeof(t3)), jitter_report_time(mx, t4, sizeof(t4)));
    /* SLJ's advice: the min should sit just under the fastest gap, and the knee where the
     * cumulative share stops climbing fast (90% .. 99% below it). Each gives a value as
     * --min and --knee read it back (whole ns), to paste. The fastest gap is the shortest
     * common one: a stray 1-tick gap says nothing about the clock. */
    uint64_t nsmall = small_total(c), fastest = 0;
    for (uint64_t t = 1; t < JITTER_SMALL && !fastest; t++)
        if (common(c, t, nsmall))
            fastest = t;
    if (c->reads && fastest && (double)fastest < 0.8 * (double)o->min_ticks) {
        uint64_t ns = (uint64_t)floor(0.8 * jclock_ns(fastest, o->hz));
        fprintf(f, "Advice: use --min %lluns: 80%% of the fastest common gap (%s, %llu ticks)\n",
                (unsigned long long)(ns ? ns : 1),
                jitter_report_time(jclock_ns(fastest, o->hz), t1, sizeof(t1)),
                (unsigned long long)fastest);
    }
    double share = 0;
    uint64_t knee_ns =
        c->reads && (cum_knee < 90 || cum_knee > 99) ? advised_knee_ns(c, step, o->hz, &share) : 0;
    uint64_t knee_ticks = knee_ns ? jclock_ticks((double)knee_ns, o->hz) : 0;
    if (knee_ns && knee_ticks != o->knee_ticks && share * 100 <= 99)
        fprintf(f,
                "Advice: use --knee %lluns: %.2f%% of the gaps are below it, %.2f%% below "
                "the knee now (%s); the knee belongs where 90%% to 99%% are\n",
                (unsigned long long)knee_ns, 100 * share, cum_knee,
                jitter_report_time(jclock_ns(o->knee_ticks, o->hz), t1, sizeof(t1)));
    else if (knee_ns && knee_ticks != o->knee_ticks && knee_ticks < o->knee_ticks)
        fprintf(f,
                "Advice: use --knee %lluns: %.2f%% of the gaps are below it, %.2f%% below "
                "the knee now (%s); no knee puts 90%% to 99%% below it here, one gap length "
                "holds too many\n",
                (unsigned long long)knee_ns, 100 * share, cum_knee,
                jitter_report_time(jclock_ns(o->knee_ticks, o->hz), t1, sizeof(t1)));
    fputc('\n', f);
    return ferror(f) ? -EIO : 0;
}

int jitter_report_table(FILE *f, const int *cpus, const struct jitter_counts *c, unsigned ncpu,
                        const struct jitter_report_opts *o)
{
    static const struct {
        const char *name;
        double pct; /* < 0: not a quantile */
    } q[] = {{"int_min", 0},        {"int_p50", 50},         {"int_mean", -1},
             {"int_p90", 90},       {"int_p99", 99},         {"int_p99.9", 99.9},
             {"int_p99.99", 99.99}, {"int_p99.999", 99.999}, {"int_max", 100}};
    char b[32];
    struct hdr *h = malloc(sizeof(*h));
    if (!h)
        return -ENOMEM;
    fprintf(f, "Interruptions (gaps of %s or more):\n%-16s",
            jitter_report_time(jclock_ns(o->threshold_ticks, o->hz), b, sizeof(b)), "");
    for (unsigned k = 0; k < ncpu; k++) {
        snprintf(b, sizeof(b), "cpu%d", cpus[k]);
        fprintf(f, " %12s", b);
    }
    fprintf(f, "\n%-16s", "runtime");
    for (unsigned k = 0; k < ncpu; k++)
        fprintf(f, " %12s",
                jitter_report_time(jclock_ns(c[k].end - c[k].start, o->hz), b, sizeof(b)));
    fprintf(f, "\n%-16s", "int_n");
    for (unsigned k = 0; k < ncpu; k++)
        fprintf(f, " %12llu", (unsigned long long)c[k].nint);
    fprintf(f, "\n%-16s", "int_per_sec");
    for (unsigned k = 0; k < ncpu; k++) {
        double s = (double)(c[k].end - c[k].start) / o->hz;
        fprintf(f, " %12.1f", s > 0 ? (double)c[k].nint / s : 0);
    }
    for (size_t j = 0; j < sizeof(q) / sizeof(q[0]); j++) {
        fprintf(f, "\n%-16s", q[j].name);
        for (unsigned k = 0; k < ncpu; k++) {
            jitter_counts_int_hdr(&c[k], o->threshold_ticks, o->hz, h);
            if (!h->total) {
                fprintf(f, " %12s", "-");
                continue;
            }
            double v;
            if (q[j].pct < 0)
                v = c[k].nint ? jclock_ns(c[k].int_ticks, o->hz) / (double)c[k].nint : 0;
            else if (q[j].pct == 0)
                v = (double)h->min;
            else if (q[j].pct == 100)
                v = jclock_ns(c[k].max, o->hz);
            else
                v = (double)hdr_percentile(h, q[j].pct);
            fprintf(f, " %12s", jitter_report_time(v, b, sizeof(b)));
        }
    }
    fprintf(f, "\n%-16s", "int_total");
    for (unsigned k = 0; k < ncpu; k++)
        fprintf(f, " %12s", jitter_report_time(jclock_ns(c[k].int_ticks, o->hz), b, sizeof(b)));
    fprintf(f, "\n%-16s", "int_total_%");
    for (unsigned k = 0; k < ncpu; k++) {
        uint64_t run = c[k].end - c[k].start;
        fprintf(f, " %11.3f%%", run ? 100.0 * (double)c[k].int_ticks / (double)run : 0);
    }
    fputc('\n', f);
    free(h);
    return ferror(f) ? -EIO : 0;
}
