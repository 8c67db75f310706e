/* tsc.h: the sample clock. Raw TSC ticks when the CPU has an invariant TSC, otherwise
 * CLOCK_MONOTONIC nanoseconds; calibration and anchors are computed outside signal handlers.
 */
#ifndef TSC_H
#define TSC_H

#include <stdint.h>
#include <time.h>

struct tsc_anchor {
    uint64_t ticks;
    uint64_t mono_ns;   /* CLOCK_MONOTONIC */
    uint64_t real_ns;   /* CLOCK_REALTIME */
};

/* Checks for an invariant TSC (CPUID 0x80000007 EDX bit 8) and calibrates its frequency
 * against CLOCK_MONOTONIC_RAW over about calib_ms milliseconds. Falls back to
 * CLOCK_MONOTONIC when the TSC is not usable or force_monotonic is set. Idempotent: the first
 * call decides. Setup context. */
void tsc_init(unsigned calib_ms, int force_monotonic);

/* 1 when samples are stamped with the TSC, 0 for CLOCK_MONOTONIC (enum fpl_clock value is
 * the opposite: see tsc_clock). */
int tsc_is_tsc(void);

/* enum fpl_clock of the current clock. */
int tsc_clock(void);

/* Ticks per second of the current clock (measured for the TSC, 1e9 for MONOTONIC). */
uint64_t tsc_ticks_per_sec(void);

/* Reads the current clock. Async-signal-safe, about 10 ns with the TSC. */
uint64_t tsc_read_sigsafe(void);

/* Ticks to nanoseconds for short durations (< about 100 s). Async-signal-safe. */
uint64_t tsc_ticks_to_ns_sigsafe(uint64_t ticks);

/* Takes a clock anchor: ticks, monotonic and realtime read back to back (the tightest of a
 * few tries). Any thread, not a signal handler. */
void tsc_anchor(struct tsc_anchor *a);

#endif
