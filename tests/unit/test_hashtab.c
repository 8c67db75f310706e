/* test_hashtab: the one hash function (collector/format/fpl_hash.h), shared with the agent's
 * writer (agent/writer/keymap.c), and the collector's one hash table (collector/model/hashtab.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_hash.h"
#include "harness.h"
#include "hashtab.h"
#include "keymap.h"

static int popcount64(uint64_t x)
{
    return __builtin_popcountll(x);
}

/* Every input bit matters, and flipping one flips about half of the output bits. */
static void test_hash_avalanche(void)
{
    uint8_t key[37];
    for (size_t i = 0; i < sizeof(key); i++)
        key[i] = (uint8_t)(i * 7 + 3);
    uint64_t h0 = fpl_hash_bytes(key, sizeof(key));
    long flipped = 0, trials = 0;
    int all_differ = 1;
    for (size_t bit = 0; bit < sizeof(key) * 8; bit++) {
        key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        uint64_t h = fpl_hash_bytes(key, sizeof(key));
        key[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        all_differ &= h != h0;
        flipped += popcount64(h ^ h0);
        trials++;
    }
    CHECK(all_differ);
    /* 32 of 64 bits expected; a hash without a final mix flips far fewer */
    double mean = (double)flipped / (double)trials;
    CHECK(mean > 28 && mean < 36);

    /* the same for the word hash and for the mix of several words */
    flipped = 0;
    for (int bit = 0; bit < 64; bit++)
        flipped += popcount64(fpl_hash_u64(12345) ^ fpl_hash_u64(12345 ^ (1ull << bit)));
    CHECK(flipped / 64.0 > 28 && flipped / 64.0 < 36);
    CHECK(fpl_hash_mix(1, 2) != fpl_hash_mix(2, 1));
}

/* Lengths count: a key and the same key with a zero byte more hash apart; the empty key is a
 * key; every tail length reads only its own bytes. */
static void test_hash_lengths(void)
{
    uint8_t buf[32] = {0};
    uint64_t seen[33];
    int distinct = 1;
    for (size_t n = 0; n <= 32; n++) {
        seen[n] = fpl_hash_bytes(buf, n);
        for (size_t k = 0; k < n; k++)
            distinct &= seen[k] != seen[n];
    }
    CHECK(distinct);
    CHECK(fpl_hash_str("abc") == fpl_hash_bytes("abc", 3));
    /* bytes past the length do not matter */
    char a[16] = "abcdefghij", b[16] = "abcdefghiXYZ";
    CHECK(fpl_hash_bytes(a, 9) == fpl_hash_bytes(b, 9));
    CHECK(fpl_hash_bytes(a, 10) != fpl_hash_bytes(b, 10));
}

/* Dense ids (thread, stack and method ids are small counters) spread evenly over the low bits
 * a table indexes with. */
static void test_hash_low_bits(void)
{
    enum { BUCKETS = 1024, KEYS = 1 << 20 };
    static uint32_t count[BUCKETS];
    for (uint64_t id = 1; id <= KEYS; id++)
        count[fpl_hash_u64(id) & (BUCKETS - 1)]++;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (int i = 0; i < BUCKETS; i++) {
        lo = count[i] < lo ? count[i] : lo;
        hi = count[i] > hi ? count[i] : hi;
    }
    /* 1024 per bucket expected, sd 32: 20% either way is > 6 sd */
    CHECK(lo > 1024 * 8 / 10 && hi < 1024 * 12 / 10);
}

/* The agent's writer dedups with the same function (keymap_hash never returns 0, its empty
 * slot marker). */
static void test_keymap_same_hash(void)
{
    const char *keys[] = {"", "a", "java.lang.Thread.run", "0123456789abcdef0123"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        uint64_t h = fpl_hash_str(keys[i]);
        CHECK(keymap_hash(keys[i], strlen(keys[i])) == (h ? h : 1));
    }
}

struct elem {
    uint64_t key;
};

static uint32_t find(const struct hashtab *t, const struct elem *e, uint64_t key, uint64_t h)
{
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(t, h, &pr); k != HASHTAB_NONE; k = hashtab_next(t, &pr))
        if (e[k].key == key)
            return k;
    return HASHTAB_NONE;
}

/* A million keys in, all found at their element, none that was not added. */
static void test_table_many(void)
{
    enum { N = 1000000 };
    struct hashtab t = {0};
    struct elem *e = calloc(N, sizeof(*e));
    if (!e) {
        CHECK(!"out of memory");
        return;
    }
    CHECK(find(&t, e, 1, fpl_hash_u64(1)) == HASHTAB_NONE); /* empty, never allocated */
    int ok = 1;
    for (uint32_t i = 0; i < N; i++) {
        e[i].key = (uint64_t)i * 2654435761u + 17;
        ok &= find(&t, e, e[i].key, fpl_hash_u64(e[i].key)) == HASHTAB_NONE;
        ok &= hashtab_add(&t, fpl_hash_u64(e[i].key), i) == 0;
    }
    CHECK(ok);
    CHECK_EQ_U(t.n, N);
    for (uint32_t i = 0; i < N; i++)
        ok &= find(&t, e, e[i].key, fpl_hash_u64(e[i].key)) == i;
    CHECK(ok);
    for (uint32_t i = 0; i < 1000; i++) {
        uint64_t k = (uint64_t)i * 2654435761u + 18; /* never added */
        ok &= find(&t, e, k, fpl_hash_u64(k)) == HASHTAB_NONE;
    }
    CHECK(ok);
    /* at most half full, at least a quarter: 16 to 32 bytes per element */
    CHECK(hashtab_bytes(&t) >= 16 * (size_t)N && hashtab_bytes(&t) <= 32 * (size_t)N);
    hashtab_destroy(&t);
    CHECK(t.n == 0 && t.cap == 0 && t.slots == NULL);
    free(e);
}

/* Keys whose hashes are equal (in all 64 bits, or in the 32 the table keeps) are told apart
 * by the caller's comparison. */
static void test_table_collisions(void)
{
    struct hashtab t = {0};
    struct elem e[300];
    int ok = 1;
    for (uint32_t i = 0; i < 300; i++) {
        e[i].key = i;
        /* 100 keys share one hash, 100 more share its low 32 bits only */
        uint64_t h = i < 100 ? 42 : i < 200 ? 42 | (uint64_t)i << 32 : fpl_hash_u64(i);
        ok &= hashtab_add(&t, h, i) == 0;
    }
    for (uint32_t i = 0; i < 300; i++) {
        uint64_t h = i < 100 ? 42 : i < 200 ? 42 | (uint64_t)i << 32 : fpl_hash_u64(i);
        ok &= find(&t, e, i, h) == i;
    }
    CHECK(ok);
    CHECK(find(&t, e, 1000, 42) == HASHTAB_NONE);
    hashtab_destroy(&t);
}

/* reserve makes room once: adds up to the reserved count never move the slots. */
static void test_table_reserve(void)
{
    struct hashtab t = {0};
    CHECK(hashtab_reserve(&t, 5000) == 0);
    struct hashtab_slot *slots = t.slots;
    size_t cap = t.cap;
    int ok = 1;
    for (uint32_t i = 0; i < 5000; i++)
        ok &= hashtab_add(&t, fpl_hash_u64(i), i) == 0;
    CHECK(ok);
    CHECK(t.slots == slots && t.cap == cap);
    CHECK(hashtab_add(&t, 1, HASHTAB_NONE) == -ERANGE);
    CHECK_EQ_U(t.n, 5000);
    hashtab_destroy(&t);
}

int main(void)
{
    test_hash_avalanche();
    test_hash_lengths();
    test_hash_low_bits();
    test_keymap_same_hash();
    test_table_many();
    test_table_collisions();
    test_table_reserve();
    return harness_result("test_hashtab");
}
