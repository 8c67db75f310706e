/* classlog.h: the writer's METHOD records by class (FORMAT.md 5.22, 5.23). A method's class
 * name and source file were repeated in every METHOD record, and its line table written as
 * absolute (bci, line) pairs: about 90 bytes a method, 100 of the 135 bytes per sample of a
 * CPU-only FixedWork run. Here each (class, source file) is written once as a CLASS_NAME
 * record, and each method as a METHOD2 record: its class by id, its line table as steps.
 *
 * Dictionary: a direct-mapped cache of CLASSLOG_SLOTS classes, so the writer's memory stays
 * bounded however many classes a JVM loads; ids only grow (a class evicted and met again
 * gets a new id and a new CLASS_NAME record), so every id the log uses means one class.
 * Memory: CLASSLOG_SLOTS x 256 bytes, pages touched only when used.
 *
 * A method the cache cannot take is written as a METHOD record, as agents before version 4
 * wrote every method: without the cache (classlog_init failed), a class and source file
 * longer than a slot holds, or a line table that steps cannot say (bcis not ascending, a
 * negative bci or line). Writer thread only.
 */
#ifndef CLASSLOG_H
#define CLASSLOG_H

#include <stddef.h>
#include <stdint.h>

#include "fpl_codec.h"
#include "methods.h"

#define CLASSLOG_SLOTS 1024  /* classes the writer remembers */
#define CLASSLOG_KEY_MAX 248 /* bytes of class name, a NUL and source file a slot holds */

/* A class the log has: its CLASS_NAME id (0: an empty slot), and its name, a NUL and its
 * source file. */
struct classlog_slot {
    uint32_t id;
    uint16_t len;
    char key[CLASSLOG_KEY_MAX];
};

struct classlog {
    struct classlog_slot *slots; /* CLASSLOG_SLOTS, by a hash of the key; NULL: no cache */
    uint32_t next;               /* next class id to hand out */
};

/* Allocates the cache. Returns 0 or -ENOMEM (then every method is a METHOD record). Writer
 * thread. */
int classlog_init(struct classlog *c);

/* Frees the cache; c is as after a failed init. */
void classlog_destroy(struct classlog *c);

/* Forgets every class: each is given a new id and a new CLASS_NAME record when next met (the
 * writer lost a chunk that may have held their records, or starts a new log). Writer. */
void classlog_forget(struct classlog *c);

/* Writes method id's dictionary record into b: a METHOD2 record, after a CLASS_NAME record
 * when its class is new to the cache; a METHOD record when the cache cannot take it (see
 * above). A method with neither class nor source file (markers, stubs) refers to class id
 * 0 and needs no CLASS_NAME. Strings are NUL-terminated (NULL: ""); lines[0..nlines) sorted
 * by bci as methods_resolve leaves them. Writer thread. */
void classlog_put_method(struct classlog *c, struct fpl_buf *b, uint32_t id, int kind,
                         const char *klass, const char *name, const char *sig, const char *src,
                         const struct methods_line *lines, int nlines);

#endif
