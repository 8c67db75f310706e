/* fpl_format.h: the .fpl log format, version 4 -- the contract between agent and collector.
 *
 * collector/FORMAT.md specifies every field; this header and that page change together.
 *
 * File layout:
 *   preamble  16 bytes: magic "FLYPROF\0", u16 version, u16 flags (0), u32 reserved (0)
 *   chunk*    each: u32 sync FPL_CHUNK_SYNC, u32 payload length, u32 crc32 of (the 4 bytes of
 *             the sequence number, then the payload), u32 sequence number (0, 1, 2, ...),
 *             then the payload: a run of records.
 * Record: one type byte (enum fpl_rec), a varint length of the body, then the body: the fields
 * listed at the enum. A reader skips a record of a type it does not know, and ignores bytes
 * after the fields it knows (later versions append fields). Integers are LEB128 varints
 * ("v", at most 10 bytes), zigzag varints for signed values ("sv"), or fixed little-endian
 * ("u64").
 * Strings are "v length, bytes" in UTF-8 (JVM modified UTF-8 passed through).
 * A dictionary entry (thread, method, stack) is always written before the first record that
 * references it, in the same chunk or an earlier one.
 */
#ifndef FPL_FORMAT_H
#define FPL_FORMAT_H

#include <stdint.h>

#define FPL_MAGIC "FLYPROF"          /* 8 bytes with its NUL */
#define FPL_VERSION 4 /* what writers write: 2 may hold SAMPLE2, 3 ENDPOINT2 and STACK2,
                        * 4 CLASS_NAME and METHOD2 */
#define FPL_VERSION_MIN 1        /* the oldest readers still read */
#define FPL_PREAMBLE_SIZE 16
#define FPL_CHUNK_SYNC 0x43504c46u   /* "FLPC" little-endian */
#define FPL_CHUNK_HEADER_SIZE 16
#define FPL_CHUNK_MAX (16u << 20)    /* a reader rejects a chunk longer than this */

enum fpl_rec {
    /* v header_version(1), v pid, u8 clock (enum fpl_clock), u64 ticks_per_sec,
     * u64 anchor_ticks, u64 anchor_mono_ns, u64 anchor_real_ns,
     * v cpu_interval_ns (0: off), u8 engine (enum fpl_engine), v wall_interval_ns (0: off),
     * v wall_threads, v depth, str options (as the user gave them), str jvm_name,
     * str jvm_version, str command, str agent_version (appended; absent in older logs) */
    FPL_REC_HEADER = 1,
    /* u64 ticks, u64 mono_ns, u64 real_ns: a later clock anchor (readers may refine) */
    FPL_REC_ANCHOR = 2,
    /* v thread_id, v os_tid, str name: one id per (tid, name) pair, so a rename is a new id */
    FPL_REC_THREAD = 3,
    /* v method_id, u8 kind (enum fpl_method_kind), str class (dotted), str name, str signature,
     * str source_file ("" unknown), v nlines, nlines x (v start_bci, v line) sorted by bci */
    FPL_REC_METHOD = 4,
    /* v stack_id, v nframes, nframes x (v method_id, sv bci), leaf first.
     * bci < 0: no bci (native method, marker).
     * [nframes x u8 frame type (enum fpl_frame_type); absent: all FPL_FRAME_JAVA] */
    FPL_REC_STACK = 5,
    /* sv dticks (from the previous sample in this chunk; the first is from 0), v thread_id,
     * v stack_id, v weight (1 + timer overrun), u8 kind (enum fpl_kind),
     * u8 state (enum fpl_state), [v tick_id: wall samples, the WALL_TICK that chose this
     * thread; absent or 0: none], [v context_id: the CONTEXT the thread worked for; absent or
     * 0: none] */
    FPL_REC_SAMPLE = 6,
    /* v n, n x (v counter id (enum fpl_counter), v value): cumulative since start */
    FPL_REC_COUNTERS = 7,
    /* self metrics: v nbuckets, nbuckets x v count (handler times in ns, bucketed by
     * fpl_hist_bucket), v max_ns, v total_ns: cumulative since start */
    FPL_REC_HANDLER_HIST = 8,
    /* u64 ticks: profiling stopped here; the log is complete */
    FPL_REC_END = 9,
    /* a wall-clock tick: v tick_id (> 0), u64 ticks, v candidates (threads eligible),
     * v chosen (threads picked, min(candidates, wallthreads)), v signaled (chosen threads
     * sampled: signalled, or walked by the sampler when not running), v failed.
     * A wall sample answering this tick stands for candidates / chosen threads. */
    FPL_REC_WALL_TICK = 10,
    /* one thread's events (dev.flyprof.Events.log), in the order it logged them:
     * v thread_id, v count, count x (sv dticks (from the previous event of this record; the
     * first from 0, i.e. absolute), sv n, u8 flags (enum fpl_event_flag), [v dropped: when
     * flags has DROPPED], [str s: when flags has STRING]),
     * [v dropped_after: events dropped after the last one; absent: 0] */
    FPL_REC_EVENTS = 11,
    /* one hiccup probe's interval (hiccup mode, FORMAT.md 5.12): v probe (enum fpl_probe),
     * u64 start_ticks, u64 end_ticks, v resolution_ns, v threshold_ns, v wakeups,
     * v max_ns, u64 max_ticks (when the longest delay began), v stalls (delays >= threshold),
     * v stalled_ns (their sum), v run_delay_ns (the probe's run-queue wait), v n,
     * n x (v index step, v count): the delays in ns bucketed by fpl_hdr_index (fpl_hdr.h),
     * non-empty buckets in ascending order, each index as its distance from the previous
     * one (the first from -1) */
    FPL_REC_HICCUP = 12,
    /* a stall: a probe ran threshold or more after it should have (5.13): v probe,
     * u8 flags (FPL_STALL_*), u64 start_ticks (when it should have run), u64 end_ticks (when
     * it ran), v run_delay_ns (its run-queue wait meanwhile), v safepoints (safepoints that
     * completed meanwhile), v safepoint_ns, v sync_ns (their time and time to reach them) */
    FPL_REC_STALL = 13,
    /* a stop-the-world garbage collection (JVMTI GarbageCollectionStart/Finish, 5.14):
     * u64 start_ticks, u64 end_ticks, str collector (HotSpot's PerfData name; "" unknown) */
    FPL_REC_GC = 14,
    /* the JVM's and the OS's lost time over an interval (5.15): u64 start_ticks,
     * u64 end_ticks, u8 flags (FPL_PAUSE_*), v safepoints, v safepoint_ns, v sync_ns,
     * v steal_ns (all CPUs), v cpus, v stalls_dropped, v gcs_dropped (cumulative) */
    FPL_REC_PAUSE_STATS = 15,
    /* a trace context (dev.flyprof.Context.set), dictionary: v context_id (> 0), v span_id,
     * v root_span_id. Written before the first SAMPLE that carries context_id. */
    FPL_REC_CONTEXT = 16,
    /* the endpoint a request served (dev.flyprof.Context.endpoint): v root_span_id,
     * str name. The last one read for a root span wins. */
    FPL_REC_ENDPOINT = 17,
    /* a sample, compact (version 2, FORMAT.md 5.18): u8 flags (enum fpl_s2_flag), sv dticks
     * (the chunk's chain, as SAMPLE's), [v thread_id], [u8 kind, u8 state], [v stack_id],
     * [v weight], [sv tick_id delta], [v context_id], [v size]: a field whose flag is clear
     * is elided, its value taken from the chunk's previous samples as the flag says */
    FPL_REC_SAMPLE2 = 18,
    /* an endpoint name, dictionary (version 3, FORMAT.md 5.19): v name_id (> 0), str name.
     * Written before the first ENDPOINT2 that uses name_id. */
    FPL_REC_ENDPOINT_NAME = 19,
    /* the endpoint a request served, by name (version 3, 5.20): v root_span_id, v name_id:
     * as ENDPOINT with the ENDPOINT_NAME's name */
    FPL_REC_ENDPOINT2 = 20,
    /* a stack as new leaf frames on the root side of an earlier one (version 3, 5.21),
     * dictionary: v stack_id, v back (1..FPL_STACK2_RING: the back-th previous STACK or STACK2
     * record of the chunk), v shared (frames at its root end taken from that one), v nnew,
     * nnew x (v method_id, sv bci), nnew x u8 frame type; leaf first, as STACK */
    FPL_REC_STACK2 = 21,
    /* a class, dictionary (version 4, FORMAT.md 5.22): v class_id (> 0), str class (as
     * METHOD's), str source_file ("" unknown). Written before the first METHOD2 using it. */
    FPL_REC_CLASS_NAME = 22,
    /* a method by class id (version 4, 5.23), dictionary: v method_id, u8 kind, v class_id
     * (a CLASS_NAME's; 0: class and source_file ""), str name, str signature, v nlines,
     * nlines x (v start_bci step, sv line step): each from the previous entry's, the first
     * from (0, 0). Read as the METHOD record of those fields. */
    FPL_REC_METHOD2 = 23,
};

/* A STACK2's base: one of the chunk's last FPL_STACK2_RING stack records; its frames, new and
 * shared, FPL_STACK2_MAX_FRAMES at most (more: a bad record). */
#define FPL_STACK2_RING 16
#define FPL_STACK2_MAX_FRAMES 65536

/* FPL_REC_SAMPLE2's flags: which fields the record holds. An elided field's value: */
enum fpl_s2_flag {
    FPL_S2_THREAD = 1,          /* the previous SAMPLE2's thread in the chunk */
    FPL_S2_KIND = 2,            /* kind and state: this thread's previous SAMPLE2's */
    FPL_S2_STACK = 4,           /* this thread's previous SAMPLE2's stack */
    FPL_S2_WEIGHT = 8,          /* 1 */
    FPL_S2_TICK = 16,           /* 0 (none); present: the chunk's previous tick id + delta */
    FPL_S2_CONTEXT = 32,        /* this thread's previous SAMPLE2's context, else 0 */
    FPL_S2_SIZE = 64,           /* 0 */
};

/* Flags of an event in FPL_REC_EVENTS. */
enum fpl_event_flag {
    FPL_EVENT_STRING = 1,       /* a string follows (log(n, s)) */
    FPL_EVENT_TRUNCATED = 2,    /* the string had more than 63 UTF-16 units; the first are kept */
    FPL_EVENT_DROPPED = 4,      /* a count of events dropped right before this one follows */
};

/* Hiccup probes (FPL_REC_HICCUP, FPL_REC_STALL). */
enum fpl_probe {
    FPL_PROBE_JAVA = 0,  /* a Java thread: stopped by safepoints and GC, so it sees the JVM's
                          * pauses and the OS's */
    FPL_PROBE_OS = 1,    /* a native thread outside the JVM: the OS and hypervisor alone */
};

/* FPL_REC_STALL flags: which of its fields were measured. */
#define FPL_STALL_RUN_DELAY 1u   /* run_delay_ns (/proc/thread-self/schedstat) */
#define FPL_STALL_SAFEPOINTS 2u  /* safepoints, safepoint_ns, sync_ns (HotSpot PerfData) */

/* FPL_REC_PAUSE_STATS flags. */
#define FPL_PAUSE_SAFEPOINTS 1u  /* safepoints, safepoint_ns, sync_ns */
#define FPL_PAUSE_STEAL 2u       /* steal_ns (/proc/stat) */

enum fpl_clock {
    FPL_CLOCK_TSC = 0,          /* ticks are rdtsc; ticks_per_sec measured against MONOTONIC_RAW */
    FPL_CLOCK_MONOTONIC = 1,    /* ticks are CLOCK_MONOTONIC ns; ticks_per_sec = 1e9 */
};

enum fpl_engine {
    FPL_ENGINE_NONE = 0,
    FPL_ENGINE_CPUTIMER = 1,
    FPL_ENGINE_ITIMER = 2,
    FPL_ENGINE_PERF = 3,
};

enum fpl_method_kind {
    FPL_METHOD_JAVA = 0,        /* a Java method */
    FPL_METHOD_NATIVE = 1,      /* a Java method declared native */
    FPL_METHOD_MARKER = 2,      /* not a method: a marker frame, its name says why ([agct:...]) */
    FPL_METHOD_CFUNC = 3,       /* a native (C/C++) function */
    FPL_METHOD_STUB = 4,        /* a JVM stub or CodeBlob, named as HotSpot names it */
    FPL_METHOD_CLASS = 5,       /* not a method: the class an ALLOC sample allocated or a LOCK
                                 * sample waited on, as a leaf frame; name holds the class name
                                 * (java.lang.String, byte[]), class is "" */
};

/* How a frame ran (FPL_REC_STACK's optional types). */
enum fpl_frame_type {
    FPL_FRAME_JAVA = 0,         /* Java, JIT state unknown (plain AsyncGetCallTrace) */
    FPL_FRAME_INTERPRETED = 1,
    FPL_FRAME_COMPILED = 2,     /* compiled (C2 or JVMCI) */
    FPL_FRAME_INLINED = 3,      /* inlined into the compiled frame below it */
    FPL_FRAME_C1 = 4,           /* compiled by C1 */
    FPL_FRAME_NATIVE = 5,       /* C/C++ (method kind CFUNC) */
    FPL_FRAME_STUB = 6,         /* JVM stub (method kind STUB) */
    FPL_FRAME_KERNEL = 7,
    FPL_FRAME_MARKER = 8,       /* a marker frame */
    FPL_FRAME_CLASS = 9,        /* a class leaf (method kind CLASS) of an ALLOC or LOCK sample */
};

enum fpl_kind {
    FPL_KIND_CPU = 0,
    FPL_KIND_WALL = 1,
    FPL_KIND_ALLOC = 2,         /* a sampled allocation; weight: bytes it stands for */
    FPL_KIND_LOCK = 3,          /* a contended lock wait; weight: ns waited */
    FPL_KIND_LIVE = 4,          /* an ALLOC sample whose object was still reachable when
                                 * profiling stopped (option live); weight: bytes */
};

enum fpl_state {
    FPL_STATE_UNKNOWN = 0,
    FPL_STATE_RUNNING = 1,
    FPL_STATE_BLOCKED = 2,      /* waiting to enter a monitor */
    FPL_STATE_WAITING = 3,      /* Object.wait() without timeout */
    FPL_STATE_TIMED_WAITING = 4,
    FPL_STATE_PARKED = 5,
    FPL_STATE_SLEEPING = 6,
    FPL_STATE_NATIVE = 7,
};

/* Counters, cumulative. Unknown ids must be ignored by readers. */
enum fpl_counter {
    FPL_CTR_SIGNALS = 0,        /* signals handled while profiling */
    FPL_CTR_SAMPLES = 1,        /* samples pushed into the ring */
    FPL_CTR_RING_DROPS = 2,     /* samples lost: ring full */
    FPL_CTR_NO_ENV = 3,         /* signal on a thread without a JNIEnv (not a Java thread) */
    FPL_CTR_WRITER_CPU_NS = 4,  /* CPU time of the writer thread */
    FPL_CTR_OVERRUNS = 5,       /* timer overruns folded into weights */
    FPL_CTR_TIMER_ERRORS = 6,   /* timer_create / timer_settime failures */
    FPL_CTR_BYTES = 7,          /* log bytes written before this record's chunk */
    FPL_CTR_WALL_SIGNALS = 8,   /* wall-clock signals handled */
    FPL_CTR_AGCT_RECOVERED = 9, /* walks that failed in a JVM stub and succeeded from its
                                 * caller frame (charged to the Java caller) */
    FPL_CTR_WALL_WALKED = 10,   /* wall samples of threads not running (blocked, waiting,
                                 * parked, sleeping) read by the sampler with JVMTI */
    FPL_CTR_DICT_RESETS = 11,   /* times the writer cleared its dictionaries (memory bound) */
    FPL_CTR_SAMPLER_CPU_NS = 12,     /* CPU time of the wall-clock sampler thread */
    FPL_CTR_AGENT_OTHER_CPU_NS = 13, /* CPU time of the agent's other threads (not the writer,
                                      * not the sampler) */
    FPL_CTR_WALK_FAULTS = 15,   /* stack walks that faulted and were ended by the crash
                                 * guard (the sample keeps a [walk_fault] marker) */
    FPL_CTR_AGCT_BASE = 16,     /* 16 + (-code): AGCT failures by code, -1 .. -15 */
    /* signal hygiene and wall-sampling cost */
    FPL_CTR_FOREIGN_SIGNALS = 32, /* signals that reached our handlers but were not ours
                                   * (passed on to the handler before ours, if any) */
    FPL_CTR_HANDLER_LOST = 33,  /* our handlers found replaced by another library's; the
                                 * engine using that signal stopped */
    FPL_CTR_CPU_SIGNO = 34,     /* the signal number the CPU engine uses (not a count) */
    FPL_CTR_WALL_UNTAKEN = 35,  /* ticks that chose a thread whose wall signal was still
                                 * queued (waiting for a core, or signals blocked): none sent
                                 * again; that signal's sample weighs these ticks too */
    FPL_CTR_WALL_IDLE = 36,     /* wall samples of threads that had not run since their last
                                 * (CPU time unmoved): that stack repeated, no signal, no walk */
    FPL_CTR_HANDLER_NESTED = 37, /* a handler entered on a thread already inside one */
    FPL_CTR_CONTEXT_LOST = 38,  /* samples whose trace context could not be read consistently
                                 * (it kept changing under the wall sampler): logged without */
    FPL_CTR_ENDPOINT_DROPS = 39, /* Context.endpoint calls dropped: the agent's queue was full */
    /* chunks the writer could not write (ENOSPC, EDQUOT, EIO) or allocate: dropped, their
     * number skipped; writing goes on with the next chunk */
    FPL_CTR_WRITE_LOST_CHUNKS = 40,
    FPL_CTR_WRITE_LOST_SAMPLES = 41, /* samples in those chunks */
    FPL_CTR_WRITE_ERRNO = 42,   /* the errno of the last chunk lost (not a count) */
    FPL_CTR_HANDLER_BUSY = 44,  /* handler runs that found every scratch buffer busy */
    FPL_CTR_SCRATCH_BUFFERS = 45, /* the handlers' scratch buffers (not a count) */
    FPL_CTR_PERF_FDS_HELD = 46, /* perf fds kept open on /dev/null: a handler run still used them */
    FPL_CTR_FAULTS_BLOCKED = 47, /* samples not walked: the thread blocked SIGSEGV/SIGBUS */
    FPL_CTR_FP_WALKS = 48,      /* samples whose native walk stepped by frame pointer: no unwind
                                 * table covered a frame (not built yet, or none) */
    FPL_CTR_ALLOC_SAMPLES = 49, /* allocation samples pushed into the ring */
    FPL_CTR_LOCK_SAMPLES = 50,  /* lock waits at or above the threshold pushed into the ring */
    FPL_CTR_EVSAMPLE_BUSY = 51, /* alloc and lock samples dropped: every walk buffer was busy */
    FPL_CTR_LOCK_SHORT = 52,    /* contended waits shorter than the threshold (not sampled) */
    FPL_CTR_LIVE_TRACKED = 53,  /* allocation samples whose objects were tracked for liveness */
    FPL_CTR_LIVE_EVICTED = 54,  /* tracked objects given up for a newer sample (table full) */
    FPL_CTR_OTHER_HANDLER = 55, /* samples not walked: the thread blocked SIGPROF/SIGVTALRM
                                 * (inside another profiler's signal handler) */
    FPL_CTR_EVENT_WAITS = 56,   /* Events.log calls that waited for room in a full buffer */
    FPL_CTR_EVENT_WAIT_NS = 57, /* nanoseconds those calls waited, in all */
    FPL_CTR_EVENT_WAIT_TIMEOUTS = 58, /* waits that ran out (the writer did not drain in time) */
    FPL_CTR_OWN_WALKS = 59,     /* Java stacks read from HotSpot's structures alone, without
                                 * AsyncGetCallTrace (walk=vm) */
    FPL_CTR_WALK_CHECKED = 60,  /* walk=check: stacks walked both ways, by the walker and AGCT */
    FPL_CTR_WALK_DIFFERED = 61, /* walk=check: of those, the stacks where they differed (methods,
                                 * bytecode indexes or depth) */
    FPL_CTR_SAFEREAD = 43,      /* how the agent reads JVM memory that may be unmapped, not a
                                 * count: 0 /proc/self/mem, 1 a pipe, 2 process_vm_readv,
                                 * 3 no way (enum saferead_way) */
    FPL_CTR_MAX = 64,
};

/* AsyncGetCallTrace result codes, negated (num_frames <= 0). */
#define FPL_AGCT_CODES 16
/* Whether a counter is a value, not a count (marked "not a count" above): a log of loop= gives
 * it as it is, not since the log began, and a merge of several logs keeps the last one. */
static inline int fpl_counter_is_gauge(unsigned id)
{
    return id == FPL_CTR_CPU_SIGNO || id == FPL_CTR_WRITE_ERRNO || id == FPL_CTR_SAFEREAD ||
           id == FPL_CTR_SCRATCH_BUFFERS;
}

static inline const char *fpl_agct_name(int code)
{
    switch (code) {
    case 0: return "no_Java_frame";
    case -1: return "no_class_load";
    case -2: return "GC_active";
    case -3: return "unknown_not_Java";
    case -4: return "not_walkable_not_Java";
    case -5: return "unknown_Java";
    case -6: return "not_walkable_Java";
    case -7: return "unknown_state";
    case -8: return "thread_exit";
    case -9: return "deopt";
    case -10: return "safepoint";
    default: return "unknown_error";
    }
}

/* Handler-time histogram: log-linear buckets, exact below 16 ns, then 8 per power of two
 * (about 9% wide). Values at or above 2^40 ns land in the last bucket. */
#define FPL_HIST_BUCKETS (16 + 36 * 8)

static inline unsigned fpl_hist_bucket(uint64_t v)
{
    if (v < 16)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v);
    if (e >= 40)
        return FPL_HIST_BUCKETS - 1;
    return 16 + (e - 4) * 8 + (unsigned)((v >> (e - 3)) & 7);
}

/* The smallest value that falls in bucket i. */
static inline uint64_t fpl_hist_lower(unsigned i)
{
    if (i < 16)
        return i;
    unsigned e = 4 + (i - 16) / 8, sub = (i - 16) % 8;
    return (1ull << e) + ((uint64_t)sub << (e - 3));
}

#endif
