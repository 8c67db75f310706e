/* namedict.h: the reader's dictionaries of names by id: ENDPOINT_NAME records (FORMAT.md
 * 5.19), so that an ENDPOINT2 record (5.20) is delivered with its name as an ENDPOINT record
 * is, and CLASS_NAME records (5.22: a class name and a source file, one dictionary each), so
 * that a METHOD2 record (5.23) is delivered as a METHOD record. An id defined again is
 * replaced (the agent's ids wrap after 2^32).
 *
 * Memory: the names' bytes as read (each definition appended) and 16 bytes a slot of an
 * open-addressing table at most half full: bounded by the log's size. One reader at a time.
 */
#ifndef NAMEDICT_H
#define NAMEDICT_H

#include <stddef.h>
#include <stdint.h>

struct namedict {
    struct namedict_slot *slots;
    size_t cap, used;
    char *data;
    size_t len, data_cap;
};

/* An empty dictionary (caller storage, zeroed). */
void namedict_init(struct namedict *d);

/* Frees what d holds; d is empty again. */
void namedict_destroy(struct namedict *d);

/* Defines id (> 0) as the len bytes at s, replacing an earlier definition. 0, or -ENOMEM. */
int namedict_put(struct namedict *d, uint64_t id, const char *s, size_t len);

/* The bytes id names (*len of them; valid until the next namedict_put), or NULL when id was
 * never defined. */
const char *namedict_get(const struct namedict *d, uint64_t id, size_t *len);

#endif
