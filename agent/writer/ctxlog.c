/* ctxlog.c: CONTEXT and ENDPOINT_NAME dictionaries, and the endpoint queue (see ctxlog.h). */
#include "ctxlog.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "fpl_format.h"
#include "fpl_hash.h"

struct endpoint {
    uint64_t root;
    uint16_t len;
    char name[CTXLOG_NAME_MAX];
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct endpoint queue[CTXLOG_QUEUE]; /* under mu: entries 0 .. queued-1 */
static size_t queued;                       /* under mu */
static int active;                          /* under mu: a session takes names */

int ctxlog_init(struct ctxlog *c)
{
    c->pairs = calloc(2 * CTXLOG_CACHE, sizeof(*c->pairs));
    c->ids = calloc(CTXLOG_CACHE, sizeof(*c->ids));
    c->next = 1;
    c->names = calloc(CTXLOG_NAMES, sizeof(*c->names));
    c->next_name = 1;
    if (!c->pairs || !c->ids || !c->names) {
        ctxlog_destroy(c);
        return -ENOMEM;
    }
    return 0;
}

void ctxlog_destroy(struct ctxlog *c)
{
    free(c->pairs);
    free(c->ids);
    free(c->names);
    c->pairs = NULL;
    c->ids = NULL;
    c->names = NULL;
}

/* A cache slot for the pair: spans are random 64-bit ids in most tracers, but some count up,
 * so mix both words before taking the low bits. */
static size_t slot_of(uint64_t span, uint64_t root)
{
    uint64_t h = (span ^ (root * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
    return (size_t)(h >> 52) & (CTXLOG_CACHE - 1);
}

uint32_t ctxlog_id(struct ctxlog *c, struct fpl_buf *b, uint64_t span, uint64_t root)
{
    if ((!span && !root) || !c->ids)
        return 0;
    size_t k = slot_of(span, root);
    if (c->ids[k] && c->pairs[2 * k] == span && c->pairs[2 * k + 1] == root)
        return c->ids[k];
    uint32_t id = c->next++;
    if (!c->next)
        c->next = 1; /* 2^32 contexts: wrap, skipping 0 (readers let a later one replace) */
    c->ids[k] = id;
    c->pairs[2 * k] = span;
    c->pairs[2 * k + 1] = root;
    size_t r = fpl_rec_begin(b, FPL_REC_CONTEXT);
    fpl_put_v(b, id);
    fpl_put_v(b, span);
    fpl_put_v(b, root);
    fpl_rec_end(b, r);
    return id;
}

void ctxlog_forget(struct ctxlog *c)
{
    if (c->ids)
        memset(c->ids, 0, CTXLOG_CACHE * sizeof(*c->ids));
    for (size_t i = 0; c->names && i < CTXLOG_NAMES; i++)
        c->names[i].id = 0;
}

void ctxlog_start(void)
{
    pthread_mutex_lock(&mu);
    queued = 0;
    active = 1;
    pthread_mutex_unlock(&mu);
}

void ctxlog_stop(void)
{
    pthread_mutex_lock(&mu);
    queued = 0;
    active = 0;
    pthread_mutex_unlock(&mu);
}

int ctxlog_endpoint(uint64_t root, const char *name, size_t len, void (*wake)(void))
{
    if (len > CTXLOG_NAME_MAX)
        len = CTXLOG_NAME_MAX;
    pthread_mutex_lock(&mu);
    if (!active) {
        pthread_mutex_unlock(&mu);
        return 0;
    }
    if (queued == CTXLOG_QUEUE) {
        pthread_mutex_unlock(&mu);
        counters_add_sigsafe(FPL_CTR_ENDPOINT_DROPS, 1);
        return -ENOSPC;
    }
    struct endpoint *e = &queue[queued++];
    e->root = root;
    e->len = (uint16_t)len;
    memcpy(e->name, name, len);
    int poke = queued == CTXLOG_QUEUE / 4;
    pthread_mutex_unlock(&mu);
    if (poke && wake)
        wake();
    return 0;
}

/* The ENDPOINT_NAME id of a name, writing its record into b when the name is new to the
 * cache (a slot taken by another name is given to this one: ids only grow, as for pairs). */
static uint32_t name_id(struct ctxlog *c, struct fpl_buf *b, const char *name, uint16_t len)
{
    struct ctxlog_name *n = &c->names[fpl_hash_bytes(name, len) & (CTXLOG_NAMES - 1)];
    if (n->id && n->len == len && memcmp(n->name, name, len) == 0)
        return n->id;
    n->id = c->next_name++;
    if (!c->next_name)
        c->next_name = 1; /* 2^32 names: wrap, skipping 0 (readers let a later one replace) */
    n->len = len;
    memcpy(n->name, name, len);
    size_t r = fpl_rec_begin(b, FPL_REC_ENDPOINT_NAME);
    fpl_put_v(b, n->id);
    fpl_put_v(b, len);
    fpl_put_bytes(b, name, len);
    fpl_rec_end(b, r);
    return n->id;
}

void ctxlog_drain_endpoints(struct ctxlog *c, struct fpl_buf *b)
{
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < queued; i++) {
        const struct endpoint *e = &queue[i];
        if (c->names) {
            uint32_t id = name_id(c, b, e->name, e->len);
            size_t r = fpl_rec_begin(b, FPL_REC_ENDPOINT2);
            fpl_put_v(b, e->root);
            fpl_put_v(b, id);
            fpl_rec_end(b, r);
            continue;
        }
        size_t r = fpl_rec_begin(b, FPL_REC_ENDPOINT); /* no cache: the name each time */
        fpl_put_v(b, e->root);
        fpl_put_v(b, e->len);
        fpl_put_bytes(b, e->name, e->len);
        fpl_rec_end(b, r);
    }
    queued = 0;
    pthread_mutex_unlock(&mu);
}
