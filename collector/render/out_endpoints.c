/* out_endpoints.c: the summary's endpoints (see out_endpoints.h). */
#include "out_endpoints.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "fpl_hash.h"
#include "hashtab.h"
#include "starvation.h"

#define STATES PROFILE_STATES /* enum fpl_state, jvm_idle, then "other" */
/* endpoints whose starvation is computed (one pass over the cells each), heaviest first */
#define STARVATION_ROWS 64
#define TEXT_ROWS 20 /* endpoints listed in the text summary; JSON lists all */
#define SLOWEST 3 /* requests named per endpoint */

static const char *const state_names[STATES] = {
    "unknown", "running", "blocked", "waiting",  "timed_waiting",
    "parked",  "sleeping", "native", "jvm_idle", "other"};

/* One request (root span): what its samples weigh, across every thread. */
struct req {
    uint64_t root;
    const char *name; /* its endpoint, or TRACECTX_UNNAMED */
    uint64_t cpu_weight;
    unsigned __int128 wall;
    uint64_t cpu_ns, wall_ns;
};

struct row {
    const char *name;
    struct req slow[SLOWEST]; /* its requests that took the most time, slowest first */
    size_t nslow;
    uint64_t requests;
    uint64_t cpu_weight;
    unsigned __int128 wall[STATES]; /* upscaled, fixed point */
    unsigned __int128 wall_total;
    uint64_t cpu_ns, wall_ns, state_ns[STATES];
    int have_starvation; /* its threads were sampled RUNNING (starvation.h) */
    double starvation, starvation_error;
};

struct table {
    struct row *rows;
    size_t n, cap;
    struct hashtab index;   /* name -> rows */
    struct hashtab unnamed; /* roots without a name met in samples, counted once each */
    uint64_t *roots;
    size_t nroots, roots_cap;
    struct req *reqs;
    size_t nreqs, reqs_cap;
    struct hashtab req_index; /* root -> reqs */
};

static void *grow(void *arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return arr;
    size_t c = *cap ? *cap * 2 : 16;
    void *q = realloc(arr, c * elem);
    if (q)
        *cap = c;
    return q;
}

/* The row of endpoint name, a new one when unseen; NULL when out of memory. */
static struct row *row_of(struct table *t, const char *name)
{
    uint64_t h = fpl_hash_str(name);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&t->index, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&t->index, &pr))
        if (strcmp(t->rows[k].name, name) == 0)
            return &t->rows[k];
    void *q = grow(t->rows, &t->cap, t->n, sizeof(*t->rows));
    if (!q)
        return NULL;
    t->rows = q;
    if (hashtab_add(&t->index, h, (uint32_t)t->n))
        return NULL;
    memset(&t->rows[t->n], 0, sizeof(t->rows[t->n]));
    t->rows[t->n].name = name;
    return &t->rows[t->n++];
}

/* Counts an unnamed root span once. Returns 1 when new, 0 when seen, -1 out of memory. */
static int unnamed_root(struct table *t, uint64_t root)
{
    uint64_t h = fpl_hash_u64(root);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&t->unnamed, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&t->unnamed, &pr))
        if (t->roots[k] == root)
            return 0;
    void *q = grow(t->roots, &t->roots_cap, t->nroots, sizeof(*t->roots));
    if (!q)
        return -1;
    t->roots = q;
    if (hashtab_add(&t->unnamed, h, (uint32_t)t->nroots))
        return -1;
    t->roots[t->nroots++] = root;
    return 1;
}

/* The request of root span root, a new one when unseen; NULL when out of memory. */
static struct req *req_of(struct table *t, uint64_t root, const char *name)
{
    uint64_t h = fpl_hash_u64(root);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&t->req_index, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&t->req_index, &pr))
        if (t->reqs[k].root == root)
            return &t->reqs[k];
    void *q = grow(t->reqs, &t->reqs_cap, t->nreqs, sizeof(*t->reqs));
    if (!q)
        return NULL;
    t->reqs = q;
    if (hashtab_add(&t->req_index, h, (uint32_t)t->nreqs))
        return NULL;
    t->reqs[t->nreqs] = (struct req){.root = root, .name = name};
    return &t->reqs[t->nreqs++];
}

static void table_free(struct table *t)
{
    free(t->rows);
    free(t->roots);
    free(t->reqs);
    hashtab_destroy(&t->req_index);
    hashtab_destroy(&t->index);
    hashtab_destroy(&t->unnamed);
}

static uint64_t fp_ns(unsigned __int128 fp, uint64_t interval)
{
    if (interval && fp > ((unsigned __int128)UINT64_MAX << PROFILE_FP_SHIFT) / interval)
        return UINT64_MAX;
    return (uint64_t)((fp * interval + (PROFILE_FP_ONE >> 1)) >> PROFILE_FP_SHIFT);
}

/* Requests by time (wall, else CPU), the most first; then by root span. */
static int req_by_time(const void *a, const void *b)
{
    const struct req *x = a, *y = b;
    uint64_t tx = x->wall_ns ? x->wall_ns : x->cpu_ns, ty = y->wall_ns ? y->wall_ns : y->cpu_ns;
    if (tx != ty)
        return tx > ty ? -1 : 1;
    if (x->cpu_ns != y->cpu_ns)
        return x->cpu_ns > y->cpu_ns ? -1 : 1;
    return x->root < y->root ? -1 : x->root > y->root;
}

static int by_time(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    uint64_t tx = x->wall_ns ? x->wall_ns : x->cpu_ns, ty = y->wall_ns ? y->wall_ns : y->cpu_ns;
    if (tx != ty)
        return tx > ty ? -1 : 1;
    if (x->cpu_ns != y->cpu_ns)
        return x->cpu_ns > y->cpu_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The endpoint a cell's samples served: its root span's name, TRACECTX_UNNAMED for a root
 * never named, NULL for samples outside every request (or of a context the log lost). */
static const char *entry_endpoint(const struct profile *p, const struct profile_entry *e)
{
    const struct tracectx_def *d = tracectx_find(&p->ctx, e->context_id);
    if (!d)
        return NULL;
    const char *name = tracectx_endpoint(&p->ctx, d->root);
    return name ? name : TRACECTX_UNNAMED;
}

static int same_endpoint(const struct profile *p, const struct profile_entry *e, void *ctx)
{
    const char *name = entry_endpoint(p, e);
    return name && strcmp(name, ctx) == 0;
}

/* The starvation of the heaviest rows' requests alone (starvation.h over their context
 * totals). */
static int add_starvation(struct table *t, const struct profile *p)
{
    for (size_t i = 0; i < t->n && i < STARVATION_ROWS; i++) {
        struct row *r = &t->rows[i];
        struct starvation st;
        if (starvation_compute_cells(p, p->ctx_entries, p->nctx_entries, same_endpoint,
                                     (void *)r->name, &st) != 0)
            return -ENOMEM;
        r->have_starvation = st.available && st.running_wall_ns > 0;
        r->starvation = st.overall;
        r->starvation_error = st.error;
        starvation_destroy(&st);
    }
    return 0;
}

/* Fills t with one row per endpoint, heaviest first. 0 or -ENOMEM. */
static int build(struct table *t, const struct profile *p)
{
    memset(t, 0, sizeof(*t));
    const struct tracectx *c = &p->ctx;
    for (size_t i = 0; i < c->nnames; i++) {
        struct row *r = row_of(t, c->names[i].name);
        if (!r)
            return -ENOMEM;
        r->requests++;
    }
    for (size_t i = 0; i < p->nctx_entries; i++) {
        const struct profile_entry *e = &p->ctx_entries[i];
        const struct tracectx_def *d = tracectx_find(c, e->context_id);
        if (!d)
            continue;
        const char *name = tracectx_endpoint(c, d->root);
        struct row *r = row_of(t, name ? name : TRACECTX_UNNAMED);
        if (!r)
            return -ENOMEM;
        if (!name) {
            int fresh = unnamed_root(t, d->root);
            if (fresh < 0)
                return -ENOMEM;
            r->requests += (uint64_t)fresh;
        }
        struct req *q = req_of(t, d->root, r->name);
        if (!q)
            return -ENOMEM;
        if (e->kind == FPL_KIND_CPU) {
            r->cpu_weight += e->weight;
            q->cpu_weight += e->weight;
        } else if (e->kind == FPL_KIND_WALL) {
            unsigned s = e->state < STATES - 1 ? e->state : STATES - 1;
            profile_fp_add(&r->wall[s], e->upscaled);
            profile_fp_add(&r->wall_total, e->upscaled);
            profile_fp_add(&q->wall, e->upscaled);
        }
    }
    /* each endpoint's slowest requests (rows are still where row_of put them) */
    for (size_t i = 0; i < t->nreqs; i++) {
        struct req *q = &t->reqs[i];
        unsigned __int128 cpu = (unsigned __int128)q->cpu_weight * p->header.cpu_interval_ns;
        q->cpu_ns = cpu > UINT64_MAX ? UINT64_MAX : (uint64_t)cpu;
        q->wall_ns = fp_ns(q->wall, p->header.wall_interval_ns);
    }
    if (t->nreqs)
        qsort(t->reqs, t->nreqs, sizeof(*t->reqs), req_by_time);
    for (size_t i = 0; i < t->nreqs; i++) {
        struct row *r = row_of(t, t->reqs[i].name); /* seen above: never a new row */
        if (r && r->nslow < SLOWEST)
            r->slow[r->nslow++] = t->reqs[i];
    }
    for (size_t i = 0; i < t->n; i++) {
        struct row *r = &t->rows[i];
        unsigned __int128 cpu = (unsigned __int128)r->cpu_weight * p->header.cpu_interval_ns;
        r->cpu_ns = cpu > UINT64_MAX ? UINT64_MAX : (uint64_t)cpu;
        r->wall_ns = fp_ns(r->wall_total, p->header.wall_interval_ns);
        for (unsigned s = 0; s < STATES; s++)
            r->state_ns[s] = fp_ns(r->wall[s], p->header.wall_interval_ns);
    }
    if (t->n)
        qsort(t->rows, t->n, sizeof(*t->rows), by_time);
    return add_starvation(t, p);
}

int out_endpoints_text(FILE *f, const struct profile *p)
{
    if (!p->ctx.ndefs && !p->ctx.nnames)
        return 0;
    struct table t;
    int rc = build(&t, p);
    if (rc) {
        table_free(&t);
        return rc;
    }
    uint64_t requests = 0;
    for (size_t i = 0; i < t.n; i++)
        requests += t.rows[i].requests;
    fprintf(f, "\nEndpoints (dev.flyprof.Context), by %s time: %zu, %" PRIu64 " requests\n",
            p->header.wall_interval_ns ? "wall" : "CPU", t.n, requests);
    fprintf(f, "  %10s %10s %10s  %-30s %s\n", "requests", "wall s", "cpu s", "endpoint",
            "wall by state");
    for (size_t i = 0; i < t.n && i < TEXT_ROWS; i++) {
        const struct row *r = &t.rows[i];
        fprintf(f, "  %10" PRIu64 " %10.3f %10.3f  %-30s", r->requests, (double)r->wall_ns / 1e9,
                (double)r->cpu_ns / 1e9, r->name);
        const char *sep = " ";
        for (unsigned s = 0; s < STATES && r->wall_ns; s++) {
            if (!r->state_ns[s])
                continue;
            fprintf(f, "%s%s %.0f%%", sep, state_names[s],
                    100.0 * (double)r->state_ns[s] / (double)r->wall_ns);
            sep = ", ";
        }
        if (r->have_starvation)
            fprintf(f, "; waiting for a CPU %.0f%% +- %.0f%% of its running time",
                    100.0 * r->starvation, 200.0 * r->starvation_error);
        fputc('\n', f);
        for (size_t k = 0; k < r->nslow; k++)
            fprintf(f, "%s root span %" PRIu64 " (%.3f s wall, %.3f s cpu)",
                    k ? "," : "              slowest:", r->slow[k].root,
                    (double)r->slow[k].wall_ns / 1e9, (double)r->slow[k].cpu_ns / 1e9);
        if (r->nslow)
            fputc('\n', f);
    }
    if (t.n > TEXT_ROWS) {
        uint64_t more = 0;
        for (size_t i = TEXT_ROWS; i < t.n; i++)
            more += t.rows[i].requests;
        fprintf(f, "  ... %zu more endpoints, %" PRIu64 " requests (summary --json lists all)\n",
                t.n - TEXT_ROWS, more);
    }
    if (p->ctx.undefined)
        fprintf(f, "  (%" PRIu64 " samples refer to contexts the log lost)\n", p->ctx.undefined);
    if (p->counters[FPL_CTR_ENDPOINT_DROPS])
        fprintf(f,
                "  %" PRIu64 " Context.endpoint calls were dropped (the agent's queue of names "
                "was full): their requests count as [unnamed]\n",
                p->counters[FPL_CTR_ENDPOINT_DROPS]);
    if (p->counters[FPL_CTR_CONTEXT_LOST])
        fprintf(f,
                "  %" PRIu64 " wall samples were logged without their context (the thread kept "
                "changing it)\n",
                p->counters[FPL_CTR_CONTEXT_LOST]);
    table_free(&t);
    return ferror(f) ? -EIO : 0;
}

int out_endpoints_json(FILE *f, const struct profile *p)
{
    struct table t;
    int rc = build(&t, p);
    struct fpl_buf b = {0};
    fpl_put_bytes(&b, "\"endpoints\":[", 13);
    for (size_t i = 0; !rc && i < t.n; i++) {
        const struct row *r = &t.rows[i];
        char num[200];
        if (i)
            fpl_put_u8(&b, ',');
        fpl_put_bytes(&b, "{\"name\":", 8);
        esc_json(&b, r->name);
        int n = snprintf(num, sizeof(num),
                         ",\"requests\":%" PRIu64 ",\"cpu_ns\":%" PRIu64 ",\"wall_ns\":%" PRIu64
                         ",\"wall_by_state_ns\":{",
                         r->requests, r->cpu_ns, r->wall_ns);
        fpl_put_bytes(&b, num, (size_t)n);
        const char *sep = "";
        for (unsigned s = 0; s < STATES; s++) {
            if (!r->state_ns[s])
                continue;
            n = snprintf(num, sizeof(num), "%s\"%s\":%" PRIu64, sep, state_names[s],
                         r->state_ns[s]);
            fpl_put_bytes(&b, num, (size_t)n);
            sep = ",";
        }
        fpl_put_u8(&b, '}');
        if (r->have_starvation) {
            n = snprintf(num, sizeof(num), ",\"starvation\":%.4f,\"starvation_error\":%.4f",
                         r->starvation, r->starvation_error);
            fpl_put_bytes(&b, num, (size_t)n);
        } else {
            static const char none[] = ",\"starvation\":null,\"starvation_error\":null";
            fpl_put_bytes(&b, none, sizeof(none) - 1);
        }
        fpl_put_bytes(&b, ",\"slowest\":[", 12);
        for (size_t k = 0; k < r->nslow; k++) {
            n = snprintf(num, sizeof(num),
                         "%s{\"root_span\":%" PRIu64 ",\"wall_ns\":%" PRIu64 ",\"cpu_ns\":%" PRIu64
                         "}",
                         k ? "," : "", r->slow[k].root, r->slow[k].wall_ns, r->slow[k].cpu_ns);
            fpl_put_bytes(&b, num, (size_t)n);
        }
        fpl_put_u8(&b, ']');
        fpl_put_u8(&b, '}');
    }
    fpl_put_u8(&b, ']');
    if (!rc && b.failed)
        rc = -ENOMEM;
    if (!rc && fwrite(b.data, 1, b.len, f) != b.len)
        rc = -EIO;
    fpl_buf_free(&b);
    table_free(&t);
    return rc;
}
