/* test_collector_events.c: EVENTS records (dev.flyprof.Events) in the collector: the reader
 * decodes every field (absolute and negative deltas, extreme n, strings, truncation, drops
 * before an event and after the last one, unknown flag bits and trailing bytes), delivers
 * nothing of a record that does not decode; the profile counts recorded, dropped, truncated
 * and threads. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpl_format.h"
#include "fplgen.h"
#include "fplgen_profile.h"
#include "harness.h"
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

int main(void)
{
    test_round_trip();
    test_bad_records();
    return harness_result("test_collector_events");
}
