/* sample.h: the layout of a sample record in the ring, written by the signal handler and read
 * by the writer. */
#ifndef SAMPLE_H
#define SAMPLE_H

#include <jni.h>
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

struct sample_rec {
    uint64_t ticks;         /* tsc_read_sigsafe() at the signal */
    int32_t tid;
    uint32_t weight;        /* 1 + timer overrun */
    uint8_t kind;           /* enum fpl_kind */
    uint8_t state;          /* enum fpl_state */
    uint16_t reserved;
    int32_t num_frames;
    struct sample_frame frames[];
};

#endif
