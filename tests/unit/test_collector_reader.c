/* test_collector_reader.c: the codec and the reader: every record type survives encode and
 * decode with extreme values; sample deltas restart in every chunk; a bad preamble is refused
 * with a message that names the problem; an unknown or undecodable record ends its chunk
 * only. */
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

static const struct reader_ops ops = {
    cb_header, cb_anchor, cb_thread, cb_method, cb_stack, cb_sample, cb_counters, cb_hist, cb_end,
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
        {0, 0}, {UINT64_MAX, -1}, {1, INT64_MIN}, {2, INT64_MAX}, {3, -2}, {4, 65535},
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
    for (size_t i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++)
        fplgen_sample(&g, ticks[i], i, UINT64_MAX - i, i == 2 ? UINT64_MAX : i + 1,
                      (uint8_t)(i % 3), (uint8_t)(i == 3 ? 255 : i));
    fplgen_counters(&g, 3, ctr);
    fplgen_hist(&g, sizeof(hist) / sizeof(hist[0]), hist, UINT64_MAX, 0);
    fplgen_end(&g, UINT64_MAX);
    CHECK(fplgen_flush(&g) == 0);
    /* a second chunk: sample deltas restart from 0, written here by hand so that the test
     * does not rely on the generator sharing the reader's idea */
    uint8_t raw[32];
    struct fpl_buf b = {0};
    fpl_put_u8(&b, FPL_REC_SAMPLE);
    fpl_put_sv(&b, 1000); /* absolute 1000 */
    fpl_put_v(&b, 1);
    fpl_put_v(&b, 1);
    fpl_put_v(&b, 1);
    fpl_put_u8(&b, FPL_KIND_WALL);
    fpl_put_u8(&b, FPL_STATE_PARKED);
    fpl_put_u8(&b, FPL_REC_SAMPLE);
    fpl_put_sv(&b, -10); /* 990 */
    fpl_put_v(&b, 1);
    fpl_put_v(&b, 1);
    fpl_put_v(&b, 1);
    fpl_put_u8(&b, FPL_KIND_CPU);
    fpl_put_u8(&b, FPL_STATE_RUNNING);
    CHECK(b.len < sizeof(raw));
    fplgen_raw(&g, b.data, b.len);
    fpl_buf_free(&b);
    CHECK(fplgen_flush(&g) == 0);

    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.chunks_ok, 2);
    CHECK_EQ_U(st.chunks_damaged + st.chunks_truncated + st.chunks_bad_record, 0);
    CHECK_EQ_U(st.chunks_lost, 0);

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
    }
    CHECK_EQ_U(s.sample[6].ticks, 1000);
    CHECK_EQ_U(s.sample[6].kind, FPL_KIND_WALL);
    CHECK_EQ_U(s.sample[6].state, FPL_STATE_PARKED);
    CHECK_EQ_U(s.sample[7].ticks, 990);

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

/* An unknown record type and a record cut short each end their chunk, and only it. */
static void test_bad_records(void)
{
    const struct reader_frame f[] = {{1, 0}};
    struct fplgen g;
    struct seen s;
    struct reader_stats st;
    char err[256];

    CHECK(fplgen_init(&g) == 0);
    fplgen_thread(&g, 1, 1, "a");
    fplgen_raw(&g, "\x7f\x01\x02", 3); /* type 127 */
    fplgen_thread(&g, 2, 2, "lost");
    CHECK(fplgen_flush(&g) == 0);
    fplgen_stack(&g, 1, 1, f);
    fplgen_raw(&g,
               "\x03\x05\x05\x09"
               "ab",
               6); /* a THREAD whose name is cut */
    CHECK(fplgen_flush(&g) == 0);
    fplgen_sample(&g, 5, 1, 1, 1, FPL_KIND_CPU, 0);
    fplgen_raw(&g, "\x06\x02", 2); /* a SAMPLE cut after its delta */
    CHECK(fplgen_flush(&g) == 0);
    fplgen_thread(&g, 3, 3, "fine");
    CHECK(fplgen_flush(&g) == 0);

    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(st.chunks_ok, 4);
    CHECK_EQ_U(st.chunks_bad_record, 3);
    CHECK_EQ_U(st.unknown_records, 1);
    CHECK_EQ_U(s.nthread, 2);
    CHECK_EQ_U(s.thread[0].id, 1);
    CHECK_EQ_U(s.thread[1].id, 3);
    CHECK_EQ_U(s.nstack, 1);
    CHECK_EQ_U(s.nsample, 1);
    fplgen_destroy(&g);

    /* a header of another layout version cannot be skipped: its chunk ends there */
    CHECK(fplgen_init(&g) == 0);
    fplgen_raw(&g, "\x01\x02", 2);
    fplgen_thread(&g, 1, 1, "after");
    CHECK(fplgen_flush(&g) == 0);
    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(s.nheader, 0);
    CHECK_EQ_U(s.nthread, 0);
    CHECK_EQ_U(st.chunks_bad_record, 1);
    fplgen_destroy(&g);
}

/* A count that the bytes left cannot hold is damage, not an allocation request: each of the
 * four counted records, in a chunk of its own, ends its chunk and nothing else. */
static void test_huge_counts(void)
{
    struct fplgen g;
    struct seen s;
    struct reader_stats st;
    char err[256];
    struct fpl_buf b = {0};

    CHECK(fplgen_init(&g) == 0);
    fpl_put_u8(&b, FPL_REC_STACK);
    fpl_put_v(&b, 1);
    fpl_put_v(&b, UINT64_MAX / 2);
    fplgen_raw(&g, b.data, b.len);
    CHECK(fplgen_flush(&g) == 0);
    b.len = 0;
    fpl_put_u8(&b, FPL_REC_COUNTERS);
    fpl_put_v(&b, 1ull << 40);
    fplgen_raw(&g, b.data, b.len);
    CHECK(fplgen_flush(&g) == 0);
    b.len = 0;
    fpl_put_u8(&b, FPL_REC_HANDLER_HIST);
    fpl_put_v(&b, 1ull << 41);
    fplgen_raw(&g, b.data, b.len);
    CHECK(fplgen_flush(&g) == 0);
    b.len = 0;
    fpl_put_u8(&b, FPL_REC_METHOD);
    fpl_put_v(&b, 1);
    fpl_put_u8(&b, 0);
    for (int i = 0; i < 4; i++)
        fpl_put_str(&b, "x");
    fpl_put_v(&b, 1ull << 42);
    fplgen_raw(&g, b.data, b.len);
    CHECK(fplgen_flush(&g) == 0);
    fplgen_thread(&g, 1, 1, "still read");
    CHECK(fplgen_flush(&g) == 0);
    CHECK(read_gen(&g, &s, &st, err, sizeof(err)) == 0);
    CHECK_EQ_U(s.nstack + s.ncounters + s.nhist + s.nmethod, 0);
    CHECK_EQ_U(s.nthread, 1);
    CHECK_EQ_U(st.chunks_bad_record, 4);
    fplgen_destroy(&g);
    fpl_buf_free(&b);
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

int main(void)
{
    test_varints();
    test_round_trip();
    test_bad_records();
    test_huge_counts();
    test_preamble();
    test_callback_error();
    return harness_result("test_collector_reader");
}
