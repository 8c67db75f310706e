/* handler.c: the CPU-sample signal handler.
 *
 * ASYNC-SIGNAL-SAFE: everything reachable from cpu_signal runs in a signal handler on an
 * arbitrary thread. No malloc, no locks, no stdio, no JVMTI/JNI except AsyncGetCallTrace, no
 * lazily allocated TLS. Memory it touches (scratch buffers, ring) is preallocated by
 * handler_init / ring_init.
 */
#include "handler.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "envtable.h"
#include "fpl_format.h"
#include "sample.h"
#include "stackwalk.h"
#include "tls.h"
#include "tsc.h"

/* Scratch buffers AGCT writes into before the exact-size copy into the ring. More than one,
 * because handlers on different threads run at once; a handler that finds all busy records a
 * marker sample instead of waiting. */
#define SCRATCH_COUNT 16

static struct ring *ring;
static unsigned depth;
static struct sample_frame *scratch;     /* SCRATCH_COUNT x depth */
static size_t scratch_bytes;
static atomic_int scratch_busy[SCRATCH_COUNT];

/* active and inflight form a Dekker pair with handler_deactivate: seq_cst on both sides
 * guarantees that a handler that saw active == 1 is counted in inflight before
 * handler_deactivate reads inflight == 0. */
static atomic_int active;
static atomic_int inflight;

static int installed;
static pid_t own_pid;
static int wall_signo = -1;
/* itimer weighting: the interval, and the process CPU time at the previous signal (exchanged,
 * so concurrent handlers split the elapsed time between them; relaxed: a statistic) */
static _Atomic uint64_t itimer_period;
static _Atomic uint64_t itimer_cpu;

void handler_set_itimer_period(uint64_t ns)
{
    atomic_store_explicit(&itimer_cpu, 0, memory_order_relaxed);
    atomic_store_explicit(&itimer_period, ns, memory_order_relaxed);
}
/* to tell "in native" from "running" on the sampled thread itself: its JavaThread is its
 * JNIEnv minus env_offset, and JavaThread::_thread_state sits at state_offset (0: unknown) */
static intptr_t env_offset;
static intptr_t state_offset;

void handler_set_native_probe(intptr_t env_off, intptr_t state_off)
{
    env_offset = env_off;
    state_offset = state_off;
}

/* perf event fds that are ours (perf engine): set by handler_own_fd before an event is armed
 * (release), read by handlers (acquire). */
#define MAX_PERF_FD 16384
static _Atomic uint64_t perf_fds[MAX_PERF_FD / 64];
/* CPU ns each event had counted at its previous signal: a sample weighs the periods elapsed
 * since, so signals the kernel folded or delayed still count. Only the thread that owns an
 * event handles its signals, one at a time (the event is re-armed at the end). */
static uint64_t perf_last[MAX_PERF_FD];
static uint64_t perf_period;

void handler_set_perf_period(uint64_t ns)
{
    perf_period = ns;
}

void handler_own_fd(int fd, int on)
{
    if (fd < 0 || fd >= MAX_PERF_FD)
        return;
    uint64_t bit = 1ull << (fd % 64);
    perf_last[fd] = 0;
    if (on)
        atomic_fetch_or_explicit(&perf_fds[fd / 64], bit, memory_order_release);
    else
        atomic_fetch_and_explicit(&perf_fds[fd / 64], ~bit, memory_order_release);
}

static int perf_fd_owned(int fd)
{
    if (fd < 0 || fd >= MAX_PERF_FD)
        return 0;
    return (atomic_load_explicit(&perf_fds[fd / 64], memory_order_acquire) >> (fd % 64)) & 1;
}

int handler_init(struct ring *r, unsigned d)
{
    size_t bytes = (size_t)SCRATCH_COUNT * d * sizeof(struct sample_frame);
    if (!scratch || d != depth) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return -errno;
        if (scratch)
            munmap(scratch, scratch_bytes);
        scratch = p;
        scratch_bytes = bytes;
        depth = d;
    }
    ring = r;
    return 0;
}

static int grab_scratch(int tid)
{
    for (int i = 0; i < SCRATCH_COUNT; i++) {
        int k = (tid + i) % SCRATCH_COUNT;
        /* acquire: the previous owner's writes to this buffer happen before ours */
        if (!atomic_exchange_explicit(&scratch_busy[k], 1, memory_order_acquire))
            return k;
    }
    return -1;
}

/* Copies one sample into the ring; counts a drop when it is full. */
static void push(const struct sample_rec *h, int n, const struct sample_frame *f)
{
    uint32_t nf = n > 0 ? (uint32_t)n : 0;
    uint32_t len = (uint32_t)(sizeof(struct sample_rec) + nf * sizeof(struct sample_frame));
    struct sample_rec *s = ring_reserve(ring, len);
    if (!s)
        return; /* counted by the ring */
    *s = *h;
    s->num_frames = n;
    if (nf)
        memcpy(s->frames, f, nf * sizeof(struct sample_frame));
    ring_commit(ring, s);
    counters_add_sigsafe(FPL_CTR_SAMPLES, 1);
}

/* Walks the interrupted thread's Java stack and pushes the sample described by h. */
static void take_sample(struct sample_rec *h, void *uc)
{
    int tid = tls_tid_sigsafe();
    JNIEnv *env = tls_env_sigsafe();
    h->tid = tid;
    h->slot1 = tls_slot();
    if (!env) {
        /* a thread that was running before the attach: no ThreadStart set its TLS */
        uint32_t slot1 = 0;
        env = envtable_get_sigsafe(tid, &slot1);
        h->slot1 = slot1;
    }
    if (!env) {
        counters_add_sigsafe(FPL_CTR_NO_ENV, 1);
        push(h, SAMPLE_ERR_NO_ENV, NULL);
        return;
    }
    int k = grab_scratch(tid);
    if (k < 0) {
        push(h, SAMPLE_ERR_NO_SCRATCH, NULL);
        return;
    }
    if (h->kind == FPL_KIND_WALL && h->state == FPL_STATE_RUNNING && state_offset) {
        /* our own thread's state word: it is alive while we run on it. HotSpot's
         * _thread_in_native (4) and _thread_in_native_trans (5) */
        int js = *(const volatile int *)((const char *)env - env_offset + state_offset);
        if (js == 4 || js == 5)
            h->state = FPL_STATE_NATIVE;
    }
    struct sample_frame *f = scratch + (size_t)k * depth;
    int recovered = 0;
    int n = stackwalk_java_sigsafe(env, uc, f, (int)depth, &recovered);
    if (recovered)
        counters_add_sigsafe(FPL_CTR_AGCT_RECOVERED, 1);
    if (n == SAMPLE_ERR_WALK_FAULT)
        counters_add_sigsafe(FPL_CTR_WALK_FAULTS, 1);
    if (n == -3 && h->kind == FPL_KIND_WALL) {
        /* unknown_not_Java on a thread we signalled because it is RUNNABLE: not in Java code
         * and no Java frame anchor, i.e. a JVM service thread (Notification Thread) waiting
         * inside the VM. Not a failed walk: there is no Java stack to walk */
        n = SAMPLE_ERR_NO_JAVA_FRAMES;
    }
    if (n <= 0 && n > -FPL_AGCT_CODES)
        counters_add_sigsafe(FPL_CTR_AGCT_BASE + (unsigned)-n, 1);
    push(h, n, f);
    /* release: our reads of the buffer happen before the next owner's writes */
    atomic_store_explicit(&scratch_busy[k], 0, memory_order_release);
}

static void cpu_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    int saved_errno = errno;
    if (!atomic_load_explicit(&active, memory_order_seq_cst))
        goto out;
    atomic_fetch_add_explicit(&inflight, 1, memory_order_seq_cst);
    if (!atomic_load_explicit(&active, memory_order_seq_cst))
        goto leave;

    uint64_t t0 = tsc_read_sigsafe();
    uint32_t weight = 1;
    if (si->si_code == SI_TIMER) {
        if (si->si_value.sival_int != HANDLER_COOKIE)
            goto leave; /* someone else's timer */
        if (si->si_overrun > 0) {
            weight += (uint32_t)si->si_overrun;
            counters_add_sigsafe(FPL_CTR_OVERRUNS, (uint64_t)si->si_overrun);
        }
    } else if (si->si_code == POLL_IN || si->si_code == POLL_HUP) {
        int fd = si->si_fd;
        if (!perf_fd_owned(fd))
            goto leave;
        uint64_t count;
        if (perf_period && read(fd, &count, sizeof(count)) == sizeof(count)) {
            uint64_t periods = (count - perf_last[fd] + perf_period / 2) / perf_period;
            perf_last[fd] = count;
            if (periods > 1) {
                weight = (uint32_t)periods;
                counters_add_sigsafe(FPL_CTR_OVERRUNS, periods - 1);
            }
        }
        /* perf engine: the event disabled itself after one overflow; re-arm it */
        ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
    } else if (si->si_code == SI_KERNEL) {
        /* itimer: the kernel sends at most one ITIMER_PROF signal per tick whatever the
         * interval, so weigh each by the process CPU time elapsed since the previous one */
        uint64_t period = atomic_load_explicit(&itimer_period, memory_order_relaxed);
        struct timespec ts;
        if (period && clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0) {
            uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
            uint64_t prev = atomic_exchange_explicit(&itimer_cpu, now, memory_order_relaxed);
            uint64_t periods = prev && now > prev ? (now - prev + period / 2) / period : 1;
            if (periods > 1) {
                weight = (uint32_t)(periods < UINT32_MAX ? periods : UINT32_MAX);
                counters_add_sigsafe(FPL_CTR_OVERRUNS, periods - 1);
            }
        }
    } else {
        goto leave; /* sent by a process (kill/tgkill): not a profiling tick */
    }
    counters_add_sigsafe(FPL_CTR_SIGNALS, 1);
    struct sample_rec h = {.ticks = t0, .weight = weight, .kind = FPL_KIND_CPU,
                           .state = FPL_STATE_RUNNING};
    take_sample(&h, uc);
    counters_handler_time_sigsafe(tsc_ticks_to_ns_sigsafe(tsc_read_sigsafe() - t0));
leave:
    atomic_fetch_sub_explicit(&inflight, 1, memory_order_seq_cst);
out:
    errno = saved_errno;
}

/* The wall-clock signal, sent by the sampler with rt_tgsigqueueinfo: si_value carries the
 * cookie, the thread state the sampler read and the tick id (handler_wall_value). */
static void wall_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    int saved_errno = errno;
    if (!atomic_load_explicit(&active, memory_order_seq_cst))
        goto out;
    atomic_fetch_add_explicit(&inflight, 1, memory_order_seq_cst);
    if (!atomic_load_explicit(&active, memory_order_seq_cst))
        goto leave;
    uint64_t v = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
    if (si->si_code != SI_QUEUE || si->si_pid != own_pid || (v & 0xffff) != HANDLER_WALL_COOKIE)
        goto leave; /* not our sampler's */
    uint64_t t0 = tsc_read_sigsafe();
    counters_add_sigsafe(FPL_CTR_WALL_SIGNALS, 1);
    struct sample_rec h = {.ticks = t0, .weight = 1, .kind = FPL_KIND_WALL,
                           .state = (uint8_t)((v >> 16) & 0xff), .tick = (uint32_t)(v >> 32)};
    take_sample(&h, uc);
    counters_handler_time_sigsafe(tsc_ticks_to_ns_sigsafe(tsc_read_sigsafe() - t0));
leave:
    atomic_fetch_sub_explicit(&inflight, 1, memory_order_seq_cst);
out:
    errno = saved_errno;
}

static int install(int signo, void (*fn)(int, siginfo_t *, void *))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = fn;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(signo, &sa, NULL) == 0 ? 0 : -errno;
}

/* The first real-time signal in SIGRTMIN+5 .. SIGRTMIN+12 nobody has a handler for. */
static int pick_wall_signo(void)
{
    for (int sig = SIGRTMIN + 5; sig <= SIGRTMIN + 12 && sig <= SIGRTMAX; sig++) {
        struct sigaction old;
        if (sigaction(sig, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) &&
            old.sa_handler == SIG_DFL)
            return sig;
    }
    return -1;
}

int handler_install(void)
{
    if (installed)
        return 0;
    own_pid = getpid();
    int rc = install(SIGPROF, cpu_signal);
    if (rc == 0) {
        wall_signo = pick_wall_signo();
        rc = wall_signo > 0 ? install(wall_signo, wall_signal) : -EBUSY;
    }
    if (rc == 0)
        installed = 1;
    return rc;
}

int handler_wall_signo(void)
{
    return wall_signo;
}

uint64_t handler_wall_value(int state, uint32_t tick)
{
    return (uint64_t)HANDLER_WALL_COOKIE | (uint64_t)(state & 0xff) << 16 |
           (uint64_t)tick << 32;
}

void handler_activate(void)
{
    atomic_store_explicit(&active, 1, memory_order_seq_cst);
}

void handler_deactivate(void)
{
    atomic_store_explicit(&active, 0, memory_order_seq_cst);
    while (atomic_load_explicit(&inflight, memory_order_seq_cst) != 0)
        usleep(100);
}

int handler_active(void)
{
    return atomic_load_explicit(&active, memory_order_relaxed);
}
