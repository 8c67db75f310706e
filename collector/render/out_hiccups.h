/* out_hiccups.h: the hiccups of a log (hiccups.h) as text and as an exported time series.
 *
 * The text: the probes' settings, per probe the delays' p50/p99/p99.9/max, stalls and stall
 * time by cause; the JVM's GC pauses, safepoints and the steal time; then the longest stalls,
 * each with when (seconds after the start and clock time), how long, which probe, its cause
 * and why (the GC pause and its collector, the safepoints and their time, the run-queue
 * wait), and the heaviest stacks sampled in its window (what the application was doing).
 *
 * The series: one export point per probe and interval ("java", "os"), in time order, with the
 * GC time and the safepoint time (prorated from PAUSE_STATS) of the interval.
 * Never prints except into the given stream or exporter. Any thread.
 */
#ifndef OUT_HICCUPS_H
#define OUT_HICCUPS_H

#include <stddef.h>
#include <stdio.h>

#include "export.h"
#include "hiccups.h"
#include "profile.h"

/* Writes the report with the `top` longest stalls to f. Returns 0 or -EIO. */
int out_hiccups_text(FILE *f, const struct profile *p, const struct hiccups *h, size_t top);

/* Writes every interval to e. Returns 0 or the exporter's -errno (err filled). */
int out_hiccups_export(const struct profile *p, const struct hiccups *h, struct exporter *e,
                       char *err, size_t errlen);

/* Writes every stall as a CSV line, in time order, under the header
 *   start,end,duration_ns,probe,cause,gc_overlap_ns,os_overlap_ns,run_delay_ns,safepoints,
 *   safepoint_ns,samples
 * (start and end in ns since the epoch). Returns 0 or -EIO. */
int out_hiccups_stalls_csv(FILE *f, const struct profile *p, const struct hiccups *h);

/* The value of the `hiccups` key of `flyprof summary --json` (no newline): null when the log
 * has no hiccup records, else
 *   {"resolution_ns":N,"threshold_ns":N,"p50_ns":N,"p99_ns":N,"p999_ns":N,"max_ns":N,
 *    "os":{"p50_ns":N,"p99_ns":N,"p999_ns":N,"max_ns":N},
 *    "gc_pauses":N,"gc_ns":N,"safepoints":N|null,"safepoint_ns":N|null,
 *    "stalls":[{"start_ns":N,"duration_ns":N,"probe":"java","cause":"gc"},...]}
 * where the top-level percentiles are the Java probe's delays (the JVM's view), "os" the OS
 * probe's, start_ns is ns since the epoch and stalls are in time order. Returns 0 or -EIO. */
int out_hiccups_json(FILE *f, const struct profile *p, const struct hiccups *h);

/* For `flyprof summary`: reads the hiccups of the log at path (p read from it) and, when it
 * has any, writes the report with the 5 longest stalls. A log whose header's options name
 * neither hiccup nor stall= is not read again. Returns 0 or -errno (err filled). */
int out_hiccups_summary(FILE *f, const struct profile *p, const char *path, char *err,
                        size_t errlen);

#endif
