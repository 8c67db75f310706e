/* signals.c: installing, checking and removing flyprof's signal handlers, and chaining what
 * is not ours (signals.h). Only signals_chain_sigsafe runs in a signal handler; everything
 * else is control context. */
#include "signals.h"

#include <errno.h>
#include <string.h>

#include "counters.h"
#include "fpl_format.h"

/* One signal flyprof handles: which, our handler, and the disposition it had before ours
 * (restored at signals_uninstall, and what a signal that is not ours is passed on to). prev
 * is written before our handler is installed and never while it is: a handler reads it
 * without synchronization (the sigaction system call orders the two). */
struct hsig {
    int signo;                              /* 0: not installed */
    signals_fn fn;                          /* our handler, while installed or kept */
    struct sigaction prev;
    int lost;                               /* our handler was found replaced */
    int kept;       /* left installed, inert, at the last uninstall: its sender had not ended */
};
static struct hsig cpu_hs, wall_hs;

void signals_chain_sigsafe(unsigned which, int sig, siginfo_t *si, void *uc)
{
    const struct hsig *hs = which == SIGNALS_WALL ? &wall_hs : &cpu_hs;
    if (hs->prev.sa_flags & SA_SIGINFO) {
        if (hs->prev.sa_sigaction)
            hs->prev.sa_sigaction(sig, si, uc);
    } else if (hs->prev.sa_handler != SIG_DFL && hs->prev.sa_handler != SIG_IGN) {
        hs->prev.sa_handler(sig);
    }
}

/* Whether a disposition leaves a signal to us: nobody handles it. SIG_IGN counts as free for
 * SIGPROF only (a launcher may ignore it); a real-time signal set to SIG_IGN may be someone's
 * sigwaitinfo channel. */
static int is_free(int signo, const struct sigaction *sa)
{
    if (sa->sa_flags & SA_SIGINFO)
        return 0;
    return sa->sa_handler == SIG_DFL || (signo == SIGPROF && sa->sa_handler == SIG_IGN);
}

static int same_action(const struct sigaction *a, const struct sigaction *b)
{
    if ((a->sa_flags & SA_SIGINFO) != (b->sa_flags & SA_SIGINFO))
        return 0;
    return (a->sa_flags & SA_SIGINFO) ? a->sa_sigaction == b->sa_sigaction
                                      : a->sa_handler == b->sa_handler;
}

static int is_ours(const struct hsig *hs, const struct sigaction *sa)
{
    return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == hs->fn;
}

/* Whether signo is free for us: nobody's handler on it and not taken by us already. */
static int usable(int signo)
{
    struct sigaction old;
    if (signo == cpu_hs.signo || signo == wall_hs.signo)
        return 0;
    return sigaction(signo, NULL, &old) == 0 && is_free(signo, &old);
}

/* The first real-time signal in SIGRTMIN+5 .. SIGRTMIN+12 nobody has a handler for (on JDK 17
 * SIGRTMAX-2 looked free but our handler never ran). Real-time signals queue: a thread waiting
 * for a CPU does not lose a tick's signal by merging it with the next. */
static int pick_rt_signo(int not)
{
    for (int sig = SIGRTMIN + 5; sig <= SIGRTMIN + 12 && sig <= SIGRTMAX; sig++)
        if (sig != not && usable(sig))
            return sig;
    return -EBUSY;
}

/* Installs fn as hs's handler on signo, blocking `block` (the other profiling signal, 0:
 * none) while it runs. Never replaces someone else's handler: when one appeared between the
 * check and the install, it is put back and -EBUSY returned. */
static int install_one(struct hsig *hs, signals_fn fn, int signo, int block)
{
    struct sigaction sa, seen;
    if (sigaction(signo, NULL, &hs->prev) != 0)
        return -errno;
    if (!is_free(signo, &hs->prev))
        return -EBUSY;
    hs->fn = fn;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (block > 0)
        sigaddset(&sa.sa_mask, block);
    if (sigaction(signo, &sa, &seen) != 0)
        return -errno;
    if (!same_action(&seen, &hs->prev)) {
        sigaction(signo, &seen, NULL);
        return -EBUSY;
    }
    hs->signo = signo;
    hs->lost = 0;
    return 0;
}

/* Puts back what was on hs's signal before ours, if ours is still there (a handler installed
 * over ours stays). SIG_IGN first: that discards every instance still pending on any thread
 * (a queued wall signal of a thread that blocks signals, a timer signal raised just before
 * its timer was deleted), which the default action would turn into the end of the JVM. */
static void uninstall_one(struct hsig *hs)
{
    hs->kept = 0;
    if (!hs->signo)
        return;
    struct sigaction cur, ign;
    if (sigaction(hs->signo, NULL, &cur) == 0 && is_ours(hs, &cur)) {
        memset(&ign, 0, sizeof(ign));
        ign.sa_handler = SIG_IGN;
        sigemptyset(&ign.sa_mask);
        sigaction(hs->signo, &ign, NULL);
        sigaction(hs->signo, &hs->prev, NULL);
    }
    hs->signo = 0;
}

int signals_install(unsigned flags, signals_fn cpu_fn, signals_fn wall_fn)
{
    if (((flags & SIGNALS_CPU) && !cpu_fn) || ((flags & SIGNALS_WALL) && !wall_fn))
        return -EINVAL;
    /* a handler kept for a sender that has not ended (a wall sampler stuck in a JVM call)
     * stays, unless this session asks for that signal again (it can only once the sender
     * ended: control.c) */
    unsigned keep = signals_kept() & ~flags;
    signals_uninstall(keep);
    int cpu = 0, wall = 0;
    if (flags & SIGNALS_CPU) {
        cpu = usable(SIGPROF) ? SIGPROF : -EBUSY;
        if (cpu < 0 && (flags & SIGNALS_SIGPROF))
            return -EBUSY; /* ITIMER_PROF only ever sends SIGPROF */
        if (cpu < 0)
            cpu = pick_rt_signo(0);
        if (cpu < 0)
            return -EAGAIN;
    }
    if (flags & SIGNALS_WALL) {
        wall = pick_rt_signo(cpu);
        if (wall < 0)
            return -EAGAIN;
    }
    int rc = 0;
    if (cpu > 0)
        rc = install_one(&cpu_hs, cpu_fn, cpu, wall);
    if (rc == 0 && wall > 0)
        rc = install_one(&wall_hs, wall_fn, wall, cpu);
    if (rc != 0)
        signals_uninstall(keep);
    return rc == -EBUSY ? -EAGAIN : rc;
}

void signals_uninstall(unsigned keep)
{
    if (keep & SIGNALS_CPU)
        cpu_hs.kept = cpu_hs.signo != 0;
    else
        uninstall_one(&cpu_hs);
    if (keep & SIGNALS_WALL)
        wall_hs.kept = wall_hs.signo != 0;
    else
        uninstall_one(&wall_hs);
}

unsigned signals_kept(void)
{
    return (cpu_hs.kept ? SIGNALS_CPU : 0) | (wall_hs.kept ? SIGNALS_WALL : 0);
}

unsigned signals_check(void)
{
    unsigned lost = 0;
    struct hsig *all[] = {&cpu_hs, &wall_hs};
    for (unsigned i = 0; i < 2; i++) {
        struct sigaction cur;
        struct hsig *hs = all[i];
        if (!hs->signo || hs->lost || sigaction(hs->signo, NULL, &cur) != 0 || is_ours(hs, &cur))
            continue;
        hs->lost = 1;
        lost |= i == 0 ? SIGNALS_CPU : SIGNALS_WALL;
        counters_add_sigsafe(FPL_CTR_HANDLER_LOST, 1);
    }
    return lost;
}

int signals_cpu_signo(void)
{
    return cpu_hs.signo;
}

int signals_wall_signo(void)
{
    return wall_hs.signo;
}

int signals_signo(unsigned which)
{
    return which & SIGNALS_CPU ? cpu_hs.signo : which & SIGNALS_WALL ? wall_hs.signo : 0;
}
