/* test_events.c: the agent's per-thread event buffers (agent/writer/events.c) without a JVM. Producer
 * threads call the JNI natives with a fake JNIEnv (GetStringRegion only) while a consumer
 * thread drains into a sink, as the writer does; the records are decoded with the collector's
 * reader. Checked: every event logged is either in the log, in order, with its n and string
 * (modified UTF-8, cut to 63 units without leaving half a surrogate pair) or counted as dropped
 * exactly where it went missing (n increases by 1 + the drops before it; trailing drops make
 * up the rest); a small buffer wraps, pads and asks for a drain; a thread that ends is drained
 * and its buffer freed; a new session retires old buffers (and a thread that retired one frees
 * only its newer one when it ends); events=0 and a stopped session record nothing; the
 * buffers of threads alive at a session's end give their pages back, and all buffers
 * together stay within EVENTS_MAX_TOTAL_BYTES (600 threads would need 300 MiB). With a wait
 * (eventwait=), the same small buffers and slow consumer lose nothing: full buffers wait for
 * the consumer (counted), and no wait runs out; without one, no call waits. A buffer wakes a
 * sleeping writer at a quarter full, a polling one at half full unless it is late. The -tsan
 * variant races producer and consumer for real. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters.h"
#include "events.h"
#include "fpl_format.h"
#include "fplgen.h"
#include "harness.h"
#include "reader.h"
#include "tsc.h"

/* ---- a fake JNI: jstring is a pointer to this ---- */
struct fake_string {
    const jchar *chars;
    jsize len;
};

static void JNICALL fake_get_string_region(JNIEnv *env, jstring s, jsize start, jsize len,
                                           jchar *buf)
{
    (void)env;
    const struct fake_string *f = (const void *)s;
    memcpy(buf, f->chars + start, (size_t)len * sizeof(jchar));
}

static struct JNINativeInterface_ fake_fns;
static const struct JNINativeInterface_ *fake_env_ptr = &fake_fns;
#define FAKE_ENV ((JNIEnv *)&fake_env_ptr)

/* The string event i carries: "s<i>" then a tail chosen by i (ASCII, Latin-1, CJK, a
 * surrogate pair, U+0000, or long enough to be cut with a pair at units 62-63). Returns
 * its length in units (at most 80). */
static jsize make_string(uint32_t i, jchar *u)
{
    char head[16];
    int n = snprintf(head, sizeof(head), "s%u ", i);
    jsize k = 0;
    for (int j = 0; j < n; j++)
        u[k++] = (jchar)head[j];
    switch (i % 6) {
    case 0:
        for (const char *c = "One two three four"; *c; c++)
            u[k++] = (jchar)*c;
        break;
    case 1:
        u[k++] = 0xfc; /* ü */
        u[k++] = 0xe9; /* é */
        break;
    case 2:
        u[k++] = 0x65e5; /* 日 */
        u[k++] = 0x20ac; /* € */
        break;
    case 3:
        u[k++] = 0xd834; /* U+1D11E */
        u[k++] = 0xdd1e;
        break;
    case 4:
        u[k++] = 0;
        u[k++] = 'z';
        break;
    default:
        while (k < 62)
            u[k++] = 'x';
        u[k++] = 0xd834;
        u[k++] = 0xdd1e;
        while (k < 80)
            u[k++] = 'y';
        break;
    }
    return k;
}

/* What the log must hold for that string: the first 63 units (62 when the 63rd is a high
 * surrogate), in modified UTF-8. */
static size_t expect_mutf8(const jchar *u, jsize len, char *out, int *truncated)
{
    jsize n = len > EVENTS_MAX_CHARS ? EVENTS_MAX_CHARS : len;
    *truncated = len > EVENTS_MAX_CHARS;
    if (*truncated && u[n - 1] >= 0xd800 && u[n - 1] <= 0xdbff)
        n--;
    size_t o = 0;
    for (jsize i = 0; i < n; i++) {
        unsigned c = u[i];
        if (c != 0 && c < 0x80) {
            out[o++] = (char)c;
        } else if (c < 0x800) {
            out[o++] = (char)(0xc0 | (c >> 6));
            out[o++] = (char)(0x80 | (c & 0x3f));
        } else {
            out[o++] = (char)(0xe0 | (c >> 12));
            out[o++] = (char)(0x80 | ((c >> 6) & 0x3f));
            out[o++] = (char)(0x80 | (c & 0x3f));
        }
    }
    return o;
}

/* ---- the consumer: drains into a sink as the writer does, and keeps the bytes ---- */
static atomic_int wakes;

static void on_wake(void)
{
    atomic_fetch_add(&wakes, 1);
}

static uint32_t sink_thread_id(void *ctx, uint32_t slot1, int tid)
{
    (void)ctx;
    (void)slot1;
    return (uint32_t)tid; /* the kernel tid stands for the thread id */
}

struct consumer {
    struct fpl_buf buf;
    struct fplgen gen;
    atomic_int producers_done;
    int slow; /* sleep between drains, so a small buffer fills */
};

static void move_to_log(struct consumer *c)
{
    if (c->buf.len) {
        fplgen_raw(&c->gen, c->buf.data, c->buf.len);
        fplgen_flush(&c->gen);
        c->buf.len = 0;
    }
}

static void drain_all(struct consumer *c)
{
    struct events_sink s = {&c->buf, sink_thread_id, c, 1u << 20};
    int more;
    do {
        events_drain(&s, 100000, &more);
        if (c->buf.len >= (1u << 20))
            move_to_log(c);
    } while (more);
}

static void *consume(void *arg)
{
    struct consumer *c = arg;
    while (!atomic_load(&c->producers_done)) {
        drain_all(c);
        usleep(c->slow ? 2000 : 50);
    }
    return NULL;
}

/* Ends a session: stop, last drains, finish; then the log's bytes are in c->gen. */
static void end_session(struct consumer *c)
{
    events_stop();
    drain_all(c);
    drain_all(c);
    struct events_sink s = {&c->buf, sink_thread_id, c, 1u << 20};
    events_finish(&s);
    move_to_log(c);
}

/* ---- checking what a log holds ---- */
#define MAXT 8

struct check {
    int threads;
    struct {
        int tid;
        int64_t last_n; /* -1 before the first */
        uint64_t events, dropped;
        int order_bad, strings_bad;
        uint64_t last_ticks;
    } t[MAXT];
    int unknown_thread;
};

static int thread_slot(struct check *k, uint64_t tid)
{
    for (int i = 0; i < k->threads; i++)
        if (k->t[i].tid == (int)tid)
            return i;
    if (k->threads == MAXT)
        return -1;
    k->t[k->threads].tid = (int)tid;
    k->t[k->threads].last_n = -1;
    return k->threads++;
}

static int on_event(void *ctx, const struct reader_event *e)
{
    struct check *k = ctx;
    int i = thread_slot(k, e->thread_id);
    if (i < 0) {
        k->unknown_thread++;
        return 0;
    }
    /* n is the event's position on its thread: drops fill the gaps exactly */
    if (e->n != k->t[i].last_n + 1 + (int64_t)e->dropped || e->ticks < k->t[i].last_ticks)
        k->t[i].order_bad++;
    k->t[i].last_n = e->n;
    k->t[i].last_ticks = e->ticks;
    k->t[i].events++;
    k->t[i].dropped += e->dropped;
    uint32_t n = (uint32_t)e->n;
    int want_str = n % 3 == 0;
    if (want_str != !!(e->flags & FPL_EVENT_STRING)) {
        k->t[i].strings_bad++;
    } else if (want_str) {
        jchar u[96];
        char want[300];
        int trunc;
        size_t len = expect_mutf8(u, make_string(n, u), want, &trunc);
        if (e->s.len != len || memcmp(e->s.s, want, len) != 0 ||
            trunc != !!(e->flags & FPL_EVENT_TRUNCATED))
            k->t[i].strings_bad++;
    }
    return 0;
}

static int on_drops(void *ctx, uint64_t thread_id, uint64_t n)
{
    struct check *k = ctx;
    int i = thread_slot(k, thread_id);
    if (i < 0)
        k->unknown_thread++;
    else
        k->t[i].dropped += n;
    return 0;
}

static void read_back(struct consumer *c, struct check *k)
{
    static const struct reader_ops ops = {.event = on_event, .event_drops = on_drops};
    size_t len;
    uint8_t *data = fplgen_bytes(&c->gen, &len);
    char err[256];
    struct reader_stats st;
    memset(k, 0, sizeof(*k));
    CHECK(data && reader_read_mem(data, len, "events", &ops, k, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.bad_records, 0);
    CHECK_EQ_U(st.unknown_records, 0);
    free(data);
}

/* ---- producers ---- */
struct producer {
    uint32_t count;
    int tid;
    int exit_early; /* the thread ends while the consumer still runs */
};

static void *produce(void *arg)
{
    struct producer *p = arg;
    p->tid = (int)gettid();
    jchar u[96];
    for (uint32_t i = 0; i < p->count; i++) {
        if (i % 3 == 0) {
            struct fake_string s = {u, make_string(i, u)};
            events_jni_log_str(FAKE_ENV, NULL, (jint)i, (jstring)(void *)&s, s.len);
        } else {
            events_jni_log(FAKE_ENV, NULL, (jint)i);
        }
    }
    return NULL;
}

/* Runs nprod producers of count events each against one consumer; checks the accounting. */
static void run(const char *what, uint32_t units, uint64_t wait_ns, int nprod, uint32_t count,
                int slow, int expect_drops)
{
    struct consumer c;
    memset(&c, 0, sizeof(c));
    c.slow = slow;
    CHECK(fplgen_init(&c.gen) == 0);
    atomic_store(&wakes, 0);
    counters_reset();
    CHECK(events_start(units, wait_ns, on_wake) == 0);
    pthread_t ct, pt[MAXT];
    struct producer p[MAXT];
    pthread_create(&ct, NULL, consume, &c);
    for (int i = 0; i < nprod; i++) {
        p[i] = (struct producer){count, 0, 0};
        pthread_create(&pt[i], NULL, produce, &p[i]);
    }
    for (int i = 0; i < nprod; i++)
        pthread_join(pt[i], NULL);
    atomic_store(&c.producers_done, 1);
    pthread_join(ct, NULL);
    end_session(&c);

    struct check k;
    read_back(&c, &k);
    CHECK_EQ_U(k.threads, nprod);
    CHECK_EQ_U(k.unknown_thread, 0);
    uint64_t dropped = 0, recorded = 0;
    for (int i = 0; i < k.threads; i++) {
        CHECK_EQ_U(k.t[i].order_bad, 0);
        CHECK_EQ_U(k.t[i].strings_bad, 0);
        CHECK_EQ_U(k.t[i].events + k.t[i].dropped, count);
        recorded += k.t[i].events;
        dropped += k.t[i].dropped;
    }
    if (expect_drops)
        CHECK(dropped > 0 && atomic_load(&wakes) > 0);
    uint64_t waits = counters_get(FPL_CTR_EVENT_WAITS);
    if (wait_ns) {
        /* the consumer drains every 2 ms, far within the wait: full buffers wait, never drop */
        CHECK_EQ_U(dropped, 0);
        CHECK(!slow || waits > 0);
        CHECK_EQ_U(counters_get(FPL_CTR_EVENT_WAIT_TIMEOUTS), 0);
    } else {
        CHECK_EQ_U(waits, 0);
    }
    printf("%s: %d x %u events, %llu recorded, %llu dropped, %d drain requests, %llu waits "
           "(%.1f ms)\n", what, nprod, count, (unsigned long long)recorded,
           (unsigned long long)dropped, atomic_load(&wakes), (unsigned long long)waits,
           counters_get(FPL_CTR_EVENT_WAIT_NS) / 1e6);
    fpl_buf_free(&c.buf);
    fplgen_destroy(&c.gen);
}

/* A thread logs in one session, a new session starts: its next event goes to a new buffer,
 * and only the new session's events reach the new log. A stopped session records nothing. */
static void test_sessions(void)
{
    struct consumer c1, c2;
    memset(&c1, 0, sizeof(c1));
    memset(&c2, 0, sizeof(c2));
    CHECK(fplgen_init(&c1.gen) == 0 && fplgen_init(&c2.gen) == 0);
    CHECK(events_start(1024, 0, on_wake) == 0);
    events_jni_log(FAKE_ENV, NULL, 0);
    events_jni_log(FAKE_ENV, NULL, 1);
    end_session(&c1);
    events_jni_log(FAKE_ENV, NULL, 99); /* stopped: not recorded anywhere */
    CHECK(events_start(1024, 0, on_wake) == 0);
    events_jni_log(FAKE_ENV, NULL, 0);
    end_session(&c2);
    struct check k;
    read_back(&c1, &k);
    CHECK(k.threads == 1 && k.t[0].events == 2 && k.t[0].last_n == 1 && !k.t[0].order_bad);
    read_back(&c2, &k);
    CHECK(k.threads == 1 && k.t[0].events == 1 && k.t[0].last_n == 0 && !k.t[0].dropped);

    /* events=0: nothing, not even a buffer */
    struct consumer c3;
    memset(&c3, 0, sizeof(c3));
    CHECK(fplgen_init(&c3.gen) == 0);
    CHECK(events_start(0, 0, on_wake) == 0);
    events_jni_log(FAKE_ENV, NULL, 0);
    end_session(&c3);
    read_back(&c3, &k);
    CHECK_EQ_U(k.threads, 0);
    fpl_buf_free(&c1.buf);
    fpl_buf_free(&c2.buf);
    fpl_buf_free(&c3.buf);
    fplgen_destroy(&c1.gen);
    fplgen_destroy(&c2.gen);
    fplgen_destroy(&c3.gen);
}

/* When a buffer wakes the writer (16 KiB buffers: a quarter is 256 events without a string,
 * half 512): a sleeping writer at a quarter full, once until it drains; a polling writer that
 * drained lately only at half full; a polling writer late by more than 1.5 poll periods at a
 * quarter again. The polling case is timed (a drain less than 1.5 ms before the quarter), so
 * it gets five tries: an implementation that ignores polling wakes in every one. */
static void log_n(int n)
{
    for (int i = 0; i < n; i++)
        events_jni_log(FAKE_ENV, NULL, i);
}

static void test_wake_thresholds(void)
{
    struct consumer c;
    memset(&c, 0, sizeof(c));
    CHECK(fplgen_init(&c.gen) == 0);
    CHECK(events_start(1024, 0, on_wake) == 0);
    atomic_store(&wakes, 0);
    log_n(300); /* 4800 bytes: past a quarter */
    CHECK_EQ_U(atomic_load(&wakes), 1);

    events_set_polling(1);
    int quiet = 0;
    for (int attempt = 0; attempt < 5 && !quiet; attempt++) {
        drain_all(&c);
        move_to_log(&c);
        atomic_store(&wakes, 0);
        log_n(450); /* 7200 bytes: past a quarter, under half */
        quiet = atomic_load(&wakes) == 0;
    }
    CHECK(quiet);
    log_n(100); /* 8800 bytes: past half */
    CHECK_EQ_U(atomic_load(&wakes), 1);

    drain_all(&c);
    move_to_log(&c);
    usleep(5000); /* the polling writer is late */
    atomic_store(&wakes, 0);
    log_n(300);
    CHECK_EQ_U(atomic_load(&wakes), 1);

    events_set_polling(0);
    drain_all(&c);
    move_to_log(&c);
    atomic_store(&wakes, 0);
    log_n(300);
    CHECK_EQ_U(atomic_load(&wakes), 1);
    end_session(&c);
    fpl_buf_free(&c.buf);
    fplgen_destroy(&c.gen);
}

/* A thread that logs in two sessions and then ends: its first buffer was retired when it
 * logged in the second, and only the second is released at its end (ASan: no double free). */
static pthread_barrier_t step;

static void *two_sessions(void *arg)
{
    (void)arg;
    events_jni_log(FAKE_ENV, NULL, 0);
    pthread_barrier_wait(&step); /* session 1 ends, session 2 starts */
    pthread_barrier_wait(&step);
    events_jni_log(FAKE_ENV, NULL, 0);
    events_jni_log(FAKE_ENV, NULL, 1);
    return NULL;
}

static void test_retire_then_exit(void)
{
    struct consumer c1, c2;
    memset(&c1, 0, sizeof(c1));
    memset(&c2, 0, sizeof(c2));
    CHECK(fplgen_init(&c1.gen) == 0 && fplgen_init(&c2.gen) == 0);
    pthread_barrier_init(&step, NULL, 2);
    CHECK(events_start(1024, 0, on_wake) == 0);
    pthread_t t;
    pthread_create(&t, NULL, two_sessions, NULL);
    pthread_barrier_wait(&step);
    end_session(&c1);
    CHECK(events_start(1024, 0, on_wake) == 0);
    pthread_barrier_wait(&step);
    pthread_join(t, NULL);
    end_session(&c2);
    struct check k;
    read_back(&c1, &k);
    CHECK(k.threads == 1 && k.t[0].events == 1);
    read_back(&c2, &k);
    CHECK(k.threads == 1 && k.t[0].events == 2 && !k.t[0].order_bad);
    pthread_barrier_destroy(&step);
    fpl_buf_free(&c1.buf);
    fpl_buf_free(&c2.buf);
    fplgen_destroy(&c1.gen);
    fplgen_destroy(&c2.gen);
}

/* Threads that end before the writer drained them: their events and drops are all logged,
 * and (ASan) their buffers freed. */
static void test_thread_exit(void)
{
    struct consumer c;
    memset(&c, 0, sizeof(c));
    CHECK(fplgen_init(&c.gen) == 0);
    CHECK(events_start(64, 0, on_wake) == 0);
    pthread_t t[4];
    struct producer p[4];
    for (int i = 0; i < 4; i++) {
        p[i] = (struct producer){(uint32_t)(50 + 100 * i), 0, 1};
        pthread_create(&t[i], NULL, produce, &p[i]);
        pthread_join(t[i], NULL);
    }
    drain_all(&c); /* gone before this pass: drained and freed in it */
    end_session(&c);
    struct check k;
    read_back(&c, &k);
    CHECK_EQ_U(k.threads, 4);
    for (int i = 0; i < k.threads; i++) {
        CHECK_EQ_U(k.t[i].order_bad, 0);
        CHECK_EQ_U(k.t[i].strings_bad, 0);
        int j = 0;
        while (j < 4 && p[j].tid != k.t[i].tid)
            j++;
        CHECK(j < 4 && k.t[i].events + k.t[i].dropped == p[j].count);
        /* 1 KiB holds 64 int events or fewer with strings: the larger ones dropped some */
        if (j < 4 && p[j].count > 64)
            CHECK(k.t[i].dropped > 0);
    }
    fpl_buf_free(&c.buf);
    fplgen_destroy(&c.gen);
}

/* ---- memory: the budget of all buffers, and pages given back at stop ---- */
static pthread_barrier_t hold;

static void *log_and_hold(void *arg)
{
    int n = *(const int *)arg;
    for (int i = 0; i < n; i++)
        events_jni_log((JNIEnv *)&fake_env_ptr, NULL, i);
    pthread_barrier_wait(&hold); /* logged */
    pthread_barrier_wait(&hold); /* the session ended */
    return NULL;
}

static long rss_kib(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Runs nthreads threads that each log n events (512 KiB buffers) and stay alive while the
 * session ends; returns the RSS given back by the end of the session, KiB. */
static long hold_threads(int nthreads, int n, uint64_t *peak_bytes)
{
    struct consumer c;
    memset(&c, 0, sizeof(c));
    CHECK(fplgen_init(&c.gen) == 0);
    CHECK(events_start(32768, 0, on_wake) == 0);
    pthread_barrier_init(&hold, NULL, (unsigned)nthreads + 1);
    pthread_t *t = calloc((size_t)nthreads, sizeof(*t));
    int started = 0;
    for (int i = 0; t && i < nthreads; i++)
        if (pthread_create(&t[i], NULL, log_and_hold, &n) == 0)
            started++;
    CHECK_EQ_U(started, nthreads);
    pthread_barrier_wait(&hold);
    *peak_bytes = events_bytes();
    events_stop();
    drain_all(&c); /* every buffer was full; the log of it is allocated now */
    drain_all(&c);
    long before = rss_kib();
    struct events_sink sink = {&c.buf, sink_thread_id, &c, 1u << 20};
    events_finish(&sink);
    long after = rss_kib();
    move_to_log(&c);
    pthread_barrier_wait(&hold);
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&hold);
    free(t);
    fpl_buf_free(&c.buf);
    fplgen_destroy(&c.gen);
    return before - after;
}

static void test_memory(void)
{
    /* 8 threads fill their buffers (4 MiB touched) and outlive the session: its end gives
     * their pages back */
    uint64_t peak = 0, base = events_bytes(); /* main's buffer of the earlier tests */
    long freed = hold_threads(8, 40000, &peak);
    printf("test_events: 8 full 512 KiB buffers held by live threads: %ld KiB given back at "
           "the session's end\n", freed);
    CHECK(freed >= 3 * 1024);
    CHECK_EQ_U(events_bytes(), base); /* the threads ended: their buffers are freed */
    /* 600 threads x 512 KiB would be 300 MiB: past the budget threads drop their events */
    hold_threads(600, 1, &peak);
    printf("test_events: 600 threads with 512 KiB buffers: %.1f MiB held at most (budget "
           "%llu MiB)\n", (double)peak / (1 << 20), EVENTS_MAX_TOTAL_BYTES >> 20);
    CHECK(peak <= EVENTS_MAX_TOTAL_BYTES);
    CHECK(peak >= EVENTS_MAX_TOTAL_BYTES - (1u << 20));
    CHECK_EQ_U(events_bytes(), base);
}

int main(void)
{
    fake_fns.GetStringRegion = fake_get_string_region;
    tsc_init(5, 0);
    test_sessions();
    test_wake_thresholds();
    test_retire_then_exit();
    test_thread_exit();
    test_memory();
    /* 1 KiB buffers and a consumer that sleeps 2 ms: drops, wraps, padding, drain requests */
    run("small buffer, slow consumer", 64, 0, 2, 200000, 1, 1);
    /* a buffer that holds more than the consumer's pause: drops are rare, if any */
    run("large buffer", 1u << 16, 0, 4, 100000, 0, 0);
    /* the same small buffers and slow consumer, with waiting: full buffers wait, none drops */
    run("small buffer, slow consumer, waiting", 64, 10000000000ull, 2, 10000, 1, 0);
    run("large buffer, waiting", 1u << 16, 10000000000ull, 4, 100000, 0, 0);
    return harness_result("test_events");
}
