/* test_pprof.c: the protobuf encoder (pb.c) byte for byte, and the pprof writer (out_pprof.c)
 * by decoding its output with a small protobuf reader of the test's own (after gunzip with
 * zlib) and checking it field by field: sample types and units per kind, values (counts, raw
 * CPU weight and upscaled wall weight times the interval, exactly), labels, functions (name,
 * system name, file, start line), one location per (method, line) with the line of a bci,
 * placeholders for undefined methods and stacks, the one mapping, the string table (index 0 empty,
 * no duplicates, valid UTF-8 from modified UTF-8), ids unique and resolvable, fields in order,
 * period, times and comments; the stacks folded back from the pprof samples equal the folded
 * output of the same log; selection by kind, state and regex; deep stacks and big profiles
 * (length prefixes of several bytes, buffer flushes); a write error; deterministic bytes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fpl_format.h"
#include "fplgen.h"
#include "fplgen_profile.h"
#include "golden_log.h"
#include "harness.h"
#include "out_collapsed.h"
#include "out_pprof.h"
#include "pb.h"
#include "profile.h"

/* ---- a small protobuf reader for profile.proto ---- */

struct rd {
    const uint8_t *p, *end;
    int bad;
};

static uint64_t rd_varint(struct rd *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (r->p >= r->end) {
            r->bad = 1;
            return 0;
        }
        uint8_t b = *r->p++;
        if (shift == 63 && b > 1) {
            r->bad = 1;
            return 0;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = 1;
    return 0;
}

/* One field: its number, wire type, and either a varint or a (sub-reader over) byte range. */
struct fld {
    uint32_t num;
    int wire;
    uint64_t v;
    struct rd sub;
};

static int rd_field(struct rd *r, struct fld *f)
{
    if (r->bad || r->p >= r->end)
        return 0;
    uint64_t tag = rd_varint(r);
    f->num = (uint32_t)(tag >> 3);
    f->wire = (int)(tag & 7);
    if (f->num == 0)
        r->bad = 1;
    if (f->wire == 0) {
        f->v = rd_varint(r);
    } else if (f->wire == 2) {
        uint64_t n = rd_varint(r);
        if (r->bad || n > (uint64_t)(r->end - r->p)) {
            r->bad = 1;
            return 0;
        }
        f->sub = (struct rd){r->p, r->p + n, 0};
        r->p += n;
    } else {
        r->bad = 1; /* the writer uses no other wire type */
    }
    return !r->bad;
}

#define MAXV 8

struct dvt {
    int64_t type, unit;
};

struct dsample {
    uint64_t *locs;
    size_t nlocs;
    int64_t vals[MAXV];
    size_t nvals;
    struct {
        int64_t key, str, num;
    } labels[4];
    size_t nlabels;
};

struct dloc {
    uint64_t id, mapping, address;
    uint64_t fid;
    int64_t line;
    size_t nlines;
};

struct dfunc {
    uint64_t id;
    int64_t name, sys, file, start;
};

struct dmap {
    uint64_t id;
    int64_t file;
    unsigned flags; /* bit 0 has_functions, 1 has_filenames, 2 has_line_numbers, 3 inline */
    int other;      /* other fields set */
};

struct dprof {
    struct dvt st[MAXV];
    size_t nst;
    struct dsample *samples;
    size_t nsamples;
    struct dloc *locs;
    size_t nlocs;
    struct dfunc *funcs;
    size_t nfuncs;
    char **strs;
    size_t *slens;
    size_t nstrs;
    struct dmap *maps;
    size_t nmappings;
    int64_t time_nanos, duration_nanos, period, default_type;
    struct dvt period_type;
    int64_t comments[8];
    size_t ncomments;
    int in_order; /* top-level field numbers never decrease */
    int unknown;  /* fields the reader does not know */
    int bad;
};

/* Appends a zeroed element to arr[0..n) (capacity doubling at powers of two). */
#define PUSH(arr, n)                                                                               \
    (arr = grow(arr, n, sizeof(*(arr))), memset(&(arr)[n], 0, sizeof(*(arr))), &(arr)[(n)++])

static void *grow(void *arr, size_t n, size_t elem)
{
    if (n & (n - 1) || (n && n < 16))
        return arr; /* room left: capacity is max(16, next power of two) */
    void *q = realloc(arr, (n ? n * 2 : 16) * elem);
    if (!q)
        abort();
    return q;
}

static void dvt_read(struct rd *r, struct dvt *vt)
{
    struct fld f;
    while (rd_field(r, &f)) {
        if (f.num == 1 && f.wire == 0)
            vt->type = (int64_t)f.v;
        else if (f.num == 2 && f.wire == 0)
            vt->unit = (int64_t)f.v;
    }
}

/* A repeated scalar, packed or not. */
static void rd_scalars(struct fld *f, void (*add)(void *, uint64_t), void *ctx)
{
    if (f->wire == 0) {
        add(ctx, f->v);
        return;
    }
    while (f->sub.p < f->sub.end && !f->sub.bad)
        add(ctx, rd_varint(&f->sub));
}

static void add_loc(void *ctx, uint64_t v)
{
    struct dsample *s = ctx;
    *PUSH(s->locs, s->nlocs) = v;
}

static void add_val(void *ctx, uint64_t v)
{
    struct dsample *s = ctx;
    if (s->nvals < MAXV)
        s->vals[s->nvals] = (int64_t)v;
    s->nvals++;
}

static void add_comment(void *ctx, uint64_t v)
{
    struct dprof *d = ctx;
    if (d->ncomments < 8)
        d->comments[d->ncomments] = (int64_t)v;
    d->ncomments++;
}

static void sample_read(struct rd *r, struct dsample *s)
{
    struct fld f;
    while (rd_field(r, &f)) {
        if (f.num == 1) {
            rd_scalars(&f, add_loc, s);
        } else if (f.num == 2) {
            rd_scalars(&f, add_val, s);
        } else if (f.num == 3 && f.wire == 2 && s->nlabels < 4) {
            struct fld g;
            while (rd_field(&f.sub, &g)) {
                if (g.num == 1)
                    s->labels[s->nlabels].key = (int64_t)g.v;
                else if (g.num == 2)
                    s->labels[s->nlabels].str = (int64_t)g.v;
                else if (g.num == 3)
                    s->labels[s->nlabels].num = (int64_t)g.v;
            }
            s->nlabels++;
        }
    }
}

static void loc_read(struct rd *r, struct dloc *l)
{
    struct fld f;
    while (rd_field(r, &f)) {
        if (f.num == 1)
            l->id = f.v;
        else if (f.num == 2)
            l->mapping = f.v;
        else if (f.num == 3)
            l->address = f.v;
        else if (f.num == 4 && f.wire == 2) {
            struct fld g;
            while (rd_field(&f.sub, &g)) {
                if (g.num == 1)
                    l->fid = g.v;
                else if (g.num == 2)
                    l->line = (int64_t)g.v;
            }
            l->nlines++;
        }
    }
}

static void func_read(struct rd *r, struct dfunc *fn)
{
    struct fld f;
    while (rd_field(r, &f)) {
        if (f.num == 1)
            fn->id = f.v;
        else if (f.num == 2)
            fn->name = (int64_t)f.v;
        else if (f.num == 3)
            fn->sys = (int64_t)f.v;
        else if (f.num == 4)
            fn->file = (int64_t)f.v;
        else if (f.num == 5)
            fn->start = (int64_t)f.v;
    }
}

static void dprof_free(struct dprof *d)
{
    for (size_t i = 0; i < d->nsamples; i++)
        free(d->samples[i].locs);
    free(d->samples);
    free(d->locs);
    free(d->funcs);
    free(d->maps);
    for (size_t i = 0; i < d->nstrs; i++)
        free(d->strs[i]);
    free(d->strs);
    free(d->slens);
    memset(d, 0, sizeof(*d));
}

static void dprof_read(const uint8_t *data, size_t len, struct dprof *d)
{
    struct rd r = {data, data + len, 0};
    struct fld f;
    uint32_t last = 0;
    memset(d, 0, sizeof(*d));
    d->in_order = 1;
    while (rd_field(&r, &f)) {
        if (f.num < last)
            d->in_order = 0;
        last = f.num;
        switch (f.num) {
        case 1:
            if (d->nst < MAXV)
                dvt_read(&f.sub, &d->st[d->nst]);
            d->nst++;
            break;
        case 2:
            sample_read(&f.sub, PUSH(d->samples, d->nsamples));
            break;
        case 3: {
            struct fld g;
            struct dmap *m = PUSH(d->maps, d->nmappings);
            while (rd_field(&f.sub, &g)) {
                if (g.num == 1)
                    m->id = g.v;
                else if (g.num == 5)
                    m->file = (int64_t)g.v;
                else if (g.num >= 7 && g.num <= 10 && g.v == 1)
                    m->flags |= 1u << (g.num - 7);
                else
                    m->other++;
            }
            break;
        }
        case 4:
            loc_read(&f.sub, PUSH(d->locs, d->nlocs));
            break;
        case 5:
            func_read(&f.sub, PUSH(d->funcs, d->nfuncs));
            break;
        case 6: {
            size_t n = (size_t)(f.sub.end - f.sub.p);
            char *s = malloc(n + 1);
            memcpy(s, f.sub.p, n);
            s[n] = 0;
            size_t k = d->nstrs;
            *PUSH(d->slens, k) = n;
            *PUSH(d->strs, d->nstrs) = s;
            break;
        }
        case 9:
            d->time_nanos = (int64_t)f.v;
            break;
        case 10:
            d->duration_nanos = (int64_t)f.v;
            break;
        case 11:
            dvt_read(&f.sub, &d->period_type);
            break;
        case 12:
            d->period = (int64_t)f.v;
            break;
        case 13:
            rd_scalars(&f, add_comment, d);
            break;
        case 14:
            d->default_type = (int64_t)f.v;
            break;
        default:
            d->unknown++;
        }
    }
    d->bad = r.bad;
}

static const char *str(const struct dprof *d, int64_t i)
{
    return i >= 0 && (size_t)i < d->nstrs ? d->strs[i] : "<bad string index>";
}

static const struct dloc *find_loc(const struct dprof *d, uint64_t id)
{
    for (size_t i = 0; i < d->nlocs; i++)
        if (d->locs[i].id == id)
            return &d->locs[i];
    return NULL;
}

static const struct dfunc *find_func(const struct dprof *d, uint64_t id)
{
    for (size_t i = 0; i < d->nfuncs; i++)
        if (d->funcs[i].id == id)
            return &d->funcs[i];
    return NULL;
}

static const struct dfunc *func_named(const struct dprof *d, const char *name)
{
    for (size_t i = 0; i < d->nfuncs; i++)
        if (strcmp(str(d, d->funcs[i].name), name) == 0)
            return &d->funcs[i];
    return NULL;
}

/* The label value of key in s, NULL when absent. */
static const char *label(const struct dprof *d, const struct dsample *s, const char *key)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (strcmp(str(d, s->labels[i].key), key) == 0)
            return str(d, s->labels[i].str);
    return NULL;
}

/* The numeric label key of s, or -1 when absent. */
static int64_t label_num(const struct dprof *d, const struct dsample *s, const char *key)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (strcmp(str(d, s->labels[i].key), key) == 0)
            return s->labels[i].num;
    return -1;
}

static int valid_utf8(const char *s, size_t n)
{
    const uint8_t *p = (const uint8_t *)s;
    for (size_t i = 0; i < n;) {
        uint8_t c = p[i];
        size_t need;
        uint32_t cp;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            need = 1, cp = c & 0x1f;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2, cp = c & 0x0f;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3, cp = c & 0x07;
        } else {
            return 0;
        }
        if (n - i <= need)
            return 0;
        for (size_t k = 1; k <= need; k++) {
            if ((p[i + k] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (p[i + k] & 0x3f);
        }
        if ((need == 2 && cp < 0x800) || (need == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += need + 1;
    }
    return 1;
}

/* The structural rules pprof checks (CheckValid) and more: string 0 empty, strings distinct
 * and valid UTF-8, ids non-zero and unique, every reference resolvable, one line per
 * location, values as many as types, fields in order, nothing unknown. */
static void check_structure(const struct dprof *d)
{
    CHECK(!d->bad);
    CHECK(d->in_order);
    CHECK_EQ_U(d->unknown, 0);
    /* one mapping, with functions, file names and line numbers (pprof leaves it alone) */
    CHECK_EQ_U(d->nmappings, 1);
    if (d->nmappings == 1) {
        CHECK_EQ_U(d->maps[0].id, 1);
        /* named after the program: a word, no directory */
        const char *m = str(d, d->maps[0].file);
        CHECK(m[0] && !strpbrk(m, "/ \t"));
        CHECK_EQ_U(d->maps[0].flags, 7);
        CHECK_EQ_U(d->maps[0].other, 0);
    }
    CHECK(d->nstrs > 0 && d->slens[0] == 0);
    int dup = 0, utf8 = 1;
    for (size_t i = 0; i < d->nstrs; i++) {
        utf8 &= valid_utf8(d->strs[i], d->slens[i]);
        for (size_t j = i + 1; j < d->nstrs && !dup; j++)
            dup = d->slens[i] == d->slens[j] && memcmp(d->strs[i], d->strs[j], d->slens[i]) == 0;
    }
    CHECK(!dup);
    CHECK(utf8);
    int ok = 1;
    for (size_t i = 0; i < d->nfuncs; i++) {
        ok &= d->funcs[i].id != 0 && d->funcs[i].name > 0 && (size_t)d->funcs[i].name < d->nstrs;
        ok &= (size_t)d->funcs[i].sys < d->nstrs && (size_t)d->funcs[i].file < d->nstrs;
        for (size_t j = i + 1; j < d->nfuncs; j++)
            ok &= d->funcs[i].id != d->funcs[j].id;
    }
    CHECK(ok);
    ok = 1;
    for (size_t i = 0; i < d->nlocs; i++) {
        ok &= d->locs[i].id != 0 && d->locs[i].nlines == 1 && find_func(d, d->locs[i].fid);
        ok &= d->locs[i].mapping == 1 && d->locs[i].address == 0 && d->locs[i].line >= 0;
        for (size_t j = i + 1; j < d->nlocs; j++) {
            ok &= d->locs[i].id != d->locs[j].id;
            /* one location per (function, line) */
            ok &= d->locs[i].fid != d->locs[j].fid || d->locs[i].line != d->locs[j].line;
        }
    }
    CHECK(ok);
    ok = 1;
    for (size_t i = 0; i < d->nsamples; i++) {
        const struct dsample *s = &d->samples[i];
        ok &= s->nvals == d->nst && s->nlocs > 0;
        for (size_t k = 0; k < s->nlocs; k++)
            ok &= find_loc(d, s->locs[k]) != NULL;
        for (size_t k = 0; k < s->nlabels; k++)
            ok &= s->labels[k].key > 0 && (size_t)s->labels[k].key < d->nstrs &&
                  (size_t)s->labels[k].str < d->nstrs;
        ok &= label(d, s, "thread") != NULL;
    }
    CHECK(ok);
    for (size_t i = 0; i < d->nst && i < MAXV; i++)
        CHECK((size_t)d->st[i].type < d->nstrs && (size_t)d->st[i].unit < d->nstrs);
}

/* ---- helpers ---- */

static struct profile *load(struct fplgen *g)
{
    return fplgen_profile(g, "test.fpl");
}

static struct profile *load_golden(void)
{
    struct fplgen g;
    struct profile *p = NULL;
    if (fplgen_init(&g) == 0 && golden_log_build(&g, 1) == 0)
        p = load(&g);
    fplgen_destroy(&g);
    return p;
}

static uint8_t *gunzip(const uint8_t *in, size_t n, size_t *outlen)
{
    z_stream z = {0};
    size_t cap = 1 << 16, len = 0;
    uint8_t *out = malloc(cap);
    if (!out || inflateInit2(&z, 15 + 16) != Z_OK) {
        free(out);
        return NULL;
    }
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    int zr;
    do {
        if (len == cap) {
            cap *= 2;
            out = realloc(out, cap);
        }
        z.next_out = out + len;
        z.avail_out = (uInt)(cap - len);
        zr = inflate(&z, Z_NO_FLUSH);
        len = cap - z.avail_out;
    } while (zr == Z_OK);
    int trailing = z.avail_in != 0; /* one gzip member, nothing after it */
    inflateEnd(&z);
    if (zr != Z_STREAM_END || trailing) {
        free(out);
        return NULL;
    }
    *outlen = len;
    return out;
}

/* Runs out_pprof_write into memory; the gzipped bytes in *gz (may be NULL), the decoded profile
 * in d. Returns the writer's result. */
static int render(const struct profile *p, const struct render_opts *o, struct dprof *d,
                  uint8_t **gz, size_t *gzlen, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0, plen = 0;
    memset(d, 0, sizeof(*d));
    d->bad = 1;
    err[0] = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -errno;
    int rc = out_pprof_write(p, o, f, err, errlen);
    fclose(f);
    if (rc == 0) {
        uint8_t *raw = gunzip((uint8_t *)buf, len, &plen);
        CHECK(raw != NULL);
        if (raw)
            dprof_read(raw, plen, d);
        free(raw);
    }
    if (gz) {
        *gz = (uint8_t *)buf;
        *gzlen = len;
    } else {
        free(buf);
    }
    return rc;
}

static struct render_opts opts(int kind)
{
    struct render_opts o = {0};
    o.kind = kind;
    o.state = RENDER_STATE_ALL;
    return o;
}

struct line {
    char *s;
    int64_t w;
};

static int cmp_line(const void *a, const void *b)
{
    return strcmp(((const struct line *)a)->s, ((const struct line *)b)->s);
}

/* The pprof samples folded back into "thread;root;...;leaf weight" lines, weight = value vi
 * divided by div, merged and sorted, as out_collapsed writes them with --threads. */
static char *fold(const struct dprof *d, size_t vi, int64_t div, int threads)
{
    struct line *v = calloc(d->nsamples + 1, sizeof(*v));
    size_t n = 0;
    for (size_t i = 0; i < d->nsamples; i++) {
        const struct dsample *s = &d->samples[i];
        if (vi >= s->nvals || s->vals[vi] == 0)
            continue;
        char *line = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&line, &len);
        if (threads)
            fprintf(f, "%s", label(d, s, "thread"));
        for (size_t k = s->nlocs; k-- > 0;) {
            const struct dloc *l = find_loc(d, s->locs[k]);
            const struct dfunc *fn = l ? find_func(d, l->fid) : NULL;
            fprintf(f, "%s%s", threads || k + 1 < s->nlocs ? ";" : "", fn ? str(d, fn->name) : "?");
        }
        fclose(f);
        size_t j = 0;
        while (j < n && strcmp(v[j].s, line) != 0)
            j++;
        if (j == n)
            v[n++].s = line;
        else
            free(line);
        v[j].w += s->vals[vi];
    }
    qsort(v, n, sizeof(*v), cmp_line);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    for (size_t i = 0; i < n; i++) {
        if (v[i].w % div)
            fprintf(f, "%s %lld/%lld\n", v[i].s, (long long)v[i].w, (long long)div);
        else
            fprintf(f, "%s %lld\n", v[i].s, (long long)(v[i].w / div));
        free(v[i].s);
    }
    fclose(f);
    free(v);
    return out;
}

static int same_text(const char *got, const char *want)
{
    if (got && strcmp(got, want) == 0)
        return 1;
    fprintf(stderr, "--- expected\n%s--- got\n%s---\n", want, got ? got : "(null)\n");
    return 0;
}

static int64_t sum_values(const struct dprof *d, size_t vi)
{
    int64_t t = 0;
    for (size_t i = 0; i < d->nsamples; i++)
        if (vi < d->samples[i].nvals)
            t += d->samples[i].vals[vi];
    return t;
}

static int has_comment(const struct dprof *d, const char *s)
{
    for (size_t i = 0; i < d->ncomments && i < 8; i++)
        if (strcmp(str(d, d->comments[i]), s) == 0)
            return 1;
    return 0;
}

/* ---- pb.c ---- */

static int bytes_are(const struct fpl_buf *b, const char *hex)
{
    char got[256] = "";
    for (size_t i = 0; i < b->len && i < 80; i++)
        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%02x", i ? " " : "", b->data[i]);
    if (strcmp(got, hex) == 0)
        return 1;
    fprintf(stderr, "bytes: want %s\n       got  %s\n", hex, got);
    return 0;
}

static void test_pb(void)
{
    struct fpl_buf b = {0};
    pb_varint(&b, 0);
    pb_varint(&b, 1);
    pb_varint(&b, 127);
    pb_varint(&b, 128);
    pb_varint(&b, 300);
    CHECK(bytes_are(&b, "00 01 7f 80 01 ac 02"));
    b.len = 0;
    pb_varint(&b, UINT64_MAX);
    CHECK(bytes_are(&b, "ff ff ff ff ff ff ff ff ff 01"));
    CHECK_EQ_U(pb_varint_size(UINT64_MAX), 10);
    CHECK_EQ_U(pb_varint_size(127), 1);
    CHECK_EQ_U(pb_varint_size(128), 2);
    b.len = 0;
    pb_int64(&b, 1, -1); /* int64: two's complement, 10 bytes */
    CHECK(bytes_are(&b, "08 ff ff ff ff ff ff ff ff ff 01"));
    b.len = 0;
    pb_uint64(&b, 2, 0);
    pb_uint64_opt(&b, 3, 0);
    pb_uint64_opt(&b, 16, 1); /* field 16: a two-byte tag */
    CHECK(bytes_are(&b, "10 00 80 01 01"));
    b.len = 0;
    pb_string(&b, 6, "ab");
    pb_string(&b, 6, "");
    CHECK(bytes_are(&b, "32 02 61 62 32 00"));
    /* nested messages: the example of the protobuf encoding guide, message 3 { 1: 150 } */
    b.len = 0;
    size_t m = pb_begin(&b, 3);
    pb_uint64(&b, 1, 150);
    pb_end(&b, m);
    CHECK(bytes_are(&b, "1a 03 08 96 01"));
    b.len = 0;
    m = pb_begin(&b, 1);
    size_t inner = pb_begin(&b, 2);
    pb_varint(&b, 5);
    pb_end(&b, inner);
    pb_end(&b, m);
    CHECK(bytes_are(&b, "0a 03 12 01 05"));

    /* contents of 127, 128 and 20000 bytes: lengths of 1, 2 and 3 bytes, content moved */
    const size_t sizes[] = {127, 128, 20000};
    for (size_t s = 0; s < 3; s++) {
        b.len = 0;
        fpl_put_u8(&b, 0xaa);
        m = pb_begin(&b, 4);
        for (size_t i = 0; i < sizes[s]; i++)
            fpl_put_u8(&b, (uint8_t)i);
        pb_end(&b, m);
        fpl_put_u8(&b, 0xbb);
        struct rd r = {b.data + 1, b.data + b.len - 1, 0};
        struct fld f;
        CHECK(rd_field(&r, &f) && f.num == 4 && f.wire == 2);
        CHECK_EQ_U((size_t)(f.sub.end - f.sub.p), sizes[s]);
        CHECK(r.p == r.end && !r.bad);
        int same = 1;
        for (size_t i = 0; i < sizes[s] && f.sub.p + i < f.sub.end; i++)
            same &= f.sub.p[i] == (uint8_t)i;
        CHECK(same);
        CHECK_EQ_U(b.len, 1 + 1 + pb_varint_size(sizes[s]) + sizes[s] + 1);
        CHECK(b.data[0] == 0xaa && b.data[b.len - 1] == 0xbb);
    }
    CHECK(!b.failed);
    fpl_buf_free(&b);
}

/* ---- the golden log ---- */

static void test_golden_cpu(void)
{
    struct profile *p = load_golden();
    CHECK(p != NULL);
    if (!p)
        return;
    struct dprof d;
    char err[256];
    struct render_opts o = opts(PROFILE_KIND_AUTO);
    CHECK_EQ_U(render(p, &o, &d, NULL, NULL, err, sizeof(err)), 0);
    check_structure(&d);
    CHECK_EQ_U(d.nst, 2);
    CHECK(strcmp(str(&d, d.st[0].type), "samples") == 0);
    CHECK(strcmp(str(&d, d.st[0].unit), "count") == 0);
    CHECK(strcmp(str(&d, d.st[1].type), "cpu") == 0);
    CHECK(strcmp(str(&d, d.st[1].unit), "nanoseconds") == 0);
    CHECK(strcmp(str(&d, d.default_type), "cpu") == 0);
    CHECK(strcmp(str(&d, d.period_type.type), "cpu") == 0);
    CHECK(strcmp(str(&d, d.period_type.unit), "nanoseconds") == 0);
    CHECK_EQ_U(d.period, 10000000);
    CHECK_EQ_U(d.time_nanos, GOLDEN_REAL_NS);
    CHECK_EQ_U(d.duration_nanos, 2000000000); /* header anchor to END: 2 s */
    CHECK(has_comment(&d, "jvm: OpenJDK 64-Bit Server VM 21.0.2+13"));
    CHECK(has_comment(&d, "agent options: cpu=10ms,wall=50ms,file=/tmp/x.fpl"));
    CHECK(d.ncomments == 3); /* and the title */

    /* one sample per CPU cell; counts and ns add up to the log's */
    size_t cells = 0;
    for (size_t i = 0; i < p->nentries; i++)
        cells += p->entries[i].kind == FPL_KIND_CPU;
    CHECK_EQ_U(d.nsamples, cells);
    CHECK_EQ_U(sum_values(&d, 0), GOLDEN_CPU_SAMPLES);
    CHECK_EQ_U(sum_values(&d, 1), GOLDEN_CPU_WEIGHT * 10000000ull);
    /* the thread's name and its numeric id (same-named threads stay apart); the sample of the
     * undefined thread has no id */
    for (size_t i = 0; i < d.nsamples; i++) {
        const struct dsample *s = &d.samples[i];
        const char *name = label(&d, s, "thread");
        int64_t tid = label_num(&d, s, "thread_id");
        CHECK(label(&d, s, "state") == NULL); /* CPU samples: no state */
        CHECK(name != NULL);
        if (!name)
            continue;
        if (strcmp(name, PROFILE_UNKNOWN_THREAD) == 0) {
            CHECK_EQ_U(s->nlabels, 1);
        } else {
            CHECK_EQ_U(s->nlabels, 2);
            CHECK_EQ_U(tid, strcmp(name, "main") == 0 ? 100 : 101);
        }
    }
    /* the mapping is named after the program: the first word of the command */
    CHECK(strcmp(str(&d, d.maps[0].file), "java") == 0);

    /* the stacks, folded back from the pprof samples, are the folded output's */
    char *s = fold(&d, 1, 10000000, 1);
    CHECK(same_text(s, GOLDEN_CPU_THREADS));
    free(s);
    s = fold(&d, 1, 10000000, 0);
    CHECK(same_text(s, GOLDEN_CPU));
    free(s);

    /* functions */
    const struct dfunc *fn = func_named(&d, "com.example.App.main");
    CHECK(fn != NULL);
    if (fn) {
        CHECK(strcmp(str(&d, fn->sys), "com.example.App.main([Ljava/lang/String;)V") == 0);
        CHECK(strcmp(str(&d, fn->file), "com/example/App.java") == 0);
        CHECK_EQ_U(fn->start, 10);
    }
    fn = func_named(&d, "com.example.App.hash");
    CHECK(fn && strcmp(str(&d, fn->sys), "com.example.App.hash(I)I") == 0 && fn->start == 0);
    fn = func_named(&d, "[agct:unknown_Java]");
    CHECK(fn && fn->file == 0 && strcmp(str(&d, fn->sys), "[agct:unknown_Java]") == 0);
    fn = func_named(&d, "os::javaTimeNanos");
    CHECK(fn && fn->file == 0);
    fn = func_named(&d, "com.foo.Bar$$Lambda.run");
    CHECK(fn && fn->file == 0); /* no source file */
    CHECK(func_named(&d, PROFILE_UNKNOWN_FRAME) != NULL);
    CHECK(func_named(&d, PROFILE_UNKNOWN_STACK) != NULL);
    CHECK(func_named(&d, "java.lang.Thread.sleep0") == NULL); /* only in wall samples */
    /* one function per method used: 8 methods in CPU stacks + 2 placeholders */
    CHECK_EQ_U(d.nfuncs, 10);

    /* stacks 1 and 2 differ only in a bci of hash (no line table): same locations; main's
     * bci 1 is on line 10 */
    const struct dfunc *hash = func_named(&d, "com.example.App.hash");
    const struct dfunc *main_fn = func_named(&d, "com.example.App.main");
    size_t nhash = 0, nmain = 0;
    for (size_t i = 0; i < d.nlocs; i++) {
        if (hash && d.locs[i].fid == hash->id) {
            nhash++;
            CHECK_EQ_U(d.locs[i].line, 0);
        }
        if (main_fn && d.locs[i].fid == main_fn->id) {
            nmain++;
            CHECK_EQ_U(d.locs[i].line, 10);
        }
    }
    CHECK_EQ_U(nhash, 1);
    CHECK_EQ_U(nmain, 1);
    dprof_free(&d);
    profile_free(p);
}

static void test_golden_wall(void)
{
    struct profile *p = load_golden();
    CHECK(p != NULL);
    if (!p)
        return;
    struct dprof d;
    char err[256];
    struct render_opts o = opts(FPL_KIND_WALL);
    CHECK_EQ_U(render(p, &o, &d, NULL, NULL, err, sizeof(err)), 0);
    check_structure(&d);
    CHECK_EQ_U(d.nst, 2);
    CHECK(strcmp(str(&d, d.st[0].type), "samples") == 0);
    CHECK(strcmp(str(&d, d.st[1].type), "wall") == 0);
    CHECK(strcmp(str(&d, d.st[1].unit), "nanoseconds") == 0);
    CHECK(strcmp(str(&d, d.default_type), "wall") == 0);
    CHECK(strcmp(str(&d, d.period_type.type), "wall") == 0);
    CHECK_EQ_U(d.period, 50000000);
    CHECK_EQ_U(d.nsamples, 2);
    CHECK_EQ_U(sum_values(&d, 0), GOLDEN_WALL_SAMPLES);
    /* upscaled: 8.75 and 5.75 wall intervals of 50 ms, exactly */
    CHECK_EQ_U(sum_values(&d, 1), (GOLDEN_WALL_SLEEP_X4 + GOLDEN_WALL_RUN_X4) * 12500000ull);
    for (size_t i = 0; i < d.nsamples; i++) {
        const struct dsample *s = &d.samples[i];
        const char *state = label(&d, s, "state"), *thread = label(&d, s, "thread");
        CHECK(state && thread);
        if (!state || !thread)
            continue;
        if (strcmp(thread, "pool-1_worker_2") == 0) {
            CHECK(strcmp(state, "sleeping") == 0);
            CHECK_EQ_U(s->vals[0], 5);
            CHECK_EQ_U(s->vals[1], 437500000);
        } else {
            CHECK(strcmp(thread, "main") == 0 && strcmp(state, "running") == 0);
            CHECK_EQ_U(s->vals[0], 2);
            CHECK_EQ_U(s->vals[1], 287500000);
        }
    }
    /* the native method: its function and no source file */
    const struct dfunc *fn = func_named(&d, "java.lang.Thread.sleep0");
    CHECK(fn && fn->file == 0 && strcmp(str(&d, fn->sys), "java.lang.Thread.sleep0(J)V") == 0);
    fn = func_named(&d, "java.lang.Thread.run");
    CHECK(fn && strcmp(str(&d, fn->file), "java/lang/Thread.java") == 0);
    dprof_free(&d);

    /* a state filter keeps that state's cells only */
    o.state = FPL_STATE_SLEEPING;
    CHECK_EQ_U(render(p, &o, &d, NULL, NULL, err, sizeof(err)), 0);
    CHECK_EQ_U(d.nsamples, 1);
    CHECK_EQ_U(sum_values(&d, 1), 437500000);
    dprof_free(&d);
    profile_free(p);
}

static void test_golden_all(void)
{
    struct profile *p = load_golden();
    CHECK(p != NULL);
    if (!p)
        return;
    struct dprof d;
    char err[256];
    struct render_opts o = opts(PROFILE_KIND_ALL);
    CHECK_EQ_U(render(p, &o, &d, NULL, NULL, err, sizeof(err)), 0);
    check_structure(&d);
    CHECK_EQ_U(d.nst, 4);
    const char *want[4][2] = {{"cpu_samples", "count"},
                              {"cpu", "nanoseconds"},
                              {"wall_samples", "count"},
                              {"wall", "nanoseconds"}};
    for (size_t i = 0; i < 4 && i < d.nst; i++) {
        CHECK(strcmp(str(&d, d.st[i].type), want[i][0]) == 0);
        CHECK(strcmp(str(&d, d.st[i].unit), want[i][1]) == 0);
    }
    CHECK(strcmp(str(&d, d.default_type), "cpu") == 0);
    CHECK(strcmp(str(&d, d.period_type.type), "cpu") == 0);
    CHECK_EQ_U(d.period, 10000000);
    CHECK_EQ_U(d.nsamples, p->nentries);
    CHECK_EQ_U(sum_values(&d, 0), GOLDEN_CPU_SAMPLES);
    CHECK_EQ_U(sum_values(&d, 1), GOLDEN_CPU_WEIGHT * 10000000ull);
    CHECK_EQ_U(sum_values(&d, 2), GOLDEN_WALL_SAMPLES);
    CHECK_EQ_U(sum_values(&d, 3), (GOLDEN_WALL_SLEEP_X4 + GOLDEN_WALL_RUN_X4) * 12500000ull);
    int zeros = 1;
    for (size_t i = 0; i < d.nsamples; i++) {
        const struct dsample *s = &d.samples[i];
        int wall = label(&d, s, "state") != NULL;
        zeros &= wall ? s->vals[0] == 0 && s->vals[1] == 0 : s->vals[2] == 0 && s->vals[3] == 0;
    }
    CHECK(zeros);
    dprof_free(&d);
    profile_free(p);
}

static void test_golden_select(void)
{
    struct profile *p = load_golden();
    CHECK(p != NULL);
    if (!p)
        return;
    struct dprof d;
    char err[256];
    struct render_opts o = opts(FPL_KIND_CPU);
    o.include = "App\\.hash$";
    CHECK_EQ_U(render(p, &o, &d, NULL, NULL, err, sizeof(err)), 0);
    char *s = fold(&d, 1, 10000000, 0);
    CHECK(same_text(s, "com.example.App.main;com.example.App.work;com.example.App.hash 5\n"));
    free(s);
    dprof_free(&d);

    o.include = NULL;
    o.exclude = "^com\\.example";
    CHECK_EQ_U(render(p, &o, &d, NULL, NULL, err, sizeof(err)), 0);
    s = fold(&d, 1, 10000000, 0);
    CHECK(same_text(s, "[agct:unknown_Java] 1\n[unknown stack] 1\n"));
    free(s);
    check_structure(&d);
    dprof_free(&d);

    o.exclude = "(unclosed";
    CHECK_EQ_U(render(p, &o, &d, NULL, NULL, err, sizeof(err)), (uint64_t)-EINVAL);
    CHECK(err[0] != 0);
    dprof_free(&d);

    /* a selection of nothing is a valid profile without samples */
    o.exclude = NULL;
    o.include = "no such frame";
    CHECK_EQ_U(render(p, &o, &d, NULL, NULL, err, sizeof(err)), 0);
    check_structure(&d);
    CHECK_EQ_U(d.nsamples, 0);
    CHECK_EQ_U(d.nst, 2);
    dprof_free(&d);

    /* NULL options: the defaults (auto kind: cpu) */
    CHECK_EQ_U(render(p, NULL, &d, NULL, NULL, err, sizeof(err)), 0);
    CHECK_EQ_U(sum_values(&d, 0), GOLDEN_CPU_SAMPLES);
    dprof_free(&d);
    profile_free(p);
}

/* The same profile twice gives the same bytes; a write error is reported. */
static void test_bytes_and_errors(void)
{
    struct profile *p = load_golden();
    CHECK(p != NULL);
    if (!p)
        return;
    struct dprof d;
    char err[256];
    uint8_t *a = NULL, *b = NULL;
    size_t alen = 0, blen = 0;
    struct render_opts o = opts(PROFILE_KIND_ALL);
    CHECK_EQ_U(render(p, &o, &d, &a, &alen, err, sizeof(err)), 0);
    dprof_free(&d);
    CHECK_EQ_U(render(p, &o, &d, &b, &blen, err, sizeof(err)), 0);
    dprof_free(&d);
    CHECK(alen == blen && alen > 18 && memcmp(a, b, alen) == 0);
    /* gzip: magic, deflate, mtime 0 */
    CHECK(a && a[0] == 0x1f && a[1] == 0x8b && a[2] == 8);
    CHECK(a && a[4] == 0 && a[5] == 0 && a[6] == 0 && a[7] == 0);
    free(a);
    free(b);

    FILE *f = fopen("/dev/full", "w");
    CHECK(f != NULL);
    if (f) {
        err[0] = 0;
        int rc = out_pprof_write(p, &o, f, err, sizeof(err));
        CHECK(rc == -ENOSPC || rc == -EIO);
        CHECK(strncmp(err, "pprof: write failed", 19) == 0);
        fclose(f);
    }
    profile_free(p);
}

/* ---- hand-made logs ---- */

static const struct fplgen_header HDR = {
    .pid = 7,
    .clock = FPL_CLOCK_MONOTONIC,
    .ticks_per_sec = 1000000000ull,
    .anchor_ticks = 1000,
    .anchor_mono_ns = 1000,
    .anchor_real_ns = 1600000000000000000ull,
    .cpu_interval_ns = 1000000,
    .engine = FPL_ENGINE_CPUTIMER,
    .wall_interval_ns = 0,
    .wall_threads = 16,
    .depth = 2048,
    .options = "cpu=1ms",
    .jvm_name = "VM",
    .jvm_version = "1",
    .command = "T",
};

/* Lines of bcis: the last table entry at or below the bci; one location per (method, line). */
static void test_lines(void)
{
    struct fplgen g;
    CHECK(fplgen_init(&g) == 0);
    fplgen_header(&g, &HDR);
    fplgen_thread(&g, 1, 11, "t");
    const struct reader_line l1[] = {{0, 10}, {5, 11}, {20, 14}};
    const struct reader_line l2[] = {{3, 7}};
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "p.q.A", "a", "()V", "A.java", 3, l1);
    fplgen_method(&g, 2, FPL_METHOD_JAVA, "B", "b", "()V", "B.java", 1, l2);
    /* bci -> line: 0 10, 4 10, 5 11, 19 11, 20 14, 1000 14, -1 0; method 2: 1 0, 3 7, 9 7 */
    const int32_t bcis[] = {0, 4, 5, 19, 20, 1000, -1};
    const int64_t lines[] = {10, 10, 11, 11, 14, 14, 0};
    for (uint64_t i = 0; i < 7; i++) {
        const struct reader_frame fr[] = {{1, bcis[i], 0}, {2, (int32_t)(i % 3) * 4 - (i % 3 == 2), 0}};
        fplgen_stack(&g, i + 1, 2, fr);
        fplgen_sample(&g, 2000 + i, 1, i + 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    }
    /* method 2's bcis by stack: 0, 4, 7, 0, 4, 7, 0 -> lines 0, 7, 7, ... */
    fplgen_end(&g, 1000 + 5000000);
    CHECK(fplgen_flush(&g) == 0);
    struct profile *p = load(&g);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (!p)
        return;
    struct dprof d;
    char err[256];
    struct render_opts o = opts(FPL_KIND_CPU);
    CHECK_EQ_U(render(p, &o, &d, NULL, NULL, err, sizeof(err)), 0);
    check_structure(&d);
    CHECK_EQ_U(d.nsamples, 7);
    const struct dfunc *a = func_named(&d, "p.q.A.a"), *b = func_named(&d, "B.b");
    CHECK(a && b);
    if (a && b) {
        CHECK(strcmp(str(&d, a->file), "p/q/A.java") == 0);
        CHECK(strcmp(str(&d, b->file), "B.java") == 0); /* no package */
        CHECK_EQ_U(a->start, 10);
        CHECK_EQ_U(b->start, 7);
    }
    for (size_t i = 0; i < d.nsamples && a && b; i++) {
        const struct dsample *s = &d.samples[i];
        CHECK_EQ_U(s->nlocs, 2);
        if (s->nlocs != 2)
            continue;
        const struct dloc *leaf = find_loc(&d, s->locs[0]), *caller = find_loc(&d, s->locs[1]);
        CHECK(leaf && caller && leaf->fid == a->id && caller->fid == b->id);
        if (!leaf || !caller)
            continue;
        /* which stack: the sample's time is not in pprof; find it by the leaf's line set */
        int ok = 0;
        for (size_t k = 0; k < 7; k++)
            ok |= leaf->line == lines[k];
        CHECK(ok);
        CHECK(caller->line == 0 || caller->line == 7);
    }
    /* locations: a at lines 10, 11, 14, 0 and b at 0 and 7: 6, shared across stacks */
    CHECK_EQ_U(d.nlocs, 6);
    size_t count[4] = {0}; /* a's locations by line */
    for (size_t i = 0; i < d.nlocs && a; i++) {
        if (d.locs[i].fid != a->id)
            continue;
        int64_t l = d.locs[i].line;
        count[l == 10 ? 0 : l == 11 ? 1 : l == 14 ? 2 : 3]++;
    }
    CHECK(count[0] == 1 && count[1] == 1 && count[2] == 1 && count[3] == 1);
    /* per-line weights: line 10 twice, 11 twice, 14 twice, 0 once */
    int64_t w[4] = {0};
    for (size_t i = 0; i < d.nsamples; i++) {
        const struct dloc *leaf = find_loc(&d, d.samples[i].locs[0]);
        int64_t l = leaf ? leaf->line : -1;
        w[l == 10 ? 0 : l == 11 ? 1 : l == 14 ? 2 : 3] += d.samples[i].vals[0];
    }
    CHECK(w[0] == 2 && w[1] == 2 && w[2] == 2 && w[3] == 1);
    dprof_free(&d);
    profile_free(p);
}

/* Names come as the profile made them (display names, valid UTF-8 already); the raw strings
 * (signature, source file, agent options) are converted from modified UTF-8 here: an encoded
 * NUL becomes '_', a surrogate pair one 4-byte character, a lone surrogate one U+FFFD, a stray
 * byte U+FFFD. */
static void test_utf8(void)
{
    struct fplgen g;
    struct fplgen_header h = HDR;
    h.options = "cpu=1ms,file=\xed\xa0\xbd\xed\xb8\x80\xff.fpl";
    CHECK(fplgen_init(&g) == 0);
    fplgen_header(&g, &h);
    /* thread name: "t" U+00E9, C0 80 (NUL), ED A0 BD ED B8 80 (U+1F600) */
    fplgen_thread(&g, 1, 11, "t\xc3\xa9\xc0\x80\xed\xa0\xbd\xed\xb8\x80");
    /* class with a lone high surrogate and a stray 0xff, method with a lone low surrogate; the
     * signature with a pair, a lone high surrogate and a NUL; the source file with a pair */
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "p.C\xed\xa0\x80x\xff", "m\xed\xb8\x80",
                  "(L\xed\xa0\xbd\xed\xb8\x80;L\xed\xa0\xbd;\xc0\x80)V",
                  "S\xed\xa0\xbd\xed\xb8\x80.java", 0, NULL);
    const struct reader_frame fr[] = {{1, 0, 0}};
    fplgen_stack(&g, 1, 1, fr);
    fplgen_sample(&g, 2000, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    CHECK(fplgen_flush(&g) == 0);
    struct profile *p = load(&g);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (!p)
        return;
    struct dprof d;
    char err[256];
    CHECK_EQ_U(render(p, NULL, &d, NULL, NULL, err, sizeof(err)), 0);
    check_structure(&d); /* every string valid UTF-8 */
    CHECK_EQ_U(d.nsamples, 1);
    if (d.nsamples == 1) {
        const char *t = label(&d, &d.samples[0], "thread");
        CHECK(t && strcmp(t, p->threads[0].display) == 0);
    }
    const char *disp = p->methods[0].display;
    const struct dfunc *fn = func_named(&d, disp);
    CHECK(fn != NULL);
    if (fn) {
        char want[256];
        snprintf(want, sizeof(want), "%s%s", disp, "(L\xf0\x9f\x98\x80;L\xef\xbf\xbd;_)V");
        CHECK(strcmp(str(&d, fn->sys), want) == 0);
        CHECK(strcmp(str(&d, fn->file), "p/S\xf0\x9f\x98\x80.java") == 0);
    }
    CHECK(has_comment(&d, "agent options: cpu=1ms,file=\xf0\x9f\x98\x80\xef\xbf\xbd.fpl"));
    CHECK(d.duration_nanos == 0); /* no END and a single sample: unknown */
    dprof_free(&d);
    profile_free(p);
}

/* Deep stacks (location lists over 128 bytes) and enough samples to flush the buffers many
 * times: every sample's locations are its stack's frames, leaf first. */
static void test_big(void)
{
    enum { NMETH = 500, NSTACK = 3000, DEPTH = 120, NTHR = 5 };
    struct fplgen g;
    CHECK(fplgen_init(&g) == 0);
    fplgen_header(&g, &HDR);
    for (uint64_t t = 1; t <= NTHR; t++) {
        char name[32];
        snprintf(name, sizeof(name), "worker-%llu", (unsigned long long)t);
        fplgen_thread(&g, t, 100 + t, name);
    }
    for (uint64_t m = 1; m <= NMETH; m++) {
        char cls[64], name[32];
        snprintf(cls, sizeof(cls), "org.example.pkg%llu.Class%llu", (unsigned long long)(m % 7),
                 (unsigned long long)m);
        snprintf(name, sizeof(name), "method%llu", (unsigned long long)m);
        const struct reader_line l[] = {{0, m}, {10, m + 1}};
        fplgen_method(&g, m, FPL_METHOD_JAVA, cls, name, "()V", "X.java", 2, l);
    }
    struct reader_frame fr[DEPTH];
    uint64_t weight = 0, samples = 0;
    for (uint64_t s = 1; s <= NSTACK; s++) {
        uint32_t depth = 1 + (uint32_t)(s * 7919 % DEPTH);
        for (uint32_t k = 0; k < depth; k++) {
            fr[k].method_id = 1 + (s * 31 + k * 17) % NMETH;
            fr[k].bci = (int64_t)((s + k) % 20);
        }
        fplgen_stack(&g, s, depth, fr);
        for (uint64_t t = 1; t <= 1 + s % NTHR; t++) {
            uint64_t w = 1 + (s + t) % 3;
            fplgen_sample(&g, 2000 + s, t, s, w, FPL_KIND_CPU, FPL_STATE_RUNNING);
            weight += w;
            samples++;
        }
        if (s % 500 == 0)
            CHECK(fplgen_flush(&g) == 0);
    }
    CHECK(fplgen_flush(&g) == 0);
    struct profile *p = load(&g);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (!p)
        return;
    struct dprof d;
    char err[256];
    uint8_t *gz = NULL;
    size_t gzlen = 0;
    CHECK_EQ_U(render(p, NULL, &d, &gz, &gzlen, err, sizeof(err)), 0);
    free(gz);
    CHECK(!d.bad && d.in_order);
    CHECK_EQ_U(d.nsamples, p->nentries);
    CHECK_EQ_U(sum_values(&d, 0), samples);
    CHECK_EQ_U(sum_values(&d, 1), weight * HDR.cpu_interval_ns);
    CHECK_EQ_U(d.nfuncs, NMETH);
    /* samples come grouped by stack, in stack order, cell order within a stack */
    const struct profile_entry **cells = malloc(p->nentries * sizeof(*cells));
    size_t nc = 0;
    for (size_t st = 0; cells && st < p->nstacks; st++)
        for (size_t i = 0; i < p->nentries; i++)
            if (p->entries[i].stack == st)
                cells[nc++] = &p->entries[i];
    CHECK(cells && nc == d.nsamples);
    /* check every sample against its cell's stack: thread label, frames in order, lines */
    int ok = cells && nc == d.nsamples;
    for (size_t i = 0; i < d.nsamples && ok; i++) {
        const struct profile_entry *e = cells[i];
        const struct dsample *s = &d.samples[i];
        ok &= s->vals[0] == (int64_t)e->count;
        ok &= s->vals[1] == (int64_t)(e->weight * HDR.cpu_interval_ns);
        const struct profile_stack *st = &p->stacks[e->stack];
        ok &= s->nlocs == st->nframes;
        ok &= strcmp(label(&d, s, "thread"), p->threads[e->thread].name) == 0;
        for (size_t k = 0; k < s->nlocs && ok; k++) {
            const struct dloc *l = find_loc(&d, s->locs[k]);
            const struct dfunc *fn = l ? find_func(&d, l->fid) : NULL;
            const struct profile_method *m = &p->methods[st->frames[k].method];
            ok &= fn && strcmp(str(&d, fn->name), m->display) == 0;
            ok &= l && (uint64_t)l->line == (st->frames[k].bci < 10 ? m->id : m->id + 1);
        }
    }
    CHECK(ok);
    free(cells);
    dprof_free(&d);
    profile_free(p);
}

/* The mapping is named after the program: a jar without its directory, or a main class; the
 * placeholder when the log does not say (no header). */
static void test_mapping_name(void)
{
    static const struct {
        const char *command, *want;
    } cases[] = {
        {"/opt/app/app.jar --port 80", "app.jar"},
        {"com.example.Main arg", "com.example.Main"},
        {"", "[jvm]"},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct fplgen g;
        struct fplgen_header h = HDR;
        h.command = cases[k].command;
        CHECK(fplgen_init(&g) == 0);
        fplgen_header(&g, &h);
        fplgen_thread(&g, 1, 11, "t");
        fplgen_method(&g, 1, FPL_METHOD_JAVA, "A", "a", "()V", "", 0, NULL);
        const struct reader_frame fr[] = {{1, 0, 0}};
        fplgen_stack(&g, 1, 1, fr);
        fplgen_sample(&g, 2000, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
        fplgen_end(&g, 1000 + 5000000);
        CHECK(fplgen_flush(&g) == 0);
        struct profile *p = load(&g);
        fplgen_destroy(&g);
        CHECK(p != NULL);
        if (!p)
            continue;
        struct dprof d;
        char err[256];
        struct render_opts o = opts(FPL_KIND_CPU);
        CHECK_EQ_U(render(p, &o, &d, NULL, NULL, err, sizeof(err)), 0);
        CHECK(d.nmappings == 1 && strcmp(str(&d, d.maps[0].file), cases[k].want) == 0);
        dprof_free(&d);
        profile_free(p);
    }
}

int main(void)
{
    test_pb();
    test_golden_cpu();
    test_golden_wall();
    test_golden_all();
    test_golden_select();
    test_bytes_and_errors();
    test_lines();
    test_mapping_name();
    test_utf8();
    test_big();
    return harness_result("test_pprof");
}
