/* stackwalk.h: Java stacks in signal handlers: HotSpot's own structures read as
 * AsyncGetCallTrace (AGCT) reads them, AGCT itself where they cannot be read exactly, and
 * recovery from them where AGCT gives up; crash-guarded.
 *
 * AGCT costs about 1,500 cycles (0.7 us) a frame here, mostly cache misses in JVM metadata. The
 * walker (walk_own in stackwalk.c) reads the same frames -- compiled ones from the nmethod's
 * debug information, kept per pc (framecache.h), interpreted ones from their Method* and bcp --
 * and gives AGCT's answer, checked on every sample by walk=check (STACKWALK_CHECK); where it
 * cannot be exact it leaves the sample to AGCT.
 *
 * AGCT cannot start a walk from a pc inside a JVM stub (array copies, vtable and itable
 * dispatch, intrinsics, runtime stubs): it returns unknown_Java or not_walkable_Java. The
 * walker then finds the blob holding the pc in the code cache (codecache.h), unwinds exactly
 * one frame -- the stub's, from its CodeBlob frame size, or from its code (the return address
 * on top of the stack before `push rbp; mov rbp, rsp` completes, the saved frame after) -- checks
 * that the word it takes for a return address follows a call instruction in compiled Java code,
 * and calls AGCT again on a copy of the context set to that caller frame. The caller's inlined
 * frames come back with it. The stub itself is kept as the leaf frame (SAMPLE_FT_STUB, named
 * as HotSpot names it). Nothing is ever guessed from an rbp chain in compiled Java code, which
 * uses rbp as a general register.
 *
 * A thread in the VM whose frame anchor AGCT cannot use (an anchor inside such a stub) is
 * walked by AGCT with the anchor moved to the stub's caller for the call, which is sound only
 * while no other thread can walk the stack. A blocked thread's stack can be walked by others
 * (safepoints, handshakes) at any moment, so its anchor is only read: a thread spinning or
 * parking in a contended monitor enter, anchored in C2's _complete_monitor_locking_Java, has
 * its Java frames read by the walker itself -- interpreted frames from their Method* and bcp,
 * compiled frames and their inlined frames from the nmethod's debug information (the PcDesc
 * at the call's return address and its chain of scopes), calls from the VM from the call
 * stub's JavaCallWrapper -- as HotSpot's own vframeStream reads them.
 */
#ifndef STACKWALK_H
#define STACKWALK_H

#include <jni.h>
#include <stdint.h>

#include "sample.h"

enum stackwalk_mode {
    STACKWALK_VM = 0,   /* the walker, else AGCT with recovery from HotSpot's structures,
                         * frame types (default) */
    STACKWALK_AGCT = 1, /* plain AGCT: no recovery, no types (walk=agct, for debugging) */
    STACKWALK_CHECK = 2, /* both: the sample is AGCT's (as in STACKWALK_VM without the
                          * walker's own stacks), the walker's compared with it and counted
                          * (walk=check) */
};

/* Looks up AsyncGetCallTrace in the JVM (dlsym). Returns 0 or -ENOENT. Setup context. */
int stackwalk_init(void);

/* Sets the mode; the byte AGCT sets in a JavaThread while it runs (asgct_flag, -1: none), at
 * env_offset below the thread's JNIEnv, which the crash guard puts back when a walk faults
 * inside AGCT; and the test-only forced faults: every fault_every-th walk (0: never) faults on
 * purpose inside the guard, alternately inside AGCT (a call whose result it cannot write) and
 * in the walker's own code. Returns 0 or -errno. Only while no handler runs. */
int stackwalk_configure(enum stackwalk_mode mode, int asgct_flag, intptr_t env_offset,
                        unsigned fault_every);

/* Walks the calling thread's Java stack at the interrupted context uc into frames[0..depth):
 * returns the frame count (> 0), AGCT's error code (<= 0), or SAMPLE_ERR_WALK_FAULT when the
 * walk faulted (the crash guard ended it). env must be the calling thread's own JNIEnv.
 * *recovered is set to 1 when AGCT failed and the walk succeeded from a stub's caller frame.
 * Async-signal-safe. */
int stackwalk_java_sigsafe(JNIEnv *env, void *uc, struct sample_frame *frames, int depth,
                           int *recovered);

/* Like stackwalk_java_sigsafe, from the Java frame (pc, sp, fp) a native unwinder reached
 * below native frames (pc a return address into the code cache) of a thread interrupted at uc
 * in Java code (a leaf call from compiled code into the VM or a library, where AGCT cannot
 * start from uc). Threads in native or VM code need not: AGCT starts from their last Java
 * frame anchor whatever uc says. Async-signal-safe. */
int stackwalk_java_from_sigsafe(JNIEnv *env, void *uc, uintptr_t pc, uintptr_t sp, uintptr_t fp,
                                struct sample_frame *frames, int depth, int *recovered);

#endif
