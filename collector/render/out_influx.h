/* out_influx.h: the latency time series into InfluxDB (1.x line protocol), batched:
 *
 *   jitter,host=web1,probe=cpu0 count=61234567i,p50=12i,p99=27i,p999=1211i,max=43120i,
 *       max_time=1700000000412345678i,stalled_pct=0.12 1700000000000000000
 *
 * (one line; gc_ms and safepoint_ms fields are added when measured), timestamps in ns. Two
 * transports: `http://host[:port]/write?db=NAME` (port 8086 by default) POSTs batches of up
 * to 256 KiB, at most 5 s apart; `udp://host[:port]` (port 8089) sends datagrams of up to
 * 1400 bytes, whole lines only (as InfluxDB's UDP listener expects). Any thread, one writer at
 * a time; never prints.
 */
#ifndef OUT_INFLUX_H
#define OUT_INFLUX_H

#include <stddef.h>

#include "export.h"

struct out_influx;

/* Parses url, resolves its host and, for http, connects once to check that something
 * listens. measurement names the series. Returns 0, or -EINVAL for a malformed URL or an
 * unknown scheme, or -errno of the lookup or connection; err says which. */
int out_influx_open(struct out_influx **x, const char *url, const char *measurement, char *err,
                    size_t errlen);

/* Adds p's line to the batch; sends the batch when it is full or 5 s old. Returns 0 or
 * -errno when a send failed (HTTP status other than 2xx: -EPROTO, with the server's reply in
 * err). */
int out_influx_write(struct out_influx *x, const struct export_point *p, char *err, size_t errlen);

/* Sends what is batched. Returns as out_influx_write. */
int out_influx_flush(struct out_influx *x, char *err, size_t errlen);

/* Flushes and closes (x may be NULL). */
int out_influx_close(struct out_influx *x, char *err, size_t errlen);

/* The line for p (no newline) into buf; returns its length (as snprintf: may exceed len). */
size_t out_influx_line(const char *measurement, const char *host, const struct export_point *p,
                       char *buf, size_t len);

#endif
