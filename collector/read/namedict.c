/* namedict.c: names by id for the reader (see namedict.h). */
#include "namedict.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_hash.h"

struct namedict_slot {
    uint64_t id; /* 0: empty */
    uint32_t off, len;
};

void namedict_init(struct namedict *d)
{
    memset(d, 0, sizeof(*d));
}

void namedict_destroy(struct namedict *d)
{
    free(d->slots);
    free(d->data);
    namedict_init(d);
}

static struct namedict_slot *find(const struct namedict *d, uint64_t id)
{
    size_t j = (size_t)fpl_hash_u64(id) & (d->cap - 1);
    while (d->slots[j].id && d->slots[j].id != id)
        j = (j + 1) & (d->cap - 1);
    return &d->slots[j];
}

/* Room for one more id: the table doubled when half full. 0, or -ENOMEM. */
static int room(struct namedict *d)
{
    if (2 * (d->used + 1) <= d->cap)
        return 0;
    size_t cap = d->cap ? 2 * d->cap : 64;
    struct namedict_slot *old = d->slots;
    size_t old_cap = d->cap;
    d->slots = calloc(cap, sizeof(*d->slots));
    if (!d->slots) {
        d->slots = old;
        return -ENOMEM;
    }
    d->cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].id)
            *find(d, old[i].id) = old[i];
    free(old);
    return 0;
}

int namedict_put(struct namedict *d, uint64_t id, const char *s, size_t len)
{
    if (len > UINT32_MAX || d->len + len > UINT32_MAX)
        return -ENOMEM; /* 4 GiB of names: the table's offsets end there */
    if (d->len + len > d->data_cap) {
        size_t cap = d->data_cap ? d->data_cap : 4096;
        while (cap < d->len + len)
            cap *= 2;
        char *q = realloc(d->data, cap);
        if (!q)
            return -ENOMEM;
        d->data = q;
        d->data_cap = cap;
    }
    if (room(d) != 0)
        return -ENOMEM;
    struct namedict_slot *sl = find(d, id);
    if (!sl->id)
        d->used++;
    if (len)
        memcpy(d->data + d->len, s, len);
    sl->id = id;
    sl->off = (uint32_t)d->len;
    sl->len = (uint32_t)len;
    d->len += len;
    return 0;
}

const char *namedict_get(const struct namedict *d, uint64_t id, size_t *len)
{
    if (!d->cap || !id)
        return NULL;
    const struct namedict_slot *sl = find(d, id);
    if (!sl->id)
        return NULL;
    *len = sl->len;
    return d->data ? d->data + sl->off : "";
}
