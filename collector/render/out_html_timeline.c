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
#include "timeline.h"

#define NONE UINT32_MAX
#define CATS (1 + 8) /* cpu, then wall by enum fpl_state (0..7) */

static const char *const cat_names[CATS] = {
    "cpu", "wall", "running", "blocked", "waiting", "timed_waiting", "parked", "sleeping", "native",
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

static int cmp_weight_desc(const void *x, const void *y)
{
    const struct mark *m = x, *n = y;
    if (m->fp != n->fp)
        return m->fp > n->fp ? -1 : 1;
    return m->b < n->b ? -1 : m->b > n->b;
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

/* Merges equal keys within each run of marks[0..n) with the same a (a bin), each run sorted
 * on its own. Returns the new count. */
static size_t merge_bins(struct mark *marks, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && marks[j].a == marks[i].a)
            j++;
        size_t m = merge_marks(marks + i, j - i);
        memmove(marks + k, marks + i, m * sizeof(*marks));
        k += m;
        i = j;
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

/* [[start_ns, end_ns], ...] of spans, and how many more were not kept. */
static void put_spans(struct fpl_buf *b, const struct profile *p, const char *key,
                      const struct timeline_span *s, size_t n, uint64_t over, uint64_t base)
{
    put_key(b, key);
    fpl_put_u8(b, '[');
    for (size_t i = 0; i < n; i++) {
        fpl_put_bytes(b, i ? ",[" : "[", i ? 2 : 1);
        put_rel_ns(b, p, s[i].start, base);
        fpl_put_u8(b, ',');
        put_rel_ns(b, p, s[i].end, base);
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

/* Fits one bin's entries e[0..n) (sorted by position) into cap: the lightest beyond cap move
 * to their ancestor at half their depth, and equal positions merge, until at most cap remain.
 * Returns the new count; *moved grows by the weight moved. */
static size_t fold_bin(struct mark *e, size_t n, size_t cap, const struct render_tree *t,
                       const uint32_t *node_at, const uint32_t *pos, unsigned __int128 *moved)
{
    while (n > cap) {
        qsort(e, n, sizeof(*e), cmp_weight_desc);
        for (size_t i = cap; i < n; i++) {
            uint32_t v = node_at[e[i].b], d = t->nodes[v].depth, up = d - d / 2;
            if (d == 0)
                continue;
            for (uint32_t k = 0; k < up; k++)
                v = t->nodes[v].parent;
            e[i].b = pos[v];
            profile_fp_add(moved, e[i].fp);
        }
        n = merge_marks(e, n);
    }
    return n;
}

int out_html_timeline_put(struct fpl_buf *b, const struct profile *p, const struct render_tree *t,
                          const uint32_t *pos, const struct render_opts *o, char *err,
                          size_t errlen)
{
    const struct timeline *tl = p->timeline;
    struct render_select sel;
    uint32_t *cell_node = NULL, *node_at = NULL, *row_of = NULL;
    struct mark *rows = NULL, *stk = NULL;
    struct row *order = NULL;
    size_t nrows = 0, nstk = 0, nslots = p->nthreads + 1;
    unsigned __int128 over = 0, hidden = 0, moved = 0;
    int rc;

    if (!tl || !tl->started || !t->nnodes)
        return 0;
    if ((rc = render_select_init(&sel, p, o, err, errlen)) != 0)
        return rc;
    rc = -ENOMEM;
    cell_node = malloc((p->nentries ? p->nentries : 1) * sizeof(*cell_node));
    node_at = malloc(t->nnodes * sizeof(*node_at));
    rows = malloc((tl->npairs ? tl->npairs : 1) * sizeof(*rows));
    stk = malloc((tl->npairs ? tl->npairs : 1) * sizeof(*stk));
    order = calloc(nslots, sizeof(*order));
    row_of = malloc(nslots * sizeof(*row_of));
    if (!cell_node || !node_at || !rows || !stk || !order || !row_of)
        goto out;
    if ((rc = render_tree_entry_nodes(t, p, o, cell_node, err, errlen)) != 0)
        goto out_quiet;
    rc = -ENOMEM;
    for (size_t v = 0; v < t->nnodes; v++)
        node_at[pos[v]] = (uint32_t)v;
    for (size_t i = 0; i < nslots; i++)
        order[i] = (struct row){(uint32_t)i, NULL, 0, 0};

    /* every pair becomes a row mark and a bin entry */
    for (size_t i = 0; i < tl->npairs; i++) {
        const struct timeline_pair *pr = &tl->pairs[i];
        unsigned __int128 fp = timeline_fp(pr);
        uint32_t slot, cat, at;
        if (pr->cell & TIMELINE_OVER) {
            const struct timeline_series *se = &tl->series[pr->cell & ~TIMELINE_OVER];
            if (!series_selected(&sel, se))
                continue;
            if (sel.have_include || sel.have_exclude) {
                profile_fp_add(&hidden, fp);
                continue;
            }
            const struct profile_thread *th = profile_thread_find(p, se->thread_id);
            slot = th ? (uint32_t)(th - p->threads) : (uint32_t)p->nthreads;
            cat = (uint32_t)cat_of(se->kind, se->state);
            at = pos[0];
            profile_fp_add(&over, fp);
        } else {
            uint32_t v = cell_node[pr->cell];
            if (v == NONE)
                continue;
            const struct profile_entry *e = &p->entries[pr->cell];
            slot = e->thread == PROFILE_NONE ? (uint32_t)p->nthreads : e->thread;
            cat = (uint32_t)cat_of(e->kind, e->state);
            at = pos[v];
        }
        rows[nrows++] = (struct mark){pr->bin, slot, cat, fp};
        stk[nstk++] = (struct mark){pr->bin, at, 0, fp};
        profile_fp_add(&order[slot].fp, fp);
    }
    /* the pairs came by bin: merging within each bin is enough (small sorts, no global one) */
    nrows = merge_bins(rows, nrows);
    nstk = merge_bins(stk, nstk);

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

    /* bins with samples, and the entries each keeps */
    uint32_t used = 0;
    for (size_t i = 0; i < nstk; i++)
        used += i == 0 || stk[i].a != stk[i - 1].a;
    size_t cap = used ? OUT_HTML_TL_MAX_ENTRIES / used : OUT_HTML_TL_MAX_ENTRIES;
    if (cap < OUT_HTML_TL_MIN_CAP)
        cap = OUT_HTML_TL_MIN_CAP;

    put_key(b, "tl");
    fpl_put_u8(b, '{');
    esc_json(b, "bin_ns");
    fpl_put_u8(b, ':');
    put_u64(b, profile_ticks_to_ns(p, tl->bin_ticks));
    put_key(b, "t0_ns");
    uint64_t base = p->time_known ? p->base_ticks : tl->origin_ticks;
    put_rel_ns(b, p, tl->origin_ticks, base);
    put_spans(b, p, "gc", tl->gcs, tl->ngcs, tl->gcs_over, base);
    put_spans(b, p, "stalls", tl->stalls, tl->nstalls, tl->stalls_over, base);
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
    for (uint32_t bin = 0, i = 0; bin < tl->nbins; bin++) {
        size_t j = i;
        while (j < nstk && stk[j].a == bin)
            j++;
        size_t m = fold_bin(stk + i, j - i, cap, t, node_at, pos, &moved);
        out_html_put_num(b, m);
        uint32_t last = 0;
        for (size_t k = i; k < i + m; k++) {
            out_html_put_num(b, stk[k].b - last);
            out_html_put_num(b, profile_fp_round(stk[k].fp));
            last = stk[k].b;
        }
        i = (uint32_t)j;
    }
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
    fpl_put_u8(b, '}');
    rc = b->failed ? -ENOMEM : 0;
out:
    if (rc)
        snprintf(err, errlen, "html: out of memory making the timeline");
out_quiet:
    free(cell_node);
    free(node_at);
    free(rows);
    free(stk);
    free(order);
    free(row_of);
    render_select_destroy(&sel);
    return rc;
}
