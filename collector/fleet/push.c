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

/* The tables, {t} their suffix: "" on one server; "_local" on each server of a cluster, under
 * Distributed tables of the plain names (shard_keys). */
static const char *const tables[] = {
    "CREATE TABLE IF NOT EXISTS {db}.flyprof_samples{t} (day Date, time DateTime, "
    "service String, host String, labels Array(String), kind String, state String, "
    "thread String, endpoint String, stack UInt64, weight Float64, weight_ns Float64, "
    "samples UInt64, log UInt64) ENGINE = MergeTree() PARTITION BY day "
    "ORDER BY (service, host, time, stack)",
    "CREATE TABLE IF NOT EXISTS {db}.flyprof_stacks{t} (stack UInt64, frames String) "
    "ENGINE = ReplacingMergeTree() ORDER BY stack",
    "CREATE TABLE IF NOT EXISTS {db}.flyprof_logs{t} (log UInt64, service String, host String, "
    "labels Array(String), file String, pid UInt64, start DateTime, samples UInt64, "
    "complete UInt8, pushed DateTime) ENGINE = ReplacingMergeTree(pushed) ORDER BY log",
};
static const char *const table_names[] = {"flyprof_samples", "flyprof_stacks", "flyprof_logs"};
/* a host's rows on one shard; a stack, a log on one shard (so ReplacingMergeTree sees its
 * copies together) */
static const char *const shard_keys[] = {"sipHash64(host)", "stack", "log"};

/* Runs template q with {db} and {t} replaced, on u. */
static int run_tmpl(const struct chttp_url *u, int nodb, const char *q, const char *t,
                    char *err, size_t errlen)
{
    char *b = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    for (const char *p = q; *p && rc == 0;) {
        if (strncmp(p, "{db}", 4) == 0) {
            rc = chttp_append(&b, &len, &cap, u->db, strlen(u->db));
            p += 4;
        } else if (strncmp(p, "{t}", 3) == 0) {
            rc = chttp_append(&b, &len, &cap, t, strlen(t));
            p += 3;
        } else {
            rc = chttp_append(&b, &len, &cap, p++, 1);
        }
    }
    if (rc) {
        snprintf(err, errlen, "out of memory");
        free(b);
        return rc;
    }
    rc = chttp_query(u, nodb, b, NULL, 0, NULL, NULL, err, errlen);
    free(b);
    return rc;
}

int push_cluster_urls(const struct chttp_url *u, const char *cluster, struct chttp_url **urls,
                      size_t *n, char *err, size_t errlen)
{
    char *q = NULL, *out = NULL;
    size_t ql = 0, qc = 0;
    *urls = NULL;
    *n = 0;
    static const char q1[] = "SELECT DISTINCT host_name FROM system.clusters WHERE cluster = ";
    static const char q2[] = " ORDER BY host_name FORMAT TabSeparated";
    int rc = chttp_append(&q, &ql, &qc, q1, sizeof(q1) - 1);
    rc = rc ? rc : chttp_sql_quote(&q, &ql, &qc, cluster);
    rc = rc ? rc : chttp_append(&q, &ql, &qc, q2, sizeof(q2) - 1);
    if (rc) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if ((rc = chttp_query(u, 1, q, NULL, 0, &out, NULL, err, errlen)) != 0)
        goto out;
    size_t lines = 0;
    for (const char *p = out; *p; p++)
        lines += *p == '\n';
    if (lines == 0) {
        snprintf(err, errlen, "ClickHouse at %s has no cluster '%s' (system.clusters: its "
                              "remote_servers configuration)", u->url, cluster);
        rc = -ENOENT;
        goto out;
    }
    *urls = calloc(lines, sizeof(**urls));
    if (!*urls) {
        snprintf(err, errlen, "out of memory");
        rc = -ENOMEM;
        goto out;
    }
    for (char *p = out, *nl; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
        *nl = 0;
        struct chttp_url *s = &(*urls)[*n];
        *s = *u;
        s->params[0] = 0;
        if (strlen(p) >= sizeof(s->host) || !*p) {
            snprintf(err, errlen, "cluster '%s': a host name that is too long or empty", cluster);
            rc = -EINVAL;
            goto out;
        }
        snprintf(s->host, sizeof(s->host), "%s", p);
        snprintf(s->url, sizeof(s->url), "http://%s:%s/%s", s->host, s->port, s->db);
        (*n)++;
    }
out:
    if (rc) {
        free(*urls);
        *urls = NULL;
        *n = 0;
    }
    free(q);
    free(out);
    return rc;
}

/* The engine of table name in u's database ("" when it does not exist) into e. */
static int table_engine(const struct chttp_url *u, const char *name, char *e, size_t elen,
                        char *err, size_t errlen)
{
    char q[512], *out = NULL;
    snprintf(q, sizeof(q), "SELECT engine FROM system.tables WHERE database = '%s' AND "
                           "name = '%s' FORMAT TabSeparated", u->db, name);
    int rc = chttp_query(u, 1, q, NULL, 0, &out, NULL, err, errlen);
    if (rc)
        return rc;
    snprintf(e, elen, "%.*s", (int)strcspn(out, "\n"), out);
    free(out);
    return 0;
}

int push_schema(const struct chttp_url *u, const char *cluster, char *err, size_t errlen)
{
    size_t nt = sizeof(tables) / sizeof(tables[0]);
    char engine[64];
    int rc;
    if (!cluster) {
        if ((rc = run_tmpl(u, 1, "CREATE DATABASE IF NOT EXISTS {db}", "", err, errlen)) != 0)
            return rc;
        for (size_t i = 0; i < nt; i++)
            if ((rc = run_tmpl(u, 0, tables[i], "", err, errlen)) != 0)
                return rc;
        if ((rc = table_engine(u, table_names[0], engine, sizeof(engine), err, errlen)) != 0)
            return rc;
        if (strcmp(engine, "Distributed") == 0) {
            snprintf(err, errlen, "%s: the tables of database %s are spread over a cluster: "
                                  "push with --cluster NAME", u->url, u->db);
            return -EINVAL;
        }
        return 0;
    }
    /* every server of the cluster: the database, the local tables, and the Distributed
     * tables (so that any of them answers the fleet's queries). CREATE ... ON CLUSTER would
     * need ZooKeeper; this needs only that every server answers HTTP at the URL's port. */
    struct chttp_url *urls;
    size_t n;
    if ((rc = push_cluster_urls(u, cluster, &urls, &n, err, errlen)) != 0)
        return rc;
    char *q = NULL;
    size_t ql = 0, qc = 0;
    for (size_t s = 0; s < n && rc == 0; s++) {
        rc = run_tmpl(&urls[s], 1, "CREATE DATABASE IF NOT EXISTS {db}", "", err, errlen);
        for (size_t i = 0; i < nt && rc == 0; i++)
            rc = run_tmpl(&urls[s], 0, tables[i], "_local", err, errlen);
        for (size_t i = 0; i < nt && rc == 0; i++) {
            char head[512];
            snprintf(head, sizeof(head),
                     "CREATE TABLE IF NOT EXISTS %s.%s AS %s.%s_local ENGINE = Distributed(",
                     urls[s].db, table_names[i], urls[s].db, table_names[i]);
            ql = 0;
            rc = chttp_append(&q, &ql, &qc, head, strlen(head));
            rc = rc ? rc : chttp_sql_quote(&q, &ql, &qc, cluster);
            snprintf(head, sizeof(head), ", '%s', '%s_local', %s)", urls[s].db, table_names[i],
                     shard_keys[i]);
            rc = rc ? rc : chttp_append(&q, &ql, &qc, head, strlen(head));
            if (rc) {
                snprintf(err, errlen, "out of memory");
                break;
            }
            rc = chttp_query(&urls[s], 0, q, NULL, 0, NULL, NULL, err, errlen);
        }
        if (rc == 0 &&
            (rc = table_engine(&urls[s], table_names[0], engine, sizeof(engine), err,
                               errlen)) == 0 &&
            strcmp(engine, "Distributed") != 0) {
            snprintf(err, errlen, "%s: database %s holds a single server's tables (pushed "
                                  "without --cluster): give the cluster another database",
                     urls[s].url, urls[s].db);
            rc = -EINVAL;
        }
    }
    free(q);
    free(urls);
    return rc;
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
    uint64_t real = profile_ticks_to_real_ns(ps->p, s->ticks);
    struct cell key = {real / BUCKET_NS, s->thread_id, s->stack_id, s->context_id, s->kind,
                       s->state, 0, 0};
    uint64_t h = fpl_hash_mix(fpl_hash_u64(key.minute), key.thread_id);
    h = fpl_hash_mix(fpl_hash_mix(h, key.stack_id),
                     key.context_id ^ ((uint64_t)key.kind << 56 | (uint64_t)key.state << 48));
    struct hashtab_probe pr;
    uint32_t k;
    for (k = hashtab_first(&ps->index, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&ps->index, &pr)) {
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
    char *lit = NULL;
    size_t ll = 0, lc = 0;
    int rc = chttp_append(&lit, &ll, &lc, "[", 1);
    for (size_t i = 0; i < o->nlabels && rc == 0; i++) {
        if (i)
            rc = chttp_append(&lit, &ll, &lc, ",", 1);
        rc = rc ? rc : chttp_sql_quote(&lit, &ll, &lc, o->labels[i]);
    }
    rc = rc ? rc : chttp_append(&lit, &ll, &lc, "]", 1);
    rc = rc ? rc : chttp_tsv_escape(b, len, cap, lit);
    free(lit);
    return rc;
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

static int two_numbers(const struct chttp_url *u, const char *q, uint64_t *a, uint64_t *b,
                       char *err, size_t errlen);

#define MUTATION_WAIT_S 120 /* how long a replacing push waits for ClickHouse's delete */

/* Deletes the rows of log id from table on u, and waits until ClickHouse has done it: a
 * delete is a mutation that 18.16 runs in the background, and a query between the new rows'
 * insert and its end would count the log twice. Waits for this log's delete only (system.
 * mutations shows it as "DELETE WHERE log = ID"), and makes none while one is still pending
 * (a --follow retry after a timeout would otherwise pile them up). */
static int delete_on(const struct chttp_url *u, const char *table, uint64_t id, char *err,
                     size_t errlen)
{
    char q[400];
    snprintf(q, sizeof(q),
             "SELECT count(), 0 FROM system.mutations WHERE database = currentDatabase() AND "
             "table = '%s' AND command = 'DELETE WHERE log = %" PRIu64 "' AND is_done = 0 "
             "FORMAT TabSeparated", table, id);
    uint64_t left = 0, unused;
    int rc = two_numbers(u, q, &left, &unused, err, errlen);
    if (rc == 0 && left == 0) {
        char d[160];
        snprintf(d, sizeof(d), "ALTER TABLE %s DELETE WHERE log = %" PRIu64, table, id);
        rc = chttp_query(u, 0, d, NULL, 0, NULL, NULL, err, errlen);
    }
    for (int i = 0; rc == 0; i++) {
        if ((rc = two_numbers(u, q, &left, &unused, err, errlen)) != 0 || left == 0)
            break;
        if (i >= MUTATION_WAIT_S * 10) {
            snprintf(err, errlen, "%s: the delete of an earlier push of this log (%s, log %" PRIu64
                     ") is not done after %d s (see system.mutations); its rows stay until it "
                     "is, and the push is to be tried again", u->url, table, id,
                     MUTATION_WAIT_S);
            rc = -ETIMEDOUT;
            break;
        }
        nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    return rc;
}

/* Deletes the rows of log id: from flyprof_samples, or with a cluster from every server's
 * flyprof_samples_local (ClickHouse alters no Distributed table); returns once they are gone. */
static int delete_rows(const struct chttp_url *u, const char *cluster, uint64_t id, char *err,
                       size_t errlen)
{
    if (!cluster)
        return delete_on(u, "flyprof_samples", id, err, errlen);
    struct chttp_url *urls;
    size_t n;
    int rc = push_cluster_urls(u, cluster, &urls, &n, err, errlen);
    for (size_t s = 0; s < n && rc == 0; s++)
        rc = delete_on(&urls[s], "flyprof_samples_local", id, err, errlen);
    free(urls);
    return rc;
}

#define KNOWN_BATCH 2000 /* stack hashes per query of drop_known_stacks */

/* Drops from body (lines "hash\tframes\n" of the ids[0..n) in order) the stacks ClickHouse
 * already has: a service's logs share most of their stacks, and their texts are most of a
 * push's bytes. *left: the stacks kept. Returns 0 or -errno with err. */
static int drop_known_stacks(const struct chttp_url *u, const uint64_t *ids, size_t n,
                             char *body, size_t *len, uint64_t *left, char *err, size_t errlen)
{
    struct hashtab known = {0};
    uint64_t *kv = NULL;
    size_t nk = 0;
    char *q = NULL, *out = NULL;
    size_t ql = 0, qc = 0;
    int rc = 0;
    *left = n;
    for (size_t i = 0; i < n && rc == 0; i += KNOWN_BATCH) {
        ql = 0;
        rc = chttp_append(&q, &ql, &qc, "SELECT DISTINCT stack FROM flyprof_stacks WHERE stack "
                                        "IN (", 58);
        for (size_t k = i; k < n && k < i + KNOWN_BATCH && rc == 0; k++) {
            char num[24];
            snprintf(num, sizeof(num), "%s%" PRIu64, k > i ? "," : "", ids[k]);
            rc = chttp_append(&q, &ql, &qc, num, strlen(num));
        }
        rc = rc ? rc : chttp_append(&q, &ql, &qc, ") FORMAT TabSeparated", 21);
        if (rc) {
            snprintf(err, errlen, "out of memory");
            break;
        }
        /* the query as the body: a URL this long is refused */
        if ((rc = chttp_query(u, 0, "", q, ql, &out, NULL, err, errlen)) != 0)
            break;
        for (char *p = out; *p && rc == 0;) {
            char *e;
            uint64_t v = strtoull(p, &e, 10);
            p = *e ? e + 1 : e;
            uint64_t *k2 = (nk & (nk - 1)) == 0 ? realloc(kv, (nk ? 2 * nk : 1) * sizeof(*kv))
                                                : kv;
            if (!k2 || hashtab_add(&known, fpl_hash_u64(v), (uint32_t)nk)) {
                if (k2)
                    kv = k2;
                snprintf(err, errlen, "out of memory");
                rc = -ENOMEM;
                break;
            }
            kv = k2;
            kv[nk++] = v;
        }
        free(out);
        out = NULL;
    }
    if (rc == 0 && nk) {
        size_t w = 0;
        *left = 0;
        for (size_t r = 0; r < *len;) {
            char *nl = memchr(body + r, '\n', *len - r);
            size_t end = nl ? (size_t)(nl - body) + 1 : *len;
            uint64_t v = strtoull(body + r, NULL, 10);
            int have = 0;
            struct hashtab_probe pr;
            for (uint32_t k = hashtab_first(&known, fpl_hash_u64(v), &pr);
                 k != HASHTAB_NONE && !have; k = hashtab_next(&known, &pr))
                have = kv[k] == v;
            if (!have) {
                memmove(body + w, body + r, end - r);
                w += end - r;
                ++*left;
            }
            r = end;
        }
        *len = w;
    }
    free(q);
    free(kv);
    hashtab_destroy(&known);
    return rc;
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
    /* into a cluster's Distributed tables: synchronously, so that a log is in only when every
     * shard has its rows */
    struct chttp_url ui = *u;
    if (o->cluster)
        snprintf(ui.params, sizeof(ui.params), "insert_distributed_sync=1");
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
        if ((rc = delete_rows(u, o->cluster, r->log_id, err, errlen)) != 0)
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
        /* weight_ns: CPU and wall weigh sampling intervals, a lock wait its ns; bytes none */
        double ns_per = c->kind == FPL_KIND_CPU    ? (double)p->header.cpu_interval_ns
                        : c->kind == FPL_KIND_WALL ? (double)p->header.wall_interval_ns
                        : c->kind == FPL_KIND_LOCK ? 1.0
                                                   : 0.0;
        char day[16], tm[24], line[256];
        day_time(c->minute, day, tm);
        snprintf(line, sizeof(line), "%s\t%s\t", day, tm);
        rc = rc ? rc : chttp_append(&body, &blen, &bcap, line, strlen(line));
        rc = rc ? rc : chttp_tsv_escape(&body, &blen, &bcap, o->service);
        rc = rc ? rc : chttp_append(&body, &blen, &bcap, "\t", 1);
        rc = rc ? rc : chttp_tsv_escape(&body, &blen, &bcap, o->host);
        rc = rc ? rc : chttp_append(&body, &blen, &bcap, "\t", 1);
        rc = rc ? rc : labels_tsv(&body, &blen, &bcap, o);
        snprintf(line, sizeof(line), "\t%s\t%s\t", render_kind_name(c->kind),
                 state ? state : "unknown");
        rc = rc ? rc : chttp_append(&body, &blen, &bcap, line, strlen(line));
        rc = rc ? rc : chttp_tsv_escape(&body, &blen, &bcap,
                                        th ? th->display : PROFILE_UNKNOWN_THREAD);
        rc = rc ? rc : chttp_append(&body, &blen, &bcap, "\t", 1);
        rc = rc ? rc : chttp_tsv_escape(&body, &blen, &bcap, endpoint);
        snprintf(line, sizeof(line), "\t%" PRIu64 "\t%.17g\t%.17g\t%" PRIu64 "\t%" PRIu64 "\n",
                 sh, w, w * ns_per, c->samples, r->log_id);
        rc = rc ? rc : chttp_append(&body, &blen, &bcap, line, strlen(line));
        r->samples += c->samples;
    }
    if (rc) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    r->rows = ps.ncells;
    if ((rc = drop_known_stacks(u, seen_ids, nseen, sbody, &slen, &r->stacks, err, errlen)) != 0)
        goto out;
    if (r->stacks && (rc = chttp_query(&ui, 0, "INSERT INTO flyprof_stacks FORMAT TabSeparated",
                                       sbody, slen, NULL, NULL, err, errlen)) != 0)
        goto out;
    if (ps.ncells && (rc = chttp_query(&ui, 0, "INSERT INTO flyprof_samples FORMAT TabSeparated",
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
    rc = chttp_query(&ui, 0, "INSERT INTO flyprof_logs FORMAT TabSeparated", body, blen, NULL, NULL,
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
