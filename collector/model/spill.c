/* spill.c: samples kept in a temporary file (spill.h). */
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SPILL_BUF (1u << 20)
#define SPILL_REC_MAX 40 /* a record's bytes at most: 5 + 10 + 10 + 10, rounded up */
#define ONE_SAMPLE ((unsigned __int128)1 << 32) /* the weight of one sample (fixed point) */

struct spill {
    int fd;
    int err;             /* the first write error, negative errno */
    uint8_t *buf;        /* appended records not yet written, or the read window */
    size_t len;          /* bytes in buf */
    size_t pos;          /* reading: the next byte of buf */
    int eof;             /* reading: the file has no more bytes */
    uint64_t n, left;    /* records appended; records left to read */
    uint64_t written;    /* bytes in the file */
    uint64_t last_ticks; /* the previous record's, writing and reading */
};

int spill_new(const char *dir, struct spill **out)
{
    char path[4096];
    if (!dir || !*dir)
        dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    int n = snprintf(path, sizeof(path), "%s/flyprof-spill-XXXXXX", dir);
    if (n < 0 || (size_t)n >= sizeof(path))
        return -ENAMETOOLONG;
    struct spill *s = calloc(1, sizeof(*s));
    if (!s)
        return -ENOMEM;
    s->buf = malloc(SPILL_BUF);
    if (!s->buf) {
        free(s);
        return -ENOMEM;
    }
    s->fd = mkostemp(path, O_CLOEXEC);
    if (s->fd < 0) {
        int rc = -errno;
        free(s->buf);
        free(s);
        return rc;
    }
    unlink(path); /* the file lives as long as the descriptor */
    *out = s;
    return 0;
}

void spill_free(struct spill *s)
{
    if (!s)
        return;
    close(s->fd);
    free(s->buf);
    free(s);
}

static uint8_t *put_v(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Writes buf[0, len) at the file's end. */
static int flush(struct spill *s)
{
    size_t off = 0;
    while (off < s->len) {
        ssize_t w = write(s->fd, s->buf + off, s->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? -errno : -EIO;
        off += (size_t)w;
        s->written += (uint64_t)w;
    }
    s->len = 0;
    return 0;
}

int spill_add(struct spill *s, uint32_t cell, uint64_t ticks, unsigned __int128 fp)
{
    if (s->err)
        return s->err;
    if (SPILL_BUF - s->len < SPILL_REC_MAX && (s->err = flush(s)) != 0)
        return s->err;
    int64_t d = (int64_t)(ticks - s->last_ticks);
    int one = fp == ONE_SAMPLE;
    uint8_t *p = s->buf + s->len;
    p = put_v(p, (uint64_t)cell << 1 | (uint64_t)one);
    p = put_v(p, ((uint64_t)d << 1) ^ (uint64_t)(d >> 63));
    if (!one) {
        uint64_t whole = (uint64_t)(fp >> 32);
        p = put_v(p, fp >> 96 ? UINT64_MAX : whole); /* beyond 2^64 samples: saturated */
        p = put_v(p, (uint32_t)fp);
    }
    s->len = (size_t)(p - s->buf);
    s->last_ticks = ticks;
    s->n++;
    return 0;
}

uint64_t spill_count(const struct spill *s)
{
    return s->n;
}

int spill_error(const struct spill *s, uint64_t *written)
{
    if (written)
        *written = s->written;
    return s->err;
}

int spill_rewind(struct spill *s)
{
    if (s->err)
        return s->err;
    if ((s->err = flush(s)) != 0)
        return s->err;
    if (lseek(s->fd, 0, SEEK_SET) < 0)
        return s->err = -errno;
    s->len = s->pos = 0;
    s->eof = 0;
    s->left = s->n;
    s->last_ticks = 0;
    return 0;
}

/* Moves what is left of the window to its start and reads after it. */
static int refill(struct spill *s)
{
    memmove(s->buf, s->buf + s->pos, s->len - s->pos);
    s->len -= s->pos;
    s->pos = 0;
    while (!s->eof && s->len < SPILL_BUF) {
        ssize_t r = read(s->fd, s->buf + s->len, SPILL_BUF - s->len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            s->eof = 1;
        s->len += (size_t)r;
    }
    return 0;
}

/* A varint at buf[pos], or -EBADMSG past the window or beyond 64 bits. */
static int get_v(struct spill *s, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (s->pos >= s->len)
            return -EBADMSG;
        uint8_t b = s->buf[s->pos++];
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -EBADMSG;
}

int spill_next(struct spill *s, struct spill_rec *r)
{
    int rc;
    if (!s->left)
        return 0;
    if (s->len - s->pos < SPILL_REC_MAX && !s->eof && (rc = refill(s)) != 0)
        return rc;
    uint64_t head, zz, whole = 1, frac = 0;
    if ((rc = get_v(s, &head)) || (rc = get_v(s, &zz)))
        return rc;
    if (!(head & 1) && ((rc = get_v(s, &whole)) || (rc = get_v(s, &frac))))
        return rc;
    if (head >> 1 > UINT32_MAX || frac > UINT32_MAX)
        return -EBADMSG;
    s->last_ticks += (zz >> 1) ^ (0 - (zz & 1)); /* zigzag */
    r->cell = (uint32_t)(head >> 1);
    r->ticks = s->last_ticks;
    r->fp = (unsigned __int128)whole << 32 | frac;
    s->left--;
    return 1;
}
