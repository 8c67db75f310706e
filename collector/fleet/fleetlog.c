/* fleetlog.c: a selection of the fleet's rows as a flyprof log (fleetlog.h). */
#include "fleetlog.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_chunk.h"
#include "fpl_codec.h"
#include "fpl_format.h"
#include "fpl_hash.h"
#include "hashtab.h"
#include "render.h"

#define WALL_ONE (1u << 20) /* a wall row's weight as candidates / WALL_ONE */
#define FLUSH_BYTES (1u << 20)

/* The WHERE clause of the selection, into w. Strings are quoted for ClickHouse. */
static int where(const struct fleet_sel *s, char **w, size_t *len, size_t *cap)
{
    int rc = chttp_append(w, len, cap, "service = ", 10);
    rc = rc ? rc : chttp_sql_quote(w, len, cap, s->service);
    if (s->host) {
        rc = rc ? rc : chttp_append(w, len, cap, " AND host = ", 12);
        rc = rc ? rc : chttp_sql_quote(w, len, cap, s->host);
    }
    for (size_t i = 0; i < s->nlabels && rc == 0; i++) {
        rc = chttp_append(w, len, cap, " AND has(labels, ", 17);
        rc = rc ? rc : chttp_sql_quote(w, len, cap, s->labels[i]);
        rc = rc ? rc : chttp_append(w, len, cap, ")", 1);
    }
    char b[96];
    if (rc == 0 && s->from_s) {
        snprintf(b, sizeof(b), " AND time >= toDateTime(%" PRId64 ")", s->from_s);
        rc = chttp_append(w, len, cap, b, strlen(b));
    }
    if (rc == 0 && s->to_s) {
        snprintf(b, sizeof(b), " AND time < toDateTime(%" PRId64 ")", s->to_s);
        rc = chttp_append(w, len, cap, b, strlen(b));
    }
    return rc;
}

/* A TabSeparated field, unescaped in place (\\t \\n \\\\ and the others ClickHouse writes). */
static char *field(char **p)
{
    char *s = *p, *o = s, *i = s;
    while (*i && *i != '\t' && *i != '\n') {
        if (*i == '\\' && i[1]) {
            i++;
            *o++ = *i == 't' ? '\t' : *i == 'n' ? '\n' : *i == '0' ? '\0' : *i;
            i++;
        } else {
            *o++ = *i++;
        }
    }
    char end = *i;
    *o = 0;
    *p = end ? i + 1 : i;
    return s;
}

/* Names given ids: threads, frames. */
struct names {
    char **s;
    size_t n, cap;
    struct hashtab index;
};

/* The id (from 1) of name, and whether it is new. */
static int name_id(struct names *t, const char *name, uint64_t *id, int *fresh)
{
    uint64_t h = fpl_hash_str(name);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&t->index, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&t->index, &pr)) {
        if (strcmp(t->s[k], name) == 0) {
            *id = k + 1;
            *fresh = 0;
            return 0;
        }
    }
    if (t->n == t->cap) {
        size_t c = t->cap ? t->cap * 2 : 256;
        char **q = realloc(t->s, c * sizeof(*q));
        if (!q)
            return -ENOMEM;
        t->s = q;
        t->cap = c;
    }
    if (!(t->s[t->n] = strdup(name)) || hashtab_add(&t->index, h, (uint32_t)t->n))
        return -ENOMEM;
    *id = ++t->n;
    *fresh = 1;
    return 0;
}

static void names_free(struct names *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    hashtab_destroy(&t->index);
}

/* What a frame's name says it is: a marker, C/C++ or Java (its method kind; its frame type). */
static uint8_t frame_kind(const char *name, uint8_t *type)
{
    size_t n = strlen(name);
    if (n >= 2 && name[0] == '[' && name[n - 1] == ']') {
        *type = FPL_FRAME_MARKER;
        return FPL_METHOD_MARKER;
    }
    if (!strrchr(name, '.') || strstr(name, "::") || strchr(name, ' ') || strchr(name, '+')) {
        *type = FPL_FRAME_NATIVE;
        return FPL_METHOD_CFUNC;
    }
    *type = FPL_FRAME_JAVA;
    return FPL_METHOD_JAVA;
}

/* A stack hash's frames (in the answer of ClickHouse, unescaped in place). */
struct stack_text {
    uint64_t stack;
    char *text;
};

static void put_method(struct fpl_buf *b, uint64_t id, const char *name, int class_leaf)
{
    const char *dot = strrchr(name, '.');
    uint8_t type, kind = class_leaf ? FPL_METHOD_CLASS : frame_kind(name, &type);
    size_t r = fpl_rec_begin(b, FPL_REC_METHOD);
    fpl_put_v(b, id);
    fpl_put_u8(b, kind);
    if (kind == FPL_METHOD_JAVA) {
        char *cls = strndup(name, (size_t)(dot - name));
        fpl_put_str(b, cls ? cls : "");
        free(cls);
        fpl_put_str(b, dot + 1);
    } else {
        fpl_put_str(b, "");
        fpl_put_str(b, name);
    }
    fpl_put_str(b, "");
    fpl_put_str(b, "");
    fpl_put_v(b, 0);
    fpl_rec_end(b, r);
}

/* Runs head, the selection's condition w (wl bytes), tail on u, the query built in *q (its
 * buffer, reused); ClickHouse's answer in *answer. Returns 0 or -errno with err. */
static int ask(const struct chttp_url *u, const char *head, const char *w, size_t wl,
               const char *tail, char **q, size_t *qc, char **answer, char *err, size_t errlen)
{
    size_t ql = 0;
    int rc = chttp_append(q, &ql, qc, head, strlen(head));
    rc = rc ? rc : chttp_append(q, &ql, qc, w, wl);
    rc = rc ? rc : chttp_append(q, &ql, qc, tail, strlen(tail));
    if (rc) {
        snprintf(err, errlen, "out of memory");
        return rc;
    }
    return chttp_query(u, 0, *q, NULL, 0, answer, NULL, err, errlen);
}

int fleetlog_write(const struct chttp_url *u, const struct fleet_sel *s, int fd, uint64_t *rows,
                   char *err, size_t errlen)
{
    char *w = NULL, *q = NULL, *out = NULL, *iv = NULL;
    size_t wl = 0, wc = 0, qc = 0;
    struct fpl_buf b = {0};
    struct names threads = {0}, frames = {0}, stacks = {0};
    char *key = NULL; /* a frame's key: a byte for a class leaf or not, the name */
    char *st_out = NULL, empty[1] = "";
    struct stack_text *texts = NULL; /* the stacks' frames, in st_out */
    size_t nst = 0, stcap = 0;
    struct hashtab st_index = {0};
    size_t klen = 0, kcap = 0;
    uint64_t *mids = NULL;
    uint8_t *types = NULL;
    size_t mcap = 0;
    uint32_t seq = 0;
    int rc = where(s, &w, &wl, &wc);
    *rows = 0;
    /* the mean interval of each kind */
    static const char q1a[] = "SELECT kind, sum(weight_ns) / sum(weight), toUInt32(min(time)), "
                              "toUInt32(max(time)) "
                              "FROM flyprof_samples WHERE ";
    static const char q1b[] = " GROUP BY kind FORMAT TabSeparated";
    if (rc) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if ((rc = ask(u, q1a, w, wl, q1b, &q, &qc, &iv, err, errlen)) != 0)
        goto out;
    uint64_t interval[2] = {0, 0}, first = UINT64_MAX;
    int any = 0;
    for (char *p = iv; *p;) {
        char *k = field(&p), *v = field(&p);
        uint64_t lo = strtoull(field(&p), NULL, 10);
        field(&p);
        first = lo && lo < first ? lo : first;
        double x = strtod(v, NULL);
        int wall = strcmp(k, "wall") == 0;
        any = 1;
        if ((wall || strcmp(k, "cpu") == 0) && isfinite(x) && x > 0)
            interval[wall] = (uint64_t)llround(x);
    }
    if (!any) {
        snprintf(err, errlen, "%s: no samples of service '%s'%s%s in the selection", u->url,
                 s->service, s->host ? " on host " : "", s->host ? s->host : "");
        rc = -ENOENT;
        goto out;
    }
    /* the rows by stack hash, then the frames of their stacks, each once: a stack's text in
     * every row would make the answer as many times bigger as the stack has rows (threads,
     * states, kinds). GLOBAL IN: over a cluster, the stacks' shards get the hashes. */
    static const char q2a[] = "SELECT kind, state, thread, stack, sum(weight) FROM "
                              "flyprof_samples WHERE ";
    static const char q2b[] = " GROUP BY kind, state, thread, stack FORMAT TabSeparated";
    static const char q3a[] = "SELECT stack, any(frames) FROM flyprof_stacks WHERE stack GLOBAL "
                              "IN (SELECT DISTINCT stack FROM flyprof_samples WHERE ";
    static const char q3b[] = ") GROUP BY stack FORMAT TabSeparated";
    /* the rows first, then the texts: a push inserts a log's stacks before its rows and
     * never deletes stacks, so every row read has its text even while pushes go on */
    if ((rc = ask(u, q2a, w, wl, q2b, &q, &qc, &out, err, errlen)) != 0 ||
        (rc = ask(u, q3a, w, wl, q3b, &q, &qc, &st_out, err, errlen)) != 0)
        goto out;
    for (char *p = st_out; *p;) {
        uint64_t sh = strtoull(field(&p), NULL, 10);
        char *text = field(&p);
        if (nst == stcap) {
            size_t c = stcap ? stcap * 2 : 1024;
            struct stack_text *t2 = realloc(texts, c * sizeof(*t2));
            if (!t2) {
                rc = -ENOMEM;
                break;
            }
            texts = t2;
            stcap = c;
        }
        texts[nst] = (struct stack_text){sh, text};
        if ((rc = hashtab_add(&st_index, fpl_hash_u64(sh), (uint32_t)nst)) != 0)
            break;
        nst++;
    }
    if (rc) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }

    if ((rc = fpl_chunk_write_preamble(fd)) != 0) {
        snprintf(err, errlen, "cannot write the fleet's log: %s", strerror(-rc));
        goto out;
    }
    /* the log starts at the window's start, else at the selection's first minute */
    uint64_t t0 = s->from_s > 0 ? (uint64_t)s->from_s : first != UINT64_MAX ? first : 0;
    t0 *= 1000000000ull;
    size_t r = fpl_rec_begin(&b, FPL_REC_HEADER);
    fpl_put_v(&b, 1);
    fpl_put_v(&b, 0);
    fpl_put_u8(&b, FPL_CLOCK_MONOTONIC);
    fpl_put_u64(&b, 1000000000ull);
    fpl_put_u64(&b, t0);
    fpl_put_u64(&b, t0);
    fpl_put_u64(&b, t0);
    fpl_put_v(&b, interval[0]);
    fpl_put_u8(&b, interval[0] ? FPL_ENGINE_CPUTIMER : FPL_ENGINE_NONE);
    fpl_put_v(&b, interval[1]);
    fpl_put_v(&b, 0);
    fpl_put_v(&b, 0);
    char opts[160];
    snprintf(opts, sizeof(opts), "fleet: service=%.60s%s%.60s", s->service,
             s->host ? ",host=" : "", s->host ? s->host : "");
    fpl_put_str(&b, opts);
    fpl_put_str(&b, "");
    fpl_put_str(&b, "");
    fpl_put_str(&b, "");
    fpl_put_str(&b, "");
    fpl_rec_end(&b, r);
    uint64_t tick = 0;
    int first_rec = 1;
    for (char *p = out; *p && rc == 0;) {
        char *kind = field(&p), *state = field(&p), *thread = field(&p);
        uint64_t sh = strtoull(field(&p), NULL, 10);
        double wt = strtod(field(&p), NULL);
        char *fr = empty;
        struct hashtab_probe pr;
        for (uint32_t k = hashtab_first(&st_index, fpl_hash_u64(sh), &pr); k != HASHTAB_NONE;
             k = hashtab_next(&st_index, &pr))
            if (texts[k].stack == sh)
                fr = texts[k].text;
        int wall = strcmp(kind, "wall") == 0;
        uint8_t fk = wall                              ? FPL_KIND_WALL
                     : strcmp(kind, "alloc") == 0 ? FPL_KIND_ALLOC
                     : strcmp(kind, "lock") == 0  ? FPL_KIND_LOCK
                     : strcmp(kind, "live") == 0  ? FPL_KIND_LIVE
                                                  : FPL_KIND_CPU;
        int cls = fk == FPL_KIND_ALLOC || fk == FPL_KIND_LOCK || fk == FPL_KIND_LIVE;
        if (!isfinite(wt) || wt <= 0)
            continue;
        uint64_t tid, sid;
        int fresh;
        if ((rc = name_id(&threads, thread, &tid, &fresh)) != 0)
            break;
        if (fresh) {
            r = fpl_rec_begin(&b, FPL_REC_THREAD);
            fpl_put_v(&b, tid);
            fpl_put_v(&b, 0);
            fpl_put_str(&b, thread);
            fpl_rec_end(&b, r);
        }
        /* the stack: its frames root first in the row, leaf first in the log; once per
         * distinct stack (rows of other threads or states share it) */
        ++*rows;
        int new_stack;
        /* alloc, lock and live stacks end in a class, not a method: keyed apart */
        char skey[32];
        snprintf(skey, sizeof(skey), "%c%" PRIu64, cls ? 'c' : 'm', sh);
        if ((rc = name_id(&stacks, skey, &sid, &new_stack)) != 0)
            break;
        size_t n = 0;
        for (char *f = fr; new_stack && rc == 0;) {
            char *sc = strchr(f, ';');
            if (sc)
                *sc = 0;
            if (n == mcap) {
                size_t c = mcap ? mcap * 2 : 64;
                uint64_t *m2 = realloc(mids, c * sizeof(*m2));
                uint8_t *t2 = m2 ? realloc(types, c) : NULL;
                if (m2)
                    mids = m2;
                if (t2)
                    types = t2;
                if (!m2 || !t2) {
                    rc = -ENOMEM;
                    break;
                }
                mcap = c;
            }
            int leaf_class = cls && !sc;
            klen = 0;
            if ((rc = chttp_append(&key, &klen, &kcap, leaf_class ? "\1" : "\2", 1)) != 0 ||
                (rc = chttp_append(&key, &klen, &kcap, f, strlen(f))) != 0 ||
                (rc = name_id(&frames, key, &mids[n], &fresh)) != 0)
                break;
            if (fresh)
                put_method(&b, mids[n], f, leaf_class);
            if (leaf_class)
                types[n] = FPL_FRAME_CLASS;
            else
                frame_kind(f, &types[n]);
            n++;
            if (!sc)
                break;
            *sc = ';'; /* the text is shared: a stack keyed as both kinds is split again */
            f = sc + 1;
        }
        if (rc)
            break;
        if (new_stack) {
            r = fpl_rec_begin(&b, FPL_REC_STACK);
            fpl_put_v(&b, sid);
            fpl_put_v(&b, n);
            for (size_t k = n; k-- > 0;) { /* leaf first */
                fpl_put_v(&b, mids[k]);
                fpl_put_sv(&b, -1);
            }
            for (size_t k = n; k-- > 0;)
                fpl_put_u8(&b, types[k]);
            fpl_rec_end(&b, r);
        }
        uint64_t weight = 1, tick_id = 0;
        if (wall) {
            tick_id = ++tick;
            r = fpl_rec_begin(&b, FPL_REC_WALL_TICK);
            fpl_put_v(&b, tick_id);
            fpl_put_u64(&b, t0);
            fpl_put_v(&b, (uint64_t)llround(wt * WALL_ONE));
            fpl_put_v(&b, WALL_ONE);
            fpl_put_v(&b, WALL_ONE);
            fpl_put_v(&b, 0);
            fpl_rec_end(&b, r);
        } else {
            weight = (uint64_t)llround(wt);
        }
        int ps = render_state_parse(state); /* as push wrote it: render_state_name */
        uint8_t st = ps > 0 && ps <= FPL_STATE_NATIVE ? (uint8_t)ps : FPL_STATE_UNKNOWN;
        r = fpl_rec_begin(&b, FPL_REC_SAMPLE);
        /* every sample at the start: the first of a chunk is absolute, the others 0 after it */
        fpl_put_sv(&b, first_rec ? (int64_t)t0 : 0);
        first_rec = 0;
        fpl_put_v(&b, tid);
        fpl_put_v(&b, sid);
        fpl_put_v(&b, weight ? weight : 1);
        fpl_put_u8(&b, fk);
        fpl_put_u8(&b, wall ? st : FPL_STATE_UNKNOWN);
        fpl_put_v(&b, tick_id);
        fpl_rec_end(&b, r);
        if (b.len >= FLUSH_BYTES) {
            if (b.failed || (rc = fpl_chunk_write(fd, seq++, b.data, b.len)) != 0)
                break;
            b.len = 0;
            first_rec = 1;
        }
    }
    if (rc == 0) {
        r = fpl_rec_begin(&b, FPL_REC_END);
        fpl_put_u64(&b, t0);
        fpl_rec_end(&b, r);
        rc = b.failed ? -ENOMEM : fpl_chunk_write(fd, seq++, b.data, b.len);
    }
    if (rc)
        snprintf(err, errlen, "cannot write the fleet's log: %s", strerror(-rc));
out:
    free(w);
    free(q);
    free(out);
    free(iv);
    free(mids);
    free(types);
    fpl_buf_free(&b);
    names_free(&threads);
    names_free(&frames);
    names_free(&stacks);
    free(key);
    free(st_out);
    free(texts);
    hashtab_destroy(&st_index);
    return rc;
}
