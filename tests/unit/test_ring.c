/* test_ring.c: the MPSC ring.
 *  1. Single thread, against a model of the documented layout: FIFO order, commits out of
 *     order, discards, nested reservations, exact full/free accounting with wrap padding over
 *     many laps, the length limits, and that stale bytes never read as a record.
 *  3. The consumer wakeup (ring_set_wakeup / ring_rearm): one eventfd write per crossing of
 *     the level while armed.
 *  2. Stress: NPROD producer threads, a thread that storms them with SIGUSR2 whose handler
 *     produces too (interrupting producers between reserve and commit), and one consumer on a
 *     small ring. Every (producer, sequence) must be consumed exactly once, in order and
 *     intact, or be counted as dropped or discarded by its producer; the drops must add up to
 *     ring_drops().
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ring.h"
#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

/* ---- shared helpers ------------------------------------------------------------------------ */

/* xorshift64*: small, and safe in a signal handler (state is the caller's). */
static uint64_t rnd(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * UINT64_C(0x2545F4914F6CDD1D);
}

/* Word w of a payload after the 16-byte (id, len, seq) prefix. Even words look exactly like a
 * committed header of a short record (small length, no flags), so a ring that let a stale
 * payload word pass for a header would hand out garbage; odd words are dense. */
static uint64_t fill_word(uint32_t id, uint64_t seq, uint64_t w)
{
    uint64_t x = (seq * UINT64_C(0x9E3779B97F4A7C15)) ^ (w * UINT64_C(0xBF58476D1CE4E5B9)) ^ id;
    if (w % 2 == 0)
        return 8 + (x >> 57);
    return x ^ (x >> 31);
}

/* Writes the payload of record (id, seq) of len >= 16 bytes. Async-signal-safe. */
static void payload_write(uint8_t *p, uint32_t id, uint64_t seq, uint32_t len)
{
    for (int b = 0; b < 4; b++) {
        p[b] = (uint8_t)(id >> (8 * b));
        p[4 + b] = (uint8_t)(len >> (8 * b));
    }
    for (int b = 0; b < 8; b++)
        p[8 + b] = (uint8_t)(seq >> (8 * b));
    for (uint32_t w = 2; w * 8 < len; w++) {
        uint64_t v = fill_word(id, seq, w);
        for (uint32_t k = w * 8; k < w * 8 + 8 && k < len; k++, v >>= 8)
            p[k] = (uint8_t)v;
    }
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
    return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* True when p holds exactly the payload payload_write(id, seq, len) would write. */
static bool payload_ok(const uint8_t *p, uint32_t id, uint64_t seq, uint32_t len)
{
    if (len < 16 || get_u32(p) != id || get_u32(p + 4) != len || get_u64(p + 8) != seq)
        return false;
    for (uint32_t w = 2; w * 8 < len; w++) {
        uint64_t v = fill_word(id, seq, w);
        for (uint32_t k = w * 8; k < w * 8 + 8 && k < len; k++, v >>= 8)
            if (p[k] != (uint8_t)v)
                return false;
    }
    return true;
}

static uint64_t rec_size(uint32_t len)
{
    return RING_HEADER_SIZE + (((uint64_t)len + 7) & ~UINT64_C(7));
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

/* ---- 1. single thread ---------------------------------------------------------------------- */

static void test_init(void)
{
    struct ring r;

    if (ring_init(&r, 0) != 0) {
        CHECK(!"ring_init");
        return;
    }
    CHECK_EQ_U(r.capacity, 4096);
    CHECK(r.data != NULL && ((uintptr_t)r.data & 7) == 0);
    CHECK(all_zero(r.data, r.capacity));
    CHECK_EQ_U(ring_max_len(&r), 4096 / 4 - 8);
    ring_destroy(&r);
    CHECK(r.data == NULL);
    ring_destroy(&r); /* second call: no-op */

    if (ring_init(&r, 4097) == 0) {
        CHECK_EQ_U(r.capacity, 8192);
        CHECK_EQ_U(r.mask, 8191);
        ring_destroy(&r);
    } else {
        CHECK(!"ring_init 4097");
    }
    if (ring_init(&r, 65536) == 0) {
        CHECK_EQ_U(r.capacity, 65536);
        ring_destroy(&r);
    } else {
        CHECK(!"ring_init 65536");
    }
    CHECK_EQ_U(ring_init(&r, SIZE_MAX), (unsigned long long)-EINVAL);
}

static void test_basic(void)
{
    struct ring r;
    uint32_t len = 0;
    const uint8_t *q;

    if (ring_init(&r, 4096) != 0) {
        CHECK(!"ring_init");
        return;
    }
    CHECK(ring_peek(&r, &len) == NULL);
    ring_release(&r); /* nothing peeked: must not move */
    CHECK_EQ_U(atomic_load(&r.tail), 0);

    /* Limits: len 0 and len > max are refused and counted. */
    uint8_t *big = ring_reserve(&r, ring_max_len(&r));
    CHECK(big != NULL);
    if (big)
        ring_discard(&r, big);
    CHECK(ring_reserve(&r, ring_max_len(&r) + 1) == NULL);
    CHECK(ring_reserve(&r, 0) == NULL);
    CHECK(ring_reserve(&r, UINT32_MAX) == NULL);
    CHECK_EQ_U(ring_drops(&r), 3);
    CHECK(ring_peek(&r, &len) == NULL); /* the discarded record is skipped */

    /* FIFO by reservation order, whatever the commit order. */
    uint8_t *a = ring_reserve(&r, 16), *b = ring_reserve(&r, 100), *c = ring_reserve(&r, 21);
    CHECK(a && b && c);
    if (!a || !b || !c)
        goto out;
    CHECK(((uintptr_t)a & 7) == 0 && ((uintptr_t)b & 7) == 0 && ((uintptr_t)c & 7) == 0);
    CHECK(b >= a + 16 && c >= b + 100);
    payload_write(a, 1, 1, 16);
    payload_write(b, 1, 2, 100);
    payload_write(c, 1, 3, 21);
    ring_commit(&r, c);
    CHECK(ring_peek(&r, &len) == NULL); /* a is still busy: stop there */
    ring_commit(&r, a);
    q = ring_peek(&r, &len);
    CHECK(q == a && len == 16 && q && payload_ok(q, 1, 1, 16));
    CHECK(ring_peek(&r, &len) == a); /* peek does not consume */
    ring_release(&r);
    CHECK(ring_peek(&r, &len) == NULL); /* b busy */
    ring_commit(&r, b);
    q = ring_peek(&r, &len);
    CHECK(q == b && len == 100 && q && payload_ok(q, 1, 2, 100));
    ring_release(&r);
    q = ring_peek(&r, &len);
    CHECK(q == c && len == 21 && q && payload_ok(q, 1, 3, 21));
    ring_release(&r);
    CHECK(ring_peek(&r, &len) == NULL);

    /* Discards are skipped, wherever they are. */
    a = ring_reserve(&r, 24);
    b = ring_reserve(&r, 24);
    c = ring_reserve(&r, 24);
    CHECK(a && b && c);
    if (!a || !b || !c)
        goto out;
    payload_write(a, 2, 1, 24);
    payload_write(b, 2, 2, 24);
    payload_write(c, 2, 3, 24);
    ring_commit(&r, c);
    ring_discard(&r, b);
    CHECK(ring_peek(&r, &len) == NULL);
    ring_discard(&r, a);
    q = ring_peek(&r, &len);
    CHECK(q == c && len == 24 && q && payload_ok(q, 2, 3, 24));
    ring_release(&r);
    CHECK(ring_peek(&r, &len) == NULL);

    /* A "handler" nested inside an open reservation on the same thread. */
    uint8_t *outer = ring_reserve(&r, 40);
    CHECK(outer != NULL);
    if (!outer)
        goto out;
    payload_write(outer, 3, 1, 20);
    uint8_t *inner = ring_reserve(&r, 40);
    CHECK(inner != NULL);
    if (!inner)
        goto out;
    payload_write(inner, 4, 1, 40);
    ring_commit(&r, inner);
    CHECK(ring_peek(&r, &len) == NULL);
    payload_write(outer, 3, 1, 40);
    ring_commit(&r, outer);
    q = ring_peek(&r, &len);
    CHECK(q == outer && len == 40 && q && payload_ok(q, 3, 1, 40));
    ring_release(&r);
    q = ring_peek(&r, &len);
    CHECK(q == inner && len == 40 && q && payload_ok(q, 4, 1, 40));
    ring_release(&r);
    CHECK(ring_peek(&r, &len) == NULL);
    CHECK(all_zero(r.data, r.capacity));
    CHECK_EQ_U(ring_drops(&r), 3);
out:
    ring_destroy(&r);
}

static void test_full(void)
{
    struct ring r;
    uint32_t len;
    unsigned n = 0;

    if (ring_init(&r, 4096) != 0) {
        CHECK(!"ring_init");
        return;
    }
    /* 64-byte records: exactly 4096 / 64 fit; the next one is dropped, not waited for. */
    for (;;) {
        uint8_t *p = ring_reserve(&r, 56);
        if (!p)
            break;
        payload_write(p, 5, n, 56);
        ring_commit(&r, p);
        n++;
    }
    CHECK_EQ_U(n, 64);
    CHECK_EQ_U(ring_drops(&r), 1);
    CHECK(ring_reserve(&r, 1) == NULL);
    CHECK_EQ_U(ring_drops(&r), 2);

    /* Freeing one record makes room for exactly one more, at offset 0 of the next lap. */
    const uint8_t *q = ring_peek(&r, &len);
    CHECK(q && len == 56 && payload_ok(q, 5, 0, 56));
    ring_release(&r);
    uint8_t *p = ring_reserve(&r, 56);
    CHECK(p == r.data + RING_HEADER_SIZE);
    if (p) {
        payload_write(p, 5, n++, 56);
        ring_commit(&r, p);
    }
    CHECK(ring_reserve(&r, 8) == NULL);
    CHECK_EQ_U(ring_drops(&r), 3);

    /* Everything comes out in order. */
    for (unsigned i = 1; i < n; i++) {
        q = ring_peek(&r, &len);
        CHECK(q && len == 56 && payload_ok(q, 5, i, 56));
        ring_release(&r);
    }
    CHECK(ring_peek(&r, &len) == NULL);
    CHECK(all_zero(r.data, r.capacity));
    ring_destroy(&r);
}

enum { M_BUSY, M_COMMITTED, M_DISCARDED };

struct mrec {
    uint64_t seq;
    uint8_t *payload;
    uint32_t len;
    uint32_t pad; /* padding reserved just before this record */
    int state;
};

#define MQ 1024 /* > capacity / 16: the most records a 4 KiB ring can hold */

/* Random operations on a 4 KiB ring checked against a model of the documented layout: the
 * exact offset of every record, exactly when a reservation fits, the padding at the end of
 * each lap, and what peek must return. */
static void test_laps(void)
{
    struct ring r;
    struct mrec q[MQ];
    unsigned qh = 0, qt = 0; /* model FIFO: records [qt, qh) in reservation order */
    uint64_t mhead = 0, mtail = 0, mdrops = 0, seq = 0, pads = 0, consumed = 0, fails = 0;
    uint64_t empties = 0;
    uint64_t s = 0x1234567;
    const unsigned iters = UNDER_TSAN ? 100000 : 400000;

    if (ring_init(&r, 4096) != 0) {
        CHECK(!"ring_init");
        return;
    }
    const uint64_t cap = r.capacity, maxlen = ring_max_len(&r);

    for (unsigned it = 0; it < iters && fails < 10; it++) {
        /* Alternate producer-heavy and consumer-heavy phases: full and empty both happen. */
        bool fill = (it / 1500) % 2 == 0;
        unsigned op = (unsigned)(rnd(&s) % 100);
        bool bad = false;

        if (op < (fill ? 50u : 10u)) {
            uint64_t x = rnd(&s);
            uint32_t len = x % 10 < 6   ? 16 + (uint32_t)(x >> 8) % 48
                           : x % 10 < 9 ? 16 + (uint32_t)(x >> 8) % 300
                                        : 16 + (uint32_t)((x >> 8) % (maxlen - 15));
            uint64_t need = rec_size(len), off = mhead & (cap - 1);
            uint64_t pad = off + need > cap ? cap - off : 0;
            bool fits = mhead + pad + need - mtail <= cap;
            uint8_t *p = ring_reserve(&r, len);

            if ((p != NULL) != fits) {
                bad = true;
            } else if (!p) {
                mdrops++;
            } else {
                if (p != r.data + (pad ? 0 : off) + RING_HEADER_SIZE || qh - qt >= MQ)
                    bad = true;
                payload_write(p, 6, seq, len);
                q[qh % MQ] = (struct mrec){seq++, p, len, (uint32_t)pad, M_BUSY};
                qh++;
                mhead += pad + need;
                pads += pad != 0;
            }
        } else if (op < (fill ? 85u : 50u)) {
            /* Commit (or sometimes discard) a random open reservation, in any order. */
            unsigned open[MQ], n = 0;
            for (unsigned i = qt; i != qh; i++)
                if (q[i % MQ].state == M_BUSY)
                    open[n++] = i % MQ;
            if (n) {
                struct mrec *m = &q[open[rnd(&s) % n]];
                if (rnd(&s) % 8 == 0) {
                    ring_discard(&r, m->payload);
                    m->state = M_DISCARDED;
                } else {
                    ring_commit(&r, m->payload);
                    m->state = M_COMMITTED;
                }
            }
        } else {
            /* Peek: the model skips padding and leading discards, stops at a busy record. */
            struct mrec *m = NULL;
            while (qt != qh) {
                m = &q[qt % MQ];
                mtail += m->pad;
                m->pad = 0;
                if (m->state != M_DISCARDED)
                    break;
                mtail += rec_size(m->len);
                qt++;
                m = NULL;
            }
            uint32_t len = 0;
            const uint8_t *p = ring_peek(&r, &len);
            if (!m || m->state == M_BUSY) {
                bad |= p != NULL;
            } else if (p != m->payload || len != m->len || !payload_ok(p, 6, m->seq, len)) {
                bad = true;
            } else if (rnd(&s) % 4 != 0) {
                ring_release(&r);
                mtail += rec_size(m->len);
                qt++;
                consumed++;
            }
            if (qt == qh) {
                empties++;
                if (!all_zero(r.data, cap))
                    bad = true; /* an empty ring is all zero: no stale header survives */
            }
        }
        if (atomic_load(&r.head) != mhead || atomic_load(&r.tail) != mtail ||
            ring_drops(&r) != mdrops)
            bad = true;
        if (bad) {
            fprintf(stderr, "test_laps: iteration %u (op %u): head %llu/%llu tail %llu/%llu\n", it,
                    op, (unsigned long long)atomic_load(&r.head), (unsigned long long)mhead,
                    (unsigned long long)atomic_load(&r.tail), (unsigned long long)mtail);
            fails++;
        }
    }
    CHECK_EQ_U(fails, 0);
    CHECK(mhead / cap > 100); /* many laps */
    CHECK(pads > 100);        /* and many of them ended with padding */
    CHECK(mdrops > 100);      /* the ring was full many times */
    CHECK(consumed > 10000);
    CHECK(empties > 100); /* and empty many times, at many offsets */
    printf("test_laps: %llu records consumed, %llu laps, %llu paddings, %llu drops, "
           "%llu times empty\n",
           (unsigned long long)consumed, (unsigned long long)(mhead / cap),
           (unsigned long long)pads, (unsigned long long)mdrops, (unsigned long long)empties);
    ring_destroy(&r);
}

/* ---- 2. stress: threads, a signal storm, one consumer --------------------------------------- */

#define NPROD 4
#define NIDS (2 * NPROD)       /* ids [0, NPROD): threads; [NPROD, NIDS): their handlers */
#define MAXSEQ (1u << 20)      /* per id; a handler stops producing beyond it */
#define STRESS_CAP (16 * 1024) /* small: the ring fills, drops happen */
#define WAIT_EVERY 1024        /* a producer holds every Nth record open until a signal came */
#define PAUSE_EVERY (UNDER_TSAN ? 2000 : 20000) /* consumer pauses every N records until drops */
#define PRODUCER_WORK 400 /* busy-loop iterations between a producer's records, at most */
#if UNDER_TSAN
#define ITERS 12000
#else
#define ITERS 200000
#endif

enum { ST_NONE, ST_COMMIT, ST_DROP, ST_DISCARD };

static struct ring sring;
static pthread_t prod_thread[NPROD];
static __thread int tls_index = -1;
/* Per id, per sequence number. status: written by the producer (or the handler) that owns
 * the id; seen: written by the consumer. Both read by main after the joins. */
static uint8_t *status[NIDS];
static uint8_t *seen[NIDS];
static uint64_t produced[NIDS], dropped[NIDS], discarded[NIDS];
static uint64_t hrnd[NPROD];                   /* the handlers' own PRNG states */
static volatile sig_atomic_t in_record[NPROD]; /* producer i is between reserve and commit */
static uint64_t nested[NPROD];                 /* handler ran while in_record: written by it */
static uint64_t waits[NPROD];                  /* records held open until a signal came */
static _Atomic uint64_t handled[NPROD];        /* relaxed: a count producers wait on */
static _Atomic int ready, producers_done, stop_signals, stop_consumer;

struct consumer_result {
    uint64_t records, errors, pauses;
};

/* Waits by sleeping, not sched_yield(): on an overloaded machine a yielding thread keeps
 * the CPU from the preempted producer whose open record everyone else is waiting for. */
static void nap(void)
{
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
}

static uint32_t stress_len(uint64_t *s, uint32_t maxlen)
{
    uint64_t x = rnd(s);
    if (x % 64 == 0)
        return 16 + (uint32_t)((x >> 8) % (maxlen - 15)); /* big: forces wrap padding */
    return 16 + (uint32_t)((x >> 8) % 500);
}

/* One record of id, from a thread or its handler. Async-signal-safe. */
static void produce(uint32_t id, uint64_t *s, int i, bool wait_signal)
{
    uint64_t seq = produced[id];
    if (seq >= MAXSEQ)
        return;
    produced[id] = seq + 1;
    uint32_t len = stress_len(s, ring_max_len(&sring));
    uint8_t *p = ring_reserve(&sring, len);
    if (!p) {
        status[id][seq] = ST_DROP;
        dropped[id]++;
        /* A thread (not a handler) lets the others run: the ring is most often full because
         * a preempted producer holds an open record that the consumer waits for. */
        if (i >= 0)
            nap();
        return;
    }
    if (i >= 0) {
        in_record[i] = 1;
        atomic_signal_fence(memory_order_seq_cst); /* set before the payload writes */
    }
    payload_write(p, id, seq, len);
    if (wait_signal) {
        /* Keep the record open until a handler ran on this thread: the consumer must stop at
         * it, and the handler's own records land behind it. */
        uint64_t before = atomic_load_explicit(&handled[i], memory_order_relaxed);
        while (atomic_load_explicit(&handled[i], memory_order_relaxed) == before)
            nap();
        waits[i]++;
    }
    if (rnd(s) % 32 == 0) {
        ring_discard(&sring, p);
        status[id][seq] = ST_DISCARD;
        discarded[id]++;
    } else {
        ring_commit(&sring, p);
        status[id][seq] = ST_COMMIT;
    }
    if (i >= 0) {
        atomic_signal_fence(memory_order_seq_cst);
        in_record[i] = 0;
    }
}

static void on_sigusr2(int sig)
{
    int saved = errno;
    int i = tls_index;

    (void)sig;
    if (i >= 0 && i < NPROD) {
        if (in_record[i])
            nested[i]++;
        produce((uint32_t)(NPROD + i), &hrnd[i], -1, false);
        /* relaxed: only a count; status/produced are read after the joins. */
        atomic_fetch_add_explicit(&handled[i], 1, memory_order_relaxed);
    }
    errno = saved;
}

static void *producer(void *arg)
{
    int i = (int)(intptr_t)arg;
    uint64_t s = UINT64_C(0xABCDEF12345) * (uint64_t)(i + 1);

    tls_index = i;
    hrnd[i] = UINT64_C(0x5151515151) * (uint64_t)(i + 7);
    /* release: tls_index and hrnd are set before the signaller starts sending. */
    atomic_fetch_add_explicit(&ready, 1, memory_order_release);
    for (unsigned n = 0; n < ITERS; n++) {
        produce((uint32_t)i, &s, i, n % WAIT_EVERY == WAIT_EVERY - 1);
        /* Some work between samples, so that the consumer keeps up part of the time. */
        for (volatile unsigned k = (unsigned)(rnd(&s) % PRODUCER_WORK); k > 0; k--)
            ;
    }
    atomic_fetch_add_explicit(&producers_done, 1, memory_order_release);
    /* Stay alive (and keep taking signals) until the signaller no longer targets us. */
    while (!atomic_load_explicit(&stop_signals, memory_order_acquire))
        nap();
    return NULL;
}

static void *signaller(void *arg)
{
    uint64_t *sent = arg;

    while (atomic_load_explicit(&ready, memory_order_acquire) < NPROD)
        nap();
    while (atomic_load_explicit(&producers_done, memory_order_acquire) < NPROD) {
        for (int i = 0; i < NPROD; i++) {
            if (pthread_kill(prod_thread[i], SIGUSR2) == 0)
                (*sent)++;
        }
    }
    /* release: after our last pthread_kill, so producers may exit. */
    atomic_store_explicit(&stop_signals, 1, memory_order_release);
    return NULL;
}

static void *consumer(void *arg)
{
    struct consumer_result *res = arg;
    uint64_t last[NIDS];
    const uint32_t maxlen = ring_max_len(&sring);

    for (int id = 0; id < NIDS; id++)
        last[id] = UINT64_MAX;
    for (;;) {
        /* acquire: once stop is seen, every commit happened before the peek below. */
        int stopping = atomic_load_explicit(&stop_consumer, memory_order_acquire);
        uint32_t len = 0;
        const uint8_t *p = ring_peek(&sring, &len);
        if (!p) {
            if (stopping)
                break;
            nap();
            continue;
        }
        uint32_t id = len >= 16 ? get_u32(p) : UINT32_MAX;
        uint64_t seq = len >= 16 ? get_u64(p + 8) : UINT64_MAX;
        bool ok = len >= 16 && len <= maxlen && id < NIDS && seq < MAXSEQ &&
                  (last[id] == UINT64_MAX || seq > last[id]) && payload_ok(p, id, seq, len);
        if (ok) {
            last[id] = seq;
            ok = seen[id][seq]++ == 0;
        }
        if (!ok && res->errors++ < 10)
            fprintf(stderr, "test_ring stress: bad record #%llu: len %u id %u seq %llu\n",
                    (unsigned long long)res->records, len, id, (unsigned long long)seq);
        ring_release(&sring);
        res->records++;
        if (res->records % PAUSE_EVERY == 0) {
            /* Fall behind until the producers overrun the ring, so full-ring drops happen
             * while records are in flight. */
            uint64_t d = ring_drops(&sring);
            while (ring_drops(&sring) == d &&
                   atomic_load_explicit(&producers_done, memory_order_acquire) < NPROD)
                nap();
            res->pauses++;
        }
    }
    return NULL;
}

static void test_stress(void)
{
    struct sigaction sa;
    pthread_t sig_thread, cons_thread;
    struct consumer_result res = {0};
    uint64_t sent = 0;

    if (ring_init(&sring, STRESS_CAP) != 0) {
        CHECK(!"ring_init");
        return;
    }
    for (int id = 0; id < NIDS; id++) {
        status[id] = calloc(MAXSEQ, 1);
        seen[id] = calloc(MAXSEQ, 1);
        if (!status[id] || !seen[id]) {
            CHECK(!"calloc");
            goto out;
        }
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigusr2;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    CHECK_EQ_U(sigaction(SIGUSR2, &sa, NULL), 0);

    if (pthread_create(&cons_thread, NULL, consumer, &res) != 0) {
        CHECK(!"pthread_create consumer");
        goto out;
    }
    for (int i = 0; i < NPROD; i++)
        if (pthread_create(&prod_thread[i], NULL, producer, (void *)(intptr_t)i) != 0)
            abort(); /* the signaller could never stop: give up loudly */
    if (pthread_create(&sig_thread, NULL, signaller, &sent) != 0)
        abort();
    pthread_join(sig_thread, NULL);
    for (int i = 0; i < NPROD; i++)
        pthread_join(prod_thread[i], NULL);
    /* release: every producer's commit (ordered by the joins) before the consumer's last
     * drain. */
    atomic_store_explicit(&stop_consumer, 1, memory_order_release);
    pthread_join(cons_thread, NULL);

    uint64_t total = 0, recv = 0, drops = 0, discards = 0, hrecv = 0, hprod = 0;
    uint64_t handled_sum = 0, nest = 0, nwaits = 0;
    uint64_t mismatches = 0;
    for (int id = 0; id < NIDS; id++) {
        uint64_t got = 0;
        for (uint64_t seq = 0; seq < MAXSEQ; seq++) {
            uint8_t st = status[id][seq], n = seen[id][seq];
            bool ok = st == ST_COMMIT ? n == 1 : n == 0;
            if (!ok && mismatches++ < 10)
                fprintf(stderr, "test_ring stress: id %d seq %llu: status %u, seen %u times\n", id,
                        (unsigned long long)seq, st, n);
            got += n;
            if (seq >= produced[id] && st != ST_NONE)
                mismatches++;
        }
        CHECK_EQ_U(got + dropped[id] + discarded[id], produced[id]);
        total += produced[id];
        recv += got;
        drops += dropped[id];
        discards += discarded[id];
        if (id >= NPROD) {
            hrecv += got;
            hprod += produced[id];
        }
    }
    for (int i = 0; i < NPROD; i++) {
        handled_sum += atomic_load(&handled[i]);
        nest += nested[i];
        nwaits += waits[i];
    }
    CHECK_EQ_U(res.errors, 0);
    CHECK_EQ_U(mismatches, 0);
    CHECK_EQ_U(recv, res.records);
    CHECK_EQ_U(recv + drops + discards, total);
    CHECK_EQ_U(drops, ring_drops(&sring));
    CHECK_EQ_U(atomic_load(&sring.head), atomic_load(&sring.tail)); /* drained */
    /* The run covered what it is meant to: full ring, many laps, handler records, handlers
     * interrupting open records (guaranteed by WAIT_EVERY). */
    CHECK(drops > 0);
    CHECK(atomic_load(&sring.head) / sring.capacity > 100);
    CHECK(hrecv > 0);
    CHECK(nwaits > 0);
    CHECK(nest >= nwaits);
    printf("test_ring stress: %llu records produced (%llu by handlers), %llu received, "
           "%llu dropped, %llu discarded; %llu signals sent, %llu handled, %llu inside an "
           "open record (%llu held open on purpose); %llu laps, %llu consumer pauses\n",
           (unsigned long long)total, (unsigned long long)hprod, (unsigned long long)recv,
           (unsigned long long)drops, (unsigned long long)discards, (unsigned long long)sent,
           (unsigned long long)handled_sum, (unsigned long long)nest, (unsigned long long)nwaits,
           (unsigned long long)(atomic_load(&sring.head) / sring.capacity),
           (unsigned long long)res.pauses);
out:
    for (int id = 0; id < NIDS; id++) {
        free(status[id]);
        free(seen[id]);
    }
    ring_destroy(&sring);
}

/* Counts and clears the wakeups written to an eventfd. */
static uint64_t wakeups(int fd)
{
    uint64_t v = 0;
    if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
        return 0;
    return v;
}

/* 3. The consumer wakeup: exactly one write to the eventfd per crossing of the level while
 * armed, none while disarmed or below the level; ring_rearm says when the ring is already
 * above it. */
static void test_wakeup(void)
{
    struct ring r;
    CHECK(ring_init(&r, 4096) == 0);
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    CHECK(fd >= 0);
    ring_set_wakeup(&r, fd, 1024);
    /* disarmed until the first rearm: filling past the level wakes nobody */
    for (int i = 0; i < 20; i++)
        ring_commit(&r, ring_reserve(&r, 56)); /* 64 bytes a record */
    CHECK_EQ_U(wakeups(fd), 0);
    CHECK_EQ_U(ring_rearm(&r), 1); /* 1280 >= 1024: drain again instead of sleeping */
    uint32_t len;
    while (ring_peek(&r, &len))
        ring_release(&r);
    CHECK_EQ_U(ring_rearm(&r), 0);
    for (int i = 0; i < 15; i++)
        ring_commit(&r, ring_reserve(&r, 56));
    CHECK_EQ_U(wakeups(fd), 0); /* 960 bytes: below the level */
    ring_commit(&r, ring_reserve(&r, 56));
    CHECK_EQ_U(wakeups(fd), 1); /* 1024: the crossing commit wakes */
    for (int i = 0; i < 10; i++)
        ring_commit(&r, ring_reserve(&r, 56));
    CHECK_EQ_U(wakeups(fd), 0); /* once per rearm */
    while (ring_peek(&r, &len))
        ring_release(&r);
    CHECK_EQ_U(ring_rearm(&r), 0);
    for (int i = 0; i < 16; i++)
        ring_commit(&r, ring_reserve(&r, 56));
    CHECK_EQ_U(wakeups(fd), 1); /* armed again: the next crossing wakes again */
    ring_set_wakeup(&r, -1, 0);
    close(fd);
    ring_destroy(&r);
}

int main(void)
{
    test_init();
    test_basic();
    test_full();
    test_laps();
    test_wakeup();
    test_stress();
    return harness_result("test_ring");
}
