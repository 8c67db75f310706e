/* jclock.h: the clock of `flyprof jitter`: the CPU's time-stamp counter read back to back,
 * its rate measured against CLOCK_MONOTONIC_RAW, and the cost of one read (the resolution of
 * every delay the jitter test reports). x86-64 only. Any thread.
 */
#ifndef JCLOCK_H
#define JCLOCK_H

#include <stdint.h>
#include <x86intrin.h>

/* One TSC read. Not serializing, as in SLJ Test: back-to-back reads stay in order, and a
 * fence would add its own cost to every delta. */
static inline uint64_t jclock_read(void)
{
    return __rdtsc();
}

/* 1 when CPUID says the TSC is invariant (constant rate, runs in deep C-states): otherwise
 * ticks do not measure time and a jitter test warns. */
int jclock_invariant(void);

/* A TSC value with CLOCK_MONOTONIC and CLOCK_REALTIME read together (the tightest of a few
 * tries), to place ticks in time. */
struct jclock_anchor {
    uint64_t ticks;
    uint64_t mono_ns;
    uint64_t real_ns;
};

void jclock_anchor(struct jclock_anchor *a);

/* Measures the TSC rate in ticks per second over about ms milliseconds (sleeping), against
 * CLOCK_MONOTONIC_RAW. Returns 0, or -EIO when the clocks did not both advance or the rate
 * is below 100 MHz (not a usable TSC). */
int jclock_rate(unsigned ms, double *hz);

/* The cost of one TSC read in ticks: the median delta of back-to-back reads over a few
 * thousand tries, on the calling thread's CPU. */
uint64_t jclock_read_cost(void);

/* Ticks to ns and back at a rate of hz ticks per second (doubles: exact enough for the
 * durations reported, which carry 2-3 significant digits). */
static inline double jclock_ns(uint64_t ticks, double hz)
{
    return (double)ticks * 1e9 / hz;
}

static inline uint64_t jclock_ticks(double ns, double hz)
{
    return (uint64_t)(ns * hz / 1e9 + 0.5);
}

#endif
