/* jclock.c: TSC checks, anchors, rate and read cost for `flyprof jitter` (jclock.h). */
#include "jclock.h"

#include <cpuid.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int jclock_invariant(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
}

void jclock_anchor(struct jclock_anchor *a)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t t0 = jclock_read();
        uint64_t mono = clock_ns(CLOCK_MONOTONIC);
        uint64_t real = clock_ns(CLOCK_REALTIME);
        uint64_t t1 = jclock_read();
        if (t1 - t0 < best) {
            best = t1 - t0;
            a->ticks = t0 + (t1 - t0) / 2;
            a->mono_ns = mono;
            a->real_ns = real;
        }
    }
}

/* TSC and MONOTONIC_RAW read together: the tightest bracketing pair of a few, so a preemption
 * between the two reads does not skew the rate. */
static void paired_raw(uint64_t *ticks, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t t0 = jclock_read();
        uint64_t n = clock_ns(CLOCK_MONOTONIC_RAW);
        uint64_t t1 = jclock_read();
        if (t1 - t0 < best) {
            best = t1 - t0;
            *ticks = t0 + (t1 - t0) / 2;
            *ns = n;
        }
    }
}

int jclock_rate(unsigned ms, double *hz)
{
    uint64_t t0, n0, t1, n1;
    paired_raw(&t0, &n0);
    struct timespec d = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0)
        ;
    paired_raw(&t1, &n1);
    if (n1 <= n0 || t1 <= t0)
        return -EIO;
    *hz = (double)(t1 - t0) * 1e9 / (double)(n1 - n0);
    return *hz < 1e8 ? -EIO : 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t jclock_read_cost(void)
{
    enum { N = 4096 };
    uint64_t d[N];
    uint64_t prev = jclock_read();
    for (int i = 0; i < N; i++) {
        uint64_t t = jclock_read();
        d[i] = t - prev;
        prev = t;
    }
    qsort(d, N, sizeof(d[0]), cmp_u64);
    return d[N / 2] ? d[N / 2] : 1;
}
