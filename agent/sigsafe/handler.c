/* handler.c: the sample signal handlers (their installation and chaining: signals.c).
 *
 * ASYNC-SIGNAL-SAFE: everything reachable from handler_cpu_signal and handler_wall_signal
 * runs in a signal handler on an arbitrary thread. No malloc, no locks, no stdio, no JVMTI/JNI
 * except AsyncGetCallTrace, no lazily allocated TLS. Memory it touches (scratch buffers, ring) is preallocated by
 * handler_init / ring_init.
 */
#include "handler.h"

#include <errno.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "context.h"
#include "counters.h"
#include "crashguard.h"
#include "envtable.h"
#include "fpl_format.h"
#include "nativewalk.h"
#include "sample.h"
#include "signals.h"
#include "slots.h"
#include "stackwalk.h"
#include "testhook.h"
#include "tls.h"
#include "tsc.h"

/* Scratch buffers AGCT writes into before the exact-size copy into the ring. More than one,
 * because handlers on different threads run at once; a handler that finds all busy records a
 * marker sample instead of waiting (counted: FPL_CTR_HANDLER_BUSY). As many as
 * handler_scratch_count says for the machine's CPUs: a tick of aligned timers starts a handler
 * on every busy thread at once, and a handler preempted inside its run keeps its buffer while
 * others start. */
static struct ring *ring;
static unsigned depth;                   /* Java frames */
static unsigned buf_frames;              /* frames per scratch buffer: native + Java + marker */
static struct sample_frame *scratch;     /* scratch_count x buf_frames */
static size_t scratch_bytes;
static unsigned scratch_count;           /* written while no handler runs */
static int cstack;                       /* native frames on; written while no handler runs */
static atomic_int *scratch_busy;         /* scratch_count flags, in the same mapping */

/* active and inflight form a Dekker pair with handler_deactivate: seq_cst on both sides
 * guarantees that a handler that saw active == 1 is counted in inflight before
 * handler_deactivate reads inflight == 0. */
static atomic_int active;
static atomic_int inflight;

static pid_t own_pid;

/* 1 while this thread runs one of our handlers: the two signals block each other (sa_mask),
 * so this catches any other way in (a foreign handler that chains to ours while ours runs).
 * Initial-exec TLS: never allocated lazily, safe in a handler on any thread. */
static __thread int in_handler __attribute__((tls_model("initial-exec")));
/* 1 when this thread's last push reached the ring (a wall sample that was dropped must not
 * become the stack the sampler repeats). Initial-exec TLS, as above. */
static __thread int pushed __attribute__((tls_model("initial-exec")));

/* Per registry slot, shared by the wall-clock sampler and the wall handler (see handler.h):
 * - wall_pending: the tick id of the wall signal sent to the thread and not taken yet (0:
 *   none). Set by the sampler before it sends (the only writer of non-zero values), cleared by
 *   the handler when the signal arrives (release; the sampler loads with acquire).
 * - wall_base: the thread's CPU time (ns) when its last wall stack was taken, 0: none. Stored
 *   with release after that sample is in the ring, by the handler or by the sampler; the
 *   sampler loads it with acquire, so a repeat it pushes comes after that sample in the ring. */
static _Atomic uint32_t wall_pending[THREADS_MAX];
static _Atomic uint64_t wall_base[THREADS_MAX];
/* - wall_missed: ticks that chose the thread while its signal was still pending (added by the
 *   sampler, taken by the handler with an exchange): the sample that signal brings weighs
 *   1 + wall_missed, as a timer signal weighs 1 + overruns. Relaxed: a count. */
static _Atomic uint32_t wall_missed[THREADS_MAX];
/* itimer weighting: the interval, and the process CPU time up to which periods have been
 * handed out as weights (advanced by CAS, so concurrent handlers split the elapsed time
 * between them and what one handler rounds off, the next one gets; relaxed: nothing else is
 * published through it) */
static _Atomic uint64_t itimer_period;
static _Atomic uint64_t itimer_cpu;

static uint64_t process_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* CLOCK_MONOTONIC in ns, for the bounded waits of the control side (not a handler). */
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread's CPU time, ns (0 when unknown). */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void handler_set_itimer_period(uint64_t ns)
{
    atomic_store_explicit(&itimer_cpu, ns ? process_cpu_ns() : 0, memory_order_relaxed);
    atomic_store_explicit(&itimer_period, ns, memory_order_relaxed);
}

/* The weight of one ITIMER_PROF signal: the process CPU time elapsed since the time already
 * handed out, in periods, rounded to the nearest; the rounding error stays in itimer_cpu, so
 * the weights add up to the process CPU time however the kernel spaces its signals (it sends
 * at most one per tick: 4 ms of one CPU at HZ=250 against a 5 ms period came out as 1 period
 * each, 25% too much, when every signal rounded on its own). At least 1: a signal is a
 * sample; a weight given early is taken back from the next one. */
static uint32_t itimer_weight(uint64_t period)
{
    uint64_t now = process_cpu_ns();
    uint64_t base = atomic_load_explicit(&itimer_cpu, memory_order_relaxed);
    uint64_t periods;
    do {
        periods = now > base ? (now - base + period / 2) / period : 0;
        if (periods == 0)
            periods = 1;
        if (periods > UINT32_MAX)
            periods = UINT32_MAX;
    } while (!atomic_compare_exchange_weak_explicit(&itimer_cpu, &base, base + periods * period,
                                                    memory_order_relaxed,
                                                    memory_order_relaxed));
    return (uint32_t)periods;
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

/* 1 when the calling thread is a Java thread in native code (its JVM state word says
 * _thread_in_native or _thread_in_native_trans), 0 when not or unknown. */
static int in_native(void)
{
    JNIEnv *env = tls_env_sigsafe();
    if (!env || !state_offset)
        return 0;
    int js = *(const volatile int *)((const char *)env - env_offset + state_offset);
    return js == 4 || js == 5;
}

/* perf event fds that are ours (perf engine), indexed by fd, for every fd the process can
 * ever have: sized at the first perf start from the kernel's cap on fd numbers (perf.c reads
 * /proc/sys/fs/nr_open, 1M by default), mapped without reserving memory, so only the pages
 * around fds actually used by events become resident (8 bytes an fd). A fixed 16384 meant
 * that a server with many sockets had events the handler did not recognize, never re-armed
 * and never counted. perf_tab and perf_cap are published once (release) before any fd is
 * marked; an entry is set by handler_own_fd before the event is armed (release) and read by
 * handlers (acquire). */
struct perf_slot {
    _Atomic uint32_t owned;
    /* handler runs between their second check of owned and their last use of the fd: a
     * Dekker pair with handler_disown_fd (seq_cst on both sides), which closes nothing while
     * this is not 0, so no handler ever reads or re-arms an fd number the application got
     * back from close. Only the owning thread's handler counts here. */
    _Atomic uint32_t users;
    /* CPU ns the event had counted at its previous signal: a sample weighs the periods
     * elapsed since, so signals the kernel folded or delayed still count. Only the thread
     * that owns an event handles its signals, one at a time (re-armed at the end). */
    uint64_t last;
};
static struct perf_slot *_Atomic perf_tab;
static _Atomic size_t perf_cap;
static uint64_t perf_period;

void handler_set_perf_period(uint64_t ns)
{
    perf_period = ns;
}

int handler_perf_init(size_t cap)
{
    if (atomic_load_explicit(&perf_tab, memory_order_acquire))
        return 0;
    void *p = mmap(NULL, cap * sizeof(struct perf_slot), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return -errno;
    atomic_store_explicit(&perf_cap, cap, memory_order_relaxed);
    /* release: the capacity before the table; handlers load the table with acquire */
    atomic_store_explicit(&perf_tab, p, memory_order_release);
    return 0;
}

int handler_own_fd(int fd)
{
    struct perf_slot *t = atomic_load_explicit(&perf_tab, memory_order_acquire);
    if (!t || fd < 0 || (size_t)fd >= atomic_load_explicit(&perf_cap, memory_order_relaxed))
        return -ERANGE;
    t[fd].last = 0;
    /* release: last = 0 before a handler can see the fd as ours */
    atomic_store_explicit(&t[fd].owned, 1u, memory_order_release);
    return 0;
}

int handler_disown_fd(int fd, uint64_t timeout_ns)
{
    struct perf_slot *t = atomic_load_explicit(&perf_tab, memory_order_acquire);
    if (!t || fd < 0 || (size_t)fd >= atomic_load_explicit(&perf_cap, memory_order_relaxed))
        return 0;
    /* seq_cst: the other half of the pair with the handler's users increment (perf_slot) */
    atomic_store_explicit(&t[fd].owned, 0u, memory_order_seq_cst);
    uint64_t t0 = mono_ns();
    while (atomic_load_explicit(&t[fd].users, memory_order_seq_cst) != 0) {
        /* a use is a read and an ioctl: microseconds, unless its thread is stopped */
        if (mono_ns() - t0 >= timeout_ns)
            return -ETIMEDOUT;
        usleep(50);
    }
    return 0;
}

/* The slot of fd if it is one of our perf events, else NULL. */
static struct perf_slot *perf_fd_owned(int fd)
{
    struct perf_slot *t = atomic_load_explicit(&perf_tab, memory_order_acquire);
    if (!t || fd < 0 || (size_t)fd >= atomic_load_explicit(&perf_cap, memory_order_relaxed))
        return NULL;
    return atomic_load_explicit(&t[fd].owned, memory_order_acquire) ? &t[fd] : NULL;
}

unsigned handler_scratch_count(long cpus)
{
    if (cpus < 1)
        cpus = 1;
    long n = 4 * cpus;
    if (n < HANDLER_SCRATCH_MIN)
        n = HANDLER_SCRATCH_MIN;
    if (n > HANDLER_SCRATCH_MAX)
        n = HANDLER_SCRATCH_MAX;
    return (unsigned)n;
}

int handler_init(struct ring *r, unsigned d, unsigned count)
{
    own_pid = getpid(); /* the wall handler's proof that a queued signal is ours */
    unsigned per = d + NATIVEWALK_MAX + 1;
    /* the buffers, then the busy flags, in one mapping (untouched pages stay unbacked); none
     * at all only for a test (every run then finds them busy) */
    size_t frames = (size_t)count * per * sizeof(struct sample_frame);
    size_t bytes = frames + (size_t)count * sizeof(atomic_int) + sizeof(atomic_int);
    if (!scratch || d != depth || count != scratch_count) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return -errno;
        if (scratch)
            munmap(scratch, scratch_bytes);
        scratch = p;
        scratch_busy = (atomic_int *)((char *)p + frames);
        scratch_bytes = bytes;
        scratch_count = count;
        depth = d;
        buf_frames = per;
    }
    ring = r;
    return 0;
}

unsigned handler_scratch_buffers(void)
{
    return scratch_count;
}

void handler_set_cstack(int on)
{
    cstack = on;
}

static int grab_scratch(int tid)
{
    unsigned n = scratch_count;
    for (unsigned i = 0; i < n; i++) {
        int k = (int)(((unsigned)tid + i) % n);
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
    pushed = s != NULL;
    if (!s)
        return; /* counted by the ring */
    *s = *h;
    s->num_frames = n;
    /* on the thread itself: the read cannot fail (context.h); slot1 0 reads as none */
    context_read_sigsafe(h->slot1 - 1, &s->span, &s->root);
    if (nf)
        memcpy(s->frames, f, nf * sizeof(struct sample_frame));
    ring_commit(ring, s);
    counters_add_sigsafe(FPL_CTR_SAMPLES, 1);
}

/* 1 when the interrupted code blocks SIGSEGV or SIGBUS: our handler nested inside a fault
 * handler (one installed with a mask that lets our signals in: another agent's). A fault in
 * our walk would then be delivered blocked, and the kernel ends the process for it, crash
 * guard or not. The kernel's mask is the first word of the ucontext's sigset. */
static int faults_blocked(const void *uc)
{
    unsigned long m = *(const unsigned long *)&((const ucontext_t *)uc)->uc_sigmask;
    return (int)((m >> (SIGSEGV - 1)) & 1) | (int)((m >> (SIGBUS - 1)) & 1);
}

/* 1 when the interrupted code blocks SIGPROF or SIGVTALRM: our handler nested inside another
 * profiler's signal handler (the kernel blocks a handler's own signal while it runs; flyprof's
 * own handlers refuse nesting before this). Such a handler may have armed its own recovery
 * from faults: a fault of our walk that the crash guard leaves to the JVM (a SafeFetch in
 * AsyncGetCallTrace) goes down the chain of SIGSEGV handlers to it, and its siglongjmp would
 * leave our handler half done (in flight for ever, its scratch buffer busy, this thread's
 * handler marked running). A thread that blocks those signals for its own reasons costs its
 * stacks only while flyprof's CPU signal is a real-time one (another library holds SIGPROF). */
static int other_handler(const void *uc)
{
    unsigned long m = *(const unsigned long *)&((const ucontext_t *)uc)->uc_sigmask;
    return (int)((m >> (SIGPROF - 1)) & 1) | (int)((m >> (SIGVTALRM - 1)) & 1);
}

/* Walks the interrupted thread's stack (native frames, then Java frames) and pushes the
 * sample described by h. */
static void take_sample(struct sample_rec *h, void *uc)
{
    int tid = tls_tid_sigsafe();
    JNIEnv *env = tls_env_sigsafe();
    h->tid = tid;
    h->slot1 = tls_slot();
    if (faults_blocked(uc)) {
        counters_add_sigsafe(FPL_CTR_FAULTS_BLOCKED, 1);
        push(h, SAMPLE_ERR_FAULTS_BLOCKED, NULL);
        return;
    }
    if (other_handler(uc)) {
        counters_add_sigsafe(FPL_CTR_OTHER_HANDLER, 1);
        push(h, SAMPLE_ERR_OTHER_HANDLER, NULL);
        return;
    }
    if (!env) {
        /* a thread that was running before the attach: no ThreadStart set its TLS. A thread
         * with a TLS slot and no env is flyprof's own (threads.c registers its agent threads
         * without one): it keeps its slot, by which the writer names it in full, not by the
         * kernel's 15 characters */
        uint32_t slot1 = 0;
        env = envtable_get_sigsafe(tid, &slot1);
        if (env || !h->slot1)
            h->slot1 = slot1;
    }
    if (!env && !cstack) {
        counters_add_sigsafe(FPL_CTR_NO_ENV, 1);
        push(h, SAMPLE_ERR_NO_ENV, NULL);
        return;
    }
    int k = grab_scratch(tid);
    if (k < 0) {
        counters_add_sigsafe(FPL_CTR_HANDLER_BUSY, 1);
        push(h, SAMPLE_ERR_NO_SCRATCH, NULL);
        return;
    }
    struct sample_frame *f = scratch + (size_t)k * buf_frames;
    /* native frames first (leaf first), down to the first Java frame. None when the thread
     * was stopped in Java code: known from the pc and the code cache's bounds (libjvm statics,
     * always mapped: no guard needed) before the guard is armed, which costs more than that
     * check on a cold cache, and is armed again for the Java walk anyway */
    struct nativewalk_java jc = {0};
    int nn = 0;
    uintptr_t pc = (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
    if (cstack && !nativewalk_is_java_sigsafe(pc)) {
        /* the native walk reads the stack through unwind rules: guarded like the Java walk */
        struct crashguard g;
        if (sigsetjmp(g.jb, 0) == 0) {
            crashguard_enter(&g);
            nn = nativewalk_sigsafe(uc, f, NATIVEWALK_MAX, tls_stack_lo(), tls_stack_hi(), &jc);
            crashguard_leave(&g);
            if (jc.fp_steps)
                counters_add_sigsafe(FPL_CTR_FP_WALKS, 1);
        } else {
            nn = 0;
            jc.pc = 0;
            counters_add_sigsafe(FPL_CTR_WALK_FAULTS, 1);
        }
    }
    if (!env) {
        /* not a Java thread (GC, JIT compiler, VM thread, a native thread): its native stack
         * is all there is */
        if (nn <= 0)
            counters_add_sigsafe(FPL_CTR_NO_ENV, 1);
        push(h, nn > 0 ? nn : SAMPLE_ERR_NO_ENV, f);
        atomic_store_explicit(&scratch_busy[k], 0, memory_order_release);
        return;
    }
    if (h->kind == FPL_KIND_WALL && h->state == FPL_STATE_RUNNING && state_offset) {
        /* our own thread's state word: it is alive while we run on it. HotSpot's
         * _thread_in_native (4) and _thread_in_native_trans (5) */
        int js = *(const volatile int *)((const char *)env - env_offset + state_offset);
        if (js == 4 || js == 5)
            h->state = FPL_STATE_NATIVE;
    }
    int recovered = 0;
    int n = stackwalk_java_sigsafe(env, uc, f + nn, (int)depth, &recovered);
    if (n <= -3 && n >= -6 && nn > 0 && (jc.pc || jc.stop_pc)) {
        /* JVM or library code called from Java code without a state transition (JRT_LEAF
         * calls: monitor exit, G1's barrier slow paths) leaves the thread in the Java state
         * with no frame anchor, and AGCT starts from the signal's pc, in libjvm or libc, whose
         * rbp is no frame pointer: unknown_Java, or not_walkable_Java where the rbp chain
         * breaks; in the VM state without an anchor, unknown_not_Java. The native walk ended
         * in the Java frame that made the call: walk the Java stack from there. Where it
         * stopped short of Java code (libjvm's table not built yet), AGCT can follow libjvm's
         * frame pointers from the last frame it reached (the Java state only: elsewhere AGCT
         * starts from the frame anchor whatever the context says) */
        int r2 = 0, m = 0;
        if (jc.pc)
            m = stackwalk_java_from_sigsafe(env, uc, jc.pc, jc.sp, jc.fp, f + nn, (int)depth,
                                            &r2);
        else if (n == -5 || n == -6)
            m = stackwalk_java_from_sigsafe(env, uc, jc.stop_pc, jc.stop_sp, jc.stop_fp, f + nn,
                                            (int)depth, &r2);
        if (m > 0) {
            n = m;
            recovered = 1;
        }
    }
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
    if (n > 0) {
        push(h, nn + n, f);
    } else if (nn > 0) {
        /* the native frames are right; say below them why the Java part is missing */
        f[nn].lineno = SAMPLE_FRAME_PACK(SAMPLE_FT_MARKER, 0);
        f[nn].method_id = (jmethodID)(intptr_t)n;
        push(h, nn + 1, f);
    } else {
        push(h, n, f);
    }
    /* release: our reads of the buffer happen before the next owner's writes */
    atomic_store_explicit(&scratch_busy[k], 0, memory_order_release);
}

/* Counts a signal that reached our handler but is not ours, and passes it on. */
static void foreign(unsigned which, int sig, siginfo_t *si, void *uc)
{
    counters_add_sigsafe(FPL_CTR_FOREIGN_SIGNALS, 1);
    signals_chain_sigsafe(which, sig, si, uc);
}

/* Enters one of our handlers on this thread: 0, or -1 when this thread is already inside one
 * (counted; the caller must not walk: AsyncGetCallTrace is not reentrant before JDK 23). */
static int enter(void)
{
    if (in_handler) {
        counters_add_sigsafe(FPL_CTR_HANDLER_NESTED, 1);
        return -1;
    }
    in_handler = 1;
    /* the flag is this thread's own: only a handler on this thread reads it */
    atomic_signal_fence(memory_order_seq_cst);
    return 0;
}

static void leave_handler(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    in_handler = 0;
}

/* The CPU signal: accepted only when provably sent for one of our engines -- a timer of ours
 * (cputimer: our cookie in si_value), an event of ours (perf: an fd we own in si_fd), or the
 * process itimer while our itimer engine runs (the only ITIMER_PROF of the process, and only
 * ever on SIGPROF). Anything else is another library's, passed on. */
void handler_cpu_signal(int sig, siginfo_t *si, void *uc)
{
    int saved_errno = errno;
    uint32_t weight = 1;
    struct perf_slot *perf = NULL;
    if (si->si_code == SI_TIMER && si->si_value.sival_int == HANDLER_COOKIE) {
        if (si->si_overrun > 0)
            weight += (uint32_t)si->si_overrun;
    } else if ((si->si_code == POLL_IN || si->si_code == POLL_HUP) &&
               (perf = perf_fd_owned(si->si_fd)) != NULL) {
        /* one of our perf events */
    } else if (si->si_code == SI_KERNEL && sig == SIGPROF &&
               atomic_load_explicit(&itimer_period, memory_order_relaxed)) {
        weight = 0; /* computed below, once we know we are active */
    } else {
        foreign(SIGNALS_CPU, sig, si, uc);
        goto out;
    }
    if (!atomic_load_explicit(&active, memory_order_seq_cst))
        goto out;
    atomic_fetch_add_explicit(&inflight, 1, memory_order_seq_cst);
    if (!atomic_load_explicit(&active, memory_order_seq_cst))
        goto leave;

    uint64_t t0 = tsc_read_sigsafe();
    if (perf) {
        /* seq_cst: a Dekker pair with handler_disown_fd: either it waits for this use, or
         * this run sees the fd disowned and leaves it alone (it may be closed already) */
        atomic_fetch_add_explicit(&perf->users, 1, memory_order_seq_cst);
        if (testhook_armed_sigsafe() && in_native())
            testhook_hang_sigsafe(); /* a test: a run stopped while it uses its fd */
        if (atomic_load_explicit(&perf->owned, memory_order_seq_cst)) {
            uint64_t count;
            if (perf_period && read(si->si_fd, &count, sizeof(count)) == sizeof(count)) {
                uint64_t periods = (count - perf->last + perf_period / 2) / perf_period;
                perf->last = count;
                if (periods > 1)
                    weight = (uint32_t)periods;
            }
            /* perf engine: the event disabled itself after one overflow; re-arm it */
            ioctl(si->si_fd, PERF_EVENT_IOC_REFRESH, 1);
        }
        /* release: our uses of the fd happen before its close */
        atomic_fetch_sub_explicit(&perf->users, 1, memory_order_release);
    } else if (weight == 0) {
        /* itimer: the kernel sends at most one ITIMER_PROF signal per tick whatever the
         * interval, so weigh each by the process CPU time elapsed (itimer_weight) */
        weight = itimer_weight(atomic_load_explicit(&itimer_period, memory_order_relaxed));
    }
    if (weight > 1)
        counters_add_sigsafe(FPL_CTR_OVERRUNS, weight - 1);
    counters_add_sigsafe(FPL_CTR_SIGNALS, 1);
    if (testhook_armed_sigsafe() && in_native())
        testhook_hang_sigsafe(); /* a test: this run never returns (testhook.h) */
    struct sample_rec h = {.ticks = t0, .weight = weight, .kind = FPL_KIND_CPU,
                           .state = FPL_STATE_RUNNING, .tid = tls_tid_sigsafe(),
                           .slot1 = tls_slot()};
    if (enter() == 0) {
        take_sample(&h, uc);
        leave_handler();
    } else {
        push(&h, SAMPLE_ERR_NO_SCRATCH, NULL); /* keep the weight, do not walk */
    }
    counters_handler_time_sigsafe(tsc_ticks_to_ns_sigsafe(tsc_read_sigsafe() - t0));
leave:
    atomic_fetch_sub_explicit(&inflight, 1, memory_order_seq_cst);
out:
    errno = saved_errno;
}

/* The wall-clock signal, sent by the sampler with rt_tgsigqueueinfo: si_value carries the
 * cookie, the thread state the sampler read and the tick id (handler_wall_value). Only a
 * signal queued by this process (si_pid) with our cookie is ours. */
void handler_wall_signal(int sig, siginfo_t *si, void *uc)
{
    int saved_errno = errno;
    uint64_t v = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
    if (si->si_code != SI_QUEUE || si->si_pid != own_pid || (v & 0xffff) != HANDLER_WALL_COOKIE) {
        foreign(SIGNALS_WALL, sig, si, uc);
        goto out;
    }
    if (!atomic_load_explicit(&active, memory_order_seq_cst))
        goto out;
    atomic_fetch_add_explicit(&inflight, 1, memory_order_seq_cst);
    if (!atomic_load_explicit(&active, memory_order_seq_cst))
        goto leave;
    uint64_t t0 = tsc_read_sigsafe();
    counters_add_sigsafe(FPL_CTR_WALL_SIGNALS, 1);
    struct sample_rec h = {.ticks = t0, .weight = 1, .kind = FPL_KIND_WALL,
                           .state = (uint8_t)((v >> 16) & 0xff), .tick = (uint32_t)(v >> 32)};
    /* the ticks that chose this thread while this signal waited count in its weight */
    uint32_t slot1 = tls_slot();
    if (!slot1)
        envtable_get_sigsafe(tls_tid_sigsafe(), &slot1);
    if (slot1 && slot1 <= THREADS_MAX)
        h.weight += atomic_exchange_explicit(&wall_missed[slot1 - 1], 0, memory_order_relaxed);
    h.tid = tls_tid_sigsafe(); /* take_sample sets both too; the nested path needs them */
    h.slot1 = slot1;
    pushed = 0;
    if (enter() == 0) {
        take_sample(&h, uc);
        leave_handler();
    } else {
        push(&h, SAMPLE_ERR_NO_SCRATCH, NULL);
    }
    if (h.slot1 && h.slot1 <= THREADS_MAX) {
        uint32_t slot = h.slot1 - 1;
        /* release: our sample is in the ring before the sampler may repeat it */
        if (pushed)
            atomic_store_explicit(&wall_base[slot], thread_cpu_ns(), memory_order_release);
        atomic_store_explicit(&wall_pending[slot], 0, memory_order_release);
    }
    counters_handler_time_sigsafe(tsc_ticks_to_ns_sigsafe(tsc_read_sigsafe() - t0));
leave:
    atomic_fetch_sub_explicit(&inflight, 1, memory_order_seq_cst);
out:
    errno = saved_errno;
}

uint64_t handler_wall_value(int state, uint32_t tick)
{
    return (uint64_t)HANDLER_WALL_COOKIE | (uint64_t)(state & 0xff) << 16 |
           (uint64_t)tick << 32;
}

void handler_wall_claim(uint32_t slot, uint32_t tick)
{
    /* relaxed: only the sampler stores non-zero values; the signal that follows is what the
     * handler's clearing answers */
    if (slot < THREADS_MAX)
        atomic_store_explicit(&wall_pending[slot], tick ? tick : 1, memory_order_relaxed);
}

uint32_t handler_wall_pending(uint32_t slot)
{
    return slot < THREADS_MAX ? atomic_load_explicit(&wall_pending[slot], memory_order_acquire)
                              : 0;
}

uint32_t handler_wall_unclaim(uint32_t slot)
{
    if (slot >= THREADS_MAX)
        return 0;
    atomic_store_explicit(&wall_pending[slot], 0, memory_order_relaxed);
    return atomic_exchange_explicit(&wall_missed[slot], 0, memory_order_relaxed);
}

void handler_wall_miss(uint32_t slot)
{
    handler_wall_miss_n(slot, 1);
}

void handler_wall_miss_n(uint32_t slot, uint32_t n)
{
    if (slot < THREADS_MAX && n)
        atomic_fetch_add_explicit(&wall_missed[slot], n, memory_order_relaxed);
}

uint64_t handler_wall_base(uint32_t slot)
{
    return slot < THREADS_MAX ? atomic_load_explicit(&wall_base[slot], memory_order_acquire) : 0;
}

void handler_wall_set_base(uint32_t slot, uint64_t cpu_ns)
{
    if (slot < THREADS_MAX)
        atomic_store_explicit(&wall_base[slot], cpu_ns, memory_order_release);
}

void handler_wall_reset(uint32_t slot)
{
    if (slot < THREADS_MAX) {
        atomic_store_explicit(&wall_base[slot], 0, memory_order_relaxed);
        atomic_store_explicit(&wall_pending[slot], 0, memory_order_relaxed);
        atomic_store_explicit(&wall_missed[slot], 0, memory_order_relaxed);
    }
}

void handler_wall_reset_all(void)
{
    for (uint32_t i = 0; i < THREADS_MAX; i++) {
        /* relaxed: at a session start, before the sampler runs */
        if (atomic_load_explicit(&wall_base[i], memory_order_relaxed) ||
            atomic_load_explicit(&wall_pending[i], memory_order_relaxed) ||
            atomic_load_explicit(&wall_missed[i], memory_order_relaxed))
            handler_wall_reset(i);
    }
}

void handler_activate(void)
{
    atomic_store_explicit(&active, 1, memory_order_seq_cst);
}

int handler_deactivate(uint64_t timeout_ns)
{
    atomic_store_explicit(&active, 0, memory_order_seq_cst);
    /* a run takes microseconds; one that takes longer is on a thread that is not running
     * (stopped by a debugger, frozen): waiting for it must not hang the JVM's exit */
    uint64_t t0 = mono_ns();
    while (handler_inflight() != 0) {
        if (mono_ns() - t0 >= timeout_ns)
            return -ETIMEDOUT;
        usleep(100);
    }
    return 0;
}

int handler_inflight(void)
{
    /* seq_cst: the other half of the Dekker pair with the handlers' entry (see above) */
    return atomic_load_explicit(&inflight, memory_order_seq_cst);
}

int handler_active(void)
{
    return atomic_load_explicit(&active, memory_order_relaxed);
}
