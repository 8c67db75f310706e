/* fuzz_mutator.c: structure-aware mutation of .fpl logs (see fuzz_mutator.h). */
#include "fuzz_mutator.h"

#include <stdlib.h>
#include <string.h>

#include "fpl_chunk.h"
#include "fpl_format.h"

#define MAX_CHUNKS 256

struct chunk {
    const uint8_t *payload;
    size_t len;
    uint32_t seq;
};

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? (uint32_t)(rng % n) : 0;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Splits data into chunks; returns their number, 0 when it is not a log. */
static size_t parse(const uint8_t *data, size_t size, struct chunk *c, size_t *tail)
{
    if (size < FPL_PREAMBLE_SIZE || memcmp(data, FPL_MAGIC, 8) != 0)
        return 0;
    size_t n = 0, off = FPL_PREAMBLE_SIZE;
    while (n < MAX_CHUNKS && off + FPL_CHUNK_HEADER_SIZE <= size) {
        uint32_t len = le32(data + off + 4);
        if (le32(data + off) != FPL_CHUNK_SYNC || len > size - off - FPL_CHUNK_HEADER_SIZE)
            break;
        c[n].payload = data + off + FPL_CHUNK_HEADER_SIZE;
        c[n].len = len;
        c[n].seq = le32(data + off + 12);
        n++;
        off += FPL_CHUNK_HEADER_SIZE + len;
    }
    *tail = off;
    return n;
}

/* One record at p[0..n): its total length (type, varint length, body), 0 when malformed;
 * *body and *body_len locate the body. */
static size_t record_at(const uint8_t *p, size_t n, size_t *body, size_t *body_len)
{
    if (n < 2)
        return 0;
    uint64_t len = 0;
    size_t i = 1;
    for (int shift = 0; i < n && shift < 64; shift += 7) {
        uint8_t b = p[i++];
        len |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            if (len > n - i)
                return 0;
            *body = i;
            *body_len = (size_t)len;
            return i + (size_t)len;
        }
    }
    return 0;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
    size_t i = 0;
    while (v >= 0x80) {
        p[i++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[i++] = (uint8_t)v;
    return i;
}

/* The offsets of the records of a payload (up to max). */
static size_t records(const uint8_t *p, size_t n, size_t *offs, size_t max)
{
    size_t k = 0, off = 0, body, blen;
    while (k < max && off < n) {
        size_t r = record_at(p + off, n - off, &body, &blen);
        if (!r)
            break;
        offs[k++] = off;
        off += r;
    }
    return k;
}

/* Mutates a payload into out (capacity cap); returns its new length. */
static size_t mutate_payload(const struct chunk *all, size_t nall, const struct chunk *c,
                             uint8_t *out, size_t cap)
{
    size_t offs[4096];
    size_t nrec = records(c->payload, c->len, offs, 4096);
    uint32_t how = nrec ? rnd(8) : 0;
    if (how <= 1 || c->len > cap) {
        /* raw bytes of the payload: records that run past it, bad varints */
        size_t n = c->len < cap ? c->len : cap;
        memcpy(out, c->payload, n);
        return LLVMFuzzerMutate(out, n, cap);
    }
    size_t pick = rnd((uint32_t)nrec);
    size_t body, blen;
    size_t rlen = record_at(c->payload + offs[pick], c->len - offs[pick], &body, &blen);
    size_t o = 0;
    memcpy(out, c->payload, offs[pick]);
    o = offs[pick];
    if (how <= 5) {
        /* one record's body, re-framed with its new length: the decoders see it */
        uint8_t *nb = malloc(blen * 2 + 64);
        if (!nb)
            return 0;
        memcpy(nb, c->payload + offs[pick] + body, blen);
        size_t nlen = LLVMFuzzerMutate(nb, blen, blen * 2 + 64);
        if (o + 11 + nlen > cap) {
            free(nb);
            return 0;
        }
        out[o++] = c->payload[offs[pick]];
        o += put_varint(out + o, nlen);
        memcpy(out + o, nb, nlen);
        o += nlen;
        free(nb);
    } else if (how == 6) {
        /* another type byte for the same body: a decoder meets a body not its own */
        if (o + rlen > cap)
            return 0;
        memcpy(out + o, c->payload + offs[pick], rlen);
        out[o] = (uint8_t)(1 + rnd(12));
        o += rlen;
    } else {
        /* a record copied from another chunk (a dictionary entry twice, a sample whose
         * dictionary entries are elsewhere) */
        const struct chunk *d = &all[rnd((uint32_t)nall)];
        size_t doffs[256];
        size_t nd = records(d->payload, d->len, doffs, 256);
        if (nd) {
            size_t q = rnd((uint32_t)nd), b2, l2;
            size_t r2 = record_at(d->payload + doffs[q], d->len - doffs[q], &b2, &l2);
            if (o + r2 <= cap) {
                memcpy(out + o, d->payload + doffs[q], r2);
                o += r2;
            }
        }
        if (o + rlen > cap)
            return 0;
        memcpy(out + o, c->payload + offs[pick], rlen);
        o += rlen;
    }
    size_t rest = c->len - offs[pick] - rlen;
    if (o + rest > cap)
        return 0;
    memcpy(out + o, c->payload + offs[pick] + rlen, rest);
    return o + rest;
}

static size_t frame(uint8_t *out, size_t cap, uint32_t seq, const uint8_t *payload, size_t len)
{
    if (FPL_CHUNK_HEADER_SIZE + len > cap)
        return 0;
    uint8_t seq_le[4];
    put_le32(seq_le, seq);
    put_le32(out, FPL_CHUNK_SYNC);
    put_le32(out + 4, (uint32_t)len);
    put_le32(out + 8, fpl_chunk_crc_framed(seq_le, payload, len));
    put_le32(out + 12, seq);
    memmove(out + FPL_CHUNK_HEADER_SIZE, payload, len);
    return FPL_CHUNK_HEADER_SIZE + len;
}

size_t fuzz_mutate_log(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    rng = (uint64_t)seed * 0x9e3779b97f4a7c15ull + 1;
    static struct chunk c[MAX_CHUNKS];
    size_t tail;
    size_t n = parse(data, size, c, &tail);
    if (!n || rnd(16) == 0)
        return LLVMFuzzerMutate(data, size, max_size); /* damage, or not a log at all */
    uint8_t *out = malloc(max_size);
    uint8_t *scratch = malloc(max_size);
    if (!out || !scratch) {
        free(out);
        free(scratch);
        return size;
    }
    memcpy(out, data, FPL_PREAMBLE_SIZE);
    size_t o = FPL_PREAMBLE_SIZE;
    uint32_t op = rnd(10);
    size_t target = rnd((uint32_t)n), other = rnd((uint32_t)n);
    int renumber = rnd(2);
    uint32_t seq = c[0].seq;
    for (size_t i = 0; i < n; i++) {
        size_t k = i;
        if (op == 2 && i == target)
            continue;                               /* a chunk lost */
        if (op == 3 && (i == target || i == other))
            k = i == target ? other : target;       /* two chunks swapped */
        const uint8_t *payload = c[k].payload;
        size_t len = c[k].len;
        if (op >= 5 && i == target) {
            len = mutate_payload(c, n, &c[k], scratch, max_size / 2);
            payload = scratch;
        }
        uint32_t s = renumber ? seq++ : c[k].seq;
        size_t f = frame(out + o, max_size - o, s, payload, len);
        if (!f)
            break;
        o += f;
        if (op == 4 && i == target) {               /* a chunk written twice */
            f = frame(out + o, max_size - o, renumber ? seq++ : c[k].seq, payload, len);
            o += f;
        }
    }
    if (op == 1 && o > FPL_PREAMBLE_SIZE + 1)
        o -= 1 + rnd((uint32_t)(o - FPL_PREAMBLE_SIZE - 1)); /* cut off, as by a crash */
    (void)tail;
    memcpy(data, out, o);
    free(out);
    free(scratch);
    return o;
}
