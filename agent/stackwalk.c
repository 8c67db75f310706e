/* stackwalk.c: AsyncGetCallTrace. stackwalk_java_sigsafe is async-signal-safe. */
#include "stackwalk.h"

#include <dlfcn.h>
#include <errno.h>
#include <ucontext.h>

/* AGCT's ABI (not in any JDK header). */
struct agct_trace {
    JNIEnv *env_id;
    jint num_frames;
    struct sample_frame *frames;
};
typedef void (*agct_fn)(struct agct_trace *, jint, void *);

static agct_fn agct;

int stackwalk_init(void)
{
    if (!agct)
        agct = (agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    return agct ? 0 : -ENOENT;
}

#define MAX_FP_STEPS 6

static int walk(JNIEnv *env, void *uc, struct sample_frame *frames, int depth)
{
    struct agct_trace t = {env, 0, frames};
    agct(&t, depth, uc);
    return t.num_frames;
}

int stackwalk_java_sigsafe(JNIEnv *env, void *uc, struct sample_frame *frames, int depth,
                           uintptr_t stack_lo, uintptr_t stack_hi, int *recovered)
{
    *recovered = 0;
    int n = walk(env, uc, frames, depth);
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
        int m = walk(env, &c, frames, depth);
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
        int m = walk(env, &c, frames, depth);
        if (m > 0) {
            *recovered = 1;
            return m;
        }
    }
    return n;
}
