/* keymap.c: byte-string -> id hash map (linear probing). Writer thread. */
#include "keymap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_hash.h"

uint64_t keymap_hash(const void *key, size_t len)
{
    uint64_t h = fpl_hash_bytes(key, len);
    return h ? h : 1; /* 0 marks an empty slot */
}

void keymap_destroy(struct keymap *m)
{
    free(m->slots);
    free(m->arena);
    memset(m, 0, sizeof(*m));
}

void keymap_clear(struct keymap *m)
{
    /* the zero state is an empty map: keymap_put allocates again on first use */
    keymap_destroy(m);
}

static int equal(const struct keymap *m, const struct keymap_slot *s, const void *key,
                 uint32_t len)
{
    return s->len == len && memcmp(m->arena + s->off, key, len) == 0;
}

int keymap_get(const struct keymap *m, const void *key, uint32_t len, uint32_t *id)
{
    if (!m->count)
        return 0;
    uint64_t h = keymap_hash(key, len);
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        const struct keymap_slot *s = &m->slots[i];
        if (!s->hash)
            return 0;
        if (s->hash == h && equal(m, s, key, len)) {
            *id = s->id;
            return 1;
        }
    }
}

static int grow(struct keymap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 1024;
    struct keymap_slot *slots = calloc(cap, sizeof(*slots));
    if (!slots)
        return -ENOMEM;
    for (size_t i = 0; i < m->cap; i++) {
        struct keymap_slot *s = &m->slots[i];
        if (!s->hash)
            continue;
        size_t j = s->hash & (cap - 1);
        while (slots[j].hash)
            j = (j + 1) & (cap - 1);
        slots[j] = *s;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

int keymap_put(struct keymap *m, const void *key, uint32_t len, uint32_t id)
{
    if ((m->count + 1) * 4 > m->cap * 3 && grow(m) != 0)
        return -ENOMEM;
    if (m->alen + len > m->acap) {
        size_t acap = m->acap ? m->acap : 65536;
        while (acap < m->alen + len)
            acap *= 2;
        uint8_t *a = realloc(m->arena, acap);
        if (!a)
            return -ENOMEM;
        m->arena = a;
        m->acap = acap;
    }
    memcpy(m->arena + m->alen, key, len);
    uint64_t h = keymap_hash(key, len);
    size_t i = h & (m->cap - 1);
    while (m->slots[i].hash)
        i = (i + 1) & (m->cap - 1);
    m->slots[i] = (struct keymap_slot){h, m->alen, len, id};
    m->alen += len;
    m->count++;
    return 0;
}

size_t keymap_bytes(const struct keymap *m)
{
    return m->cap * sizeof(*m->slots) + m->acap;
}

int keymap_bound(struct keymap *const *maps, size_t n, size_t max_bytes)
{
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += keymap_bytes(maps[i]);
    if (bytes <= max_bytes)
        return 0;
    for (size_t i = 0; i < n; i++)
        keymap_clear(maps[i]);
    return 1;
}
