/* push.h: flyprof's profiles in ClickHouse (flyprof push; the fleet's store). The schema, in
 * the database of the URL (chttp.h), made when missing (push_schema):
 *
 *   flyprof_samples  one row per (minute, service, host, labels, kind, state, thread, endpoint,
 *                    stack) of one log; kind cpu, wall, alloc, lock or live: weight (CPU and
 *                    wall: sampling intervals, wall upscaled as the reader does; alloc, live:
 *                    bytes; lock: ns waited), weight_ns (CPU, wall: weight x the log's interval
 *                    of that kind; lock: the ns; alloc, live: 0), samples (count), log (the
 *                    log's id). MergeTree, partitioned by day, ordered by
 *                    (service, host, time, stack).
 *   flyprof_stacks   stack (a 64-bit hash of its text) -> frames: the frame names root first,
 *                    ';'-separated, as folded output names them. ReplacingMergeTree by stack.
 *                    A push inserts only the stacks the table does not hold yet.
 *   flyprof_logs     log -> service, host, labels, file, pid, start, samples, complete, pushed:
 *                    which logs are in; ReplacingMergeTree by log (the newest push wins).
 *
 * A log's id hashes what makes it that log (its JVM's pid and start in the HEADER) with the
 * service, host and labels it was pushed under. A push is idempotent: a log already in
 * (complete) is skipped; one in but incomplete then (a JVM still writing it) is replaced; rows
 * of a push that died before it recorded its log are deleted before the log goes in again.
 *
 * Over a cluster (push_opts.cluster, a name of the servers' remote_servers): each server holds
 * the three tables as flyprof_X_local, and Distributed tables flyprof_X over them with the
 * plain names, which pushes insert into (synchronously) and queries read: samples sharded by
 * host, stacks by stack, logs by log. Never prints. */
#ifndef PUSH_H
#define PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "chttp.h"

struct push_opts {
    const char *service;
    const char *host;
    const char *const *labels; /* "K=V" */
    size_t nlabels;
    const char *cluster; /* NULL: one server */
};

struct push_result {
    uint64_t log_id;
    uint64_t rows, samples;
    uint64_t stacks; /* stacks inserted: those ClickHouse did not have yet */
    int skipped;  /* already in, complete */
    int replaced; /* was in, incomplete: replaced */
    int complete; /* the log has its END and no chunk is missing */
    uint64_t damaged_chunks; /* chunks the reader skipped (damaged, cut off, lost) */
};

/* Creates the database and tables when missing: on u, or with cluster (may be NULL) on every
 * server of it. Fails when the tables are there but made for the other case. Returns 0, or
 * -errno with err. */
int push_schema(const struct chttp_url *u, const char *cluster, char *err, size_t errlen);

/* The servers of cluster as u knows it (system.clusters), each as u with its host: every
 * server is taken to answer HTTP at u's port. *urls malloc'd (the caller frees). Returns 0,
 * or -errno with err (-ENOENT: no such cluster). */
int push_cluster_urls(const struct chttp_url *u, const char *cluster, struct chttp_url **urls,
                      size_t *n, char *err, size_t errlen);

/* Pushes the log at path (what is readable of it: see r->damaged_chunks). Returns 0, or
 * -errno with err naming the log or the server and what failed. */
int push_log(const struct chttp_url *u, const struct push_opts *o, const char *path,
             struct push_result *r, char *err, size_t errlen);

#endif
