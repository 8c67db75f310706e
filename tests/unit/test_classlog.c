/* test_classlog: agent/writer/classlog.c's method records (FORMAT.md 5.22, 5.23): the records
 * classlog_put_method writes, decoded here. FORMAT.md's example byte for byte; each class once
 * as CLASS_NAME, each method as METHOD2 by its class's id, with its line table as steps (lines
 * going down too); a method of no class as class 0 with no CLASS_NAME; two classes of one
 * cache slot take it in turn, each time under a new id (ids only grow, never name two
 * classes); after classlog_forget (a lost chunk) every class is written again; METHOD records
 * with class and source file whole where METHOD2 cannot serve: no cache (classlog_init failed
 * or destroyed), a class too long for a slot, a line table not in bci order or below 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classlog.h"
#include "fpl_format.h"
#include "fpl_hash.h"
#include "harness.h"

#define MAX_RECS 32
#define MAX_LEN 512
#define MAX_LINES 8

/* A method as a reader gets it, and which record said it. */
struct dmethod {
    int v2; /* METHOD2 (else METHOD) */
    uint64_t id, class_id;
    uint8_t kind;
    char cls[MAX_LEN], name[MAX_LEN], sig[MAX_LEN], src[MAX_LEN];
    size_t nlines;
    int64_t bci[MAX_LINES], line[MAX_LINES];
};

struct decoded {
    size_t nmethods, nclasses;
    struct dmethod m[MAX_RECS];
    uint64_t class_id[MAX_RECS]; /* CLASS_NAME ids of this buffer, in order */
};

/* Every CLASS_NAME decoded so far, buffer after buffer, as a reader keeps them. */
static struct {
    uint64_t id;
    char cls[MAX_LEN], src[MAX_LEN];
} known[4 * MAX_RECS];
static size_t nknown;

static void get_str(struct fpl_cur *c, char *dst)
{
    size_t n = 0;
    const char *s = fpl_get_str(c, &n);
    if (!s || n >= MAX_LEN)
        n = 0;
    memcpy(dst, s ? s : "", n);
    dst[n] = 0;
}

/* Decodes b's records; a METHOD2's class is looked up among the CLASS_NAME records so far, of
 * this buffer and those decoded before (the latest of its id: a use before the definition
 * leaves it "?" and fails the checks). */
static void decode(const struct fpl_buf *b, struct decoded *d)
{
    memset(d, 0, sizeof(*d));
    struct fpl_cur c = {b->data, b->data + b->len, 0};
    while (c.p < c.end && !c.bad) {
        uint8_t type = fpl_get_u8(&c);
        uint64_t len = fpl_get_v(&c);
        struct fpl_cur body = {c.p, c.p + len, 0};
        c.p += len;
        if (type == FPL_REC_CLASS_NAME && d->nclasses < MAX_RECS &&
            nknown < sizeof(known) / sizeof(known[0])) {
            known[nknown].id = d->class_id[d->nclasses++] = fpl_get_v(&body);
            get_str(&body, known[nknown].cls);
            get_str(&body, known[nknown++].src);
        } else if ((type == FPL_REC_METHOD || type == FPL_REC_METHOD2) && d->nmethods < MAX_RECS) {
            struct dmethod *m = &d->m[d->nmethods++];
            m->v2 = type == FPL_REC_METHOD2;
            m->id = fpl_get_v(&body);
            m->kind = fpl_get_u8(&body);
            if (m->v2) {
                m->class_id = fpl_get_v(&body);
                strcpy(m->cls, m->class_id ? "?" : "");
                for (size_t k = nknown; m->class_id && k-- > 0;)
                    if (known[k].id == m->class_id) {
                        strcpy(m->cls, known[k].cls);
                        strcpy(m->src, known[k].src);
                        break;
                    }
            } else {
                get_str(&body, m->cls);
            }
            get_str(&body, m->name);
            get_str(&body, m->sig);
            if (!m->v2)
                get_str(&body, m->src);
            m->nlines = fpl_get_v(&body);
            int64_t bci = 0, line = 0;
            for (size_t i = 0; i < m->nlines && i < MAX_LINES; i++) {
                if (m->v2) {
                    bci += (int64_t)fpl_get_v(&body);
                    line += fpl_get_sv(&body);
                } else {
                    bci = (int64_t)fpl_get_v(&body);
                    line = (int64_t)fpl_get_v(&body);
                }
                m->bci[i] = bci;
                m->line[i] = line;
            }
        }
        CHECK(!body.bad && body.p == body.end);
    }
    CHECK(!c.bad);
}

static void put(struct classlog *c, struct fpl_buf *b, uint32_t id, const char *cls,
                const char *name, const char *src)
{
    static const struct methods_line l[] = {{0, 20}, {5, 21}};
    classlog_put_method(c, b, id, FPL_METHOD_JAVA, cls, name, "()V", src, l, 2);
}

/* Whether decoded method k is (v2, id, class, name, source). */
static int method_is(const struct decoded *d, size_t k, int v2, uint64_t id, const char *cls,
                     const char *name, const char *src)
{
    const struct dmethod *m = &d->m[k];
    int ok = k < d->nmethods && m->v2 == v2 && m->id == id && strcmp(m->cls, cls) == 0 &&
             strcmp(m->name, name) == 0 && strcmp(m->src, src) == 0;
    if (!ok && k < d->nmethods)
        fprintf(stderr, "method %zu: %s %llu %s.%s (%s), want %s %llu %s.%s (%s)\n", k,
                m->v2 ? "METHOD2" : "METHOD", (unsigned long long)m->id, m->cls, m->name, m->src,
                v2 ? "METHOD2" : "METHOD", (unsigned long long)id, cls, name, src);
    return ok;
}

/* A class other than `of` (both from `src`) that falls in its cache slot. */
static void slot_mate(const char *of, const char *src, char *out, size_t cap)
{
    char key[CLASSLOG_KEY_MAX];
    size_t n = (size_t)snprintf(key, sizeof(key), "%s%c%s", of, 0, src);
    uint64_t want = fpl_hash_bytes(key, n) & (CLASSLOG_SLOTS - 1);
    for (unsigned i = 0;; i++) {
        snprintf(out, cap, "p.C%u", i);
        n = (size_t)snprintf(key, sizeof(key), "%s%c%s", out, 0, src);
        if ((fpl_hash_bytes(key, n) & (CLASSLOG_SLOTS - 1)) == want && strcmp(out, of))
            return;
    }
}

int main(void)
{
    static struct decoded d;
    struct classlog c;
    struct fpl_buf b = {0};
    CHECK_EQ_U(classlog_init(&c), 0);

    /* FORMAT.md 5.22 and 5.23's example, byte for byte */
    static const uint8_t example[] = {
        0x16, 0x20, 0x01, 0x11, 0x6a, 0x61, 0x76, 0x61, 0x2e, 0x75, 0x74, 0x69, 0x6c, 0x2e, 0x48,
        0x61, 0x73, 0x68, 0x4d, 0x61, 0x70, 0x0c, 0x48, 0x61, 0x73, 0x68, 0x4d, 0x61, 0x70, 0x2e,
        0x6a, 0x61, 0x76, 0x61, 0x17, 0x26, 0x07, 0x00, 0x01, 0x04, 0x68, 0x61, 0x73, 0x68, 0x15,
        0x28, 0x4c, 0x6a, 0x61, 0x76, 0x61, 0x2f, 0x6c, 0x61, 0x6e, 0x67, 0x2f, 0x4f, 0x62, 0x6a,
        0x65, 0x63, 0x74, 0x3b, 0x29, 0x49, 0x03, 0x00, 0xa6, 0x05, 0x04, 0x02, 0x08, 0x03};
    static const struct methods_line hash_lines[] = {{0, 339}, {4, 340}, {12, 338}};
    classlog_put_method(&c, &b, 7, FPL_METHOD_JAVA, "java.util.HashMap", "hash",
                        "(Ljava/lang/Object;)I", "HashMap.java", hash_lines, 3);
    CHECK(b.len == sizeof(example) && memcmp(b.data, example, sizeof(example)) == 0);
    decode(&b, &d);
    CHECK(d.nmethods == 1 && d.m[0].nlines == 3 && d.m[0].bci[2] == 12 && d.m[0].line[2] == 338);

    /* each class once; a class of another source file is another class; methods by its id */
    b.len = 0;
    put(&c, &b, 8, "java.util.HashMap", "get", "HashMap.java");
    put(&c, &b, 9, "a.B", "f", "B.java");
    put(&c, &b, 10, "a.B", "g", "B.java");
    put(&c, &b, 11, "a.B", "h", "");
    classlog_put_method(&c, &b, 12, FPL_METHOD_MARKER, "", "[marker]", "", "", NULL, 0);
    classlog_put_method(&c, &b, 13, FPL_METHOD_STUB, NULL, "stub", NULL, NULL, NULL, 0);
    decode(&b, &d);
    CHECK_EQ_U(d.nclasses, 2);
    CHECK_EQ_U(d.nmethods, 6);
    CHECK(method_is(&d, 0, 1, 8, "java.util.HashMap", "get", "HashMap.java"));
    CHECK(method_is(&d, 1, 1, 9, "a.B", "f", "B.java"));
    CHECK(method_is(&d, 2, 1, 10, "a.B", "g", "B.java"));
    CHECK(method_is(&d, 3, 1, 11, "a.B", "h", ""));
    CHECK(method_is(&d, 4, 1, 12, "", "[marker]", "") && d.m[4].class_id == 0);
    CHECK(method_is(&d, 5, 1, 13, "", "stub", "") && d.m[5].class_id == 0);
    CHECK(d.m[0].class_id == 1 && d.m[1].class_id == d.m[2].class_id &&
          d.m[3].class_id != d.m[1].class_id && d.class_id[0] == 2 && d.class_id[1] == 3);
    CHECK(d.m[1].nlines == 2 && d.m[1].bci[1] == 5 && d.m[1].line[1] == 21);

    /* two classes of one slot take it in turn: a new id each time, never one id for both */
    char mate[64];
    slot_mate("a.B", "B.java", mate, sizeof(mate));
    b.len = 0;
    put(&c, &b, 20, mate, "f", "B.java");
    put(&c, &b, 21, "a.B", "f", "B.java");
    put(&c, &b, 22, mate, "f", "B.java");
    decode(&b, &d);
    CHECK_EQ_U(d.nclasses, 3);
    CHECK(method_is(&d, 0, 1, 20, mate, "f", "B.java"));
    CHECK(method_is(&d, 1, 1, 21, "a.B", "f", "B.java"));
    CHECK(method_is(&d, 2, 1, 22, mate, "f", "B.java"));
    CHECK(d.class_id[0] > 3 && d.class_id[1] > d.class_id[0] && d.class_id[2] > d.class_id[1]);

    /* a lost chunk: every class is written again, under a new id */
    classlog_forget(&c);
    b.len = 0;
    put(&c, &b, 30, "java.util.HashMap", "put", "HashMap.java");
    put(&c, &b, 31, "java.util.HashMap", "size", "HashMap.java");
    decode(&b, &d);
    CHECK_EQ_U(d.nclasses, 1);
    CHECK(d.class_id[0] > 6);
    CHECK(method_is(&d, 0, 1, 30, "java.util.HashMap", "put", "HashMap.java"));
    CHECK(method_is(&d, 1, 1, 31, "java.util.HashMap", "size", "HashMap.java"));

    /* METHOD where steps cannot say the table or a slot cannot hold the class */
    static const struct methods_line unsorted[] = {{8, 1}, {4, 2}};
    static const struct methods_line negative[] = {{0, -1}};
    static const struct methods_line down[] = {{0, 50}, {3, 10}, {9, 11}};
    char longcls[CLASSLOG_KEY_MAX + 1];
    memset(longcls, 'x', sizeof(longcls) - 1);
    longcls[sizeof(longcls) - 1] = 0;
    b.len = 0;
    classlog_put_method(&c, &b, 40, FPL_METHOD_JAVA, "a.B", "u", "()V", "B.java", unsorted, 2);
    classlog_put_method(&c, &b, 41, FPL_METHOD_JAVA, "a.B", "n", "()V", "B.java", negative, 1);
    put(&c, &b, 42, longcls, "l", "L.java");
    classlog_put_method(&c, &b, 43, FPL_METHOD_JAVA, "a.B", "d", "()V", "B.java", down, 3);
    decode(&b, &d);
    CHECK_EQ_U(d.nmethods, 4);
    CHECK(method_is(&d, 0, 0, 40, "a.B", "u", "B.java") && d.m[0].bci[1] == 4);
    CHECK(method_is(&d, 1, 0, 41, "a.B", "n", "B.java"));
    CHECK(method_is(&d, 2, 0, 42, longcls, "l", "L.java"));
    CHECK(method_is(&d, 3, 1, 43, "a.B", "d", "B.java"));
    CHECK(d.m[3].nlines == 3 && d.m[3].line[0] == 50 && d.m[3].line[1] == 10 &&
          d.m[3].bci[2] == 9 && d.m[3].line[2] == 11);

    /* without the cache: METHOD records, each with its class and source file */
    classlog_destroy(&c);
    b.len = 0;
    put(&c, &b, 50, "a.B", "f", "B.java");
    put(&c, &b, 51, "a.B", "g", "B.java");
    decode(&b, &d);
    CHECK_EQ_U(d.nclasses, 0);
    CHECK(method_is(&d, 0, 0, 50, "a.B", "f", "B.java"));
    CHECK(method_is(&d, 1, 0, 51, "a.B", "g", "B.java"));
    CHECK(d.m[1].nlines == 2 && d.m[1].bci[1] == 5 && d.m[1].line[1] == 21);

    fpl_buf_free(&b);
    return harness_result("test_classlog");
}
