/* test_wallclock: the wall-clock sampler (agent/engines/wallclock.c).
 *
 * - wallclock_choose: min(n, k) distinct sorted indices in [0, n) for many (n, k); uniform
 *   single-index frequencies (chi-square), uniform pair frequencies (so a choice of "k
 *   neighbours from a random start", which has uniform marginals, fails too), uniform over
 *   [0, n) for n = 1e6. Each statistical check is also run against deliberately broken
 *   choosers (keep the first k; Algorithm L with an off-by-one skip; Algorithm L whose w never
 *   shrinks; k neighbours from a random start) and must reject each where it is wrong: the
 *   checks can fail.
 *   The generator is seeded with constants, so every run sees the same numbers; thresholds
 *   sit where a correct chooser's statistic has a tail probability below ~1e-7.
 * - wallclock_state: JVMTI thread state bits (as HotSpot reports them) to enum fpl_state.
 * - the sampler's tick, end to end on a real sampler thread: wallclock_start runs against
 *   test doubles of JVMTI/JNI (RunAgentThread starts a pthread; a thread's state comes from a
 *   table, whether the sampler asks JVMTI GetThreadState or reads java.lang.Thread's
 *   threadStatus through JNI, in the JDK 17 layout or the JDK 19+ one where it lives in
 *   Thread.holder; GetStackTrace answers with two frames naming the thread), of the thread
 *   registry and the thread filter (bitsets and entries owned by this file, for real threads of
 *   this process), of the ring (tick records and the samples the sampler pushes itself are
 *   collected), of the counters and of handler_wall_value. A chosen thread is "answered" when
 *   its signal reaches it or when the sampler walks it itself (a thread that is not running):
 *   either way the answer must carry that thread's state and the tick. Signals are real
 *   (the wall signal to the chosen threads' tids). The test checks per tick that the
 *   candidates are the live (and, with filter, marked) threads, chosen is min(candidates, N),
 *   every answer goes to a candidate with its own state and the tick id, and threads that are
 *   gone count as failed. Only agent/engines/wallclock.c is linked: these doubles replace threads.c,
 *   thread_filter.c, ring.c, tsc.c, counters.c, vmstructs.c and handler.c (whose per-slot
 *   wall state they keep empty: no repeats, no outstanding signals).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "fpl_format.h"
#include "handler.h"
#include "harness.h"
#include "ring.h"
#include "sample.h"
#include "signals.h"
#include "thread_filter.h"
#include "threads.h"
#include "tsc.h"
#include "vmstructs.h"
#include "wallclock.h"

/* ---- wallclock_choose ------------------------------------------------------------------- */

typedef uint32_t (*chooser)(uint32_t n, uint32_t k, uint64_t *rng, uint32_t *out);

static uint64_t xs(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

static double uni(uint64_t *s)
{
    return ((double)(xs(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Broken chooser: always the first k. */
static uint32_t bad_first_k(uint32_t n, uint32_t k, uint64_t *rng, uint32_t *out)
{
    (void)rng;
    uint32_t m = n < k ? n : k;
    for (uint32_t i = 0; i < m; i++)
        out[i] = i;
    return m;
}

/* Broken chooser: Algorithm L with the skip off by one (never picks the item right after a
 * replacement, and index k is never the first replacement). */
static uint32_t bad_skip(uint32_t n, uint32_t k, uint64_t *rng, uint32_t *out)
{
    uint32_t m = n < k ? n : k;
    for (uint32_t i = 0; i < m; i++)
        out[i] = i;
    if (n > k) {
        double w = exp(log(uni(rng)) / k);
        uint64_t i = k - 1;
        for (;;) {
            i += (uint64_t)floor(log(uni(rng)) / log1p(-w)) + 2;
            if (i >= n)
                break;
            out[xs(rng) % k] = (uint32_t)i;
            w *= exp(log(uni(rng)) / k);
        }
    }
    qsort(out, m, sizeof(*out), cmp_u32);
    return m;
}

/* Broken chooser: Algorithm L whose w never shrinks (replaces too often late in the stream). */
static uint32_t bad_fixed_w(uint32_t n, uint32_t k, uint64_t *rng, uint32_t *out)
{
    uint32_t m = n < k ? n : k;
    for (uint32_t i = 0; i < m; i++)
        out[i] = i;
    if (n > k) {
        double w = exp(log(uni(rng)) / k);
        uint64_t i = k - 1;
        for (;;) {
            i += (uint64_t)floor(log(uni(rng)) / log1p(-w)) + 1;
            if (i >= n)
                break;
            out[xs(rng) % k] = (uint32_t)i;
        }
    }
    qsort(out, m, sizeof(*out), cmp_u32);
    return m;
}

/* Broken chooser: k neighbours (cyclically) from a uniform start. Every index has the right
 * frequency k/n; pairs do not. */
static uint32_t bad_block(uint32_t n, uint32_t k, uint64_t *rng, uint32_t *out)
{
    uint32_t m = n < k ? n : k;
    uint32_t s = (uint32_t)(xs(rng) % n);
    for (uint32_t i = 0; i < m; i++)
        out[i] = (s + i) % n;
    qsort(out, m, sizeof(*out), cmp_u32);
    return m;
}

/* 1 when out[0..m) is strictly ascending and below n. */
static int well_formed(const uint32_t *out, uint32_t m, uint32_t n)
{
    for (uint32_t i = 0; i < m; i++)
        if (out[i] >= n || (i > 0 && out[i] <= out[i - 1]))
            return 0;
    return 1;
}

static void test_choose_shape(void)
{
    static const uint32_t ns[] = {0, 1, 2, 3, 4, 5, 15, 16, 17, 31, 63, 64, 65, 100, 1000,
                                  4097, 65536, 1000000, 10000000};
    static const uint32_t ks[] = {1, 2, 3, 4, 15, 16, 17, 64, 100, 1024};
    static uint32_t out[1024 + 8];
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    int bad = 0;
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++) {
        for (size_t b = 0; b < sizeof(ks) / sizeof(ks[0]); b++) {
            uint32_t n = ns[a], k = ks[b], want = n < k ? n : k;
            for (int rep = 0; rep < 20; rep++) {
                for (uint32_t i = 0; i < want + 8; i++)
                    out[i] = 0xdeadbeef;
                uint32_t m = wallclock_choose(n, k, &rng, out);
                if (m != want || !well_formed(out, m, n) || out[m] != 0xdeadbeef) {
                    if (bad++ < 5)
                        fprintf(stderr, "choose(n=%u, k=%u) returned %u (want %u) or a bad "
                                        "set, or wrote past it\n", n, k, m, want);
                }
                if (n <= k) {
                    /* everything is chosen */
                    for (uint32_t i = 0; i < m; i++)
                        if (out[i] != i && bad++ < 5)
                            fprintf(stderr, "choose(n=%u, k=%u): out[%u] = %u\n", n, k, i,
                                    out[i]);
                }
            }
        }
    }
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(wallclock_choose(100, 0, &rng, out), 0);
    CHECK(rng != 0);

    /* the generator state moves and the choice changes with it */
    uint64_t r1 = 42;
    uint32_t a1[16], a2[16];
    wallclock_choose(1000, 16, &r1, a1);
    uint64_t after = r1;
    wallclock_choose(1000, 16, &r1, a2);
    CHECK(after != 42);
    CHECK(memcmp(a1, a2, sizeof(a1)) != 0);
}

/* Chi-square of single-index frequencies: trials choices of k of n. */
static double chi_single(chooser f, uint32_t n, uint32_t k, uint32_t trials, uint64_t seed)
{
    uint64_t *cnt = calloc(n, sizeof(*cnt));
    uint32_t out[64];
    uint64_t rng = seed;
    for (uint32_t t = 0; t < trials; t++) {
        uint32_t m = f(n, k, &rng, out);
        for (uint32_t i = 0; i < m; i++)
            cnt[out[i]]++;
    }
    double e = (double)trials * k / n, chi = 0;
    for (uint32_t i = 0; i < n; i++)
        chi += ((double)cnt[i] - e) * ((double)cnt[i] - e) / e;
    free(cnt);
    return chi;
}

/* Chi-square of pair frequencies (i < j both chosen), n small. */
static double chi_pairs(chooser f, uint32_t n, uint32_t k, uint32_t trials, uint64_t seed)
{
    uint64_t *cnt = calloc((size_t)n * n, sizeof(*cnt));
    uint32_t out[64];
    uint64_t rng = seed;
    for (uint32_t t = 0; t < trials; t++) {
        uint32_t m = f(n, k, &rng, out);
        for (uint32_t a = 0; a < m; a++)
            for (uint32_t b = a + 1; b < m; b++)
                cnt[(size_t)out[a] * n + out[b]]++;
    }
    double e = (double)trials * k * (k - 1) / ((double)n * (n - 1)), chi = 0;
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n; b++) {
            double d = (double)cnt[(size_t)a * n + b] - e;
            chi += d * d / e;
        }
    free(cnt);
    return chi;
}

/* Chi-square over 20 equal bins of [0, n) for large n. */
static double chi_bins(chooser f, uint32_t n, uint32_t k, uint32_t trials, uint64_t seed)
{
    uint64_t cnt[20] = {0};
    uint32_t out[64];
    uint64_t rng = seed;
    for (uint32_t t = 0; t < trials; t++) {
        uint32_t m = f(n, k, &rng, out);
        for (uint32_t i = 0; i < m; i++)
            cnt[(uint64_t)out[i] * 20 / n]++;
    }
    double e = (double)trials * k / 20, chi = 0;
    for (int i = 0; i < 20; i++)
        chi += ((double)cnt[i] - e) * ((double)cnt[i] - e) / e;
    return chi;
}

/* Upper limit for a chi-square statistic with dof degrees of freedom at a tail probability
 * of about 1e-7: Wilson-Hilferty, z = 5.2. */
static double chi_limit(double dof)
{
    double h = 2.0 / (9.0 * dof), z = 5.2;
    double c = 1 - h + z * sqrt(h);
    return dof * c * c * c;
}

enum { FIRST_K = 1, SKIP2 = 2, FIXED_W = 4, BLOCK = 8 };

struct uniform_case {
    const char *what;
    double (*stat)(chooser, uint32_t, uint32_t, uint32_t, uint64_t);
    uint32_t n, k, trials;
    double dof;
    unsigned must_reject; /* the broken choosers this statistic must catch here */
};

static void test_choose_uniform(void)
{
    /* Not every broken chooser is wrong everywhere: the block has exact single-index
     * frequencies (only pairs see it); with n = k + 1 a fixed w makes its one replacement
     * right; an off-by-one skip hardly moves the 20 bins of 1e6; a fixed w walks all 1e6
     * items, too slow to run. */
    static const struct uniform_case cases[] = {
        {"single n=20 k=4", chi_single, 20, 4, 200000, 19, FIRST_K | SKIP2 | FIXED_W},
        {"single n=17 k=16", chi_single, 17, 16, 50000, 16, FIRST_K | SKIP2},
        {"single n=1000 k=16", chi_single, 1000, 16, 50000, 999, FIRST_K | SKIP2 | FIXED_W},
        {"single n=300 k=1", chi_single, 300, 1, 300000, 299, FIRST_K | SKIP2 | FIXED_W},
        {"pairs n=20 k=4", chi_pairs, 20, 4, 200000, 189, FIRST_K | SKIP2 | FIXED_W | BLOCK},
        {"pairs n=12 k=6", chi_pairs, 12, 6, 100000, 65, FIRST_K | SKIP2 | FIXED_W | BLOCK},
        {"bins n=1e6 k=16", chi_bins, 1000000, 16, 20000, 19, FIRST_K | BLOCK},
        {"bins n=1e6 k=1", chi_bins, 1000000, 1, 200000, 19, FIRST_K},
    };
    static const struct {
        const char *name;
        unsigned bit;
        chooser f;
    } broken[] = {
        {"first k", FIRST_K, bad_first_k},
        {"skip +2", SKIP2, bad_skip},
        {"w fixed", FIXED_W, bad_fixed_w},
        {"block", BLOCK, bad_block},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct uniform_case *c = &cases[i];
        /* the pair statistic's terms are not independent (each trial adds k(k-1)/2 of
         * them): its null mean is still ~dof but its spread is wider; allow twice the limit */
        double lim = chi_limit(c->dof) * (c->stat == chi_pairs ? 2 : 1);
        double good = c->stat(wallclock_choose, c->n, c->k, c->trials, 0x1234567ull + i);
        printf("  %-20s wallclock_choose chi2 %8.1f (dof %.0f, limit %.1f); broken:", c->what,
               good, c->dof, lim);
        CHECK(good < lim);
        for (size_t b = 0; b < sizeof(broken) / sizeof(broken[0]); b++) {
            if (!(c->must_reject & broken[b].bit))
                continue;
            double x = c->stat(broken[b].f, c->n, c->k, c->trials, 0x1234567ull + i);
            printf(" %s %.0f%s", broken[b].name, x, x >= lim ? "" : " (NOT rejected)");
            if (x < lim)
                fprintf(stderr, "%s: the broken chooser '%s' passed (chi2 %.1f < %.1f)\n",
                        c->what, broken[b].name, x, lim);
            CHECK(x >= lim);
        }
        printf("\n");
    }
}

/* ---- wallclock_state -------------------------------------------------------------------- */

static void test_state(void)
{
    const jint A = JVMTI_THREAD_STATE_ALIVE, W = JVMTI_THREAD_STATE_WAITING;
    const jint WI = JVMTI_THREAD_STATE_WAITING_INDEFINITELY;
    const jint WT = JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT;
    static const struct {
        jint bits;
        int want;
    } cases[] = {
        {0, FPL_STATE_UNKNOWN},                                     /* new, not started */
        {JVMTI_THREAD_STATE_TERMINATED, FPL_STATE_UNKNOWN},
        {JVMTI_THREAD_STATE_ALIVE, FPL_STATE_UNKNOWN},              /* alive, nothing else */
        {JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE, FPL_STATE_RUNNING},
        {JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE | JVMTI_THREAD_STATE_INTERRUPTED,
         FPL_STATE_RUNNING},
        {JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE | JVMTI_THREAD_STATE_SUSPENDED,
         FPL_STATE_RUNNING},
        {JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE | JVMTI_THREAD_STATE_IN_NATIVE,
         FPL_STATE_NATIVE},
        {JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER,
         FPL_STATE_BLOCKED},
        {JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER |
             JVMTI_THREAD_STATE_SUSPENDED, FPL_STATE_BLOCKED},
        /* Object.wait() */
        {A | W | WI | JVMTI_THREAD_STATE_IN_OBJECT_WAIT, FPL_STATE_WAITING},
        /* Object.wait(ms), Thread.join(ms) */
        {A | W | WT | JVMTI_THREAD_STATE_IN_OBJECT_WAIT, FPL_STATE_TIMED_WAITING},
        /* Thread.sleep */
        {A | W | WT | JVMTI_THREAD_STATE_SLEEPING, FPL_STATE_SLEEPING},
        /* LockSupport.park / parkNanos */
        {A | W | WI | JVMTI_THREAD_STATE_PARKED, FPL_STATE_PARKED},
        {A | W | WT | JVMTI_THREAD_STATE_PARKED, FPL_STATE_PARKED},
        {A | W | WT | JVMTI_THREAD_STATE_PARKED | JVMTI_THREAD_STATE_INTERRUPTED,
         FPL_STATE_PARKED},
        /* waiting bits without the alive bit: a dead thread */
        {W | WT | JVMTI_THREAD_STATE_SLEEPING, FPL_STATE_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int got = wallclock_state(cases[i].bits);
        if (got != cases[i].want)
            fprintf(stderr, "wallclock_state(0x%x) = %d, want %d\n", (unsigned)cases[i].bits,
                    got, cases[i].want);
        CHECK_EQ_U(got, cases[i].want);
    }
}

/* ---- test doubles for the sampler's tick ------------------------------------------------ */

#define NT 150 /* real threads; slots 0..NT-1 cross two word boundaries */

static struct threads_entry entries[NT];
static struct threads_entry *published[NT]; /* NULL: a live bit without an entry */
static _Atomic uint64_t live_bits[THREADS_WORDS], filter_bits[THREADS_WORDS];
static jint thread_state[NT];  /* what a thread's state reads as, per slot */
static int fake_obj[NT];       /* the jthread of slot i is &fake_obj[i] */
static _Atomic int in_read;    /* read sections open */
static _Atomic int outside_read_calls; /* GetThreadState outside a read section */
static _Atomic int reader_registered;

uint32_t threads_words_used(void)
{
    return (NT + 63) / 64;
}

uint64_t threads_live_word(uint32_t w)
{
    return w < THREADS_WORDS ? atomic_load(&live_bits[w]) : 0;
}

uint64_t thread_filter_word(uint32_t w)
{
    return w < THREADS_WORDS ? atomic_load(&filter_bits[w]) : 0;
}

void threads_reader_register(void)
{
    atomic_fetch_add(&reader_registered, 1);
}

void threads_reader_unregister(void)
{
    atomic_fetch_sub(&reader_registered, 1);
}

void threads_read_lock(void)
{
    atomic_fetch_add(&in_read, 1);
}

void threads_read_unlock(void)
{
    atomic_fetch_sub(&in_read, 1);
}

struct threads_entry *threads_at(uint32_t slot)
{
    return slot < NT ? published[slot] : NULL;
}

uint64_t tsc_read_sigsafe(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* the stand-in wall signal (the agent picks a free real-time signal at install) */
#define TEST_WALL_SIGNAL (SIGRTMIN + 5)

int signals_wall_signo(void)
{
    return TEST_WALL_SIGNAL;
}

uint64_t handler_wall_value(int state, uint32_t tick)
{
    return (uint64_t)HANDLER_WALL_COOKIE | (uint64_t)(state & 0xff) << 16 | (uint64_t)tick << 32;
}

/* handler.c's per-slot wall state: none kept, so no signal is ever outstanding and no stack is
 * ever repeated (every chosen thread is signalled or walked, as this test expects); those
 * paths are covered on real JVMs (tests/integration/test_wall_blocked.py) */
uint32_t handler_wall_pending(uint32_t slot)
{
    (void)slot;
    return 0;
}

void handler_wall_claim(uint32_t slot, uint32_t tick)
{
    (void)slot;
    (void)tick;
}

uint32_t handler_wall_unclaim(uint32_t slot)
{
    (void)slot;
    return 0;
}

void handler_wall_miss(uint32_t slot)
{
    (void)slot;
}

void handler_wall_miss_n(uint32_t slot, uint32_t n)
{
    (void)slot;
    (void)n;
}

uint64_t handler_wall_base(uint32_t slot)
{
    (void)slot;
    return 0;
}

void handler_wall_set_base(uint32_t slot, uint64_t cpu_ns)
{
    (void)slot;
    (void)cpu_ns;
}

void handler_wall_reset_all(void)
{
}

void handler_wall_reset(uint32_t slot)
{
    (void)slot;
}

/* vmstructs.c's: no JVM here, so the sampler cannot read a thread's JVM state */
int64_t vmstructs_offset(const char *type, const char *field)
{
    (void)type;
    (void)field;
    return -1;
}

/* The ring: tick records and the sampler's own samples, collected. */
#define MAX_TICKS 4096
static pthread_mutex_t ring_mu = PTHREAD_MUTEX_INITIALIZER;
static struct tick_rec ticks[MAX_TICKS];
static unsigned nticks;
static _Alignas(16) unsigned char pending[65536]; /* only the sampler thread produces */
static _Atomic int bad_ring;
static _Atomic uint32_t got[NT];      /* answers per slot: signals received + samples pushed */
static _Atomic uint32_t walked;       /* samples the sampler pushed itself */
static _Atomic uint32_t walked_bad;   /* ... with a wrong tid, state, tick or stack */

struct counters counters; /* counters.c's, which is not linked */

void *ring_reserve(struct ring *r, uint32_t len)
{
    (void)r;
    if (len < sizeof(struct tick_rec) || len > sizeof(pending)) {
        atomic_fetch_add(&bad_ring, 1);
        return NULL;
    }
    return pending;
}

/* A sample the sampler took itself: two frames (see fake_get_stack_trace) for its thread. */
static void collect_sample(const struct sample_rec *r)
{
    int slot = (int)r->slot1 - 1;
    int ok = slot >= 0 && slot < NT && r->tid == entries[slot].tid && r->weight == 1 &&
             r->kind == FPL_KIND_WALL && r->tick != 0 &&
             r->state == wallclock_state(thread_state[slot]) && r->num_frames == 2 &&
             r->frames[0].method_id == (jmethodID)&entries[slot] &&
             r->frames[1].lineno == slot;
    atomic_fetch_add(&walked, 1);
    if (!ok) {
        if (atomic_fetch_add(&walked_bad, 1) < 3)
            fprintf(stderr, "a walked sample: slot1 %u tid %d kind %u state %u tick %u "
                            "frames %d\n", r->slot1, r->tid, r->kind, r->state, r->tick,
                    r->num_frames);
        return;
    }
    atomic_fetch_add(&got[slot], 1);
}

void ring_commit(struct ring *r, void *payload)
{
    (void)r;
    const struct tick_rec *t = payload;
    if (t->kind == FPL_KIND_WALL) {
        collect_sample(payload);
        return;
    }
    pthread_mutex_lock(&ring_mu);
    if (t->kind != SAMPLE_KIND_TICK)
        atomic_fetch_add(&bad_ring, 1);
    else if (nticks < MAX_TICKS)
        ticks[nticks++] = *t;
    pthread_mutex_unlock(&ring_mu);
}

/* JVMTI and JNI doubles: just what wallclock_start and the tick call. */
struct agent_thread {
    jvmtiStartFunction proc;
    void *arg;
};

static jvmtiEnv fake_jvmti;
static JNIEnv fake_jni;
static _Atomic int agent_threads;

static void *agent_thread_main(void *p)
{
    struct agent_thread a = *(struct agent_thread *)p;
    free(p);
    a.proc(&fake_jvmti, &fake_jni, a.arg);
    atomic_fetch_sub(&agent_threads, 1);
    return NULL;
}

static jvmtiError JNICALL fake_run_agent_thread(jvmtiEnv *env, jthread thread,
                                                jvmtiStartFunction proc, const void *arg,
                                                jint priority)
{
    (void)env;
    (void)thread;
    (void)priority;
    struct agent_thread *a = malloc(sizeof(*a));
    pthread_t t;
    if (!a)
        return JVMTI_ERROR_OUT_OF_MEMORY;
    a->proc = proc;
    a->arg = (void *)arg;
    atomic_fetch_add(&agent_threads, 1);
    if (pthread_create(&t, NULL, agent_thread_main, a) != 0) {
        atomic_fetch_sub(&agent_threads, 1);
        free(a);
        return JVMTI_ERROR_INTERNAL;
    }
    pthread_detach(t);
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL fake_get_thread_state(jvmtiEnv *env, jthread thread, jint *state)
{
    (void)env;
    if (atomic_load(&in_read) <= 0)
        atomic_fetch_add(&outside_read_calls, 1);
    int *o = (int *)thread;
    if (o < fake_obj || o >= fake_obj + NT)
        return JVMTI_ERROR_INVALID_THREAD;
    *state = thread_state[o - fake_obj];
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL fake_get_stack_trace(jvmtiEnv *env, jthread thread, jint start,
                                               jint max, jvmtiFrameInfo *frames, jint *count)
{
    (void)env;
    if (atomic_load(&in_read) <= 0)
        atomic_fetch_add(&outside_read_calls, 1);
    int *o = (int *)thread;
    if (o < fake_obj || o >= fake_obj + NT)
        return JVMTI_ERROR_INVALID_THREAD;
    if (start != 0 || max < 2)
        return JVMTI_ERROR_ILLEGAL_ARGUMENT;
    int i = (int)(o - fake_obj);
    frames[0].method = (jmethodID)&entries[i];
    frames[0].location = 7;
    frames[1].method = (jmethodID)&entries[i];
    frames[1].location = i;
    *count = 2;
    return JVMTI_ERROR_NONE;
}

static struct jvmtiInterface_1_ jvmti_fns;
static struct JNINativeInterface_ jni_fns;
static int dummy_obj;

/* java.lang.Thread's layout the JNI doubles present: JDK 17 (Thread.threadStatus) or JDK 19+
 * (Thread.holder -> FieldHolder.threadStatus). */
static int layout_holder;
static int thread_class, holder_class, other_class;
static int fid_status, fid_holder;
static int fake_holder[NT];                 /* the FieldHolder of slot i's thread */
static _Thread_local int pending_exception; /* JNI: per thread, like the real one */
static _Atomic int bad_jni;                 /* JNI calls the doubles did not expect */

static jclass JNICALL fake_find_class(JNIEnv *env, const char *name)
{
    (void)env;
    if (strcmp(name, "java/lang/Thread") == 0)
        return (jclass)&thread_class;
    if (strcmp(name, "java/lang/Thread$FieldHolder") == 0 && layout_holder)
        return (jclass)&holder_class;
    if (strcmp(name, "java/lang/Thread$FieldHolder") == 0) {
        pending_exception = 1; /* NoClassDefFoundError */
        return NULL;
    }
    return (jclass)&other_class;
}

static jmethodID JNICALL fake_get_method_id(JNIEnv *env, jclass c, const char *n, const char *s)
{
    (void)env;
    (void)c;
    (void)n;
    (void)s;
    return (jmethodID)&dummy_obj;
}

static jfieldID JNICALL fake_get_field_id(JNIEnv *env, jclass c, const char *n, const char *sig)
{
    (void)env;
    if (c == (jclass)&thread_class && !layout_holder && strcmp(n, "threadStatus") == 0 &&
        strcmp(sig, "I") == 0)
        return (jfieldID)&fid_status;
    if (c == (jclass)&thread_class && layout_holder && strcmp(n, "holder") == 0 &&
        strcmp(sig, "Ljava/lang/Thread$FieldHolder;") == 0)
        return (jfieldID)&fid_holder;
    if (c == (jclass)&holder_class && strcmp(n, "threadStatus") == 0 && strcmp(sig, "I") == 0)
        return (jfieldID)&fid_status;
    pending_exception = 1; /* NoSuchFieldError */
    return NULL;
}

static void JNICALL fake_exception_clear(JNIEnv *env)
{
    (void)env;
    pending_exception = 0;
}

static jboolean JNICALL fake_exception_check(JNIEnv *env)
{
    (void)env;
    return pending_exception ? JNI_TRUE : JNI_FALSE;
}

static int slot_of(void *o, int *base)
{
    int *p = o;
    return p >= base && p < base + NT ? (int)(p - base) : -1;
}

static jint JNICALL fake_get_int_field(JNIEnv *env, jobject o, jfieldID f)
{
    (void)env;
    if (atomic_load(&in_read) <= 0)
        atomic_fetch_add(&outside_read_calls, 1);
    int i = slot_of(o, layout_holder ? fake_holder : fake_obj);
    if (f != (jfieldID)&fid_status || i < 0 || pending_exception) {
        atomic_fetch_add(&bad_jni, 1);
        return 0;
    }
    return thread_state[i];
}

static jobject JNICALL fake_get_object_field(JNIEnv *env, jobject o, jfieldID f)
{
    (void)env;
    int i = slot_of(o, fake_obj);
    if (!layout_holder || f != (jfieldID)&fid_holder || i < 0) {
        atomic_fetch_add(&bad_jni, 1);
        return NULL;
    }
    return (jobject)&fake_holder[i];
}

static jstring JNICALL fake_new_string_utf(JNIEnv *env, const char *s)
{
    (void)env;
    (void)s;
    return (jstring)&dummy_obj;
}

static jobject JNICALL fake_new_object(JNIEnv *env, jclass c, jmethodID m, ...)
{
    (void)env;
    (void)c;
    (void)m;
    return (jobject)&dummy_obj;
}

static void JNICALL fake_delete_local_ref(JNIEnv *env, jobject o)
{
    (void)env;
    (void)o;
}

/* ---- the threads that receive the signals ------------------------------------------------ */

static _Thread_local int my_slot = -1;
static _Atomic uint32_t got_bad_state; /* received with a state not its own */
static _Atomic uint32_t got_bad_cookie;
static _Atomic uint32_t got_last_tick[NT];
static _Atomic uint32_t beat[NT];     /* loops of each receiver */
static _Atomic int stop_receivers;
static _Atomic int receivers_ready;

static void on_wall_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    uint64_t v = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
    if ((v & 0xffff) != HANDLER_WALL_COOKIE || my_slot < 0) {
        atomic_fetch_add(&got_bad_cookie, 1);
        return;
    }
    if ((int)((v >> 16) & 0xff) != wallclock_state(thread_state[my_slot]))
        atomic_fetch_add(&got_bad_state, 1);
    atomic_store(&got_last_tick[my_slot], (uint32_t)(v >> 32));
    atomic_fetch_add(&got[my_slot], 1);
}

static void *receiver(void *p)
{
    my_slot = (int)(intptr_t)p;
    entries[my_slot].tid = (int)syscall(SYS_gettid);
    atomic_fetch_add(&receivers_ready, 1);
    while (!atomic_load(&stop_receivers)) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
        atomic_fetch_add(&beat[my_slot], 1);
    }
    return NULL;
}

static void reset(void)
{
    for (unsigned w = 0; w < THREADS_WORDS; w++) {
        atomic_store(&live_bits[w], 0);
        atomic_store(&filter_bits[w], 0);
    }
    for (int i = 0; i < NT; i++) {
        published[i] = &entries[i];
        atomic_store(&got[i], 0);
    }
    pthread_mutex_lock(&ring_mu);
    nticks = 0;
    pthread_mutex_unlock(&ring_mu);
}

static void set_bit(_Atomic uint64_t *bits, int slot)
{
    atomic_fetch_or(&bits[slot / 64], 1ull << (slot % 64));
}

static int has_bit(_Atomic uint64_t *bits, int slot)
{
    return (int)((atomic_load(&bits[slot / 64]) >> (slot % 64)) & 1);
}

static unsigned ticks_so_far(void)
{
    pthread_mutex_lock(&ring_mu);
    unsigned n = nticks;
    pthread_mutex_unlock(&ring_mu);
    return n;
}

/* Runs the sampler (2 ms ticks) until it has pushed min_ticks tick records, or 60 s went by
 * (a test must not depend on the machine's speed), then stops it and waits until the signals
 * it sent have been handled. */
static void run_sampler(unsigned max_threads, int filter, unsigned min_ticks)
{
    int rc = wallclock_start(&fake_jvmti, &fake_jni, (struct ring *)&dummy_obj, 2000000,
                             max_threads, filter, 64);
    CHECK_EQ_U(rc, 0);
    for (int ms = 0; ms < 60000 && ticks_so_far() < min_ticks; ms++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    CHECK_EQ_U(wallclock_stop(60000000000ull), 0);
    /* every signal sent is pending on its thread by now; a receiver that went through two
     * more loops (a whole nanosleep after this point) has run its handler for it */
    uint32_t snap[NT];
    for (int i = 0; i < NT; i++)
        snap[i] = atomic_load(&beat[i]);
    for (int i = 0, ms = 0; i < NT && ms < 60000; ms++) {
        while (i < NT && atomic_load(&beat[i]) - snap[i] >= 2)
            i++;
        if (i < NT)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

/* The tick records since reset(): checks each against the expected candidates. */
static unsigned check_ticks(const char *what, uint32_t want_cand, uint32_t max_threads,
                            uint32_t want_failed, unsigned min_ticks)
{
    pthread_mutex_lock(&ring_mu);
    unsigned n = nticks, bad = 0;
    uint32_t prev = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct tick_rec *t = &ticks[i];
        uint32_t chosen = want_cand < max_threads ? want_cand : max_threads;
        if (t->candidates != want_cand || t->chosen != chosen ||
            t->signaled + t->failed != t->chosen || t->failed > want_failed ||
            t->tick != prev + 1) {
            if (bad++ < 3)
                fprintf(stderr, "%s: tick %u: candidates %u chosen %u signaled %u failed %u "
                                "(want %u candidates, chosen %u, failed <= %u, id %u)\n",
                        what, t->tick, t->candidates, t->chosen, t->signaled, t->failed,
                        want_cand, chosen, want_failed, prev + 1);
        }
        prev = t->tick;
    }
    pthread_mutex_unlock(&ring_mu);
    printf("  %s: %u ticks\n", what, n);
    CHECK(n >= min_ticks);
    CHECK_EQ_U(bad, 0);
    return n;
}

static uint64_t total_got(void)
{
    uint64_t s = 0;
    for (int i = 0; i < NT; i++)
        s += atomic_load(&got[i]);
    return s;
}

static uint64_t total_signaled(void)
{
    uint64_t s = 0;
    pthread_mutex_lock(&ring_mu);
    for (unsigned i = 0; i < nticks; i++)
        s += ticks[i].signaled;
    pthread_mutex_unlock(&ring_mu);
    return s;
}

static void test_tick(void)
{
    jvmti_fns.RunAgentThread = fake_run_agent_thread;
    jvmti_fns.GetThreadState = fake_get_thread_state;
    jvmti_fns.GetStackTrace = fake_get_stack_trace;
    fake_jvmti = &jvmti_fns;
    jni_fns.FindClass = fake_find_class;
    jni_fns.GetMethodID = fake_get_method_id;
    jni_fns.GetFieldID = fake_get_field_id;
    jni_fns.ExceptionClear = fake_exception_clear;
    jni_fns.ExceptionCheck = fake_exception_check;
    jni_fns.GetIntField = fake_get_int_field;
    jni_fns.GetObjectField = fake_get_object_field;
    jni_fns.NewStringUTF = fake_new_string_utf;
    jni_fns.NewObject = fake_new_object;
    jni_fns.DeleteLocalRef = fake_delete_local_ref;
    fake_jni = &jni_fns;

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_wall_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(TEST_WALL_SIGNAL, &sa, NULL);

    static const jint states[] = {
        JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE,
        JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING |
            JVMTI_THREAD_STATE_WAITING_WITH_TIMEOUT | JVMTI_THREAD_STATE_SLEEPING,
        JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_WAITING |
            JVMTI_THREAD_STATE_WAITING_INDEFINITELY | JVMTI_THREAD_STATE_PARKED,
        JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER,
        JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_RUNNABLE | JVMTI_THREAD_STATE_IN_NATIVE,
    };
    pthread_t th[NT];
    for (int i = 0; i < NT; i++) {
        entries[i].slot = (uint32_t)i;
        entries[i].gref = (jthread)&fake_obj[i];
        entries[i].alive = 1;
        thread_state[i] = states[i % 5];
        pthread_create(&th[i], NULL, receiver, (void *)(intptr_t)i);
    }
    while (atomic_load(&receivers_ready) < NT) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }

    /* 1. every slot live, no filter, 16 per tick */
    reset();
    for (int i = 0; i < NT; i++)
        set_bit(live_bits, i);
    run_sampler(16, 0, 80);
    unsigned n = check_ticks("all live, 16 per tick", NT, 16, 0, 80);
    uint64_t sig = total_signaled(), rec = total_got();
    printf("  all live: %llu signaled, %llu answered\n", (unsigned long long)sig,
           (unsigned long long)rec);
    CHECK_EQ_U(sig, 16ull * n);
    /* a standard signal is not queued: two sends to a thread before its handler ran merge
     * into one, which a loaded machine makes likely; the exact counts are the tick records' */
    CHECK(rec <= sig && rec * 2 >= sig);
    unsigned reached = 0, lo_half = 0, hi_half = 0;
    for (int i = 0; i < NT; i++) {
        reached += atomic_load(&got[i]) > 0;
        if (i < NT / 2)
            lo_half += atomic_load(&got[i]);
        else
            hi_half += atomic_load(&got[i]);
    }
    /* 16 of 150 per tick over >= 80 ticks: a slot is never chosen with probability
     * (134/150)^80 ~ 1.2e-4, so ~0.02 of the 150 are missed */
    printf("  all live: %u of %d slots signaled at least once; halves %u / %u\n", reached, NT,
           lo_half, hi_half);
    CHECK(reached >= NT - 5);
    CHECK(lo_half * 3 >= hi_half * 2 && hi_half * 3 >= lo_half * 2);

    /* 2. max_threads larger than the candidates: every live thread every tick */
    reset();
    for (int i = 0; i < NT; i++)
        set_bit(live_bits, i);
    run_sampler(5000, 0, 20);
    n = check_ticks("all live, 5000 per tick (capped)", NT, NT, 0, 20);
    CHECK_EQ_U(total_signaled(), (uint64_t)NT * n);

    /* 3. live holes and the filter: only live and marked slots, across word boundaries */
    reset();
    /* slot 0 is live and not marked: a filter that lets bit 0 of a word through fails */
    static const int marked[] = {3, 63, 64, 65, 100, 127, 128, 149};
    for (int i = 0; i < NT; i += 2)
        set_bit(live_bits, i);
    for (size_t i = 0; i < sizeof(marked) / sizeof(marked[0]); i++)
        set_bit(filter_bits, marked[i]);
    set_bit(live_bits, 63); /* odd slots marked and live */
    set_bit(live_bits, 65);
    set_bit(live_bits, 127);
    set_bit(live_bits, 149);
    /* marked but not live: 3 (odd, never set live) */
    run_sampler(16, 1, 40);
    uint32_t want = 0;
    for (int i = 0; i < NT; i++)
        want += has_bit(live_bits, i) && has_bit(filter_bits, i);
    CHECK_EQ_U(want, 7);
    check_ticks("filter", want, 16, 0, 40);
    unsigned wrong = 0, missed = 0;
    for (int i = 0; i < NT; i++) {
        int cand = has_bit(live_bits, i) && has_bit(filter_bits, i);
        uint32_t g = atomic_load(&got[i]);
        if (!cand && g) {
            if (wrong++ < 3)
                fprintf(stderr, "filter: slot %d (live %d, marked %d) got %u signals\n", i,
                        has_bit(live_bits, i), has_bit(filter_bits, i), g);
        }
        if (cand && g == 0)
            missed++; /* chosen every tick: at least one signal (see above on merging) */
    }
    CHECK_EQ_U(wrong, 0);
    CHECK_EQ_U(missed, 0);

    /* 4. live holes without the filter, 4 per tick: never a thread that is not live */
    reset();
    for (int i = 1; i < NT; i += 3)
        set_bit(live_bits, i);
    run_sampler(4, 0, 40);
    want = (NT - 1 + 2) / 3;
    check_ticks("holes, 4 per tick", want, 4, 0, 40);
    wrong = 0;
    for (int i = 0; i < NT; i++)
        wrong += !has_bit(live_bits, i) && atomic_load(&got[i]) > 0;
    CHECK_EQ_U(wrong, 0);

    /* 5. threads that ended after the candidates were taken: not alive per JVMTI, or no entry
     * any more: counted as failed, never signaled */
    reset();
    for (int i = 0; i < 10; i++)
        set_bit(live_bits, i);
    jint saved = thread_state[2];
    thread_state[2] = JVMTI_THREAD_STATE_TERMINATED;
    published[7] = NULL;
    run_sampler(16, 0, 40);
    check_ticks("2 of 10 gone", 10, 16, 2, 40);
    pthread_mutex_lock(&ring_mu);
    unsigned bad = 0;
    for (unsigned i = 0; i < nticks; i++)
        bad += ticks[i].failed != 2 || ticks[i].signaled != 8;
    pthread_mutex_unlock(&ring_mu);
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(atomic_load(&got[2]), 0);
    CHECK_EQ_U(atomic_load(&got[7]), 0);
    thread_state[2] = saved;
    published[7] = &entries[7];

    /* 5b. the same with java.lang.Thread laid out as on JDK 19+ (its status in Thread.holder),
     * for a sampler that reads the status word through JNI */
    layout_holder = 1;
    reset();
    for (int i = 0; i < 10; i++)
        set_bit(live_bits, i);
    thread_state[2] = JVMTI_THREAD_STATE_TERMINATED;
    run_sampler(16, 0, 40);
    check_ticks("2 of 10 gone, JDK 19+ layout", 10, 16, 1, 40);
    pthread_mutex_lock(&ring_mu);
    bad = 0;
    for (unsigned i = 0; i < nticks; i++)
        bad += ticks[i].failed != 1 || ticks[i].signaled != 9;
    pthread_mutex_unlock(&ring_mu);
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(atomic_load(&got[2]), 0);
    CHECK(atomic_load(&got[5]) > 0);
    thread_state[2] = saved;
    layout_holder = 0;

    /* 6. no candidates: ticks with 0 chosen, no signals */
    reset();
    run_sampler(16, 1, 20);
    check_ticks("no candidates", 0, 16, 0, 20);
    CHECK_EQ_U(total_got(), 0);

    /* after stop: no more ticks, the sampler thread is gone and unregistered */
    pthread_mutex_lock(&ring_mu);
    unsigned before = nticks;
    pthread_mutex_unlock(&ring_mu);
    struct timespec ts = {0, 30000000};
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&ring_mu);
    CHECK_EQ_U(nticks, before);
    pthread_mutex_unlock(&ring_mu);
    for (int i = 0; i < 100 && atomic_load(&agent_threads); i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    CHECK_EQ_U(atomic_load(&agent_threads), 0);
    CHECK_EQ_U(atomic_load(&reader_registered), 0);
    CHECK_EQ_U(wallclock_stop(60000000000ull), 0); /* idempotent */

    CHECK_EQ_U(atomic_load(&got_bad_state), 0);
    CHECK_EQ_U(atomic_load(&got_bad_cookie), 0);
    CHECK_EQ_U(atomic_load(&outside_read_calls), 0);
    CHECK_EQ_U(atomic_load(&bad_jni), 0);
    CHECK_EQ_U(atomic_load(&walked_bad), 0);
    printf("  %u answers were samples the sampler took itself\n", atomic_load(&walked));
    CHECK_EQ_U(atomic_load(&bad_ring), 0);

    atomic_store(&stop_receivers, 1);
    for (int i = 0; i < NT; i++)
        pthread_join(th[i], NULL);
}

int main(void)
{
    test_choose_shape();
    test_choose_uniform();
    test_state();
    test_tick();
    return harness_result("test_wallclock");
}
