/* tls.c: thread-local state for signal handlers.
 * ASYNC-SIGNAL-SAFE: tls_env_sigsafe and tls_tid_sigsafe run in signal handlers. */
#include "tls.h"

#include <sys/syscall.h>
#include <unistd.h>

static __thread JNIEnv *env __attribute__((tls_model("initial-exec")));
static __thread int tid __attribute__((tls_model("initial-exec")));
static __thread uint32_t slot1 __attribute__((tls_model("initial-exec")));

static __thread uintptr_t stack_lo __attribute__((tls_model("initial-exec")));
static __thread uintptr_t stack_hi __attribute__((tls_model("initial-exec")));

uintptr_t tls_stack_lo(void)
{
    return stack_lo;
}

uintptr_t tls_stack_hi(void)
{
    return stack_hi;
}

void tls_set_stack(uintptr_t lo, uintptr_t hi)
{
    stack_lo = lo;
    stack_hi = hi;
}

uint32_t tls_slot(void)
{
    return slot1;
}

void tls_set_slot(uint32_t s)
{
    slot1 = s;
}

JNIEnv *tls_env_sigsafe(void)
{
    return env;
}

void tls_set_env(JNIEnv *e)
{
    env = e;
    /* the handler runs on this same thread: a compiler fence is the ordering needed */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

int tls_tid_sigsafe(void)
{
    if (tid == 0)
        tid = (int)syscall(SYS_gettid);
    return tid;
}
