/* fpl_hash.h: the one hash function of flyprof, for hash tables in the agent's writer
 * (agent/writer/keymap.c) and in the collector (collector/model/hashtab.h and its users). Not a
 * checksum and not part of the log format: nothing stores a hash, so it may change freely.
 *
 * fpl_hash_u64 is a 64-bit finalizer (xor-shift-multiply, the constants of MurmurHash3's fmix64):
 * every input bit affects every output bit, so the low bits that index a table are as good as
 * the high ones, even for keys like small dense ids. fpl_hash_bytes folds a byte string eight
 * bytes at a time (a multiply and a shift per word, the tail zero-padded, the length mixed in
 * so "a" and "a\0" differ) and ends with fpl_hash_u64. fpl_hash_mix combines a hash with one
 * more word, for keys made of several fields.
 *
 * Header only (static inline): the agent's keymap and its unit test compile it in without
 * linking the collector. Pure functions: any thread, but not meant for signal handlers (no
 * handler hashes anything).
 */
#ifndef FPL_HASH_H
#define FPL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t fpl_hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* The hash of h followed by the word v. Not commutative: (a, b) and (b, a) differ. */
static inline uint64_t fpl_hash_mix(uint64_t h, uint64_t v)
{
    return fpl_hash_u64(h * 0x9e3779b97f4a7c15ull ^ v);
}

static inline uint64_t fpl_hash_bytes(const void *data, size_t len)
{
    const uint8_t *p = data;
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (len * 0xff51afd7ed558ccdull);
    while (len >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        h = (h ^ v) * 0xc4ceb9fe1a85ec53ull;
        h ^= h >> 29;
        p += 8;
        len -= 8;
    }
    uint64_t v = 0;
    if (len) /* the empty key may come with a NULL pointer */
        memcpy(&v, p, len);
    return fpl_hash_u64(h ^ v);
}

static inline uint64_t fpl_hash_str(const char *s)
{
    return fpl_hash_bytes(s, strlen(s));
}

#endif
