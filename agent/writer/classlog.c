/* classlog.c: CLASS_NAME dictionary and METHOD2 records (see classlog.h). */
#include "classlog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_format.h"
#include "fpl_hash.h"

int classlog_init(struct classlog *c)
{
    c->slots = calloc(CLASSLOG_SLOTS, sizeof(*c->slots));
    c->next = 1;
    return c->slots ? 0 : -ENOMEM;
}

void classlog_destroy(struct classlog *c)
{
    free(c->slots);
    c->slots = NULL;
}

void classlog_forget(struct classlog *c)
{
    for (size_t i = 0; c->slots && i < CLASSLOG_SLOTS; i++)
        c->slots[i].id = 0;
}

/* The CLASS_NAME id of (klass, src), writing its record into b when the class is new to the
 * cache (a slot taken by another class is given to this one under a new id); 0 when the pair
 * is longer than a slot holds. */
static uint32_t class_id(struct classlog *c, struct fpl_buf *b, const char *klass, size_t nk,
                         const char *src, size_t ns)
{
    size_t len = nk + 1 + ns;
    if (len > CLASSLOG_KEY_MAX)
        return 0;
    char key[CLASSLOG_KEY_MAX];
    memcpy(key, klass, nk);
    key[nk] = 0; /* modified UTF-8 has no NUL byte: the split is unambiguous */
    memcpy(key + nk + 1, src, ns);
    struct classlog_slot *sl = &c->slots[fpl_hash_bytes(key, len) & (CLASSLOG_SLOTS - 1)];
    if (sl->id && sl->len == len && memcmp(sl->key, key, len) == 0)
        return sl->id;
    sl->id = c->next++;
    if (!c->next)
        c->next = 1; /* 2^32 classes: wrap, skipping 0 (readers let a later one replace) */
    sl->len = (uint16_t)len;
    memcpy(sl->key, key, len);
    size_t r = fpl_rec_begin(b, FPL_REC_CLASS_NAME);
    fpl_put_v(b, sl->id);
    fpl_put_v(b, nk);
    fpl_put_bytes(b, klass, nk);
    fpl_put_v(b, ns);
    fpl_put_bytes(b, src, ns);
    fpl_rec_end(b, r);
    return sl->id;
}

/* 1 when METHOD2's steps can say the table: bcis ascending, no bci or line below 0. */
static int steppable(const struct methods_line *lines, int nlines)
{
    for (int i = 0; i < nlines; i++)
        if (lines[i].bci < 0 || lines[i].line < 0 || (i && lines[i].bci < lines[i - 1].bci))
            return 0;
    return 1;
}

static void put_method1(struct fpl_buf *b, uint32_t id, int kind, const char *klass,
                        const char *name, const char *sig, const char *src,
                        const struct methods_line *lines, int nlines)
{
    size_t r = fpl_rec_begin(b, FPL_REC_METHOD);
    fpl_put_v(b, id);
    fpl_put_u8(b, (uint8_t)kind);
    fpl_put_str(b, klass);
    fpl_put_str(b, name);
    fpl_put_str(b, sig);
    fpl_put_str(b, src);
    fpl_put_v(b, (uint64_t)(nlines > 0 ? nlines : 0));
    for (int i = 0; i < nlines; i++) {
        fpl_put_v(b, (uint64_t)lines[i].bci);
        fpl_put_v(b, (uint64_t)lines[i].line);
    }
    fpl_rec_end(b, r);
}

void classlog_put_method(struct classlog *c, struct fpl_buf *b, uint32_t id, int kind,
                         const char *klass, const char *name, const char *sig, const char *src,
                         const struct methods_line *lines, int nlines)
{
    klass = klass ? klass : "";
    src = src ? src : "";
    if (nlines < 0)
        nlines = 0;
    size_t nk = strlen(klass), ns = strlen(src);
    uint32_t cid = 0;
    if (!c->slots || !steppable(lines, nlines) ||
        ((nk || ns) && !(cid = class_id(c, b, klass, nk, src, ns)))) {
        put_method1(b, id, kind, klass, name, sig, src, lines, nlines);
        return;
    }
    size_t r = fpl_rec_begin(b, FPL_REC_METHOD2);
    fpl_put_v(b, id);
    fpl_put_u8(b, (uint8_t)kind);
    fpl_put_v(b, cid);
    fpl_put_str(b, name);
    fpl_put_str(b, sig);
    fpl_put_v(b, (uint64_t)nlines);
    int64_t bci = 0, line = 0;
    for (int i = 0; i < nlines; i++) {
        fpl_put_v(b, (uint64_t)(lines[i].bci - bci));
        fpl_put_sv(b, lines[i].line - line);
        bci = lines[i].bci;
        line = lines[i].line;
    }
    fpl_rec_end(b, r);
}
