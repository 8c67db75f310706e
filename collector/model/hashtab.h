/* hashtab.h: the collector's one hash table: an index from keys to dense element numbers,
 * with open addressing and linear probing.
 *
 * The elements live in the caller's own array (dictionary entries, aggregation cells, interned
 * names, ...), numbered 0, 1, 2...; the table holds, per slot, an element number and 32 bits
 * of its key's hash (fpl_hash.h), so a lookup compares keys only for elements whose hash bits
 * match, and growing never asks the caller for keys again. The caller hashes its key, walks
 * the candidates and compares them with its own keys:
 *
 *     struct hashtab_probe pr;
 *     for (uint32_t k = hashtab_first(&t, h, &pr); k != HASHTAB_NONE; k = hashtab_next(&t, &pr))
 *         if (elems[k].key == key)
 *             return k;
 *     elems[n] = ...;                        then     hashtab_add(&t, h, n)
 *
 * 8 bytes per slot, at most half the slots used (so 16 to 32 bytes per element); the table
 * doubles when it is half full. No removal: the collector's tables only grow until freed.
 * Element numbers stay below HASHTAB_NONE. Zero-initialized storage is an empty table.
 * Never prints. A table is used by one thread at a time.
 */
#ifndef HASHTAB_H
#define HASHTAB_H

#include <stddef.h>
#include <stdint.h>

#include "fpl_hash.h"

#define HASHTAB_NONE UINT32_MAX

struct hashtab_slot {
    uint32_t hash; /* the low 32 bits of the element's key hash */
    uint32_t elem; /* element number + 1; 0: an empty slot */
};

struct hashtab {
    struct hashtab_slot *slots;
    size_t cap; /* 0 or a power of two */
    size_t n;   /* elements indexed */
};

/* Where a lookup is; filled by hashtab_first. */
struct hashtab_probe {
    size_t i;
    uint32_t hash;
};

/* The element at or after the probe's slot whose hash bits match, or HASHTAB_NONE at the
 * first empty slot. */
static inline uint32_t hashtab_scan_(const struct hashtab *t, struct hashtab_probe *p)
{
    if (!t->cap)
        return HASHTAB_NONE;
    for (;; p->i = (p->i + 1) & (t->cap - 1)) {
        const struct hashtab_slot *s = &t->slots[p->i];
        if (!s->elem)
            return HASHTAB_NONE;
        if (s->hash == p->hash)
            return s->elem - 1;
    }
}

/* Starts a lookup of the key whose hash is h: the first candidate element (its hash bits
 * match; the caller compares the key), or HASHTAB_NONE when there is none. */
static inline uint32_t hashtab_first(const struct hashtab *t, uint64_t h, struct hashtab_probe *p)
{
    p->hash = (uint32_t)h;
    p->i = t->cap ? (size_t)p->hash & (t->cap - 1) : 0;
    return hashtab_scan_(t, p);
}

/* The next candidate of the lookup p, or HASHTAB_NONE. */
static inline uint32_t hashtab_next(const struct hashtab *t, struct hashtab_probe *p)
{
    p->i = (p->i + 1) & (t->cap - 1);
    return hashtab_scan_(t, p);
}

/* Indexes element elem under hash h; the caller has checked that its key is absent. Grows the
 * table first when it is half full. Returns 0, or -ENOMEM (the table is unchanged) and -ERANGE
 * when elem is HASHTAB_NONE. */
int hashtab_add(struct hashtab *t, uint64_t h, uint32_t elem);

/* Makes room for n elements in all, so that adding up to n never grows the table. Returns 0
 * or -ENOMEM. */
int hashtab_reserve(struct hashtab *t, size_t n);

/* Frees the slots; the table is empty and usable again. */
void hashtab_destroy(struct hashtab *t);

/* Bytes the table holds. */
size_t hashtab_bytes(const struct hashtab *t);

#endif
