/* fplgen.c: test log builder (see fplgen.h). */
#include "fplgen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fpl_chunk.h"
#include "fpl_format.h"

int fplgen_init(struct fplgen *g)
{
    memset(g, 0, sizeof(*g));
    g->fd = memfd_create("fplgen", MFD_CLOEXEC);
    if (g->fd < 0)
        return -errno;
    int rc = fpl_chunk_write_preamble(g->fd);
    g->size = FPL_PREAMBLE_SIZE;
    return rc;
}

void fplgen_destroy(struct fplgen *g)
{
    if (g->fd >= 0)
        close(g->fd);
    fpl_buf_free(&g->rec);
    free(g->chunks);
    memset(g, 0, sizeof(*g));
    g->fd = -1;
}

void fplgen_header(struct fplgen *g, const struct fplgen_header *h)
{
    struct fpl_buf *b = &g->rec;
    size_t r = fpl_rec_begin(b, FPL_REC_HEADER);
    fpl_put_v(b, 1);
    fpl_put_v(b, h->pid);
    fpl_put_u8(b, h->clock);
    fpl_put_u64(b, h->ticks_per_sec);
    fpl_put_u64(b, h->anchor_ticks);
    fpl_put_u64(b, h->anchor_mono_ns);
    fpl_put_u64(b, h->anchor_real_ns);
    fpl_put_v(b, h->cpu_interval_ns);
    fpl_put_u8(b, h->engine);
    fpl_put_v(b, h->wall_interval_ns);
    fpl_put_v(b, h->wall_threads);
    fpl_put_v(b, h->depth);
    fpl_put_str(b, h->options);
    fpl_put_str(b, h->jvm_name);
    fpl_put_str(b, h->jvm_version);
    fpl_put_str(b, h->command);
    fpl_rec_end(b, r);
}

void fplgen_anchor(struct fplgen *g, uint64_t ticks, uint64_t mono_ns, uint64_t real_ns)
{
    size_t r = fpl_rec_begin(&g->rec, FPL_REC_ANCHOR);
    fpl_put_u64(&g->rec, ticks);
    fpl_put_u64(&g->rec, mono_ns);
    fpl_put_u64(&g->rec, real_ns);
    fpl_rec_end(&g->rec, r);
}

void fplgen_thread(struct fplgen *g, uint64_t id, uint64_t os_tid, const char *name)
{
    size_t r = fpl_rec_begin(&g->rec, FPL_REC_THREAD);
    fpl_put_v(&g->rec, id);
    fpl_put_v(&g->rec, os_tid);
    fpl_put_str(&g->rec, name);
    fpl_rec_end(&g->rec, r);
}

void fplgen_method(struct fplgen *g, uint64_t id, uint8_t kind, const char *cls, const char *name,
                   const char *sig, const char *src, size_t nlines, const struct reader_line *lines)
{
    struct fpl_buf *b = &g->rec;
    size_t r = fpl_rec_begin(b, FPL_REC_METHOD);
    fpl_put_v(b, id);
    fpl_put_u8(b, kind);
    fpl_put_str(b, cls);
    fpl_put_str(b, name);
    fpl_put_str(b, sig);
    fpl_put_str(b, src);
    fpl_put_v(b, nlines);
    for (size_t i = 0; i < nlines; i++) {
        fpl_put_v(b, lines[i].start_bci);
        fpl_put_v(b, lines[i].line);
    }
    fpl_rec_end(b, r);
}

void fplgen_stack(struct fplgen *g, uint64_t id, size_t n, const struct reader_frame *frames)
{
    size_t r = fpl_rec_begin(&g->rec, FPL_REC_STACK);
    fpl_put_v(&g->rec, id);
    fpl_put_v(&g->rec, n);
    int typed = 0;
    for (size_t i = 0; i < n; i++) {
        fpl_put_v(&g->rec, frames[i].method_id);
        fpl_put_sv(&g->rec, frames[i].bci);
        typed |= frames[i].type != FPL_FRAME_JAVA;
    }
    /* the optional type bytes, only when a frame has another type than JAVA (so the logs of
     * the older tests stay byte for byte what they were) */
    for (size_t i = 0; typed && i < n; i++)
        fpl_put_u8(&g->rec, frames[i].type);
    fpl_rec_end(&g->rec, r);
}

/* A SAMPLE, with the trailing tick id when with_tick is set, and the context id after it when
 * with_tick is 2. */
static void put_sample(struct fplgen *g, uint64_t ticks, uint64_t thread, uint64_t stack,
                       uint64_t weight, uint8_t kind, uint8_t state, int with_tick,
                       uint64_t tick_id, uint64_t context_id)
{
    size_t r = fpl_rec_begin(&g->rec, FPL_REC_SAMPLE);
    fpl_put_sv(&g->rec, (int64_t)(ticks - g->last_ticks));
    g->last_ticks = ticks;
    fpl_put_v(&g->rec, thread);
    fpl_put_v(&g->rec, stack);
    fpl_put_v(&g->rec, weight);
    fpl_put_u8(&g->rec, kind);
    fpl_put_u8(&g->rec, state);
    if (with_tick)
        fpl_put_v(&g->rec, tick_id);
    if (with_tick == 2)
        fpl_put_v(&g->rec, context_id);
    fpl_rec_end(&g->rec, r);
    g->samples++;
    g->weight += weight;
}

void fplgen_sample(struct fplgen *g, uint64_t ticks, uint64_t thread, uint64_t stack,
                   uint64_t weight, uint8_t kind, uint8_t state)
{
    put_sample(g, ticks, thread, stack, weight, kind, state, 0, 0, 0);
}

void fplgen_sample_tick(struct fplgen *g, uint64_t ticks, uint64_t thread, uint64_t stack,
                        uint64_t weight, uint8_t kind, uint8_t state, uint64_t tick_id)
{
    put_sample(g, ticks, thread, stack, weight, kind, state, 1, tick_id, 0);
}

void fplgen_sample_ctx(struct fplgen *g, uint64_t ticks, uint64_t thread, uint64_t stack,
                       uint64_t weight, uint8_t kind, uint8_t state, uint64_t tick_id,
                       uint64_t context_id)
{
    put_sample(g, ticks, thread, stack, weight, kind, state, 2, tick_id, context_id);
}

void fplgen_context(struct fplgen *g, uint64_t id, uint64_t span, uint64_t root)
{
    size_t r = fpl_rec_begin(&g->rec, FPL_REC_CONTEXT);
    fpl_put_v(&g->rec, id);
    fpl_put_v(&g->rec, span);
    fpl_put_v(&g->rec, root);
    fpl_rec_end(&g->rec, r);
}

void fplgen_endpoint(struct fplgen *g, uint64_t root, const char *name)
{
    size_t r = fpl_rec_begin(&g->rec, FPL_REC_ENDPOINT);
    fpl_put_v(&g->rec, root);
    fpl_put_str(&g->rec, name);
    fpl_rec_end(&g->rec, r);
}

void fplgen_wall_tick(struct fplgen *g, uint64_t id, uint64_t ticks, uint64_t candidates,
                      uint64_t chosen, uint64_t signaled, uint64_t failed)
{
    size_t r = fpl_rec_begin(&g->rec, FPL_REC_WALL_TICK);
    fpl_put_v(&g->rec, id);
    fpl_put_u64(&g->rec, ticks);
    fpl_put_v(&g->rec, candidates);
    fpl_put_v(&g->rec, chosen);
    fpl_put_v(&g->rec, signaled);
    fpl_put_v(&g->rec, failed);
    fpl_rec_end(&g->rec, r);
}

void fplgen_counters(struct fplgen *g, size_t n, const struct reader_counter *c)
{
    size_t r = fpl_rec_begin(&g->rec, FPL_REC_COUNTERS);
    fpl_put_v(&g->rec, n);
    for (size_t i = 0; i < n; i++) {
        fpl_put_v(&g->rec, c[i].id);
        fpl_put_v(&g->rec, c[i].value);
    }
    fpl_rec_end(&g->rec, r);
}

void fplgen_hist(struct fplgen *g, size_t n, const uint64_t *buckets, uint64_t max_ns,
                 uint64_t total_ns)
{
    size_t r = fpl_rec_begin(&g->rec, FPL_REC_HANDLER_HIST);
    fpl_put_v(&g->rec, n);
    for (size_t i = 0; i < n; i++)
        fpl_put_v(&g->rec, buckets[i]);
    fpl_put_v(&g->rec, max_ns);
    fpl_put_v(&g->rec, total_ns);
    fpl_rec_end(&g->rec, r);
}

void fplgen_end(struct fplgen *g, uint64_t ticks)
{
    size_t r = fpl_rec_begin(&g->rec, FPL_REC_END);
    fpl_put_u64(&g->rec, ticks);
    fpl_rec_end(&g->rec, r);
}

void fplgen_record(struct fplgen *g, uint8_t type, const void *body, size_t n)
{
    fpl_put_u8(&g->rec, type);
    fpl_put_v(&g->rec, n);
    fpl_put_bytes(&g->rec, body, n);
}

void fplgen_raw(struct fplgen *g, const void *p, size_t n)
{
    fpl_put_bytes(&g->rec, p, n);
}

int fplgen_flush(struct fplgen *g)
{
    if (g->rec.failed)
        return -ENOMEM;
    if (g->nchunks == g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 16;
        struct fplgen_chunk *c = realloc(g->chunks, cap * sizeof(*c));
        if (!c)
            return -ENOMEM;
        g->chunks = c;
        g->cap = cap;
    }
    int rc = fpl_chunk_write(g->fd, g->seq++, g->rec.data, g->rec.len);
    if (rc)
        return rc;
    struct fplgen_chunk *c = &g->chunks[g->nchunks++];
    c->start = g->size;
    c->end = g->size + FPL_CHUNK_HEADER_SIZE + g->rec.len;
    c->samples = g->samples;
    c->weight = g->weight;
    g->size = c->end;
    g->rec.len = 0;
    g->last_ticks = 0;
    g->samples = g->weight = 0;
    return 0;
}

uint8_t *fplgen_bytes(struct fplgen *g, size_t *len)
{
    uint8_t *p = malloc(g->size ? g->size : 1);
    if (!p)
        return NULL;
    size_t got = 0;
    while (got < g->size) {
        ssize_t n = pread(g->fd, p + got, g->size - got, (off_t)got);
        if (n <= 0) {
            free(p);
            return NULL;
        }
        got += (size_t)n;
    }
    *len = g->size;
    return p;
}

int fplgen_write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    const uint8_t *p = data;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            int e = -errno;
            close(fd);
            return e;
        }
        p += n;
        len -= (size_t)n;
    }
    return close(fd) ? -errno : 0;
}

int fplgen_save(struct fplgen *g, const char *path)
{
    size_t len;
    uint8_t *p = fplgen_bytes(g, &len);
    if (!p)
        return -ENOMEM;
    int rc = fplgen_write_file(path, p, len);
    free(p);
    return rc;
}
