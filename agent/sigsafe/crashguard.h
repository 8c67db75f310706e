/* crashguard.h: a fault (SIGSEGV, SIGBUS) on a thread while it walks a stack ends that walk
 * instead of the JVM. The walker arms a guard on its own stack around every read of JVM
 * structures and every AsyncGetCallTrace call:
 *
 *     struct crashguard g;
 *     if (sigsetjmp(g.jb, 0) == 0) {
 *         crashguard_enter(&g);
 *         ... walk ...
 *         crashguard_leave(&g);
 *     } else {
 *         ... the walk faulted: the guard is already left, state restored ...
 *     }
 *
 * The guard's handler is installed over whatever handled SIGSEGV/SIGBUS before (HotSpot's own,
 * which lives on these signals: implicit null checks, safepoint polls, stack banging, SafeFetch)
 * and hands it every fault that is not a walk's: faults on threads with no armed guard,
 * signals sent by kill/tgkill, faults at HotSpot's SafeFetch instructions (it expects those
 * and resumes them), faults in the code cache (stubs, compiled code: HotSpot's business), and
 * faults outside the code a walk runs (this library, libjvm, libunwind: the modules loaded at
 * crashguard_install): those come from another library's signal handler that interrupted the
 * walk (a second profiler's walker), and its own fault handler, behind ours, must get them.
 * The hand-over is exact: the previous handler is called as the kernel would have called it
 * (SA_SIGINFO or not; our handler is installed with its mask and flags), and a default or
 * ignored disposition is restored and the fault re-raised so the process dies of it as it
 * would have without us. Installed after the JVM's handlers (at profiling start: VMInit or
 * attach), so it comes first; with libjsig preloaded HotSpot keeps the kernel slot and calls
 * ours as a chained handler for faults it does not recognize, which also ends the walk.
 * -Xcheck:jni notices the replaced handler and says so once.
 *
 * ASYNC-SIGNAL-SAFE: crashguard_enter, crashguard_leave and the fault handler.
 */
#ifndef CRASHGUARD_H
#define CRASHGUARD_H

#include <setjmp.h>
#include <stdint.h>

struct crashguard {
    sigjmp_buf jb;              /* sigsetjmp(jb, 0): the mask is restored from the fault's
                                 * context instead, so arming costs no system call */
    struct crashguard *prev;    /* the guard of a walk this one interrupted (nested handlers) */
    volatile uint8_t *restore;  /* a byte to put back when the walk faults, or NULL: the flag
                                 * AsyncGetCallTrace sets while it runs */
    uint8_t restore_value;
    volatile uintptr_t *restore_words; /* words to put back when the walk faults, or NULL: a
                                        * thread's frame anchor the walker filled in */
    uintptr_t restore_words_value[3];
    int restore_nwords;
};

/* Installs the fault handler over the current SIGSEGV and SIGBUS handlers, once per process.
 * Returns 0 or -errno. Setup context (not in a handler). */
int crashguard_install(void);

/* Fault pcs HotSpot handles itself inside its own code (SafeFetch32/N's load instructions),
 * 0 when unknown. Setup context, before profiling starts. */
void crashguard_set_jvm_faults(uintptr_t pc1, uintptr_t pc2);

/* Where HotSpot's code cache lies: the addresses of its CodeCache::_low_bound and
 * _high_bound statics (read at each fault: the cache grows), NULL when unknown. Setup
 * context, before profiling starts. */
void crashguard_set_code_cache(const uintptr_t *low, const uintptr_t *high);

/* Arms g on the calling thread (after sigsetjmp(g->jb, 0) returned 0). */
void crashguard_enter(struct crashguard *g);

/* Disarms g, the calling thread's innermost guard. */
void crashguard_leave(struct crashguard *g);

/* Faults taken by guards since the process started. Any thread. */
uint64_t crashguard_faults(void);

#endif
