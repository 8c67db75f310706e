/* hiccups.h: what a log's hiccup mode recorded (FORMAT.md 5.12-5.15), on one time line: each
 * probe's intervals (histogram, max, stalls), every stall, the JVM's GC pauses and safepoint
 * time, steal, and the samples taken during each stall; and each stall's cause:
 *
 *   gc         a GC pause covers at least half of the stall;
 *   safepoint  otherwise, safepoints completed during it (Java probe, PerfData) whose time
 *              covers the largest share of it, at least a quarter;
 *   os/cpu     otherwise, the probe waited in the run queue (schedstat) for the largest share,
 *              at least a quarter, or (Java probe) the OS probe stalled over that share too;
 *   unknown    nothing explains a quarter of it (a page fault storm, a stopped process, a
 *              late timer, a hypervisor pause without steal accounting).
 *
 * Read with hiccups_read after the log's profile (for the clock and, later, frame names).
 * Never prints; returns errors with messages. One thread at a time.
 */
#ifndef HICCUPS_H
#define HICCUPS_H

#include <stddef.h>
#include <stdint.h>

#include "hdr.h"
#include "profile.h"

enum hiccups_cause {
    HICCUPS_GC = 0,
    HICCUPS_SAFEPOINT = 1,
    HICCUPS_OS_CPU = 2,
    HICCUPS_UNKNOWN = 3,
    HICCUPS_CAUSES = 4,
};

#define HICCUPS_PROBES 2 /* enum fpl_probe: FPL_PROBE_JAVA, FPL_PROBE_OS */
#define HICCUPS_TOP_STACKS 3

struct hiccups_interval {
    int probe;           /* enum fpl_probe */
    uint64_t start, end; /* ticks */
    uint64_t wakeups, max_ns, max_ticks, stalls, stalled_ns, run_delay_ns;
    struct hdr *hist;      /* the delays, ns */
    uint64_t gc_ns;        /* GC pause time inside the interval */
    uint64_t safepoint_ns; /* safepoint time, from PAUSE_STATS prorated by overlap */
    int have_safepoints;
};

/* A stack seen in a stall's window, with the weight of its samples there. */
struct hiccups_stack {
    uint64_t stack_id, thread_id;
    uint64_t weight;
};

struct hiccups_stall {
    int probe;           /* enum fpl_probe */
    uint8_t flags;       /* FPL_STALL_* */
    uint64_t start, end; /* ticks: when the probe should have run, when it did */
    uint64_t duration_ns;
    uint64_t run_delay_ns, safepoints, safepoint_ns, sync_ns;
    uint64_t gc_overlap_ns;          /* of GC pauses with [start, end] */
    uint64_t os_overlap_ns;          /* of OS-probe stalls with [start, end] (Java probe) */
    int gc;                          /* index into gcs of the pause overlapping most, or -1 */
    int cause;                       /* enum hiccups_cause */
    uint64_t samples, sample_weight; /* samples taken in [start, end] */
    size_t nstacks;
    struct hiccups_stack stacks[HICCUPS_TOP_STACKS]; /* the heaviest, by weight */
};

struct hiccups_gc {
    uint64_t start, end; /* ticks */
    char *collector;     /* "" unknown */
};

struct hiccups_pause {
    uint64_t start, end; /* ticks */
    uint8_t flags;       /* FPL_PAUSE_* */
    uint64_t safepoints, safepoint_ns, sync_ns, steal_ns, cpus, stalls_dropped, gcs_dropped;
};

struct hiccups {
    int present;                          /* any hiccup record was read */
    int have_settings;                    /* an interval was read: the two below are known */
    uint64_t resolution_ns, threshold_ns; /* of the first interval */
    struct hiccups_interval *intervals;   /* by probe, then start */
    size_t nintervals;
    struct hiccups_stall *stalls; /* by start */
    size_t nstalls;
    struct hiccups_gc *gcs; /* by start */
    size_t ngcs;
    struct hiccups_pause *pauses; /* by start */
    size_t npauses;
    struct hdr *total[HICCUPS_PROBES]; /* each probe's delays over the whole log */
    uint64_t wakeups[HICCUPS_PROBES], stalls_by_probe[HICCUPS_PROBES];
    uint64_t stalled_ns[HICCUPS_PROBES];
    uint64_t by_cause[HICCUPS_PROBES][HICCUPS_CAUSES]; /* stall counts */
    uint64_t cause_ns[HICCUPS_PROBES][HICCUPS_CAUSES]; /* stall time */
    uint64_t gc_ns, safepoints, safepoint_ns, sync_ns, steal_ns;
    int have_safepoints, have_steal;
    uint64_t stalls_dropped, gcs_dropped;
};

/* Reads the hiccup records of the log at path, whose profile p was read already (its clock
 * converts ticks), then the samples in each stall's window, and attributes every stall.
 * Zeroes h first. Returns 0 (h->present says whether the log had hiccup mode on), or -errno
 * with err filled. */
int hiccups_read(struct hiccups *h, const struct profile *p, const char *path, char *err,
                 size_t errlen);

/* Frees what h holds (h itself is the caller's). */
void hiccups_free(struct hiccups *h);

/* The cause of a stall from its measured parts (rules above): probe, duration, run-queue
 * wait, safepoint count and time, GC and OS-probe overlaps, all in ns. Pure. */
int hiccups_cause(int probe, uint64_t duration_ns, uint64_t run_delay_ns, uint64_t safepoints,
                  uint64_t safepoint_ns, uint64_t gc_overlap_ns, uint64_t os_overlap_ns);

/* "gc", "safepoint", "os/cpu", "unknown". */
const char *hiccups_cause_name(int cause);

/* "java", "os" (or "probe<N>"). */
const char *hiccups_probe_name(int probe);

#endif
