/* cpuclock.h: the kernel's per-thread CPU clock of any thread of this process, by kernel tid:
 * CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED (6) over the inverted tid, as clock_getcpuclockid and
 * pthread_getcpuclockid make it for the caller and for a pthread_t (computed unsigned: a
 * negative value shifted left is undefined in C). Async-signal-safe. */
#ifndef CPUCLOCK_H
#define CPUCLOCK_H

#include <stdint.h>
#include <time.h>

static inline clockid_t cpuclock_of(int tid)
{
    return (clockid_t)((~(uint32_t)tid << 3) | 6);
}

/* The CPU time of thread tid, ns; 0 when it cannot be read (it ended). */
static inline uint64_t cpuclock_ns(int tid)
{
    struct timespec ts;
    if (clock_gettime(cpuclock_of(tid), &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
