/* out_text.c: the plain-text report (see out_text.h). The flat tables are top.h's, as in the
 * summary; the call tree printed is the one the options ask for. */
#include "out_text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "top.h"

#define NONE UINT32_MAX

static double pct(uint64_t w, uint64_t total)
{
    return total ? 100.0 * (double)w / (double)total : 0.0;
}

static double pct_fp(unsigned __int128 w, unsigned __int128 total)
{
    return total ? 100.0 * profile_fp_double(w) / profile_fp_double(total) : 0.0;
}

/* A weight in a column of width w: as an integer, or, when ms_per > 0 (one weight is that many
 * ms: both kinds in one report), as milliseconds. */
static void put_w(FILE *f, int w, double v, double ms_per)
{
    if (ms_per > 0)
        fprintf(f, "%*.1f", w, v * ms_per);
    else
        fprintf(f, "%*" PRIu64, w, v >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)(v + 0.5));
}

static void write_flat_table(FILE *f, struct top *t, size_t top, int by_total, double ms_per)
{
    size_t n;
    top_sort(t, by_total, &n);
    if (by_total)
        n = t->n; /* methods that only call others have no place in a self table */
    size_t show = n < top ? n : top;
    fprintf(f, "\nTop %zu of %zu methods by %s weight:\n", show, n, by_total ? "total" : "self");
    const char *ms = ms_per > 0 ? " ms" : "";
    char tot[16], self[16];
    snprintf(tot, sizeof(tot), "total%s", ms);
    snprintf(self, sizeof(self), "self%s", ms);
    if (by_total)
        fprintf(f, "%12s %7s %12s %7s  %s\n", tot, "total%", self, "self%", "method");
    else
        fprintf(f, "%12s %7s %12s %7s  %s\n", self, "self%", tot, "total%", "method");
    for (size_t i = 0; i < show; i++) {
        const struct top_row *r = &t->rows[i];
        unsigned __int128 a = by_total ? r->total : r->self, b = by_total ? r->self : r->total;
        if (ms_per > 0) {
            put_w(f, 12, profile_fp_double(a), ms_per);
        } else {
            fprintf(f, "%12" PRIu64, profile_fp_round(a));
        }
        fprintf(f, " %6.2f%% ", pct_fp(a, t->all));
        if (ms_per > 0)
            put_w(f, 12, profile_fp_double(b), ms_per);
        else
            fprintf(f, "%12" PRIu64, profile_fp_round(b));
        fprintf(f, " %6.2f%%  %s\n", pct_fp(b, t->all), r->name);
    }
    if (!n)
        fprintf(f, "  (no samples)\n");
}

/* The two flat tables of one kind (top.h: names merge, recursion counts once, a state leaf's
 * time is its method's), over the cells o selects; with label (both kinds in the report), a
 * line naming the kind first, and weights in ms when the report weighs time (ms_per: the ms
 * one weight of this kind stands for). */
static int write_flats(FILE *f, const struct profile *p, const struct render_opts *o, int kind,
                       size_t top, int label, double ms_per, char *err, size_t errlen)
{
    struct render_opts fo = *o;
    struct render_select sel;
    struct top t;
    fo.kind = kind;
    int rc = render_select_init(&sel, p, &fo, err, errlen);
    if (rc)
        return rc;
    rc = top_build(&t, p, &sel);
    render_select_destroy(&sel);
    if (rc) {
        snprintf(err, errlen, "text: out of memory");
        return rc;
    }
    if (label && ms_per > 0)
        fprintf(f, "\n== %s samples: %.3f s of %s ==\n", render_kind_name(kind),
                profile_fp_double(t.all) * ms_per / 1e3,
                kind == FPL_KIND_CPU ? "CPU" : "thread time");
    else if (label)
        fprintf(f, "\n== %s samples: weight %" PRIu64 " ==\n", render_kind_name(kind),
                profile_fp_round(t.all));
    write_flat_table(f, &t, top, 0, ms_per);
    write_flat_table(f, &t, top, 1, ms_per);
    top_destroy(&t);
    return 0;
}

static void write_unit(FILE *f, const struct profile *p, int kind, int unit_ns)
{
    const struct profile_header *h = &p->header;
    if (unit_ns) {
        /* both kinds weigh time, so that they add up: CPU time and thread time */
        fprintf(f,
                "unit:      time in ms: cpu samples as CPU time (weight x %.3f ms), wall "
                "samples as thread time (upscaled weight x %.3f ms)\n",
                (double)h->cpu_interval_ns / 1e6, (double)h->wall_interval_ns / 1e6);
        return;
    }
    if (kind == FPL_KIND_ALLOC)
        fprintf(f, "unit:      alloc weight 1 = one byte allocated (estimated from the sampled "
                   "allocations, FORMAT.md section 10)\n");
    if (kind == FPL_KIND_LOCK)
        fprintf(f, "unit:      lock weight 1 = one ns spent waiting for a contended lock\n");
    if (kind == FPL_KIND_LIVE)
        fprintf(f, "unit:      live weight 1 = one byte of the sampled allocations still "
                   "reachable when profiling stopped (estimated)\n");
    if (kind == FPL_KIND_CPU || kind == PROFILE_KIND_ALL) {
        if (p->have_header && h->cpu_interval_ns)
            fprintf(f, "unit:      cpu weight 1 = one %.3f ms CPU sampling interval\n",
                    (double)h->cpu_interval_ns / 1e6);
        else
            fprintf(f, "unit:      cpu weight 1 = one CPU sampling interval\n");
    }
    if (kind == FPL_KIND_WALL || kind == PROFILE_KIND_ALL) {
        if (p->have_header && h->wall_interval_ns)
            fprintf(f,
                    "unit:      wall weight 1 = one thread for one %.3f ms wall-clock interval "
                    "(upscaled for the threads not sampled)\n",
                    (double)h->wall_interval_ns / 1e6);
        else
            fprintf(f, "unit:      wall weight 1 = one thread for one wall-clock interval "
                       "(upscaled)\n");
    }
}

static void write_header(FILE *f, const struct profile *p, const struct render_opts *o,
                         const struct render_tree *t)
{
    char title[512];
    if (o->title)
        snprintf(title, sizeof(title), "%s", o->title);
    else
        render_default_title(p, t->kind, title, sizeof(title));
    fprintf(f, "%s\n", title);
    fprintf(f, "kind:      %s\n", render_kind_name(t->kind));
    write_unit(f, p, t->kind, t->unit_ns);
    uint64_t dur = profile_duration_ns(p);
    if (p->time_known)
        fprintf(f, "duration:  %.3f s\n", (double)dur / 1e9);
    else
        fprintf(f, "duration:  unknown (no clock information)\n");
    const struct profile_header *h = &p->header;
    uint64_t iv = t->kind == FPL_KIND_CPU    ? h->cpu_interval_ns
                  : t->kind == FPL_KIND_WALL ? h->wall_interval_ns
                                             : 0;
    if (t->unit_ns)
        fprintf(f, "selected:  %" PRIu64 " samples, %.3f s of CPU and thread time",
                t->samples, (double)t->total / 1e9);
    else
        fprintf(f, "selected:  %" PRIu64 " samples, weight %" PRIu64, t->samples, t->total);
    if (p->have_header && iv)
        fprintf(f, " (%.3f %s)", (double)t->total * (double)iv / 1e9,
                t->kind == FPL_KIND_CPU ? "s of CPU" : "thread-seconds");
    fprintf(f, "\n");
    const struct profile_window *w = &p->window;
    if (w->set && w->resolved) {
        fprintf(f, "window:    ");
        if (w->has_from)
            fprintf(f, "from %.3f s ", (double)w->from_ns / 1e9);
        if (w->has_to)
            fprintf(f, "to %.3f s ", (double)w->to_ns / 1e9);
        fprintf(f, "after the start (%" PRIu64 " samples outside skipped)\n", w->skipped);
    }
    if (o->include || o->exclude || o->state != RENDER_STATE_ALL || o->threads || o->reverse) {
        fprintf(f, "options:  ");
        if (o->include)
            fprintf(f, " include /%s/", o->include);
        if (o->exclude)
            fprintf(f, " exclude /%s/", o->exclude);
        if (o->state != RENDER_STATE_ALL)
            fprintf(f, " state %s", render_state_name(o->state));
        if (o->threads)
            fprintf(f, " threads");
        if (o->reverse)
            fprintf(f, " reverse");
        fprintf(f, "\n");
    }
}

/* Orders child node ids heaviest first, then by node id (= name order). */
static int cmp_heavy(const void *a, const void *b, void *tree)
{
    const struct render_tree *t = tree;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (t->nodes[x].total != t->nodes[y].total)
        return t->nodes[x].total < t->nodes[y].total ? 1 : -1;
    return x < y ? -1 : x > y;
}

static void write_node(FILE *f, const struct render_tree *t, uint32_t v, uint32_t depth)
{
    const struct render_node *nd = &t->nodes[v];
    uint32_t ind = depth < OUT_TEXT_INDENT_MAX ? depth : OUT_TEXT_INDENT_MAX;
    fprintf(f, "%6.2f%% %6.2f%% ", pct(nd->total, t->total), pct(nd->self, t->total));
    put_w(f, 12, (double)nd->total, t->unit_ns ? 1e-6 : 0);
    fprintf(f, "  %*s", (int)(2 * ind), "");
    if (depth > OUT_TEXT_INDENT_MAX)
        fprintf(f, "[depth %" PRIu32 "] ", depth);
    fprintf(f, "%s\n", t->names[nd->name]);
}

#define MORE_LINE (1ull << 63) /* a stack entry: the "N more" line of a node's children */

/* 1 when node c is not printed: under the threshold, or frames the tree merged (which are
 * under it by construction: see out_text_write_opts). */
static int hidden(const struct render_tree *t, uint32_t c, double prune)
{
    return t->nodes[c].type == RENDER_SMALL ||
           (prune > 0 && pct(t->nodes[c].total, t->total) < prune);
}

/* The children of v under the threshold: how many, and their weight. */
static size_t hidden_children(const struct render_tree *t, uint32_t v, double prune,
                              uint64_t *weight)
{
    size_t n = 0;
    *weight = 0;
    for (uint32_t c = t->nodes[v].first_child; c != NONE; c = t->nodes[c].next_sibling) {
        if (hidden(t, c, prune)) {
            /* the tree's budget merged some of them already: count what it stands for */
            n += t->nodes[c].type == RENDER_SMALL ? t->nodes[c].merged : 1;
            *weight += t->nodes[c].total;
        }
    }
    return n;
}

/* The call tree, depth first, heaviest child first; the children under the threshold are
 * one "N more" line after their shown siblings. */
static int write_tree(FILE *f, const struct render_tree *t, double prune)
{
    /* at most every node once and one "more" line per node */
    uint64_t *stack = malloc((t->nnodes ? t->nnodes : 1) * 2 * sizeof(*stack));
    uint32_t *kids = malloc((t->nnodes ? t->nnodes : 1) * sizeof(*kids));
    if (!stack || !kids) {
        free(stack);
        free(kids);
        return -ENOMEM;
    }
    if (prune > 0)
        fprintf(f,
                "\nCall tree (children under %.2f%% of the total are folded into \"N more\" "
                "lines):\n",
                prune);
    else
        fprintf(f, "\nCall tree:\n");
    fprintf(f, "%7s %7s %12s  %s\n", "total%", "self%", t->unit_ns ? "total ms" : "total",
            "frame");
    size_t sp = 0;
    stack[sp++] = 0;
    while (sp) {
        uint64_t top = stack[--sp];
        uint32_t v = (uint32_t)top;
        uint64_t hw;
        if (top & MORE_LINE) {
            size_t hidden = hidden_children(t, v, prune, &hw);
            uint32_t ind = t->nodes[v].depth + 1;
            ind = ind < OUT_TEXT_INDENT_MAX ? ind : OUT_TEXT_INDENT_MAX;
            fprintf(f, "%6.2f%% %7s ", pct(hw, t->total), "");
            put_w(f, 12, (double)hw, t->unit_ns ? 1e-6 : 0);
            fprintf(f, "  %*s... %zu more under %.2f%%\n", (int)(2 * ind), "", hidden, prune);
            continue;
        }
        write_node(f, t, v, t->nodes[v].depth);
        size_t nk = 0;
        for (uint32_t c = t->nodes[v].first_child; c != NONE; c = t->nodes[c].next_sibling) {
            if (!hidden(t, c, prune))
                kids[nk++] = c;
        }
        if (hidden_children(t, v, prune, &hw))
            stack[sp++] = MORE_LINE | v;
        qsort_r(kids, nk, sizeof(*kids), cmp_heavy, (void *)t);
        for (size_t k = nk; k-- > 0;)
            stack[sp++] = kids[k];
    }
    free(stack);
    free(kids);
    return 0;
}

int out_text_write_opts(const struct profile *p, const struct render_opts *o,
                        const struct out_text_opts *to, FILE *f, char *err, size_t errlen)
{
    size_t top = to && to->top ? to->top : OUT_TEXT_TOP;
    double prune = to && to->prune >= 0 ? to->prune : OUT_TEXT_PRUNE;
    struct render_tree t;
    /* Nodes under the threshold are not printed, so the tree need not hold them: it merges the
     * frames under half of it (those are under it after rounding too) into RENDER_SMALL
     * nodes, which the "N more" lines count by what they stand for. The report is the same,
     * and a --threads tree of a big profile takes kilobytes, not a gigabyte. */
    struct render_opts bo = *o;
    bo.min_share = prune > 0 ? prune / 100 / 2 : 0;
    bo.max_nodes = 0;
    int rc = render_tree_build(&t, p, &bo, err, errlen);
    if (rc)
        return rc;
    write_header(f, p, o, &t);
    if (t.kind == PROFILE_KIND_ALL) {
        uint64_t unit[PROFILE_KINDS];
        render_unit_ns(p, PROFILE_KIND_ALL, unit);
        for (int k = 0; rc == 0 && k < PROFILE_KINDS; k++)
            rc = write_flats(f, p, o, k, top, 1, (double)unit[k] / 1e6, err, errlen);
    } else {
        rc = write_flats(f, p, o, t.kind, top, 0, 0, err, errlen);
    }
    if (rc == 0 && write_tree(f, &t, prune) != 0) {
        snprintf(err, errlen, "text: out of memory");
        rc = -ENOMEM;
    }
    render_tree_destroy(&t);
    if (rc)
        return rc;
    errno = 0;
    if (fflush(f) != 0 || ferror(f)) {
        rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "text: write failed: %s", strerror(-rc));
    }
    return rc;
}

int out_text_write(const struct profile *p, const struct render_opts *o, FILE *f, char *err,
                   size_t errlen)
{
    return out_text_write_opts(p, o, NULL, f, err, errlen);
}
