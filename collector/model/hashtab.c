/* hashtab.c: growing and freeing the collector's hash table (see hashtab.h). */
#include "hashtab.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HASHTAB_PREFAULT_MIN (1u << 20) /* tables this big get their pages mapped in one call */

/* Maps the pages of a new big table at once: its slots are written in hash order, so each of
 * its pages would otherwise be mapped by a page fault of its own, which on a virtual machine
 * costs more than filling the page (the cells' index of a big profile is tens of MB). A hint:
 * its failure changes nothing. */
static void prefault(void *a, size_t n)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t pg = 4096;
    uintptr_t lo = ((uintptr_t)a + pg - 1) & ~(pg - 1), hi = ((uintptr_t)a + n) & ~(pg - 1);
    if (n >= HASHTAB_PREFAULT_MIN && hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
    (void)a;
    (void)n;
#endif
}

/* Places a slot into a table that has a free slot for it. */
static void place(struct hashtab_slot *slots, size_t cap, struct hashtab_slot s)
{
    size_t i = (size_t)s.hash & (cap - 1);
    while (slots[i].elem)
        i = (i + 1) & (cap - 1);
    slots[i] = s;
}

/* Rebuilds the table with cap slots (a power of two, more than twice the elements). */
static int rehash(struct hashtab *t, size_t cap)
{
    struct hashtab_slot *slots = calloc(cap, sizeof(*slots));
    if (!slots)
        return -ENOMEM;
    prefault(slots, cap * sizeof(*slots));
    for (size_t i = 0; i < t->cap; i++) {
        if (t->slots[i].elem)
            place(slots, cap, t->slots[i]);
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

int hashtab_reserve(struct hashtab *t, size_t n)
{
    size_t cap = t->cap ? t->cap : 16;
    while (cap / 2 < n) {
        if (cap > SIZE_MAX / 4)
            return -ENOMEM;
        cap *= 2;
    }
    return cap == t->cap ? 0 : rehash(t, cap);
}

int hashtab_add(struct hashtab *t, uint64_t h, uint32_t elem)
{
    if (elem == HASHTAB_NONE)
        return -ERANGE;
    if ((t->n + 1) * 2 > t->cap) {
        int rc = hashtab_reserve(t, t->n + 1 > t->cap ? t->n + 1 : t->cap);
        if (rc)
            return rc;
    }
    place(t->slots, t->cap, (struct hashtab_slot){(uint32_t)h, elem + 1});
    t->n++;
    return 0;
}

void hashtab_destroy(struct hashtab *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = 0;
    t->n = 0;
}

size_t hashtab_bytes(const struct hashtab *t)
{
    return t->cap * sizeof(*t->slots);
}
