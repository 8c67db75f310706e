/* profile.h: an in-memory profile built from a .fpl log: the dictionaries (threads, methods,
 * stacks), the samples aggregated by (thread, stack, kind, state), totals, counters, the
 * handler histogram, clock conversion and the reader's damage statistics.
 *
 * Output writers (out_*.c, summary.c) read the struct directly; it is filled by
 * profile_read_* and read-only afterwards. Memory: every string and array hangs off the
 * profile and lives until profile_free. Never prints, never exits. Any thread; a profile is
 * used by one thread at a time.
 */
#ifndef PROFILE_H
#define PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "fpl_format.h"
#include "reader.h"

#define PROFILE_KINDS 2         /* FPL_KIND_CPU, FPL_KIND_WALL */
#define PROFILE_KIND_AUTO (-1)  /* cpu if any cpu samples, else wall */
#define PROFILE_KIND_ALL 2      /* both kinds */
#define PROFILE_NONE UINT32_MAX /* an index that refers to nothing (undefined dictionary id) */

/* Names shown for references to dictionary ids that were never defined (their chunk was
 * damaged or lost). */
#define PROFILE_UNKNOWN_FRAME "[unknown]"
#define PROFILE_UNKNOWN_STACK "[unknown stack]"
#define PROFILE_EMPTY_STACK "[no frames]"
#define PROFILE_UNKNOWN_THREAD "[unknown thread]"

/* The HEADER record; strings are NUL-terminated copies ("" when absent). */
struct profile_header {
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

struct profile_anchor {
    uint64_t ticks;
    uint64_t mono_ns;
    uint64_t real_ns;
};

struct profile_thread {
    uint64_t id;
    uint64_t os_tid;
    const char *name;    /* as logged (an embedded NUL becomes '_') */
    const char *display; /* name made safe for one-line outputs, see profile_clean */
};

struct profile_line {
    uint64_t start_bci;
    uint64_t line;
};

struct profile_method {
    uint64_t id;
    uint8_t kind;           /* enum fpl_method_kind */
    const char *class_name; /* as logged, dotted */
    const char *name;
    const char *signature;
    const char *source_file; /* "" unknown */
    /* frame name: "class.name" for Java and native methods, the name alone for markers and
     * C functions; made safe with profile_clean */
    const char *display;
    size_t nlines;
    const struct profile_line *lines;
};

struct profile_frame {
    uint64_t method_id;
    uint32_t method; /* index into profile.methods, or PROFILE_NONE */
    int32_t bci;     /* < 0: none */
};

struct profile_stack {
    uint64_t id;
    uint32_t nframes;
    const struct profile_frame *frames; /* leaf first */
};

/* One aggregation cell: the samples of one thread id with one stack id, kind and state. */
struct profile_entry {
    uint64_t thread_id;
    uint64_t stack_id;
    uint32_t thread; /* index into profile.threads, or PROFILE_NONE */
    uint32_t stack;  /* index into profile.stacks, or PROFILE_NONE */
    uint8_t kind;    /* enum fpl_kind */
    uint8_t state;   /* enum fpl_state */
    uint64_t weight; /* sum of the samples' weights */
    uint64_t count;  /* number of samples */
};

struct profile_total {
    uint64_t count;
    uint64_t weight;
};

/* An id -> index map (open addressing); internal to profile.c. */
struct profile_idmap {
    uint64_t *keys;
    uint32_t *vals; /* index + 1; 0 is an empty slot */
    size_t cap;
    size_t n;
};

struct profile_arena_block;
struct profile_agg_slot;

struct profile {
    char name[256]; /* the log's name, for messages */
    int have_header;
    uint64_t headers; /* HEADER records seen (the first one is kept) */
    struct profile_header header;

    uint64_t anchors; /* ANCHOR records seen */
    struct profile_anchor first_anchor;
    struct profile_anchor last_anchor;

    struct profile_thread *threads;
    size_t nthreads;
    struct profile_method *methods;
    size_t nmethods;
    struct profile_stack *stacks;
    size_t nstacks;

    struct profile_entry *entries; /* aggregation cells, set when reading finishes */
    size_t nentries;

    struct profile_total total[PROFILE_KINDS];
    uint64_t samples;              /* SAMPLE records, all kinds */
    uint64_t unknown_kind_samples; /* samples of a kind this reader does not know */
    uint64_t first_ticks;          /* smallest sample ticks (valid when samples > 0) */
    uint64_t last_ticks;           /* largest sample ticks */

    uint64_t counters[FPL_CTR_MAX]; /* the last value seen for each counter */
    uint8_t counter_seen[FPL_CTR_MAX];

    int have_hist; /* the last HANDLER_HIST record */
    uint64_t hist[FPL_HIST_BUCKETS];
    uint64_t hist_max_ns;
    uint64_t hist_total_ns;

    int end_seen; /* an END record was read (the last one is kept) */
    uint64_t end_ticks;

    struct reader_stats stats; /* damage met while reading */

    /* clock conversion, set when reading finishes: ns = (ticks - base_ticks) * num / den */
    int time_known;
    int time_refined; /* frequency measured between two anchors */
    uint64_t base_ticks;
    uint64_t base_mono_ns;
    uint64_t base_real_ns;
    uint64_t time_num;
    uint64_t time_den;

    /* internal */
    struct profile_idmap thread_map, method_map, stack_map;
    size_t threads_cap, methods_cap, stacks_cap;
    struct profile_agg_slot *agg; /* the cells while reading (hash table) */
    size_t agg_cap;
    struct profile_agg_slot *agg_last;
    struct profile_arena_block *arena;
    int read_done;
};

/* Allocates an empty profile. Returns NULL when out of memory. */
struct profile *profile_new(void);

/* Frees the profile and everything it owns. NULL is a no-op. */
void profile_free(struct profile *p);

/* Reads the log at path into p (once per profile). Returns 0 (damage is in p->stats), or
 * -errno with a message naming the file in err[0..errlen). */
int profile_read_file(struct profile *p, const char *path, char *err, size_t errlen);

/* As profile_read_file, from memory; name is used in messages. */
int profile_read_mem(struct profile *p, const void *data, size_t len, const char *name, char *err,
                     size_t errlen);

/* The kind an output shows for a selection: PROFILE_KIND_AUTO becomes FPL_KIND_CPU when there
 * are CPU samples, otherwise FPL_KIND_WALL; other values are returned as they are. */
int profile_resolve_kind(const struct profile *p, int sel);

/* Lookups by dictionary id; NULL when the id was never defined. */
const struct profile_thread *profile_thread_find(const struct profile *p, uint64_t id);
const struct profile_method *profile_method_find(const struct profile *p, uint64_t id);
const struct profile_stack *profile_stack_find(const struct profile *p, uint64_t id);

/* The display name of a frame, PROFILE_UNKNOWN_FRAME when its method is undefined. */
const char *profile_frame_name(const struct profile *p, const struct profile_frame *f);

/* The display name of an entry's thread, PROFILE_UNKNOWN_THREAD when undefined. */
const char *profile_entry_thread_name(const struct profile *p, const struct profile_entry *e);

/* 1 when the frame is a marker (a failed stack walk, etc.). */
int profile_frame_is_marker(const struct profile *p, const struct profile_frame *f);

/* Nanoseconds spanned by dticks ticks (0 when the clock is unknown). 128-bit exact. */
uint64_t profile_ticks_to_ns(const struct profile *p, uint64_t dticks);

/* Wall-clock time (ns since the epoch) of an absolute tick value; 0 when unknown. */
uint64_t profile_ticks_to_real_ns(const struct profile *p, uint64_t ticks);

/* Effective tick frequency in ticks per second (0 when unknown). */
double profile_ticks_per_sec(const struct profile *p);

/* Copies src into dst (capacity cap > 0, always NUL-terminated, cut at cap - 1 bytes) for
 * one-line outputs: ';' and ASCII control characters (newline, carriage return, tab, ...)
 * become '_', so a name can be a frame of a folded line. Returns the length written. */
size_t profile_clean(char *dst, size_t cap, const char *src, size_t len);

#endif
