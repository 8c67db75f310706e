/* tsc.c: TSC detection, calibration and reads. tsc_read_sigsafe and tsc_ticks_to_ns_sigsafe
 * are async-signal-safe; everything else runs at setup. */
#include "tsc.h"

#include <cpuid.h>
#include <stdatomic.h>
#include <x86intrin.h>

#include "fpl_format.h"

static int use_tsc;
static uint64_t ticks_per_sec = 1000000000ull;
/* ns = (ticks * mult) >> 32, precomputed for the handler's short durations */
static uint64_t ns_mult = 1ull << 32;
static atomic_int initialized;

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int has_invariant_tsc(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
}

/* Reads TSC and MONOTONIC_RAW as close together as possible: the tightest of several
 * bracketing pairs, so a preemption between the reads does not skew calibration. */
static void paired_read(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t t0 = __rdtsc();
        uint64_t n = clock_ns(CLOCK_MONOTONIC_RAW);
        uint64_t t1 = __rdtsc();
        if (t1 - t0 < best) {
            best = t1 - t0;
            *tsc = t0 + (t1 - t0) / 2;
            *ns = n;
        }
    }
}

void tsc_init(unsigned calib_ms, int force_monotonic)
{
    /* first caller calibrates; concurrent callers are not expected (setup is serialized) */
    if (atomic_exchange_explicit(&initialized, 1, memory_order_acq_rel))
        return;
    if (force_monotonic || !has_invariant_tsc())
        return;
    uint64_t t0, n0, t1, n1;
    paired_read(&t0, &n0);
    struct timespec d = {calib_ms / 1000, (long)(calib_ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0)
        ;
    paired_read(&t1, &n1);
    if (n1 <= n0 || t1 <= t0)
        return;
    unsigned __int128 f = (unsigned __int128)(t1 - t0) * 1000000000ull / (n1 - n0);
    if (f < 100000000ull) /* under 100 MHz: not a plausible TSC */
        return;
    ticks_per_sec = (uint64_t)f;
    ns_mult = (uint64_t)(((unsigned __int128)1000000000ull << 32) / ticks_per_sec);
    use_tsc = 1;
}

int tsc_is_tsc(void)
{
    return use_tsc;
}

int tsc_clock(void)
{
    return use_tsc ? FPL_CLOCK_TSC : FPL_CLOCK_MONOTONIC;
}

uint64_t tsc_ticks_per_sec(void)
{
    return ticks_per_sec;
}

uint64_t tsc_read_sigsafe(void)
{
    if (use_tsc)
        return __rdtsc();
    return clock_ns(CLOCK_MONOTONIC);
}

uint64_t tsc_ticks_to_ns_sigsafe(uint64_t ticks)
{
    return (uint64_t)(((unsigned __int128)ticks * ns_mult) >> 32);
}

void tsc_anchor(struct tsc_anchor *a)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 4; i++) {
        uint64_t t0 = tsc_read_sigsafe();
        uint64_t mono = clock_ns(CLOCK_MONOTONIC);
        uint64_t real = clock_ns(CLOCK_REALTIME);
        uint64_t t1 = tsc_read_sigsafe();
        if (t1 - t0 < best) {
            best = t1 - t0;
            a->ticks = t0 + (t1 - t0) / 2;
            a->mono_ns = mono;
            a->real_ns = real;
        }
    }
}
