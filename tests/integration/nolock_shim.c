/* nolock_shim.c: an LD_PRELOAD library that proves what signal handlers call.
 *
 * It wraps every handler installed with sigaction for SIGPROF and the real-time signals (the
 * signals flyprof samples with), so that it knows, per thread, when such a handler is running.
 * It interposes the calls a handler must never make -- allocation (malloc, calloc, realloc,
 * free, the aligned allocators, mmap, munmap, mremap), locks (pthread_mutex_lock/trylock,
 * pthread_rwlock_*, pthread_spin_lock, sem_wait, and sigprocmask/pthread_sigmask, which
 * libunwind takes with its locks) and the loader's lock (dl_iterate_phdr, dladdr; not dlsym and
 * dlopen, whose results depend on their caller's object, which a wrapper would change) -- and
 * counts those made while a wrapped handler runs on the calling thread, keeping the
 * first few callers' addresses. At exit it writes, to the file named by FLYPROF_NOLOCK_OUT:
 *
 *     handlers N              handler runs seen
 *     call NAME N             forbidden calls made inside handlers, one line per function
 *     caller NAME ADDR LIB    where some of them came from (dladdr, after the fact)
 *
 * Everything the shim does inside a handler is itself async-signal-safe: initial-exec TLS (the
 * shim is preloaded, so its TLS is static), relaxed atomic counters, fixed arrays. The real
 * functions are glibc's __libc_* entry points or looked up in a constructor, never inside a
 * handler. Test code, not part of the agent. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum {
    F_MALLOC, F_CALLOC, F_REALLOC, F_FREE, F_MEMALIGN, F_POSIX_MEMALIGN, F_ALIGNED_ALLOC,
    F_MMAP, F_MUNMAP, F_MREMAP, F_MUTEX_LOCK, F_MUTEX_TRYLOCK, F_RWLOCK_RDLOCK,
    F_RWLOCK_WRLOCK, F_SPIN_LOCK, F_SEM_WAIT, F_SIGPROCMASK, F_PTHREAD_SIGMASK,
    F_DL_ITERATE_PHDR, F_DLADDR, F_COUNT
};

static const char *const names[F_COUNT] = {
    "malloc", "calloc", "realloc", "free", "memalign", "posix_memalign", "aligned_alloc",
    "mmap", "munmap", "mremap", "pthread_mutex_lock", "pthread_mutex_trylock",
    "pthread_rwlock_rdlock", "pthread_rwlock_wrlock", "pthread_spin_lock", "sem_wait",
    "sigprocmask", "pthread_sigmask", "dl_iterate_phdr", "dladdr",
};

#define MAX_CALLERS 64
static _Atomic unsigned long counts[F_COUNT];
static _Atomic unsigned long handler_runs;
static _Atomic unsigned ncallers;
static struct {
    int fn;
    void *addr;
} callers[MAX_CALLERS];

static __thread int in_handler __attribute__((tls_model("initial-exec")));

/* the original handlers, per signal */
static void (*orig_action[_NSIG])(int, siginfo_t *, void *);
static void (*orig_handler[_NSIG])(int);
static int wrapped_siginfo[_NSIG];

static void note(int fn, void *caller)
{
    if (!in_handler)
        return;
    atomic_fetch_add_explicit(&counts[fn], 1, memory_order_relaxed);
    unsigned i = atomic_fetch_add_explicit(&ncallers, 1, memory_order_relaxed);
    if (i < MAX_CALLERS) {
        callers[i].fn = fn;
        callers[i].addr = caller;
    }
}

#define NOTE(fn) note(fn, __builtin_return_address(0))

static void wrapper(int sig, siginfo_t *si, void *uc)
{
    in_handler++;
    atomic_fetch_add_explicit(&handler_runs, 1, memory_order_relaxed);
    if (wrapped_siginfo[sig] && orig_action[sig])
        orig_action[sig](sig, si, uc);
    else if (!wrapped_siginfo[sig] && orig_handler[sig])
        orig_handler[sig](sig);
    in_handler--;
}

static int watched(int sig)
{
    return sig == SIGPROF || (sig >= SIGRTMIN && sig <= SIGRTMAX);
}

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

/* Reports the handler the caller installed in old, where the kernel has our wrapper. */
static void unwrap(int sig, int rc, struct sigaction *old)
{
    if (rc != 0 || !old || !(old->sa_flags & SA_SIGINFO) || old->sa_sigaction != wrapper)
        return;
    if (wrapped_siginfo[sig]) {
        old->sa_sigaction = orig_action[sig];
    } else {
        old->sa_handler = orig_handler[sig];
        old->sa_flags &= ~SA_SIGINFO;
    }
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (!real_sigaction)
        *(void **)&real_sigaction = dlsym(RTLD_NEXT, "sigaction");
    if (sig <= 0 || sig >= _NSIG || !watched(sig))
        return real_sigaction(sig, act, old);
    if (!act) {
        /* a query: report the caller's own handler, not our wrapper (the agent checks that
         * its handlers are still installed) */
        int rc = real_sigaction(sig, NULL, old);
        unwrap(sig, rc, old);
        return rc;
    }
    struct sigaction a = *act;
    int custom = (act->sa_flags & SA_SIGINFO) ||
                 (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN);
    if (custom) {
        wrapped_siginfo[sig] = (act->sa_flags & SA_SIGINFO) != 0;
        if (wrapped_siginfo[sig])
            orig_action[sig] = act->sa_sigaction;
        else
            orig_handler[sig] = act->sa_handler;
        a.sa_sigaction = wrapper;
        a.sa_flags |= SA_SIGINFO;
    }
    int rc = real_sigaction(sig, &a, old);
    unwrap(sig, rc, old);
    return rc;
}

/* glibc's own allocator entry points: no dlsym needed, no recursion */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

void *malloc(size_t n)
{
    NOTE(F_MALLOC);
    return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    NOTE(F_CALLOC);
    return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    NOTE(F_REALLOC);
    return __libc_realloc(p, n);
}

void free(void *p)
{
    NOTE(F_FREE);
    __libc_free(p);
}

void *memalign(size_t al, size_t n)
{
    NOTE(F_MEMALIGN);
    return __libc_memalign(al, n);
}

void *aligned_alloc(size_t al, size_t n)
{
    NOTE(F_ALIGNED_ALLOC);
    return __libc_memalign(al, n);
}

int posix_memalign(void **out, size_t al, size_t n)
{
    NOTE(F_POSIX_MEMALIGN);
    if (al % sizeof(void *) || (al & (al - 1)))
        return 22; /* EINVAL */
    void *p = __libc_memalign(al, n);
    if (!p)
        return 12; /* ENOMEM */
    *out = p;
    return 0;
}

static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static void *(*real_mremap)(void *, size_t, size_t, int, ...);
static int (*real_mutex_lock)(pthread_mutex_t *);
static int (*real_mutex_trylock)(pthread_mutex_t *);
static int (*real_rd)(pthread_rwlock_t *);
static int (*real_wr)(pthread_rwlock_t *);
static int (*real_spin)(pthread_spinlock_t *);
static int (*real_sem_wait)(sem_t *);
static int (*real_sigprocmask)(int, const sigset_t *, sigset_t *);
static int (*real_pthread_sigmask)(int, const sigset_t *, sigset_t *);
static int (*real_dl_iterate_phdr)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
static int (*real_dladdr)(const void *, Dl_info *);

#define REAL(v, name) (*(void **)&(v) = dlvsym(RTLD_NEXT, name, "GLIBC_2.2.5"), \
                       (v) ? 0 : (*(void **)&(v) = dlsym(RTLD_NEXT, name), 0))

__attribute__((constructor)) static void init(void)
{
    REAL(real_mmap, "mmap");
    REAL(real_munmap, "munmap");
    REAL(real_mremap, "mremap");
    REAL(real_mutex_lock, "pthread_mutex_lock");
    REAL(real_mutex_trylock, "pthread_mutex_trylock");
    REAL(real_rd, "pthread_rwlock_rdlock");
    REAL(real_wr, "pthread_rwlock_wrlock");
    REAL(real_spin, "pthread_spin_lock");
    REAL(real_sem_wait, "sem_wait");
    REAL(real_sigprocmask, "sigprocmask");
    REAL(real_pthread_sigmask, "pthread_sigmask");
    REAL(real_dl_iterate_phdr, "dl_iterate_phdr");
    REAL(real_dladdr, "dladdr");
    if (!real_sigaction)
        *(void **)&real_sigaction = dlsym(RTLD_NEXT, "sigaction");
}

void *mmap(void *a, size_t n, int prot, int flags, int fd, off_t off)
{
    NOTE(F_MMAP);
    return real_mmap(a, n, prot, flags, fd, off);
}

int munmap(void *a, size_t n)
{
    NOTE(F_MUNMAP);
    return real_munmap(a, n);
}

void *mremap(void *a, size_t n, size_t m, int flags, ...)
{
    NOTE(F_MREMAP);
    void *to = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        to = va_arg(ap, void *);
        va_end(ap);
    }
    return real_mremap(a, n, m, flags, to);
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
    NOTE(F_MUTEX_LOCK);
    return real_mutex_lock(m);
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
    NOTE(F_MUTEX_TRYLOCK);
    return real_mutex_trylock(m);
}

int pthread_rwlock_rdlock(pthread_rwlock_t *l)
{
    NOTE(F_RWLOCK_RDLOCK);
    return real_rd(l);
}

int pthread_rwlock_wrlock(pthread_rwlock_t *l)
{
    NOTE(F_RWLOCK_WRLOCK);
    return real_wr(l);
}

int pthread_spin_lock(pthread_spinlock_t *l)
{
    NOTE(F_SPIN_LOCK);
    return real_spin(l);
}

int sem_wait(sem_t *s)
{
    NOTE(F_SEM_WAIT);
    return real_sem_wait(s);
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    NOTE(F_SIGPROCMASK);
    return real_sigprocmask(how, set, old);
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    NOTE(F_PTHREAD_SIGMASK);
    return real_pthread_sigmask(how, set, old);
}

int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *arg)
{
    NOTE(F_DL_ITERATE_PHDR);
    return real_dl_iterate_phdr(cb, arg);
}

int dladdr(const void *a, Dl_info *info)
{
    NOTE(F_DLADDR);
    return real_dladdr(a, info);
}

__attribute__((destructor)) static void report(void)
{
    const char *out = getenv("FLYPROF_NOLOCK_OUT");
    if (!out)
        return;
    FILE *f = fopen(out, "w");
    if (!f)
        return;
    fprintf(f, "handlers %lu\n", atomic_load(&handler_runs));
    for (int i = 0; i < F_COUNT; i++)
        if (atomic_load(&counts[i]))
            fprintf(f, "call %s %lu\n", names[i], atomic_load(&counts[i]));
    unsigned n = atomic_load(&ncallers);
    for (unsigned i = 0; i < n && i < MAX_CALLERS; i++) {
        Dl_info info;
        const char *lib = "?";
        if (real_dladdr && real_dladdr(callers[i].addr, &info) && info.dli_fname)
            lib = info.dli_fname;
        fprintf(f, "caller %s %p %s\n", names[callers[i].fn], callers[i].addr, lib);
    }
    fclose(f);
}
