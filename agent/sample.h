/* sample.h: the layout of the records in the ring: samples, written by signal handlers, and
 * wall-clock ticks, written by the sampler thread; read by the writer. */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

/* One frame as AsyncGetCallTrace fills it: lineno is the bci (-3 for a native method). */
struct sample_frame {
    jint lineno;
    jmethodID method_id;
};

/* num_frames > 0: frames follow. Otherwise a failure, kept as a sample with a marker frame:
 * 0 .. -15 are AGCT's codes, and the agent's own causes below. */
#define SAMPLE_ERR_NO_ENV (-100)        /* signal on a thread with no cached JNIEnv */
#define SAMPLE_ERR_NO_SCRATCH (-101)    /* every scratch buffer busy (nested handlers) */
#define SAMPLE_ERR_NO_JAVA_FRAMES (-102) /* a thread with no Java frames (JVM service thread) */

/* kind of a tick record (samples use enum fpl_kind) */
#define SAMPLE_KIND_TICK 0xff

struct sample_rec {
    uint64_t ticks;         /* tsc_read_sigsafe() at the signal */
    int32_t tid;
    uint32_t slot1;         /* registry slot + 1, 0: none */
    uint32_t weight;        /* 1 + timer overrun */
    uint32_t tick;          /* wall: the tick that chose this thread; 0 otherwise */
    uint8_t kind;           /* enum fpl_kind, or SAMPLE_KIND_TICK */
    uint8_t state;          /* enum fpl_state */
    uint16_t reserved;
    int32_t num_frames;
    struct sample_frame frames[];
};

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
