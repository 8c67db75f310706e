/* test_ctxlog: agent/writer/ctxlog.c's endpoint names (FORMAT.md 5.19, 5.20): the records the
 * writer's drain writes, decoded here. Each name is written once as ENDPOINT_NAME and each
 * request as ENDPOINT2 with the right id; two names of one cache slot take it in turn, each
 * time under a new id (ids only grow, never name two names); after ctxlog_forget (a lost
 * chunk) every name is written again; without the cache (ctxlog_init failed) requests are
 * ENDPOINT records with their names; a name is cut at CTXLOG_NAME_MAX bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctxlog.h"
#include "fpl_format.h"
#include "fpl_hash.h"
#include "harness.h"

#define MAX_RECS 64

/* What a drain wrote: per request its root and name, and the names' records. */
struct decoded {
    size_t nreq, nnames, nold;
    uint64_t root[MAX_RECS];
    char name[MAX_RECS][CTXLOG_NAME_MAX + 1];
    uint64_t name_id[MAX_RECS];             /* ENDPOINT2's id (0: an ENDPOINT record) */
    uint64_t def_id[MAX_RECS];              /* ENDPOINT_NAME ids, in order */
    char def[MAX_RECS][CTXLOG_NAME_MAX + 1]; /* and their names */
};

static void copy_str(char *dst, const char *s, size_t len)
{
    memcpy(dst, s, len);
    dst[len] = 0;
}

/* Decodes b's records; ENDPOINT2 names are looked up among the ENDPOINT_NAME records so far
 * (a use before the definition leaves the name empty and fails the check below). */
static void decode(const struct fpl_buf *b, struct decoded *d)
{
    memset(d, 0, sizeof(*d));
    struct fpl_cur c = {b->data, b->data + b->len, 0};
    while (c.p < c.end && !c.bad) {
        uint8_t type = fpl_get_u8(&c);
        uint64_t len = fpl_get_v(&c);
        struct fpl_cur body = {c.p, c.p + len, 0};
        c.p += len;
        size_t n;
        const char *s;
        if (type == FPL_REC_ENDPOINT_NAME && d->nnames < MAX_RECS) {
            d->def_id[d->nnames] = fpl_get_v(&body);
            s = fpl_get_str(&body, &n);
            copy_str(d->def[d->nnames++], s ? s : "", s ? n : 0);
        } else if (type == FPL_REC_ENDPOINT2 && d->nreq < MAX_RECS) {
            d->root[d->nreq] = fpl_get_v(&body);
            uint64_t id = fpl_get_v(&body);
            d->name_id[d->nreq] = id;
            for (size_t k = d->nnames; k-- > 0;)
                if (d->def_id[k] == id) {
                    strcpy(d->name[d->nreq], d->def[k]);
                    break;
                }
            d->nreq++;
        } else if (type == FPL_REC_ENDPOINT && d->nreq < MAX_RECS) {
            d->root[d->nreq] = fpl_get_v(&body);
            s = fpl_get_str(&body, &n);
            copy_str(d->name[d->nreq++], s ? s : "", s ? n : 0);
            d->nold++;
        }
        CHECK(!body.bad);
    }
    CHECK(!c.bad);
}

static void queue(uint64_t root, const char *name)
{
    CHECK_EQ_U(ctxlog_endpoint(root, name, strlen(name), NULL), 0);
}

static void check_req(const struct decoded *d, size_t i, uint64_t root, const char *name)
{
    CHECK(i < d->nreq && d->root[i] == root && strcmp(d->name[i], name) == 0);
    if (i < d->nreq && (d->root[i] != root || strcmp(d->name[i], name) != 0))
        fprintf(stderr, "request %zu: root %llu '%s', want %llu '%s'\n", i,
                (unsigned long long)d->root[i], d->name[i], (unsigned long long)root, name);
}

/* A name other than `of` that falls in its cache slot. */
static void slot_mate(const char *of, char *out, size_t cap)
{
    uint64_t want = fpl_hash_bytes(of, strlen(of)) & (CTXLOG_NAMES - 1);
    for (unsigned i = 0;; i++) {
        snprintf(out, cap, "GET /n%u", i);
        if ((fpl_hash_bytes(out, strlen(out)) & (CTXLOG_NAMES - 1)) == want && strcmp(out, of))
            return;
    }
}

int main(void)
{
    static struct decoded d;
    struct ctxlog c;
    struct fpl_buf b = {0};
    CHECK_EQ_U(ctxlog_init(&c), 0);
    ctxlog_start();

    /* each name once, each request by its id */
    queue(1, "GET /a");
    queue(2, "POST /b");
    queue(3, "GET /a");
    ctxlog_drain_endpoints(&c, &b);
    queue(4, "POST /b"); /* a later drain: the names are known */
    ctxlog_drain_endpoints(&c, &b);
    decode(&b, &d);
    CHECK_EQ_U(d.nnames, 2);
    CHECK_EQ_U(d.nreq, 4);
    CHECK_EQ_U(d.nold, 0);
    check_req(&d, 0, 1, "GET /a");
    check_req(&d, 1, 2, "POST /b");
    check_req(&d, 2, 3, "GET /a");
    check_req(&d, 3, 4, "POST /b");
    CHECK(d.def_id[0] != 0 && d.def_id[1] != 0 && d.def_id[0] != d.def_id[1]);

    /* two names of one slot take it in turn: a new id each time, never one id for both */
    char mate[64];
    slot_mate("GET /a", mate, sizeof(mate));
    b.len = 0;
    queue(5, mate);
    queue(6, "GET /a");
    queue(7, mate);
    ctxlog_drain_endpoints(&c, &b);
    decode(&b, &d);
    CHECK_EQ_U(d.nnames, 3);
    check_req(&d, 0, 5, mate);
    check_req(&d, 1, 6, "GET /a");
    check_req(&d, 2, 7, mate);
    CHECK(d.def_id[0] > 2 && d.def_id[1] > d.def_id[0] && d.def_id[2] > d.def_id[1]);

    /* a lost chunk: every name is written again, under a new id */
    ctxlog_forget(&c);
    b.len = 0;
    queue(8, "POST /b");
    queue(9, "POST /b");
    ctxlog_drain_endpoints(&c, &b);
    decode(&b, &d);
    CHECK_EQ_U(d.nnames, 1);
    check_req(&d, 0, 8, "POST /b");
    check_req(&d, 1, 9, "POST /b");
    CHECK(d.def_id[0] > 5);

    /* a name past CTXLOG_NAME_MAX bytes is cut there */
    char longname[CTXLOG_NAME_MAX + 40];
    memset(longname, 'x', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = 0;
    b.len = 0;
    queue(10, longname);
    ctxlog_drain_endpoints(&c, &b);
    decode(&b, &d);
    CHECK(d.nreq == 1 && strlen(d.name[0]) == CTXLOG_NAME_MAX &&
          strncmp(d.name[0], longname, CTXLOG_NAME_MAX) == 0);

    /* without the cache: ENDPOINT records, each with its name */
    ctxlog_destroy(&c);
    b.len = 0;
    queue(11, "GET /a");
    queue(12, "GET /a");
    ctxlog_drain_endpoints(&c, &b);
    decode(&b, &d);
    CHECK_EQ_U(d.nold, 2);
    CHECK_EQ_U(d.nnames, 0);
    check_req(&d, 0, 11, "GET /a");
    check_req(&d, 1, 12, "GET /a");

    ctxlog_stop();
    fpl_buf_free(&b);
    return harness_result("test_ctxlog");
}
