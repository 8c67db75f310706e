/* out_html_spans.c: the requests of the page's timeline (see out_html_spans.h). Work and
 * memory grow with the records given (bounded by the timeline's pairs), not with the
 * samples. */
#include "out_html_spans.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "out_html.h"

struct order_ctx {
    const struct profile *p;
    const uint32_t *row_of;
};

/* By context (root, then span), then bin, row, category, node. */
static int cmp_rec(const void *x, const void *y, void *arg)
{
    const struct order_ctx *c = arg;
    const struct out_html_span_rec *a = x, *b = y;
    const struct tracectx_def *da = &c->p->ctx.defs[a->def], *db = &c->p->ctx.defs[b->def];
    if (da->root != db->root)
        return da->root < db->root ? -1 : 1;
    if (da->span != db->span)
        return da->span < db->span ? -1 : 1;
    if (a->bin != b->bin)
        return a->bin < b->bin ? -1 : 1;
    uint32_t ra = c->row_of[a->slot], rb = c->row_of[b->slot];
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (a->cat != b->cat)
        return a->cat < b->cat ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int same_context(const struct profile *p, const struct out_html_span_rec *a,
                        const struct out_html_span_rec *b)
{
    const struct tracectx_def *da = &p->ctx.defs[a->def], *db = &p->ctx.defs[b->def];
    return da->root == db->root && da->span == db->span;
}

static void put_u64(struct fpl_buf *b, uint64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
    fpl_put_bytes(b, tmp, (size_t)n);
}

static void put_id(struct fpl_buf *b, uint64_t v)
{
    fpl_put_u8(b, '"');
    put_u64(b, v);
    fpl_put_u8(b, '"');
}

int out_html_spans_put(struct fpl_buf *b, const struct profile *p, struct out_html_span_rec *r,
                       size_t n, const uint32_t *row_of, unsigned __int128 unknown_fp,
                       uint64_t let_go)
{
    if (!n)
        return 0;
    struct order_ctx oc = {p, row_of};
    qsort_r(r, n, sizeof(*r), cmp_rec, &oc);
    /* one record per key: contexts defined twice, rows merged into the last one */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        struct out_html_span_rec *q = k ? &r[k - 1] : NULL;
        if (q && same_context(p, q, &r[i]) && q->bin == r[i].bin &&
            row_of[q->slot] == row_of[r[i].slot] && q->cat == r[i].cat && q->pos == r[i].pos)
            profile_fp_add(&q->fp, r[i].fp);
        else
            r[k++] = r[i];
    }
    n = k;

    /* the contexts: runs of records, first[j] .. first[j + 1] */
    size_t ngroups = 0;
    for (size_t i = 0; i < n; i++)
        ngroups += i == 0 || !same_context(p, &r[i - 1], &r[i]);
    size_t *first = malloc((ngroups + 1) * sizeof(*first));
    if (!first)
        return -ENOMEM;
    for (size_t i = 0, j = 0; i < n; i++)
        if (i == 0 || !same_context(p, &r[i - 1], &r[i]))
            first[j++] = i;
    first[ngroups] = n;

    fpl_put_bytes(b, ",\"sp\":{\"ids\":[", 14);
    for (size_t j = 0; j < ngroups; j++) {
        const struct tracectx_def *d = &p->ctx.defs[r[first[j]].def];
        const char *ep = tracectx_endpoint(&p->ctx, d->root);
        fpl_put_bytes(b, j ? ",[" : "[", j ? 2 : 1);
        put_id(b, d->span);
        fpl_put_u8(b, ',');
        put_id(b, d->root);
        fpl_put_u8(b, ',');
        if (ep)
            esc_json(b, ep);
        else
            fpl_put_bytes(b, "null", 4);
        fpl_put_u8(b, ']');
    }
    fpl_put_bytes(b, "],\"m\":\"", 7);
    for (size_t j = 0; j < ngroups; j++) {
        out_html_put_num(b, first[j + 1] - first[j]);
        uint32_t last = 0;
        for (size_t i = first[j]; i < first[j + 1]; i++) {
            uint64_t w = profile_fp_round(r[i].fp);
            out_html_put_num(b, r[i].bin - last);
            out_html_put_num(b, row_of[r[i].slot]);
            out_html_put_num(b, r[i].cat);
            out_html_put_num(b, r[i].pos);
            out_html_put_num(b, w ? w : 1);
            last = r[i].bin;
        }
    }
    fpl_put_u8(b, '"');
    fpl_put_bytes(b, ",\"let_go\":", 10);
    put_u64(b, let_go);
    fpl_put_bytes(b, ",\"unknown\":", 11);
    put_u64(b, profile_fp_round(unknown_fp));
    fpl_put_u8(b, '}');
    free(first);
    return b->failed ? -ENOMEM : 0;
}
