/* test_collector_events.c: EVENTS records (dev.flyprof.Events) in the collector: the reader
 * decodes every field (absolute and negative deltas, extreme n, strings, truncation, drops
 * before an event and after the last one, unknown flag bits and trailing bytes), delivers
 * nothing of a record that does not decode; the profile counts recorded, dropped, truncated
 * and threads. The events model groups a thread's events by tid across records, chunks and
 * renames, in order; keeps drops where they were and never pairs events across them; its
 * interval table has exact counts and nearest-rank percentiles; thread and window selection;
 * the text and CSV outputs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventlog.h"
#include "fpl_format.h"
#include "fplgen.h"
#include "fplgen_profile.h"
#include "harness.h"
#include "out_events.h"
#include "reader.h"

#define MAXE 64

struct seen {
    int nevent;
    struct reader_event ev[MAXE];
    char str[MAXE][256];
    int ndrops;
    uint64_t drops_thread[MAXE], drops_n[MAXE];
};

static int cb_event(void *ctx, const struct reader_event *e)
{
    struct seen *s = ctx;
    if (s->nevent < MAXE) {
        s->ev[s->nevent] = *e;
        size_t n = e->s.len < 255 ? e->s.len : 255;
        memcpy(s->str[s->nevent], e->s.s, n);
        s->str[s->nevent][n] = 0;
        s->ev[s->nevent].s.s = s->str[s->nevent];
    }
    s->nevent++;
    return 0;
}

static int cb_drops(void *ctx, uint64_t thread_id, uint64_t n)
{
    struct seen *s = ctx;
    if (s->ndrops < MAXE) {
        s->drops_thread[s->ndrops] = thread_id;
        s->drops_n[s->ndrops] = n;
    }
    s->ndrops++;
    return 0;
}

static const struct reader_ops ops = {.event = cb_event, .event_drops = cb_drops};

/* An event to encode: absolute ticks (the delta is computed here). */
struct ev {
    uint64_t ticks;
    int64_t n;
    uint8_t flags;
    uint64_t dropped;
    const char *s;
    size_t slen; /* 0: strlen(s) */
};

/* The body of an EVENTS record; after < 0: no dropped_after field. */
static void events_body(struct fpl_buf *b, uint64_t thread, const struct ev *e, size_t n,
                        int64_t after)
{
    fpl_put_v(b, thread);
    fpl_put_v(b, n);
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        fpl_put_sv(b, (int64_t)(e[i].ticks - prev));
        prev = e[i].ticks;
        fpl_put_sv(b, e[i].n);
        fpl_put_u8(b, e[i].flags);
        if (e[i].flags & FPL_EVENT_DROPPED)
            fpl_put_v(b, e[i].dropped);
        if (e[i].flags & FPL_EVENT_STRING) {
            size_t len = e[i].slen ? e[i].slen : strlen(e[i].s);
            fpl_put_v(b, len);
            fpl_put_bytes(b, e[i].s, len);
        }
    }
    if (after >= 0)
        fpl_put_v(b, (uint64_t)after);
}

static void put_events(struct fplgen *g, uint64_t thread, const struct ev *e, size_t n,
                       int64_t after)
{
    struct fpl_buf b = {0};
    events_body(&b, thread, e, n, after);
    fplgen_record(g, FPL_REC_EVENTS, b.data, b.len);
    fpl_buf_free(&b);
}

static int read_log(struct fplgen *g, struct seen *s, struct reader_stats *st)
{
    size_t len;
    uint8_t *data = fplgen_bytes(g, &len);
    char err[256];
    memset(s, 0, sizeof(*s));
    int rc = reader_read_mem(data, len, "events.fpl", &ops, s, st, err, sizeof(err));
    free(data);
    return rc;
}

static void test_round_trip(void)
{
    struct fplgen g;
    CHECK(fplgen_init(&g) == 0);
    const uint64_t big = 1ull << 50;
    static const char mutf8[] = "\xc3\xbc\xc0\x80\xed\xa0\xb4\xed\xb4\x9e"; /* ü NUL 𝄞 (CESU) */
    struct ev e[] = {
        {big, 0, 0, 0, NULL, 0},
        {big + 27, INT32_MAX, FPL_EVENT_STRING, 0, "One two three four", 0},
        {big + 10, INT32_MIN, FPL_EVENT_STRING | FPL_EVENT_TRUNCATED | FPL_EVENT_DROPPED, 12345,
         mutf8, sizeof(mutf8) - 1},
        {UINT64_MAX, -1, FPL_EVENT_DROPPED, 1, NULL, 0},
        {3, 7, FPL_EVENT_STRING, 0, "", 0}, /* wraps around: delta 4 from UINT64_MAX */
    };
    put_events(&g, 5, e, 5, 77);
    put_events(&g, 6, NULL, 0, 3); /* only drops after the last event */
    put_events(&g, 7, e, 1, -1);   /* no dropped_after field */
    CHECK(fplgen_flush(&g) == 0);

    struct seen s;
    struct reader_stats st;
    CHECK(read_log(&g, &s, &st) == 0);
    CHECK_EQ_U(st.records, 3);
    CHECK_EQ_U(st.bad_records, 0);
    CHECK_EQ_U(s.nevent, 6);
    for (int i = 0; i < 5 && i < s.nevent; i++) {
        const struct reader_event *r = &s.ev[i];
        CHECK_EQ_U(r->thread_id, 5);
        CHECK_EQ_U(r->ticks, e[i].ticks);
        CHECK(r->n == e[i].n);
        CHECK_EQ_U(r->flags, e[i].flags);
        CHECK_EQ_U(r->dropped, e[i].flags & FPL_EVENT_DROPPED ? e[i].dropped : 0);
        size_t want = e[i].flags & FPL_EVENT_STRING ? (e[i].slen ? e[i].slen : strlen(e[i].s)) : 0;
        CHECK_EQ_U(r->s.len, want);
        CHECK(memcmp(r->s.s, e[i].s ? e[i].s : "", want) == 0);
    }
    CHECK_EQ_U(s.ev[5].thread_id, 7);
    CHECK_EQ_U(s.ev[5].ticks, big);
    CHECK_EQ_U(s.ndrops, 2);
    CHECK_EQ_U(s.drops_thread[0], 5);
    CHECK_EQ_U(s.drops_n[0], 77);
    CHECK_EQ_U(s.drops_thread[1], 6);
    CHECK_EQ_U(s.drops_n[1], 3);

    /* the profile counts them: 6 events, drops 12345 + 1 + 77 + 3, one truncated, 3 threads */
    struct profile *p = fplgen_profile(&g, "events.fpl");
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_U(p->events.recorded, 6);
        CHECK_EQ_U(p->events.dropped, 12345 + 1 + 77 + 3);
        CHECK_EQ_U(p->events.truncated, 1);
        CHECK_EQ_U(p->events.threads, 3);
        profile_free(p);
    }
    fplgen_destroy(&g);
}

/* A record whose events do not all decode delivers none of them; the chunk goes on. */
static void test_bad_records(void)
{
    struct fplgen g;
    CHECK(fplgen_init(&g) == 0);
    struct ev ok[] = {{100, 1, 0, 0, NULL, 0}, {200, 2, FPL_EVENT_STRING, 0, "abc", 0}};
    struct fpl_buf b = {0};

    /* the second event's string runs past the body */
    events_body(&b, 1, ok, 2, -1);
    fplgen_record(&g, FPL_REC_EVENTS, b.data, b.len - 1);
    b.len = 0;
    /* a count the body cannot hold (3 bytes per event at least) */
    fpl_put_v(&b, 1);
    fpl_put_v(&b, 1000);
    fpl_put_sv(&b, 5);
    fpl_put_sv(&b, 1);
    fpl_put_u8(&b, 0);
    fplgen_record(&g, FPL_REC_EVENTS, b.data, b.len);
    b.len = 0;
    /* DROPPED set but its count runs past the body */
    fpl_put_v(&b, 1);
    fpl_put_v(&b, 1);
    fpl_put_sv(&b, 5);
    fpl_put_sv(&b, 1);
    fpl_put_u8(&b, FPL_EVENT_DROPPED);
    fplgen_record(&g, FPL_REC_EVENTS, b.data, b.len);
    b.len = 0;
    /* then a good one, with an unknown flag bit and bytes after the known fields */
    struct ev odd[] = {{300, 3, 0x80 | FPL_EVENT_STRING, 0, "x", 0}};
    events_body(&b, 2, odd, 1, 4);
    fpl_put_v(&b, 999);
    fpl_put_u8(&b, 0xff);
    fplgen_record(&g, FPL_REC_EVENTS, b.data, b.len);
    fpl_buf_free(&b);
    CHECK(fplgen_flush(&g) == 0);

    struct seen s;
    struct reader_stats st;
    CHECK(read_log(&g, &s, &st) == 0);
    CHECK_EQ_U(st.bad_records, 3);
    CHECK_EQ_U(st.records, 1);
    CHECK_EQ_U(s.nevent, 1);
    CHECK_EQ_U(s.ev[0].thread_id, 2);
    CHECK_EQ_U(s.ev[0].ticks, 300);
    CHECK_EQ_U(s.ev[0].flags, 0x80 | FPL_EVENT_STRING);
    CHECK(s.ev[0].s.len == 1 && s.ev[0].s.s[0] == 'x');
    CHECK_EQ_U(s.ndrops, 1);
    CHECK_EQ_U(s.drops_n[0], 4);
    fplgen_destroy(&g);
}

/* A log at 1 GHz from tick 0, so ticks are ns after the start:
 *  - alpha (id 1, tid 100): 100 x (log(1) at 1000 + 1000 i, log(2) 10 + i later), in two
 *    records of two chunks: intervals 1 -> 2 are 10 .. 109, 2 -> 1 are 990 - i;
 *  - beta (id 2, tid 200, renamed to id 3 "beta-renamed"): 5 at 500, 6 "a,\"b\"" at 600, then
 *    4 dropped, 7 at 700, 5 at 800, then 2 dropped after the last one;
 *  - thread id 9 (never defined): 42 at 50;
 *  - thread id 0 (no buffer): 11 dropped. */
static int make_log(const char *path)
{
    struct fplgen g;
    if (fplgen_init(&g) != 0)
        return -1;
    struct fplgen_header h = {.pid = 1,
                              .ticks_per_sec = 1000000000ull,
                              .anchor_real_ns = 1,
                              .cpu_interval_ns = 10000000,
                              .depth = 64,
                              .options = "",
                              .jvm_name = "",
                              .jvm_version = "",
                              .command = ""};
    fplgen_header(&g, &h);
    fplgen_thread(&g, 1, 100, "alpha");
    fplgen_thread(&g, 2, 200, "beta");
    struct ev a[200];
    for (int i = 0; i < 100; i++) {
        a[2 * i] = (struct ev){1000 + 1000 * (uint64_t)i, 1, 0, 0, NULL, 0};
        a[2 * i + 1] = (struct ev){1000 + 1000 * (uint64_t)i + 10 + (uint64_t)i, 2, 0, 0, NULL, 0};
    }
    put_events(&g, 1, a, 120, -1);
    struct ev b1[] = {{500, 5, 0, 0, NULL, 0}, {600, 6, FPL_EVENT_STRING, 0, "a,\"b\"", 0}};
    put_events(&g, 2, b1, 2, -1);
    struct ev u[] = {{50, 42, 0, 0, NULL, 0}};
    put_events(&g, 9, u, 1, -1);
    fplgen_flush(&g);
    fplgen_thread(&g, 3, 200, "beta-renamed");
    struct ev b2[] = {{700, 7, FPL_EVENT_DROPPED, 4, NULL, 0}, {800, 5, 0, 0, NULL, 0}};
    put_events(&g, 3, b2, 2, 2);
    put_events(&g, 1, a + 120, 80, -1);
    put_events(&g, 0, NULL, 0, 11);
    fplgen_end(&g, 200000);
    fplgen_flush(&g);
    int rc = fplgen_save(&g, path);
    fplgen_destroy(&g);
    return rc;
}

static const struct eventlog_thread *find(const struct eventlog *el, uint64_t tid, const char *name)
{
    for (size_t i = 0; i < el->nthreads; i++)
        if (el->threads[i].os_tid == tid && (!name || strcmp(el->threads[i].name, name) == 0))
            return &el->threads[i];
    return NULL;
}

static const struct eventlog_pair *pair(const struct eventlog_pair *p, size_t n, int64_t from,
                                        int64_t to)
{
    for (size_t i = 0; i < n; i++)
        if (p[i].from == from && p[i].to == to)
            return &p[i];
    return NULL;
}

/* Runs an output into a string (the caller frees it). */
static char *render(const struct eventlog *el, const struct eventlog_select *sel, int csv,
                    int table_only)
{
    char *text = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    struct out_events_opts o = {sel, table_only, "ev.fpl"};
    int rc = csv ? out_events_csv(el, &o, f, err, sizeof(err))
                 : out_events_text(el, &o, f, err, sizeof(err));
    fclose(f);
    CHECK(rc == 0);
    return text;
}

static void test_eventlog(void)
{
    char path[] = "/tmp/flyprof-test-events-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    CHECK(make_log(path) == 0);
    char err[256];
    struct profile_time none = {PROFILE_TIME_NONE, 0};
    struct eventlog *el = eventlog_read(path, &none, &none, err, sizeof(err));
    CHECK(el != NULL);
    if (!el) {
        fprintf(stderr, "eventlog_read: %s\n", err);
        unlink(path);
        return;
    }
    CHECK_EQ_U(el->nevents, 205);
    CHECK_EQ_U(el->nthreads, 4);
    CHECK_EQ_U(el->first_ticks, 50);
    /* ordered by first event: id 9 (50), beta (500), alpha (1000), then no events */
    CHECK(el->nthreads == 4 && el->threads[0].count == 1 && el->threads[1].os_tid == 200 &&
          el->threads[2].os_tid == 100 && el->threads[3].count == 0);
    CHECK(strstr(el->threads[0].name, "[unknown thread] (id 9)") != NULL);
    CHECK(strstr(el->threads[3].name, "no thread") != NULL);
    CHECK_EQ_U(el->threads[3].dropped, 11);
    const struct eventlog_thread *alpha = find(el, 100, "alpha");
    const struct eventlog_thread *beta = find(el, 200, "beta-renamed");
    CHECK(alpha && beta);
    if (alpha && beta) {
        CHECK_EQ_U(alpha->count, 200);
        int ordered = 1;
        for (size_t i = 0; i < 200; i++) {
            const struct eventlog_event *e = &el->events[alpha->first + i];
            ordered &= e->n == (int64_t)(i % 2 ? 2 : 1) &&
                       e->ticks == 1000 + 1000 * (i / 2) + (i % 2 ? 10 + i / 2 : 0);
        }
        CHECK(ordered);
        CHECK_EQ_U(beta->count, 4);
        CHECK_EQ_U(beta->dropped, 6);
        CHECK_EQ_U(beta->dropped_after, 2);
        const struct eventlog_event *b = &el->events[beta->first];
        CHECK(b[0].n == 5 && b[1].n == 6 && b[2].n == 7 && b[3].n == 5);
        CHECK_EQ_U(b[2].dropped, 4);
        CHECK(b[1].str_len == 5 && memcmp(el->strings + b[1].str_off, "a,\"b\"", 5) == 0);
    }
    CHECK_EQ_U(el->p->events.recorded, 205);
    CHECK_EQ_U(el->p->events.dropped, 4 + 2 + 11);

    struct eventlog_pair *p;
    size_t n;
    CHECK(eventlog_pairs(el, NULL, &p, &n) == 0);
    CHECK_EQ_U(n, 4); /* 1->2, 2->1, 5->6, 7->5; never 6->7 across the drop */
    const struct eventlog_pair *r = pair(p, n, 1, 2);
    CHECK(r && r->count == 100 && r->min == 10 && r->p50 == 59 && r->p99 == 108 && r->max == 109);
    r = pair(p, n, 2, 1);
    CHECK(r && r->count == 99 && r->min == 892 && r->p50 == 941 && r->p99 == 990 && r->max == 990);
    r = pair(p, n, 5, 6);
    CHECK(r && r->count == 1 && r->min == 100 && r->max == 100);
    r = pair(p, n, 7, 5);
    CHECK(r && r->count == 1 && r->p50 == 100);
    CHECK(pair(p, n, 6, 7) == NULL);
    free(p);

    regex_t re;
    CHECK(regcomp(&re, "^al", REG_EXTENDED | REG_NOSUB) == 0);
    struct eventlog_select sel = {&re};
    CHECK(eventlog_pairs(el, &sel, &p, &n) == 0);
    r = pair(p, n, 1, 2);
    CHECK(n == 2 && r && r->count == 100);
    free(p);

    char *text = render(el, NULL, 0, 0);
    CHECK(strstr(text, "events of ev.fpl: 205 recorded, 17 dropped, 0 truncated, on 4 threads"));
    CHECK(strstr(text, "\nthread beta-renamed (tid 200): 4 events, 6 dropped, 0 truncated\n"
                       "  450 (-): 5\n  550 (100): 6 a,\"b\"\n  [4 events dropped]\n"
                       "  650 (100): 7\n  750 (100): 5\n"
                       "  [2 events dropped after the last one]\n"));
    CHECK(strstr(text, "  0 (-): 42\n"));
    CHECK(strstr(text, "0 events, 11 dropped"));
    CHECK(strstr(text, "  950 (-): 1\n  960 (10): 2\n  1950 (990): 1\n"));
    CHECK(strstr(text, "            1           2        100           10           59"
                       "          108          109\n"));
    free(text);
    text = render(el, NULL, 0, 1);
    CHECK(!strstr(text, "\nthread ") && strstr(text, "intervals between"));
    free(text);
    text = render(el, NULL, 1, 0);
    CHECK(strncmp(text, "thread,tid,time_ns,delta_ns,n,string,truncated,dropped_before\n", 62) ==
          0);
    CHECK(strstr(text, "\nbeta-renamed,200,550,100,6,\"a,\"\"b\"\"\",0,0\n"));
    CHECK(strstr(text, "\nbeta-renamed,200,650,100,7,,0,4\n"));
    CHECK(strstr(text, "\nbeta-renamed,200,,,,,0,2\n"));
    CHECK(strstr(text, "\nalpha,100,950,,1,,0,0\n"));
    size_t rows = 0;
    for (char *c = text; *c; c++)
        rows += *c == '\n';
    CHECK_EQ_U(rows, 1 + 205 + 2); /* header, events, trailing drops of beta and of id 0 */
    free(text);
    eventlog_free(el);

    /* a window from 50 us to 60 us (events at ticks 50000 .. 59999, as ticks are ns) */
    struct profile_time from = {PROFILE_TIME_REL, 50000}, to = {PROFILE_TIME_REL, 60000};
    el = eventlog_read(path, &from, &to, err, sizeof(err));
    CHECK(el != NULL);
    if (el) {
        CHECK(eventlog_pairs(el, NULL, &p, &n) == 0);
        r = pair(p, n, 1, 2);
        const struct eventlog_pair *r2 = pair(p, n, 2, 1);
        CHECK(n == 2 && r && r->count == 10 && r->min == 59 && r2 && r2->count == 9);
        free(p);
        text = render(el, &sel, 0, 0);
        CHECK(strstr(text, "window: from 0.000050 s to 0.000060 s after the start"));
        CHECK(strstr(text, "\n  49950 (942): 1\n  50009 (59): 2\n"));
        CHECK(!strstr(text, "beta"));
        free(text);
        eventlog_free(el);
    }
    regfree(&re);
    unlink(path);
}

int main(void)
{
    test_round_trip();
    test_bad_records();
    test_eventlog();
    return harness_result("test_collector_events");
}
