/* fpl_codec.h: varint and fixed-width encoding for the .fpl format, shared by the agent's
 * writer (encode into a growable buffer) and the collector's reader (bounds-checked decode).
 * Not for signal handlers: the encoder may realloc.
 */
#ifndef FPL_CODEC_H
#define FPL_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A growable byte buffer. Zero-initialize; fpl_buf_free releases. On allocation failure
 * `failed` is set and further writes are ignored, so callers check once per chunk. */
struct fpl_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    int failed;
};

static inline int fpl_buf_reserve(struct fpl_buf *b, size_t more)
{
    if (b->failed)
        return -1;
    if (b->len + more <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + more)
        cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

static inline void fpl_buf_free(struct fpl_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof(*b));
}

static inline void fpl_put_bytes(struct fpl_buf *b, const void *p, size_t n)
{
    if (fpl_buf_reserve(b, n) == 0) {
        if (n)
            memcpy(b->data + b->len, p, n);
        b->len += n;
    }
}

static inline void fpl_put_u8(struct fpl_buf *b, uint8_t v)
{
    fpl_put_bytes(b, &v, 1);
}

static inline void fpl_put_u32(struct fpl_buf *b, uint32_t v)
{
    uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    fpl_put_bytes(b, t, 4);
}

static inline void fpl_put_u64(struct fpl_buf *b, uint64_t v)
{
    fpl_put_u32(b, (uint32_t)v);
    fpl_put_u32(b, (uint32_t)(v >> 32));
}

static inline void fpl_put_v(struct fpl_buf *b, uint64_t v)
{
    uint8_t t[10];
    size_t n = 0;
    do {
        uint8_t byte = v & 0x7f;
        v >>= 7;
        t[n++] = byte | (v ? 0x80 : 0);
    } while (v);
    fpl_put_bytes(b, t, n);
}

static inline void fpl_put_sv(struct fpl_buf *b, int64_t v)
{
    fpl_put_v(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline void fpl_put_str(struct fpl_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    fpl_put_v(b, n);
    fpl_put_bytes(b, s, n);
}

/* Starts a record: writes its type and a placeholder length. Returns the body offset to pass
 * to fpl_rec_end once the fields are written. */
static inline size_t fpl_rec_begin(struct fpl_buf *b, uint8_t type)
{
    fpl_put_u8(b, type);
    fpl_put_u8(b, 0);
    return b->len;
}

/* Ends the record begun at body offset start: writes its body length, moving the body when
 * the length needs more than one byte. */
static inline void fpl_rec_end(struct fpl_buf *b, size_t start)
{
    if (b->failed || start == 0 || start > b->len)
        return;
    uint64_t len = b->len - start;
    uint8_t t[10];
    size_t n = 0;
    do {
        uint8_t byte = len & 0x7f;
        len >>= 7;
        t[n++] = byte | (len ? 0x80 : 0);
    } while (len);
    if (n > 1) {
        if (fpl_buf_reserve(b, n - 1) != 0)
            return;
        memmove(b->data + start + n - 1, b->data + start, b->len - start);
        b->len += n - 1;
    }
    memcpy(b->data + start - 1, t, n);
}

/* A read cursor over [p, end). Every getter checks bounds; after the first failure `bad` is
 * set, getters return 0 / empty and the caller checks `bad` once per record. */
struct fpl_cur {
    const uint8_t *p;
    const uint8_t *end;
    int bad;
};

static inline uint8_t fpl_get_u8(struct fpl_cur *c)
{
    if (c->bad || c->p >= c->end) {
        c->bad = 1;
        return 0;
    }
    return *c->p++;
}

static inline uint32_t fpl_get_u32(struct fpl_cur *c)
{
    if (c->bad || c->end - c->p < 4) {
        c->bad = 1;
        return 0;
    }
    uint32_t v = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 |
                 (uint32_t)c->p[3] << 24;
    c->p += 4;
    return v;
}

static inline uint64_t fpl_get_u64(struct fpl_cur *c)
{
    uint64_t lo = fpl_get_u32(c);
    uint64_t hi = fpl_get_u32(c);
    return lo | hi << 32;
}

static inline uint64_t fpl_get_v(struct fpl_cur *c)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (c->bad || c->p >= c->end) {
            c->bad = 1;
            return 0;
        }
        uint8_t byte = *c->p++;
        if (shift == 63 && byte > 1) {
            c->bad = 1; /* the 10th byte holds only bit 63 */
            return 0;
        }
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return v;
    }
    c->bad = 1; /* more than 10 bytes */
    return 0;
}

static inline int64_t fpl_get_sv(struct fpl_cur *c)
{
    uint64_t u = fpl_get_v(c);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* Returns a pointer into the buffer (not NUL-terminated) and its length in *len. */
static inline const char *fpl_get_str(struct fpl_cur *c, size_t *len)
{
    uint64_t n = fpl_get_v(c);
    if (c->bad || n > (uint64_t)(c->end - c->p)) {
        c->bad = 1;
        *len = 0;
        return "";
    }
    const char *s = (const char *)c->p;
    c->p += n;
    *len = (size_t)n;
    return s;
}

#endif
