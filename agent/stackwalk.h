/* stackwalk.h: Java stacks with AsyncGetCallTrace. */
#ifndef STACKWALK_H
#define STACKWALK_H

#include <jni.h>

#include "sample.h"

/* Looks up AsyncGetCallTrace in the JVM (dlsym). Returns 0 or -ENOENT. Setup context. */
int stackwalk_init(void);

/* Walks the calling thread's Java stack at the interrupted context uc into frames[0..depth):
 * returns the frame count (> 0) or AGCT's error code (<= 0). Async-signal-safe (AGCT is
 * designed for signal handlers); env must be the calling thread's own JNIEnv. */
int stackwalk_java_sigsafe(JNIEnv *env, void *uc, struct sample_frame *frames, int depth);

#endif
