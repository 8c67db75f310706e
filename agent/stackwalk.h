/* stackwalk.h: Java stacks with AsyncGetCallTrace (AGCT), crash-guarded. */
#ifndef STACKWALK_H
#define STACKWALK_H

#include <jni.h>
#include <stdint.h>

#include "sample.h"

/* Looks up AsyncGetCallTrace in the JVM (dlsym). Returns 0 or -ENOENT. Setup context. */
int stackwalk_init(void);

/* Sets what the walker needs beyond AGCT: the byte AGCT sets in a JavaThread while it runs
 * (asgct_flag, -1: none), at env_offset below the thread's JNIEnv, which the crash guard puts
 * back when a walk faults inside AGCT; and the test-only forced faults: every fault_every-th
 * walk (0: never) faults on purpose inside the guard, alternately inside AGCT (a call whose
 * result it cannot write) and in the walker's own code. Returns 0 or -errno. Only while no
 * handler runs. */
int stackwalk_configure(int asgct_flag, intptr_t env_offset, unsigned fault_every);

/* Walks the calling thread's Java stack at the interrupted context uc into frames[0..depth):
 * returns the frame count (> 0), AGCT's error code (<= 0), or SAMPLE_ERR_WALK_FAULT when the
 * walk faulted and the crash guard ended it. Async-signal-safe (AGCT is designed for signal
 * handlers); env must be the calling thread's own JNIEnv.
 *
 * When AGCT cannot place the pc (unknown_Java / not_walkable_Java: typically a JVM stub such
 * as arraycopy or a crypto intrinsic) and the thread's stack bounds [stack_lo, stack_hi) are
 * known, it retries from the caller frames found through the frame-pointer chain (stubs set
 * up rbp frames), then from the return address on top of the stack (a stub before its frame
 * is built), reading only inside the stack; AGCT itself rejects a pc outside Java code.
 * *recovered is set to 1 when a retry succeeded: the sample is then charged to the stub's
 * Java caller. */
int stackwalk_java_sigsafe(JNIEnv *env, void *uc, struct sample_frame *frames, int depth,
                           uintptr_t stack_lo, uintptr_t stack_hi, int *recovered);

#endif
