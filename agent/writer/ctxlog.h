/* ctxlog.h: trace context in the log. The writer's side of dev.flyprof.Context: the CONTEXT
 * dictionary (a small id per (span, root) pair, written before the first sample carrying it)
 * and the ENDPOINT2 records (Context.endpoint: a root span's name), which application threads
 * queue here and the writer drains.
 *
 * Dictionaries: a direct-mapped cache of CTXLOG_CACHE pairs, so the writer's memory stays
 * bounded however many requests pass; ids only grow (a pair evicted and met again gets a new
 * id and a new CONTEXT record), so every id the log uses means one pair. Endpoint names the
 * same way: a cache of CTXLOG_NAMES names, each written once as an ENDPOINT_NAME record, so a
 * request's ENDPOINT2 record is its root span and a small name id (a service has a few dozen
 * endpoints and serves them again and again: the names were 4.9 of the demo's 25.5 bytes per
 * sample when each request repeated its name).
 *
 * Endpoint queue: CTXLOG_QUEUE entries of at most CTXLOG_NAME_MAX bytes of name, under a
 * mutex (one call per request, from any thread: never a signal handler). A full queue drops
 * the call and counts it (FPL_CTR_ENDPOINT_DROPS); a queue past a quarter full wakes the
 * writer. Memory: a fixed table, CTXLOG_QUEUE x 256 bytes (pages touched only when used), and
 * the name cache, CTXLOG_NAMES x 248 bytes.
 */
#ifndef CTXLOG_H
#define CTXLOG_H

#include <stddef.h>
#include <stdint.h>

#include "fpl_codec.h"

#define CTXLOG_CACHE 4096      /* (span, root) pairs the writer remembers */
#define CTXLOG_QUEUE 2048      /* endpoint names waiting for the writer */
#define CTXLOG_NAME_MAX 240    /* bytes of an endpoint name kept (modified UTF-8) */
#define CTXLOG_NAME_CHARS 80   /* UTF-16 units of a name copied (3 bytes each at most) */
#define CTXLOG_NAMES 256       /* endpoint names the writer remembers */

/* An endpoint name the log has: its ENDPOINT_NAME id (0: an empty slot) and bytes. */
struct ctxlog_name {
    uint32_t id;
    uint16_t len;
    char name[CTXLOG_NAME_MAX];
};

struct ctxlog {
    uint64_t *pairs; /* CTXLOG_CACHE x (span, root) */
    uint32_t *ids;   /* CTXLOG_CACHE ids, 0: empty */
    uint32_t next;   /* next id to hand out */
    struct ctxlog_name *names; /* CTXLOG_NAMES, by a hash of the bytes */
    uint32_t next_name;        /* next name id to hand out */
};

/* Allocates the caches. Returns 0 or -ENOMEM (then ctxlog_id returns 0: samples carry no
 * context, and endpoints are written as ENDPOINT records, each with its name). Writer
 * thread. */
int ctxlog_init(struct ctxlog *c);

/* Frees the cache. */
void ctxlog_destroy(struct ctxlog *c);

/* The context id of (span, root) for a SAMPLE record, writing its CONTEXT record into b when
 * the pair is new to the cache; 0 for no context (span and root both 0, or no cache). Writer
 * thread, before the SAMPLE record is begun. */
uint32_t ctxlog_id(struct ctxlog *c, struct fpl_buf *b, uint64_t span, uint64_t root);

/* Forgets every pair and name: each is given a new id and a new CONTEXT or ENDPOINT_NAME
 * record when next met (the writer lost a chunk that may have held their records). Writer
 * thread. */
void ctxlog_forget(struct ctxlog *c);

/* Profiling starts: empties the queue (names from before are not this log's) and takes
 * names from now on. Writer thread, before the first drain. */
void ctxlog_start(void);

/* Profiling stopped: calls are ignored until the next start. Writer thread, after its last
 * drain. */
void ctxlog_stop(void);

/* Queues an endpoint name for root (len bytes, cut at CTXLOG_NAME_MAX). Returns 0, or -ENOSPC
 * when the queue is full (counted). Any thread but a signal handler; calls wake when the
 * queue passes a quarter full. Ignored (0) while no profiling session runs. */
int ctxlog_endpoint(uint64_t root, const char *name, size_t len, void (*wake)(void));

/* Writes the queued endpoints into b as ENDPOINT2 records, each name new to the cache as an
 * ENDPOINT_NAME record before its first use, and empties the queue. Writer. */
void ctxlog_drain_endpoints(struct ctxlog *c, struct fpl_buf *b);

#endif
