/* nativewalk.h: native (C/C++, JVM-internal) frames from the interrupted pc down to the first
 * Java frame, with libunwind and the tables of cfitab.h. */
#ifndef NATIVEWALK_H
#define NATIVEWALK_H

#include <stdint.h>

#include "cfitab.h"
#include "sample.h"

/* Most native frames one sample keeps (below Java frames, or a whole non-Java stack). */
#define NATIVEWALK_MAX 128

/* Publishes the module snapshot handlers walk with (NULL: none). Writer or control context. */
void nativewalk_set_snapshot(const struct cfitab_snap *s);

/* Where the JVM's code cache bounds live (the addresses of CodeCache::_low_bound and
 * _high_bound): a pc in [*lo, *hi) is Java code (compiled, interpreter, stubs), where the
 * native walk stops and AsyncGetCallTrace takes over. NULL, NULL: not known (then the walk
 * stops at the first pc outside every module). Control context, while no handler runs. */
void nativewalk_set_code_bounds(const uintptr_t *lo, const uintptr_t *hi);

/* 1 when pc lies in the JVM's code cache. Async-signal-safe. */
int nativewalk_is_java_sigsafe(uintptr_t pc);

/* An eventfd the handler writes 1 to when it first asks for a module's table, so a writer
 * sleeping until its next period builds it now (-1: none). Control context, while no handler
 * runs. */
void nativewalk_set_wake_fd(int fd);

/* 1 when a handler asked for a module's table since the last call (and clears it). Writer. */
int nativewalk_take_wanted(void);

/* 1 when a walk met a pc outside every module of the snapshot since the last clear (the first
 * such walk woke the writer, as for a wanted table; later ones do not wake it until the clear).
 * Writer. */
int nativewalk_unknown_pending(void);
void nativewalk_clear_unknown(void);

/* Where the native frames end: the first frame in Java code, as the walk restored its
 * registers (pc 0: the walk did not reach Java code). A thread that runs JVM code without
 * leaving the Java state (a runtime call from compiled code: monitor exit, allocation slow
 * paths) has no frame anchor, and AsyncGetCallTrace can only start from here.
 * When the walk ended without reaching Java code after at least one step (a module whose
 * table is not built yet, a pc without unwind information, the end of the stack), stop_* are
 * the registers of the last frame it walked, frames[n - 1] (stop_pc 0 otherwise, and when that
 * frame's rbp is 0): libjvm keeps frame pointers, so AsyncGetCallTrace can follow the rbp
 * chain from there to Java code, where from the leaf (a libc function, whose rbp is no frame
 * pointer) it could not. */
struct nativewalk_java {
    uintptr_t pc, sp, fp;
    uintptr_t stop_pc, stop_sp, stop_fp;
    int fp_steps;       /* steps made by frame pointer, where no unwind table said how */
};

/* One step by rule r from the frame of pc (registers sp and rbp fp) to its caller: *npc,
 * *nsp and *nfp as they were before the call, reading the stack only inside [lo, hi). Returns
 * 1, or 0 at the outermost frame or when the rule points off the stack. Async-signal-safe. */
int nativewalk_rule_step_sigsafe(const struct cfitab_rule *r, uintptr_t pc, uintptr_t sp,
                                 uintptr_t fp, uintptr_t lo, uintptr_t hi, uintptr_t *npc,
                                 uintptr_t *nsp, uintptr_t *nfp);

/* Walks the interrupted context uc (a ucontext_t of the calling thread's own signal) from its
 * pc up through native frames, stopping before the first pc in Java code, at the end of the
 * stack or after max frames. Where no unwind table covers a pc (its module's is not built yet,
 * or it has none) the walk goes on by frame pointer when the stack's bounds are known, else
 * stops there (that pc kept). Stores
 * them leaf first as SAMPLE_FT_NATIVE frames (the pc in method_id) and returns their count
 * (0 when the pc is in Java code). [stack_lo, stack_hi) bounds the walk when known (0, 0:
 * unknown). *java (may be NULL) receives the first Java frame's registers when the walk
 * stepped into Java code, else where it stopped (struct nativewalk_java). Async-signal-safe: no
 * lock, no allocation (see cfitab.h). */
int nativewalk_sigsafe(void *uc, struct sample_frame *frames, int max, uintptr_t stack_lo,
                       uintptr_t stack_hi, struct nativewalk_java *java);

#endif
