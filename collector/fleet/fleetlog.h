/* fleetlog.h: the fleet's profile out of ClickHouse (flyprof convert --db), as a flyprof log
 * that every output reads: ClickHouse sums the rows flyprof push made (push.h) over the
 * selection, grouped by kind, state, thread and stack hash, and answers the frames of those
 * stacks in a second query, each stack once; this writes them as a log (a HEADER, the
 * threads, methods and stacks, one SAMPLE per row) into a file, which the collector then
 * reads as any log. The sampling interval of each kind is the selection's mean (sum of
 * weight_ns / sum of weight): exact when its logs share one. A wall row's upscaled weight is
 * kept as a WALL_TICK of its own (candidates / chosen = the weight, to 2^-20). Frame types
 * are not stored in ClickHouse: a frame is a marker ([...]), C/C++ (no '.', or '::') or
 * Java; the leaf of an alloc, lock or live row is a class. Samples carry no time: all stand
 * at the log's start, the window's start (--from) or else the selection's first minute.
 * Never prints. */
#ifndef FLEETLOG_H
#define FLEETLOG_H

#include <stddef.h>
#include <stdint.h>

#include "chttp.h"

struct fleet_sel {
    const char *service;       /* required */
    const char *host;          /* NULL: every host */
    const char *const *labels; /* "K=V", each required */
    size_t nlabels;
    int64_t from_s, to_s;      /* seconds since the epoch; 0: no bound */
};

/* Writes the selection's profile as a log into fd. *rows: the rows ClickHouse returned.
 * Returns 0, or -errno with err (the server's message when it rejects the query; -ENOENT when
 * the selection holds no sample). */
int fleetlog_write(const struct chttp_url *u, const struct fleet_sel *s, int fd, uint64_t *rows,
                   char *err, size_t errlen);

#endif
