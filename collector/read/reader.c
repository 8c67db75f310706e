/* reader.c: walks the chunks of a .fpl log and decodes their records (see reader.h). */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpl_chunk.h"
#include "fpl_codec.h"
#include "fpl_format.h"

struct reader {
    const uint8_t *data;
    size_t len;
    const char *name;
    const struct reader_ops *ops;
    void *ctx;
    struct reader_stats *st;
    int have_seq;
    uint32_t next_seq;
    int skipped; /* set by a decoder that skipped its record whole (counted already) */
    /* scratch for the variable-length parts of a record, grown on demand and reused */
    struct reader_frame *frames;
    size_t frames_cap;
    struct reader_line *lines;
    size_t lines_cap;
    struct reader_counter *ctrs;
    size_t ctrs_cap;
    uint64_t *hist;
    size_t hist_cap;
    struct reader_bucket *buckets;
    size_t buckets_cap;
};

static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Fills err (if any) and returns rc. */
static int fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A scratch array of at least n elements of size elem: buf, or buf reallocated (capacity in
 * *cap). NULL when out of memory (buf stays valid and owned by the caller). */
static void *scratch(void *buf, size_t *cap, size_t n, size_t elem)
{
    if (n <= *cap && buf)
        return buf;
    size_t c = *cap ? *cap : 64;
    while (c < n)
        c *= 2;
    void *p = realloc(buf, c * elem);
    if (p)
        *cap = c;
    return p;
}

/* A count read from the log, checked against the bytes left: each element takes at least
 * min_bytes, so a count beyond that is damage, and no allocation can exceed the chunk. */
static size_t get_count(struct fpl_cur *c, size_t min_bytes)
{
    uint64_t n = fpl_get_v(c);
    if (c->bad || n > (uint64_t)(c->end - c->p) / min_bytes) {
        c->bad = 1;
        return 0;
    }
    return (size_t)n;
}

static struct reader_str get_str(struct fpl_cur *c)
{
    struct reader_str s;
    s.s = fpl_get_str(c, &s.len);
    return s;
}

static int rec_header(struct reader *r, struct fpl_cur *c)
{
    struct reader_header h;
    h.header_version = fpl_get_v(c);
    if (c->bad)
        return 0;
    if (h.header_version != 1) {
        /* another layout, not damage: skipped whole like a record of an unknown type */
        r->st->unknown_records++;
        r->skipped = 1;
        return 0;
    }
    h.pid = fpl_get_v(c);
    h.clock = fpl_get_u8(c);
    h.ticks_per_sec = fpl_get_u64(c);
    h.anchor_ticks = fpl_get_u64(c);
    h.anchor_mono_ns = fpl_get_u64(c);
    h.anchor_real_ns = fpl_get_u64(c);
    h.cpu_interval_ns = fpl_get_v(c);
    h.engine = fpl_get_u8(c);
    h.wall_interval_ns = fpl_get_v(c);
    h.wall_threads = fpl_get_v(c);
    h.depth = fpl_get_v(c);
    h.options = get_str(c);
    h.jvm_name = get_str(c);
    h.jvm_version = get_str(c);
    h.command = get_str(c);
    if (c->bad || !r->ops->header)
        return 0;
    return r->ops->header(r->ctx, &h);
}

static int rec_anchor(struct reader *r, struct fpl_cur *c)
{
    uint64_t ticks = fpl_get_u64(c);
    uint64_t mono = fpl_get_u64(c);
    uint64_t real = fpl_get_u64(c);
    if (c->bad || !r->ops->anchor)
        return 0;
    return r->ops->anchor(r->ctx, ticks, mono, real);
}

static int rec_thread(struct reader *r, struct fpl_cur *c)
{
    uint64_t id = fpl_get_v(c);
    uint64_t tid = fpl_get_v(c);
    struct reader_str name = get_str(c);
    if (c->bad || !r->ops->thread)
        return 0;
    return r->ops->thread(r->ctx, id, tid, name);
}

static int rec_method(struct reader *r, struct fpl_cur *c)
{
    struct reader_method m;
    m.id = fpl_get_v(c);
    m.kind = fpl_get_u8(c);
    m.class_name = get_str(c);
    m.name = get_str(c);
    m.signature = get_str(c);
    m.source_file = get_str(c);
    m.nlines = get_count(c, 2);
    if (c->bad)
        return 0;
    void *q = scratch(r->lines, &r->lines_cap, m.nlines, sizeof(*r->lines));
    if (!q)
        return -ENOMEM;
    r->lines = q;
    for (size_t i = 0; i < m.nlines; i++) {
        r->lines[i].start_bci = fpl_get_v(c);
        r->lines[i].line = fpl_get_v(c);
    }
    m.lines = r->lines;
    if (c->bad || !r->ops->method)
        return 0;
    return r->ops->method(r->ctx, &m);
}

static int rec_stack(struct reader *r, struct fpl_cur *c)
{
    uint64_t id = fpl_get_v(c);
    size_t n = get_count(c, 2);
    if (c->bad)
        return 0;
    void *q = scratch(r->frames, &r->frames_cap, n, sizeof(*r->frames));
    if (!q)
        return -ENOMEM;
    r->frames = q;
    for (size_t i = 0; i < n; i++) {
        r->frames[i].method_id = fpl_get_v(c);
        r->frames[i].bci = fpl_get_sv(c);
        r->frames[i].type = FPL_FRAME_JAVA;
    }
    /* appended in a later revision: one type byte per frame */
    if (!c->bad && (size_t)(c->end - c->p) >= n)
        for (size_t i = 0; i < n; i++)
            r->frames[i].type = fpl_get_u8(c);
    if (c->bad || !r->ops->stack)
        return 0;
    return r->ops->stack(r->ctx, id, r->frames, n);
}

static int rec_sample(struct reader *r, struct fpl_cur *c, uint64_t *last_ticks)
{
    struct reader_sample s;
    int64_t d = fpl_get_sv(c);
    if (c->bad)
        return 0;
    /* the next delta counts from this sample even if a later field is bad. Unsigned
     * addition: a negative delta wraps as the writer's subtraction did */
    s.ticks = *last_ticks + (uint64_t)d;
    *last_ticks = s.ticks;
    s.thread_id = fpl_get_v(c);
    s.stack_id = fpl_get_v(c);
    s.weight = fpl_get_v(c);
    s.kind = fpl_get_u8(c);
    s.state = fpl_get_u8(c);
    /* optional trailing field: absent when the body ends here */
    s.tick_id = c->p < c->end ? fpl_get_v(c) : 0;
    if (c->bad || !r->ops->sample)
        return 0;
    return r->ops->sample(r->ctx, &s);
}

static int rec_counters(struct reader *r, struct fpl_cur *c)
{
    size_t n = get_count(c, 2);
    if (c->bad)
        return 0;
    void *q = scratch(r->ctrs, &r->ctrs_cap, n, sizeof(*r->ctrs));
    if (!q)
        return -ENOMEM;
    r->ctrs = q;
    for (size_t i = 0; i < n; i++) {
        r->ctrs[i].id = fpl_get_v(c);
        r->ctrs[i].value = fpl_get_v(c);
    }
    if (c->bad || !r->ops->counters)
        return 0;
    return r->ops->counters(r->ctx, r->ctrs, n);
}

static int rec_hist(struct reader *r, struct fpl_cur *c)
{
    size_t n = get_count(c, 1);
    if (c->bad)
        return 0;
    void *q = scratch(r->hist, &r->hist_cap, n, sizeof(*r->hist));
    if (!q)
        return -ENOMEM;
    r->hist = q;
    for (size_t i = 0; i < n; i++)
        r->hist[i] = fpl_get_v(c);
    uint64_t max_ns = fpl_get_v(c);
    uint64_t total_ns = fpl_get_v(c);
    if (c->bad || !r->ops->handler_hist)
        return 0;
    return r->ops->handler_hist(r->ctx, r->hist, n, max_ns, total_ns);
}

static int rec_end(struct reader *r, struct fpl_cur *c)
{
    uint64_t ticks = fpl_get_u64(c);
    if (c->bad || !r->ops->end)
        return 0;
    return r->ops->end(r->ctx, ticks);
}

static int rec_wall_tick(struct reader *r, struct fpl_cur *c)
{
    struct reader_wall_tick t;
    t.id = fpl_get_v(c);
    t.ticks = fpl_get_u64(c);
    t.candidates = fpl_get_v(c);
    t.chosen = fpl_get_v(c);
    t.signaled = fpl_get_v(c);
    t.failed = fpl_get_v(c);
    if (t.id == 0)
        c->bad = 1; /* 0 is what a sample says when it answers no tick */
    if (c->bad || !r->ops->wall_tick)
        return 0;
    return r->ops->wall_tick(r->ctx, &t);
}

static int rec_hiccup(struct reader *r, struct fpl_cur *c)
{
    struct reader_hiccup h;
    h.probe = fpl_get_v(c);
    h.start = fpl_get_u64(c);
    h.end = fpl_get_u64(c);
    h.resolution_ns = fpl_get_v(c);
    h.threshold_ns = fpl_get_v(c);
    h.wakeups = fpl_get_v(c);
    h.max_ns = fpl_get_v(c);
    h.max_ticks = fpl_get_u64(c);
    h.stalls = fpl_get_v(c);
    h.stalled_ns = fpl_get_v(c);
    h.run_delay_ns = fpl_get_v(c);
    h.nbuckets = get_count(c, 2);
    if (c->bad)
        return 0;
    void *q = scratch(r->buckets, &r->buckets_cap, h.nbuckets, sizeof(*r->buckets));
    if (!q)
        return -ENOMEM;
    r->buckets = q;
    uint64_t index = UINT64_MAX; /* the first step counts from -1 */
    for (size_t i = 0; i < h.nbuckets; i++) {
        uint64_t step = fpl_get_v(c);
        if (step == 0 || index + step < index + 1)
            c->bad = 1; /* indexes ascend strictly and do not wrap */
        index += step;
        r->buckets[i].index = index;
        r->buckets[i].count = fpl_get_v(c);
    }
    h.buckets = r->buckets;
    if (c->bad || !r->ops->hiccup)
        return 0;
    return r->ops->hiccup(r->ctx, &h);
}

static int rec_stall(struct reader *r, struct fpl_cur *c)
{
    struct reader_stall s;
    s.probe = fpl_get_v(c);
    s.flags = fpl_get_u8(c);
    s.start = fpl_get_u64(c);
    s.end = fpl_get_u64(c);
    s.run_delay_ns = fpl_get_v(c);
    s.safepoints = fpl_get_v(c);
    s.safepoint_ns = fpl_get_v(c);
    s.sync_ns = fpl_get_v(c);
    if (c->bad || !r->ops->stall)
        return 0;
    return r->ops->stall(r->ctx, &s);
}

static int rec_gc(struct reader *r, struct fpl_cur *c)
{
    struct reader_gc g;
    g.start = fpl_get_u64(c);
    g.end = fpl_get_u64(c);
    g.collector = get_str(c);
    if (c->bad || !r->ops->gc)
        return 0;
    return r->ops->gc(r->ctx, &g);
}

static int rec_pause_stats(struct reader *r, struct fpl_cur *c)
{
    struct reader_pause_stats p;
    p.start = fpl_get_u64(c);
    p.end = fpl_get_u64(c);
    p.flags = fpl_get_u8(c);
    p.safepoints = fpl_get_v(c);
    p.safepoint_ns = fpl_get_v(c);
    p.sync_ns = fpl_get_v(c);
    p.steal_ns = fpl_get_v(c);
    p.cpus = fpl_get_v(c);
    p.stalls_dropped = fpl_get_v(c);
    p.gcs_dropped = fpl_get_v(c);
    if (c->bad || !r->ops->pause_stats)
        return 0;
    return r->ops->pause_stats(r->ctx, &p);
}

/* Decodes one record's body with the decoder of its type. Returns a callback's non-zero
 * value, -ENOMEM, or 0, with body->bad set when its fields do not decode within the body and
 * r->skipped set when the record was skipped whole (and counted). */
static int read_record(struct reader *r, uint8_t type, struct fpl_cur *body, uint64_t *last_ticks)
{
    switch (type) {
    case FPL_REC_HEADER:
        return rec_header(r, body);
    case FPL_REC_ANCHOR:
        return rec_anchor(r, body);
    case FPL_REC_THREAD:
        return rec_thread(r, body);
    case FPL_REC_METHOD:
        return rec_method(r, body);
    case FPL_REC_STACK:
        return rec_stack(r, body);
    case FPL_REC_SAMPLE:
        return rec_sample(r, body, last_ticks);
    case FPL_REC_COUNTERS:
        return rec_counters(r, body);
    case FPL_REC_HANDLER_HIST:
        return rec_hist(r, body);
    case FPL_REC_END:
        return rec_end(r, body);
    case FPL_REC_WALL_TICK:
        return rec_wall_tick(r, body);
    case FPL_REC_HICCUP:
        return rec_hiccup(r, body);
    case FPL_REC_STALL:
        return rec_stall(r, body);
    case FPL_REC_GC:
        return rec_gc(r, body);
    case FPL_REC_PAUSE_STATS:
        return rec_pause_stats(r, body);
    default:
        r->st->unknown_records++;
        r->skipped = 1;
        return 0;
    }
}

/* Decodes the records of one verified payload. Each record is decoded inside its own body,
 * so an unknown type or a record that does not decode is skipped and the next one is found;
 * only framing that runs past the payload ends the chunk. */
static int read_payload(struct reader *r, const uint8_t *p, size_t len)
{
    struct fpl_cur c = {p, p + len, 0};
    uint64_t last_ticks = 0; /* sample deltas restart in every chunk */

    while (c.p < c.end) {
        uint8_t type = fpl_get_u8(&c);
        uint64_t blen = fpl_get_v(&c);
        if (c.bad || blen > (uint64_t)(c.end - c.p)) {
            r->st->chunks_bad_framing++;
            return 0;
        }
        struct fpl_cur body = {c.p, c.p + blen, 0};
        c.p += blen;
        r->skipped = 0;
        int rc = read_record(r, type, &body, &last_ticks);
        if (rc)
            return rc;
        if (r->skipped)
            continue;
        if (body.bad)
            r->st->bad_records++;
        else
            r->st->records++;
    }
    return 0;
}

/* A chunk header at pos that frames a payload lying inside the file and matching its CRC. */
static int chunk_verifies(const struct reader *r, size_t pos)
{
    if (r->len - pos < FPL_CHUNK_HEADER_SIZE)
        return 0;
    const uint8_t *h = r->data + pos;
    uint32_t clen = le32(h + 4);
    if (le32(h) != FPL_CHUNK_SYNC || clen > FPL_CHUNK_MAX ||
        clen > r->len - pos - FPL_CHUNK_HEADER_SIZE)
        return 0;
    return fpl_chunk_crc_framed(h + 12, h + FPL_CHUNK_HEADER_SIZE, clen) == le32(h + 8);
}

/* The first offset >= from where a verifying chunk starts, or r->len. */
static size_t find_next_chunk(const struct reader *r, size_t from)
{
    static const uint8_t sync[4] = {FPL_CHUNK_SYNC & 0xff, (FPL_CHUNK_SYNC >> 8) & 0xff,
                                    (FPL_CHUNK_SYNC >> 16) & 0xff, FPL_CHUNK_SYNC >> 24};
    while (from < r->len) {
        const uint8_t *q = memmem(r->data + from, r->len - from, sync, sizeof(sync));
        if (!q)
            break;
        size_t pos = (size_t)(q - r->data);
        if (chunk_verifies(r, pos))
            return pos;
        from = pos + 1;
    }
    return r->len;
}

/* Counts the chunks missing before a verified chunk numbered seq. The CRC covers the number,
 * so a gap is chunks that were lost, not damage to the number; a number at or before one
 * already read (a spliced or duplicated log) is counted apart and the count restarts from it.
 * Numbers wrap at 2^32: a step of up to 2^31 counts as forward. */
static void note_seq(struct reader *r, uint32_t seq)
{
    uint32_t missing = seq - r->next_seq;

    if (r->have_seq && missing >= 1u << 31)
        r->st->seq_errors++;
    else
        r->st->chunks_lost += missing;
    r->have_seq = 1;
    r->next_seq = seq + 1;
}

static int walk_chunks(struct reader *r)
{
    size_t pos = FPL_PREAMBLE_SIZE;

    while (pos < r->len) {
        size_t avail = r->len - pos;
        const uint8_t *h = r->data + pos;

        if (avail < FPL_CHUNK_HEADER_SIZE) {
            /* the start of a header written just before the file ended, or garbage */
            uint8_t sync[4] = {FPL_CHUNK_SYNC & 0xff, (FPL_CHUNK_SYNC >> 8) & 0xff,
                               (FPL_CHUNK_SYNC >> 16) & 0xff, FPL_CHUNK_SYNC >> 24};
            if (memcmp(h, sync, avail < 4 ? avail : 4) == 0) {
                r->st->chunks_truncated++;
                r->st->bytes_truncated += avail;
            } else {
                r->st->chunks_damaged++;
                r->st->bytes_skipped += avail;
            }
            break;
        }
        if (chunk_verifies(r, pos)) {
            uint32_t clen = le32(h + 4);
            note_seq(r, le32(h + 12));
            r->st->chunks_ok++;
            int rc = read_payload(r, h + FPL_CHUNK_HEADER_SIZE, clen);
            if (rc)
                return rc;
            pos += FPL_CHUNK_HEADER_SIZE + (size_t)clen;
            continue;
        }
        /* Damaged here. A plausible header whose payload runs past the end is a chunk cut off
         * while being written, unless a verifying chunk follows: then its length is damaged. */
        size_t next = find_next_chunk(r, pos + 1);
        uint32_t clen = le32(h + 4);
        if (next == r->len && le32(h) == FPL_CHUNK_SYNC && clen <= FPL_CHUNK_MAX &&
            clen > avail - FPL_CHUNK_HEADER_SIZE) {
            r->st->chunks_truncated++;
            r->st->bytes_truncated += avail;
            break;
        }
        r->st->chunks_damaged++;
        r->st->bytes_skipped += next - pos;
        pos = next;
    }
    return 0;
}

int reader_read_mem(const void *data, size_t len, const char *name, const struct reader_ops *ops,
                    void *ctx, struct reader_stats *stats, char *err, size_t errlen)
{
    static const struct reader_ops no_ops;
    struct reader_stats local;
    struct reader r;
    int rc;

    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof(*stats));
    stats->file_bytes = len;
    if (!name)
        name = "(memory)";
    if (len == 0)
        return fail(err, errlen, -EINVAL, "'%s': not a flyprof log (the file is empty)", name);
    const uint8_t *p = data;
    if (len < FPL_PREAMBLE_SIZE) {
        if (memcmp(p, FPL_MAGIC, len < 8 ? len : 8) == 0)
            return fail(err, errlen, -EINVAL,
                        "'%s': flyprof log cut off inside its preamble (%zu of %d bytes)", name,
                        len, FPL_PREAMBLE_SIZE);
        return fail(err, errlen, -EINVAL, "'%s': not a flyprof log (too short: %zu bytes)", name,
                    len);
    }
    if (memcmp(p, FPL_MAGIC, 8) != 0)
        return fail(err, errlen, -EINVAL, "'%s': not a flyprof log (bad magic)", name);
    unsigned version = (unsigned)p[8] | (unsigned)p[9] << 8;
    if (version != FPL_VERSION)
        return fail(err, errlen, -EINVAL,
                    "'%s': unsupported version %u (this flyprof reads version %d)", name, version,
                    FPL_VERSION);

    memset(&r, 0, sizeof(r));
    r.data = p;
    r.len = len;
    r.name = name;
    r.ops = ops ? ops : &no_ops;
    r.ctx = ctx;
    r.st = stats;
    rc = walk_chunks(&r);
    if (rc == -ENOMEM)
        fail(err, errlen, rc, "'%s': out of memory", name);
    else if (rc < 0)
        fail(err, errlen, rc, "'%s': %s", name, strerror(-rc));
    else if (rc)
        fail(err, errlen, rc, "'%s': reading stopped (%d)", name, rc);
    free(r.frames);
    free(r.lines);
    free(r.ctrs);
    free(r.hist);
    free(r.buckets);
    return rc;
}

/* Reads a non-mappable file (a pipe, a character device) whole into memory. */
static int slurp(int fd, uint8_t **out, size_t *outlen)
{
    size_t cap = 1 << 16, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return -ENOMEM;
    for (;;) {
        if (len == cap) {
            uint8_t *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                return -ENOMEM;
            }
            buf = p;
            cap *= 2;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = -errno;
            free(buf);
            return e;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    *out = buf;
    *outlen = len;
    return 0;
}

int reader_read_file(const char *path, const struct reader_ops *ops, void *ctx,
                     struct reader_stats *stats, char *err, size_t errlen)
{
    struct stat sb;
    uint8_t *buf = NULL;
    void *map = MAP_FAILED;
    size_t len = 0;
    int rc;

    if (stats)
        memset(stats, 0, sizeof(*stats));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        return fail(err, errlen, rc, "cannot open '%s': %s", path, strerror(-rc));
    }
    if (fstat(fd, &sb) < 0) {
        rc = -errno;
        fail(err, errlen, rc, "cannot stat '%s': %s", path, strerror(-rc));
        goto out;
    }
    if (S_ISDIR(sb.st_mode)) {
        rc = fail(err, errlen, -EISDIR, "cannot read '%s': %s", path, strerror(EISDIR));
        goto out;
    }
    if (S_ISREG(sb.st_mode) && sb.st_size > 0) {
        len = (size_t)sb.st_size;
        /* MAP_PRIVATE of the size seen now: a log still growing is read up to here */
        map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    }
    if (map == MAP_FAILED) {
        rc = slurp(fd, &buf, &len);
        if (rc) {
            fail(err, errlen, rc, "cannot read '%s': %s", path, strerror(-rc));
            goto out;
        }
    }
    rc = reader_read_mem(map != MAP_FAILED ? map : buf, len, path, ops, ctx, stats, err, errlen);
out:
    if (map != MAP_FAILED)
        munmap(map, len);
    free(buf);
    close(fd);
    return rc;
}
