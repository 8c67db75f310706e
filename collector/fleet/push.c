/* push.c: a log into ClickHouse (push.h). Three reads of the log: the profile (dictionaries,
 * clock, contexts), the wall ticks (each wall sample's scale), then the samples, summed per
 * minute and (thread, stack, kind, state, context). */
#include "push.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fpl_hash.h"
#include "hashtab.h"
#include "profile.h"
#include "reader.h"
#include "render.h"

#define BUCKET_NS 60000000000ull /* a row's time: the minute */

static const char *const schema[] = {
    "CREATE DATABASE IF NOT EXISTS {db}",
    "CREATE TABLE IF NOT EXISTS {db}.flyprof_samples (day Date, time DateTime, service String, "
    "host String, labels Array(String), kind String, state String, thread String, "
    "endpoint String, stack UInt64, weight Float64, weight_ns Float64, samples UInt64, "
    "log UInt64) ENGINE = MergeTree() PARTITION BY day ORDER BY (service, host, time, stack)",
    "CREATE TABLE IF NOT EXISTS {db}.flyprof_stacks (stack UInt64, frames String) "
    "ENGINE = ReplacingMergeTree() ORDER BY stack",
    "CREATE TABLE IF NOT EXISTS {db}.flyprof_logs (log UInt64, service String, host String, "
    "labels Array(String), file String, pid UInt64, start DateTime, samples UInt64, "
    "complete UInt8, pushed DateTime) ENGINE = ReplacingMergeTree(pushed) ORDER BY log",
};

int push_schema(const struct chttp_url *u, char *err, size_t errlen)
{
    for (size_t i = 0; i < sizeof(schema) / sizeof(schema[0]); i++) {
        char q[1024];
        const char *at = strstr(schema[i], "{db}");
        snprintf(q, sizeof(q), "%.*s%s%s", (int)(at - schema[i]), schema[i], u->db, at + 4);
        int rc = chttp_query(u, i == 0, q, NULL, 0, NULL, NULL, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

/* A row being summed: its key and sums. */
struct cell {
    uint64_t minute, thread_id, stack_id, context_id;
    uint8_t kind, state;
    unsigned __int128 fp; /* upscaled weight, fixed point (profile.h) */
    uint64_t samples;
};

struct tick {
    uint64_t id, candidates, chosen;
};

struct pass {
    struct profile *p;
    struct cell *cells;
    size_t ncells, cap;
    struct hashtab index;
    struct tick *ticks;
    size_t nticks, tcap;
    struct hashtab tindex;
    uint64_t other_kinds;
};

static int on_tick(void *ctx, const struct reader_wall_tick *t)
{
    struct pass *ps = ctx;
    uint64_t h = fpl_hash_u64(t->id);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&ps->tindex, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&ps->tindex, &pr))
        if (ps->ticks[k].id == t->id)
            return 0; /* the first definition is kept (FORMAT.md 5.10) */
    if (ps->nticks == ps->tcap) {
        size_t c = ps->tcap ? ps->tcap * 2 : 1024;
        struct tick *q = realloc(ps->ticks, c * sizeof(*q));
        if (!q)
            return -ENOMEM;
        ps->ticks = q;
        ps->tcap = c;
    }
    ps->ticks[ps->nticks] = (struct tick){t->id, t->candidates, t->chosen};
    if (hashtab_add(&ps->tindex, h, (uint32_t)ps->nticks))
        return -ENOMEM;
    ps->nticks++;
    return 0;
}

/* A sample's upscaled weight: weight x candidates / chosen of its tick for a wall sample
 * whose tick is known and sane, else its weight (as profile.c does). */
static unsigned __int128 upscaled(const struct pass *ps, const struct reader_sample *s)
{
    unsigned __int128 w = (unsigned __int128)s->weight << PROFILE_FP_SHIFT;
    if (s->kind != FPL_KIND_WALL || !s->tick_id)
        return w;
    struct hashtab_probe pr;
    uint64_t h = fpl_hash_u64(s->tick_id);
    for (uint32_t k = hashtab_first(&ps->tindex, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&ps->tindex, &pr)) {
        const struct tick *t = &ps->ticks[k];
        if (t->id != s->tick_id)
            continue;
        if (!t->chosen || t->chosen > t->candidates)
            return w;
        return (w * t->candidates + t->chosen / 2) / t->chosen;
    }
    return w;
}

static int on_sample(void *ctx, const struct reader_sample *s)
{
    struct pass *ps = ctx;
    if (s->kind > FPL_KIND_WALL) {
        ps->other_kinds++; /* alloc, lock and live samples are not pushed yet */
        return 0;
    }
    uint64_t real = profile_ticks_to_real_ns(ps->p, s->ticks);
    struct cell key = {real / BUCKET_NS, s->thread_id, s->stack_id, s->context_id, s->kind,
                       s->state, 0, 0};
    uint64_t h = fpl_hash_mix(fpl_hash_mix(fpl_hash_mix(fpl_hash_u64(key.minute), key.thread_id),
                                           key.stack_id),
                              key.context_id ^ ((uint64_t)key.kind << 56 | (uint64_t)key.state << 48));
    struct hashtab_probe pr;
    uint32_t k;
    for (k = hashtab_first(&ps->index, h, &pr); k != HASHTAB_NONE; k = hashtab_next(&ps->index, &pr)) {
        const struct cell *c = &ps->cells[k];
        if (c->minute == key.minute && c->thread_id == key.thread_id &&
            c->stack_id == key.stack_id && c->context_id == key.context_id &&
            c->kind == key.kind && c->state == key.state)
            break;
    }
    if (k == HASHTAB_NONE) {
        if (ps->ncells == ps->cap) {
            size_t c = ps->cap ? ps->cap * 2 : 4096;
            struct cell *q = realloc(ps->cells, c * sizeof(*q));
            if (!q)
                return -ENOMEM;
            ps->cells = q;
            ps->cap = c;
        }
        k = (uint32_t)ps->ncells;
        ps->cells[k] = key;
        if (hashtab_add(&ps->index, h, k))
            return -ENOMEM;
        ps->ncells++;
    }
    ps->cells[k].fp += upscaled(ps, s);
    ps->cells[k].samples++;
    return 0;
}

/* The stack's frames root first, ';'-separated, into *b (reset). */
static int stack_text(const struct profile *p, uint64_t stack_id, char **b, size_t *len,
                      size_t *cap)
{
    *len = 0;
    int rc = chttp_append(b, len, cap, "", 0);
    const struct profile_stack *st = profile_stack_find(p, stack_id);
    if (!st)
        return rc ? rc : chttp_append(b, len, cap, PROFILE_UNKNOWN_STACK,
                                      strlen(PROFILE_UNKNOWN_STACK));
    if (st->nframes == 0)
        return chttp_append(b, len, cap, PROFILE_EMPTY_STACK, strlen(PROFILE_EMPTY_STACK));
    for (uint32_t k = st->nframes; k-- > 0 && rc == 0;) {
        const char *name = profile_frame_name(p, &st->frames[k]);
        if (*len)
            rc = chttp_append(b, len, cap, ";", 1);
        if (rc == 0)
            rc = chttp_append(b, len, cap, name, strlen(name));
    }
    return rc;
}

static void day_time(uint64_t minute, char *day, char *tm)
{
    time_t t = (time_t)(minute * 60);
    struct tm g;
    gmtime_r(&t, &g);
    strftime(day, 16, "%Y-%m-%d", &g);
    strftime(tm, 24, "%Y-%m-%d %H:%M:%S", &g);
}

/* The labels as a ClickHouse array literal in TSV: ['k=v','k2=v2'] */
static int labels_tsv(char **b, size_t *len, size_t *cap, const struct push_opts *o)
{
    int rc = chttp_append(b, len, cap, "[", 1);
    for (size_t i = 0; i < o->nlabels && rc == 0; i++) {
        if (i)
            rc = chttp_append(b, len, cap, ",", 1);
        rc = rc ? rc : chttp_append(b, len, cap, "'", 1);
        for (const char *s = o->labels[i]; *s && rc == 0; s++) {
            if (*s == '\'' || *s == '\\')
                rc = chttp_append(b, len, cap, "\\\\", 2);
            if (rc == 0 && (*s == '\t' || *s == '\n'))
                rc = chttp_append(b, len, cap, " ", 1);
            else if (rc == 0)
                rc = chttp_append(b, len, cap, s, 1);
        }
        rc = rc ? rc : chttp_append(b, len, cap, "'", 1);
    }
    return rc ? rc : chttp_append(b, len, cap, "]", 1);
}

/* The log's id: its JVM and start, and what it was pushed as. */
static uint64_t log_id(const struct profile *p, const struct push_opts *o)
{
    uint64_t h = fpl_hash_mix(fpl_hash_u64(p->header.pid), p->header.anchor_ticks);
    h = fpl_hash_mix(h, p->header.anchor_real_ns);
    h = fpl_hash_mix(h, fpl_hash_str(o->service));
    h = fpl_hash_mix(h, fpl_hash_str(o->host));
    for (size_t i = 0; i < o->nlabels; i++)
        h = fpl_hash_mix(h, fpl_hash_str(o->labels[i]));
    return h;
}

/* "count\tmax" of a query's one row. */
static int two_numbers(const struct chttp_url *u, const char *q, uint64_t *a, uint64_t *b,
                       char *err, size_t errlen)
{
    char *out = NULL;
    int rc = chttp_query(u, 0, q, NULL, 0, &out, NULL, err, errlen);
    if (rc)
        return rc;
    unsigned long long x = 0, y = 0;
    int n = sscanf(out, "%llu\t%llu", &x, &y);
    free(out);
    if (n < 1) {
        snprintf(err, errlen, "ClickHouse at %s: an answer that is not numbers", u->url);
        return -EPROTO;
    }
    *a = x;
    *b = y;
    return 0;
}

int push_log(const struct chttp_url *u, const struct push_opts *o, const char *path,
             struct push_result *r, char *err, size_t errlen)
{
    memset(r, 0, sizeof(*r));
    struct pass ps = {0};
    char *body = NULL, *sbody = NULL, *text = NULL;
    size_t blen = 0, bcap = 0, slen = 0, scap = 0, tlen = 0, tcap = 0;
    struct hashtab seen = {0};
    uint64_t *seen_ids = NULL;
    size_t nseen = 0, seen_cap = 0;
    char q[1024];
    int rc;

    ps.p = profile_new();
    if (!ps.p) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    if ((rc = profile_read_file(ps.p, path, err, errlen)) != 0)
        goto out;
    const struct profile *p = ps.p;
    if (!p->have_header || !p->time_known) {
        snprintf(err, errlen, "%s: no HEADER (its first chunk is lost): the samples' times are "
                              "unknown, nothing pushed", path);
        rc = -EINVAL;
        goto out;
    }
    r->complete = p->end_seen && !p->stats.chunks_lost && !p->stats.chunks_damaged &&
                  !p->stats.chunks_truncated;
    r->damaged_chunks = p->stats.chunks_lost + p->stats.chunks_damaged + p->stats.chunks_truncated;
    struct reader_ops tick_ops = {.wall_tick = on_tick};
    struct reader_ops sample_ops = {.sample = on_sample};
    if ((rc = reader_read_file(path, &tick_ops, &ps, NULL, err, errlen)) != 0 ||
        (rc = reader_read_file(path, &sample_ops, &ps, NULL, err, errlen)) != 0)
        goto out;

    r->log_id = log_id(p, o);
    uint64_t in = 0, done = 0, rows_in = 0, unused = 0;
    snprintf(q, sizeof(q), "SELECT count(), max(complete) FROM flyprof_logs WHERE log = %" PRIu64
                           " FORMAT TabSeparated", r->log_id);
    if ((rc = two_numbers(u, q, &in, &done, err, errlen)) != 0)
        goto out;
    if (in && done) {
        r->skipped = 1;
        goto out;
    }
    snprintf(q, sizeof(q), "SELECT count(), 0 FROM flyprof_samples WHERE log = %" PRIu64
                           " FORMAT TabSeparated", r->log_id);
    if ((rc = two_numbers(u, q, &rows_in, &unused, err, errlen)) != 0)
        goto out;
    if (rows_in) {
        /* an incomplete push of this log, or a push that died before it recorded the log:
         * its rows go first (a mutation applies to the rows in when it is made, not to those
         * inserted after) */
        snprintf(q, sizeof(q), "ALTER TABLE flyprof_samples DELETE WHERE log = %" PRIu64,
                 r->log_id);
        if ((rc = chttp_query(u, 0, q, NULL, 0, NULL, NULL, err, errlen)) != 0)
            goto out;
        r->replaced = 1;
    }

    /* the rows, and the stacks they use (each once per push) */
    for (size_t i = 0; i < ps.ncells && rc == 0; i++) {
        const struct cell *c = &ps.cells[i];
        if ((rc = stack_text(p, c->stack_id, &text, &tlen, &tcap)) != 0)
            break;
        uint64_t sh = fpl_hash_str(text);
        struct hashtab_probe pr;
        uint64_t hh = fpl_hash_u64(sh);
        uint32_t k;
        for (k = hashtab_first(&seen, hh, &pr); k != HASHTAB_NONE; k = hashtab_next(&seen, &pr))
            if (seen_ids[k] == sh)
                break;
        if (k == HASHTAB_NONE) {
            if (nseen == seen_cap) {
                size_t cc = seen_cap ? seen_cap * 2 : 1024;
                uint64_t *qq = realloc(seen_ids, cc * sizeof(*qq));
                if (!qq) {
                    rc = -ENOMEM;
                    break;
                }
                seen_ids = qq;
                seen_cap = cc;
            }
            seen_ids[nseen] = sh;
            if (hashtab_add(&seen, hh, (uint32_t)nseen)) {
                rc = -ENOMEM;
                break;
            }
            nseen++;
            char num[32];
            snprintf(num, sizeof(num), "%" PRIu64 "\t", sh);
            rc = chttp_append(&sbody, &slen, &scap, num, strlen(num));
            rc = rc ? rc : chttp_tsv_escape(&sbody, &slen, &scap, text);
            rc = rc ? rc : chttp_append(&sbody, &slen, &scap, "\n", 1);
        }
        const struct profile_thread *th = profile_thread_find(p, c->thread_id);
        const char *endpoint = "";
        const struct tracectx_def *d = c->context_id ? tracectx_find(&p->ctx, c->context_id)
                                                     : NULL;
        if (d) {
            const char *e = tracectx_endpoint(&p->ctx, d->root);
            endpoint = e ? e : "";
        }
        const char *state = c->kind == FPL_KIND_CPU && c->state == FPL_STATE_UNKNOWN
                                ? "running"
                                : render_state_name(c->state);
        double w = (double)c->fp / (double)PROFILE_FP_ONE;
        uint64_t interval = c->kind == FPL_KIND_CPU ? p->header.cpu_interval_ns
                                                    : p->header.wall_interval_ns;
        char day[16], tm[24], line[256];
        day_time(c->minute, day, tm);
        snprintf(line, sizeof(line), "%s\t%s\t", day, tm);
        rc = rc ? rc : chttp_append(&body, &blen, &bcap, line, strlen(line));
        rc = rc ? rc : chttp_tsv_escape(&body, &blen, &bcap, o->service);
        rc = rc ? rc : chttp_append(&body, &blen, &bcap, "\t", 1);
        rc = rc ? rc : chttp_tsv_escape(&body, &blen, &bcap, o->host);
        rc = rc ? rc : chttp_append(&body, &blen, &bcap, "\t", 1);
        rc = rc ? rc : labels_tsv(&body, &blen, &bcap, o);
        snprintf(line, sizeof(line), "\t%s\t%s\t", c->kind == FPL_KIND_CPU ? "cpu" : "wall",
                 state ? state : "unknown");
        rc = rc ? rc : chttp_append(&body, &blen, &bcap, line, strlen(line));
        rc = rc ? rc : chttp_tsv_escape(&body, &blen, &bcap,
                                        th ? th->display : PROFILE_UNKNOWN_THREAD);
        rc = rc ? rc : chttp_append(&body, &blen, &bcap, "\t", 1);
        rc = rc ? rc : chttp_tsv_escape(&body, &blen, &bcap, endpoint);
        snprintf(line, sizeof(line), "\t%" PRIu64 "\t%.17g\t%.17g\t%" PRIu64 "\t%" PRIu64 "\n",
                 sh, w, w * (double)interval, c->samples, r->log_id);
        rc = rc ? rc : chttp_append(&body, &blen, &bcap, line, strlen(line));
        r->samples += c->samples;
    }
    if (rc) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    r->rows = ps.ncells;
    r->other_kinds = ps.other_kinds;
    r->stacks = nseen;
    if (nseen && (rc = chttp_query(u, 0, "INSERT INTO flyprof_stacks FORMAT TabSeparated", sbody,
                                   slen, NULL, NULL, err, errlen)) != 0)
        goto out;
    if (ps.ncells && (rc = chttp_query(u, 0, "INSERT INTO flyprof_samples FORMAT TabSeparated",
                                       body, blen, NULL, NULL, err, errlen)) != 0)
        goto out;
    /* last: the log is in */
    blen = 0;
    char start[24], pushed[24], day[16];
    day_time(p->header.anchor_real_ns / BUCKET_NS, day, start);
    time_t now = time(NULL);
    struct tm g;
    gmtime_r(&now, &g);
    strftime(pushed, sizeof(pushed), "%Y-%m-%d %H:%M:%S", &g);
    char line[256];
    snprintf(line, sizeof(line), "%" PRIu64 "\t", r->log_id);
    rc = chttp_append(&body, &blen, &bcap, line, strlen(line));
    rc = rc ? rc : chttp_tsv_escape(&body, &blen, &bcap, o->service);
    rc = rc ? rc : chttp_append(&body, &blen, &bcap, "\t", 1);
    rc = rc ? rc : chttp_tsv_escape(&body, &blen, &bcap, o->host);
    rc = rc ? rc : chttp_append(&body, &blen, &bcap, "\t", 1);
    rc = rc ? rc : labels_tsv(&body, &blen, &bcap, o);
    rc = rc ? rc : chttp_append(&body, &blen, &bcap, "\t", 1);
    rc = rc ? rc : chttp_tsv_escape(&body, &blen, &bcap, path);
    snprintf(line, sizeof(line), "\t%" PRIu64 "\t%s\t%" PRIu64 "\t%d\t%s\n", p->header.pid,
             start, r->samples, r->complete, pushed);
    rc = rc ? rc : chttp_append(&body, &blen, &bcap, line, strlen(line));
    if (rc) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    rc = chttp_query(u, 0, "INSERT INTO flyprof_logs FORMAT TabSeparated", body, blen, NULL, NULL,
                     err, errlen);
out:
    profile_free(ps.p);
    free(ps.cells);
    free(ps.ticks);
    hashtab_destroy(&ps.index);
    hashtab_destroy(&ps.tindex);
    hashtab_destroy(&seen);
    free(seen_ids);
    free(body);
    free(sbody);
    free(text);
    return rc;
}
