/* sample.h: the layout of the records in the ring: samples, written by signal handlers, and
 * wall-clock ticks, written by the sampler thread; read by the writer. */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

/* One frame as AsyncGetCallTrace fills it: lineno is the bci (-3 for a native method).
 * The walkers may also store typed frames (SAMPLE_FRAME_PACK), where method_id is not always
 * a jmethodID: see enum sample_frame_type. */
struct sample_frame {
    jint lineno;
    jmethodID method_id;
};

/* The type of a frame in the ring. Type 0 is what AGCT writes (a Java frame, compiled or not
 * unknown); walkers that know more pack the type into lineno with SAMPLE_FRAME_PACK. */
enum sample_frame_type {
    SAMPLE_FT_JAVA = 0,        /* Java method, jmethodID; JIT state unknown */
    SAMPLE_FT_INTERPRETED = 1, /* Java method run by the interpreter, jmethodID */
    SAMPLE_FT_COMPILED = 2,    /* Java method, the physical frame of compiled code (C2/JVMCI) */
    SAMPLE_FT_INLINED = 3,     /* Java method inlined into the compiled frame below it */
    SAMPLE_FT_C1 = 4,          /* Java method, physical frame of C1-compiled code */
    SAMPLE_FT_NATIVE = 5,      /* C/C++ code: method_id holds the pc (a return address for
                                * every frame but the leaf, which holds the interrupted pc) */
    SAMPLE_FT_STUB = 6,        /* a JVM stub or CodeBlob: method_id holds a `const char *`
                                * NUL-terminated name that lives as long as the JVM
                                * (HotSpot's CodeBlob::_name) */
    SAMPLE_FT_KERNEL = 7,      /* kernel code: method_id holds the pc (reserved) */
    SAMPLE_FT_MARKER = 8,      /* a failed walk below frames already taken (native frames,
                                * then AGCT failed): method_id holds the failure code as an
                                * intptr_t, one of the codes num_frames <= 0 may carry */
    SAMPLE_FT_CLASS = 9,       /* the leaf of an alloc or lock sample: the class allocated or
                                * waited on; method_id holds a `const char *` class name that
                                * lives as long as the JVM (classnames.h) */
    SAMPLE_FT_MAX = 10,
};

/* lineno of a typed frame: the type in bits 24..30, the bci (or -3, -1) as a 24-bit two's
 * complement value in bits 0..23. A lineno < 0 is AGCT's own (type 0, the bci itself); a
 * plain bci >= 0 also decodes as type 0. */
#define SAMPLE_FRAME_PACK(type, bci) \
    ((jint)(((uint32_t)(type) << 24) | ((uint32_t)(int32_t)(bci) & 0xffffffu)))

static inline int sample_frame_type(jint lineno)
{
    return lineno < 0 ? SAMPLE_FT_JAVA : (int)((uint32_t)lineno >> 24);
}

static inline int32_t sample_frame_bci(jint lineno)
{
    if (lineno < 0)
        return lineno;
    return (int32_t)(((uint32_t)lineno & 0xffffffu) ^ 0x800000u) - 0x800000;
}

/* num_frames > 0: frames follow. Otherwise a failure, kept as a sample with a marker frame:
 * 0 .. -15 are AGCT's codes, and the agent's own causes below. */
#define SAMPLE_ERR_NO_ENV (-100)        /* signal on a thread with no cached JNIEnv */
#define SAMPLE_ERR_NO_SCRATCH (-101)    /* every scratch buffer busy (nested handlers) */
#define SAMPLE_ERR_NO_JAVA_FRAMES (-102) /* a thread with no Java frames (JVM service thread) */
#define SAMPLE_ERR_WALK_FAULT (-103)    /* the stack walk faulted; the crash guard ended it */
#define SAMPLE_ERR_FAULTS_BLOCKED (-104) /* not walked: the thread blocks SIGSEGV/SIGBUS (it is
                                          * inside a fault handler), so no guard could end a
                                          * walk that faults */
#define SAMPLE_ERR_OTHER_HANDLER (-105) /* not walked: the thread blocks SIGPROF or SIGVTALRM
                                          * (it is inside another profiler's signal handler,
                                          * whose own fault handler may jump out of ours) */
/* Not a failure: a wall sample of a thread that has not run since its previous wall sample
 * (its CPU time has not moved), so its stack is that sample's; the writer repeats it (or
 * writes an [idle] marker when it no longer knows it). Kept apart from the failure codes
 * above, which other walkers extend downwards from -103. */
#define SAMPLE_WALL_REPEAT (-120)

/* kind of a tick record (samples use enum fpl_kind) */
#define SAMPLE_KIND_TICK 0xff

struct sample_rec {
    uint64_t ticks;         /* tsc_read_sigsafe() at the signal */
    int32_t tid;
    uint32_t slot1;         /* registry slot + 1, 0: none */
    uint32_t weight;        /* 1 + timer overrun; alloc, lock: the low 32 bits of the weight */
    uint32_t tick;          /* wall: the tick that chose this thread; alloc, lock: the high 32
                             * bits of the weight (bytes, ns: sample_weight64); 0 otherwise */
    uint8_t kind;           /* enum fpl_kind, or SAMPLE_KIND_TICK */
    uint8_t state;          /* enum fpl_state */
    uint16_t reserved;
    int32_t num_frames;
    uint64_t span, root;    /* the thread's trace context (context.h); 0, 0: none */
    struct sample_frame frames[];
};

/* Alloc and lock samples (evsample.h) carry two more uint64_t after their frames: the
 * allocated object's size in bytes (0 for lock samples), and the allocation's id when its
 * object is tracked for the live view (0: not tracked); sample_evsize / sample_evid read them.
 * Their first frame is the class leaf (SAMPLE_FT_CLASS). */
static inline uint64_t sample_evsize(const struct sample_rec *r)
{
    uint64_t v = 0;
    if (r->num_frames > 0)
        __builtin_memcpy(&v, &r->frames[r->num_frames], sizeof(v));
    return v;
}

static inline uint64_t sample_evid(const struct sample_rec *r)
{
    uint64_t v = 0;
    if (r->num_frames > 0)
        __builtin_memcpy(&v, (const char *)&r->frames[r->num_frames] + sizeof(v), sizeof(v));
    return v;
}

/* num_frames of a LIVE record (alloc.c's alloc_live_flush): no frames; the id of the
 * allocation sample whose object is still reachable is sample_weight64's value. The writer
 * writes it as a LIVE sample with that sample's thread, stack, weight and context. */
#define SAMPLE_LIVE_REF (-121)

/* The weight of an alloc or lock sample (bytes, ns), which does not fit 32 bits: its high
 * half rides in `tick`, which only wall samples use. */
static inline uint64_t sample_weight64(const struct sample_rec *r)
{
    return ((uint64_t)r->tick << 32) | r->weight;
}

/* A wall-clock tick, pushed by the sampler after it signaled the chosen threads. Shares the
 * leading fields of sample_rec, kind == SAMPLE_KIND_TICK. */
struct tick_rec {
    uint64_t ticks;
    int32_t tid;
    uint32_t slot1;
    uint32_t weight;
    uint32_t tick;
    uint8_t kind;
    uint8_t state;
    uint16_t reserved;
    int32_t num_frames;
    uint32_t candidates;
    uint32_t chosen;
    uint32_t signaled;
    uint32_t failed;
};

_Static_assert(offsetof(struct tick_rec, kind) == offsetof(struct sample_rec, kind),
               "tick_rec and sample_rec share their kind field");
_Static_assert(offsetof(struct tick_rec, tick) == offsetof(struct sample_rec, tick),
               "tick_rec and sample_rec share their tick field");

#endif
