/* perfdata.h: HotSpot's own performance counters, read live from its PerfData memory: the
 * hsperfdata file /tmp/hsperfdata_<user>/<pid> that the JVM maps and updates in place (what
 * jstat reads). We map it read-only and read counters with plain 64-bit loads, so a read costs
 * nanoseconds and needs no JDK tool. Absent when the JVM runs with -XX:-UsePerfData or
 * -XX:+PerfDisableSharedMem: every function then reports "not available".
 *
 * Format (HotSpot perfMemory.hpp): a prologue (magic bytes ca fe c0 c0, byte order, version 2,
 * used bytes, the first entry's offset and the entry count), then entries: entry length, name
 * offset, vector length, data type ('J' a 64-bit counter, 'B' a byte vector, i.e. a string),
 * flags, units, variability, data offset, each offset relative to the entry.
 *
 * perfdata_open on a setup thread; counter reads from any thread (not signal handlers: the
 * mapping may be gone after perfdata_close).
 */
#ifndef PERFDATA_H
#define PERFDATA_H

#include <stddef.h>
#include <stdint.h>

#define PERFDATA_MAX_COLLECTORS 4

struct perfdata {
    void *map;
    size_t len;
    const volatile int64_t *safepoints;     /* sun.rt.safepoints: safepoints completed */
    const volatile int64_t *safepoint_time; /* sun.rt.safepointTime, hrt ticks */
    const volatile int64_t *sync_time;      /* sun.rt.safepointSyncTime, hrt ticks */
    int64_t hrt_frequency;                  /* sun.os.hrt.frequency: ticks per second */
    unsigned ncollectors;
    /* sun.gc.collector.N.invocations and .name */
    const volatile int64_t *invocations[PERFDATA_MAX_COLLECTORS];
    char collector_name[PERFDATA_MAX_COLLECTORS][64];
};

/* Maps this process's hsperfdata file (or path when not NULL, for tests) and finds the
 * counters. Returns 0 or -errno (-ENOENT: no file; -EINVAL: not PerfData, or the safepoint
 * counters are missing); p is then zeroed and its counters read as 0. */
int perfdata_open(struct perfdata *p, const char *path);

/* Unmaps. Safe on a zeroed or closed p. */
void perfdata_close(struct perfdata *p);

/* A counter's value, 0 when p lacks it. */
static inline int64_t perfdata_get(const volatile int64_t *c)
{
    return c ? *c : 0;
}

/* hrt ticks of a PerfData time counter to ns. */
uint64_t perfdata_ns(const struct perfdata *p, int64_t ticks);

#endif
