/* census.h: what a .fpl log holds, counted in one streaming pass that keeps nothing of it:
 * the sizes of its dictionaries, its samples, and how many distinct aggregation cells (thread,
 * stack, kind, state) they fall into -- estimated with a HyperLogLog sketch of 4096 registers
 * (about 1.6% standard error), so the count itself takes 4 KiB whatever the log.
 *
 * What it is for: telling how much memory reading the log into a profile and rendering it
 * will take (render_file_estimate) before doing it, where memory is not ours to spend (inside
 * the profiled JVM, at stop). Never prints. Any thread.
 */
#ifndef CENSUS_H
#define CENSUS_H

#include <stddef.h>
#include <stdint.h>

#include "reader.h"

#define CENSUS_HLL_BITS 12

struct census {
    uint64_t file_bytes;
    uint64_t threads;      /* THREAD records */
    uint64_t thread_bytes; /* their names */
    uint64_t methods;      /* METHOD records */
    uint64_t method_bytes; /* their strings (class, name, signature, source file) */
    uint64_t lines;        /* line table entries */
    uint64_t stacks;       /* STACK records */
    uint64_t frames;       /* their frames */
    uint64_t max_depth;    /* the deepest stack */
    uint64_t samples;      /* SAMPLE records */
    uint64_t wall_ticks;   /* WALL_TICK records */
    uint64_t cells;        /* distinct (thread, stack, kind, state) of the samples: estimated */
    uint64_t contexts;     /* CONTEXT records */
    uint64_t endpoints;    /* ENDPOINT records */
    uint64_t endpoint_bytes; /* their names */
    uint64_t context_samples; /* samples with a context id */
    uint64_t event_samples;   /* ALLOC, LOCK and LIVE samples (JFR keeps them one by one) */
    struct reader_stats stats;
    uint8_t hll[1u << CENSUS_HLL_BITS]; /* internal: the sketch */
};

/* Counts the log at path into c. Returns 0 (damage is counted in c->stats, as the reader
 * does), or -errno with a message in err. */
int census_read(const char *path, struct census *c, char *err, size_t errlen);

/* As census_read, on a log in memory. */
int census_read_mem(const void *data, size_t len, const char *name, struct census *c, char *err,
                    size_t errlen);

#endif
