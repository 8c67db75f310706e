/* out_html_timeline.c: the page's timeline data (see out_html_timeline.h). Work and memory
 * grow with the timeline's pairs (bounded by timeline.h) and the tree's nodes, not with the
 * samples. */
#include "out_html_timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "out_html.h"
#include "out_html_spans.h"
#include "timeline.h"

#define NONE UINT32_MAX
#define CATS (1 + PROFILE_STATE_JVM_IDLE + 1) /* cpu, then wall by state (0..8) */

static const char *const cat_names[CATS] = {
    "cpu",    "wall",     "running", "blocked",  "waiting", "timed_waiting",
    "parked", "sleeping", "native",  "jvm_idle",
};

/* A weight of one thread row, bin and category; or of one bin and tree node. */
struct mark {
    uint32_t a;   /* row (thread slot) or bin */
    uint32_t b;   /* bin or preorder position */
    uint32_t c;   /* category (rows) */
    unsigned __int128 fp;
};

static int cmp_mark(const void *x, const void *y)
{
    const struct mark *m = x, *n = y;
    if (m->a != n->a)
        return m->a < n->a ? -1 : 1;
    if (m->b != n->b)
        return m->b < n->b ? -1 : 1;
    return m->c < n->c ? -1 : m->c > n->c;
}

/* Sorts marks[0..n) and sums those with equal keys. Returns the new count. */
static size_t merge_marks(struct mark *marks, size_t n)
{
    qsort(marks, n, sizeof(*marks), cmp_mark);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && marks[k - 1].a == marks[i].a && marks[k - 1].b == marks[i].b &&
            marks[k - 1].c == marks[i].c)
            profile_fp_add(&marks[k - 1].fp, marks[i].fp);
        else
            marks[k++] = marks[i];
    }
    return k;
}

static void put_key(struct fpl_buf *b, const char *key)
{
    fpl_put_u8(b, ',');
    esc_json(b, key);
    fpl_put_u8(b, ':');
}

static void put_u64(struct fpl_buf *b, uint64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
    fpl_put_bytes(b, tmp, (size_t)n);
}

/* ns of an absolute tick value after the log's start (negative before it). */
static void put_rel_ns(struct fpl_buf *b, const struct profile *p, uint64_t ticks, uint64_t base)
{
    if (ticks < base)
        fpl_put_u8(b, '-');
    put_u64(b, profile_ticks_to_ns(p, ticks < base ? base - ticks : ticks - base));
}

/* [[start_ns, end_ns], ...] of spans (with probe: [start_ns, end_ns, probe]), and how many
 * more were not kept. */
static void put_spans(struct fpl_buf *b, const struct profile *p, const char *key,
                      const struct timeline_span *s, size_t n, uint64_t over, uint64_t base,
                      int probe)
{
    put_key(b, key);
    fpl_put_u8(b, '[');
    for (size_t i = 0; i < n; i++) {
        fpl_put_bytes(b, i ? ",[" : "[", i ? 2 : 1);
        put_rel_ns(b, p, s[i].start, base);
        fpl_put_u8(b, ',');
        put_rel_ns(b, p, s[i].end, base);
        if (probe) {
            fpl_put_u8(b, ',');
            put_u64(b, s[i].probe);
        }
        fpl_put_u8(b, ']');
    }
    fpl_put_u8(b, ']');
    char k[32];
    snprintf(k, sizeof(k), "%s_over", key);
    put_key(b, k);
    put_u64(b, over);
}

static int cat_of(uint8_t kind, uint8_t state)
{
    return kind == FPL_KIND_CPU ? 0 : 1 + (state < CATS - 1 ? state : 0);
}

/* Whether an overflow series (no stack) is in the selection: its kind, and its state when
 * one is asked for. */
static int series_selected(const struct render_select *s, const struct timeline_series *se)
{
    if (s->kind == PROFILE_KIND_ALL ? se->kind >= PROFILE_KINDS : se->kind != s->kind)
        return 0;
    if (s->o.state != RENDER_STATE_ALL) {
        int st = se->state;
        if (se->kind == FPL_KIND_CPU && st == FPL_STATE_UNKNOWN)
            st = FPL_STATE_RUNNING;
        if (st != s->o.state)
            return 0;
    }
    return 1;
}

/* Row order: by thread name, then id. */
struct row {
    uint32_t slot;
    const char *name;
    uint64_t id;
    unsigned __int128 fp;
};

static int cmp_row_name(const void *x, const void *y)
{
    const struct row *m = x, *n = y;
    int c = strcmp(m->name, n->name);
    if (c)
        return c;
    return m->id < n->id ? -1 : m->id > n->id;
}

static int cmp_row_weight(const void *x, const void *y)
{
    const struct row *m = x, *n = y;
    if (m->fp != n->fp)
        return m->fp > n->fp ? -1 : 1;
    return cmp_row_name(x, y);
}

/* One bin's stack entries while they are summed: a weight per preorder position (dense, so
 * no sorting or hashing), and the positions in use. */
struct bin_acc {
    unsigned __int128 *w; /* per position; 0 when unused */
    uint8_t *on;          /* per position: in `used` */
    uint32_t *used;
    size_t n;
};

static void acc_add(struct bin_acc *a, uint32_t at, unsigned __int128 fp)
{
    if (!a->on[at]) {
        a->on[at] = 1;
        a->used[a->n++] = at;
    }
    profile_fp_add(&a->w[at], fp);
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Heaviest first, then by position (deterministic). */
static int cmp_heavy(const void *x, const void *y, void *ctx)
{
    const unsigned __int128 *w = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (w[a] != w[b])
        return w[a] > w[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* half[v]: node v's ancestor at half its depth (rounded down; the root for the root). The
 * nodes are in preorder, so when v is visited path[k] is its ancestor at depth k: one pass,
 * where walking up from every folded entry cost a parent step per level (a tenth of an HTML
 * conversion). NULL when out of memory. */
static uint32_t *half_ancestors(const struct render_tree *t)
{
    uint32_t maxd = 0;
    for (size_t v = 0; v < t->nnodes; v++)
        maxd = t->nodes[v].depth > maxd ? t->nodes[v].depth : maxd;
    uint32_t *half = malloc(t->nnodes * sizeof(*half));
    uint32_t *path = malloc(((size_t)maxd + 1) * sizeof(*path));
    if (!half || !path) {
        free(half);
        free(path);
        return NULL;
    }
    for (size_t v = 0; v < t->nnodes; v++) {
        uint32_t d = t->nodes[v].depth;
        path[d] = (uint32_t)v;
        half[v] = path[d / 2];
    }
    free(path);
    return half;
}

/* Fits the bin into cap entries: the lightest beyond cap move to their ancestor at half their
 * depth (half, merging with what is there), until at most cap remain; *moved grows by the
 * weight moved. Leaves a->used[0..a->n) the positions in use, ascending. */
static void acc_fold(struct bin_acc *a, size_t cap, const struct render_tree *t,
                     const uint32_t *node_at, const uint32_t *pos, const uint32_t *half,
                     unsigned __int128 *moved)
{
    while (a->n > cap) {
        qsort_r(a->used, a->n, sizeof(*a->used), cmp_heavy, a->w);
        size_t n = a->n;
        for (size_t i = cap; i < n; i++) {
            uint32_t at = a->used[i], v = node_at[at];
            if (t->nodes[v].depth == 0)
                continue;
            v = half[v];
            unsigned __int128 fp = a->w[at];
            a->w[at] = 0;
            a->on[at] = 0;
            profile_fp_add(moved, fp);
            acc_add(a, pos[v], fp); /* may append past n: kept in the next round */
        }
        size_t k = 0;
        for (size_t i = 0; i < a->n; i++) {
            if (a->on[a->used[i]] == 1) {
                a->on[a->used[i]] = 2; /* seen once in this compaction */
                a->used[k++] = a->used[i];
            }
        }
        for (size_t i = 0; i < k; i++)
            a->on[a->used[i]] = 1;
        a->n = k;
    }
    qsort(a->used, a->n, sizeof(*a->used), cmp_u32);
}

/* The requests' records (out_html_spans.h) from the timeline's context pairs, those of the
 * selected cells only: *n of them in a new array *out. Returns 0 or -ENOMEM. */
static int span_records(const struct profile *p, const struct render_select *sel,
                        const uint32_t *cell_node, const uint32_t *pos,
                        struct out_html_span_rec **out, size_t *n)
{
    const struct timeline *tl = p->timeline;
    *out = malloc((tl->ncpairs ? tl->ncpairs : 1) * sizeof(**out));
    *n = 0;
    if (!*out)
        return -ENOMEM;
    for (size_t i = 0; i < tl->ncpairs; i++) {
        const struct timeline_ctx_pair *cp = &tl->cpairs[i];
        uint32_t v = cell_node[cp->cell];
        const struct tracectx_def *d = tracectx_find(&p->ctx, cp->ctx);
        if (v == NONE || !d)
            continue;
        const struct profile_entry *e = &p->entries[cp->cell];
        uint32_t slot = e->thread == PROFILE_NONE ? (uint32_t)p->nthreads : e->thread;
        (*out)[(*n)++] = (struct out_html_span_rec){(uint32_t)(d - p->ctx.defs), cp->bin, slot,
                                                    (uint32_t)cat_of(e->kind, e->state), pos[v],
                                                    render_fp_unit(sel, e->kind,
                                                                   timeline_ctx_fp(cp))};
    }
    return 0;
}

int out_html_timeline_put(struct fpl_buf *b, const struct profile *p, const struct render_tree *t,
                          const uint32_t *pos, const struct render_opts *o, char *err,
                          size_t errlen)
{
    const struct timeline *tl = p->timeline;
    struct render_select sel;
    uint32_t *cell_node = NULL, *node_at = NULL, *row_of = NULL, *half = NULL;
    struct mark *rows = NULL;
    struct row *order = NULL;
    struct bin_acc acc = {0}, racc = {0};
    struct fpl_buf sb = {0};
    struct out_html_span_rec *sp = NULL;
    size_t nrows = 0, nslots = p->nthreads + 1, nsp = 0;
    unsigned __int128 over = 0, hidden = 0, moved = 0;
    int rc;

    if (!tl || !tl->started || !t->nnodes)
        return 0;
    if ((rc = render_select_init(&sel, p, o, err, errlen)) != 0)
        return rc;
    rc = -ENOMEM;
    size_t nkeys = nslots * CATS;
    cell_node = malloc((p->nentries ? p->nentries : 1) * sizeof(*cell_node));
    node_at = malloc(t->nnodes * sizeof(*node_at));
    half = half_ancestors(t);
    rows = malloc((tl->npairs ? tl->npairs : 1) * sizeof(*rows));
    order = calloc(nslots, sizeof(*order));
    row_of = malloc(nslots * sizeof(*row_of));
    acc.w = calloc(t->nnodes, sizeof(*acc.w));
    acc.on = calloc(t->nnodes, 1);
    /* a fold round can append up to as many positions as the bin had: twice the nodes */
    acc.used = malloc(2 * t->nnodes * sizeof(*acc.used));
    racc.w = calloc(nkeys, sizeof(*racc.w));
    racc.on = calloc(nkeys, 1);
    racc.used = malloc(nkeys * sizeof(*racc.used));
    if (!cell_node || !node_at || !half || !rows || !order || !row_of || !acc.w || !acc.on ||
        !acc.used || !racc.w || !racc.on || !racc.used)
        goto out;
    if ((rc = render_tree_entry_nodes(t, p, o, cell_node, err, errlen)) != 0)
        goto out_quiet;
    rc = -ENOMEM;
    for (size_t v = 0; v < t->nnodes; v++)
        node_at[pos[v]] = (uint32_t)v;
    for (size_t i = 0; i < nslots; i++)
        order[i] = (struct row){(uint32_t)i, NULL, 0, 0};

    /* the bins with samples set the entries each keeps */
    uint32_t used = 0;
    for (size_t i = 0; i < tl->npairs; i++)
        used += i == 0 || tl->pairs[i].bin != tl->pairs[i - 1].bin;
    size_t cap = used ? OUT_HTML_TL_MAX_ENTRIES / used : OUT_HTML_TL_MAX_ENTRIES;
    if (cap < OUT_HTML_TL_MIN_CAP)
        cap = OUT_HTML_TL_MIN_CAP;

    /* bin by bin (the pairs come ordered by bin): each pair's weight to its node's entry and
     * to its thread's row; the bin's entries written at its end */
    size_t next = 0;
    for (uint32_t bin = 0; bin < tl->nbins; bin++) {
        for (; next < tl->npairs && tl->pairs[next].bin == bin; next++) {
            const struct timeline_pair *pr = &tl->pairs[next];
            unsigned __int128 fp = timeline_fp(pr);
            uint32_t slot, cat, at;
            if (pr->cell & TIMELINE_OVER) {
                const struct timeline_series *se = &tl->series[pr->cell & ~TIMELINE_OVER];
                if (!series_selected(&sel, se))
                    continue;
                if (sel.have_include || sel.have_exclude) {
                    profile_fp_add(&hidden, render_fp_unit(&sel, se->kind, fp));
                    continue;
                }
                const struct profile_thread *th = profile_thread_find(p, se->thread_id);
                slot = th ? (uint32_t)(th - p->threads) : (uint32_t)p->nthreads;
                cat = (uint32_t)cat_of(se->kind, se->state);
                at = pos[0];
                fp = render_fp_unit(&sel, se->kind, fp);
                profile_fp_add(&over, fp);
            } else {
                uint32_t v = cell_node[pr->cell];
                if (v == NONE)
                    continue;
                const struct profile_entry *e = &p->entries[pr->cell];
                slot = e->thread == PROFILE_NONE ? (uint32_t)p->nthreads : e->thread;
                cat = (uint32_t)cat_of(e->kind, e->state);
                at = pos[v];
                fp = render_fp_unit(&sel, e->kind, fp);
            }
            acc_add(&acc, at, fp);
            acc_add(&racc, slot * CATS + cat, fp);
            profile_fp_add(&order[slot].fp, fp);
        }
        acc_fold(&acc, cap, t, node_at, pos, half, &moved);
        out_html_put_num(&sb, acc.n);
        uint32_t last = 0;
        for (size_t k = 0; k < acc.n; k++) {
            uint32_t at = acc.used[k];
            out_html_put_num(&sb, at - last);
            out_html_put_num(&sb, profile_fp_round(acc.w[at]));
            last = at;
            acc.w[at] = 0;
            acc.on[at] = 0;
        }
        acc.n = 0;
        qsort(racc.used, racc.n, sizeof(*racc.used), cmp_u32);
        for (size_t k = 0; k < racc.n; k++) {
            uint32_t key = racc.used[k];
            rows[nrows++] = (struct mark){bin, key / CATS, key % CATS, racc.w[key]};
            racc.w[key] = 0;
            racc.on[key] = 0;
        }
        racc.n = 0;
    }

    /* rows: threads with weight, by name; the lightest beyond the cap merged into the last */
    size_t nthr = 0;
    for (size_t i = 0; i < nslots; i++) {
        if (!order[i].fp)
            continue;
        struct row r = order[i];
        r.name = i < p->nthreads ? p->threads[i].display : PROFILE_UNKNOWN_THREAD;
        r.id = i < p->nthreads ? p->threads[i].id : UINT64_MAX;
        order[nthr++] = r;
    }
    size_t keep = nthr, merged = 0;
    if (nthr > OUT_HTML_TL_MAX_ROWS) {
        qsort(order, nthr, sizeof(*order), cmp_row_weight);
        keep = OUT_HTML_TL_MAX_ROWS - 1;
        merged = nthr - keep;
    }
    qsort(order, keep, sizeof(*order), cmp_row_name);
    for (size_t i = 0; i < nslots; i++)
        row_of[i] = (uint32_t)keep; /* the merged row */
    for (size_t i = 0; i < keep; i++)
        row_of[order[i].slot] = (uint32_t)i;
    /* to (row, bin, category) order: a stable counting sort by row keeps the bins' order;
     * only the merged row can hold a (bin, category) twice */
    {
        size_t nr = keep + 1, *start = calloc(nr + 1, sizeof(*start));
        struct mark *by = malloc((nrows ? nrows : 1) * sizeof(*by));
        if (!start || !by) {
            free(start);
            free(by);
            goto out;
        }
        for (size_t i = 0; i < nrows; i++)
            start[row_of[rows[i].b] + 1]++;
        for (size_t r = 0; r < nr; r++)
            start[r + 1] += start[r];
        for (size_t i = 0; i < nrows; i++) {
            uint32_t r = row_of[rows[i].b];
            by[start[r]++] = (struct mark){r, rows[i].a, rows[i].c, rows[i].fp};
        }
        free(start);
        free(rows);
        rows = by;
        if (merged)
            nrows = merge_marks(rows, nrows);
    }

    put_key(b, "tl");
    fpl_put_u8(b, '{');
    esc_json(b, "bin_ns");
    fpl_put_u8(b, ':');
    put_u64(b, profile_ticks_to_ns(p, tl->bin_ticks));
    put_key(b, "t0_ns");
    uint64_t base = p->time_known ? p->base_ticks : tl->origin_ticks;
    put_rel_ns(b, p, tl->origin_ticks, base);
    put_spans(b, p, "gc", tl->gcs, tl->ngcs, tl->gcs_over, base, 0);
    put_spans(b, p, "stalls", tl->stalls, tl->nstalls, tl->stalls_over, base, 1);
    put_key(b, "nbins");
    put_u64(b, tl->nbins);
    put_key(b, "cats");
    fpl_put_u8(b, '[');
    for (int c = 0; c < CATS; c++) {
        if (c)
            fpl_put_u8(b, ',');
        esc_json(b, cat_names[c]);
    }
    fpl_put_u8(b, ']');
    put_key(b, "rows");
    fpl_put_u8(b, '[');
    for (size_t r = 0, i = 0; r < keep + (merged ? 1 : 0); r++) {
        char name[64];
        if (r)
            fpl_put_u8(b, ',');
        fpl_put_u8(b, '[');
        if (r < keep) {
            esc_json(b, order[r].name);
        } else {
            snprintf(name, sizeof(name), "[%zu more threads]", merged);
            esc_json(b, name);
        }
        fpl_put_bytes(b, ",\"", 2);
        uint32_t last = 0;
        for (; i < nrows && rows[i].a == r; i++) {
            out_html_put_num(b, rows[i].b - last);
            out_html_put_num(b, rows[i].c);
            uint64_t w = profile_fp_round(rows[i].fp);
            out_html_put_num(b, w ? w : 1); /* a mark for every sampled bin, however light */
            last = rows[i].b;
        }
        fpl_put_bytes(b, "\"]", 2);
    }
    fpl_put_u8(b, ']');
    put_key(b, "stk");
    fpl_put_u8(b, '"');
    fpl_put_bytes(b, sb.data, sb.len);
    fpl_put_u8(b, '"');
    put_key(b, "cap");
    put_u64(b, cap);
    put_key(b, "moved");
    put_u64(b, profile_fp_round(moved));
    put_key(b, "over");
    put_u64(b, profile_fp_round(over));
    put_key(b, "hidden");
    put_u64(b, profile_fp_round(hidden));
    put_key(b, "rows_merged");
    put_u64(b, merged);
    if (span_records(p, &sel, cell_node, pos, &sp, &nsp) ||
        out_html_spans_put(b, p, sp, nsp, row_of, tl->ctx_unknown, tl->nlet_go))
        goto out;
    fpl_put_u8(b, '}');
    rc = b->failed || sb.failed ? -ENOMEM : 0;
out:
    if (rc)
        snprintf(err, errlen, "html: out of memory making the timeline");
out_quiet:
    free(cell_node);
    free(node_at);
    free(half);
    free(rows);
    free(order);
    free(acc.w);
    free(acc.on);
    free(acc.used);
    free(racc.w);
    free(racc.on);
    free(racc.used);
    fpl_buf_free(&sb);
    free(row_of);
    free(sp);
    render_select_destroy(&sel);
    return rc;
}
