/* out_html.c: the interactive HTML flame graph and its differential variant (see out_html.h).
 * Builds the render tree, turns it into the compact preorder encoding and fills the page
 * template that the build embedded (out_html_template.c, generated from collector/html/). */
#include "out_html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fpl_codec.h"

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

/* One number in the page's digit encoding (out_html.h). */
static void put_num(struct fpl_buf *b, uint64_t v)
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

/* Decodes one UTF-8 (or CESU-8 surrogate, as in JVM modified UTF-8) sequence at s[0..len).
 * Returns its length and the code point in *cp; 1 and U+FFFD for an invalid byte. */
static size_t utf8_next(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t need;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        need = 1, v = c & 0x1f, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 2, v = c & 0x0f, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3, v = c & 0x07, min = 0x10000;
    } else {
        *cp = 0xfffd;
        return 1;
    }
    if (len < need + 1)
        goto bad;
    for (size_t i = 1; i <= need; i++) {
        if ((s[i] & 0xc0) != 0x80)
            goto bad;
        v = v << 6 | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff)
        goto bad;
    *cp = v;
    return need + 1;
bad:
    *cp = 0xfffd;
    return 1;
}

/* s as a JSON string literal that is pure ASCII and safe inside a <script> element. */
static void put_json_str(struct fpl_buf *b, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t len = strlen(str);
    char tmp[16];
    fpl_put_u8(b, '"');
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_next(s + i, len - i, &cp);
        i += n;
        if (cp == '"' || cp == '\\') {
            fpl_put_u8(b, '\\');
            fpl_put_u8(b, (uint8_t)cp);
        } else if (cp >= 0x20 && cp < 0x7f && cp != '<' && cp != '>' && cp != '&') {
            fpl_put_u8(b, (uint8_t)cp);
        } else if (cp < 0x10000) {
            snprintf(tmp, sizeof(tmp), "\\u%04x", (unsigned)cp);
            put_str(b, tmp);
        } else {
            cp -= 0x10000;
            snprintf(tmp, sizeof(tmp), "\\u%04x\\u%04x", 0xd800u + (cp >> 10),
                     0xdc00u + (cp & 0x3ff));
            put_str(b, tmp);
        }
    }
    fpl_put_u8(b, '"');
}

/* s as HTML text (the <title> element): markup characters and non-ASCII as references,
 * control characters as spaces. */
static void put_html_text(struct fpl_buf *b, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t len = strlen(str);
    char tmp[16];
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += utf8_next(s + i, len - i, &cp);
        if (cp >= 0xd800 && cp <= 0xdfff)
            cp = 0xfffd; /* a lone surrogate is no character in HTML */
        if (cp < 0x20 || cp == 0x7f) {
            fpl_put_u8(b, ' ');
        } else if (cp == '<' || cp == '>' || cp == '&' || cp == '"' || cp == '\'') {
            put_str(b, cp == '<'   ? "&lt;"
                       : cp == '>' ? "&gt;"
                       : cp == '&' ? "&amp;"
                       : cp == '"' ? "&quot;"
                                   : "&#39;");
        } else if (cp < 0x7f) {
            fpl_put_u8(b, (uint8_t)cp);
        } else {
            snprintf(tmp, sizeof(tmp), "&#x%x;", (unsigned)cp);
            put_str(b, tmp);
        }
    }
}

static void put_key(struct fpl_buf *b, const char *key)
{
    fpl_put_u8(b, ',');
    put_json_str(b, key);
    fpl_put_u8(b, ':');
}

/* names, types, n and tree (with the given key suffix: "" or "2") of fl; with base, the base
 * weights of the nodes in the same order. */
static int put_tree(struct fpl_buf *b, const struct flat *fl, const char *suffix,
                    const uint64_t *base)
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
        put_json_str(b, t->names[fl->names[i]]);
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
        put_num(b, (uint64_t)fl->nkids[v] * 2 + (uint64_t)same);
        put_num(b, fl->entry[v]);
        if (!same)
            put_num(b, nd->total);
    }
    fpl_put_u8(b, '"');
    if (base) {
        snprintf(key, sizeof(key), "base%s", suffix);
        put_key(b, key);
        fpl_put_u8(b, '"');
        for (size_t k = 0; k < n; k++)
            put_num(b, base[fl->order[k]]);
        fpl_put_u8(b, '"');
    }
    free(rem);
    return b->failed ? -ENOMEM : 0;
}

static const char *kind_name(int kind)
{
    return kind == FPL_KIND_CPU ? "cpu" : kind == FPL_KIND_WALL ? "wall" : "all";
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

    put_html_text(&t, title);
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
    uint64_t interval = t->kind == FPL_KIND_CPU    ? p->header.cpu_interval_ns
                        : t->kind == FPL_KIND_WALL ? p->header.wall_interval_ns
                                                   : 0;
    put_str(b, "{\"v\":");
    put_u64(b, OUT_HTML_DATA_VERSION);
    put_key(b, "title");
    put_json_str(b, title);
    put_key(b, "subtitle");
    put_json_str(b, subtitle);
    put_key(b, "kind");
    put_json_str(b, kind_name(t->kind));
    put_key(b, "interval_ns");
    put_u64(b, interval);
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
    if ((rc = put_tree(&data, &fl, "", NULL)) != 0) {
        no_memory(err, errlen);
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

/* One orientation of a diff into data under the key suffix: cur's tree, and base's weights
 * matched to its nodes. The first one (suffix "") also writes the head and the titles. */
static int put_diff_tree(struct fpl_buf *data, const struct profile *base,
                         const struct profile *cur, const struct render_opts *o, const char *suffix,
                         char *title, size_t tlen, char *err, size_t errlen)
{
    struct render_tree tc = {0}, tb = {0};
    struct flat fl = {0};
    uint64_t *matched = NULL;
    char subtitle[1100];
    int rc;

    if ((rc = render_tree_build(&tb, base, o, err, errlen)) != 0)
        return rc;
    if ((rc = render_tree_build(&tc, cur, o, err, errlen)) != 0)
        goto out;
    if ((rc = flat_init(&fl, &tc)) != 0) {
        empty_tree(rc, err, errlen);
        goto out;
    }
    matched = malloc(tc.nnodes * sizeof(*matched));
    if (!matched) {
        rc = no_memory(err, errlen);
        goto out;
    }
    if ((rc = render_tree_match(&tc, &tb, matched)) != 0) {
        snprintf(err, errlen, "html: matching the base tree failed: %s", strerror(-rc));
        goto out;
    }
    if (!*suffix) {
        diff_titles(base, cur, o, tc.kind, title, tlen, subtitle, sizeof(subtitle));
        put_head(data, cur, &tc, o, title, subtitle);
        put_key(data, "diff");
        put_u64(data, 1);
        put_key(data, "base_total");
        put_u64(data, tb.total);
    }
    if ((rc = put_tree(data, &fl, suffix, matched)) != 0)
        no_memory(err, errlen);
out:
    free(matched);
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
