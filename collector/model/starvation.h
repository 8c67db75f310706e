/* starvation.h: CPU starvation, where a profile holds both CPU and wall-clock samples: how
 * much of the time a thread was running Java code (sampled RUNNING by the wall-clock sampler)
 * it spent waiting for a CPU instead of on one (measured by its CPU-time timer).
 *
 * For each thread (each THREAD dictionary entry: a renamed thread is a new row):
 *   cpu_ns          = its CPU weight x the cpu interval (CPU time, from the thread's timer)
 *   running_wall_ns = its upscaled wall weight in state RUNNING x the mean time between wall
 *                     ticks (the time it was runnable in Java code, whether on a CPU or in
 *                     the run queue: a thread waiting for a core is RUNNABLE to the JVM)
 *   starvation      = 1 - cpu_ns / running_wall_ns, clamped to 0..1
 *   error           = one standard error of starvation from the sampling, two terms: the
 *                     running wall time is an estimate from running_samples wall samples,
 *                     whose count is at most as variable as a Poisson count's (relative
 *                     error 1 / sqrt(running_samples)); CPU time is counted by a timer in
 *                     whole intervals, the remainder of each thread's unseen (uniform over
 *                     an interval: variance interval^2 / 12). Error^2 = (1 - starvation)^2 /
 *                     running_samples + threads x (interval / running_wall_ns)^2 / 12.
 * Overall: 1 - (sum of cpu_ns) / (sum of running_wall_ns) over the threads with running wall
 * time, clamped. Threads without RUNNING wall samples (GC, JIT and other non-Java threads,
 * threads that only wait) are left out: they have no running wall time to compare with.
 * CPU a thread spends in native code (wall state NATIVE, not RUNNING) counts in its cpu_ns
 * but not in its running wall time, so such a thread reads low (clamped at 0), never high.
 *
 * The mean time between wall ticks is measured from the WALL_TICK records (the time from the
 * first tick id to the last over the ids between, with at least STARVATION_MIN_TICKS ticks
 * read; the wall interval otherwise): a sampler thread that itself waits for a CPU skips
 * ticks instead of bursting to catch up, so on a starved machine a tick stands for more than
 * one interval.
 *
 * Any thread; reads the profile only. Never prints.
 */
#ifndef STARVATION_H
#define STARVATION_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#define STARVATION_MIN_TICKS 10

struct starvation_thread {
    uint32_t thread; /* index into profile.threads, or PROFILE_NONE (undefined thread ids) */
    uint64_t cpu_ns;
    uint64_t running_wall_ns; /* > 0 */
    uint64_t running_samples; /* the RUNNING wall samples behind running_wall_ns */
    double starvation;        /* 0..1 */
    double error;             /* one standard error of starvation (starvation_error) */
};

struct starvation {
    int available;            /* both kinds were sampled, with intervals known */
    uint64_t tick_ns;         /* the mean time between wall ticks that weighs wall samples */
    uint64_t cpu_ns;          /* sums over threads[] */
    uint64_t running_wall_ns; /* 0: no thread was sampled RUNNING */
    uint64_t running_samples;
    double overall;           /* 0..1; 0 when running_wall_ns is 0 */
    double error;             /* one standard error of overall */
    struct starvation_thread *threads; /* by running wall time, longest first, then tid */
    size_t nthreads;
};

/* Which aggregation cells count: a selection of samples (say, one endpoint's, once cells carry
 * a trace context). Returns non-zero to count the cell. */
typedef int (*starvation_select)(const struct profile *p, const struct profile_entry *e, void *ctx);

/* Computes the starvation of p's threads over the cells select accepts (NULL: every cell)
 * into *out (owned by the caller: starvation_destroy). out->available is 0, and nothing
 * else set, when the log lacks one of the kinds (its interval is 0 or it has no samples).
 * Returns 0 or -ENOMEM. */
int starvation_compute(const struct profile *p, starvation_select select, void *ctx,
                       struct starvation *out);

/* The same over the cells cells[0..n) of p, such as p's context totals (profile.ctx_entries). */
int starvation_compute_cells(const struct profile *p, const struct profile_entry *cells, size_t n,
                             starvation_select select, void *ctx, struct starvation *out);

/* Frees what starvation_compute allocated. */
void starvation_destroy(struct starvation *s);

/* 1 - cpu / running, clamped to 0..1; 0 when running is 0. */
double starvation_ratio(uint64_t cpu_ns, uint64_t running_wall_ns);

/* One standard error of a starvation share over nthreads threads' running_wall_ns, from
 * running_samples wall samples and CPU samples of cpu_interval_ns (above); 1 with no running
 * sample. */
double starvation_error(double starvation, uint64_t running_samples, uint64_t running_wall_ns,
                        uint64_t cpu_interval_ns, size_t nthreads);

#endif
