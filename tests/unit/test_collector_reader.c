/* test_collector_reader.c: the codec and the reader: every record type survives encode and
 * decode with extreme values; sample deltas restart in every chunk; a bad preamble is refused
 * with a message that names the problem; records are framed by their length, so an unknown
 * type or a record that does not decode within its body is skipped and the chunk goes on,
 * bytes after the known fields are ignored, and only framing that runs past the payload ends
 * the chunk. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpl_chunk.h"
#include "fpl_format.h"
#include "fplgen.h"
#include "harness.h"
#include "reader.h"

#define MAXN 16
#define STRMAX 2048

struct str {
    char s[STRMAX];
    size_t len;
};

static void copy_str(struct str *d, struct reader_str s)
{
    d->len = s.len < STRMAX ? s.len : STRMAX;
    memcpy(d->s, s.s, d->len);
}

static int str_is(const struct str *d, const char *want)
{
    return d->len == strlen(want) && memcmp(d->s, want, d->len) == 0;
}

/* Everything the callbacks saw, copied (the reader's pointers die with the callback). */
struct seen {
    int nheader;
    struct reader_header h;
    struct str hs[4];
    int nanchor;
    uint64_t anchor[MAXN][3];
    int nthread;
    struct {
        uint64_t id, tid;
        struct str name;
    } thread[MAXN];
    int nmethod;
    struct {
        uint64_t id;
        uint8_t kind;
        struct str s[4];
        size_t nlines;
        struct reader_line lines[MAXN];
    } method[MAXN];
    int nstack;
    struct {
        uint64_t id;
        size_t n;
        struct reader_frame f[MAXN];
    } stack[MAXN];
    int nsample;
    struct reader_sample sample[64];
    int ncounters;
    size_t nctr;
    struct reader_counter ctr[MAXN];
    int nhist;
    size_t hist_n;
    uint64_t hist[FPL_HIST_BUCKETS + 8], hist_max, hist_total;
    int nend;
    uint64_t end_ticks;
    int ntick;
    struct reader_wall_tick tick[MAXN];
};

static int cb_header(void *ctx, const struct reader_header *h)
{
    struct seen *s = ctx;
    s->nheader++;
    s->h = *h;
    copy_str(&s->hs[0], h->options);
    copy_str(&s->hs[1], h->jvm_name);
    copy_str(&s->hs[2], h->jvm_version);
    copy_str(&s->hs[3], h->command);
    return 0;
}

static int cb_anchor(void *ctx, uint64_t t, uint64_t m, uint64_t r)
{
    struct seen *s = ctx;
    if (s->nanchor < MAXN) {
        s->anchor[s->nanchor][0] = t;
        s->anchor[s->nanchor][1] = m;
        s->anchor[s->nanchor][2] = r;
    }
    s->nanchor++;
    return 0;
}

static int cb_thread(void *ctx, uint64_t id, uint64_t tid, struct reader_str name)
{
    struct seen *s = ctx;
    if (s->nthread < MAXN) {
        s->thread[s->nthread].id = id;
        s->thread[s->nthread].tid = tid;
        copy_str(&s->thread[s->nthread].name, name);
    }
    s->nthread++;
    return 0;
}

static int cb_method(void *ctx, const struct reader_method *m)
{
    struct seen *s = ctx;
    if (s->nmethod < MAXN) {
        s->method[s->nmethod].id = m->id;
        s->method[s->nmethod].kind = m->kind;
        copy_str(&s->method[s->nmethod].s[0], m->class_name);
        copy_str(&s->method[s->nmethod].s[1], m->name);
        copy_str(&s->method[s->nmethod].s[2], m->signature);
        copy_str(&s->method[s->nmethod].s[3], m->source_file);
        s->method[s->nmethod].nlines = m->nlines;
        for (size_t i = 0; i < m->nlines && i < MAXN; i++)
            s->method[s->nmethod].lines[i] = m->lines[i];
    }
    s->nmethod++;
    return 0;
}

static int cb_stack(void *ctx, uint64_t id, const struct reader_frame *f, size_t n)
{
    struct seen *s = ctx;
    if (s->nstack < MAXN) {
        s->stack[s->nstack].id = id;
        s->stack[s->nstack].n = n;
        for (size_t i = 0; i < n && i < MAXN; i++)
            s->stack[s->nstack].f[i] = f[i];
    }
    s->nstack++;
    return 0;
}

static int cb_sample(void *ctx, const struct reader_sample *x)
{
    struct seen *s = ctx;
    if (s->nsample < 64)
        s->sample[s->nsample] = *x;
    s->nsample++;
    return 0;
}

static int cb_counters(void *ctx, const struct reader_counter *c, size_t n)
{
    struct seen *s = ctx;
    s->ncounters++;
    s->nctr = n;
    for (size_t i = 0; i < n && i < MAXN; i++)
        s->ctr[i] = c[i];
    return 0;
}

static int cb_hist(void *ctx, const uint64_t *b, size_t n, uint64_t max, uint64_t total)
{
    struct seen *s = ctx;
    s->nhist++;
    s->hist_n = n;
    for (size_t i = 0; i < n && i < FPL_HIST_BUCKETS + 8; i++)
        s->hist[i] = b[i];
    s->hist_max = max;
    s->hist_total = total;
    return 0;
}

static int cb_end(void *ctx, uint64_t t)
{
    struct seen *s = ctx;
    s->nend++;
    s->end_ticks = t;
    return 0;
}

static int cb_wall_tick(void *ctx, const struct reader_wall_tick *t)
{
    struct seen *s = ctx;
    if (s->ntick < MAXN)
        s->tick[s->ntick] = *t;
    s->ntick++;
    return 0;
}

static const struct reader_ops ops = {
    .header = cb_header,
    .anchor = cb_anchor,
    .thread = cb_thread,
    .method = cb_method,
    .stack = cb_stack,
    .sample = cb_sample,
    .counters = cb_counters,
    .handler_hist = cb_hist,
    .end = cb_end,
    .wall_tick = cb_wall_tick,
};

/* Reads a generator's log (from an exactly sized copy, so ASan sees any overread). */
static int read_gen(struct fplgen *g, struct seen *s, struct reader_stats *st, char *err,
                    size_t errlen)
{
    size_t len;
    uint8_t *data = fplgen_bytes(g, &len);
    if (!data)
        return -ENOMEM;
    memset(s, 0, sizeof(*s));
    int rc = reader_read_mem(data, len, "gen.fpl", &ops, s, st, err, errlen);
    free(data);
    return rc;
}

static void test_varints(void)
{
    static const uint64_t v[] = {
        0, 1, 127, 128, 16383, 16384, 1ull << 35, (1ull << 63) - 1, 1ull << 63, UINT64_MAX};
    static const size_t sizes[] = {1, 1, 1, 2, 2, 3, 6, 9, 10, 10};
    static const int64_t sv[] = {0, -1, 1, -64, 64, INT64_MIN, INT64_MAX, INT64_MIN + 1};
    struct fpl_buf b = {0};

    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        b.len = 0;
        fpl_put_v(&b, v[i]);
        CHECK_EQ_U(b.len, sizes[i]);
        struct fpl_cur c = {b.data, b.data + b.len, 0};
        CHECK_EQ_U(fpl_get_v(&c), v[i]);
        CHECK(!c.bad && c.p == c.end);
        /* the same encoding cut by one byte must fail, not read past the end */
        struct fpl_cur cut = {b.data, b.data + b.len - 1, 0};
        fpl_get_v(&cut);
        CHECK(cut.bad);
    }
    for (size_t i = 0; i < sizeof(sv) / sizeof(sv[0]); i++) {
        b.len = 0;
        fpl_put_sv(&b, sv[i]);
        struct fpl_cur c = {b.data, b.data + b.len, 0};
        CHECK(fpl_get_sv(&c) == sv[i]);
        CHECK(!c.bad);
    }
    /* an 11-byte varint is damage */
    uint8_t eleven[11];
    memset(eleven, 0x80, sizeof(eleven));
    eleven[10] = 0;
    struct fpl_cur c = {eleven, eleven + sizeof(eleven), 0};
    fpl_get_v(&c);
    CHECK(c.bad);
    /* the 10th byte holds bit 63 only: 1 is 2^63, anything above is more than 64 bits */
    uint8_t ten[10];
    memset(ten, 0x80, sizeof(ten));
    for (unsigned last = 0; last < 256; last++) {
        ten[9] = (uint8_t)last;
        struct fpl_cur t = {ten, ten + sizeof(ten), 0};
        uint64_t v10 = fpl_get_v(&t);
        if (last <= 1) {
            CHECK(!t.bad && t.p == t.end);
            CHECK_EQ_U(v10, (uint64_t)last << 63);
        } else {
            CHECK(t.bad);
            CHECK_EQ_U(v10, 0);
        }
    }
    memset(ten, 0xff, sizeof(ten));
    ten[9] = 0x03; /* UINT64_MAX with one more bit: 65 bits */
    struct fpl_cur t65 = {ten, ten + sizeof(ten), 0};
    fpl_get_v(&t65);
    CHECK(t65.bad);
    /* a string longer than what is left */
    b.len = 0;
    fpl_put_v(&b, 5);
    fpl_put_bytes(&b, "abc", 3);
    struct fpl_cur cs = {b.data, b.data + b.len, 0};
    size_t n;
    fpl_get_str(&cs, &n);
    CHECK(cs.bad && n == 0);
    fpl_buf_free(&b);
}

static void test_round_trip(void)
{
    static const char long_name[] = "x123456789abcdefx123456789abcdefx123456789abcdef"
                                    "x123456789abcdefx123456789abcdefx123456789abcdef"
                                    "x123456789abcdefx123456789abcdefx123456789abcdef";
    const struct fplgen_header h = {
        .pid = UINT64_MAX,
        .clock = FPL_CLOCK_MONOTONIC,
        .ticks_per_sec = UINT64_MAX,
        .anchor_ticks = 1ull << 63,
        .anchor_mono_ns = 0,
        .anchor_real_ns = UINT64_MAX - 1,
        .cpu_interval_ns = 0,
        .engine = FPL_ENGINE_PERF,
        .wall_interval_ns = UINT64_MAX,
        .wall_threads = 128,
        .depth = 16384,
        .options = "",
        .jvm_name = "Grüße 日本 VM",
        .jvm_version = long_name,
        .command = "java -Dx=\"a b\" Main",
    };
    const struct reader_line lines[] = {{0, 0}, {127, 128}, {UINT64_MAX, UINT64_MAX}};
    const struct reader_frame frames[] = {
        {0, 0, 0}, {UINT64_MAX, -1, 0}, {1, INT64_MIN, 0}, {2, INT64_MAX, 0}, {3, -2, 0}, {4, 65535, 0},
    };
    const struct reader_counter ctr[] = {{0, 0}, {FPL_CTR_BYTES, UINT64_MAX}, {1000, 7}};
    const uint64_t ticks[] = {0, UINT64_MAX, 5, 1ull << 63, 0, 17};
    uint64_t hist[FPL_HIST_BUCKETS + 3];
    struct fplgen g;
    struct seen s;
    struct reader_stats st;
    char err[256] = "";

    for (size_t i = 0; i < sizeof(hist) / sizeof(hist[0]); i++)
        hist[i] = i * i * 1000003ull;
    hist[5] = UINT64_MAX;

    CHECK(fplgen_init(&g) == 0);
    fplgen_header(&g, &h);
    fplgen_anchor(&g, 0, UINT64_MAX, 1ull << 63);
    fplgen_thread(&g, 0, 0, "");
    fplgen_thread(&g, UINT64_MAX, 1ull << 32, "Ünïcødé-スレッド");
    fplgen_method(&g, 0, FPL_METHOD_JAVA, "java.lang.String", "<init>", "([BB)V", "String.java", 3,
                  lines);
    fplgen_method(&g, UINT64_MAX, FPL_METHOD_MARKER, "", "", "", "", 0, NULL);
    fplgen_method(&g, 7, 200, "com.foo.Bar$$Lambda$14/0x0000000800c03000", "λ", "()V", "", 0, NULL);
    fplgen_stack(&g, 1, sizeof(frames) / sizeof(frames[0]), frames);
    fplgen_stack(&g, UINT64_MAX, 0, NULL);
    fplgen_wall_tick(&g, 1, 0, 0, 0, 0, 0);
    fplgen_wall_tick(&g, UINT64_MAX, UINT64_MAX, UINT64_MAX, 1ull << 63, 127, 128);
    /* even samples carry a tick id (the last one UINT64_MAX), odd ones leave the field out */
    for (size_t i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++) {
        if (i % 2)
            fplgen_sample(&g, ticks[i], i, UINT64_MAX - i, i == 2 ? UINT64_MAX : i + 1,
                          (uint8_t)(i % 3), (uint8_t)(i == 3 ? 255 : i));
        else
            fplgen_sample_tick(&g, ticks[i], i, UINT64_MAX - i, i == 2 ? UINT64_MAX : i + 1,
                               (uint8_t)(i % 3), (uint8_t)(i == 3 ? 255 : i),
                               i == 4 ? UINT64_MAX : i * 1000);
    }
    fplgen_counters(&g, 3, ctr);
    fplgen_hist(&g, sizeof(hist) / sizeof(hist[0]), hist, UINT64_MAX, 0);
    fplgen_end(&g, UINT64_MAX);
    CHECK(fplgen_flush(&g) == 0);
    /* a second chunk: sample deltas restart from 0, written here by hand so that the test
     * does not rely on the generator sharing the reader's idea */
    uint8_t raw[32];
    struct fpl_buf b = {0};
    size_t r = fpl_rec_begin(&b, FPL_REC_SAMPLE);
    fpl_put_sv(&b, 1000); /* absolute 1000 */
    fpl_put_v(&b, 1);
    fpl_put_v(&b, 1);
    fpl_put_v(&b, 1);
    fpl_put_u8(&b, FPL_KIND_WALL);
    fpl_put_u8(&b, FPL_STATE_PARKED);
    fpl_put_v(&b, 7); /* tick id */
    fpl_rec_end(&b, r);
    r = fpl_rec_begin(&b, FPL_REC_SAMPLE);
    fpl_put_sv(&b, -10); /* 990 */
    fpl_put_v(&b, 1);
    fpl_put_v(&b, 1);
    fpl_put_v(&b, 1);
    fpl_put_u8(&b, FPL_KIND_CPU);
    fpl_put_u8(&b, FPL_STATE_RUNNING);
    fpl_rec_end(&b, r);
    CHECK(b.len < sizeof(raw));
    /* the framing by hand: type, one-byte length, body */
    CHECK(b.data[0] == FPL_REC_SAMPLE && b.data[1] == 8);
    fplgen_raw(&g, b.data, b.len);
    fpl_buf_free(&b);
    CHECK(fplgen_flush(&g) == 0);

    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.chunks_ok, 2);
    CHECK_EQ_U(st.chunks_damaged + st.chunks_truncated + st.chunks_bad_framing, 0);
    CHECK_EQ_U(st.bad_records + st.unknown_records + st.seq_errors, 0);
    CHECK_EQ_U(st.chunks_lost, 0);
    CHECK_EQ_U(st.records, 1 + 1 + 2 + 3 + 2 + 2 + 6 + 1 + 1 + 1 + 2);

    CHECK_EQ_U(s.nheader, 1);
    CHECK_EQ_U(s.h.header_version, 1);
    CHECK_EQ_U(s.h.pid, UINT64_MAX);
    CHECK_EQ_U(s.h.clock, FPL_CLOCK_MONOTONIC);
    CHECK_EQ_U(s.h.ticks_per_sec, UINT64_MAX);
    CHECK_EQ_U(s.h.anchor_ticks, 1ull << 63);
    CHECK_EQ_U(s.h.anchor_mono_ns, 0);
    CHECK_EQ_U(s.h.anchor_real_ns, UINT64_MAX - 1);
    CHECK_EQ_U(s.h.cpu_interval_ns, 0);
    CHECK_EQ_U(s.h.engine, FPL_ENGINE_PERF);
    CHECK_EQ_U(s.h.wall_interval_ns, UINT64_MAX);
    CHECK_EQ_U(s.h.wall_threads, 128);
    CHECK_EQ_U(s.h.depth, 16384);
    CHECK(str_is(&s.hs[0], ""));
    CHECK(str_is(&s.hs[1], "Grüße 日本 VM"));
    CHECK(str_is(&s.hs[2], long_name));
    CHECK(str_is(&s.hs[3], "java -Dx=\"a b\" Main"));

    CHECK_EQ_U(s.nanchor, 1);
    CHECK_EQ_U(s.anchor[0][0], 0);
    CHECK_EQ_U(s.anchor[0][1], UINT64_MAX);
    CHECK_EQ_U(s.anchor[0][2], 1ull << 63);

    CHECK_EQ_U(s.nthread, 2);
    CHECK_EQ_U(s.thread[0].id, 0);
    CHECK(str_is(&s.thread[0].name, ""));
    CHECK_EQ_U(s.thread[1].id, UINT64_MAX);
    CHECK_EQ_U(s.thread[1].tid, 1ull << 32);
    CHECK(str_is(&s.thread[1].name, "Ünïcødé-スレッド"));

    CHECK_EQ_U(s.nmethod, 3);
    CHECK_EQ_U(s.method[0].id, 0);
    CHECK_EQ_U(s.method[0].kind, FPL_METHOD_JAVA);
    CHECK(str_is(&s.method[0].s[0], "java.lang.String"));
    CHECK(str_is(&s.method[0].s[1], "<init>"));
    CHECK(str_is(&s.method[0].s[2], "([BB)V"));
    CHECK(str_is(&s.method[0].s[3], "String.java"));
    CHECK_EQ_U(s.method[0].nlines, 3);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_U(s.method[0].lines[i].start_bci, lines[i].start_bci);
        CHECK_EQ_U(s.method[0].lines[i].line, lines[i].line);
    }
    CHECK_EQ_U(s.method[1].id, UINT64_MAX);
    CHECK_EQ_U(s.method[1].kind, FPL_METHOD_MARKER);
    CHECK(str_is(&s.method[1].s[1], "") && s.method[1].nlines == 0);
    CHECK_EQ_U(s.method[2].kind, 200); /* passed through unchecked */
    CHECK(str_is(&s.method[2].s[0], "com.foo.Bar$$Lambda$14/0x0000000800c03000"));
    CHECK(str_is(&s.method[2].s[1], "λ"));

    CHECK_EQ_U(s.nstack, 2);
    CHECK_EQ_U(s.stack[0].id, 1);
    CHECK_EQ_U(s.stack[0].n, sizeof(frames) / sizeof(frames[0]));
    for (size_t i = 0; i < sizeof(frames) / sizeof(frames[0]); i++) {
        CHECK_EQ_U(s.stack[0].f[i].method_id, frames[i].method_id);
        CHECK(s.stack[0].f[i].bci == frames[i].bci);
    }
    CHECK_EQ_U(s.stack[1].id, UINT64_MAX);
    CHECK_EQ_U(s.stack[1].n, 0);

    CHECK_EQ_U(s.nsample, sizeof(ticks) / sizeof(ticks[0]) + 2);
    for (size_t i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++) {
        CHECK_EQ_U(s.sample[i].ticks, ticks[i]);
        CHECK_EQ_U(s.sample[i].thread_id, i);
        CHECK_EQ_U(s.sample[i].stack_id, UINT64_MAX - i);
        CHECK_EQ_U(s.sample[i].weight, i == 2 ? UINT64_MAX : i + 1);
        CHECK_EQ_U(s.sample[i].kind, i % 3);
        CHECK_EQ_U(s.sample[i].state, i == 3 ? 255 : i);
        CHECK_EQ_U(s.sample[i].tick_id, i % 2 ? 0 : i == 4 ? UINT64_MAX : i * 1000);
    }
    CHECK_EQ_U(s.sample[6].ticks, 1000);
    CHECK_EQ_U(s.sample[6].kind, FPL_KIND_WALL);
    CHECK_EQ_U(s.sample[6].state, FPL_STATE_PARKED);
    CHECK_EQ_U(s.sample[6].tick_id, 7);
    CHECK_EQ_U(s.sample[7].ticks, 990);
    CHECK_EQ_U(s.sample[7].tick_id, 0);

    CHECK_EQ_U(s.ntick, 2);
    CHECK_EQ_U(s.tick[0].id, 1);
    CHECK_EQ_U(s.tick[0].ticks + s.tick[0].candidates + s.tick[0].chosen, 0);
    CHECK_EQ_U(s.tick[1].id, UINT64_MAX);
    CHECK_EQ_U(s.tick[1].ticks, UINT64_MAX);
    CHECK_EQ_U(s.tick[1].candidates, UINT64_MAX);
    CHECK_EQ_U(s.tick[1].chosen, 1ull << 63);
    CHECK_EQ_U(s.tick[1].signaled, 127);
    CHECK_EQ_U(s.tick[1].failed, 128);

    CHECK_EQ_U(s.ncounters, 1);
    CHECK_EQ_U(s.nctr, 3);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_U(s.ctr[i].id, ctr[i].id);
        CHECK_EQ_U(s.ctr[i].value, ctr[i].value);
    }
    CHECK_EQ_U(s.nhist, 1);
    CHECK_EQ_U(s.hist_n, sizeof(hist) / sizeof(hist[0]));
    CHECK(memcmp(s.hist, hist, sizeof(hist)) == 0);
    CHECK_EQ_U(s.hist_max, UINT64_MAX);
    CHECK_EQ_U(s.hist_total, 0);
    CHECK_EQ_U(s.nend, 1);
    CHECK_EQ_U(s.end_ticks, UINT64_MAX);
    fplgen_destroy(&g);
}

/* Records are framed: an unknown type is skipped and the records after it in the same chunk
 * are read. */
static void test_unknown_type(void)
{
    const struct reader_frame f[] = {{1, 0, 0}};
    struct fplgen g;
    struct seen s;
    struct reader_stats st;
    char err[256];

    CHECK(fplgen_init(&g) == 0);
    fplgen_thread(&g, 1, 1, "a");
    fplgen_record(&g, 127, "\x01\x02\x03", 3);
    fplgen_thread(&g, 2, 2, "after unknown");
    fplgen_record(&g, 0, "", 0); /* type 0 is not a record type either; empty body */
    fplgen_stack(&g, 1, 1, f);
    /* a long body: its length takes two bytes and holds what looks like records */
    uint8_t big[300];
    memset(big, FPL_REC_END, sizeof(big));
    fplgen_record(&g, 200, big, sizeof(big));
    fplgen_sample(&g, 5, 1, 1, 1, FPL_KIND_CPU, 0);
    CHECK(fplgen_flush(&g) == 0);
    /* a HEADER of another layout version is skipped like an unknown type */
    fplgen_record(&g, FPL_REC_HEADER, "\x02\x09\x09", 3);
    fplgen_thread(&g, 3, 3, "after header v2");
    CHECK(fplgen_flush(&g) == 0);

    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.chunks_ok, 2);
    CHECK_EQ_U(st.unknown_records, 4);
    CHECK_EQ_U(st.bad_records + st.chunks_bad_framing, 0);
    CHECK_EQ_U(st.records, 5);
    CHECK_EQ_U(s.nheader, 0);
    CHECK_EQ_U(s.nend, 0);
    CHECK_EQ_U(s.nthread, 3);
    CHECK(str_is(&s.thread[1].name, "after unknown"));
    CHECK(str_is(&s.thread[2].name, "after header v2"));
    CHECK_EQ_U(s.nstack, 1);
    CHECK_EQ_U(s.nsample, 1);
    CHECK_EQ_U(s.sample[0].ticks, 5);
    fplgen_destroy(&g);
}

/* A newer writer appends fields: bytes after the fields this reader knows are ignored, in
 * every record type, and the next record is found by the length. */
static void test_trailing_bytes(void)
{
    struct fplgen g;
    struct seen s;
    struct reader_stats st;
    struct fpl_buf b = {0};
    char err[256];
    size_t r;

    CHECK(fplgen_init(&g) == 0);
    fplgen_thread(&g, 1, 11, "x");
    fplgen_stack(&g, 2, 0, NULL);
    fplgen_sample_tick(&g, 40, 1, 2, 3, FPL_KIND_WALL, FPL_STATE_PARKED, 9);
    fplgen_wall_tick(&g, 9, 39, 12, 4, 4, 0);
    fplgen_end(&g, 77);
    /* copy every record of the chunk, each with three more bytes in its body */
    const uint8_t *p = g.rec.data, *end = g.rec.data + g.rec.len;
    while (p < end) {
        struct fpl_cur c = {p + 1, end, 0};
        uint64_t n = fpl_get_v(&c);
        r = fpl_rec_begin(&b, p[0]);
        fpl_put_bytes(&b, c.p, (size_t)n);
        fpl_put_bytes(&b, "\x81\xff\x00", 3); /* an unfinished varint too: never decoded */
        fpl_rec_end(&b, r);
        p = c.p + n;
    }
    g.rec.len = 0;
    fplgen_raw(&g, b.data, b.len);
    fplgen_thread(&g, 4, 44, "next");
    CHECK(fplgen_flush(&g) == 0);

    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.records, 6);
    CHECK_EQ_U(st.bad_records + st.unknown_records + st.chunks_bad_framing, 0);
    CHECK_EQ_U(s.nthread, 2);
    CHECK_EQ_U(s.thread[0].tid, 11);
    CHECK(str_is(&s.thread[0].name, "x"));
    CHECK(str_is(&s.thread[1].name, "next"));
    CHECK_EQ_U(s.nstack, 1);
    CHECK_EQ_U(s.stack[0].n, 0);
    CHECK_EQ_U(s.nsample, 1);
    CHECK_EQ_U(s.sample[0].ticks, 40);
    CHECK_EQ_U(s.sample[0].weight, 3);
    CHECK_EQ_U(s.sample[0].state, FPL_STATE_PARKED);
    CHECK_EQ_U(s.sample[0].tick_id, 9);
    CHECK_EQ_U(s.ntick, 1);
    CHECK_EQ_U(s.tick[0].candidates, 12);
    CHECK_EQ_U(s.tick[0].failed, 0);
    CHECK_EQ_U(s.nend, 1);
    CHECK_EQ_U(s.end_ticks, 77);
    fplgen_destroy(&g);
    fpl_buf_free(&b);
}

/* A record whose fields run past its body is counted and skipped, and the chunk goes on; a
 * length running past the payload ends the chunk, and only it. */
static void test_bad_records(void)
{
    const struct reader_frame f[] = {{1, 0, 0}};
    struct fplgen g;
    struct seen s;
    struct reader_stats st;
    char err[256];

    CHECK(fplgen_init(&g) == 0);
    fplgen_thread(&g, 1, 1, "a");
    /* a THREAD whose name (9 bytes) runs past its 5-byte body, though the bytes after the
     * body would hold it */
    fplgen_record(&g, FPL_REC_THREAD,
                  "\x05\x05\x09"
                  "ab",
                  5);
    fplgen_thread(&g, 2, 2, "after bad");
    fplgen_record(&g, FPL_REC_SAMPLE, "", 0);             /* empty */
    fplgen_record(&g, FPL_REC_ANCHOR, "\x01\x02\x03", 3); /* u64s cut */
    fplgen_record(&g, FPL_REC_WALL_TICK, "\x00\x01\x00\x00\x00\x00\x00\x00\x00\x05\x02\x02\x00",
                  13); /* tick id 0 */
    /* a SAMPLE cut inside its optional tick id: a varint that does not end */
    fplgen_record(&g, FPL_REC_SAMPLE, "\x02\x01\x01\x01\x00\x01\x85", 7);
    CHECK(fplgen_flush(&g) == 0);

    /* a SAMPLE cut after its delta still moves the delta chain, as the writer's did */
    fplgen_stack(&g, 1, 1, f);
    fplgen_sample(&g, 5, 1, 1, 1, FPL_KIND_CPU, 0);
    fplgen_record(&g, FPL_REC_SAMPLE, "\x14", 1); /* +10: ticks 15, the rest missing */
    g.last_ticks = 15;
    fplgen_sample(&g, 20, 1, 1, 1, FPL_KIND_CPU, 0);
    CHECK(fplgen_flush(&g) == 0);

    /* a body length running past the payload ends the chunk */
    fplgen_thread(&g, 3, 3, "before overrun");
    fplgen_raw(&g, "\x03\x7f\x01", 3);
    CHECK(fplgen_flush(&g) == 0);
    /* so does a type byte with no length after it */
    fplgen_thread(&g, 4, 4, "before cut length");
    fplgen_raw(&g, "\x03", 1);
    CHECK(fplgen_flush(&g) == 0);
    /* and a length that is no varint (11 bytes) */
    fplgen_raw(&g, "\x03\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 12);
    CHECK(fplgen_flush(&g) == 0);
    fplgen_thread(&g, 5, 5, "fine");
    CHECK(fplgen_flush(&g) == 0);

    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.chunks_ok, 6);
    CHECK_EQ_U(st.bad_records, 6);
    CHECK_EQ_U(st.chunks_bad_framing, 3);
    CHECK_EQ_U(st.unknown_records, 0);
    CHECK_EQ_U(s.nthread, 5);
    CHECK_EQ_U(s.thread[0].id, 1);
    CHECK(str_is(&s.thread[1].name, "after bad"));
    CHECK(str_is(&s.thread[2].name, "before overrun"));
    CHECK(str_is(&s.thread[3].name, "before cut length"));
    CHECK(str_is(&s.thread[4].name, "fine"));
    CHECK_EQ_U(s.nanchor + s.ntick, 0);
    CHECK_EQ_U(s.nstack, 1);
    CHECK_EQ_U(s.nsample, 2);
    CHECK_EQ_U(s.sample[0].ticks, 5);
    CHECK_EQ_U(s.sample[1].ticks, 20);
    fplgen_destroy(&g);
}

/* SAMPLE2 (version 2): elided fields come from the chunk's chains (the previous sample's
 * thread and tick, each thread's previous kind, state, stack and context); the chains and the
 * delta chain (shared with SAMPLE) restart per chunk; a record eliding what no earlier record
 * of the chunk set is bad and changes no chain but the delta's. */
static void test_sample2(void)
{
    struct fplgen g;
    struct seen s;
    struct reader_stats st;
    char err[256];
    CHECK(fplgen_init(&g) == 0);
    fplgen_thread(&g, 1, 11, "a");
    fplgen_thread(&g, 2, 12, "b");
    struct reader_frame f[1] = {{1, 0, 0}};
    fplgen_stack(&g, 3, 1, f);
    fplgen_stack(&g, 4, 1, f);
    /* thread 1: whole, with tick +5 and context 9 */
    fplgen_record(&g, FPL_REC_SAMPLE2, "\x37\xd0\x0f\x01\x01\x05\x03\x0a\x09", 9);
    /* everything elided: +2000 ticks (sv 4000: a0 1f) */
    fplgen_record(&g, FPL_REC_SAMPLE2, "\x00\xa0\x1f", 3);
    /* a SAMPLE between them moves the shared delta chain: +10 */
    g.last_ticks = 3000;
    fplgen_sample(&g, 3010, 2, 4, 1, FPL_KIND_CPU, 0);
    /* thread 2, whole, weight 3: its own chain; then thread 1 again by name, stack 4, tick -1 */
    fplgen_record(&g, FPL_REC_SAMPLE2, "\x0f\x02\x02\x00\x01\x04\x03", 7);
    fplgen_record(&g, FPL_REC_SAMPLE2, "\x15\x02\x01\x04\x01", 5);
    CHECK(fplgen_flush(&g) == 0);
    /* the next chunk: the chains restart, so eliding the thread, or thread 1's kind and
     * stack, is bad; the bad record's delta still counts (+5), a good one follows */
    fplgen_record(&g, FPL_REC_SAMPLE2, "\x00\x0a", 2);
    fplgen_record(&g, FPL_REC_SAMPLE2, "\x01\x02\x01", 3);
    fplgen_record(&g, FPL_REC_SAMPLE2, "\x07\x02\x01\x00\x01\x03", 6);
    CHECK(fplgen_flush(&g) == 0);
    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.bad_records, 2);
    CHECK_EQ_U(s.nsample, 6);
    if (s.nsample == 6) {
        struct reader_sample *x = s.sample;
        CHECK(x[0].ticks == 1000 && x[0].thread_id == 1 && x[0].kind == FPL_KIND_WALL &&
              x[0].state == 5 && x[0].stack_id == 3 && x[0].weight == 1 && x[0].tick_id == 5 &&
              x[0].context_id == 9);
        CHECK(x[1].ticks == 3000 && x[1].thread_id == 1 && x[1].kind == FPL_KIND_WALL &&
              x[1].state == 5 && x[1].stack_id == 3 && x[1].weight == 1 && x[1].tick_id == 0 &&
              x[1].context_id == 9);
        CHECK(x[2].ticks == 3010 && x[2].thread_id == 2);
        CHECK(x[3].ticks == 3011 && x[3].thread_id == 2 && x[3].kind == FPL_KIND_CPU &&
              x[3].stack_id == 4 && x[3].weight == 3 && x[3].context_id == 0);
        CHECK(x[4].ticks == 3012 && x[4].thread_id == 1 && x[4].kind == FPL_KIND_WALL &&
              x[4].stack_id == 4 && x[4].tick_id == 4 && x[4].context_id == 9);
        CHECK(x[5].ticks == 7 && x[5].thread_id == 1 && x[5].kind == FPL_KIND_CPU &&
              x[5].stack_id == 3);
    }
    fplgen_destroy(&g);
}

/* Whether seen stack k is id with frames (method, bci, type) triples m[0..n). */
static int stack_is(const struct seen *s, int k, uint64_t id, const int64_t (*m)[3], size_t n)
{
    if (k >= s->nstack || s->stack[k].id != id || s->stack[k].n != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s->stack[k].f[i].method_id != (uint64_t)m[i][0] || s->stack[k].f[i].bci != m[i][1] ||
            s->stack[k].f[i].type != m[i][2])
            return 0;
    return 1;
}

/* STACK2 (FORMAT.md 5.21): FORMAT.md's example byte for byte; a base further back, a base
 * that is itself a STACK2, and every shared count from 0 to all; then the bad ones, which still
 * count as positions (a base nobody may use): back 0, back past the chunk's stack records,
 * more shared frames than the base has, a bad record as base; and in the next chunk the ring
 * starts empty. */
static void test_stack2(void)
{
    struct fplgen g;
    struct seen s;
    struct reader_stats st;
    char err[256];
    CHECK(fplgen_init(&g) == 0);
    fplgen_record(&g, FPL_REC_STACK, "\x07\x03\x01\x00\x02\x02\x03\x02\x00\x00\x00", 11);
    fplgen_record(&g, FPL_REC_STACK2, "\x08\x01\x02\x01\x04\x0a\x00", 7);
    /* stack 9: base 2 back (stack 7), all 3 shared, no new frame */
    fplgen_record(&g, FPL_REC_STACK2, "\x09\x02\x03\x00", 4);
    /* stack 10: base 2 back (stack 8, a STACK2), 1 shared (method 3), 2 new (5 native, 6) */
    fplgen_record(&g, FPL_REC_STACK2, "\x0a\x02\x01\x02\x05\x01\x06\x00\x05\x00", 10);
    /* stack 11: none shared, 1 new */
    fplgen_record(&g, FPL_REC_STACK2, "\x0b\x01\x00\x01\x07\x00\x01", 7);
    /* bad: back 0; back 7 (6 records so far, this one is the 6th); 5 shared of stack 11's 1 */
    fplgen_record(&g, FPL_REC_STACK2, "\x0c\x00\x00\x00", 4);
    fplgen_record(&g, FPL_REC_STACK2, "\x0d\x07\x00\x00", 4);
    fplgen_record(&g, FPL_REC_STACK2, "\x0e\x03\x05\x00", 4);
    /* bad: based on the bad record right before it */
    fplgen_record(&g, FPL_REC_STACK2, "\x0f\x01\x00\x00", 4);
    /* good again: 5 back is stack 11 (the bad ones count) */
    fplgen_record(&g, FPL_REC_STACK2, "\x10\x05\x01\x00", 4);
    CHECK(fplgen_flush(&g) == 0);
    /* a new chunk: nothing to build on */
    fplgen_record(&g, FPL_REC_STACK2, "\x11\x01\x00\x00", 4);
    CHECK(fplgen_flush(&g) == 0);
    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.bad_records, 5);
    CHECK_EQ_U(s.nstack, 6);
    static const int64_t s7[][3] = {{1, 0, 0}, {2, 1, 0}, {3, 1, 0}};
    static const int64_t s8[][3] = {{4, 5, 0}, {2, 1, 0}, {3, 1, 0}};
    static const int64_t s10[][3] = {{5, -1, 5}, {6, 0, 0}, {3, 1, 0}};
    static const int64_t s11[][3] = {{7, 0, 1}};
    CHECK(stack_is(&s, 0, 7, s7, 3));
    CHECK(stack_is(&s, 1, 8, s8, 3));
    CHECK(stack_is(&s, 2, 9, s7, 3));
    CHECK(stack_is(&s, 3, 10, s10, 3));
    CHECK(stack_is(&s, 4, 11, s11, 1));
    CHECK(stack_is(&s, 5, 16, s11, 1));
    fplgen_destroy(&g);
}

/* Whether seen method k is (id, kind, class, name, signature, source) with lines l[0..n). */
static int method_is(const struct seen *s, int k, uint64_t id, uint8_t kind, const char *cls,
                     const char *name, const char *sig, const char *src,
                     const struct reader_line *l, size_t n)
{
    if (k >= s->nmethod || s->method[k].id != id || s->method[k].kind != kind ||
        !str_is(&s->method[k].s[0], cls) || !str_is(&s->method[k].s[1], name) ||
        !str_is(&s->method[k].s[2], sig) || !str_is(&s->method[k].s[3], src) ||
        s->method[k].nlines != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s->method[k].lines[i].start_bci != l[i].start_bci ||
            s->method[k].lines[i].line != l[i].line)
            return 0;
    return 1;
}

/* CLASS_NAME and METHOD2 (FORMAT.md 5.22, 5.23): FORMAT.md's examples byte for byte, read as
 * the METHOD record of the same method; class id 0 (no class); then the bad ones: a class id
 * never defined, a CLASS_NAME of id 0, a cut CLASS_NAME (and a METHOD2 using its id), a line
 * table shorter than its count, a count the body cannot hold; a class id defined again
 * replaces the first, and classes outlive their chunk (unlike STACK2's bases); a class whose
 * chunk was damaged is undefined after it. */
static void test_method2(void)
{
    static const uint8_t class_ex[] = {
        0x16, 0x20, 0x01, 0x11, 0x6a, 0x61, 0x76, 0x61, 0x2e, 0x75, 0x74, 0x69,
        0x6c, 0x2e, 0x48, 0x61, 0x73, 0x68, 0x4d, 0x61, 0x70, 0x0c, 0x48, 0x61,
        0x73, 0x68, 0x4d, 0x61, 0x70, 0x2e, 0x6a, 0x61, 0x76, 0x61};
    static const uint8_t method_ex[] = {
        0x17, 0x26, 0x07, 0x00, 0x01, 0x04, 0x68, 0x61, 0x73, 0x68, 0x15, 0x28, 0x4c, 0x6a,
        0x61, 0x76, 0x61, 0x2f, 0x6c, 0x61, 0x6e, 0x67, 0x2f, 0x4f, 0x62, 0x6a, 0x65, 0x63,
        0x74, 0x3b, 0x29, 0x49, 0x03, 0x00, 0xa6, 0x05, 0x04, 0x02, 0x08, 0x03};
    static const struct reader_line lines[] = {{0, 339}, {4, 340}, {12, 338}};
    struct fplgen g;
    struct seen s;
    struct reader_stats st;
    char err[256];
    CHECK(fplgen_init(&g) == 0);
    fplgen_raw(&g, class_ex, sizeof(class_ex));
    fplgen_raw(&g, method_ex, sizeof(method_ex));
    fplgen_method(&g, 70, FPL_METHOD_JAVA, "java.util.HashMap", "hash", "(Ljava/lang/Object;)I",
                  "HashMap.java", 3, lines);
    fplgen_record(&g, FPL_REC_METHOD2, "\x08\x02\x00\x08[marker]\x00\x00", 14);
    /* bad: class 5 never defined; CLASS_NAME id 0; a CLASS_NAME cut in its name, and a
     * METHOD2 of its id; 3 lines with 2 given; 200 lines in 4 bytes */
    fplgen_record(&g, FPL_REC_METHOD2, "\x09\x00\x05\x01" "f\x03()V\x00", 10);
    fplgen_record(&g, FPL_REC_CLASS_NAME, "\x00\x01x\x00", 4);
    fplgen_record(&g, FPL_REC_CLASS_NAME, "\x02\x0a" "abc", 5);
    fplgen_record(&g, FPL_REC_METHOD2, "\x0a\x00\x02\x01" "f\x00\x00", 7);
    fplgen_record(&g, FPL_REC_METHOD2, "\x0b\x00\x01\x01" "f\x00\x03\x00\x02\x04\x02", 11);
    fplgen_record(&g, FPL_REC_METHOD2, "\x0c\x00\x01\x01" "f\x00\xc8\x01\x00\x02", 10);
    /* class 1 again: later METHOD2 records take this one */
    fplgen_record(&g, FPL_REC_CLASS_NAME, "\x01\x03" "a.B\x06" "B.java", 12);
    CHECK(fplgen_flush(&g) == 0);
    /* the next chunk still knows class 1; a line may step back to below its first */
    fplgen_record(&g, FPL_REC_METHOD2, "\x0d\x01\x01\x01m\x03()V\x02\x05\x14\x02\x01", 14);
    CHECK(fplgen_flush(&g) == 0);
    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.bad_records, 6);
    CHECK_EQ_U(st.unknown_records, 0);
    CHECK_EQ_U(s.nmethod, 4);
    CHECK(method_is(&s, 0, 7, FPL_METHOD_JAVA, "java.util.HashMap", "hash",
                    "(Ljava/lang/Object;)I", "HashMap.java", lines, 3));
    CHECK(method_is(&s, 1, 70, FPL_METHOD_JAVA, "java.util.HashMap", "hash",
                    "(Ljava/lang/Object;)I", "HashMap.java", lines, 3));
    CHECK(method_is(&s, 2, 8, FPL_METHOD_MARKER, "", "[marker]", "", "", NULL, 0));
    static const struct reader_line back[] = {{5, 10}, {7, 9}};
    CHECK(method_is(&s, 3, 13, FPL_METHOD_NATIVE, "a.B", "m", "()V", "B.java", back, 2));
    fplgen_destroy(&g);

    /* a damaged chunk took class 2's CLASS_NAME with it: its METHOD2 in the next chunk is a
     * bad record, class 1's (defined in the chunk before) still reads */
    CHECK(fplgen_init(&g) == 0);
    fplgen_record(&g, FPL_REC_CLASS_NAME, "\x01\x01" "A\x00", 4);
    CHECK(fplgen_flush(&g) == 0);
    fplgen_record(&g, FPL_REC_CLASS_NAME, "\x02\x01" "B\x00", 4);
    CHECK(fplgen_flush(&g) == 0);
    fplgen_record(&g, FPL_REC_METHOD2, "\x01\x00\x02\x01" "f\x00\x00", 7);
    fplgen_record(&g, FPL_REC_METHOD2, "\x02\x00\x01\x01" "g\x00\x00", 7);
    CHECK(fplgen_flush(&g) == 0);
    size_t len;
    uint8_t *d = fplgen_bytes(&g, &len);
    CHECK(d != NULL);
    if (d) {
        d[g.chunks[1].end - 1] ^= 0x40; /* in the payload: the CRC no longer matches */
        memset(&s, 0, sizeof(s));
        CHECK(reader_read_mem(d, len, "dmg.fpl", &ops, &s, &st, err, sizeof(err)) == 0);
        CHECK_EQ_U(st.chunks_damaged, 1);
        CHECK_EQ_U(st.bad_records, 1);
        CHECK(method_is(&s, 0, 2, FPL_METHOD_JAVA, "A", "g", "", "", NULL, 0));
        CHECK_EQ_U(s.nmethod, 1);
        free(d);
    }
    fplgen_destroy(&g);
}

/* A count that the bytes left in the body cannot hold is damage, not an allocation request:
 * each of the four counted records is a bad record, and the chunk goes on. */
static void test_huge_counts(void)
{
    struct fplgen g;
    struct seen s;
    struct reader_stats st;
    char err[256];
    struct fpl_buf b = {0};
    size_t r;

    CHECK(fplgen_init(&g) == 0);
    r = fpl_rec_begin(&b, FPL_REC_STACK);
    fpl_put_v(&b, 1);
    fpl_put_v(&b, UINT64_MAX / 2);
    fpl_rec_end(&b, r);
    r = fpl_rec_begin(&b, FPL_REC_COUNTERS);
    fpl_put_v(&b, 1ull << 40);
    fpl_rec_end(&b, r);
    r = fpl_rec_begin(&b, FPL_REC_HANDLER_HIST);
    fpl_put_v(&b, 1ull << 41);
    fpl_rec_end(&b, r);
    r = fpl_rec_begin(&b, FPL_REC_METHOD);
    fpl_put_v(&b, 1);
    fpl_put_u8(&b, 0);
    for (int i = 0; i < 4; i++)
        fpl_put_str(&b, "x");
    fpl_put_v(&b, 1ull << 42);
    fpl_rec_end(&b, r);
    /* a count that the chunk could hold but the body cannot: 3 frames in a 4-byte body
     * followed by plenty of bytes */
    r = fpl_rec_begin(&b, FPL_REC_STACK);
    fpl_put_v(&b, 2);
    fpl_put_v(&b, 3);
    fpl_put_v(&b, 1);
    fpl_put_sv(&b, 0);
    fpl_rec_end(&b, r);
    fplgen_raw(&g, b.data, b.len);
    fplgen_thread(&g, 1, 1, "still read");
    fplgen_counters(&g, 0, NULL);
    CHECK(fplgen_flush(&g) == 0);
    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(s.nstack + s.nhist + s.nmethod, 0);
    CHECK_EQ_U(s.ncounters, 1);
    CHECK_EQ_U(s.nctr, 0);
    CHECK_EQ_U(s.nthread, 1);
    CHECK_EQ_U(st.bad_records, 5);
    CHECK_EQ_U(st.chunks_bad_framing, 0);
    fplgen_destroy(&g);
    fpl_buf_free(&b);
}

/* The CRC covers the sequence number: changing it fails the chunk, and sequence gaps between
 * verified chunks are lost chunks, whatever the bytes between them. */
static void test_sequence(void)
{
    struct fplgen g;
    struct seen s;
    struct reader_stats st;
    char err[256];

    CHECK(fplgen_init(&g) == 0);
    for (int i = 0; i < 4; i++) {
        fplgen_thread(&g, (uint64_t)i, 0, "t");
        CHECK(fplgen_flush(&g) == 0);
    }
    size_t len;
    uint8_t *d = fplgen_bytes(&g, &len);
    CHECK(d != NULL);
    if (!d) {
        fplgen_destroy(&g);
        return;
    }
    /* chunk 1's number changed from 1 to 2: its CRC no longer matches */
    d[g.chunks[1].start + 12] ^= 3;
    memset(&s, 0, sizeof(s));
    CHECK(reader_read_mem(d, len, "seq.fpl", &ops, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.chunks_ok, 3);
    CHECK_EQ_U(st.chunks_damaged, 1);
    CHECK_EQ_U(st.bytes_skipped, g.chunks[1].end - g.chunks[1].start);
    CHECK_EQ_U(st.chunks_lost, 1);
    CHECK_EQ_U(st.seq_errors, 0);
    CHECK_EQ_U(s.nthread, 3);
    free(d);
    fplgen_destroy(&g);

    /* chunks 0, 3, 4 and then 2 (a spliced log), adjacent: 2 lost, one numbered backwards */
    CHECK(fplgen_init(&g) == 0);
    static const uint32_t order[] = {0, 3, 4, 2};
    for (int i = 0; i < 4; i++) {
        g.seq = order[i];
        fplgen_thread(&g, (uint64_t)i, 0, "t");
        CHECK(fplgen_flush(&g) == 0);
    }
    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.chunks_ok, 4);
    CHECK_EQ_U(st.chunks_lost, 2);
    CHECK_EQ_U(st.seq_errors, 1);
    CHECK_EQ_U(st.chunks_damaged, 0);
    CHECK_EQ_U(s.nthread, 4);
    fplgen_destroy(&g);
}

/* The example of FORMAT.md section 12, byte for byte: the page and the reader agree. */
static void test_format_example(void)
{
    static const uint8_t log[] = {
        0x46, 0x4c, 0x59, 0x50, 0x52, 0x4f, 0x46, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x46, 0x4c, 0x50, 0x43, 0x47, 0x00, 0x00, 0x00, 0xf0, 0x3b, 0x6b, 0xbd, 0x00, 0x00,
        0x00, 0x00, 0x03, 0x08, 0x01, 0x92, 0x21, 0x04, 0x6d, 0x61, 0x69, 0x6e, 0x04, 0x14, 0x01,
        0x00, 0x01, 0x41, 0x01, 0x62, 0x03, 0x28, 0x29, 0x56, 0x06, 0x41, 0x2e, 0x6a, 0x61, 0x76,
        0x61, 0x01, 0x00, 0x07, 0x05, 0x04, 0x01, 0x01, 0x01, 0x06, 0x06, 0x07, 0xd0, 0x0f, 0x01,
        0x01, 0x01, 0x00, 0x01, 0x0a, 0x0d, 0x01, 0xed, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x06, 0x02, 0x02, 0x00, 0x06, 0x07, 0x14, 0x01, 0x01, 0x01, 0x01, 0x06, 0x01,
    };
    struct seen s;
    struct reader_stats st;
    char err[256];

    memset(&s, 0, sizeof(s));
    CHECK(reader_read_mem(log, sizeof(log), "example.fpl", &ops, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.chunks_ok, 1);
    CHECK_EQ_U(st.records, 6);
    CHECK_EQ_U(st.bad_records + st.unknown_records + st.chunks_bad_framing, 0);
    CHECK(s.nthread == 1 && s.thread[0].tid == 4242 && str_is(&s.thread[0].name, "main"));
    CHECK(s.nmethod == 1 && str_is(&s.method[0].s[3], "A.java") && s.method[0].nlines == 1);
    CHECK(s.nstack == 1 && s.stack[0].n == 1 && s.stack[0].f[0].bci == 3);
    CHECK_EQ_U(s.nsample, 2);
    CHECK(s.sample[0].ticks == 1000 && s.sample[0].tick_id == 0);
    CHECK(s.sample[1].ticks == 1010 && s.sample[1].kind == FPL_KIND_WALL &&
          s.sample[1].state == FPL_STATE_SLEEPING && s.sample[1].tick_id == 1);
    CHECK(s.ntick == 1 && s.tick[0].id == 1 && s.tick[0].ticks == 1005);
    CHECK(s.tick[0].candidates == 6 && s.tick[0].chosen == 2 && s.tick[0].signaled == 2 &&
          s.tick[0].failed == 0);
}

static void test_preamble(void)
{
    char err[512];
    uint8_t pre[FPL_PREAMBLE_SIZE] = "FLYPROF";
    int rc;

    rc = reader_read_mem("", 0, "empty.fpl", &ops, NULL, NULL, err, sizeof(err));
    CHECK(rc == -EINVAL);
    CHECK(strstr(err, "'empty.fpl'") && strstr(err, "empty"));

    const char text[] = "hello, this is a text file\n";
    rc = reader_read_mem(text, sizeof(text) - 1, "notes.txt", &ops, NULL, NULL, err, sizeof(err));
    CHECK(rc == -EINVAL);
    CHECK(strstr(err, "'notes.txt'") && strstr(err, "not a flyprof log"));

    rc = reader_read_mem("hi", 2, "hi.fpl", &ops, NULL, NULL, err, sizeof(err));
    CHECK(rc == -EINVAL && strstr(err, "not a flyprof log"));

    rc = reader_read_mem("FLYP", 4, "cut.fpl", &ops, NULL, NULL, err, sizeof(err));
    CHECK(rc == -EINVAL && strstr(err, "cut off") && strstr(err, "'cut.fpl'"));

    pre[8] = 7;
    rc = reader_read_mem(pre, sizeof(pre), "v7.fpl", &ops, NULL, NULL, err, sizeof(err));
    CHECK(rc == -EINVAL);
    CHECK(strstr(err, "'v7.fpl'") && strstr(err, "unsupported version 7"));

    /* a valid preamble and nothing else: an empty log, not an error */
    struct reader_stats st;
    pre[8] = FPL_VERSION;
    rc = reader_read_mem(pre, sizeof(pre), "bare.fpl", &ops, NULL, &st, err, sizeof(err));
    CHECK(rc == 0 && st.chunks_ok == 0 && st.chunks_damaged == 0);

    rc = reader_read_file("/nonexistent/dir/x.fpl", &ops, NULL, NULL, err, sizeof(err));
    CHECK(rc == -ENOENT);
    CHECK(strstr(err, "cannot open '/nonexistent/dir/x.fpl'") &&
          strstr(err, "No such file or directory"));
    rc = reader_read_file("/", &ops, NULL, NULL, err, sizeof(err));
    CHECK(rc == -EISDIR && strstr(err, "'/'"));
}

/* A callback's error stops the read and comes back unchanged. */
static int cb_fail(void *ctx, uint64_t id, uint64_t tid, struct reader_str name)
{
    (void)id, (void)tid, (void)name;
    (*(int *)ctx)++;
    return -ENOSPC;
}

static void test_callback_error(void)
{
    struct reader_ops o = {0};
    struct fplgen g;
    char err[256];
    int calls = 0;
    size_t len;

    o.thread = cb_fail;
    CHECK(fplgen_init(&g) == 0);
    fplgen_thread(&g, 1, 1, "a");
    fplgen_thread(&g, 2, 2, "b");
    CHECK(fplgen_flush(&g) == 0);
    uint8_t *data = fplgen_bytes(&g, &len);
    CHECK(data != NULL);
    if (data)
        CHECK(reader_read_mem(data, len, "x", &o, &calls, NULL, err, sizeof(err)) == -ENOSPC);
    CHECK_EQ_U(calls, 1);
    free(data);
    fplgen_destroy(&g);
}

/* What ops.sample or ops.samples delivered, and the STACK records between: one event each,
 * in the order delivered (a sample's ticks, or 1000000 + a stack's id). */
struct trace {
    uint64_t ev[400];
    size_t n;
    size_t calls, max_run, mixed; /* samples calls; most in one; calls spanning two chunks */
    size_t stop_after;            /* samples calls before returning -EIO; 0: never */
};

static void trace_add(struct trace *t, uint64_t ev)
{
    if (t->n < sizeof(t->ev) / sizeof(t->ev[0]))
        t->ev[t->n++] = ev;
}

static int tr_sample(void *ctx, const struct reader_sample *x)
{
    trace_add(ctx, x->ticks);
    return 0;
}

static int tr_samples(void *ctx, const struct reader_sample *x, size_t n)
{
    struct trace *t = ctx;
    t->calls++;
    t->max_run = n > t->max_run ? n : t->max_run;
    /* the second chunk's ticks start at 100000 */
    if (n && (x[0].ticks >= 100000) != (x[n - 1].ticks >= 100000))
        t->mixed++;
    for (size_t i = 0; i < n; i++)
        trace_add(t, x[i].ticks);
    return t->stop_after && t->calls == t->stop_after ? -EIO : 0;
}

static int tr_stack(void *ctx, uint64_t id, const struct reader_frame *f, size_t n)
{
    (void)f;
    (void)n;
    trace_add(ctx, 1000000 + id);
    return 0;
}

/* ops.samples delivers exactly what ops.sample does, in the same order relative to the other
 * records: runs of at most READER_BATCH, cut by any other record and by the chunk's end; a bad
 * sample record is left out of its run; a non-zero return stops the read. */
static void test_sample_runs(void)
{
    struct fplgen g;
    struct reader_stats st;
    struct trace one = {0}, runs = {0}, stop = {.stop_after = 2};
    char err[256];
    size_t len;
    struct reader_frame f[1] = {{1, 0, 0}};

    CHECK(fplgen_init(&g) == 0);
    fplgen_thread(&g, 1, 11, "a");
    for (uint64_t i = 1; i <= 150; i++) {
        if (i == 40) { /* two records between two samples */
            fplgen_stack(&g, 40, 1, f);
            fplgen_stack(&g, 41, 1, f);
        }
        if (i == 100)
            fplgen_record(&g, FPL_REC_SAMPLE, "\x02\x01", 2); /* bad: fields missing */
        fplgen_sample(&g, 1000 + i, 1, 1, 1, FPL_KIND_CPU, 0);
    }
    CHECK(fplgen_flush(&g) == 0);
    for (uint64_t i = 0; i < 70; i++)
        fplgen_sample(&g, 100000 + i, 1, 1, 1, FPL_KIND_CPU, 0);
    fplgen_stack(&g, 7, 1, f); /* the last record of the log */
    CHECK(fplgen_flush(&g) == 0);
    uint8_t *data = fplgen_bytes(&g, &len);
    CHECK(data != NULL);
    if (data) {
        struct reader_ops a = {.sample = tr_sample, .stack = tr_stack};
        struct reader_ops b = {.sample = tr_sample, .samples = tr_samples, .stack = tr_stack};
        CHECK(reader_read_mem(data, len, "x", &a, &one, NULL, err, sizeof(err)) == 0);
        CHECK(reader_read_mem(data, len, "x", &b, &runs, &st, err, sizeof(err)) == 0);
        CHECK_EQ_U(st.bad_records, 1);
        CHECK_EQ_U(one.n, 150 + 70 + 3);
        CHECK_EQ_U(runs.n, one.n);
        CHECK(memcmp(one.ev, runs.ev, one.n * sizeof(one.ev[0])) == 0);
        CHECK(one.ev[39] == 1000000 + 40 && one.ev[40] == 1000000 + 41 && one.ev[41] == 1040);
        CHECK_EQ_U(runs.max_run, READER_BATCH);
        CHECK_EQ_U(runs.mixed, 0);
        /* 1-39, 40-103, 104-150; 64 + 6 in the second chunk */
        CHECK_EQ_U(runs.calls, 5);
        CHECK(reader_read_mem(data, len, "x", &b, &stop, NULL, err, sizeof(err)) == -EIO);
        CHECK_EQ_U(stop.calls, 2);
        CHECK_EQ_U(stop.n, 39 + 2 + 64);
    }
    free(data);
    fplgen_destroy(&g);
}

int main(void)
{
    test_varints();
    test_round_trip();
    test_unknown_type();
    test_trailing_bytes();
    test_bad_records();
    test_sample2();
    test_stack2();
    test_method2();
    test_huge_counts();
    test_sequence();
    test_format_example();
    test_preamble();
    test_callback_error();
    test_sample_runs();
    return harness_result("test_collector_reader");
}
