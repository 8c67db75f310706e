/* crashguard.c: ends a stack walk that faults; hands every other fault to the handler that
 * was installed before (see crashguard.h).
 *
 * ASYNC-SIGNAL-SAFE: on_fault runs as the SIGSEGV/SIGBUS handler on any thread; it uses only
 * sigaction, sigprocmask, siglongjmp and raw system calls. crashguard_enter/leave run in the
 * profiling signal handlers. The guard pointer lives in initial-exec TLS (static, never
 * allocated lazily), so it is safe on threads created before the library was loaded.
 */
#include "crashguard.h"

#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>


static __thread struct crashguard *current __attribute__((tls_model("initial-exec")));

/* the handlers that were installed before ours: [0] SIGSEGV, [1] SIGBUS; written once by
 * crashguard_install before our handler is installed (the sigaction call orders them) */
static struct sigaction prev[2];
static int installed;
static uintptr_t jvm_fault_pc[2];
/* &CodeCache::_low_bound, &CodeCache::_high_bound (HotSpot's statics), or NULL */
static const volatile uintptr_t *code_lo, *code_hi;
/* relaxed: a statistic */
static _Atomic uint64_t faults;

/* The code our guarded walks run: the module holding this file (libflyprof, or a test
 * program), libjvm (AsyncGetCallTrace, VMStructs reads) and libunwind (the native walk's
 * register rules, the unwind tables' build): their executable segments, found once at
 * crashguard_install. A fault elsewhere while a guard is armed is not the walk's: a signal
 * handler of another library (a second profiler's SIGPROF walker) interrupted the walk and
 * faulted in its own code; its own fault handler, which we chain to, must get it. */
#define MAX_WALKED 32
static struct {
    uintptr_t lo, hi;
} walked[MAX_WALKED];
static int nwalked;

void crashguard_set_jvm_faults(uintptr_t pc1, uintptr_t pc2)
{
    jvm_fault_pc[0] = pc1;
    jvm_fault_pc[1] = pc2;
}

void crashguard_set_code_cache(const uintptr_t *low, const uintptr_t *high)
{
    code_lo = low;
    code_hi = high;
}

void crashguard_enter(struct crashguard *g)
{
    g->prev = current;
    g->restore = NULL;
    g->restore_words = NULL;
    current = g;
    /* the fault handler runs on this thread: a compiler fence orders the store before the
     * walk's reads */
    atomic_signal_fence(memory_order_seq_cst);
}

void crashguard_leave(struct crashguard *g)
{
    atomic_signal_fence(memory_order_seq_cst);
    current = g->prev;
}

uint64_t crashguard_faults(void)
{
    return atomic_load_explicit(&faults, memory_order_relaxed);
}

/* Passes the signal on as the kernel would have delivered it to the previous disposition. */
static void chain(int sig, siginfo_t *si, void *uc)
{
    const struct sigaction *p = &prev[sig == SIGBUS];
    if (p->sa_flags & SA_SIGINFO) {
        p->sa_sigaction(sig, si, uc);
        return;
    }
    if (p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
        p->sa_handler(sig);
        return;
    }
    if (p->sa_handler == SIG_IGN && si->si_code <= 0)
        return; /* sent, and ignored before us */
    /* the default action (a fault cannot be ignored: the kernel forces the default): restore
     * it, then let the fault happen again on return, or re-send a sent signal, which stays
     * pending until this handler returns */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    if (si->si_code <= 0)
        syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

/* Whether a fault at pc belongs to HotSpot even while a walk is armed. */
static int jvm_expects(uintptr_t pc)
{
    if (pc && (pc == jvm_fault_pc[0] || pc == jvm_fault_pc[1]))
        return 1;
    return code_lo && code_hi && pc >= *code_lo && pc < *code_hi;
}

/* Whether pc is in code a guarded walk runs (see walked); 1 when the ranges are unknown. */
static int in_walked_code(uintptr_t pc)
{
    if (!nwalked)
        return 1;
    for (int i = 0; i < nwalked; i++)
        if (pc >= walked[i].lo && pc < walked[i].hi)
            return 1;
    return 0;
}

/* Whether an object's file name is libjvm's or libunwind's (any version, any flavor). */
static int walked_name(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "libjvm.", 7) == 0 || strncmp(base, "libunwind", 9) == 0;
}

/* dl_iterate_phdr callback: records the executable segments of the objects a walk runs. */
static int add_walked(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t self = (uintptr_t)data;
    int want = info->dlpi_name && walked_name(info->dlpi_name);
    for (int i = 0; !want && i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        want = ph->p_type == PT_LOAD && self >= lo && self < lo + ph->p_memsz;
    }
    for (int i = 0; want && i < info->dlpi_phnum && nwalked < MAX_WALKED; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        walked[nwalked].lo = info->dlpi_addr + ph->p_vaddr;
        walked[nwalked].hi = walked[nwalked].lo + ph->p_memsz;
        nwalked++;
    }
    return 0;
}

static void on_fault(int sig, siginfo_t *si, void *ucv)
{
    struct crashguard *g = current;
    ucontext_t *uc = ucv;
    uintptr_t pc = uc ? (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] : 0;
    /* si_code > 0: raised by the kernel for this instruction, not sent by a process */
    if (g && si && uc && si->si_code > 0 && !jvm_expects(pc) && in_walked_code(pc)) {
        current = g->prev;
        if (g->restore)
            *g->restore = g->restore_value;
        for (int i = 0; g->restore_words && i < g->restore_nwords; i++)
            g->restore_words[i] = g->restore_words_value[i];
        atomic_fetch_add_explicit(&faults, 1, memory_order_relaxed);
        /* back to the mask the walk ran with (the kernel added this signal and our sa_mask);
         * the jump buffer saved none, so arming a guard costs no system call */
        sigprocmask(SIG_SETMASK, &uc->uc_sigmask, NULL);
        siglongjmp(g->jb, 1);
    }
    chain(sig, si, ucv);
}

/* Installs on_fault for sig with the previous handler's mask and flags, so that the previous
 * handler, called from ours, runs with the signal state it was installed for. */
static int install(int sig, struct sigaction *old)
{
    if (sigaction(sig, NULL, old) != 0)
        return -errno;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fault;
    sa.sa_mask = old->sa_mask;
    sa.sa_flags = (old->sa_flags & ~SA_RESETHAND) | SA_SIGINFO;
    if (!(old->sa_flags & SA_SIGINFO) && (old->sa_handler == SIG_DFL ||
                                          old->sa_handler == SIG_IGN))
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
    return sigaction(sig, &sa, NULL) == 0 ? 0 : -errno;
}

int crashguard_install(void)
{
    if (installed)
        return 0;
    /* before the handler exists: on_fault reads the table without synchronization */
    nwalked = 0;
    dl_iterate_phdr(add_walked, (void *)(uintptr_t)&on_fault);
    int rc = install(SIGSEGV, &prev[0]);
    if (rc == 0) {
        rc = install(SIGBUS, &prev[1]);
        if (rc != 0)
            sigaction(SIGSEGV, &prev[0], NULL);
    }
    if (rc == 0)
        installed = 1;
    return rc;
}
