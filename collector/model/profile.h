/* profile.h: an in-memory profile built from a .fpl log: the dictionaries (threads, methods,
 * stacks), the samples aggregated by (thread, stack, kind, state), totals, counters, the
 * handler histogram, wall-clock tick statistics, clock conversion and the reader's damage
 * statistics.
 *
 * Every cell and total has a raw weight (the sum of the samples' weights) and an upscaled
 * weight: a wall sample answering a WALL_TICK stands for candidates / chosen threads, so its
 * upscaled weight is weight * candidates / chosen (collector/FORMAT.md, section 10); a CPU
 * sample's upscaled weight is its weight. Outputs show upscaled weights.
 *
 * Frame names (profile_method.display) are normalized by default: generated classes lose the
 * counters and addresses that differ from run to run (names.h), so two runs of a program give
 * the same names; raw_names keeps them as logged.
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
#include "hashtab.h"
#include "reader.h"
#include "tracectx.h"

struct spill;

#define PROFILE_KINDS 5         /* FPL_KIND_CPU, _WALL, _ALLOC, _LOCK, _LIVE */
/* The kinds whose weights are time in intervals (CPU, wall): the ones --kind all shows together.
 * Alloc weights are bytes and lock weights ns of waiting that wall samples see too, so they are
 * always shown alone. */
#define PROFILE_TIME_KINDS 2
#define PROFILE_KIND_AUTO (-1)  /* cpu if any cpu samples, else wall, else alloc, else lock */
#define PROFILE_KIND_ALL 100    /* cpu and wall together */
#define PROFILE_NONE UINT32_MAX /* an index that refers to nothing (undefined dictionary id) */

/* Thread states the collector gives wall samples besides enum fpl_state (never in a log):
 *
 * PROFILE_STATE_JVM_IDLE: a JVM service thread waiting for work, which is idleness, not
 * contention -- the Notification Thread or the Service Thread blocked on a VM lock (most of a
 * run's "blocked" samples were theirs), Common-Cleaner and Finalizer waiting on their queues.
 * A wall sample not RUNNING is one when its thread bears the name of a JVM service thread
 * (profile_jvm_service_name), or when its stack has no Java frames ([no_Java_frames]) and it
 * is not in native code (where a JNI thread does its own work); set when reading finishes.
 *
 * PROFILE_STATE_OTHER: a state this collector does not know (a newer agent's), as logged. */
#define PROFILE_STATE_JVM_IDLE 8
#define PROFILE_STATE_OTHER 9
#define PROFILE_STATES 10 /* enum fpl_state, then the two above */

/* The marker of a wall sample of a thread without Java frames. */
#define PROFILE_NO_JAVA_FRAMES "[no_Java_frames]"

/* Names shown for references to dictionary ids that were never defined (their chunk was
 * damaged or lost). */
#define PROFILE_UNKNOWN_FRAME "[unknown]"
#define PROFILE_UNKNOWN_STACK "[unknown stack]"
#define PROFILE_EMPTY_STACK "[no frames]"
#define PROFILE_UNKNOWN_THREAD "[unknown thread]"

/* Upscaled weights are fixed point: unsigned 128-bit integers with PROFILE_FP_SHIFT fractional
 * bits. Integer sums make the result independent of the order samples and cells are added in.
 * Each sample's term weight * candidates / chosen is rounded to the nearest 2^-32 (exact when
 * chosen divides weight * candidates * 2^32, as for scales like 3.5 or 2.25), so a sum of n
 * terms is within n * 2^-33 of the exact rational. 96 integer bits cannot overflow on any real
 * log; sums saturate. */
#define PROFILE_FP_SHIFT 32
#define PROFILE_FP_ONE ((unsigned __int128)1 << PROFILE_FP_SHIFT)

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
    const char *agent_version; /* "" for logs of agents that did not write it */
};

struct profile_anchor {
    uint64_t ticks;
    uint64_t mono_ns;
    uint64_t real_ns;
};

struct profile_thread {
    uint64_t id;
    uint64_t os_tid;
    uint64_t java_id;    /* Thread.getId(); 0 unknown (a JVM-internal thread, an older log) */
    const char *name;    /* as logged (an embedded NUL becomes '_') */
    const char *display; /* name made safe for one-line UTF-8 outputs, see profile_clean */
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
     * C functions; made safe (and valid UTF-8) with profile_clean */
    const char *display;
    size_t nlines;
    const struct profile_line *lines;
};

struct profile_frame {
    uint64_t method_id;
    uint32_t method; /* index into profile.methods, or PROFILE_NONE */
    int32_t bci;     /* < 0: none */
    uint8_t type;    /* enum fpl_frame_type as logged, unchecked */
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
    uint8_t state;   /* enum fpl_state, or PROFILE_STATE_JVM_IDLE / _OTHER */
    /* the timeline's series of the cell + 1, 0 not yet (timeline_add_series): kept here, in
     * the line the sample just touched, and in what was padding */
    uint32_t tl_series;
    /* the samples' CONTEXT id (tracectx_find) when profile.cells_by_context, and in the
     * rows of profile.ctx_entries; else 0 */
    uint64_t context_id;
    uint64_t weight; /* sum of the samples' weights (raw) */
    uint64_t count;  /* number of samples */
    /* ALLOC, LIVE: the objects the samples stand for (each sample's weight / size, rounded; 1 when
     * the size is unknown); 0 for other kinds */
    uint64_t objects;
    /* upscaled weight, fixed point (PROFILE_FP_SHIFT): weight << PROFILE_FP_SHIFT for CPU */
    unsigned __int128 upscaled;
};

/* An ALLOC, LOCK or LIVE sample as read, kept one by one (profile_want_kept): its cell (index
 * into profile.entries), ticks, raw weight (bytes it stands for, ns waited) and the size of the
 * object sampled (saturated at UINT32_MAX; 0 unknown). */
struct profile_kept {
    uint64_t ticks;
    uint64_t weight;
    uint32_t cell;
    uint32_t size;
};
/* Kept samples at most: 24 bytes each, 96 MiB */
#define PROFILE_MAX_KEPT (4u << 20)

struct profile_total {
    uint64_t count;
    uint64_t weight;            /* raw */
    unsigned __int128 upscaled; /* fixed point, the sum of the cells' */
    uint64_t objects;           /* ALLOC: the sum of the cells' objects */
};

/* WALL_TICK records (each id counted once: the first definition is kept) and how the wall
 * samples were upscaled. Every wall sample is counted in exactly one of scaled, no_tick,
 * unknown_tick and bad_tick. */
struct profile_wall {
    uint64_t ticks;      /* distinct tick ids read */
    uint64_t candidates; /* sums over those ticks */
    uint64_t chosen;
    uint64_t signaled;
    uint64_t failed;
    /* the ticks of the smallest and the largest tick id read (ids count the sampler's ticks,
     * so last_id - first_id ticks span first_at..last_at even when records were lost);
     * valid when ticks > 0 */
    uint64_t first_id, first_at, last_id, last_at;
    uint64_t duplicate_ticks; /* WALL_TICK records repeating an id: ignored */
    uint64_t scaled;          /* samples upscaled by candidates / chosen of their tick */
    uint64_t no_tick;         /* samples with tick id 0 (none): scale 1 */
    uint64_t unknown_tick;    /* samples whose tick was never read (chunk lost, or the agent
                               * dropped it): scale 1 */
    uint64_t bad_tick;        /* samples whose tick has chosen 0 or above candidates: scale 1 */
};

/* A time bound of a window (--from / --to), as given; resolved against the log's start
 * while reading (profile_set_window_times). */
enum profile_time_kind {
    PROFILE_TIME_NONE = 0,  /* no bound */
    PROFILE_TIME_REL = 1,   /* ns after the start (the HEADER's anchor) */
    PROFILE_TIME_CLOCK = 2, /* ns after local midnight of the start's day (14:03:05) */
    PROFILE_TIME_REAL = 3,  /* ns since the Unix epoch (2026-11-21T14:03:05) */
};

struct profile_time {
    int kind; /* enum profile_time_kind */
    uint64_t ns;
};

/* The time window of a profile: samples outside [from, to) are skipped while reading. */
struct profile_window {
    int set;                       /* a window was asked for */
    struct profile_time from, to;  /* as given */
    int resolved;                  /* the bounds below are known (a start was read) */
    int has_from, has_to;          /* bounds in force */
    int64_t from_ns, to_ns;        /* resolved, ns after the start (may be < 0) */
    uint64_t from_ticks, to_ticks; /* the same, in ticks: from <= ticks < to is inside */
    uint64_t skipped;              /* samples outside the window */
    uint64_t untimed;              /* samples read before any clock information: skipped */
    /* every timed sample, inside the window or not: what the log spans (profile_window_span) */
    uint64_t span_samples;
    uint64_t span_first_ticks, span_last_ticks;
    /* internal: the conversion in force while reading */
    int have_base;
    int base_is_header;
    uint64_t base_ticks, base_mono_ns, base_real_ns;
    uint64_t num, den;
};

/* Events of dev.flyprof.Events (FPL_REC_EVENTS), counted while reading. Every event the
 * program logged while profiling ran is in exactly one of recorded and dropped (unless the
 * stop raced with it, or a chunk was lost). */
struct profile_events {
    uint64_t recorded;  /* events in the log */
    uint64_t dropped;   /* events lost to full buffers (or to a failed allocation) */
    uint64_t truncated; /* recorded events whose string was cut to its first 63 characters */
    uint64_t threads;   /* distinct thread ids with events or drops */
};

/* A consumer of the events as they are read (profile_set_event_sink); the profile counts
 * them either way. */
struct profile_event_sink {
    int (*event)(void *ctx, const struct reader_event *e);
    int (*drops)(void *ctx, uint64_t thread_id, uint64_t dropped_after);
    void *ctx;
};

struct profile_arena_block;
struct profile_tick;
struct timeline;
struct profile_pending;

struct profile {
    char name[256]; /* the log's name, for messages */
    int raw_names;  /* set before reading: frame names as logged, not normalized (names.h) */
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

    struct profile_entry *entries; /* aggregation cells, in the order their first sample came */
    size_t nentries;

    struct profile_total total[PROFILE_KINDS];
    uint64_t samples;              /* SAMPLE records, all kinds */
    uint64_t unknown_kind_samples; /* samples of a kind this reader does not know */
    uint64_t first_ticks;          /* smallest sample ticks (valid when samples > 0) */
    uint64_t last_ticks;           /* largest sample ticks */

    struct profile_wall wall;
    struct profile_window window; /* profile_set_window*; samples outside are not counted */

    uint64_t counters[FPL_CTR_MAX]; /* the last value seen for each counter */
    uint8_t counter_seen[FPL_CTR_MAX];

    int have_hist; /* the last HANDLER_HIST record */
    uint64_t hist[FPL_HIST_BUCKETS];
    uint64_t hist_max_ns;
    uint64_t hist_total_ns;

    struct profile_events events;
    struct profile_event_sink event_sink; /* profile_set_event_sink */

    int end_seen; /* an END record was read (the last one is kept); of several logs: each had
                   * one */
    uint64_t end_ticks;

    struct reader_stats stats; /* damage met while reading */

    /* trace context: the CONTEXT dictionary, endpoint names, the selection by context
     * (profile_select_context) and what it left out */
    struct tracectx ctx;
    /* set before reading: cells are kept apart by context id too (pprof's labels). Costs up to one cell per (request, stack, thread, state) with
     * samples instead of one per (stack, thread, state). */
    int cells_by_context;
    /* set before reading: the samples with a context are also totalled per (context id,
     * thread, kind, state) in ctx_entries (stack PROFILE_NONE, stack_id 0, context_id set),
     * without splitting the cells: what the summary's endpoints, slowest requests and their
     * starvation need. Costs one row per (request, thread, state) with samples. */
    int context_totals;
    struct profile_entry *ctx_entries;
    size_t nctx_entries;
    /* when the samples were taken, binned (timeline.h); NULL unless profile_want_timeline
     * was called before reading */
    struct timeline *timeline;
    /* each CPU and wall sample's time, cell and upscaled weight in a temporary file
     * (spill.h); NULL unless profile_want_spill was called before reading. The timeline
     * then gets no samples, only spans. */
    struct spill *spill;
    unsigned spill_kinds; /* the kinds whose samples go to the spill (1 << FPL_KIND_*) */

    /* the ALLOC, LOCK and LIVE samples one by one, in time order once read, when
     * profile_want_kept was called before reading (JFR writes an event per sample); else
     * none. At most kept_max: a sample beyond adds its weight to the last kept sample
     * of its cell (counted in kept_merged), so the kept weights of a cell always sum to the
     * cell's weight. */
    int want_kept;
    size_t kept_max;
    struct profile_kept *kept;
    size_t nkept, kept_cap;
    uint64_t kept_merged;

    /* clock conversion, set when reading finishes: ns = (ticks - base_ticks) * num / den */
    int time_known;
    int time_refined; /* frequency measured between two anchors */
    uint64_t base_ticks;
    uint64_t base_mono_ns;
    uint64_t base_real_ns;
    uint64_t time_num;
    uint64_t time_den;

    /* internal */
    struct hashtab thread_index, method_index, stack_index; /* id -> dictionary index */
    size_t threads_cap, methods_cap, stacks_cap, entries_cap;
    struct hashtab cell_index; /* (thread, stack, kind, state) -> entry, while reading */
    uint32_t cell_last;        /* the entry of the previous sample, PROFILE_NONE at first */
    struct hashtab ctx_cell_index; /* (context, thread, kind, state) -> ctx_entries */
    size_t ctx_entries_cap;
    uint32_t *kept_last; /* per cell: its last kept sample + 1, while reading */
    size_t kept_last_cap;
    struct profile_tick *ticks; /* the WALL_TICKs read, while reading */
    size_t ticks_cap;
    struct hashtab tick_index; /* tick id -> ticks index */
    /* wall samples read before their WALL_TICK, resolved when it comes or at the end */
    struct profile_pending *pending;
    size_t npending, pending_cap;
    struct profile_arena_block *arena;
    struct hashtab event_index; /* thread id -> index in event_tids */
    uint64_t *event_tids;       /* thread ids with events, for events.threads */
    size_t event_tids_cap;
    int read_done;
    /* several logs (profile_read_files): the log being read's ids are read plus id_base;
     * what the logs before it counted; HEADERs of the log being read */
    size_t logs;
    uint64_t id_base;
    uint64_t log_headers;
    uint64_t counters_before[FPL_CTR_MAX];
    uint64_t hist_before[FPL_HIST_BUCKETS];
    uint64_t hist_max_before, hist_total_before;
    int ends_missing;
};

/* Allocates an empty profile. Returns NULL when out of memory. */
struct profile *profile_new(void);

/* Frees the profile and everything it owns. NULL is a no-op. */
void profile_free(struct profile *p);

/* Reads the log at path into p (once per profile). Returns 0 (damage is in p->stats), or
 * -errno with a message naming the file in err[0..errlen). */
int profile_read_file(struct profile *p, const char *path, char *err, size_t errlen);

/* Reads the logs at paths[0..n) into p, one profile of them all (flyprof convert A.fpl
 * B.fpl...): the logs of one JVM's loop=, or of several JVMs. Each log's dictionary ids are
 * its own (those of log k are read as k << PROFILE_LOG_ID_SHIFT plus the id), so the stacks,
 * methods, threads, contexts and ticks of two logs never mix; outputs merge frames and
 * threads by name, so equal stacks add up. The first log's HEADER is the profile's; a window
 * (--from/--to) is placed by the first log's start (a time after the start, a clock time on
 * its day) and found in each log as the same moments, by its own clock. Counters and the handler
 * histogram add up over the logs (counters that are values, not counts, are the last log's);
 * the log is complete when each is; the damage statistics add up. Samples' times keep each
 * log's clock: the logs of one JVM share it, those of different machines' JVMs do not, and
 * their timeline says nothing true. Same returns as profile_read_file, naming the log that
 * failed. */
int profile_read_files(struct profile *p, const char *const *paths, size_t n, char *err,
                       size_t errlen);
#define PROFILE_LOG_ID_SHIFT 48

/* As profile_read_file, from memory; name is used in messages. */
int profile_read_mem(struct profile *p, const void *data, size_t len, const char *name, char *err,
                     size_t errlen);

/* Keeps only the samples of requests whose endpoint matches endpoint_re (POSIX ERE; NULL:
 * any), of span *span and of root span *root (NULL: any); see tracectx_select. Call before
 * profile_read_*; with endpoint_re, profile_read_file reads the log twice (the names first),
 * so the input must be a file. Returns 0 or -EINVAL with a message in err. */
int profile_select_context(struct profile *p, const char *endpoint_re, const uint64_t *span,
                           const uint64_t *root, char *err, size_t errlen);
/* Keeps, while reading, when each cell's weight was sampled (p->timeline, timeline.h: time
 * bins with the weight of each cell in each, in bounded memory), for outputs that show time
 * (the HTML page's timeline). Call before profile_read_*. Returns 0 or -ENOMEM. */
int profile_want_timeline(struct profile *p);

/* Keeps each CPU and wall sample (cell, ticks, upscaled weight) of the kinds in mask
 * (1 << FPL_KIND_CPU, 1 << FPL_KIND_WALL: those the output shows) in a temporary file made in
 * dir (NULL: $TMPDIR, else /tmp) while reading (profile.spill), for an output that puts
 * every sample at its own time (JFR); the timeline, if wanted too, then keeps only the
 * spans. Call before reading. Returns 0, or -errno when no file can be made there (the caller
 * may go on with the timeline alone). */
int profile_want_spill(struct profile *p, const char *dir, unsigned kinds);

/* Keeps the ALLOC, LOCK and LIVE samples one by one while reading (profile.kept), max of
 * them at most (PROFILE_MAX_KEPT; a test's smaller bound), for outputs that write each as its
 * own event (JFR). Call before profile_read_*. */
void profile_want_kept(struct profile *p, size_t max);

/* Hands every event read to sink (copied; NULL to stop) besides counting it. Call before
 * profile_read_*. */
void profile_set_event_sink(struct profile *p, const struct profile_event_sink *sink);

/* Restricts the samples read to those taken from from_ns (inclusive) to to_ns (exclusive)
 * nanoseconds after the log's start (the HEADER's anchor, or the first ANCHOR without a
 * HEADER); from_ns = 0 means no start bound and to_ns = UINT64_MAX no end (both: no window). Call
 * before profile_read_*. Samples outside are skipped as if absent (counted in p->window.skipped);
 * with a window, samples read before any clock information (header lost) are skipped too
 * (p->window.untimed). Ticks convert with the frequency known at the time (the header's, refined by
 * ANCHORs more than 1 s after the start, as in section 9 of FORMAT.md), so a bound may be off by
 * the calibration error. Returns 0, or -EINVAL when from_ns >= to_ns. */
int profile_set_window(struct profile *p, uint64_t from_ns, uint64_t to_ns);

/* As profile_set_window, with bounds given as relative times, clock times or absolute times
 * (profile_time_parse; kind PROFILE_TIME_NONE for no bound). Clock times are resolved against
 * the start's day in local time (TZ): on that day, or the next one when that is more than 12 h
 * before the start (a profile that ran over midnight). Returns 0, or -EINVAL with a message in
 * err when the bounds can be seen to be empty already. */
int profile_set_window_times(struct profile *p, const struct profile_time *from,
                             const struct profile_time *to, char *err, size_t errlen);

/* With a window set, the times of the first and the last timed sample of the log, inside the
 * window or not, in ns after the start as the window's bounds count them (*first_ns,
 * *last_ns) and in ns since the epoch (*first_real, *last_real; 0 when unknown). For saying
 * what a window that holds nothing missed. Returns 0, or -ENOENT when no window was set or no
 * timed sample was read. After profile_read_*. */
int profile_window_span(const struct profile *p, int64_t *first_ns, int64_t *last_ns,
                        uint64_t *first_real, uint64_t *last_real);

/* Parses a --from / --to value: seconds after the start (2.5, 2.5s, 500ms, 250us, 10ns,
 * 2min), a clock time HH:MM[:SS[.frac]] (local time of the start's day), or a date and time
 * YYYY-MM-DD[T| ]HH:MM[:SS[.frac]] (local time, or UTC with a trailing Z). Returns 0, or
 * -EINVAL with a message in err naming the value and the accepted forms. */
int profile_time_parse(const char *s, struct profile_time *t, char *err, size_t errlen);

/* The profile's duration in ns: from the start to END when END was read, otherwise from the
 * first to the last sample; within the window when one is set. 0 when unknown. */
uint64_t profile_duration_ns(const struct profile *p);

/* The kind an output shows for a selection: PROFILE_KIND_AUTO becomes FPL_KIND_CPU when there
 * are CPU samples, otherwise FPL_KIND_WALL when there are wall samples, otherwise ALLOC, then
 * LOCK when there are such samples, else WALL; other values are returned as they are. */
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

/* 1 when name is the name HotSpot or the JDK gives one of the JVM's own threads that wait
 * for work (Reference Handler, Finalizer, Signal Dispatcher, Service Thread, Monitor
 * Deflation Thread, Notification Thread, Common-Cleaner, Attach Listener, DestroyJavaVM, ...). */
int profile_jvm_service_name(const char *name);

/* *acc += v on fixed-point weights, saturating at the largest value. */
void profile_fp_add(unsigned __int128 *acc, unsigned __int128 v);

/* A fixed-point weight rounded to the nearest integer, halves up; UINT64_MAX when larger. */
uint64_t profile_fp_round(unsigned __int128 fp);

/* A fixed-point weight as a double. */
double profile_fp_double(unsigned __int128 fp);

/* weight * candidates / chosen in fixed point, rounded to the nearest 2^-PROFILE_FP_SHIFT,
 * saturating; chosen > 0. */
unsigned __int128 profile_fp_scale(uint64_t weight, uint64_t candidates, uint64_t chosen);

/* Nanoseconds spanned by dticks ticks (0 when the clock is unknown). 128-bit exact. */
uint64_t profile_ticks_to_ns(const struct profile *p, uint64_t dticks);

/* Wall-clock time (ns since the epoch) of an absolute tick value; 0 when unknown. */
uint64_t profile_ticks_to_real_ns(const struct profile *p, uint64_t ticks);

/* Effective tick frequency in ticks per second (0 when unknown). */
double profile_ticks_per_sec(const struct profile *p);

/* Copies src into dst (capacity cap > 0, always NUL-terminated, cut at cap - 1 bytes but
 * never inside a character) for one-line outputs in UTF-8: ';' and ASCII control characters
 * (newline, carriage return, tab, ...) become '_', so a name can be a frame of a folded line;
 * a surrogate pair of JVM modified UTF-8 (a character outside the BMP) becomes its 4-byte
 * UTF-8 form; every other byte that is not part of valid UTF-8 (the modified UTF-8 NUL C0 80
 * included) becomes U+FFFD. The result is valid UTF-8. Returns the length written. */
size_t profile_clean(char *dst, size_t cap, const char *src, size_t len);

/* As profile_clean, for one-line text that is not a frame of a folded line (an event's
 * string): ';' is kept, and the modified UTF-8 NUL (C0 80) becomes '_' like other control
 * characters. */
size_t profile_clean_text(char *dst, size_t cap, const char *src, size_t len);

#endif
