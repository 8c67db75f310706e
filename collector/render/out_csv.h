/* out_csv.h: the latency time series as CSV, one line per probe and interval, absolute times:
 *
 *   time,probe,count,p50_ns,p99_ns,p999_ns,max_ns,max_time,stalled_pct,gc_ms,safepoint_ms
 *   1700000000000000000,cpu0,61234567,12,27,1211,43120,1700000000412345678,0.120,,
 *
 * time and max_time are ns since the epoch (the interval's start, when its longest delay
 * began); count is the delays measured; percentiles and max in ns (HdrHistogram's
 * percentiles, hdr.h); stalled_pct the share of the interval lost to stalls above the
 * threshold; gc_ms and safepoint_ms the JVM's pause time in the interval, empty when not
 * measured. The columns time and max_ns are the `time,delay` pair of the jitter sampler this
 * follows, for every interval rather than only those above the threshold. Any thread, one
 * writer at a time; never prints.
 */
#ifndef OUT_CSV_H
#define OUT_CSV_H

#include <stddef.h>

#include "export.h"

struct out_csv;

/* Creates (truncates) path and writes the header line. Returns 0 or -errno (err filled). */
int out_csv_open(struct out_csv **c, const char *path, char *err, size_t errlen);

/* Writes p as one line and flushes it. Returns 0 or -errno. */
int out_csv_write(struct out_csv *c, const struct export_point *p, char *err, size_t errlen);

/* Closes (c may be NULL). Returns 0 or -errno. */
int out_csv_close(struct out_csv *c, char *err, size_t errlen);

#endif
