/* export.h: the time series `flyprof jitter` and `flyprof hiccups` export, one point per probe
 * and interval, to any of three sinks at once: an HdrHistogram interval log (out_hlog), a CSV
 * file (out_csv) and InfluxDB (out_influx). Never prints; returns errors with messages. One
 * thread at a time.
 */
#ifndef EXPORT_H
#define EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "hdr.h"

/* One probe's interval. */
struct export_point {
    const char *probe; /* "cpu0", "java", "os": a tag (no commas, spaces, '=') */
    uint64_t start_ns; /* interval start, ns since the epoch */
    uint64_t length_ns;
    const struct hdr *hist; /* the delays measured in the interval, ns */
    uint64_t max_time_ns;   /* when the longest delay (hist->max) began, ns since the epoch */
    double stalled_pct;     /* share of the interval lost to stalls above the threshold */
    double gc_ms;           /* GC pause time in the interval; < 0: not measured */
    double safepoint_ms;    /* safepoint time in the interval; < 0: not measured */
};

struct export_opts {
    const char *hlog; /* paths or URL; NULL: not wanted */
    const char *csv;
    const char *influx;      /* http://host:port/write?db=NAME or udp://host:port */
    const char *measurement; /* the InfluxDB measurement: "jitter", "hiccups" */
    const char *comment;     /* first line of the .hlog, without '#' (may be NULL) */
    uint64_t start_ns;       /* the run's start, ns since the epoch */
};

struct exporter;

/* Opens every sink o names, before any measuring, so that a bad path or URL is reported
 * first: files are created, the InfluxDB URL parsed and its host resolved (and for http,
 * connected to once). On failure nothing stays open and files created are removed. Returns 0
 * with *e set (also when o names no sink), or -errno with err saying which sink failed. */
int export_open(struct exporter **e, const struct export_opts *o, char *err, size_t errlen);

/* Writes one point to every sink. Returns 0 or the first sink's -errno (err filled); the
 * other sinks still get the point. */
int export_point(struct exporter *e, const struct export_point *p, char *err, size_t errlen);

/* Flushes what is batched (InfluxDB) and closes everything; e may be NULL. Returns 0 or the
 * first -errno. */
int export_close(struct exporter *e, char *err, size_t errlen);

#endif
