/* fplgen.h: builds small .fpl logs for the collector's tests, with the agent's own encoder
 * (fpl_codec.h: records framed with fpl_rec_begin / fpl_rec_end) and chunk framing
 * (fpl_chunk.c), in a memfd. Records go into the current chunk; fplgen_flush frames it. The
 * generator remembers where each chunk lies and how many samples it holds, so tests can predict
 * what a reader must find in a damaged copy.
 */
#ifndef FPLGEN_H
#define FPLGEN_H

#include <stddef.h>
#include <stdint.h>

#include "fpl_codec.h"
#include "reader.h"

struct fplgen_header {
    uint64_t pid;
    uint8_t clock;
    uint64_t ticks_per_sec;
    uint64_t anchor_ticks;
    uint64_t anchor_mono_ns;
    uint64_t anchor_real_ns;
    uint64_t cpu_interval_ns;
    uint8_t engine;
    uint64_t wall_interval_ns;
    uint64_t wall_threads;
    uint64_t depth;
    const char *options;
    const char *jvm_name;
    const char *jvm_version;
    const char *command;
};

struct fplgen_chunk {
    size_t start; /* offset of the chunk header */
    size_t end;   /* offset just past the payload */
    uint64_t samples;
    uint64_t weight;
};

struct fplgen {
    int fd;
    struct fpl_buf rec; /* records of the open chunk */
    uint32_t seq;
    uint64_t last_ticks;
    uint64_t samples; /* in the open chunk */
    uint64_t weight;
    struct fplgen_chunk *chunks;
    size_t nchunks;
    size_t cap;
    size_t size; /* bytes written so far */
};

/* Opens a memfd and writes the preamble. Returns 0 or -errno. */
int fplgen_init(struct fplgen *g);
void fplgen_destroy(struct fplgen *g);

void fplgen_header(struct fplgen *g, const struct fplgen_header *h);
void fplgen_anchor(struct fplgen *g, uint64_t ticks, uint64_t mono_ns, uint64_t real_ns);
void fplgen_thread(struct fplgen *g, uint64_t id, uint64_t os_tid, const char *name);
void fplgen_method(struct fplgen *g, uint64_t id, uint8_t kind, const char *cls, const char *name,
                   const char *sig, const char *src, size_t nlines,
                   const struct reader_line *lines);
/* A STACK record; its frame types are written only when one of them is not FPL_FRAME_JAVA. */
void fplgen_stack(struct fplgen *g, uint64_t id, size_t n, const struct reader_frame *frames);
/* ticks is absolute; the delta from the chunk's previous sample is computed here. Without the
 * optional tick id field. */
void fplgen_sample(struct fplgen *g, uint64_t ticks, uint64_t thread, uint64_t stack,
                   uint64_t weight, uint8_t kind, uint8_t state);
/* As fplgen_sample, with the trailing tick id field (written even when 0). */
void fplgen_sample_tick(struct fplgen *g, uint64_t ticks, uint64_t thread, uint64_t stack,
                        uint64_t weight, uint8_t kind, uint8_t state, uint64_t tick_id);
/* As fplgen_sample_tick, with the trailing context id (FORMAT.md 5.3) after the tick id. */
void fplgen_sample_ctx(struct fplgen *g, uint64_t ticks, uint64_t thread, uint64_t stack,
                       uint64_t weight, uint8_t kind, uint8_t state, uint64_t tick_id,
                       uint64_t context_id);
/* A CONTEXT record (FORMAT.md 5.16) and an ENDPOINT record (5.17). */
void fplgen_context(struct fplgen *g, uint64_t id, uint64_t span, uint64_t root);
void fplgen_endpoint(struct fplgen *g, uint64_t root, const char *name);
void fplgen_wall_tick(struct fplgen *g, uint64_t id, uint64_t ticks, uint64_t candidates,
                      uint64_t chosen, uint64_t signaled, uint64_t failed);
void fplgen_counters(struct fplgen *g, size_t n, const struct reader_counter *c);
void fplgen_hist(struct fplgen *g, size_t n, const uint64_t *buckets, uint64_t max_ns,
                 uint64_t total_ns);
void fplgen_end(struct fplgen *g, uint64_t ticks);
/* A framed record of any type with the given body (an unknown type, a body too short or too
 * long for its type). */
void fplgen_record(struct fplgen *g, uint8_t type, const void *body, size_t n);
/* Raw bytes into the open chunk, unframed (broken framing, garbage). */
void fplgen_raw(struct fplgen *g, const void *p, size_t n);

/* Frames the open chunk (even if empty) and writes it. Returns 0 or -errno. */
int fplgen_flush(struct fplgen *g);

/* A malloc'd copy of the log written so far, its size in *len. NULL on failure. */
uint8_t *fplgen_bytes(struct fplgen *g, size_t *len);

/* Writes the log written so far to path. Returns 0 or -errno. */
int fplgen_save(struct fplgen *g, const char *path);

/* Writes len bytes of data to path. Returns 0 or -errno. */
int fplgen_write_file(const char *path, const void *data, size_t len);

#endif
