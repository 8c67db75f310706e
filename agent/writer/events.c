/* events.c: per-thread event buffers filled by dev.flyprof.Events' natives and drained by the
 * writer (see events.h for the protocol and who owns what). */
#include "events.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "counters.h"
#include "fpl_format.h"
#include "tls.h"
#include "tsc.h"

/* A record in a buffer: 16 bytes, 16-aligned, then the payload (UTF-16 units of the string),
 * the whole rounded up to 16 bytes, so an event without a string never needs padding. */
struct events_rec {
    uint64_t ticks; /* the clock when logged; for a GAP record: the events dropped before the
                     * event that follows it */
    int32_t n;
    uint16_t size;  /* bytes of the record, a multiple of 16 */
    uint8_t flags;  /* FPL_EVENT_STRING, FPL_EVENT_TRUNCATED, REC_GAP, REC_PAD */
    uint8_t nchars; /* UTF-16 units that follow */
};

#define REC_GAP 0x40       /* a drop count, always followed by its event (written together) */
#define REC_PAD 0x80       /* filler up to the end of the buffer: the next record is at offset 0 */
#define RECORD_EVENTS 4096 /* events per EVENTS record at most */
#define CACHE_LINE 64

struct events_buf {
    /* the producer's (the owner thread's) line: read and written on every event */
    uint64_t phead;     /* == head: the producer's own copy */
    uint64_t tail_seen; /* tail when the producer last loaded it (<= tail) */
    uint64_t woke_for;  /* 1 + the tail for which a drain was last requested */
    uint64_t check_at;  /* head position past which fill_check looks again */
    uint64_t mask;      /* bytes of data - 1: a power of two - 1 */
    uint8_t *data;
    _Atomic uint64_t pending; /* drops not yet carried by a gap record: see events.h */
    uint32_t gen;             /* session; set before the buffer is published, then fixed */
    /* (the fields above fill the first cache line: one line per event) */

    _Alignas(CACHE_LINE) _Atomic uint64_t head; /* producer: release; writer: acquire */
    _Alignas(CACHE_LINE) _Atomic uint64_t tail; /* writer: release; producer: acquire; its low
                                                 * half is the futex a full buffer waits on */
    /* the producer sets it (seq_cst) before it sleeps on tail's futex; the writer reads it
     * after a seq_cst fence that follows its store of tail, and wakes the futex when set */
    _Atomic uint32_t waiting;
    uint64_t wtail; /* the writer's own copy of tail */
    /* the producer's, read on its slow path only: 1 + the tail at which a wait for room timed
     * out (the writer did not move in wait_ns); no waiting again until the tail moves */
    uint64_t stuck_tail;
    /* under lock */
    struct events_buf *prev, *next;
    int gone; /* the owner ended or moved to a newer buffer */
    /* set before publication, then read-only */
    int tid;
    uint32_t slot1;
};

_Static_assert(offsetof(struct events_buf, gen) + sizeof(uint32_t) <= CACHE_LINE,
               "the producer's fields take one cache line");

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct events_buf *list; /* under lock: every buffer not yet freed */
static uint32_t drain_gen;      /* under lock: the session the writer drains, 0: none */
static uint32_t last_gen;       /* control thread: generations handed out */
/* 0 when off. Release store in events_start pairs with the producers' acquire load, so a
 * producer that sees a session also sees buf_bytes, use_tsc and wake below. */
static _Atomic uint32_t events_gen;
static uint64_t buf_bytes;
static uint64_t wait_ns; /* the longest a producer waits for room (agent option eventwait=) */
static int use_tsc;
static void (*wake_fn)(void);
/* events dropped because a buffer could not be allocated: any thread adds (relaxed, a plain
 * count), the writer logs the increase under thread id 0 */
static _Atomic uint64_t nomem_drops;
static uint64_t nomem_logged; /* writer */
/* 1 while the writer polls the buffers every EVENTS_POLL_NS (events_set_polling), and the
 * clock when its last drain began: a producer leaves a polling writer that drained within
 * late_ticks asleep until its buffer is half full. Relaxed both ways: hints that order
 * nothing; a producer that reads them stale wakes the writer once needlessly, or at half full
 * instead of a quarter. */
static _Atomic int writer_polls;
static _Atomic uint64_t drained_at;
static uint64_t late_ticks; /* 1.5 poll periods in clock ticks; set in events_start */
/* bytes of every buffer not yet freed (relaxed: a budget, no data published with it) */
static _Atomic uint64_t total_bytes;

/* The bytes buffer b holds (its header and data). */
static size_t buf_size(const struct events_buf *b)
{
    return (size_t)(b->data - (const uint8_t *)b) + b->mask + 1;
}

uint64_t events_bytes(void)
{
    return atomic_load_explicit(&total_bytes, memory_order_relaxed);
}

static void buf_free(struct events_buf *b)
{
    atomic_fetch_sub_explicit(&total_bytes, buf_size(b), memory_order_relaxed);
    free(b);
}

static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static int key_error;

static __thread struct events_buf *tls_buf __attribute__((tls_model("initial-exec")));

/* writer scratch: the buffers of one drain pass, and which were gone before it began */
static struct events_buf **snap;
static uint8_t *snap_gone;
static size_t snap_cap;

static inline uint64_t clock_read(void)
{
    return use_tsc ? __rdtsc() : tsc_read_sigsafe();
}

static void list_unlink(struct events_buf *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        list = b->next;
    if (b->next)
        b->next->prev = b->prev;
}

/* The owner lets b go (it ended, or moved to a newer session). Takes lock. */
static void buf_release(struct events_buf *b)
{
    pthread_mutex_lock(&lock);
    if (b->gen != drain_gen) {
        /* no writer will read it: its session's events were drained or are off */
        list_unlink(b);
        buf_free(b);
    } else {
        b->gone = 1;
    }
    pthread_mutex_unlock(&lock);
}

static void on_thread_exit(void *p)
{
    if (tls_buf == p)
        tls_buf = NULL;
    buf_release(p);
}

static void make_key(void)
{
    key_error = pthread_key_create(&key, on_thread_exit);
}

int events_start(uint32_t units, uint64_t wait, void (*wake)(void))
{
    pthread_once(&key_once, make_key);
    if (key_error)
        return -key_error;
    if (!units)
        return 0;
    /* a power of two, so positions map to offsets with a mask; at least 1 KiB, room for the
     * largest record with its gap record and padding */
    uint64_t bytes = (uint64_t)units * EVENTS_UNIT, cap = 1024;
    while (cap < bytes)
        cap <<= 1;
    buf_bytes = cap;
    wait_ns = wait;
    use_tsc = tsc_is_tsc();
    wake_fn = wake;
    atomic_store_explicit(&writer_polls, 0, memory_order_relaxed); /* the new writer sleeps */
    late_ticks = tsc_ticks_per_sec() / (1000000000ull / EVENTS_POLL_NS) * 3 / 2;
    pthread_mutex_lock(&lock);
    if (++last_gen == 0)
        last_gen = 1;
    drain_gen = last_gen;
    pthread_mutex_unlock(&lock);
    atomic_store_explicit(&events_gen, last_gen, memory_order_release);
    return 0;
}

void events_stop(void)
{
    /* relaxed: a producer seeing 0 only returns; nothing is published with it */
    atomic_store_explicit(&events_gen, 0, memory_order_relaxed);
}

/* A new buffer of session gen for the calling thread, retiring its old one. NULL when the
 * session ended meanwhile or memory ran out (then the event is counted in nomem_drops). */
static struct events_buf *buf_create(uint32_t gen)
{
    struct events_buf *old = tls_buf;
    if (old) {
        /* the exit hook must not release it a second time */
        pthread_setspecific(key, NULL);
        tls_buf = NULL;
        buf_release(old);
    }
    size_t head = (sizeof(struct events_buf) + CACHE_LINE - 1) & ~(size_t)(CACHE_LINE - 1);
    /* the budget of all buffers: past it a thread's events are dropped and counted, as when
     * memory runs out (a pool of thousands of logging threads would otherwise hold GBs) */
    uint64_t bytes = head + buf_bytes;
    if (atomic_fetch_add_explicit(&total_bytes, bytes, memory_order_relaxed) + bytes >
        EVENTS_MAX_TOTAL_BYTES) {
        atomic_fetch_sub_explicit(&total_bytes, bytes, memory_order_relaxed);
        atomic_fetch_add_explicit(&nomem_drops, 1, memory_order_relaxed);
        return NULL;
    }
    struct events_buf *b = aligned_alloc(CACHE_LINE, head + buf_bytes);
    if (!b) {
        atomic_fetch_sub_explicit(&total_bytes, bytes, memory_order_relaxed);
        atomic_fetch_add_explicit(&nomem_drops, 1, memory_order_relaxed);
        return NULL;
    }
    memset(b, 0, sizeof(*b));
    b->mask = buf_bytes - 1;
    b->data = (uint8_t *)b + head;
    b->gen = gen;
    b->check_at = buf_bytes / 4;
    b->tid = tls_tid_sigsafe();
    b->slot1 = tls_slot();
    pthread_mutex_lock(&lock);
    int live = gen == drain_gen;
    if (live) {
        b->next = list;
        if (list)
            list->prev = b;
        list = b;
    }
    pthread_mutex_unlock(&lock);
    if (!live) {
        buf_free(b);
        return NULL;
    }
    if (pthread_setspecific(key, b) != 0) {
        /* without the exit hook the buffer would outlive its thread unseen: give it up */
        buf_release(b);
        atomic_fetch_add_explicit(&nomem_drops, 1, memory_order_relaxed);
        return NULL;
    }
    tls_buf = b;
    return b;
}

/* Counts a dropped event in b (the producer is the only writer of pending). */
static void drop(struct events_buf *b)
{
    uint64_t p = atomic_load_explicit(&b->pending, memory_order_relaxed);
    atomic_store_explicit(&b->pending, p + 1, memory_order_relaxed);
}

/* Whether `need` more bytes fit after h, reloading the writer's tail when the last one seen
 * says no. */
static int room(struct events_buf *b, uint64_t h, uint64_t need)
{
    if (h + need - b->tail_seen <= b->mask + 1)
        return 1;
    /* acquire: the writer has read everything below the tail it stored */
    b->tail_seen = atomic_load_explicit(&b->tail, memory_order_acquire);
    return h + need - b->tail_seen <= b->mask + 1;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* No room for `need` more bytes after h: wakes the writer and sleeps until it has drained
 * enough (each store of its tail wakes us), wait_ns at most. Returns 1 when the bytes
 * fit now; 0 when the wait timed out (then no wait again until the writer's tail moves: a
 * stuck writer costs each thread one wait, not one per event) or the session ended. */
static int __attribute__((noinline)) wait_room(struct events_buf *b, uint64_t h, uint64_t need)
{
    if (!wait_ns || b->stuck_tail == b->tail_seen + 1)
        return 0;
    uint64_t start = 0, now = 0;
    int ok = 0;
    for (;;) {
        if (wake_fn)
            wake_fn();
        /* seq_cst store, then load of tail: pairs with the writer's seq_cst store of tail,
         * then load of waiting; one of us sees the other's store (no lost wakeup) */
        atomic_store_explicit(&b->waiting, 1, memory_order_seq_cst);
        uint64_t t = atomic_load_explicit(&b->tail, memory_order_seq_cst);
        b->tail_seen = t;
        if (h + need - t <= b->mask + 1) {
            ok = 1;
            break;
        }
        if (atomic_load_explicit(&events_gen, memory_order_relaxed) != b->gen)
            break;
        now = mono_ns();
        if (!start) {
            start = now;
        } else if (now - start >= wait_ns) {
            b->stuck_tail = t + 1;
            counters_add_sigsafe(FPL_CTR_EVENT_WAIT_TIMEOUTS, 1);
            break;
        }
        uint64_t left = wait_ns - (now - start);
        struct timespec ts = {(time_t)(left / 1000000000ull), (long)(left % 1000000000ull)};
        /* returns when the tail's low half is no longer (uint32_t)t, on a wake, a signal or the
         * timeout: the loop looks again in every case */
        syscall(SYS_futex, (uint32_t *)&b->tail, FUTEX_WAIT_PRIVATE, (uint32_t)t, &ts, NULL, 0);
    }
    atomic_store_explicit(&b->waiting, 0, memory_order_relaxed);
    if (start) {
        counters_add_sigsafe(FPL_CTR_EVENT_WAITS, 1);
        counters_add_sigsafe(FPL_CTR_EVENT_WAIT_NS, mono_ns() - start);
    }
    return ok;
}

/* Head passed check_at: when the buffer is more than a quarter full, ask the writer to drain
 * (once per position of its tail) and look again 1/16 of the buffer later; otherwise look
 * again when it could be a quarter full. A quarter, not a half: the writer then has three
 * quarters of the buffer's time to get scheduled on a loaded machine. But a writer that polls
 * and drained less than 1.5 poll periods ago comes on its own within EVENTS_POLL_NS: it is
 * woken only once the buffer is half full. */
static void __attribute__((noinline)) fill_check(struct events_buf *b, uint64_t h)
{
    uint64_t size = b->mask + 1;
    b->tail_seen = atomic_load_explicit(&b->tail, memory_order_acquire);
    if (h - b->tail_seen <= size / 4) {
        b->check_at = b->tail_seen + size / 4;
        return;
    }
    b->check_at = h + size / 16;
    if (h - b->tail_seen <= size / 2 && atomic_load_explicit(&writer_polls, memory_order_relaxed) &&
        clock_read() - atomic_load_explicit(&drained_at, memory_order_relaxed) < late_ticks)
        return;
    if (b->woke_for != b->tail_seen + 1) {
        b->woke_for = b->tail_seen + 1;
        if (wake_fn)
            wake_fn();
    }
}

/* Makes the records below h visible to the writer. */
static inline void publish(struct events_buf *b, uint64_t h)
{
    b->phead = h;
    /* release: the records written before are complete for a writer that sees h */
    atomic_store_explicit(&b->head, h, memory_order_release);
    if (__builtin_expect(h > b->check_at, 0))
        fill_check(b, h);
}

/* The general case: any event, on a buffer that may need creating, a gap record or padding.
 * s NULL: no string. */
static void __attribute__((noinline))
put_slow(JNIEnv *jni, uint32_t gen, uint64_t ticks, jint n, jstring s, jint len)
{
    struct events_buf *b = tls_buf;
    if (!b || b->gen != gen) {
        b = buf_create(gen);
        if (!b)
            return;
    }
    uint32_t nchars = 0;
    if (s)
        nchars = len < 0 ? 0 : len > EVENTS_MAX_CHARS ? EVENTS_MAX_CHARS : (uint32_t)len;
    uint32_t size = (EVENTS_UNIT + 2 * nchars + EVENTS_UNIT - 1) & ~(uint32_t)(EVENTS_UNIT - 1);
    uint64_t gap = atomic_load_explicit(&b->pending, memory_order_relaxed);
    uint32_t whole = size + (gap ? EVENTS_UNIT : 0); /* a gap record sticks to its event */
    uint64_t h = b->phead;
    uint64_t left = b->mask + 1 - (h & b->mask);
    uint64_t pad = left < whole ? left : 0;
    if (!room(b, h, pad + whole) && !wait_room(b, h, pad + whole)) {
        drop(b);
        return;
    }
    if (pad) {
        struct events_rec *p = (void *)(b->data + (h & b->mask));
        p->size = (uint16_t)pad;
        p->flags = REC_PAD;
        h += pad;
    }
    if (gap) {
        struct events_rec *g = (void *)(b->data + (h & b->mask));
        g->ticks = gap;
        g->size = EVENTS_UNIT;
        g->flags = REC_GAP;
        h += EVENTS_UNIT;
        atomic_store_explicit(&b->pending, 0, memory_order_relaxed);
    }
    struct events_rec *r = (void *)(b->data + (h & b->mask));
    r->ticks = ticks;
    r->n = n;
    r->size = (uint16_t)size;
    r->flags = s ? FPL_EVENT_STRING | (len > EVENTS_MAX_CHARS ? FPL_EVENT_TRUNCATED : 0) : 0;
    r->nchars = (uint8_t)nchars;
    if (nchars)
        (*jni)->GetStringRegion(jni, s, 0, (jsize)nchars, (jchar *)(r + 1));
    publish(b, h + size);
}

void JNICALL events_jni_log(JNIEnv *jni, jclass cls, jint n)
{
    (void)cls;
    uint32_t gen = atomic_load_explicit(&events_gen, memory_order_acquire);
    if (!gen)
        return;
    uint64_t ticks = clock_read();
    struct events_buf *b = tls_buf;
    if (__builtin_expect(
            !b || b->gen != gen || atomic_load_explicit(&b->pending, memory_order_relaxed), 0)) {
        put_slow(jni, gen, ticks, n, NULL, 0);
        return;
    }
    uint64_t h = b->phead;
    if (__builtin_expect(!room(b, h, EVENTS_UNIT), 0) && !wait_room(b, h, EVENTS_UNIT)) {
        drop(b);
        return;
    }
    struct events_rec *r = (void *)(b->data + (h & b->mask));
    r->ticks = ticks;
    r->n = n;
    r->size = EVENTS_UNIT;
    r->flags = 0;
    r->nchars = 0;
    publish(b, h + EVENTS_UNIT);
}

void JNICALL events_jni_log_str(JNIEnv *jni, jclass cls, jint n, jstring s, jint len)
{
    (void)cls;
    uint32_t gen = atomic_load_explicit(&events_gen, memory_order_acquire);
    if (!gen)
        return;
    uint64_t ticks = clock_read();
    struct events_buf *b = tls_buf;
    uint32_t nchars = len < 0 ? 0 : len > EVENTS_MAX_CHARS ? EVENTS_MAX_CHARS : (uint32_t)len;
    uint32_t size = (EVENTS_UNIT + 2 * nchars + EVENTS_UNIT - 1) & ~(uint32_t)(EVENTS_UNIT - 1);
    /* the slow path also takes records that would need padding before the buffer's end */
    if (__builtin_expect(!b || b->gen != gen || !s ||
                             atomic_load_explicit(&b->pending, memory_order_relaxed) ||
                             b->mask + 1 - (b->phead & b->mask) < size,
                         0)) {
        put_slow(jni, gen, ticks, n, s, len);
        return;
    }
    uint64_t h = b->phead;
    if (__builtin_expect(!room(b, h, size), 0) && !wait_room(b, h, size)) {
        drop(b);
        return;
    }
    struct events_rec *r = (void *)(b->data + (h & b->mask));
    r->ticks = ticks;
    r->n = n;
    r->size = (uint16_t)size;
    r->flags = FPL_EVENT_STRING | (len > EVENTS_MAX_CHARS ? FPL_EVENT_TRUNCATED : 0);
    r->nchars = (uint8_t)nchars;
    if (nchars)
        (*jni)->GetStringRegion(jni, s, 0, (jsize)nchars, (jchar *)(r + 1));
    publish(b, h + size);
}

/* ---- the writer's side ---- */

void events_set_polling(int on)
{
    atomic_store_explicit(&writer_polls, on, memory_order_relaxed);
}

static const struct events_rec *rec_at(const struct events_buf *b, uint64_t pos)
{
    return (const void *)(b->data + (pos & b->mask));
}

/* Writes v as a varint at p; returns the byte after it. */
static inline uint8_t *put_v(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint8_t *put_sv(uint8_t *p, int64_t v)
{
    return put_v(p, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* Encodes u[0..n) at p in modified UTF-8 (as the JVM writes it: U+0000 as C0 80, each
 * surrogate on its own in 3 bytes); returns the byte after it. Eight units at a time while
 * they are all 1..0x7f (one byte each: the usual case), with SSE2, which every x86-64 has:
 * the unit-by-unit loop was a quarter of the writer's time at 10M events/s. */
static inline uint8_t *mutf8(uint8_t *p, const uint16_t *u, uint32_t n)
{
    uint32_t i = 0;
    const __m128i zero = _mm_setzero_si128(), top = _mm_set1_epi16(0x80);
    for (; i + 8 <= n; i += 8) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(u + i));
        /* signed compares: units from 0x8000 are negative, so they fail the first */
        __m128i ascii = _mm_and_si128(_mm_cmpgt_epi16(v, zero), _mm_cmplt_epi16(v, top));
        if (_mm_movemask_epi8(ascii) != 0xffff)
            break;
        _mm_storel_epi64((__m128i *)(void *)p, _mm_packus_epi16(v, v));
        p += 8;
    }
    for (; i < n; i++) {
        uint16_t c = u[i];
        if ((uint16_t)(c - 1) < 0x7f) {
            *p++ = (uint8_t)c;
        } else if (c < 0x800) {
            *p++ = (uint8_t)(0xc0 | c >> 6);
            *p++ = (uint8_t)(0x80 | (c & 0x3f));
        } else {
            *p++ = (uint8_t)(0xe0 | c >> 12);
            *p++ = (uint8_t)(0x80 | ((c >> 6) & 0x3f));
            *p++ = (uint8_t)(0x80 | (c & 0x3f));
        }
    }
    return p;
}

/* u[0..n) as a str field at p (length, then the modified UTF-8 bytes); returns the byte after
 * it. Up to 42 units the bytes fit a one-byte length, filled in after one pass. */
static uint8_t *put_mutf8(uint8_t *p, const uint16_t *u, uint32_t n)
{
    if (n <= 42) {
        uint8_t *end = mutf8(p + 1, u, n);
        *p = (uint8_t)(end - p - 1);
        return end;
    }
    size_t len = 0;
    for (uint32_t i = 0; i < n; i++)
        len += (uint16_t)(u[i] - 1) < 0x7f ? 1 : u[i] < 0x800 ? 2 : 3;
    return mutf8(put_v(p, len), u, n);
}

/* The most bytes one event takes in the log: dticks, n, flags, dropped, string length and
 * 3 bytes per unit. */
#define EVENT_MAX_BYTES (10 + 10 + 1 + 10 + 2 + 3 * EVENTS_MAX_CHARS)

/* Writes one EVENTS record of thread_id for the records of b in [from, to) holding count
 * events; dropped_after > 0 appends the optional field. Each event is encoded straight into
 * the buffer after one reserve of its largest size (the writer's cost per event matters at
 * millions of events per second). */
static void put_events(struct fpl_buf *o, const struct events_buf *b, uint64_t thread_id,
                       uint64_t from, uint64_t to, size_t count, uint64_t dropped_after)
{
    size_t r = fpl_rec_begin(o, FPL_REC_EVENTS);
    fpl_put_v(o, thread_id);
    fpl_put_v(o, count);
    uint64_t prev = 0, gap = 0;
    for (uint64_t pos = from; pos < to;) {
        const struct events_rec *e = rec_at(b, pos);
        if (!e->size)
            break; /* never written so by the producer; ends the record rather than looping */
        pos += e->size;
        if (e->flags & REC_PAD)
            continue;
        if (e->flags & REC_GAP) {
            gap = e->ticks;
            continue;
        }
        if (fpl_buf_reserve(o, EVENT_MAX_BYTES) != 0)
            return; /* failed is set: the chunk is given up as a whole */
        uint8_t *p = o->data + o->len;
        p = put_sv(p, (int64_t)(e->ticks - prev));
        prev = e->ticks;
        p = put_sv(p, e->n);
        *p++ = (uint8_t)((e->flags & (FPL_EVENT_STRING | FPL_EVENT_TRUNCATED)) |
                         (gap ? FPL_EVENT_DROPPED : 0));
        if (gap)
            p = put_v(p, gap);
        gap = 0;
        if (e->flags & FPL_EVENT_STRING) {
            uint32_t n = e->nchars;
            const uint16_t *u = (const uint16_t *)(e + 1);
            /* a pair cut in two by the truncation would leave a lone high surrogate */
            if ((e->flags & FPL_EVENT_TRUNCATED) && n && u[n - 1] >= 0xd800 && u[n - 1] < 0xdc00)
                n--;
            p = put_mutf8(p, u, n);
        }
        o->len = (size_t)(p - o->data);
    }
    if (dropped_after)
        fpl_put_v(o, dropped_after);
    fpl_rec_end(o, r);
}

/* Drains b into s: records of at most RECORD_EVENTS events until b is empty, max events are
 * written or the sink's buffer is full. Returns the events written. */
static size_t drain_buf(const struct events_sink *s, struct events_buf *b, size_t max, int *more)
{
    size_t written = 0;
    for (;;) {
        /* acquire: the producer's records below head are complete */
        uint64_t h = atomic_load_explicit(&b->head, memory_order_acquire);
        uint64_t pos = b->wtail;
        if (pos == h)
            return written;
        if (written >= max || s->buf->len >= s->flush_bytes) {
            *more = 1;
            return written;
        }
        size_t limit = max - written < RECORD_EVENTS ? max - written : RECORD_EVENTS;
        size_t count = 0;
        uint64_t end = pos;
        while (end < h && count < limit) {
            const struct events_rec *e = rec_at(b, end);
            if (!e->size) {
                end = h; /* never written so by the producer: skip what is left */
                break;
            }
            end += e->size;
            if (e->flags & REC_GAP) {
                end += rec_at(b, end)->size; /* its event, written in the same publish */
                count++;
            } else if (!(e->flags & REC_PAD)) {
                count++;
            }
        }
        uint64_t tid = s->thread_id(s->ctx, b->slot1, b->tid);
        put_events(s->buf, b, tid, pos, end, count, 0);
        b->wtail = end;
        /* release (our reads of [pos, end) are done before the producer may overwrite them),
         * and seq_cst with the load of waiting after it: wait_room's Dekker pair (one xchg per
         * record of up to 4096 events) */
        atomic_store_explicit(&b->tail, end, memory_order_seq_cst);
        if (atomic_load_explicit(&b->waiting, memory_order_seq_cst))
            syscall(SYS_futex, (uint32_t *)&b->tail, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
        written += count;
    }
}

/* Logs drops that no event carries: a thread's trailing drops, or the allocation failures
 * (thread id 0). */
static void put_drops(const struct events_sink *s, uint64_t thread_id, uint64_t n)
{
    size_t r = fpl_rec_begin(s->buf, FPL_REC_EVENTS);
    fpl_put_v(s->buf, thread_id);
    fpl_put_v(s->buf, 0);
    fpl_put_v(s->buf, n);
    fpl_rec_end(s->buf, r);
}

static void put_nomem(const struct events_sink *s)
{
    uint64_t n = atomic_load_explicit(&nomem_drops, memory_order_relaxed);
    if (n != nomem_logged) {
        put_drops(s, 0, n - nomem_logged);
        nomem_logged = n;
    }
}

/* Under lock: the buffers of the session being drained, and which are gone already. */
static size_t snapshot(void)
{
    size_t n = 0;
    for (struct events_buf *b = list; b; b = b->next) {
        if (b->gen != drain_gen)
            continue;
        if (n == snap_cap) {
            size_t cap = snap_cap ? snap_cap * 2 : 64;
            struct events_buf **q = realloc(snap, cap * sizeof(*q));
            if (!q)
                break;
            snap = q;
            uint8_t *g = realloc(snap_gone, cap);
            if (!g)
                break;
            snap_gone = g;
            snap_cap = cap;
        }
        snap[n] = b;
        snap_gone[n] = (uint8_t)b->gone;
        n++;
    }
    return n;
}

size_t events_drain(const struct events_sink *s, size_t max, int *more)
{
    *more = 0;
    atomic_store_explicit(&drained_at, clock_read(), memory_order_relaxed);
    pthread_mutex_lock(&lock);
    uint32_t gen = drain_gen;
    size_t n = gen ? snapshot() : 0;
    pthread_mutex_unlock(&lock);
    if (!gen)
        return 0;
    put_nomem(s);
    size_t written = 0;
    for (size_t i = 0; i < n; i++)
        written += drain_buf(s, snap[i], max - written, more);
    /* a buffer whose owner was gone before this pass began is complete: once it is empty,
     * log its trailing drops and free it (nobody else frees a buffer of this session) */
    int freeing = 0;
    for (size_t i = 0; i < n; i++) {
        struct events_buf *b = snap[i];
        if (!snap_gone[i] || b->wtail != atomic_load_explicit(&b->head, memory_order_acquire))
            continue;
        uint64_t p = atomic_load_explicit(&b->pending, memory_order_relaxed);
        if (p)
            put_drops(s, s->thread_id(s->ctx, b->slot1, b->tid), p);
        snap_gone[i] = 2;
        freeing = 1;
    }
    if (freeing) {
        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < n; i++) {
            if (snap_gone[i] == 2) {
                list_unlink(snap[i]);
                buf_free(snap[i]);
            }
        }
        pthread_mutex_unlock(&lock);
    }
    return written;
}

/* Gives the pages of b's data back to the system (they read as zeros when touched again):
 * after the last drain of its session nothing reads them, and its owner writes only in the
 * stop race, an event that is not logged anyway (events.h). */
static void release_pages(struct events_buf *b)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = ((uintptr_t)b->data + page - 1) & ~(page - 1);
    uintptr_t hi = ((uintptr_t)b->data + b->mask + 1) & ~(page - 1);
    if (hi > lo)
        madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void events_finish(const struct events_sink *s)
{
    pthread_mutex_lock(&lock);
    uint32_t gen = drain_gen;
    size_t n = gen ? snapshot() : 0;
    pthread_mutex_unlock(&lock);
    if (!gen)
        return;
    for (size_t i = 0; s && i < n; i++) {
        struct events_buf *b = snap[i];
        uint64_t p = atomic_load_explicit(&b->pending, memory_order_relaxed);
        if (p)
            put_drops(s, s->thread_id(s->ctx, b->slot1, b->tid), p);
    }
    if (s)
        put_nomem(s);
    pthread_mutex_lock(&lock);
    for (struct events_buf *b = list, *next; b; b = next) {
        next = b->next;
        if (b->gen == drain_gen && b->gone) {
            list_unlink(b);
            buf_free(b);
        } else if (b->gen == drain_gen) {
            release_pages(b);
        }
    }
    /* the buffers left belong to live threads: each frees its own when it ends or logs in a
     * later session; their data pages went back to the system above */
    drain_gen = 0;
    pthread_mutex_unlock(&lock);
}
