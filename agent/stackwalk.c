/* stackwalk.c: AsyncGetCallTrace, crash-guarded.
 *
 * ASYNC-SIGNAL-SAFE: stackwalk_java_sigsafe and everything it calls run in signal handlers.
 * Every AGCT call and every read of the stack happens inside a crash guard (crashguard.h).
 */
#include "stackwalk.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "crashguard.h"

/* AGCT's ABI (not in any JDK header). */
struct agct_trace {
    JNIEnv *env_id;
    jint num_frames;
    struct sample_frame *frames;
};
typedef void (*agct_fn)(struct agct_trace *, jint, void *);

static agct_fn agct;
static int asgct_flag = -1;
static intptr_t env_offset;
static unsigned fault_every;
/* relaxed: only picks which walks fault on purpose */
static _Atomic unsigned walks;
/* test-only forced faults: an unreadable page, and an AGCT trace AGCT cannot write into */
static void *fault_page;
static struct agct_trace *ro_trace;

int stackwalk_init(void)
{
    if (!agct)
        agct = (agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    return agct ? 0 : -ENOENT;
}

int stackwalk_configure(int flag, intptr_t env_off, unsigned every)
{
    asgct_flag = flag;
    env_offset = env_off;
    if (every && !fault_page) {
        /* two pages: the first unreadable, the second a trace made read-only once filled */
        char *p = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return -errno;
        if (mprotect(p + 4096, 4096, PROT_READ | PROT_WRITE) != 0) {
            int e = errno;
            munmap(p, 8192);
            return -e;
        }
        ro_trace = (struct agct_trace *)(p + 4096);
        /* AGCT only checks env_id against NULL (an assert compares it in debug builds) */
        ro_trace->env_id = (JNIEnv *)(p + 4096);
        if (mprotect(p + 4096, 4096, PROT_READ) != 0) {
            int e = errno;
            munmap(p, 8192);
            return -e;
        }
        fault_page = p;
    }
    fault_every = every;
    return 0;
}

/* Arms the guard to put back the flag AGCT sets on the thread while it runs. */
static void guard_asgct_flag(struct crashguard *g, JNIEnv *env)
{
    if (asgct_flag >= 0 && env_offset > 0) {
        g->restore = (volatile uint8_t *)((uintptr_t)env - (uintptr_t)env_offset +
                                          (uintptr_t)asgct_flag);
        g->restore_value = *g->restore;
    }
}

static int walk(struct crashguard *g, JNIEnv *env, void *uc, struct sample_frame *frames,
                int depth)
{
    guard_asgct_flag(g, env);
    struct agct_trace t = {env, 0, frames};
    agct(&t, depth, uc);
    g->restore = NULL;
    return t.num_frames;
}

/* Faults on purpose (test option _faultevery), alternately inside AGCT after it set its
 * thread flag (a trace it cannot write its result into) and in our own code, so that both
 * ways out of a fault are exercised. Does not return. */
static void forced_fault(struct crashguard *g, JNIEnv *env, unsigned k)
{
    if ((k / fault_every) & 1) {
        guard_asgct_flag(g, env);
        agct(ro_trace, 1, NULL);
    }
    (void)*(volatile const char *)fault_page;
}

#define MAX_FP_STEPS 6

static int walk_retry(struct crashguard *guard, JNIEnv *env, void *uc,
                      struct sample_frame *frames, int depth, uintptr_t stack_lo,
                      uintptr_t stack_hi, int *recovered);

int stackwalk_java_sigsafe(JNIEnv *env, void *uc, struct sample_frame *frames, int depth,
                           uintptr_t stack_lo, uintptr_t stack_hi, int *recovered)
{
    struct crashguard g;
    *recovered = 0;
    if (sigsetjmp(g.jb, 0) != 0)
        return SAMPLE_ERR_WALK_FAULT; /* the guard is left and AGCT's flag restored */
    crashguard_enter(&g);
    if (fault_every) {
        unsigned k = atomic_fetch_add_explicit(&walks, 1, memory_order_relaxed) + 1;
        if (k % fault_every == 0)
            forced_fault(&g, env, k);
    }
    int n = walk_retry(&g, env, uc, frames, depth, stack_lo, stack_hi, recovered);
    crashguard_leave(&g);
    return n;
}

static int walk_retry(struct crashguard *guard, JNIEnv *env, void *uc,
                      struct sample_frame *frames, int depth, uintptr_t stack_lo,
                      uintptr_t stack_hi, int *recovered)
{
    int n = walk(guard, env, uc, frames, depth);
    if ((n != -5 && n != -6) || !stack_lo || !uc)
        return n;
    /* a copy: the interrupted context itself must stay untouched, the thread resumes on it */
    ucontext_t c = *(ucontext_t *)uc;
    greg_t *g = c.uc_mcontext.gregs;
    uintptr_t sp = (uintptr_t)g[REG_RSP];
    uintptr_t fp = (uintptr_t)g[REG_RBP];
    for (int i = 0; i < MAX_FP_STEPS; i++) {
        /* a frame record [fp] = caller fp, [fp + 8] = return pc, strictly inside the stack and
         * above the current sp; anything else is not a frame pointer (compiled Java code uses
         * rbp as a general register) */
        if (fp < sp || fp > stack_hi - 16 || fp < stack_lo || (fp & 7))
            break;
        uintptr_t caller_fp = *(const uintptr_t *)fp;
        uintptr_t pc = *(const uintptr_t *)(fp + 8);
        g[REG_RIP] = (greg_t)pc;
        g[REG_RSP] = (greg_t)(fp + 16);
        g[REG_RBP] = (greg_t)caller_fp;
        int m = walk(guard, env, &c, frames, depth);
        if (m > 0) {
            *recovered = 1;
            return m;
        }
        if (caller_fp <= fp)
            break;
        sp = fp + 16;
        fp = caller_fp;
    }
    /* a stub that has not built its frame yet (at its entry, or frameless): the return
     * address is on top of the stack. AGCT checks that it lands in Java code. */
    sp = (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RSP];
    if (sp >= stack_lo && sp <= stack_hi - 8 && !(sp & 7)) {
        c = *(ucontext_t *)uc;
        g[REG_RIP] = (greg_t) * (const uintptr_t *)sp;
        g[REG_RSP] = (greg_t)(sp + 8);
        int m = walk(guard, env, &c, frames, depth);
        if (m > 0) {
            *recovered = 1;
            return m;
        }
    }
    return n;
}
