/* writer.c: drains the ring, resolves and dedups, encodes the .fpl log. Runs on the writer
 * agent thread; writer_start/writer_stop run on control threads. */
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "classlog.h"
#include "counters.h"
#include "ctxlog.h"
#include "events.h"
#include "fpl_chunk.h"
#include "fpl_codec.h"
#include "fpl_format.h"
#include "fpl_stackring.h"
#include "keymap.h"
#include "methods.h"
#include "nativewalk.h"
#include "sample.h"
#include "symbols.h"
#include "threads.h"

#define CHUNK_FLUSH_BYTES (256u << 10)
#define PERIOD_NS WRITER_PERIOD_NS
#define NAME_REFRESH_NS 100000000ull       /* re-read a sampled thread's name at most this often */
/* The writer sleeps until the next period, or until the ring holds this share of its bytes
 * (the ring wakes it: ring_set_wakeup), or a stop or sync: it wakes about once a second when
 * samples trickle in, and as often as the rate needs when they pour (half the ring, 4 MiB,
 * leaves room for ~40 ms of 1 ms sampling on 100 busy threads). */
#define WAKE_FRACTION 2
#define ROTATE_TICKS 4                     /* wall ticks a log of loop= begins with */
#define DRAIN_BATCH 4096                   /* records between checks of the clock */
#define EVENTS_BATCH 65536                 /* events (dev.flyprof.Events) per loop, at most */
/* the writer polls the event buffers (events.h) until no event came for this long; every
 * EVENTS_POLL_NS, or a quarter of that after a drain of EVENTS_BUSY events or more (a thread
 * logging at millions a second fills a quarter of its buffer in a millisecond) */
#define EVENTS_IDLE_NS 200000000ull
#define EVENTS_BUSY 1024
/* Dictionary maps are cleared past these sizes so memory stays bounded; ids keep growing, so
 * the log stays unambiguous (an entry is just written again when next used). */
#define MAX_MAP_BYTES (64u << 20)
#define MAX_THREAD_CACHE 16384
/* writer_stop / writer_sync stop waiting for a writer that made no progress for this long
 * (stuck in a write to a hung file system, in a JVM call): the JVM's exit must not hang */
#define WRITER_STALL_NS (10ull * 1000000000ull)
#define FINISH_MAX_NS (60ull * 1000000000ull)  /* the render at stop, which reports no progress */
#define WAIT_STEP_NS 200000000ull

struct wthread {
    int tid;
    uint32_t slot1;
    uint32_t id;                /* thread dictionary id for the current name */
    uint32_t wall_stack;        /* stack id of its last wall sample (0: none), for repeats */
    uint8_t wall_state;         /* and that sample's thread state */
    uint64_t refreshed_ns;
    int64_t java_id;            /* its Java thread id (0: none known) */
    char name[THREADS_NAME_MAX];
};

/* What a LIVE record needs of the allocation sample it names (alloc.c's live view): the
 * ids its SAMPLE used. One per slot id % ALLOC_LIVE_SLOTS, as alloc.c's table. */
struct live_entry {
    uint64_t id; /* the allocation's id; 0: empty */
    uint64_t ticks, weight, size;
    uint32_t thread, stack, context;
    uint8_t state;
};

struct writer {
    struct writer_session *s;
    struct live_entry *live;    /* ALLOC_LIVE_SLOTS entries, allocated at the first tracked
                                 * sample; NULL: none */
    JNIEnv *jni;
    struct fpl_buf chunk;
    uint32_t seq;
    int64_t prev_ticks;
    /* SAMPLE2's chains in the chunk being built (FORMAT.md 5.18): the previous sample's
     * thread and tick, and each thread's previous kind, state, stack and context in a table
     * whose entries of older chunks are stale (seq); a thread that finds it full is written
     * whole */
    struct s2_thread *s2;       /* S2_SLOTS entries, allocated at the first sample */
    uint32_t s2_used;
    uint32_t s2_thread, s2_tick;
    int s2_have_thread;
    uint32_t chunk_samples;     /* samples in the chunk being built */
    /* events polled every EVENTS_POLL_NS (events_set_polling) until this time: EVENTS_IDLE_NS
     * after the last drain that found events; 0: not polling */
    uint64_t events_poll_until;
    size_t events_drained; /* events the last drain_events moved */
    int preamble_written;
    int header_landed;          /* a chunk with the HEADER record was written */
    int told;                   /* the first lost chunk was said on stderr */
    struct keymap stacks;       /* raw AGCT frames (bci, jmethodID) -> stack id */
    struct keymap methods;      /* jmethodID -> method id */
    struct keymap markers;      /* marker name -> method id */
    struct keymap cfuncs;       /* C/C++ pc (bit 63: a leaf) -> method id */
    struct keymap cfsyms;       /* C/C++ (module, function start) -> method id */
    struct symbols *syms;       /* native pcs to names; NULL when out of memory */
    struct keymap stubs;        /* JVM stub name or interned class name pointer -> method id */
    struct keymap tnames;       /* (tid, name) -> thread id */
    struct keymap tcache_map;   /* tid -> index in tcache */
    struct wthread *tcache;
    size_t tcache_len, tcache_cap;
    uint32_t next_stack, next_method, next_thread;
    uint32_t last_tick;         /* newest wall tick written */
    struct fpl_buf pending;     /* wall samples that overtook their tick record (raw recs) */
    uint64_t *key;              /* scratch key for stacks: 2 words per frame */
    uint32_t *frames;           /* scratch (method id, bci) pairs */
    uint8_t *types;             /* scratch frame types (enum fpl_frame_type) */
    size_t key_cap;
    struct fpl_stackring sring; /* the chunk's last stack records, for STACK2 */
    struct fpl_sframe *sframes; /* scratch: a stack record's frames for sring */
    size_t sframes_cap;
    size_t max_map_bytes;       /* bound_maps' bound: MAX_MAP_BYTES unless a test lowers it */
    uint64_t lag_ticks;         /* test hook: records younger than this stay in the ring */
    struct ctxlog ctx;          /* CONTEXT ids of (span, root) pairs */
    struct classlog classes;    /* CLASS_NAME ids of METHOD2 records' classes */
    /* loop=: the counters and handler histogram when this log began; each log's COUNTERS
     * count what happened in it */
    uint64_t ctr_base[FPL_CTR_MAX];
    uint64_t hist_base[FPL_HIST_BUCKETS];
    uint64_t hist_total_base;
    /* the values the last COUNTERS and HANDLER_HIST records were made of: the next log's base,
     * so what the handlers count between a log's last record and the next log's start is
     * counted in the next log, not lost */
    uint64_t ctr_seen[FPL_CTR_MAX];
    uint64_t hist_seen[FPL_HIST_BUCKETS];
    uint64_t hist_total_seen;
    /* the newest wall ticks written (a ring of ROTATE_TICKS): a log begins with them, so the
     * samples of a tick that the previous log ended with find their scale (section 5.10) */
    struct tick_rec ticks_seen[ROTATE_TICKS];
    unsigned nticks_seen;
    uint32_t nlogs;             /* logs begun by loop= after the first */
    uint64_t next_rotate;       /* mono ns when loop= begins the next log; UINT64_MAX: never */
};

struct s2_thread {
    uint32_t seq1;              /* the chunk's seq + 1; another value: an empty slot */
    uint32_t thread, stack, context;
    uint8_t kind, state;
};
#define S2_SLOTS 1024u          /* at most half used: 512 threads with samples in one chunk */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int stop_requested;      /* under mu */
static uint64_t sync_requested; /* under mu: writer_sync calls so far */
static uint64_t sync_done;      /* under mu: syncs the writer has completed */
static int running;             /* under mu: started and not finished */
static int finishing;           /* under mu: the log is closed, finish() (render) runs */
/* bumped by the writer as it works (each drain round, each chunk written); relaxed: the
 * stopping thread only compares two readings to tell a busy writer from a stuck one */
static _Atomic uint64_t progress;
/* the writer sleeps in poll on this eventfd: the ring, writer_stop and writer_sync write it.
 * Made once and kept: the ring may still hold it while a session ends. */
static int wake_fd = -1;
/* set by writer_wake, cleared by the writer when it wakes: exchange (acq_rel) so one wake
 * request writes the eventfd once; orders nothing else */
static atomic_int wake_requested;
static _Atomic uint64_t samples_written;
static _Atomic uint64_t bytes_written;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void put_header(struct writer *w)
{
    struct writer_session *s = w->s;
    struct fpl_buf *b = &w->chunk;
    size_t r = fpl_rec_begin(b, FPL_REC_HEADER);
    fpl_put_v(b, 1);
    fpl_put_v(b, (uint64_t)s->pid);
    fpl_put_u8(b, (uint8_t)tsc_clock());
    fpl_put_u64(b, tsc_ticks_per_sec());
    fpl_put_u64(b, s->start.ticks);
    fpl_put_u64(b, s->start.mono_ns);
    fpl_put_u64(b, s->start.real_ns);
    fpl_put_v(b, s->opts.cpu_interval_ns);
    fpl_put_u8(b, (uint8_t)(s->opts.cpu_interval_ns ? s->opts.engine : FPL_ENGINE_NONE));
    fpl_put_v(b, s->opts.wall_interval_ns);
    fpl_put_v(b, s->opts.wall_threads);
    fpl_put_v(b, s->opts.depth);
    fpl_put_str(b, s->opts.shown); /* what the user asked for, not the CLI's internals */
    fpl_put_str(b, s->jvm_name);
    fpl_put_str(b, s->jvm_version);
    fpl_put_str(b, s->command);
    fpl_put_str(b, FLYPROF_VERSION); /* appended: older readers stop before it */
    fpl_rec_end(b, r);
}

static void put_anchor(struct writer *w)
{
    struct tsc_anchor a;
    tsc_anchor(&a);
    size_t r = fpl_rec_begin(&w->chunk, FPL_REC_ANCHOR);
    fpl_put_u64(&w->chunk, a.ticks);
    fpl_put_u64(&w->chunk, a.mono_ns);
    fpl_put_u64(&w->chunk, a.real_ns);
    fpl_rec_end(&w->chunk, r);
}

static void put_end_at(struct writer *w, uint64_t ticks)
{
    size_t r = fpl_rec_begin(&w->chunk, FPL_REC_END);
    fpl_put_u64(&w->chunk, ticks);
    fpl_rec_end(&w->chunk, r);
}

static void put_end(struct writer *w)
{
    put_end_at(w, tsc_read_sigsafe());
}

/* The counters as they are now, the agent's live threads' CPU time included. */
static void counters_now(uint64_t v[FPL_CTR_MAX])
{
    for (unsigned i = 0; i < FPL_CTR_MAX; i++)
        v[i] = counters_get(i);
    /* the agent's other threads: the ended ones are in the counters, the live ones here */
    uint64_t sampler = 0, other = 0;
    threads_agent_cpu(&sampler, &other);
    v[FPL_CTR_SAMPLER_CPU_NS] += sampler;
    v[FPL_CTR_AGENT_OTHER_CPU_NS] += other;
}

static void put_counters(struct writer *w)
{
    atomic_store_explicit(&counters.c[FPL_CTR_RING_DROPS], ring_drops(w->s->ring),
                          memory_order_relaxed);
    atomic_store_explicit(&counters.c[FPL_CTR_WRITER_CPU_NS], thread_cpu_ns(),
                          memory_order_relaxed);
    atomic_store_explicit(&counters.c[FPL_CTR_BYTES],
                          atomic_load_explicit(&bytes_written, memory_order_relaxed),
                          memory_order_relaxed);
    uint64_t v[FPL_CTR_MAX];
    counters_now(v);
    memcpy(w->ctr_seen, v, sizeof(v));
    for (unsigned i = 0; i < FPL_CTR_MAX; i++)
        if (!fpl_counter_is_gauge(i)) /* values are given as they are */
            v[i] = v[i] > w->ctr_base[i] ? v[i] - w->ctr_base[i] : 0;
    unsigned n = 0;
    for (unsigned i = 0; i < FPL_CTR_MAX; i++)
        n += v[i] != 0;
    size_t r = fpl_rec_begin(&w->chunk, FPL_REC_COUNTERS);
    fpl_put_v(&w->chunk, n);
    for (unsigned i = 0; i < FPL_CTR_MAX; i++) {
        if (v[i]) {
            fpl_put_v(&w->chunk, i);
            fpl_put_v(&w->chunk, v[i]);
        }
    }
    fpl_rec_end(&w->chunk, r);
    unsigned last = 0;
    for (unsigned i = 0; i < FPL_HIST_BUCKETS; i++)
        if ((w->hist_seen[i] = atomic_load_explicit(&counters.hist[i], memory_order_relaxed)))
            last = i + 1;
    r = fpl_rec_begin(&w->chunk, FPL_REC_HANDLER_HIST);
    fpl_put_v(&w->chunk, last);
    for (unsigned i = 0; i < last; i++) {
        uint64_t h = w->hist_seen[i];
        fpl_put_v(&w->chunk, h > w->hist_base[i] ? h - w->hist_base[i] : 0);
    }
    /* the longest run since the agent started, not since this log began */
    fpl_put_v(&w->chunk, atomic_load_explicit(&counters.hist_max_ns, memory_order_relaxed));
    uint64_t total = atomic_load_explicit(&counters.hist_total_ns, memory_order_relaxed);
    w->hist_total_seen = total;
    fpl_put_v(&w->chunk, total > w->hist_total_base ? total - w->hist_total_base : 0);
    fpl_rec_end(&w->chunk, r);
}

/* Takes the counters and histogram of the log's last COUNTERS and HANDLER_HIST records as the
 * base of the next log's. Not their values now: those counted between that record and the
 * rotation (the output's rendering, the next file's opening) would be in neither log; a
 * seam of loop= once showed 346 samples written against 344 pushed. */
static void counters_rebase(struct writer *w)
{
    memcpy(w->ctr_base, w->ctr_seen, sizeof(w->ctr_base));
    memcpy(w->hist_base, w->hist_seen, sizeof(w->hist_base));
    w->hist_total_base = w->hist_total_seen;
}

#define DICT_MAPS 7

/* The dictionary maps: what maps a stack, method or thread to the id its record defined. */
static void dict_maps(struct writer *w, struct keymap *maps[DICT_MAPS])
{
    struct keymap *m[DICT_MAPS] = {&w->stacks, &w->methods, &w->tnames, &w->markers,
                                   &w->cfuncs, &w->stubs, &w->cfsyms};
    memcpy(maps, m, sizeof(m));
}

/* Clears the dictionary maps when they hold too much memory, and counts it: every stack,
 * method and thread used afterwards is resolved and written again, so a reader can tell a
 * log whose dictionaries keep resetting from one that reset once. */
static void bound_maps(struct writer *w)
{
    struct keymap *maps[DICT_MAPS];
    dict_maps(w, maps);
    if (keymap_bound(maps, DICT_MAPS, w->max_map_bytes))
        counters_add_sigsafe(FPL_CTR_DICT_RESETS, 1);
}

/* Forgets every dictionary entry written so far: a lost chunk may have held the only record
 * of some (a stack or method first met in it, a thread's new name, a context). Each one used
 * from now on is resolved and written again under a new id, as after bound_maps' clear. */
static void forget_dicts(struct writer *w)
{
    struct keymap *maps[DICT_MAPS];
    dict_maps(w, maps);
    for (unsigned i = 0; i < DICT_MAPS; i++)
        keymap_clear(maps[i]);
    for (size_t i = 0; i < w->tcache_len; i++) {
        struct wthread *t = &w->tcache[i];
        t->name[0] = 0;      /* its THREAD record is written again when next used */
        t->refreshed_ns = 0;
        t->wall_stack = 0;   /* a repeat of a stack the log may lack is logged as [idle] */
    }
    ctxlog_forget(&w->ctx);
    classlog_forget(&w->classes);
    /* their ids may name records of the lost chunk */
    if (w->live)
        memset(w->live, 0, ALLOC_LIVE_SLOTS * sizeof(*w->live));
}

/* A chunk could not be written (err: an errno) or allocated: counts it and its samples
 * (they are no longer written), says it once on stderr, and makes the next chunks stand
 * without it: dictionaries forgotten, the HEADER written again if it was in the lost one. */
static void chunk_lost(struct writer *w, int err, uint32_t samples)
{
    counters_add_sigsafe(FPL_CTR_WRITE_LOST_CHUNKS, 1);
    counters_add_sigsafe(FPL_CTR_WRITE_LOST_SAMPLES, samples);
    atomic_store_explicit(&counters.c[FPL_CTR_WRITE_ERRNO], (uint64_t)err,
                          memory_order_relaxed);
    atomic_fetch_sub_explicit(&samples_written, samples, memory_order_relaxed);
    forget_dicts(w);
    if (!w->header_landed)
        put_header(w);
    if (!w->told) {
        w->told = 1;
        fprintf(stderr,
                "flyprof: cannot write the log %s: %s; the samples of each chunk that cannot "
                "be written are lost (the next ones are written when they can be), and the log "
                "will say it is incomplete\n",
                w->s->log_path ? w->s->log_path : "", strerror(err));
        fflush(stderr);
    }
}

/* Writes the pending chunk, if any (with the preamble first, if that failed before). A chunk
 * that cannot be written (ENOSPC, EDQUOT, EIO) or was not allocated whole is dropped, not the
 * log: its number is skipped, so readers count it lost, and the next chunk is written as
 * usual, so a file system that gets space back loses only what it refused. Returns 0, or the
 * -errno of the chunk lost. */
static int flush(struct writer *w)
{
    int rc = 0;
    if (w->chunk.failed) {
        rc = -ENOMEM;
    } else if (!w->chunk.len) {
        return 0;
    } else {
        if (!w->preamble_written && (rc = fpl_chunk_write_preamble(w->s->fd)) == 0) {
            w->preamble_written = 1;
            atomic_fetch_add_explicit(&bytes_written, FPL_PREAMBLE_SIZE, memory_order_relaxed);
        }
        if (rc == 0)
            rc = fpl_chunk_write(w->s->fd, w->seq, w->chunk.data, w->chunk.len);
    }
    atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed);
    w->seq++;
    if (rc == 0) {
        w->header_landed = 1; /* the first chunk, and each one after a loss until one lands,
                               * begins with the HEADER */
        atomic_fetch_add_explicit(&bytes_written, w->chunk.len + FPL_CHUNK_HEADER_SIZE,
                                  memory_order_relaxed);
    }
    uint32_t samples = w->chunk_samples;
    w->chunk.len = 0;
    w->chunk.failed = 0;
    w->chunk_samples = 0;
    w->prev_ticks = 0; /* sample times restart from 0 in each chunk */
    w->s2_used = 0;    /* so do SAMPLE2's chains (w->seq moved on: the table is stale) */
    fpl_stackring_reset(&w->sring); /* and STACK2's bases */
    w->s2_have_thread = 0;
    w->s2_tick = 0;
    if (rc != 0)
        chunk_lost(w, -rc, samples);
    return rc;
}

/* A method's dictionary record: METHOD2 with its class by id (classlog.h), or METHOD. */
static void put_method_record(struct writer *w, uint32_t id, int kind, const char *klass,
                              const char *name, const char *sig, const char *src,
                              const struct methods_line *lines, int nlines)
{
    classlog_put_method(&w->classes, &w->chunk, id, kind, klass, name, sig, src, lines, nlines);
}

/* The method id of a marker frame named `name`, writing its record on first use. */
static uint32_t marker_id(struct writer *w, const char *name)
{
    uint32_t id;
    uint32_t len = (uint32_t)strlen(name);
    if (keymap_get(&w->markers, name, len, &id))
        return id;
    id = w->next_method++;
    put_method_record(w, id, FPL_METHOD_MARKER, "", name, "", "", NULL, 0);
    keymap_put(&w->markers, name, len, id);
    return id;
}

static uint32_t method_id(struct writer *w, jmethodID m)
{
    uint32_t id;
    if (keymap_get(&w->methods, &m, sizeof(m), &id))
        return id;
    struct methods_info info;
    methods_resolve(w->s->jvmti, w->jni, m, &info);
    id = w->next_method++;
    put_method_record(w, id, info.kind, info.klass ? info.klass : "", info.name ? info.name : "",
                      info.signature ? info.signature : "", info.source ? info.source : "",
                      info.lines, info.nlines);
    methods_info_destroy(&info);
    keymap_put(&w->methods, &m, sizeof(m), id);
    return id;
}

static const char *error_marker(int code, char *buf, size_t len)
{
    if (code == SAMPLE_ERR_NO_ENV)
        return "[not_Java_thread]";
    if (code == SAMPLE_ERR_NO_SCRATCH)
        return "[handler_busy]";
    if (code == SAMPLE_ERR_NO_JAVA_FRAMES)
        return "[no_Java_frames]";
    if (code == SAMPLE_WALL_REPEAT)
        return "[idle]"; /* a repeat whose stack the writer no longer knows */
    if (code == SAMPLE_ERR_WALK_FAULT)
        return "[walk_fault]";
    if (code == SAMPLE_ERR_FAULTS_BLOCKED)
        return "[faults_blocked]";
    if (code == SAMPLE_ERR_OTHER_HANDLER)
        return "[other_handler]";
    snprintf(buf, len, "[agct:%s]", fpl_agct_name(code));
    return buf;
}

/* A stack record: STACK2 (its new leaf frames on the root side of one of the chunk's last
 * stacks, fpl_stackring.h) when it shares two frames or more with one, else STACK. Deep Java
 * stacks differ mostly at the leaf: a 60 s FixedWork run's STACK records were 194 bytes each,
 * as STACK2 34 (a replay of its log, FORMAT.md 5.21). types: n x enum fpl_frame_type, or NULL
 * when every frame is a marker. */
static void put_stack_record(struct writer *w, uint32_t id, const uint32_t *pairs,
                             const uint8_t *types, uint32_t n)
{
    struct fpl_sframe *f = NULL;
    if (n <= w->sframes_cap || (f = realloc(w->sframes, n * sizeof(*f))) != NULL) {
        if (f) {
            w->sframes = f;
            w->sframes_cap = n;
        }
        f = w->sframes;
        for (uint32_t i = 0; i < n; i++) {
            f[i].method_id = pairs[2 * i];
            f[i].bci = (int32_t)pairs[2 * i + 1];
            f[i].type = types ? types[i] : FPL_FRAME_MARKER;
        }
    }
    unsigned back = 0;
    size_t shared = f && n && n <= FPL_STACK2_MAX_FRAMES
                        ? fpl_stackring_best(&w->sring, f, n, &back)
                        : 0;
    size_t r;
    if (shared >= 2) {
        uint32_t fresh = n - (uint32_t)shared;
        r = fpl_rec_begin(&w->chunk, FPL_REC_STACK2);
        fpl_put_v(&w->chunk, id);
        fpl_put_v(&w->chunk, back);
        fpl_put_v(&w->chunk, shared);
        fpl_put_v(&w->chunk, fresh);
        for (uint32_t i = 0; i < fresh; i++) {
            fpl_put_v(&w->chunk, pairs[2 * i]);
            fpl_put_sv(&w->chunk, (int32_t)pairs[2 * i + 1]);
        }
        for (uint32_t i = 0; i < fresh; i++)
            fpl_put_u8(&w->chunk, f[i].type);
    } else {
        r = fpl_rec_begin(&w->chunk, FPL_REC_STACK);
        fpl_put_v(&w->chunk, id);
        fpl_put_v(&w->chunk, n);
        for (uint32_t i = 0; i < n; i++) {
            fpl_put_v(&w->chunk, pairs[2 * i]);
            fpl_put_sv(&w->chunk, (int32_t)pairs[2 * i + 1]);
        }
        for (uint32_t i = 0; i < n; i++)
            fpl_put_u8(&w->chunk, types ? types[i] : FPL_FRAME_MARKER);
    }
    fpl_rec_end(&w->chunk, r);
    (void)fpl_stackring_push(&w->sring, f, n); /* f NULL: an entry no STACK2 uses */
}

/* The method id of a C/C++ frame at pc (leaf: the interrupted pc, else a return address).
 * Methods are one per function: keyed by (module, function start), with the module's file
 * name as the class; each pc is looked up once. */
static uint32_t cfunc_id(struct writer *w, uintptr_t pc, int leaf)
{
    uint32_t id;
    uintptr_t key = pc | (uintptr_t)(leaf != 0) << 63;
    if (keymap_get(&w->cfuncs, &key, sizeof(key), &id))
        return id;
    struct symbols_name nm = {"", "[unknown]", 0, 0};
    if (w->syms)
        symbols_lookup(w->syms, leaf ? pc : pc - 1, &nm);
    uint64_t fkey[2] = {nm.module, nm.function};
    if (!nm.module)
        fkey[1] = 0; /* every pc outside the modules is one "[unknown]" */
    if (!keymap_get(&w->cfsyms, fkey, sizeof(fkey), &id)) {
        id = w->next_method++;
        put_method_record(w, id, FPL_METHOD_CFUNC, nm.lib, nm.name, "", "", NULL, 0);
        keymap_put(&w->cfsyms, fkey, sizeof(fkey), id);
    }
    keymap_put(&w->cfuncs, &key, sizeof(key), id);
    return id;
}

/* The method id of a JVM stub frame; name points at HotSpot's own name of the CodeBlob. */
static uint32_t stub_id(struct writer *w, const char *name)
{
    uint32_t id;
    if (keymap_get(&w->stubs, &name, sizeof(name), &id))
        return id;
    id = w->next_method++;
    put_method_record(w, id, FPL_METHOD_STUB, "", name ? name : "[stub]", "", "", NULL, 0);
    keymap_put(&w->stubs, &name, sizeof(name), id);
    return id;
}

/* The method id of the class leaf of an alloc or lock sample; name is interned
 * (classnames.h), so the pointer is the key. */
static uint32_t class_id(struct writer *w, const char *name)
{
    uint32_t id;
    if (keymap_get(&w->stubs, &name, sizeof(name), &id))
        return id;
    id = w->next_method++;
    put_method_record(w, id, FPL_METHOD_CLASS, "", name ? name : "[class]", "", "", NULL, 0);
    keymap_put(&w->stubs, &name, sizeof(name), id);
    return id;
}

/* One ring frame as (method id, bci, enum fpl_frame_type); leaf: the stack's first frame. */
static void frame_decode(struct writer *w, const struct sample_frame *f, int leaf,
                         uint32_t *method, int32_t *bci, uint8_t *type)
{
    int t = sample_frame_type(f->lineno);
    *bci = sample_frame_bci(f->lineno);
    switch (t) {
    case SAMPLE_FT_NATIVE:
    case SAMPLE_FT_KERNEL:
        *method = cfunc_id(w, (uintptr_t)f->method_id, leaf);
        *bci = -1;
        *type = t == SAMPLE_FT_NATIVE ? FPL_FRAME_NATIVE : FPL_FRAME_KERNEL;
        return;
    case SAMPLE_FT_STUB:
        *method = stub_id(w, (const char *)f->method_id);
        *bci = -1;
        *type = FPL_FRAME_STUB;
        return;
    case SAMPLE_FT_CLASS:
        *method = class_id(w, (const char *)f->method_id);
        *bci = -1;
        *type = FPL_FRAME_CLASS;
        return;
    case SAMPLE_FT_MARKER: {
        char buf[64];
        *method = marker_id(w, error_marker((int)(intptr_t)f->method_id, buf, sizeof(buf)));
        *bci = -1;
        *type = FPL_FRAME_MARKER;
        return;
    }
    default:
        *method = method_id(w, f->method_id);
        /* the sample types and the log's share their numbers for Java frames */
        *type = t < SAMPLE_FT_NATIVE ? (uint8_t)t : FPL_FRAME_JAVA;
        return;
    }
}

static int ensure_scratch(struct writer *w, size_t frames)
{
    if (frames <= w->key_cap)
        return 0;
    uint64_t *k = realloc(w->key, frames * 2 * sizeof(*k));
    if (!k)
        return -ENOMEM;
    w->key = k;
    uint32_t *f = realloc(w->frames, frames * 2 * sizeof(*f));
    if (!f)
        return -ENOMEM;
    w->frames = f;
    uint8_t *t = realloc(w->types, frames * sizeof(*t));
    if (!t)
        return -ENOMEM;
    w->types = t;
    w->key_cap = frames;
    return 0;
}

/* The stack id of a sample, writing the stack (and its methods) on first use. */
static uint32_t stack_id(struct writer *w, const struct sample_rec *r)
{
    uint32_t id;
    if (r->num_frames <= 0) {
        char buf[64];
        int64_t code = r->num_frames;
        if (keymap_get(&w->stacks, &code, sizeof(code), &id))
            return id;
        uint32_t pair[2] = {marker_id(w, error_marker(r->num_frames, buf, sizeof(buf))),
                            (uint32_t)-1};
        id = w->next_stack++;
        put_stack_record(w, id, pair, NULL, 1);
        keymap_put(&w->stacks, &code, sizeof(code), id);
        return id;
    }
    uint32_t n = (uint32_t)r->num_frames;
    /* AGCT fills at most depth Java frames: a stack with that many lost its root */
    uint32_t java = 0;
    for (uint32_t i = 0; i < n; i++)
        java += sample_frame_type(r->frames[i].lineno) < SAMPLE_FT_NATIVE;
    int truncated = java >= w->s->opts.depth;
    if (ensure_scratch(w, n + 1) != 0)
        return marker_id(w, "[out_of_memory]");
    /* key by the raw frames: jmethodIDs are never freed or reused, so equal raw frames are
     * the same stack, and a known stack costs one lookup instead of one per frame. Native
     * frames are keyed by their method (one per function), not their pc, so that the many
     * pcs of a function make one stack, not one each. */
    for (uint32_t i = 0; i < n; i++) {
        const struct sample_frame *f = &r->frames[i];
        int t = sample_frame_type(f->lineno);
        w->key[2 * i] = (uint64_t)(uint32_t)f->lineno;
        w->key[2 * i + 1] = t == SAMPLE_FT_NATIVE || t == SAMPLE_FT_KERNEL
                                ? cfunc_id(w, (uintptr_t)f->method_id, i == 0)
                                : (uint64_t)(uintptr_t)f->method_id;
    }
    uint32_t klen = n * 2 * (uint32_t)sizeof(uint64_t);
    if (keymap_get(&w->stacks, w->key, klen, &id))
        return id;
    for (uint32_t i = 0; i < n; i++) {
        int32_t bci;
        frame_decode(w, &r->frames[i], i == 0, &w->frames[2 * i], &bci, &w->types[i]);
        w->frames[2 * i + 1] = (uint32_t)bci;
    }
    uint32_t nf = n;
    if (truncated) {
        /* the root is missing: say so instead of pretending the deepest frame is a root */
        w->frames[2 * nf] = marker_id(w, "[truncated]");
        w->frames[2 * nf + 1] = (uint32_t)-1;
        w->types[nf] = FPL_FRAME_MARKER;
        nf++;
    }
    id = w->next_stack++;
    put_stack_record(w, id, w->frames, w->types, nf);
    keymap_put(&w->stacks, w->key, klen, id);
    return id;
}

/* Name of a thread the registry does not know (a JVM-internal thread): its kernel comm. */
static void os_thread_name(int tid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
    buf[0] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, buf, len - 1);
        close(fd);
        if (n > 0) {
            buf[n] = 0;
            char *nl = strchr(buf, '\n');
            if (nl)
                *nl = 0;
        }
    }
    if (!buf[0])
        snprintf(buf, len, "tid-%d", tid);
}

/* The thread id for (tid, Java id, name), writing a THREAD record when it is new; java_id 0:
 * not a Java thread, or not known. */
static uint32_t thread_dict_id(struct writer *w, int tid, int64_t java_id, const char *name)
{
    size_t nl = strlen(name);
    char key[sizeof(int) + sizeof(int64_t) + THREADS_NAME_MAX];
    memcpy(key, &tid, sizeof(int));
    memcpy(key + sizeof(int), &java_id, sizeof(int64_t));
    memcpy(key + sizeof(int) + sizeof(int64_t), name, nl);
    uint32_t klen = (uint32_t)(sizeof(int) + sizeof(int64_t) + nl);
    uint32_t id;
    if (keymap_get(&w->tnames, key, klen, &id))
        return id;
    id = w->next_thread++;
    size_t r = fpl_rec_begin(&w->chunk, FPL_REC_THREAD);
    fpl_put_v(&w->chunk, id);
    fpl_put_v(&w->chunk, (uint64_t)tid);
    fpl_put_str(&w->chunk, name);
    if (java_id > 0)
        fpl_put_v(&w->chunk, (uint64_t)java_id); /* optional (FORMAT.md 5.3) */
    fpl_rec_end(&w->chunk, r);
    keymap_put(&w->tnames, key, klen, id);
    return id;
}

/* The thread id of a sample's thread, re-reading its name when it may have changed. */
static uint32_t thread_id(struct writer *w, uint32_t slot1, int tid, uint64_t now)
{
    uint32_t idx;
    struct wthread *t;
    if (keymap_get(&w->tcache_map, &tid, sizeof(tid), &idx)) {
        t = &w->tcache[idx];
        if (now - t->refreshed_ns < NAME_REFRESH_NS && t->slot1 == slot1)
            return t->id;
    } else {
        if (w->tcache_len >= MAX_THREAD_CACHE) {
            keymap_clear(&w->tcache_map);
            w->tcache_len = 0;
        }
        if (w->tcache_len == w->tcache_cap) {
            size_t cap = w->tcache_cap ? w->tcache_cap * 2 : 256;
            struct wthread *c = realloc(w->tcache, cap * sizeof(*c));
            if (!c)
                return thread_dict_id(w, tid, 0, "[unknown thread]");
            w->tcache = c;
            w->tcache_cap = cap;
        }
        idx = (uint32_t)w->tcache_len++;
        t = &w->tcache[idx];
        t->tid = tid;
        t->name[0] = 0;
        t->java_id = 0;
        t->slot1 = slot1;
        t->wall_stack = 0;
        t->wall_state = FPL_STATE_UNKNOWN;
        keymap_put(&w->tcache_map, &tid, sizeof(tid), idx);
    }
    char name[THREADS_NAME_MAX];
    t->slot1 = slot1;
    threads_refresh_name(w->s->jvmti, w->jni, slot1, tid);
    if (!threads_name(slot1, tid, name, sizeof(name)) || !name[0])
        os_thread_name(tid, name, sizeof(name));
    t->refreshed_ns = now;
    int64_t java_id = threads_java_id(slot1, tid);
    if (!t->name[0] || strcmp(name, t->name) != 0 || java_id != t->java_id) {
        memcpy(t->name, name, sizeof(name));
        t->java_id = java_id;
        t->id = thread_dict_id(w, tid, java_id, name);
    }
    return t->id;
}

/* The stack id of a sample, and its thread state in *state. A wall sample of a thread that
 * has not run since its previous one (SAMPLE_WALL_REPEAT) gets that sample's stack, and its
 * state when the sampler left it unknown (a RUNNABLE thread's JVM state changes only as it
 * runs). */
static uint32_t sample_stack_id(struct writer *w, const struct sample_rec *r, uint8_t *state)
{
    uint32_t idx;
    struct wthread *t = NULL;
    *state = r->state;
    if (r->kind == FPL_KIND_WALL && keymap_get(&w->tcache_map, &r->tid, sizeof(r->tid), &idx))
        t = &w->tcache[idx];
    if (r->kind == FPL_KIND_WALL && r->num_frames == SAMPLE_WALL_REPEAT && t && t->wall_stack) {
        if (*state == FPL_STATE_UNKNOWN)
            *state = t->wall_state;
        return t->wall_stack;
    }
    uint32_t sid = stack_id(w, r);
    if (t && r->num_frames != SAMPLE_WALL_REPEAT) {
        t->wall_stack = sid;
        t->wall_state = r->state;
    }
    return sid;
}

/* Thread tid's entry in the chunk's SAMPLE2 table (*found: it has a sample in this chunk), or
 * NULL when the table is full or not allocated. */
static struct s2_thread *s2_slot(struct writer *w, uint32_t tid, int *found)
{
    *found = 0;
    if (!w->s2 && !(w->s2 = calloc(S2_SLOTS, sizeof(*w->s2))))
        return NULL;
    uint32_t seq1 = w->seq + 1, j = (tid * 0x9e3779b9u) >> 22; /* top 10 bits: S2_SLOTS */
    while (w->s2[j].seq1 == seq1) {
        if (w->s2[j].thread == tid) {
            *found = 1;
            return &w->s2[j];
        }
        j = (j + 1) & (S2_SLOTS - 1);
    }
    if (2 * (w->s2_used + 1) > S2_SLOTS)
        return NULL;
    w->s2_used++;
    w->s2[j] = (struct s2_thread){.seq1 = seq1, .thread = tid};
    return &w->s2[j];
}

/* Writes one sample of ids already resolved, as a SAMPLE2 record: the fields equal to the
 * chunk's chains are left out (a CPU sample of a thread met before in the chunk is 7-9
 * bytes, where SAMPLE took 12). */
static void put_sample_ids(struct writer *w, uint64_t ticks, uint32_t tid, uint32_t sid,
                           uint64_t weight, uint8_t kind, uint8_t state, uint32_t tick,
                           uint32_t cid, uint64_t size)
{
    int found;
    struct s2_thread *t = s2_slot(w, tid, &found);
    uint8_t f = 0;
    if (!w->s2_have_thread || tid != w->s2_thread)
        f |= FPL_S2_THREAD;
    /* a thread without an entry is written whole: readers keep every thread's chain */
    if (!found || t->kind != kind || t->state != state)
        f |= FPL_S2_KIND;
    if (!found || t->stack != sid)
        f |= FPL_S2_STACK;
    if (weight != 1)
        f |= FPL_S2_WEIGHT;
    if (tick)
        f |= FPL_S2_TICK;
    if (found ? t->context != cid : cid || !t)
        f |= FPL_S2_CONTEXT;
    if (size)
        f |= FPL_S2_SIZE;
    size_t rec = fpl_rec_begin(&w->chunk, FPL_REC_SAMPLE2);
    fpl_put_u8(&w->chunk, f);
    fpl_put_sv(&w->chunk, (int64_t)(ticks - (uint64_t)w->prev_ticks));
    w->prev_ticks = (int64_t)ticks;
    if (f & FPL_S2_THREAD)
        fpl_put_v(&w->chunk, tid);
    if (f & FPL_S2_KIND) {
        fpl_put_u8(&w->chunk, kind);
        fpl_put_u8(&w->chunk, state);
    }
    if (f & FPL_S2_STACK)
        fpl_put_v(&w->chunk, sid);
    if (f & FPL_S2_WEIGHT)
        fpl_put_v(&w->chunk, weight);
    if (f & FPL_S2_TICK) {
        fpl_put_sv(&w->chunk, (int64_t)tick - (int64_t)w->s2_tick);
        w->s2_tick = tick;
    }
    if (f & FPL_S2_CONTEXT)
        fpl_put_v(&w->chunk, cid);
    if (f & FPL_S2_SIZE)
        fpl_put_v(&w->chunk, size);
    fpl_rec_end(&w->chunk, rec);
    if (t) {
        t->kind = kind;
        t->state = state;
        t->stack = sid;
        t->context = cid;
    }
    w->s2_thread = tid;
    w->s2_have_thread = 1;
    w->chunk_samples++;
    atomic_fetch_add_explicit(&samples_written, 1, memory_order_relaxed);
}

/* A LIVE record: the allocation sample it names, again as a LIVE sample, when the writer
 * still knows its ids (else dropped: its slot was reused, or its chunk was lost). */
static void put_live(struct writer *w, const struct sample_rec *r)
{
    uint64_t id = sample_weight64(r);
    struct live_entry *e = w->live ? &w->live[id % ALLOC_LIVE_SLOTS] : NULL;
    if (!e || !id || e->id != id)
        return;
    put_sample_ids(w, e->ticks, e->thread, e->stack, e->weight, FPL_KIND_LIVE, e->state, 0,
                   e->context, e->size);
}

static void put_sample(struct writer *w, const struct sample_rec *r, uint64_t now)
{
    if (r->kind == FPL_KIND_LIVE) {
        put_live(w, r);
        return;
    }
    uint32_t tid = thread_id(w, r->slot1, r->tid, now);
    uint8_t state;
    uint32_t sid = sample_stack_id(w, r, &state);
    uint32_t cid = ctxlog_id(&w->ctx, &w->chunk, r->span, r->root);
    int ev = r->kind == FPL_KIND_ALLOC || r->kind == FPL_KIND_LOCK;
    uint64_t size = r->kind == FPL_KIND_ALLOC ? sample_evsize(r) : 0;
    uint64_t weight = ev ? sample_weight64(r) : r->weight;
    uint32_t tick = ev ? 0 : r->tick; /* an alloc or lock sample's tick is its weight's top */
    put_sample_ids(w, r->ticks, tid, sid, weight, r->kind, state, tick, cid, size);
    uint64_t id = r->kind == FPL_KIND_ALLOC ? sample_evid(r) : 0;
    if (id && !w->live)
        w->live = calloc(ALLOC_LIVE_SLOTS, sizeof(*w->live));
    if (id && w->live)
        w->live[id % ALLOC_LIVE_SLOTS] = (struct live_entry){id, r->ticks, weight, size, tid,
                                                              sid, cid, state};
}

static void put_wall_tick(struct writer *w, const struct tick_rec *t)
{
    size_t r = fpl_rec_begin(&w->chunk, FPL_REC_WALL_TICK);
    fpl_put_v(&w->chunk, t->tick);
    fpl_put_u64(&w->chunk, t->ticks);
    fpl_put_v(&w->chunk, t->candidates);
    fpl_put_v(&w->chunk, t->chosen);
    fpl_put_v(&w->chunk, t->signaled);
    fpl_put_v(&w->chunk, t->failed);
    fpl_rec_end(&w->chunk, r);
}

/* Writes the wall samples held back until their tick record was written. */
static void flush_pending(struct writer *w, uint64_t now)
{
    size_t off = 0;
    while (off + sizeof(struct sample_rec) <= w->pending.len) {
        const struct sample_rec *r = (const void *)(w->pending.data + off);
        put_sample(w, r, now);
        size_t nf = r->num_frames > 0 ? (size_t)r->num_frames : 0;
        off += sizeof(*r) + nf * sizeof(struct sample_frame);
    }
    w->pending.len = 0;
}

/* A ring record: a sample, or a wall tick. A wall sample can overtake its tick record (the
 * sampler pushes the tick after signaling, and the signaled thread may be faster): such a
 * sample is held until the tick is written, so in the log a tick comes before its samples. */
static void put_record(struct writer *w, const void *p, uint32_t len, uint64_t now)
{
    const struct sample_rec *r = p;
    if (len < sizeof(struct sample_rec))
        return;
    if (r->kind == SAMPLE_KIND_TICK) {
        if (len >= sizeof(struct tick_rec)) {
            put_wall_tick(w, p);
            memcpy(&w->ticks_seen[w->nticks_seen++ % ROTATE_TICKS], p, sizeof(struct tick_rec));
            if (r->tick > w->last_tick || r->tick == 1)
                w->last_tick = r->tick;
        }
        flush_pending(w, now);
        return;
    }
    if (r->kind == FPL_KIND_WALL && r->tick > w->last_tick && w->pending.len < (1u << 20)) {
        fpl_put_bytes(&w->pending, r, len);
        return;
    }
    put_sample(w, r, now);
}

/* Moves up to max records from the ring into the chunk. Returns how many. */
static unsigned drain(struct writer *w, unsigned max)
{
    unsigned n = 0;
    uint64_t now = mono_ns();
    uint32_t len;
    const void *p;
    uint64_t young = w->lag_ticks ? tsc_read_sigsafe() - w->lag_ticks : 0;
    while (n < max && (p = ring_peek(w->s->ring, &len)) != NULL) {
        if (young && len >= sizeof(struct sample_rec) &&
            ((const struct sample_rec *)p)->ticks > young)
            break; /* the test hook's lag: younger records wait */
        put_record(w, p, len, now);
        ring_release(w->s->ring);
        n++;
        if (w->chunk.len >= CHUNK_FLUSH_BYTES)
            flush(w);
    }
    return n;
}

/* The THREAD id of an event buffer's thread (events.c calls it before each EVENTS record). */
static uint32_t event_thread_id(void *ctx, uint32_t slot1, int tid)
{
    return thread_id(ctx, slot1, tid, mono_ns());
}

/* Moves up to max events of the threads' buffers into the log, flushing full chunks. Returns
 * 1 when more are waiting. While events come, the writer polls for them (events.h): each
 * drain that finds some extends the polling by EVENTS_IDLE_NS. */
static int drain_events(struct writer *w, size_t max);

/* The running writer's state, for writer_yield (writer thread only). */
static struct writer *current;

static void maybe_rotate(struct writer *w, uint64_t now);

void writer_yield(void)
{
    if (current) {
        drain_events(current, EVENTS_BATCH);
        maybe_rotate(current, mono_ns());
    }
}

static int drain_events(struct writer *w, size_t max)
{
    struct events_sink s = {&w->chunk, event_thread_id, w, CHUNK_FLUSH_BYTES};
    size_t total = 0;
    int more;
    do {
        total += events_drain(&s, max - total, &more);
        if (w->chunk.len >= CHUNK_FLUSH_BYTES)
            flush(w);
    } while (more && total < max);
    w->events_drained = total;
    if (total) {
        if (!w->events_poll_until)
            events_set_polling(1);
        w->events_poll_until = mono_ns() + EVENTS_IDLE_NS;
    }
    return more;
}

/* Completes pending writer_sync calls: everything drained so far is on disk. */
static void do_sync(struct writer *w)
{
    pthread_mutex_lock(&mu);
    uint64_t want = sync_requested;
    pthread_mutex_unlock(&mu);
    if (want == sync_done)
        return;
    uint64_t lag = w->lag_ticks;
    w->lag_ticks = 0;
    while (drain(w, UINT32_MAX) > 0)
        ;
    w->lag_ticks = lag;
    while (drain_events(w, SIZE_MAX))
        ;
    ctxlog_drain_endpoints(&w->ctx, &w->chunk);
    put_counters(w);
    flush(w);
    pthread_mutex_lock(&mu);
    sync_done = want;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

/* Wakes the writer's wait (a stop or sync request). */
static void wake_writer(void)
{
    uint64_t one = 1;
    ssize_t w = write(wake_fd, &one, sizeof(one));
    (void)w; /* fails only when the counter is full: the writer is being woken anyway */
}

/* Waits up to ns for the ring's wakeup, a stop or a sync request. Returns 1 when a stop was
 * requested. */
static int wait_stop(uint64_t ns)
{
    pthread_mutex_lock(&mu);
    int busy = stop_requested || sync_requested != sync_done ||
               atomic_load_explicit(&wake_requested, memory_order_acquire);
    pthread_mutex_unlock(&mu);
    if (!busy) {
        struct pollfd p = {wake_fd, POLLIN, 0};
        struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
        if (ppoll(&p, 1, &ts, NULL) > 0) {
            uint64_t v;
            ssize_t r = read(wake_fd, &v, sizeof(v));
            (void)r; /* reset the counter; EAGAIN if another read won */
        }
    }
    pthread_mutex_lock(&mu);
    int r = stop_requested;
    pthread_mutex_unlock(&mu);
    atomic_store_explicit(&wake_requested, 0, memory_order_release);
    return r;
}

/* loop=: ends this log at a seam and begins the next. What the ring, the event buffers and
 * the probes hold now goes into this log, which ends with its counters and END at the seam's
 * time; session->rotate gets it (closed, complete) and opens the next, which begins at that
 * same time with the HEADER, an ANCHOR and its own dictionaries: each log stands alone, and
 * no sample is in two logs or in none. A next log that cannot be opened loses its chunks as a
 * full disk does (counted, said once), until a later rotation opens one. */
static void rotate(struct writer *w)
{
    while (drain(w, DRAIN_BATCH) == DRAIN_BATCH)
        ;
    flush_pending(w, mono_ns());
    while (drain_events(w, EVENTS_BATCH))
        ;
    for (size_t i = 0; i < w->s->nservices; i++)
        if (w->s->services[i].at_seam)
            w->s->services[i].run(&w->chunk, w->jni);
    ctxlog_drain_endpoints(&w->ctx, &w->chunk);
    struct tsc_anchor seam;
    tsc_anchor(&seam);
    put_counters(w);
    put_anchor(w);
    put_end_at(w, seam.ticks);
    if (flush(w) != 0) {
        put_counters(w);
        put_end_at(w, seam.ticks);
        flush(w);
    }
    if (w->s->fd >= 0)
        close(w->s->fd);
    w->s->fd = w->s->rotate(&seam);
    w->nlogs++;
    w->s->start = seam;
    w->seq = 0;
    if (w->s2) /* its stamps are chunk numbers, which start again */
        memset(w->s2, 0, S2_SLOTS * sizeof(*w->s2));
    w->preamble_written = 0;
    w->header_landed = 0;
    w->told = 0;
    counters_rebase(w);
    forget_dicts(w);
    put_header(w);
    put_anchor(w);
    unsigned n = w->nticks_seen < ROTATE_TICKS ? w->nticks_seen : ROTATE_TICKS;
    for (unsigned i = w->nticks_seen - n; i < w->nticks_seen; i++)
        put_wall_tick(w, &w->ticks_seen[i % ROTATE_TICKS]);
    flush(w);
}

/* Rotates when loop= says it is time. The logs keep to the start's grid (start + k x loop);
 * after a late rotation (a long table build, a slow disk, a render) the next comes a whole
 * loop later rather than at once. */
static void maybe_rotate(struct writer *w, uint64_t now)
{
    if (now < w->next_rotate)
        return;
    rotate(w);
    w->next_rotate += w->s->rotate_ns;
    now = mono_ns();
    if (w->next_rotate < now + w->s->rotate_ns / 2)
        w->next_rotate = now + w->s->rotate_ns;
}

static void writer_destroy(struct writer *w)
{
    free(w->live);
    free(w->s2);
    fpl_buf_free(&w->chunk);
    fpl_buf_free(&w->pending);
    keymap_destroy(&w->stacks);
    keymap_destroy(&w->methods);
    keymap_destroy(&w->markers);
    keymap_destroy(&w->cfuncs);
    keymap_destroy(&w->cfsyms);
    symbols_free(w->syms);
    keymap_destroy(&w->stubs);
    keymap_destroy(&w->tnames);
    keymap_destroy(&w->tcache_map);
    free(w->tcache);
    free(w->key);
    free(w->frames);
    free(w->types);
    free(w->sframes);
    fpl_stackring_destroy(&w->sring);
    ctxlog_destroy(&w->ctx);
    classlog_destroy(&w->classes);
}

/* Runs the session's services of period period_ns (0: every loop) in their order. Returns
 * the soonest any of them wants to run again (UINT64_MAX: none sooner than its period). */
static uint64_t run_services(struct writer *w, uint64_t period_ns)
{
    uint64_t soonest = UINT64_MAX;
    for (size_t i = 0; i < w->s->nservices; i++) {
        const struct writer_service *sv = &w->s->services[i];
        if (sv->period_ns != period_ns)
            continue;
        uint64_t due = sv->run(&w->chunk, w->jni);
        if (due < soonest)
            soonest = due;
    }
    return soonest;
}

static void JNICALL writer_main(jvmtiEnv *jvmti, JNIEnv *jni, void *arg)
{
    (void)jvmti;
    struct writer w;
    memset(&w, 0, sizeof(w));
    w.s = arg;
    w.jni = jni;
    w.next_thread = w.next_method = w.next_stack = 1;
    w.syms = symbols_new();
    (void)ctxlog_init(&w.ctx); /* without it, samples are logged without their context */
    (void)classlog_init(&w.classes); /* without it, methods are METHOD records */
    ctxlog_start();
    /* FLYPROF_TEST_DICT_BYTES lowers the dictionary bound, so tests reach it in seconds */
    const char *bound = getenv("FLYPROF_TEST_DICT_BYTES");
    w.max_map_bytes = bound && atoll(bound) > 0 ? (size_t)atoll(bound) : MAX_MAP_BYTES;
    /* FLYPROF_TEST_WRITER_LAG_MS: records are written only once they are this old, so a test
     * can have methods named after their class was unloaded */
    const char *lag = getenv("FLYPROF_TEST_WRITER_LAG_MS");
    if (lag && atoll(lag) > 0)
        w.lag_ticks = (uint64_t)atoll(lag) * (tsc_ticks_per_sec() / 1000);

    current = &w;
    put_header(&w); /* the preamble goes with the first chunk: flush writes it */
    put_anchor(&w);
    flush(&w);
    uint64_t next_period = mono_ns() + PERIOD_NS;
    w.next_rotate = w.s->rotate_ns && w.s->rotate ? mono_ns() + w.s->rotate_ns : UINT64_MAX;
    int duration_over = 0;
    for (;;) {
        /* duration= over: sampling stops before what is left in the ring is drained (naming
         * a second of samples' methods after a long table build takes a few hundred ms) */
        if (w.s->deadline_mono_ns && mono_ns() >= w.s->deadline_mono_ns) {
            duration_over = 1;
            break;
        }
        unsigned n = drain(&w, DRAIN_BATCH);
        atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed);
        int events_more = drain_events(&w, EVENTS_BATCH);
        ctxlog_drain_endpoints(&w.ctx, &w.chunk);
        uint64_t now = mono_ns();
        if (now >= next_period) {
            put_counters(&w);
            put_anchor(&w);
            flush(&w);
            bound_maps(&w);
            run_services(&w, PERIOD_NS);
            next_period = now + PERIOD_NS;
        }
        maybe_rotate(&w, now);
        do_sync(&w);
        /* the session's housekeeping (unwind tables, samplers on new threads, ...) */
        uint64_t tasks_due = run_services(&w, 0);
        if (n == DRAIN_BATCH || events_more || ring_rearm(w.s->ring))
            continue;
        uint64_t until = next_period < w.next_rotate ? next_period : w.next_rotate;
        if (w.s->deadline_mono_ns && w.s->deadline_mono_ns < until)
            until = w.s->deadline_mono_ns;
        now = mono_ns();
        if (w.events_poll_until && now >= w.events_poll_until) {
            /* no event for EVENTS_IDLE_NS: sleep until a buffer wakes us (a quarter full) */
            events_set_polling(0);
            w.events_poll_until = 0;
        }
        uint64_t poll = w.events_drained >= EVENTS_BUSY ? EVENTS_POLL_NS / 4 : EVENTS_POLL_NS;
        if (w.events_poll_until && now + poll < until)
            until = now + poll;
        if (until > now && tasks_due < until - now)
            until = now + tasks_due;
        if (wait_stop(until > now ? until - now : 0))
            break;
    }
    if (duration_over && w.s->stop_sampling)
        w.s->stop_sampling();
    ring_set_wakeup(w.s->ring, -1, 0); /* sampling is off: no producer runs */
    /* sampling is off and no handler is running: what is in the ring is all there is */
    w.lag_ticks = 0;
    while (drain(&w, UINT32_MAX) > 0)
        ;
    flush_pending(&w, mono_ns());
    events_stop();
    while (drain_events(&w, SIZE_MAX))
        ;
    {
        struct events_sink es = {&w.chunk, event_thread_id, &w, CHUNK_FLUSH_BYTES};
        events_finish(&es);
    }
    /* every sample is named; the services' last records (the probes' last intervals) */
    for (size_t i = 0; i < w.s->nservices; i++)
        if (w.s->services[i].end)
            w.s->services[i].end(&w.chunk, jni);
    ctxlog_drain_endpoints(&w.ctx, &w.chunk); /* requests named up to the stop */
    current = NULL;
    ctxlog_stop();
    put_counters(&w);
    put_anchor(&w);
    put_end(&w);
    if (flush(&w) != 0) {
        /* the last chunk was lost: once more with only how the log ended, which is small and
         * may fit where that chunk did not (it was taken back) */
        put_counters(&w);
        put_end(&w);
        flush(&w);
    }
    close(w.s->fd);
    w.s->fd = -1;
    writer_destroy(&w);
    pthread_mutex_lock(&mu);
    finishing = 1;
    pthread_mutex_unlock(&mu);
    if (w.s->finish)
        w.s->finish();

    pthread_mutex_lock(&mu);
    running = 0;
    sync_done = sync_requested; /* the log is complete: nothing left to wait for */
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

int writer_prepare(struct writer_session *s)
{
    for (size_t i = 0; i < s->nservices; i++)
        if (!s->services[i].run ||
            (s->services[i].period_ns != 0 && s->services[i].period_ns != PERIOD_NS))
            return -EINVAL;
    atomic_store_explicit(&samples_written, 0, memory_order_relaxed);
    atomic_store_explicit(&bytes_written, 0, memory_order_relaxed);
    if (wake_fd < 0 && (wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
        return -errno;
    /* before sampling starts (no producer runs): a stale count from an earlier session would
     * only cost one early wakeup */
    ring_set_wakeup(s->ring, wake_fd, s->ring->capacity / WAKE_FRACTION);
    /* a handler that meets a module without unwind tables wakes us to build them */
    nativewalk_set_wake_fd(wake_fd);
    /* events are kept while this session runs; without the thread-exit hook they stay off */
    (void)events_start(s->opts.events, s->opts.event_wait_ns, writer_wake);
    pthread_mutex_lock(&mu);
    stop_requested = 0;
    running = 1;
    finishing = 0;
    pthread_mutex_unlock(&mu);
    return 0;
}

void writer_unprepare(void)
{
    events_stop();
    events_finish(NULL);
    pthread_mutex_lock(&mu);
    running = 0;
    pthread_mutex_unlock(&mu);
}

int writer_start(struct writer_session *s, JNIEnv *jni)
{
    jclass cls = (*jni)->FindClass(jni, "java/lang/Thread");
    jmethodID ctor = cls ? (*jni)->GetMethodID(jni, cls, "<init>", "(Ljava/lang/String;)V") : NULL;
    jstring name = ctor ? (*jni)->NewStringUTF(jni, "flyprof writer") : NULL;
    jobject thread = name ? (*jni)->NewObject(jni, cls, ctor, name) : NULL;
    jvmtiError err = JVMTI_ERROR_INTERNAL;
    if (thread)
        err = (*s->jvmti)->RunAgentThread(s->jvmti, thread, writer_main, s,
                                          JVMTI_THREAD_NORM_PRIORITY);
    if (thread)
        (*jni)->DeleteLocalRef(jni, thread);
    if (name)
        (*jni)->DeleteLocalRef(jni, name);
    if (cls)
        (*jni)->DeleteLocalRef(jni, cls);
    if (err != JVMTI_ERROR_NONE) {
        writer_unprepare();
        return -EINVAL;
    }
    return 0;
}

/* Waits under mu until done() or the writer looks stuck: no progress for WRITER_STALL_NS
 * while it writes the log, or FINISH_MAX_NS in finish(). Returns 0 or -ETIMEDOUT. */
static int wait_writer(int (*done)(uint64_t), uint64_t arg)
{
    uint64_t seen = atomic_load_explicit(&progress, memory_order_relaxed);
    uint64_t since = mono_ns(), finish_since = 0;
    while (!done(arg)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t t = (uint64_t)ts.tv_nsec + WAIT_STEP_NS;
        ts.tv_sec += (time_t)(t / 1000000000ull);
        ts.tv_nsec = (long)(t % 1000000000ull);
        pthread_cond_timedwait(&cv, &mu, &ts);
        uint64_t now = mono_ns();
        uint64_t p = atomic_load_explicit(&progress, memory_order_relaxed);
        if (p != seen) {
            seen = p;
            since = now;
        }
        if (finishing && !finish_since)
            finish_since = now;
        if (finishing ? now - finish_since > FINISH_MAX_NS : now - since > WRITER_STALL_NS)
            return done(arg) ? 0 : -ETIMEDOUT;
    }
    return 0;
}

static int stopped(uint64_t unused)
{
    (void)unused;
    return !running;
}

static int synced(uint64_t ticket)
{
    return !running || sync_done >= ticket;
}

int writer_stop(void)
{
    pthread_mutex_lock(&mu);
    stop_requested = 1;
    /* a table build under way (libjvm's takes a few hundred ms) would hold the stop that
     * long: the tables go at the stop anyway */
    cfitab_cancel_builds();
    if (running)
        wake_writer();
    pthread_cond_broadcast(&cv);
    int rc = wait_writer(stopped, 0);
    pthread_mutex_unlock(&mu);
    return rc;
}

void writer_wake(void)
{
    /* one eventfd write per wake request: the writer clears the flag when it wakes */
    if (!atomic_exchange_explicit(&wake_requested, 1, memory_order_acq_rel) && wake_fd >= 0)
        wake_writer();
}

int writer_sync(void)
{
    pthread_mutex_lock(&mu);
    if (!running) {
        pthread_mutex_unlock(&mu);
        return -ENOENT;
    }
    uint64_t ticket = ++sync_requested;
    wake_writer();
    pthread_cond_broadcast(&cv);
    int rc = wait_writer(synced, ticket);
    pthread_mutex_unlock(&mu);
    return rc;
}

int writer_running(void)
{
    pthread_mutex_lock(&mu);
    int r = running;
    pthread_mutex_unlock(&mu);
    return r;
}

uint64_t writer_samples_written(void)
{
    return atomic_load_explicit(&samples_written, memory_order_relaxed);
}

uint64_t writer_bytes_written(void)
{
    return atomic_load_explicit(&bytes_written, memory_order_relaxed);
}
