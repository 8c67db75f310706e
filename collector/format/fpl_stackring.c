/* fpl_stackring.c: the ring of a chunk's last stack records (see fpl_stackring.h). */
#include "fpl_stackring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void fpl_stackring_init(struct fpl_stackring *r)
{
    memset(r, 0, sizeof(*r));
}

void fpl_stackring_destroy(struct fpl_stackring *r)
{
    for (unsigned i = 0; i < FPL_STACK2_RING; i++)
        free(r->e[i].f);
    fpl_stackring_init(r);
}

void fpl_stackring_reset(struct fpl_stackring *r)
{
    r->used = 0;
    r->next = 0;
}

int fpl_stackring_push(struct fpl_stackring *r, const struct fpl_sframe *f, size_t n)
{
    unsigned at = r->next;
    r->next = (r->next + 1) % FPL_STACK2_RING;
    if (r->used < FPL_STACK2_RING)
        r->used++;
    r->e[at].valid = 0;
    r->e[at].n = 0;
    if (!f || n > FPL_STACK2_MAX_FRAMES)
        return 0;
    if (n > r->e[at].cap) {
        size_t cap = r->e[at].cap ? r->e[at].cap : 64;
        while (cap < n)
            cap *= 2;
        void *q = realloc(r->e[at].f, cap * sizeof(*f));
        if (!q)
            return -ENOMEM;
        r->e[at].f = q;
        r->e[at].cap = (uint32_t)cap;
    }
    if (n)
        memcpy(r->e[at].f, f, n * sizeof(*f));
    r->e[at].n = (uint32_t)n;
    r->e[at].valid = 1;
    return 0;
}

const struct fpl_sframe *fpl_stackring_get(const struct fpl_stackring *r, uint64_t back,
                                           size_t *n)
{
    if (back == 0 || back > r->used)
        return NULL;
    unsigned at = (r->next + FPL_STACK2_RING - (unsigned)back) % FPL_STACK2_RING;
    if (!r->e[at].valid)
        return NULL;
    static const struct fpl_sframe none;
    *n = r->e[at].n;
    return r->e[at].f ? r->e[at].f : &none;
}

static int same(const struct fpl_sframe *a, const struct fpl_sframe *b)
{
    return a->method_id == b->method_id && a->bci == b->bci && a->type == b->type;
}

size_t fpl_stackring_best(const struct fpl_stackring *r, const struct fpl_sframe *f, size_t n,
                          unsigned *back)
{
    size_t best = 0;
    *back = 0;
    for (unsigned b = 1; b <= r->used; b++) {
        size_t m;
        const struct fpl_sframe *e = fpl_stackring_get(r, b, &m);
        if (!e)
            continue;
        size_t s = 0;
        while (s < m && s < n && same(&e[m - 1 - s], &f[n - 1 - s]))
            s++;
        if (s > best) {
            best = s;
            *back = b;
        }
    }
    return best;
}
