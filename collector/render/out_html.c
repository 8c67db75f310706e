/* out_html.c: the interactive HTML flame graph and its differential variant (see out_html.h).
 * Builds the render tree, turns it into the compact preorder encoding and fills the page
 * template that the build embedded (out_html_template.c, generated from collector/html/). */
#include "out_html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "esc.h"
#include "fpl_codec.h"
#include "out_html_timeline.h"

/* The page template and its assets, generated at configure time by collector/html/embed.cmake
 * (not NUL-terminated). */
extern const unsigned char out_html_page[], out_html_css[], out_html_js[];
extern const size_t out_html_page_len, out_html_css_len, out_html_js_len;

#define NONE UINT32_MAX
#define TYPES 16 /* frame table slots per name: enum render_type values 0..15 */

/* A tree flattened for the page: nodes in preorder, each with its frame table entry. */
struct flat {
    const struct render_tree *t;
    uint32_t *order; /* preorder position -> node */
    uint32_t *entry; /* node -> frame table entry */
    uint32_t *nkids; /* node -> number of children */
    uint32_t *names; /* frame table entry -> name index in t->names */
    uint8_t *types;  /* frame table entry -> enum render_type */
    size_t nentries;
};

struct table_row {
    uint32_t name;
    uint8_t type;
    uint64_t uses;
    const char *s;
};

static void flat_destroy(struct flat *fl)
{
    free(fl->order);
    free(fl->entry);
    free(fl->nkids);
    free(fl->names);
    free(fl->types);
    memset(fl, 0, sizeof(*fl));
}

/* Most used first, so frequent frames get one-digit indices; then by name for determinism. */
static int cmp_rows(const void *a, const void *b)
{
    const struct table_row *x = a, *y = b;
    if (x->uses != y->uses)
        return x->uses > y->uses ? -1 : 1;
    int c = strcmp(x->s, y->s);
    if (c)
        return c;
    return (int)x->type - (int)y->type;
}

/* Fills fl from t: the preorder, child counts and the frame table. Returns 0, -ENOMEM, or
 * -EINVAL for a malformed tree (a node unreachable from the root, a bad name index). */
static int flat_init(struct flat *fl, const struct render_tree *t)
{
    size_t n = t->nnodes, slots = t->nnames;
    struct table_row *rows = NULL;
    uint32_t *slot = NULL;
    int rc = -ENOMEM;

    memset(fl, 0, sizeof(*fl));
    fl->t = t;
    if (n == 0 || n >= NONE || t->nnames >= NONE / TYPES)
        return n == 0 ? -EINVAL : -ENOMEM;
    fl->order = malloc(n * sizeof(*fl->order));
    fl->entry = malloc(n * sizeof(*fl->entry));
    fl->nkids = calloc(n, sizeof(*fl->nkids));
    slot = malloc((slots ? slots : 1) * sizeof(*slot));
    if (!fl->order || !fl->entry || !fl->nkids || !slot)
        goto out;

    /* preorder along first_child / next_sibling, climbing back through parent */
    size_t k = 0;
    uint32_t v = 0;
    for (;;) {
        if (k == n)
            break; /* a malformed tree cannot make us write past order[] */
        fl->order[k++] = v;
        if (t->nodes[v].first_child != NONE) {
            v = t->nodes[v].first_child;
            continue;
        }
        while (v != 0 && t->nodes[v].next_sibling == NONE)
            v = t->nodes[v].parent;
        if (v == 0)
            break;
        v = t->nodes[v].next_sibling;
    }
    if (k != n) {
        rc = -EINVAL; /* nodes unreachable from the root */
        goto out;
    }

    /* the frame table: one entry per (name, type) in use */
    for (size_t i = 0; i < slots; i++)
        slot[i] = NONE;
    size_t nrows = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        const struct render_node *nd = &t->nodes[i];
        if (nd->parent != NONE)
            fl->nkids[nd->parent]++;
        if (nd->name >= t->nnames) {
            rc = -EINVAL;
            goto out;
        }
        size_t s = nd->name; /* a name id is one (string, type) */
        if (slot[s] == NONE) {
            if (nrows == cap) {
                cap = cap ? cap * 2 : 256;
                struct table_row *r = realloc(rows, cap * sizeof(*r));
                if (!r)
                    goto out;
                rows = r;
            }
            rows[nrows] =
                (struct table_row){nd->name, nd->type, 0, t->names[nd->name]};
            slot[s] = (uint32_t)nrows++;
        }
        rows[slot[s]].uses++;
    }
    qsort(rows, nrows, sizeof(*rows), cmp_rows);
    fl->names = malloc(nrows * sizeof(*fl->names));
    fl->types = malloc(nrows);
    if (!fl->names || !fl->types)
        goto out;
    for (size_t i = 0; i < nrows; i++) {
        fl->names[i] = rows[i].name;
        fl->types[i] = rows[i].type;
        slot[rows[i].name] = (uint32_t)i;
    }
    fl->nentries = nrows;
    for (size_t i = 0; i < n; i++)
        fl->entry[i] = slot[t->nodes[i].name];
    rc = 0;
out:
    free(rows);
    free(slot);
    if (rc)
        flat_destroy(fl);
    return rc;
}

static void put_str(struct fpl_buf *b, const char *s)
{
    fpl_put_bytes(b, s, strlen(s));
}

static void put_u64(struct fpl_buf *b, uint64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
    fpl_put_bytes(b, tmp, (size_t)n);
}

void out_html_put_num(struct fpl_buf *b, uint64_t v)
{
    static const char more[] = OUT_HTML_MORE, end[] = OUT_HTML_END;
    _Static_assert(sizeof(more) == OUT_HTML_BASE + 1 && sizeof(end) == OUT_HTML_BASE + 1,
                   "digit alphabets");
    while (v >= OUT_HTML_BASE) {
        fpl_put_u8(b, (uint8_t)more[v % OUT_HTML_BASE]);
        v /= OUT_HTML_BASE;
    }
    fpl_put_u8(b, (uint8_t)end[v]);
}

static void put_key(struct fpl_buf *b, const char *key)
{
    fpl_put_u8(b, ',');
    esc_json(b, key);
    fpl_put_u8(b, ':');
}

/* names, types, n and tree (with the given key suffix: "" or "2") of fl; with base, the base
 * weights of the nodes in the same order, and with lost their weight of frames only in base. */
static int put_tree(struct fpl_buf *b, const struct flat *fl, const char *suffix,
                    const uint64_t *base, const uint64_t *lost)
{
    const struct render_tree *t = fl->t;
    size_t n = t->nnodes;
    char key[16];
    uint64_t *rem = malloc(n * sizeof(*rem));
    if (!rem)
        return -ENOMEM;

    snprintf(key, sizeof(key), "names%s", suffix);
    put_key(b, key);
    fpl_put_u8(b, '[');
    for (size_t i = 0; i < fl->nentries; i++) {
        if (i)
            fpl_put_u8(b, ',');
        esc_json(b, t->names[fl->names[i]]);
    }
    fpl_put_u8(b, ']');
    snprintf(key, sizeof(key), "types%s", suffix);
    put_key(b, key);
    fpl_put_u8(b, '"');
    for (size_t i = 0; i < fl->nentries; i++)
        fpl_put_u8(b, (uint8_t)('0' + fl->types[i]));
    fpl_put_u8(b, '"');
    snprintf(key, sizeof(key), "n%s", suffix);
    put_key(b, key);
    put_u64(b, n);

    snprintf(key, sizeof(key), "tree%s", suffix);
    put_key(b, key);
    fpl_put_u8(b, '"');
    for (size_t k = 0; k < n; k++) {
        uint32_t v = fl->order[k];
        const struct render_node *nd = &t->nodes[v];
        int same = 0;
        rem[v] = nd->total;
        if (k > 0) {
            uint64_t *left = &rem[nd->parent];
            same = nd->total == *left;
            *left -= nd->total <= *left ? nd->total : *left;
        }
        out_html_put_num(b, (uint64_t)fl->nkids[v] * 2 + (uint64_t)same);
        out_html_put_num(b, fl->entry[v]);
        if (!same)
            out_html_put_num(b, nd->total);
    }
    fpl_put_u8(b, '"');
    if (base) {
        snprintf(key, sizeof(key), "base%s", suffix);
        put_key(b, key);
        fpl_put_u8(b, '"');
        for (size_t k = 0; k < n; k++)
            out_html_put_num(b, base[fl->order[k]]);
        fpl_put_u8(b, '"');
    }
    if (lost) {
        snprintf(key, sizeof(key), "lost%s", suffix);
        put_key(b, key);
        fpl_put_u8(b, '"');
        for (size_t k = 0; k < n; k++)
            out_html_put_num(b, lost[fl->order[k]]);
        fpl_put_u8(b, '"');
    }
    free(rem);
    return b->failed ? -ENOMEM : 0;
}

static const char *kind_name(int kind)
{
    return kind == FPL_KIND_CPU     ? "cpu"
           : kind == FPL_KIND_WALL  ? "wall"
           : kind == FPL_KIND_ALLOC ? "alloc"
           : kind == FPL_KIND_LOCK  ? "lock"
           : kind == FPL_KIND_LIVE  ? "live"
                                    : "all";
}

/* "JVM version · started <UTC time> · options" for the line under the title. */
static void describe(const struct profile *p, char *buf, size_t len)
{
    const struct profile_header *h = &p->header;
    size_t k = 0;
    buf[0] = 0;
    if (!p->have_header)
        return;
    if (h->jvm_name && *h->jvm_name)
        k += (size_t)snprintf(buf + k, len - k, "%s %s", h->jvm_name,
                              h->jvm_version ? h->jvm_version : "");
    if (k < len && h->anchor_real_ns) {
        time_t s = (time_t)(h->anchor_real_ns / 1000000000u);
        struct tm tm;
        char when[32];
        if (gmtime_r(&s, &tm) && strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm))
            k += (size_t)snprintf(buf + k, len - k, "%sstarted %s", k ? " \xc2\xb7 " : "", when);
    }
    if (k < len && h->options && *h->options)
        snprintf(buf + k, len - k, "%s%s", k ? " \xc2\xb7 " : "", h->options);
}

/* Writes the template to f, replacing {{TITLE}}, {{CSS}}, {{JS}} and {{DATA}}. Returns 0 or
 * -errno (with err filled). */
static int write_page(FILE *f, const char *title, const struct fpl_buf *data, char *err,
                      size_t errlen)
{
    const char *s = (const char *)out_html_page, *end = s + out_html_page_len;
    struct fpl_buf t = {0};
    int rc = 0;

    esc_html(&t, title);
    if (t.failed || data->failed) {
        fpl_buf_free(&t);
        snprintf(err, errlen, "html: out of memory");
        return -ENOMEM;
    }
    errno = 0;
    while (s < end) {
        const char *m = memmem(s, (size_t)(end - s), "{{", 2);
        const void *put = NULL;
        size_t n = 0, rest = m ? (size_t)(end - m) : 0, skip = 0;
        if (!m)
            m = end;
        fwrite(s, 1, (size_t)(m - s), f);
        if (m == end)
            break;
#define IS(lit) (rest >= sizeof(lit) - 1 && memcmp(m, lit, sizeof(lit) - 1) == 0)
        if (IS("{{TITLE}}"))
            put = t.data, n = t.len, skip = 9;
        else if (IS("{{CSS}}"))
            put = out_html_css, n = out_html_css_len, skip = 7;
        else if (IS("{{JS}}"))
            put = out_html_js, n = out_html_js_len, skip = 6;
        else if (IS("{{DATA}}"))
            put = data->data, n = data->len, skip = 8;
        else
            put = m, n = 2, skip = 2;
#undef IS
        if (n)
            fwrite(put, 1, n, f);
        s = m + skip;
    }
    if (fflush(f) != 0 || ferror(f))
        rc = errno ? -errno : -EIO;
    if (rc)
        snprintf(err, errlen, "html: write failed: %s", strerror(-rc));
    fpl_buf_free(&t);
    return rc;
}

/* The common data fields (without the tree) of p's tree t. */
static void put_head(struct fpl_buf *b, const struct profile *p, const struct render_tree *t,
                     const struct render_opts *o, const char *title, const char *subtitle)
{
    /* both kinds weigh ns (render_unit_ns): one weight is 1 ns */
    uint64_t interval = t->unit_ns                 ? 1
                        : t->kind == FPL_KIND_CPU  ? p->header.cpu_interval_ns
                        : t->kind == FPL_KIND_WALL ? p->header.wall_interval_ns
                        : t->kind == FPL_KIND_LOCK ? 1 /* a lock weight is ns waited */
                                                   : 0;
    put_str(b, "{\"v\":");
    put_u64(b, OUT_HTML_DATA_VERSION);
    put_key(b, "title");
    esc_json(b, title);
    put_key(b, "subtitle");
    esc_json(b, subtitle);
    put_key(b, "kind");
    esc_json(b, kind_name(t->kind));
    put_key(b, "interval_ns");
    put_u64(b, interval);
    put_key(b, "unit_ns");
    put_u64(b, t->unit_ns ? 1 : 0);
    put_key(b, "samples");
    put_u64(b, t->samples);
    put_key(b, "total");
    put_u64(b, t->total);
    put_key(b, "threads");
    put_u64(b, o->threads ? 1 : 0);
    put_key(b, "reverse");
    put_u64(b, o->reverse ? 1 : 0);
    /* the node budget in force and what it merged */
    char share[32];
    snprintf(share, sizeof(share), "%.9g", t->min_share);
    put_key(b, "min_share");
    put_str(b, share);
    put_key(b, "max_nodes");
    put_u64(b, o->max_nodes);
    put_key(b, "merged_frames");
    put_u64(b, t->merged_frames);
    put_key(b, "merged_nodes");
    put_u64(b, t->merged_nodes);
}

int out_html_default_kind(const struct profile *p, const struct render_opts *o)
{
    if (o->kind == PROFILE_KIND_AUTO && o->state == RENDER_STATE_ALL &&
        p->total[FPL_KIND_CPU].count && p->total[FPL_KIND_WALL].count)
        return PROFILE_KIND_ALL;
    return o->kind;
}

static int no_memory(char *err, size_t errlen)
{
    snprintf(err, errlen, "html: out of memory");
    return -ENOMEM;
}

static int empty_tree(int rc, char *err, size_t errlen)
{
    if (rc == -EINVAL)
        snprintf(err, errlen, "html: the render tree is malformed");
    else
        no_memory(err, errlen);
    return rc;
}

/* o with the page's node budget: the defaults for 0, none for a negative min_share. */
static struct render_opts budgeted(const struct render_opts *o)
{
    struct render_opts b = *o;
    b.min_share = o->min_share == 0 ? OUT_HTML_MIN_SHARE : o->min_share < 0 ? 0 : o->min_share;
    b.max_nodes = o->max_nodes ? o->max_nodes : OUT_HTML_MAX_NODES;
    return b;
}

int out_html_write(const struct profile *p, const struct render_opts *opts, FILE *f, char *err,
                   size_t errlen)
{
    struct render_tree t = {0};
    struct flat fl = {0};
    struct fpl_buf data = {0};
    char title[1024], subtitle[1024];
    /* colors tell how each Java frame ran: one node per method and JIT state; the page has a
     * node budget */
    struct render_opts budget = budgeted(opts);
    budget.frame_types = 1;
    budget.kind = out_html_default_kind(p, opts);
    const struct render_opts *o = &budget;
    int rc = render_tree_build(&t, p, o, err, errlen);
    if (rc)
        return rc;
    if ((rc = flat_init(&fl, &t)) != 0) {
        empty_tree(rc, err, errlen);
        goto out;
    }
    if (o->title)
        snprintf(title, sizeof(title), "%s", o->title);
    else
        render_default_title(p, t.kind, title, sizeof(title));
    describe(p, subtitle, sizeof(subtitle));
    put_head(&data, p, &t, o, title, subtitle);
    if ((rc = put_tree(&data, &fl, "", NULL, NULL)) != 0) {
        no_memory(err, errlen);
        goto out;
    }
    if (p->timeline) {
        /* the timeline's bins name nodes by their place in the encoded preorder */
        uint32_t *pos = malloc(t.nnodes * sizeof(*pos));
        if (!pos) {
            rc = no_memory(err, errlen);
            goto out;
        }
        for (size_t k = 0; k < t.nnodes; k++)
            pos[fl.order[k]] = (uint32_t)k;
        rc = out_html_timeline_put(&data, p, &t, pos, o, err, errlen);
        free(pos);
        if (rc)
            goto out;
    }
    put_str(&data, "}");
    rc = write_page(f, title, &data, err, errlen);
out:
    fpl_buf_free(&data);
    flat_destroy(&fl);
    render_tree_destroy(&t);
    return rc;
}

/* The titles of a diff of cur against base. */
static void diff_titles(const struct profile *base, const struct profile *cur,
                        const struct render_opts *o, int kind, char *title, size_t tlen,
                        char *subtitle, size_t slen)
{
    char bt[512], ct[512];
    render_default_title(cur, kind, ct, sizeof(ct));
    render_default_title(base, kind, bt, sizeof(bt));
    if (o->title)
        snprintf(title, tlen, "%s", o->title);
    else
        snprintf(title, tlen, "diff: %s", ct);
    snprintf(subtitle, slen, "against the base: %s", bt);
}

/* The tree a diff draws: cur's tree, and under each of its frames, after its own children, the
 * frames base has there and cur has not ("only in base", with their descendants), so a frame
 * that went away is seen with the share it lost. Such a frame is as wide as its base weight
 * scaled to cur's total (its share of base, in cur's units); its ancestors widen by as much.
 * base[i] is node i's weight in base (0 when cur's frame is not in base); lost[i] the width of
 * frames only in base in i's subtree (all of it for one of them): i's own weight in cur is
 * total - lost. Node names index cur's names, then base's (offset cur->nnames). */
struct diff_tree {
    struct render_tree t; /* nodes and names only, owned here; names point into cur and base */
    uint64_t *base;
    uint64_t *lost;
};

static void diff_tree_destroy(struct diff_tree *d)
{
    free(d->t.nodes);
    free(d->t.names);
    free(d->base);
    free(d->lost);
    memset(d, 0, sizeof(*d));
}

/* The first child of base node b that cur does not have (used[] 0) -- the first of all, or
 * the first after the child `after` when that is not NONE -- or NONE. */
static uint32_t only_in_base(const struct render_tree *tb, const uint8_t *used, uint32_t b,
                             uint32_t after)
{
    if (b == NONE)
        return NONE;
    uint32_t c = after == NONE ? tb->nodes[b].first_child : tb->nodes[after].next_sibling;
    while (c != NONE && used[c])
        c = tb->nodes[c].next_sibling;
    return c;
}

static int diff_tree_build(struct diff_tree *d, const struct render_tree *tc,
                           const struct render_tree *tb)
{
    uint32_t *match = malloc((tc->nnodes ? tc->nnodes : 1) * sizeof(*match));
    uint8_t *used = calloc(tb->nnodes ? tb->nnodes : 1, 1);
    size_t n = tc->nnodes, k = 0;
    int rc = -ENOMEM;

    memset(d, 0, sizeof(*d));
    if (!match || !used || render_tree_match_nodes(tc, tb, match) != 0)
        goto out;
    for (size_t i = 0; i < tc->nnodes; i++) {
        if (match[i] != NONE)
            used[match[i]] = 1;
    }
    for (size_t i = 0; i < tb->nnodes; i++)
        n += !used[i];
    d->t.nodes = malloc((n ? n : 1) * sizeof(*d->t.nodes));
    d->t.names = malloc((tc->nnames + tb->nnames + 1) * sizeof(*d->t.names));
    d->base = calloc(n ? n : 1, sizeof(*d->base));
    d->lost = calloc(n ? n : 1, sizeof(*d->lost));
    /* per merged node: the cur or base node it is, and whether it is base's */
    uint32_t *src = malloc((n ? n : 1) * sizeof(*src));
    uint32_t *last = malloc((n ? n : 1) * sizeof(*last)); /* per merged node: its last child */
    uint8_t *ghost = calloc(n ? n : 1, 1);
    if (!d->t.nodes || !d->t.names || !d->base || !d->lost || !src || !last || !ghost) {
        free(src);
        free(last);
        free(ghost);
        goto out;
    }
    memcpy(d->t.names, tc->names, tc->nnames * sizeof(*d->t.names));
    memcpy(d->t.names + tc->nnames, tb->names, tb->nnames * sizeof(*d->t.names));
    d->t.nnames = tc->nnames + tb->nnames;
    d->t.kind = tc->kind;
    d->t.samples = tc->samples;

    /* preorder over the merged tree: a cur node's children are its cur children, then its
     * match's children only in base; a base-only node's children are all its base children */
    if (tc->nnodes == 0)
        goto done;
    uint32_t at = 0; /* merged index of the node being placed */
    uint32_t v = 0;
    int g = 0;
    uint32_t parent = NONE;
    for (;;) {
        const struct render_node *s = g ? &tb->nodes[v] : &tc->nodes[v];
        at = (uint32_t)k++;
        d->t.nodes[at] = (struct render_node){
            .name = (uint32_t)(s->name + (g ? tc->nnames : 0)),
            .type = s->type,
            .merged = s->merged,
            .parent = parent,
            .first_child = NONE,
            .next_sibling = NONE,
            .depth = parent == NONE ? 0 : d->t.nodes[parent].depth + 1};
        src[at] = v;
        ghost[at] = (uint8_t)g;
        last[at] = NONE;
        if (parent != NONE) {
            if (last[parent] == NONE)
                d->t.nodes[parent].first_child = at;
            else
                d->t.nodes[last[parent]].next_sibling = at;
            last[parent] = at;
        }
        /* descend */
        uint32_t child = NONE;
        int cg = g;
        if (!g && tc->nodes[v].first_child != NONE) {
            child = tc->nodes[v].first_child;
        } else if (!g) {
            child = only_in_base(tb, used, match[v], NONE);
            cg = 1;
        } else {
            child = tb->nodes[v].first_child;
        }
        if (child != NONE) {
            parent = at;
            v = child;
            g = cg;
            continue;
        }
        /* next sibling, climbing while there is none */
        for (;;) {
            if (parent == NONE)
                goto done;
            uint32_t sib = NONE;
            int sg = g;
            if (!g) {
                sib = tc->nodes[v].next_sibling;
                if (sib == NONE) {
                    sib = only_in_base(tb, used, match[src[parent]], NONE);
                    sg = 1;
                }
            } else if (!ghost[parent]) {
                sib = only_in_base(tb, used, match[src[parent]], v);
            } else {
                sib = tb->nodes[v].next_sibling;
            }
            if (sib != NONE) {
                v = sib;
                g = sg;
                break;
            }
            /* up: the parent's own position */
            v = src[parent];
            g = ghost[parent];
            parent = d->t.nodes[parent].parent;
        }
    }
done:
    d->t.nnodes = k;
    /* weights, children before parents (preorder backwards): a base-only frame is as wide as
     * its base weight scaled to cur's total; the others as their cur weight plus what the
     * frames only in base below them add */
    {
        uint64_t ctot = tc->nnodes ? tc->nodes[0].total : 0;
        uint64_t btot = tb->nnodes ? tb->nodes[0].total : 0;
        for (size_t i = k; i-- > 0;) {
            struct render_node *nd = &d->t.nodes[i];
            if (ghost[i]) {
                d->base[i] = tb->nodes[src[i]].total;
                nd->total = btot ? (uint64_t)((unsigned __int128)d->base[i] * ctot / btot) : 0;
                d->lost[i] = nd->total;
            } else {
                d->base[i] = match[src[i]] == NONE ? 0 : tb->nodes[match[src[i]]].total;
                nd->total = tc->nodes[src[i]].total + d->lost[i];
            }
            if (nd->parent != NONE && !ghost[i])
                d->lost[nd->parent] += d->lost[i];
            else if (nd->parent != NONE && !ghost[nd->parent])
                d->lost[nd->parent] += nd->total;
        }
        for (size_t i = 0; i < k; i++)
            d->t.nodes[i].self = d->t.nodes[i].total;
        for (size_t i = 1; i < k; i++)
            d->t.nodes[d->t.nodes[i].parent].self -= d->t.nodes[i].total;
        d->t.total = k ? d->t.nodes[0].total : 0;
    }
    free(src);
    free(last);
    free(ghost);
    rc = 0;
out:
    free(match);
    free(used);
    if (rc)
        diff_tree_destroy(d);
    return rc;
}

/* One orientation of a diff into data under the key suffix: cur's tree with base's weights
 * matched to its nodes, and the frames only in base (diff_tree). The first one (suffix "")
 * also writes the head and the titles. */
static int put_diff_tree(struct fpl_buf *data, const struct profile *base,
                         const struct profile *cur, const struct render_opts *o, const char *suffix,
                         char *title, size_t tlen, char *err, size_t errlen)
{
    struct render_tree tc = {0}, tb = {0};
    struct diff_tree dt = {0};
    struct flat fl = {0};
    char subtitle[1100];
    int rc;

    if ((rc = render_tree_build(&tb, base, o, err, errlen)) != 0)
        return rc;
    if ((rc = render_tree_build(&tc, cur, o, err, errlen)) != 0)
        goto out;
    if ((rc = diff_tree_build(&dt, &tc, &tb)) != 0) {
        no_memory(err, errlen);
        goto out;
    }
    if ((rc = flat_init(&fl, &dt.t)) != 0) {
        empty_tree(rc, err, errlen);
        goto out;
    }
    if (!*suffix) {
        diff_titles(base, cur, o, tc.kind, title, tlen, subtitle, sizeof(subtitle));
        put_head(data, cur, &tc, o, title, subtitle);
        put_key(data, "diff");
        put_u64(data, 1);
        put_key(data, "base_total");
        put_u64(data, tb.total);
        put_key(data, "base_samples");
        put_u64(data, tb.samples);
    }
    if ((rc = put_tree(data, &fl, suffix, dt.base, dt.lost)) != 0)
        no_memory(err, errlen);
out:
    diff_tree_destroy(&dt);
    flat_destroy(&fl);
    render_tree_destroy(&tc);
    render_tree_destroy(&tb);
    return rc;
}

int out_html_write_diff(const struct profile *base, const struct profile *cur,
                        const struct render_opts *o, FILE *f, char *err, size_t errlen)
{
    struct fpl_buf data = {0};
    struct render_opts flip = *o;
    char title[1024] = "";
    int rc;

    if ((rc = put_diff_tree(&data, base, cur, o, "", title, sizeof(title), err, errlen)) != 0)
        goto out;
    flip.reverse = !o->reverse;
    if ((rc = put_diff_tree(&data, base, cur, &flip, "2", NULL, 0, err, errlen)) != 0)
        goto out;
    put_str(&data, "}");
    rc = write_page(f, title, &data, err, errlen);
out:
    fpl_buf_free(&data);
    return rc;
}
