/* reader.h: streaming, bounds-checked reader of .fpl logs (collector/FORMAT.md).
 *
 * The reader validates the preamble, walks the chunks (sync word, length, CRC-32 over the
 * sequence number and payload), decodes the records of every chunk that verifies and hands
 * them to callbacks, one record at a time (or consecutive samples in runs, reader_ops.samples):
 * a log of any size is read in memory proportional to its largest chunk. A damaged chunk is
 * skipped by scanning forward for the next sync word whose chunk verifies; a chunk cut off at
 * the end of the file is ignored. Inside a chunk, every record is framed by its body length: a
 * record of an unknown type, or one whose fields do not decode within its body, is skipped and
 * the chunk goes on; bytes after the fields this reader knows are ignored (newer writers append
 * fields). All of it is counted in struct reader_stats.
 *
 * Never prints, never exits. Any thread; one read at a time per callback context.
 */
#ifndef READER_H
#define READER_H

#include <stddef.h>
#include <stdint.h>

/* A string inside the log: not NUL-terminated, bytes as written (UTF-8 or modified UTF-8).
 * Valid only during the callback that receives it. */
struct reader_str {
    const char *s;
    size_t len;
};

/* FPL_REC_HEADER. Strings valid only during the callback. */
struct reader_header {
    uint64_t header_version;
    uint64_t pid;
    uint8_t clock; /* enum fpl_clock */
    uint64_t ticks_per_sec;
    uint64_t anchor_ticks;
    uint64_t anchor_mono_ns;
    uint64_t anchor_real_ns;
    uint64_t cpu_interval_ns;  /* 0: off */
    uint8_t engine;            /* enum fpl_engine */
    uint64_t wall_interval_ns; /* 0: off */
    uint64_t wall_threads;
    uint64_t depth;
    struct reader_str options;
    struct reader_str jvm_name;
    struct reader_str jvm_version;
    struct reader_str command;
    struct reader_str agent_version; /* "" in logs of agents before it was added */
};

/* One entry of a method's line table. */
struct reader_line {
    uint64_t start_bci;
    uint64_t line;
};

/* FPL_REC_METHOD, or METHOD2 with its CLASS_NAME's class and source file and its line table
 * summed up. Strings and `lines` valid only during the callback. */
struct reader_method {
    uint64_t id;
    uint8_t kind; /* enum fpl_method_kind */
    struct reader_str class_name;
    struct reader_str name;
    struct reader_str signature;
    struct reader_str source_file;
    size_t nlines;
    const struct reader_line *lines;
};

/* One frame of FPL_REC_STACK. */
struct reader_frame {
    uint64_t method_id;
    int64_t bci;  /* < 0: none */
    uint8_t type; /* enum fpl_frame_type, unchecked; FPL_FRAME_JAVA when not logged */
};

/* FPL_REC_SAMPLE with its delta resolved. */
struct reader_sample {
    uint64_t ticks; /* absolute */
    uint64_t thread_id;
    uint64_t stack_id;
    uint64_t weight;
    uint8_t kind;     /* enum fpl_kind, unchecked */
    uint8_t state;    /* enum fpl_state, unchecked */
    uint64_t tick_id; /* the WALL_TICK this sample answers; 0: none (or the field is absent) */
    uint64_t context_id; /* the CONTEXT the thread worked for; 0: none (or absent) */
    uint64_t size;    /* ALLOC: the sampled object's bytes; 0: unknown (or absent) */
};

/* FPL_REC_WALL_TICK. Counts are passed through unchecked (chosen may exceed candidates in a
 * broken log): the consumer decides. */
struct reader_wall_tick {
    uint64_t id; /* > 0: a record with id 0 is a bad record, never delivered */
    uint64_t ticks;
    uint64_t candidates;
    uint64_t chosen;
    uint64_t signaled;
    uint64_t failed;
};

/* One non-empty bucket of a FPL_REC_HICCUP histogram. */
struct reader_bucket {
    uint64_t index; /* fpl_hdr_index of its values (unchecked: may exceed FPL_HDR_COUNTS) */
    uint64_t count;
};

/* FPL_REC_HICCUP: one hiccup probe's interval. buckets valid only during the callback,
 * ascending by index. */
struct reader_hiccup {
    uint64_t probe; /* enum fpl_probe, unchecked */
    uint64_t start, end; /* ticks */
    uint64_t resolution_ns, threshold_ns;
    uint64_t wakeups, max_ns, max_ticks, stalls, stalled_ns, run_delay_ns;
    size_t nbuckets;
    const struct reader_bucket *buckets;
};

/* FPL_REC_STALL. */
struct reader_stall {
    uint64_t probe; /* enum fpl_probe, unchecked */
    uint8_t flags;  /* FPL_STALL_* */
    uint64_t start, end; /* ticks */
    uint64_t run_delay_ns, safepoints, safepoint_ns, sync_ns;
};

/* FPL_REC_GC. The name is valid only during the callback. */
struct reader_gc {
    uint64_t start, end; /* ticks */
    struct reader_str collector;
};

/* FPL_REC_PAUSE_STATS. */
struct reader_pause_stats {
    uint64_t start, end; /* ticks */
    uint8_t flags;       /* FPL_PAUSE_* */
    uint64_t safepoints, safepoint_ns, sync_ns, steal_ns, cpus, stalls_dropped, gcs_dropped;
};

/* One entry of FPL_REC_COUNTERS. */
struct reader_counter {
    uint64_t id; /* enum fpl_counter; unknown ids are passed through */
    uint64_t value;
};

/* One event of FPL_REC_EVENTS (dev.flyprof.Events.log), its time resolved. */
struct reader_event {
    uint64_t thread_id;
    uint64_t ticks;      /* absolute */
    int64_t n;
    uint8_t flags;       /* enum fpl_event_flag; unknown bits passed through */
    uint64_t dropped;    /* events of this thread dropped right before this one (0: none) */
    struct reader_str s; /* when flags has FPL_EVENT_STRING; else empty. Valid during the
                          * callback only */
};

/* The most samples one call of reader_ops.samples delivers. */
#define READER_BATCH 64

/* Callbacks; any may be NULL. A callback returning non-zero stops the read, and reader_read*
 * returns that value. Enum fields are passed through unchecked: the consumer decides. */
struct reader_ops {
    int (*header)(void *ctx, const struct reader_header *h);
    int (*anchor)(void *ctx, uint64_t ticks, uint64_t mono_ns, uint64_t real_ns);
    int (*thread)(void *ctx, uint64_t id, uint64_t os_tid, struct reader_str name);
    /* right after thread, when the THREAD record gives the Java thread id (may be NULL) */
    int (*thread_java_id)(void *ctx, uint64_t id, uint64_t java_id);
    int (*method)(void *ctx, const struct reader_method *m);
    /* frames leaf first, valid only during the callback */
    int (*stack)(void *ctx, uint64_t id, const struct reader_frame *frames, size_t n);
    int (*sample)(void *ctx, const struct reader_sample *s);
    /* When set, replaces sample: runs of consecutive samples of a chunk, in the order logged,
     * at most READER_BATCH at a time, delivered before the next record of another type (and
     * at the chunk's end), so a consumer can overlap the memory accesses of several samples.
     * s[0..n) is valid only during the callback. */
    int (*samples)(void *ctx, const struct reader_sample *s, size_t n);
    int (*counters)(void *ctx, const struct reader_counter *c, size_t n);
    /* buckets[i] counts handler runs whose time fell into fpl_hist_bucket i */
    int (*handler_hist)(void *ctx, const uint64_t *buckets, size_t n, uint64_t max_ns,
                        uint64_t total_ns);
    int (*end)(void *ctx, uint64_t ticks);
    int (*wall_tick)(void *ctx, const struct reader_wall_tick *t);
    /* FPL_REC_EVENTS: each event in the order logged; then, when the record says so, the
     * thread's events dropped after the last one (dropped_after > 0). A record that does not
     * decode delivers none of its events. */
    int (*event)(void *ctx, const struct reader_event *e);
    int (*event_drops)(void *ctx, uint64_t thread_id, uint64_t dropped_after);
    /* hiccup mode (FORMAT.md 5.12-5.15) */
    int (*hiccup)(void *ctx, const struct reader_hiccup *h);
    int (*stall)(void *ctx, const struct reader_stall *s);
    int (*gc)(void *ctx, const struct reader_gc *g);
    int (*pause_stats)(void *ctx, const struct reader_pause_stats *p);
    /* trace context (FORMAT.md 5.16, 5.17): a CONTEXT definition (id > 0), and a root span's
     * endpoint name (valid only during the callback) */
    int (*context)(void *ctx, uint64_t id, uint64_t span, uint64_t root);
    int (*endpoint)(void *ctx, uint64_t root, struct reader_str name);
};

/* What the reader met on its way; filled by reader_read*, also when it fails half-way. */
struct reader_stats {
    uint64_t file_bytes;         /* size of the log */
    uint64_t chunks_ok;          /* chunks that verified (framing and CRC) */
    uint64_t chunks_damaged;     /* damaged regions skipped (bad sync, length or CRC) */
    uint64_t chunks_truncated;   /* 0 or 1: a chunk cut off at the end of the file */
    uint64_t chunks_lost;        /* chunks missing according to the sequence numbers */
    uint64_t chunks_bad_framing; /* verified chunks ended early: a record's type, length or
                                  * body ran past the payload */
    uint64_t seq_errors;         /* verified chunks numbered at or before one already read (a
                                  * spliced or duplicated log); not counted as lost */
    uint64_t bytes_skipped;      /* bytes of damaged regions */
    uint64_t bytes_truncated;    /* bytes of the cut-off chunk at the end */
    uint64_t records;            /* records delivered */
    uint64_t unknown_records;    /* records skipped whole: an unknown type, or a HEADER of an
                                  * unknown header_version */
    uint64_t bad_records;        /* records skipped because their fields do not decode within
                                  * their body (the chunk goes on) */
};

/* Reads the log at `path` and delivers its records to `ops`. The file is read window by
 * window, never mapped or copied whole: a regular file with pread (up to the size it has when
 * the read starts: a log still growing is read that far), anything else (a pipe) forward only.
 * The window holds a chunk and what was read with it: about 1 MiB, at most FPL_CHUNK_MAX and a
 * header. `stats` may be NULL. `stats` may be NULL. Returns 0, even if chunks were damaged or cut off
 * (see stats); -EINVAL when the file is not a readable flyprof log (bad magic, unsupported
 * version, too short); -errno on I/O failure; or a callback's non-zero return. On failure
 * other than a callback's, err[0..errlen) gets a message naming the file and the problem,
 * e.g. "'x.fpl': not a flyprof log (bad magic)". */
int reader_read_file(const char *path, const struct reader_ops *ops, void *ctx,
                     struct reader_stats *stats, char *err, size_t errlen);

/* As reader_read_file, on a log already in memory; `name` is used in messages. The buffer is
 * only read, never past data + len. */
int reader_read_mem(const void *data, size_t len, const char *name, const struct reader_ops *ops,
                    void *ctx, struct reader_stats *stats, char *err, size_t errlen);

#endif
