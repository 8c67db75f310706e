/* out_hlog.c: HdrHistogram interval logs (out_hlog.h). */
#include "out_hlog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>

#define V2_COOKIE 0x1c849303u            /* HdrHistogram's V2EncodingCookieBase */
#define V2_COMPRESSED_COOKIE 0x1c849304u /* V2CompressedEncodingCookieBase */
#define COOKIE_WORD 0x10u                /* V2 marks its (LEB128) word size this way */
#define HEADER_SIZE 40

struct out_hlog {
    FILE *f;
    char *path;
    uint64_t base_ns;
};

struct bytes {
    unsigned char *p;
    size_t len, cap;
};

static int put(struct bytes *b, const void *src, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 1024;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p)
            return -ENOMEM;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
    return 0;
}

static int put_be32(struct bytes *b, uint32_t v)
{
    unsigned char t[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 8), (unsigned char)v};
    return put(b, t, 4);
}

static int put_be64(struct bytes *b, uint64_t v)
{
    int rc = put_be32(b, (uint32_t)(v >> 32));
    return rc ? rc : put_be32(b, (uint32_t)v);
}

/* HdrHistogram's ZigZag LEB128-64b9B: 7 bits a byte, least significant first, except that a
 * ninth byte carries the last 8 bits whole. */
static int put_zigzag(struct bytes *b, int64_t x)
{
    uint64_t v = ((uint64_t)x << 1) ^ (uint64_t)(x >> 63);
    unsigned char t[9];
    size_t n = 0;
    while (n < 8 && v >> 7) {
        t[n++] = (unsigned char)((v & 0x7f) | 0x80);
        v >>= 7;
    }
    t[n++] = (unsigned char)v;
    return put(b, t, n);
}

/* The uncompressed V2 encoding of hist. */
static int encode_v2(const struct hdr *hist, struct bytes *b)
{
    unsigned used = hdr_used(hist);
    double ratio = 1.0;
    uint64_t ratio_bits;
    memcpy(&ratio_bits, &ratio, sizeof(ratio_bits));
    int rc = put_be32(b, V2_COOKIE | COOKIE_WORD);
    rc = rc ? rc : put_be32(b, 0); /* payload length, filled in below */
    rc = rc ? rc : put_be32(b, 0); /* normalizing index offset */
    rc = rc ? rc : put_be32(b, FPL_HDR_DIGITS);
    rc = rc ? rc : put_be64(b, FPL_HDR_LOWEST);
    rc = rc ? rc : put_be64(b, FPL_HDR_HIGHEST);
    rc = rc ? rc : put_be64(b, ratio_bits);
    for (unsigned i = 0; !rc && i < used;) {
        uint64_t c = hist->counts[i++];
        if (c) {
            rc = put_zigzag(b, (int64_t)c);
            continue;
        }
        int64_t zeros = 1;
        while (i < used && !hist->counts[i]) {
            zeros++;
            i++;
        }
        rc = put_zigzag(b, zeros > 1 ? -zeros : 0);
    }
    if (rc)
        return rc;
    uint32_t payload = (uint32_t)(b->len - HEADER_SIZE);
    unsigned char t[4] = {(unsigned char)(payload >> 24), (unsigned char)(payload >> 16),
                          (unsigned char)(payload >> 8), (unsigned char)payload};
    memcpy(b->p + 4, t, 4);
    return 0;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int out_hlog_encode(const struct hdr *hist, char **out)
{
    struct bytes raw = {0}, z = {0};
    int rc = encode_v2(hist, &raw);
    uLongf zlen = compressBound(raw.len);
    if (!rc && (rc = put_be32(&z, V2_COMPRESSED_COOKIE | COOKIE_WORD)) == 0 &&
        (rc = put_be32(&z, 0)) == 0) {
        unsigned char *dst = malloc(zlen);
        if (!dst) {
            rc = -ENOMEM;
        } else if (compress2(dst, &zlen, raw.p, raw.len, Z_BEST_COMPRESSION) != Z_OK) {
            rc = -EIO;
        } else {
            rc = put(&z, dst, zlen);
            unsigned char t[4] = {(unsigned char)(zlen >> 24), (unsigned char)(zlen >> 16),
                                  (unsigned char)(zlen >> 8), (unsigned char)zlen};
            if (!rc)
                memcpy(z.p + 4, t, 4);
        }
        free(dst);
    }
    char *s = rc ? NULL : malloc((z.len + 2) / 3 * 4 + 1);
    if (!rc && !s)
        rc = -ENOMEM;
    if (!rc) {
        size_t j = 0;
        for (size_t i = 0; i < z.len; i += 3) {
            uint32_t v = (uint32_t)z.p[i] << 16;
            if (i + 1 < z.len)
                v |= (uint32_t)z.p[i + 1] << 8;
            if (i + 2 < z.len)
                v |= z.p[i + 2];
            s[j++] = b64[v >> 18];
            s[j++] = b64[(v >> 12) & 63];
            s[j++] = i + 1 < z.len ? b64[(v >> 6) & 63] : '=';
            s[j++] = i + 2 < z.len ? b64[v & 63] : '=';
        }
        s[j] = 0;
        *out = s;
    }
    free(raw.p);
    free(z.p);
    return rc;
}

/* "seconds.millis" of ns, as HdrHistogram's writer prints times. */
static void secs(char *buf, size_t len, uint64_t ns)
{
    snprintf(buf, len, "%llu.%03llu", (unsigned long long)(ns / 1000000000ull),
             (unsigned long long)(ns / 1000000ull % 1000));
}

int out_hlog_open(struct out_hlog **h, const char *path, uint64_t start_ns, const char *comment,
                  char *err, size_t errlen)
{
    struct out_hlog *o = calloc(1, sizeof(*o));
    if (!o || !(o->path = strdup(path))) {
        free(o);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    o->f = fopen(path, "w");
    if (!o->f) {
        int e = errno;
        snprintf(err, errlen, "cannot create '%s': %s", path, strerror(e));
        free(o->path);
        free(o);
        return -e;
    }
    /* The base is printed to the millisecond and each start is printed relative to it: a base
     * kept whole would let both truncations add up (a reader's start could be 2 ms early). */
    o->base_ns = start_ns - start_ns % 1000000ull;
    char s[32], date[64] = "";
    time_t t = (time_t)(start_ns / 1000000000ull);
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(date, sizeof(date), "%a %b %d %H:%M:%S %Z %Y", &tm);
    secs(s, sizeof(s), start_ns);
    if (comment)
        fprintf(o->f, "#%s\n", comment);
    fprintf(o->f, "#[Histogram log format version 1.3]\n");
    fprintf(o->f, "#[StartTime: %s (seconds since epoch), %s]\n", s, date);
    fprintf(o->f, "#[BaseTime: %s (seconds since epoch)]\n", s);
    fprintf(o->f, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                  "\"Interval_Compressed_Histogram\"\n");
    if (fflush(o->f) != 0) {
        int e = errno;
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(e));
        out_hlog_close(o, NULL, 0);
        return -e;
    }
    *h = o;
    return 0;
}

int out_hlog_write(struct out_hlog *h, const char *tag, uint64_t start_ns, uint64_t length_ns,
                   const struct hdr *hist, char *err, size_t errlen)
{
    char *enc = NULL, s[32], l[32];
    int rc = out_hlog_encode(hist, &enc);
    if (rc) {
        snprintf(err, errlen, "encoding a histogram for '%s': %s", h->path, strerror(-rc));
        return rc;
    }
    /* the end is cut to the millisecond as the start is, so that an interval ends in the
     * file exactly where the next one starts (a length cut on its own could open a 2 ms gap) */
    uint64_t from = start_ns >= h->base_ns ? start_ns - h->base_ns : 0, to = from + length_ns;
    secs(s, sizeof(s), from);
    secs(l, sizeof(l), to / 1000000ull * 1000000ull - from / 1000000ull * 1000000ull);
    if (tag)
        fprintf(h->f, "Tag=%s,", tag);
    fprintf(h->f, "%s,%s,%.3f,%s\n", s, l, (double)hist->max / 1e6, enc);
    free(enc);
    if (fflush(h->f) != 0 || ferror(h->f)) {
        int e = errno ? errno : EIO;
        snprintf(err, errlen, "cannot write '%s': %s", h->path, strerror(e));
        return -e;
    }
    return 0;
}

int out_hlog_close(struct out_hlog *h, char *err, size_t errlen)
{
    if (!h)
        return 0;
    int rc = 0;
    if (ferror(h->f) | fclose(h->f)) {
        rc = -(errno ? errno : EIO);
        if (err)
            snprintf(err, errlen, "cannot write '%s': %s", h->path, strerror(-rc));
    }
    free(h->path);
    free(h);
    return rc;
}
