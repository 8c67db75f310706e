/* keymap.h: an open-addressing hash map from byte-string keys to dense uint32 ids, with keys
 * copied into an arena. Used by the writer to dedup stacks, methods and threads. Single
 * thread; not for signal handlers (it allocates). */
#ifndef KEYMAP_H
#define KEYMAP_H

#include <stddef.h>
#include <stdint.h>

struct keymap_slot {
    uint64_t hash;      /* 0: empty */
    uint64_t off;       /* key offset in the arena */
    uint32_t len;
    uint32_t id;
};

struct keymap {
    struct keymap_slot *slots;
    size_t cap;         /* power of two */
    size_t count;
    uint8_t *arena;
    size_t alen;
    size_t acap;
};

/* Zero-initialized storage is an empty map; keymap_destroy frees it. */
void keymap_destroy(struct keymap *m);

/* Empties the map and frees its memory: a map cleared because it grew too big must not keep
 * holding (and reporting) what it held. The map stays usable. */
void keymap_clear(struct keymap *m);

/* Looks key up: returns 1 and sets *id when present, 0 when absent. */
int keymap_get(const struct keymap *m, const void *key, uint32_t len, uint32_t *id);

/* Adds key -> id (the key must be absent). Returns 0 or -ENOMEM. */
int keymap_put(struct keymap *m, const void *key, uint32_t len, uint32_t id);

/* Bytes allocated by the map (slots + arena), for bounding memory: 0 after keymap_clear. */
size_t keymap_bytes(const struct keymap *m);

/* Clears every map of maps[0 .. n-1] when together they hold more than max_bytes. Returns 1
 * when it cleared them, 0 when they were within the bound. The writer's dictionary bound:
 * after a clear the maps hold nothing, so the next call clears again only when they have
 * grown past the bound again. */
int keymap_bound(struct keymap *const *maps, size_t n, size_t max_bytes);

/* The hash the map uses: fpl_hash_bytes (collector/format/fpl_hash.h, the hash of the whole
 * project), 1 where that is 0. Exposed for tests. */
uint64_t keymap_hash(const void *key, size_t len);

#endif
