/* test_html.c: the HTML flame graph's embedded data. Small logs are rendered, the data block
 * is read back with a JSON reader and the tree decoder of out_html.h (written again here, as
 * the page does it), and checked: the exact encoding of a small tree, the folded stacks of the
 * golden log (plain, --threads, reversed) and of a random profile against out_collapsed,
 * hostile names (</script>, quotes, non-ASCII, broken UTF-8) that must come out escaped and
 * intact, diff weights and shares, and write errors.
 *
 * `test_html --write DIR` writes the logs the browser test (tests/browser/) turns into pages
 * with flyprof convert and diff instead: browser, tiny, hostile, base and cur (the cells below),
 * golden (golden_log.c), and noise-a, noise-b and noise-shift (random draws: save_noise).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fpl_format.h"
#include "fplgen.h"
#include "golden_log.h"
#include "harness.h"
#include "out_collapsed.h"
#include "out_html.h"
#include "profile.h"
#include "render.h"

extern const unsigned char out_html_js[];
extern const size_t out_html_js_len;

/* ---- building logs ------------------------------------------------------------------------ */

/* One cell of a small log: a thread name, frames root first separated by '|', a weight. A
 * frame "[x]" is a marker, "c:x" a C function, "k:x" kernel code, "s:x" a JVM stub, "n:a.B.m"
 * a native Java method, anything else a Java method whose class ends at the last '.'. A
 * suffix "@N" gives the frame type N (enum fpl_frame_type) of a Java frame. */
struct cell {
    const char *thread;
    const char *frames;
    uint64_t weight;
};

struct namer {
    const char *names[512];
    size_t n;
};

static uint64_t name_id(struct namer *nm, const char *s)
{
    for (size_t i = 0; i < nm->n; i++)
        if (strcmp(nm->names[i], s) == 0)
            return i + 1;
    nm->names[nm->n++] = s;
    return nm->n;
}

/* Writes a method record for the frame spec s (see struct cell). */
static void put_method(struct fplgen *g, uint64_t id, const char *s)
{
    char cls[512];
    uint8_t kind = FPL_METHOD_JAVA;
    if (s[0] == '[') {
        fplgen_method(g, id, FPL_METHOD_MARKER, "", s, "", "", 0, NULL);
        return;
    }
    if (strncmp(s, "c:", 2) == 0 || strncmp(s, "k:", 2) == 0) {
        fplgen_method(g, id, FPL_METHOD_CFUNC, "", s + 2, "", "", 0, NULL);
        return;
    }
    if (strncmp(s, "s:", 2) == 0) {
        fplgen_method(g, id, FPL_METHOD_STUB, "", s + 2, "", "", 0, NULL);
        return;
    }
    if (strncmp(s, "n:", 2) == 0) {
        kind = FPL_METHOD_NATIVE;
        s += 2;
    }
    const char *dot = strrchr(s, '.');
    size_t cl = dot ? (size_t)(dot - s) : 0;
    snprintf(cls, sizeof(cls), "%.*s", (int)cl, s);
    fplgen_method(g, id, kind, cls, dot ? dot + 1 : s, "()V", "", 0, NULL);
}

/* Builds a log of the given CPU cells (samples of weight 1, as many as the cell's weight). */
static int build_cells(struct fplgen *g, const char *command, const struct cell *c, size_t n)
{
    struct namer threads = {0}, methods = {0};
    const struct fplgen_header h = {
        .pid = 777,
        .clock = FPL_CLOCK_MONOTONIC,
        .ticks_per_sec = 1000000000ull,
        .anchor_ticks = 1000,
        .anchor_mono_ns = 1000,
        .anchor_real_ns = 1700000000000000000ull,
        .cpu_interval_ns = 10000000,
        .engine = FPL_ENGINE_CPUTIMER,
        .depth = 2048,
        .options = "cpu=10ms",
        .jvm_name = "TestVM",
        .jvm_version = "1.0",
        .command = command,
    };
    uint64_t t = 2000;
    fplgen_header(g, &h);
    for (size_t i = 0; i < n; i++) {
        struct reader_frame fr[64];
        char buf[2048], *save = NULL;
        size_t nf = 0;
        uint64_t tid = name_id(&threads, c[i].thread);
        if (tid == threads.n)
            fplgen_thread(g, tid, 100 + tid, c[i].thread);
        snprintf(buf, sizeof(buf), "%s", c[i].frames);
        for (char *f = strtok_r(buf, "|", &save); f && nf < 64; f = strtok_r(NULL, "|", &save)) {
            /* strtok_r's pieces live in buf: intern a stable copy from the cell's string */
            const char *stable = c[i].frames + (f - buf);
            size_t len = strlen(f);
            uint8_t type = FPL_FRAME_JAVA;
            char *at = strrchr(f, '@');
            if (at && at[1] >= '0' && at[1] <= '9' && !at[2]) {
                type = (uint8_t)(at[1] - '0');
                len = (size_t)(at - f);
            }
            if (strncmp(f, "k:", 2) == 0)
                type = FPL_FRAME_KERNEL;
            else if (strncmp(f, "s:", 2) == 0)
                type = FPL_FRAME_STUB;
            else if (strncmp(f, "c:", 2) == 0)
                type = FPL_FRAME_NATIVE;
            char *copy = strndup(stable, len);
            size_t before = methods.n;
            uint64_t mid = name_id(&methods, copy);
            if (methods.n > before)
                put_method(g, mid, copy);
            else
                free(copy);
            fr[nf++] = (struct reader_frame){mid, -1, type};
        }
        /* stacks are leaf first */
        for (size_t a = 0, b = nf - 1; nf && a < b; a++, b--) {
            struct reader_frame x = fr[a];
            fr[a] = fr[b];
            fr[b] = x;
        }
        fplgen_stack(g, i + 1, nf, fr);
        for (uint64_t k = 0; k < c[i].weight; k++)
            fplgen_sample(g, t += 10000000, tid, i + 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    }
    fplgen_end(g, t + 1);
    int rc = fplgen_flush(g);
    for (size_t i = 0; i < methods.n; i++)
        free((char *)methods.names[i]);
    return rc;
}

static struct profile *load_gen(struct fplgen *g, const char *name)
{
    char err[256];
    size_t len;
    uint8_t *data = fplgen_bytes(g, &len);
    struct profile *p = profile_new();
    if (data && p && profile_read_mem(p, data, len, name, err, sizeof(err)) == 0) {
        free(data);
        return p;
    }
    fprintf(stderr, "load %s failed\n", name);
    free(data);
    profile_free(p);
    return NULL;
}

static struct profile *load_cells(const char *command, const struct cell *c, size_t n)
{
    struct fplgen g;
    struct profile *p = NULL;
    if (fplgen_init(&g) == 0 && build_cells(&g, command, c, n) == 0)
        p = load_gen(&g, command);
    fplgen_destroy(&g);
    return p;
}

static struct profile *load_golden(void)
{
    struct fplgen g;
    struct profile *p = NULL;
    if (fplgen_init(&g) == 0 && golden_log_build(&g, 1) == 0)
        p = load_gen(&g, "golden.fpl");
    fplgen_destroy(&g);
    return p;
}

/* ---- rendering ---------------------------------------------------------------------------- */

static struct render_opts opts(int kind, int threads, int reverse)
{
    struct render_opts o = {
        .kind = kind, .threads = threads, .reverse = reverse, .state = RENDER_STATE_ALL};
    return o;
}

/* The page for p (or the diff of base and p) as a malloc'd string; NULL on failure. */
static char *page(const struct profile *base, const struct profile *p, const struct render_opts *o)
{
    char *buf = NULL, err[256] = "";
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int rc = base ? out_html_write_diff(base, p, o, f, err, sizeof(err))
                  : out_html_write(p, o, f, err, sizeof(err));
    fclose(f);
    if (rc) {
        fprintf(stderr, "html: rc %d: %s\n", rc, err);
        free(buf);
        return NULL;
    }
    return buf;
}

/* ---- a small JSON reader: the data object's fields ------------------------------------- */

struct jfield {
    char key[32];
    char type; /* 's' string, 'n' number, 'a' array of strings */
    char *s;   /* string (UTF-8, may hold NULs: see len) */
    size_t len;
    double num;
    char **items; /* array */
    size_t nitems;
};

struct jobj {
    struct jfield f[48];
    size_t n;
};

static void put_utf8(struct fpl_buf *b, uint32_t cp)
{
    if (cp < 0x80) {
        fpl_put_u8(b, (uint8_t)cp);
    } else if (cp < 0x800) {
        fpl_put_u8(b, (uint8_t)(0xc0 | cp >> 6));
        fpl_put_u8(b, (uint8_t)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        fpl_put_u8(b, (uint8_t)(0xe0 | cp >> 12));
        fpl_put_u8(b, (uint8_t)(0x80 | ((cp >> 6) & 0x3f)));
        fpl_put_u8(b, (uint8_t)(0x80 | (cp & 0x3f)));
    } else {
        fpl_put_u8(b, (uint8_t)(0xf0 | cp >> 18));
        fpl_put_u8(b, (uint8_t)(0x80 | ((cp >> 12) & 0x3f)));
        fpl_put_u8(b, (uint8_t)(0x80 | ((cp >> 6) & 0x3f)));
        fpl_put_u8(b, (uint8_t)(0x80 | (cp & 0x3f)));
    }
}

static int hex4(const char *s, uint32_t *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return -1;
        *v = *v << 4 | (uint32_t)d;
    }
    return 0;
}

/* Reads a JSON string at *ps (at its opening quote) into a malloc'd UTF-8 string. */
static char *json_string(const char **ps, size_t *len)
{
    const char *s = *ps;
    struct fpl_buf b = {0};
    if (*s++ != '"')
        return NULL;
    while (*s && *s != '"') {
        if ((unsigned char)*s < 0x20)
            goto bad; /* raw control characters are not JSON */
        if (*s != '\\') {
            fpl_put_u8(&b, (uint8_t)*s++);
            continue;
        }
        s++;
        uint32_t cp, lo;
        switch (*s) {
        case '"':
        case '\\':
        case '/':
            fpl_put_u8(&b, (uint8_t)*s);
            s++;
            break;
        case 'b':
            fpl_put_u8(&b, '\b');
            s++;
            break;
        case 'f':
            fpl_put_u8(&b, '\f');
            s++;
            break;
        case 'n':
            fpl_put_u8(&b, '\n');
            s++;
            break;
        case 'r':
            fpl_put_u8(&b, '\r');
            s++;
            break;
        case 't':
            fpl_put_u8(&b, '\t');
            s++;
            break;
        case 'u':
            if (hex4(s + 1, &cp))
                goto bad;
            s += 5;
            if (cp >= 0xd800 && cp < 0xdc00 && s[0] == '\\' && s[1] == 'u' &&
                hex4(s + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                s += 6;
            }
            put_utf8(&b, cp);
            break;
        default:
            goto bad;
        }
    }
    if (*s != '"')
        goto bad;
    *ps = s + 1;
    fpl_put_u8(&b, 0);
    if (b.failed)
        goto bad;
    *len = b.len - 1;
    return (char *)b.data;
bad:
    fpl_buf_free(&b);
    return NULL;
}

static void skip_ws(const char **s)
{
    while (**s == ' ' || **s == '\n' || **s == '\r' || **s == '\t')
        (*s)++;
}

static void jobj_free(struct jobj *o)
{
    for (size_t i = 0; i < o->n; i++) {
        free(o->f[i].s);
        for (size_t k = 0; k < o->f[i].nitems; k++)
            free(o->f[i].items[k]);
        free(o->f[i].items);
    }
    memset(o, 0, sizeof(*o));
}

/* Parses the flat object at s (strings, numbers, arrays of strings). Returns 0 or -1. */
static int jobj_parse(struct jobj *o, const char *s)
{
    memset(o, 0, sizeof(*o));
    skip_ws(&s);
    if (*s++ != '{')
        return -1;
    for (;;) {
        skip_ws(&s);
        if (*s == '}')
            return 0;
        if (o->n == sizeof(o->f) / sizeof(o->f[0]))
            return -1;
        struct jfield *f = &o->f[o->n++];
        size_t len;
        char *key = json_string(&s, &len);
        if (!key)
            return -1;
        snprintf(f->key, sizeof(f->key), "%s", key);
        free(key);
        skip_ws(&s);
        if (*s++ != ':')
            return -1;
        skip_ws(&s);
        if (*s == '"') {
            f->type = 's';
            if (!(f->s = json_string(&s, &f->len)))
                return -1;
        } else if (*s == '[') {
            f->type = 'a';
            s++;
            skip_ws(&s);
            while (*s != ']') {
                size_t cap = f->nitems + 1;
                char **items = realloc(f->items, cap * sizeof(*items));
                if (!items)
                    return -1;
                f->items = items;
                if (!(f->items[f->nitems] = json_string(&s, &len)))
                    return -1;
                f->nitems++;
                skip_ws(&s);
                if (*s == ',')
                    s++;
                skip_ws(&s);
            }
            s++;
        } else {
            char *end;
            f->type = 'n';
            f->num = strtod(s, &end);
            if (end == s)
                return -1;
            s = end;
        }
        skip_ws(&s);
        if (*s == ',')
            s++;
    }
}

static const struct jfield *jget(const struct jobj *o, const char *key, char type)
{
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->f[i].key, key) == 0 && o->f[i].type == type)
            return &o->f[i];
    return NULL;
}

/* The data object embedded in a page; 0 or -1. */
static int page_data(const char *html, struct jobj *o)
{
    static const char open[] = "<script type=\"application/json\" id=\"fp-data\">";
    const char *a = html ? strstr(html, open) : NULL;
    if (!a)
        return -1;
    a += sizeof(open) - 1;
    const char *b = strstr(a, "</script>");
    if (!b)
        return -1;
    char *copy = strndup(a, (size_t)(b - a));
    int rc = copy ? jobj_parse(o, copy) : -1;
    free(copy);
    return rc;
}

/* ---- the tree decoder of out_html.h ------------------------------------------------------- */

struct dtree {
    size_t n, nnames;
    char **names;
    const char *types;
    uint32_t *name, *par, *dep;
    uint64_t *tot, *self, *base, *lost;
};

static int digit(char c)
{
    const char *e = strchr(OUT_HTML_END, c), *m = strchr(OUT_HTML_MORE, c);
    if (c && e)
        return (int)(e - OUT_HTML_END);
    if (c && m)
        return OUT_HTML_BASE + (int)(m - OUT_HTML_MORE);
    return -1;
}

static int num(const char **s, uint64_t *v)
{
    uint64_t mul = 1;
    *v = 0;
    for (;;) {
        int d = digit(**s);
        if (d < 0)
            return -1;
        (*s)++;
        if (d < OUT_HTML_BASE) {
            *v += (uint64_t)d * mul;
            return 0;
        }
        *v += (uint64_t)(d - OUT_HTML_BASE) * mul;
        mul *= OUT_HTML_BASE;
    }
}

static void dtree_free(struct dtree *t)
{
    free(t->name);
    free(t->par);
    free(t->dep);
    free(t->tot);
    free(t->self);
    free(t->lost);
    free(t->base);
    memset(t, 0, sizeof(*t));
}

/* Decodes the tree with the given key suffix ("" or "2"); 0 or -1. */
static int dtree_decode(struct dtree *t, const struct jobj *o, const char *suffix)
{
    char k[16];
    memset(t, 0, sizeof(*t));
    snprintf(k, sizeof(k), "names%s", suffix);
    const struct jfield *names = jget(o, k, 'a');
    snprintf(k, sizeof(k), "types%s", suffix);
    const struct jfield *types = jget(o, k, 's');
    snprintf(k, sizeof(k), "n%s", suffix);
    const struct jfield *nf = jget(o, k, 'n');
    snprintf(k, sizeof(k), "tree%s", suffix);
    const struct jfield *tree = jget(o, k, 's');
    snprintf(k, sizeof(k), "base%s", suffix);
    const struct jfield *base = jget(o, k, 's');
    if (!names || !types || !nf || !tree || types->len != names->nitems || nf->num < 1)
        return -1;
    size_t n = (size_t)nf->num;
    t->n = n;
    t->names = names->items;
    t->nnames = names->nitems;
    t->types = types->s;
    t->name = calloc(n, sizeof(*t->name));
    t->par = calloc(n, sizeof(*t->par));
    t->dep = calloc(n, sizeof(*t->dep));
    t->tot = calloc(n, sizeof(*t->tot));
    t->self = calloc(n, sizeof(*t->self));
    uint32_t *stack = calloc(n, sizeof(*stack));
    uint64_t *kids = calloc(n, sizeof(*kids)), *rem = calloc(n, sizeof(*rem));
    size_t sp = 0;
    int rc = -1;
    const char *s = tree->s;
    if (!t->name || !t->par || !t->dep || !t->tot || !t->self || !stack || !kids || !rem)
        goto out;
    for (size_t i = 0; i < n; i++) {
        uint64_t h, e, tot;
        if (num(&s, &h) || num(&s, &e) || e >= t->nnames)
            goto out;
        if (sp) {
            size_t top = sp - 1;
            if (h % 2)
                tot = rem[top];
            else if (num(&s, &tot))
                goto out;
            if (tot > rem[top] || kids[top] == 0)
                goto out;
            rem[top] -= tot;
            kids[top]--;
            t->par[i] = stack[top];
        } else {
            if (i || h % 2 || num(&s, &tot))
                goto out;
            t->par[i] = UINT32_MAX;
        }
        t->name[i] = (uint32_t)e;
        t->tot[i] = tot;
        t->dep[i] = (uint32_t)sp;
        if (h / 2) {
            stack[sp] = (uint32_t)i;
            kids[sp] = h / 2;
            rem[sp++] = tot;
        } else {
            t->self[i] = tot;
            while (sp && kids[sp - 1] == 0) {
                sp--;
                t->self[stack[sp]] = rem[sp];
            }
        }
    }
    if (sp || *s)
        goto out;
    if (base) {
        t->base = calloc(n, sizeof(*t->base));
        s = base->s;
        for (size_t i = 0; t->base && i < n; i++)
            if (num(&s, &t->base[i]))
                goto out;
        if (!t->base || *s)
            goto out;
    }
    snprintf(k, sizeof(k), "lost%s", suffix);
    const struct jfield *lost = jget(o, k, 's');
    if (lost) {
        t->lost = calloc(n, sizeof(*t->lost));
        s = lost->s;
        for (size_t i = 0; t->lost && i < n; i++)
            if (num(&s, &t->lost[i]))
                goto out;
        if (!t->lost || *s)
            goto out;
    }
    rc = 0;
out:
    free(stack);
    free(kids);
    free(rem);
    if (rc)
        dtree_free(t);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The path of node i from below the root, ';'-separated, into b (not terminated). */
static void path_of(const struct dtree *t, uint32_t i, struct fpl_buf *b)
{
    uint32_t chain[4096];
    size_t n = 0;
    for (uint32_t v = i; v != 0 && n < 4096; v = t->par[v])
        chain[n++] = v;
    while (n--) {
        const char *s = t->names[t->name[chain[n]]];
        fpl_put_bytes(b, s, strlen(s));
        if (n)
            fpl_put_u8(b, ';');
    }
}

/* The decoded tree as sorted folded lines "path self\n" (nodes with self weight). */
static char *dtree_folded(const struct dtree *t)
{
    char **lines = calloc(t->n, sizeof(*lines));
    size_t nl = 0;
    struct fpl_buf out = {0};
    if (!lines)
        return NULL;
    for (uint32_t i = 1; i < t->n; i++) {
        if (!t->self[i])
            continue;
        struct fpl_buf b = {0};
        char w[32];
        path_of(t, i, &b);
        snprintf(w, sizeof(w), " %llu\n", (unsigned long long)t->self[i]);
        fpl_put_bytes(&b, w, strlen(w) + 1);
        lines[nl++] = (char *)b.data;
    }
    qsort(lines, nl, sizeof(*lines), cmp_str);
    for (size_t i = 0; i < nl; i++) {
        fpl_put_bytes(&out, lines[i], strlen(lines[i]));
        free(lines[i]);
    }
    fpl_put_u8(&out, 0);
    free(lines);
    return (char *)out.data;
}

/* The node at path "a;b;c" below the root, or UINT32_MAX. */
static uint32_t dtree_find(const struct dtree *t, const char *path)
{
    for (uint32_t i = 1; i < t->n; i++) {
        struct fpl_buf b = {0};
        path_of(t, i, &b);
        fpl_put_u8(&b, 0);
        int same = b.data && strcmp((char *)b.data, path) == 0;
        fpl_buf_free(&b);
        if (same)
            return i;
    }
    return UINT32_MAX;
}

/* Folded text with every line's frames reversed, except the first `pinned` ones; sorted. */
static char *reverse_folded(const char *text, int pinned)
{
    char *copy = strdup(text), *save = NULL, *lines[4096];
    size_t nl = 0;
    struct fpl_buf out = {0};
    for (char *l = strtok_r(copy, "\n", &save); l && nl < 4096; l = strtok_r(NULL, "\n", &save)) {
        char *sp = strrchr(l, ' '), *fr[256], *s2 = NULL;
        size_t nf = 0;
        *sp = 0;
        for (char *f = strtok_r(l, ";", &s2); f && nf < 256; f = strtok_r(NULL, ";", &s2))
            fr[nf++] = f;
        struct fpl_buf b = {0};
        for (size_t k = 0; k < nf; k++) {
            size_t idx = (int)k < pinned ? k : nf - 1 - (k - (size_t)pinned);
            if (k)
                fpl_put_u8(&b, ';');
            fpl_put_bytes(&b, fr[idx], strlen(fr[idx]));
        }
        fpl_put_bytes(&b, " ", 1);
        fpl_put_bytes(&b, sp + 1, strlen(sp + 1));
        fpl_put_bytes(&b, "\n", 2);
        lines[nl++] = (char *)b.data;
    }
    qsort(lines, nl, sizeof(*lines), cmp_str);
    for (size_t i = 0; i < nl; i++) {
        fpl_put_bytes(&out, lines[i], strlen(lines[i]));
        free(lines[i]);
    }
    fpl_put_u8(&out, 0);
    free(copy);
    return (char *)out.data;
}

static int same_text(const char *got, const char *want)
{
    if (got && want && strcmp(got, want) == 0)
        return 1;
    fprintf(stderr, "--- expected\n%s--- got\n%s---\n", want ? want : "(null)\n",
            got ? got : "(null)\n");
    return 0;
}

/* Decodes p's page rendered with o and returns its folded lines (malloc'd). */
static char *folded_via_html(const struct profile *p, const struct render_opts *o)
{
    struct jobj d;
    struct dtree t;
    char *html = page(NULL, p, o), *out = NULL;
    if (page_data(html, &d) == 0 && dtree_decode(&t, &d, "") == 0) {
        out = dtree_folded(&t);
        dtree_free(&t);
    }
    jobj_free(&d);
    free(html);
    return out;
}

/* ---- tests -------------------------------------------------------------------------------- */

/* A tree whose encoding is known digit by digit (out_html.h): A recursing once, B under both,
 * a weight of 1000 that takes two digits, and "same" flags where a child takes all that is
 * left of its parent. */
static const struct cell tiny_cells[] = {
    {"main", "p.Q.a|p.Q.a|p.Q.b", 2},
    {"main", "p.Q.a|p.Q.a", 1000},
    {"main", "p.Q.a|p.Q.b|p.Q.a", 1},
    {"main", "p.Q.a|p.Q.b", 2},
};

static void test_tiny_encoding(void)
{
    struct profile *p = load_cells("java -cp x Tiny", tiny_cells, 4);
    struct render_opts o = opts(PROFILE_KIND_AUTO, 0, 0);
    struct render_tree rt = {0};
    char err[256], *html = page(NULL, p, &o);
    struct jobj d;
    CHECK(p && html);
    if (!p || !html)
        goto out;
    CHECK(strncmp(html, "<!DOCTYPE html>", 15) == 0);
    CHECK(page_data(html, &d) == 0);
    CHECK(render_tree_build(&rt, p, &o, err, sizeof(err)) == 0);
    /* the table: a (3 nodes), b (2), then the root's own name */
    const struct jfield *names = jget(&d, "names", 'a'), *types = jget(&d, "types", 's');
    CHECK(names && names->nitems == 3);
    CHECK(names && names->nitems == 3 && strcmp(names->items[0], "p.Q.a") == 0 &&
          strcmp(names->items[1], "p.Q.b") == 0 &&
          strcmp(names->items[2], rt.names[rt.nodes[0].name]) == 0);
    char want_types[4] = {'0', '0', (char)('0' + rt.nodes[0].type), 0};
    CHECK(types && strcmp(types->s, want_types) == 0);
    /* root: h=2 '%', name 2 '%', 1005 = 37 + 22*44 "y;"; a: same, h=5 '*', name '#';
     * a|a: h=2, '#', 1002 = 34 + 22*44 "v;"; a|a|b: '#', '$', 2 '%'; a|b: same "($";
     * a|b|a: '#', '#', 1 '$' */
    const struct jfield *tree = jget(&d, "tree", 's');
    CHECK(tree && strcmp(tree->s, "%%y;*#%#v;#$%($##$") == 0);
    const struct jfield *n = jget(&d, "n", 'n'), *total = jget(&d, "total", 'n');
    CHECK(n && n->num == 6);
    CHECK(total && total->num == 1005);
    const struct jfield *samples = jget(&d, "samples", 'n'), *kind = jget(&d, "kind", 's');
    CHECK(samples && samples->num == 1005);
    CHECK(kind && strcmp(kind->s, "cpu") == 0);
    const struct jfield *iv = jget(&d, "interval_ns", 'n'), *v = jget(&d, "v", 'n');
    CHECK(iv && iv->num == 10000000);
    CHECK(v && v->num == OUT_HTML_DATA_VERSION);
    /* the default title names the command; the subtitle the JVM, start time and options */
    const struct jfield *title = jget(&d, "title", 's'), *sub = jget(&d, "subtitle", 's');
    char want_title[512];
    render_default_title(p, FPL_KIND_CPU, want_title, sizeof(want_title));
    CHECK(title && strcmp(title->s, want_title) == 0);
    CHECK(sub && strcmp(sub->s, "TestVM 1.0 \xc2\xb7 started 2023-11-14 22:13:20 UTC \xc2\xb7 "
                                "cpu=10ms") == 0);
    CHECK(strstr(html, "<title>") != NULL);
    struct dtree t;
    CHECK(dtree_decode(&t, &d, "") == 0);
    if (t.n == 6) {
        char *f = dtree_folded(&t);
        CHECK(same_text(f, "p.Q.a;p.Q.a 1000\n"
                           "p.Q.a;p.Q.a;p.Q.b 2\n"
                           "p.Q.a;p.Q.b 2\n"
                           "p.Q.a;p.Q.b;p.Q.a 1\n"));
        free(f);
        dtree_free(&t);
    }
    /* o->title wins */
    o.title = "My title";
    free(html);
    jobj_free(&d);
    html = page(NULL, p, &o);
    CHECK(page_data(html, &d) == 0);
    title = jget(&d, "title", 's');
    CHECK(title && strcmp(title->s, "My title") == 0);
    CHECK(html && strstr(html, "<title>My title</title>"));
    jobj_free(&d);
out:
    render_tree_destroy(&rt);
    free(html);
    profile_free(p);
}

/* The golden log's CPU samples come back as the folded output: plain, per thread, and reversed
 * (thread roots staying on top). */
static void test_golden_folded(void)
{
    struct profile *p = load_golden();
    CHECK(p != NULL);
    if (!p)
        return;
    struct render_opts o = opts(FPL_KIND_CPU, 0, 0);
    char *f = folded_via_html(p, &o);
    CHECK(same_text(f, GOLDEN_CPU));
    free(f);
    o.threads = 1;
    f = folded_via_html(p, &o);
    CHECK(same_text(f, GOLDEN_CPU_THREADS));
    free(f);
    o.reverse = 1;
    f = folded_via_html(p, &o);
    char *want = reverse_folded(GOLDEN_CPU_THREADS, 1);
    CHECK(same_text(f, want));
    free(f);
    free(want);
    o.threads = 0;
    f = folded_via_html(p, &o);
    want = reverse_folded(GOLDEN_CPU, 0);
    CHECK(same_text(f, want));
    free(f);
    free(want);

    /* frame types: the marker, the C function, the lambda (Java) */
    o = opts(FPL_KIND_CPU, 0, 0);
    struct jobj d;
    char *html = page(NULL, p, &o);
    CHECK(page_data(html, &d) == 0);
    const struct jfield *names = jget(&d, "names", 'a'), *types = jget(&d, "types", 's');
    int seen = 0;
    for (size_t i = 0; names && types && i < names->nitems; i++) {
        const char *nm = names->items[i];
        char ty = types->s[i];
        if (strcmp(nm, "[agct:unknown_Java]") == 0)
            seen += ty == '0' + RENDER_MARKER;
        else if (strcmp(nm, "os::javaTimeNanos") == 0)
            seen += ty == '0' + RENDER_CFUNC;
        else if (strcmp(nm, "com.example.App.hash") == 0)
            seen += ty == '0' + RENDER_JAVA;
    }
    CHECK_EQ_U(seen, 3);
    const struct jfield *kind = jget(&d, "kind", 's'), *samples = jget(&d, "samples", 'n');
    CHECK(kind && strcmp(kind->s, "cpu") == 0);
    CHECK(samples && samples->num == GOLDEN_CPU_SAMPLES);
    jobj_free(&d);
    free(html);

    /* wall: its own kind and interval */
    o.kind = FPL_KIND_WALL;
    html = page(NULL, p, &o);
    CHECK(page_data(html, &d) == 0);
    kind = jget(&d, "kind", 's');
    const struct jfield *iv = jget(&d, "interval_ns", 'n');
    CHECK(kind && strcmp(kind->s, "wall") == 0);
    CHECK(iv && iv->num == 50000000);
    jobj_free(&d);
    free(html);

    /* the default kind of a page of a log with both kinds: both (as the agent renders
     * file=*.html), weighed in ns -- 15 CPU intervals of 10 ms and 14.5 wall intervals of
     * 50 ms are 875 ms, whatever renders it */
    o.kind = PROFILE_KIND_AUTO;
    html = page(NULL, p, &o);
    CHECK(page_data(html, &d) == 0);
    kind = jget(&d, "kind", 's');
    iv = jget(&d, "interval_ns", 'n');
    const struct jfield *unit = jget(&d, "unit_ns", 'n'), *total = jget(&d, "total", 'n');
    CHECK(kind && strcmp(kind->s, "all") == 0);
    CHECK(iv && iv->num == 1);
    CHECK(unit && unit->num == 1);
    CHECK(total && total->num == 875000000);
    jobj_free(&d);
    free(html);
    profile_free(p);
}

/* Hostile names: they must not end the script, must leave the page pure ASCII, and must come
 * back intact (or as U+FFFD where the bytes are not text). */
static void test_hostile_names(void)
{
    static const struct cell cells[] = {
        {"</script><script>alert(1)</script>",
         "x.Evil.</script><script>alert(1)</script>|x.Q\"uo'te\\s.m", 3},
        {"main", "x.U\xc3\xa9t\xc3\xa9.\xe6\x97\xa5\xe6\x9c\xac|x.E.m\xf0\x9f\x98\x80", 2},
        {"main",
         "x.E.cesu\xed\xa0\xbd\xed\xb8\x80|c:bad\xff\xfe"
         "byte",
         1},
        {"main", "x.E.<!--|x.E.ls\xe2\x80\xa8ps\xe2\x80\xa9|[</SCRIPT >]", 1},
        {"main", "x.E.amp&amp;lt;|x.E.nul\xc0\x80z", 1},
    };
    static const char *const want[] = {
        "x.Evil.</script><script>alert(1)</script>",
        "x.Q\"uo'te\\s.m",
        "x.U\xc3\xa9t\xc3\xa9.\xe6\x97\xa5\xe6\x9c\xac",
        "x.E.m\xf0\x9f\x98\x80",
        "x.E.cesu\xf0\x9f\x98\x80", /* the CESU-8 pair of U+1F600 */
        "bad\xef\xbf\xbd\xef\xbf\xbd"
        "byte",
        "x.E.<!--",
        "x.E.ls\xe2\x80\xa8ps\xe2\x80\xa9",
        "[</SCRIPT >]",
        "x.E.amp&amp_lt_", /* ';' is no frame character */
        "x.E.nul\xef\xbf\xbd\xef\xbf\xbdz",
        "</script><script>alert(1)</script>", /* a thread root */
    };
    struct profile *p =
        load_cells("java \"</title><script>alert('t')</script>\" caf\xc3\xa9", cells, 5);
    struct render_opts o = opts(PROFILE_KIND_AUTO, 1, 0);
    char *html = page(NULL, p, &o);
    CHECK(p && html);
    if (!html) {
        profile_free(p);
        return;
    }
    size_t ascii = 1, scripts = 0, ends = 0;
    for (const unsigned char *s = (const unsigned char *)html; *s; s++)
        ascii &= *s < 0x80;
    CHECK(ascii);
    for (const char *s = html; (s = strcasestr(s, "<script")); s++)
        scripts++;
    for (const char *s = html; (s = strcasestr(s, "</script")); s++)
        ends++;
    CHECK_EQ_U(scripts, 2);
    CHECK_EQ_U(ends, 2);
    CHECK(strstr(html, "<!--") == NULL);
    /* the title element holds text only */
    const char *t0 = strstr(html, "<title>"), *t1 = t0 ? strstr(t0, "</title>") : NULL;
    CHECK(t0 && t1);
    if (t0 && t1) {
        size_t lt = 0;
        for (const char *s = t0 + 7; s < t1; s++)
            lt += *s == '<' || *s == '>';
        CHECK_EQ_U(lt, 0);
        CHECK(memmem(t0, (size_t)(t1 - t0), "&lt;/title&gt;", 14) != NULL);
        CHECK(memmem(t0, (size_t)(t1 - t0), "caf&#xe9;", 9) != NULL);
    }
    struct jobj d;
    CHECK(page_data(html, &d) == 0);
    const struct jfield *names = jget(&d, "names", 'a'), *title = jget(&d, "title", 's');
    for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
        int found = 0;
        for (size_t i = 0; names && i < names->nitems; i++)
            found |= strcmp(names->items[i], want[k]) == 0;
        if (!found)
            fprintf(stderr, "name not found: %s\n", want[k]);
        CHECK(found);
    }
    CHECK(title && strstr(title->s, "</title><script>alert('t')</script>\" caf\xc3\xa9"));
    /* the decoder still sees the whole tree */
    struct dtree t;
    CHECK(dtree_decode(&t, &d, "") == 0);
    if (t.n) {
        uint32_t v = dtree_find(&t, "main;x.E.<!--;x.E.ls\xe2\x80\xa8ps\xe2\x80\xa9;[</SCRIPT >]");
        CHECK(v != UINT32_MAX && t.tot[v] == 1 && t.types[t.name[v]] == '0' + RENDER_MARKER);
        CHECK_EQ_U(t.tot[0], 8);
        dtree_free(&t);
    }
    jobj_free(&d);
    free(html);
    profile_free(p);
}

static const struct cell diff_base[] = {
    {"main", "d.A.run|d.A.b", 12},
    {"main", "d.A.run|d.A.c", 8},
    {"main", "d.A.run|d.A.e|d.A.f", 5}, /* only in the base */
};
static const struct cell diff_cur[] = {
    {"main", "d.A.run|d.A.b", 2},
    {"main", "d.A.run|d.A.c", 6},
    {"main", "d.A.run|d.A.d", 2},
};

/* Diff: cur's tree with base's weights; shares normalized by each profile's own total; the
 * frames only in base (d.A.e, d.A.f) drawn where they were, as wide as the share they lost
 * (5/25 of cur's 10: 2), widening d.A.run and the root by as much. */
static void test_diff(void)
{
    struct profile *base = load_cells("java Base", diff_base, 3);
    struct profile *cur = load_cells("java Cur", diff_cur, 3);
    struct render_opts o = opts(PROFILE_KIND_AUTO, 0, 0);
    char *html = page(base, cur, &o);
    struct jobj d;
    struct dtree t, r;
    CHECK(base && cur && html);
    CHECK(page_data(html, &d) == 0);
    const struct jfield *diff = jget(&d, "diff", 'n'), *bt = jget(&d, "base_total", 'n');
    const struct jfield *total = jget(&d, "total", 'n'), *title = jget(&d, "title", 's');
    const struct jfield *sub = jget(&d, "subtitle", 's');
    CHECK(diff && diff->num == 1);
    CHECK(bt && bt->num == 25);
    CHECK(total && total->num == 10);
    CHECK(title && strncmp(title->s, "diff: ", 6) == 0 && strstr(title->s, "java Cur"));
    CHECK(sub && strstr(sub->s, "java Base"));
    CHECK(dtree_decode(&t, &d, "") == 0 && t.base && t.lost);
    if (t.base && t.lost) {
        static const struct {
            const char *path;
            uint64_t width, lost, base;
            double delta;
        } want[] = {
            {"d.A.run", 12, 2, 25, 0.0},
            {"d.A.run;d.A.b", 2, 0, 12, 0.2 - 0.48},
            {"d.A.run;d.A.c", 6, 0, 8, 0.6 - 0.32},
            {"d.A.run;d.A.d", 2, 0, 0, 0.2},            /* not in the base */
            {"d.A.run;d.A.e", 2, 2, 5, -0.2},           /* only in the base */
            {"d.A.run;d.A.e;d.A.f", 2, 2, 5, -0.2},
        };
        CHECK_EQ_U(t.n, 7);
        CHECK_EQ_U(t.base[0], 25);
        CHECK_EQ_U(t.tot[0], 12);
        CHECK_EQ_U(t.tot[0] - t.lost[0], 10); /* the root's own weight is cur's total */
        for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
            uint32_t v = dtree_find(&t, want[k].path);
            CHECK(v != UINT32_MAX);
            if (v == UINT32_MAX)
                continue;
            CHECK_EQ_U(t.tot[v], want[k].width);
            CHECK_EQ_U(t.lost[v], want[k].lost);
            CHECK_EQ_U(t.base[v], want[k].base);
            double own = (double)(t.tot[v] - t.lost[v]), all = (double)(t.tot[0] - t.lost[0]);
            double delta = own / all - (double)t.base[v] / bt->num;
            CHECK(delta > want[k].delta - 1e-9 && delta < want[k].delta + 1e-9);
        }
        dtree_free(&t);
    }
    /* the callers orientation, matched against the base's callers tree */
    CHECK(dtree_decode(&r, &d, "2") == 0 && r.base);
    if (r.base) {
        uint32_t v = dtree_find(&r, "d.A.b;d.A.run");
        CHECK(v != UINT32_MAX && r.tot[v] == 2 && r.base[v] == 12);
        v = dtree_find(&r, "d.A.d");
        CHECK(v != UINT32_MAX && r.tot[v] == 2 && r.base[v] == 0);
        /* callers: the leaf only in the base (d.A.f) is a root of its own, with its callers */
        v = dtree_find(&r, "d.A.f;d.A.e;d.A.run");
        CHECK(v != UINT32_MAX && r.tot[v] == 2 && r.lost && r.lost[v] == 2 && r.base[v] == 5);
        CHECK_EQ_U(r.n, 10);
        dtree_free(&r);
    }
    jobj_free(&d);
    free(html);
    profile_free(base);
    profile_free(cur);
}

/* xorshift, for the random profile */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A random profile with shared prefixes, recursion and bci variants: the page's tree holds
 * exactly the folded output's stacks and weights. */
static void test_random_profile(void)
{
    struct fplgen g;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    CHECK(fplgen_init(&g) == 0);
    const struct fplgen_header h = {.pid = 1,
                                    .ticks_per_sec = 1000000000ull,
                                    .clock = FPL_CLOCK_MONOTONIC,
                                    .cpu_interval_ns = 1000000,
                                    .options = "",
                                    .jvm_name = "",
                                    .jvm_version = "",
                                    .command = "random"};
    fplgen_header(&g, &h);
    for (uint64_t t = 1; t <= 4; t++) {
        char name[32];
        snprintf(name, sizeof(name), "worker-%llu", (unsigned long long)t);
        fplgen_thread(&g, t, t, name);
    }
    for (uint64_t m = 1; m <= 300; m++) {
        char cls[32], name[32];
        snprintf(cls, sizeof(cls), "r.C%llu", (unsigned long long)(m % 17));
        snprintf(name, sizeof(name), "m%llu", (unsigned long long)m);
        fplgen_method(&g, m, m % 23 == 0 ? FPL_METHOD_CFUNC : FPL_METHOD_JAVA, cls, name, "()V", "",
                      0, NULL);
    }
    uint64_t tick = 1;
    for (uint64_t s = 1; s <= 2000; s++) {
        struct reader_frame fr[40];
        size_t n = 1 + rnd(&seed) % 30, shared = rnd(&seed) % 3;
        for (size_t k = 0; k < n; k++) {
            /* root-side frames come from few methods, so prefixes are shared */
            uint64_t m = k < 4 + shared * 4 ? 1 + (k * 7 + shared) % 11 : 1 + rnd(&seed) % 300;
            fr[n - 1 - k] = (struct reader_frame){m, (int32_t)(rnd(&seed) % 3), 0};
        }
        fplgen_stack(&g, s, n, fr);
        uint64_t w = 1 + rnd(&seed) % 5;
        for (uint64_t k = 0; k < w; k++)
            fplgen_sample(&g, tick++ * 1000, 1 + rnd(&seed) % 4, s, 1 + rnd(&seed) % 2,
                          FPL_KIND_CPU, FPL_STATE_RUNNING);
        if (s % 500 == 0)
            CHECK(fplgen_flush(&g) == 0);
    }
    fplgen_end(&g, tick * 1000);
    CHECK(fplgen_flush(&g) == 0);
    struct profile *p = load_gen(&g, "random.fpl");
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (!p)
        return;
    for (int threads = 0; threads <= 1; threads++) {
        char *want = NULL, err[256];
        size_t len = 0;
        FILE *f = open_memstream(&want, &len);
        struct out_collapsed_opts co = {.kind = PROFILE_KIND_AUTO, .threads = threads};
        CHECK(f && out_collapsed_write(p, &co, f, err, sizeof(err)) == 0);
        if (f)
            fclose(f);
        struct render_opts o = opts(PROFILE_KIND_AUTO, threads, 0);
        char *got = folded_via_html(p, &o);
        CHECK(same_text(got, want));
        free(got);
        free(want);
    }
    profile_free(p);
}

/* Errors: a full disk is reported, naming the module. */
static void test_errors(void)
{
    struct profile *p = load_cells("java Tiny", tiny_cells, 4);
    struct render_opts o = opts(PROFILE_KIND_AUTO, 0, 0);
    char err[256] = "";
    FILE *f = fopen("/dev/full", "w");
    CHECK(p && f);
    if (p && f) {
        int rc = out_html_write(p, &o, f, err, sizeof(err));
        CHECK(rc == -ENOSPC);
        CHECK(strncmp(err, "html: ", 6) == 0);
        err[0] = 0;
        rc = out_html_write_diff(p, p, &o, f, err, sizeof(err));
        CHECK(rc == -ENOSPC);
        CHECK(strncmp(err, "html: ", 6) == 0);
    }
    if (f)
        fclose(f);
    profile_free(p);
}

/* The page script decodes with the same alphabets as the writer. */
static void test_template(void)
{
    CHECK(memmem(out_html_js, out_html_js_len, "\"" OUT_HTML_END "\"", sizeof(OUT_HTML_END) + 1) !=
          NULL);
    CHECK(memmem(out_html_js, out_html_js_len, "\"" OUT_HTML_MORE "\"",
                 sizeof(OUT_HTML_MORE) + 1) != NULL);
    CHECK(memmem(out_html_js, out_html_js_len, "var BASE = 44;", 14) != NULL);
    CHECK(strlen(OUT_HTML_END) == OUT_HTML_BASE && strlen(OUT_HTML_MORE) == OUT_HTML_BASE);
    for (const char *s = OUT_HTML_END OUT_HTML_MORE; *s; s++) {
        CHECK(!strchr("\"\\<>&", *s) && *s > 0x20 && *s < 0x7f);
        /* no digit appears twice */
        CHECK(strchr(s + 1, *s) == NULL);
    }
}

/* ---- the browser test's helper ------------------------------------------------------------ */

static int save_cells(const char *dir, const char *name, const char *command, const struct cell *c,
                      size_t n)
{
    char path[4096];
    struct fplgen g;
    int rc = fplgen_init(&g);
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (rc == 0)
        rc = build_cells(&g, command, c, n);
    if (rc == 0)
        rc = fplgen_save(&g, path);
    fplgen_destroy(&g);
    return rc;
}

/* Stacks of the sampling-noise logs: 6 services of 8 leaves each, the k-th (0..47) of
 * probability p_k = (1 / (k + 3)) / sum. */
#define NOISE_STACKS 48
#define NOISE_SAMPLES 20000
#define NOISE_DONOR 0   /* p 0.111: gives 5 points to */
#define NOISE_SHIFTED 20 /* p 0.0145 */

/* A log of NOISE_SAMPLES CPU samples, each drawn from the stacks' distribution with a PRNG
 * seeded with seed; with shift, NOISE_SHIFTED has 5 points more and NOISE_DONOR 5 less. */
static int save_noise(const char *dir, const char *name, uint64_t seed, int shift)
{
    static char frames[NOISE_STACKS][96];
    struct cell cells[NOISE_STACKS];
    double p[NOISE_STACKS], sum = 0;
    uint64_t count[NOISE_STACKS] = {0}, x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int k = 0; k < NOISE_STACKS; k++)
        sum += p[k] = 1.0 / (k + 3);
    for (int k = 0; k < NOISE_STACKS; k++) {
        p[k] /= sum;
        snprintf(frames[k], sizeof(frames[k]), "demo.Main.run|demo.Svc%c.handle|demo.Svc%c.leaf%d",
                 'A' + k / 8, 'A' + k / 8, k % 8);
    }
    if (shift) {
        p[NOISE_SHIFTED] += 0.05;
        p[NOISE_DONOR] -= 0.05;
    }
    for (int i = 0; i < NOISE_SAMPLES; i++) {
        x ^= x << 13; /* xorshift64 */
        x ^= x >> 7;
        x ^= x << 17;
        double u = (double)(x >> 11) / 9007199254740992.0, acc = 0;
        int k = 0;
        while (k < NOISE_STACKS - 1 && (acc += p[k]) <= u)
            k++;
        count[k]++;
    }
    size_t n = 0;
    for (int k = 0; k < NOISE_STACKS; k++) {
        if (count[k])
            cells[n++] = (struct cell){"main", frames[k], count[k]};
    }
    return save_cells(dir, name, "java demo.Main", cells, n);
}

/* The logs of the browser test. */
static int write_fixtures(const char *dir)
{
    static const struct cell browser_cells[] = {
        {"main", "demo.App.main|demo.App.work|demo.Kernel.hash", 30},
        {"main", "demo.App.main|demo.App.work|demo.Kernel.mix|demo.Kernel.hash", 10},
        {"main", "demo.App.main|demo.App.work", 15},
        {"main", "demo.App.main|demo.App.idle|n:java.lang.Thread.sleep0", 25},
        {"main", "demo.App.main|c:os::javaTimeNanos", 8},
        {"main", "[agct:unknown_Java]", 4},
        {"worker", "java.lang.Thread.run|demo.Pool.loop|demo.Kernel.hash", 8},
    };
    /* frame types (tests/browser/test_html_types.py): demo.T.hot interpreted, compiled, C1
     * and inlined; native code with a kernel frame below; a JVM stub */
    static const struct cell types_cells[] = {
        {"main", "demo.T.main@1|demo.T.hot@1", 10},
        {"main", "demo.T.main@1|demo.T.hot@2", 20},
        {"main", "demo.T.main@1|demo.T.hot@4|demo.T.leaf@3", 6},
        {"main", "demo.T.main@1|demo.T.hot@2|c:memcpy|k:do_syscall_64", 8},
        {"main", "demo.T.main@1|s:vtable stub", 4},
    };
    static const struct cell hostile_cells[] = {
        {"main", "x.Evil.</script><script>document.title='pwned'</script>|x.E.caf\xc3\xa9", 5},
        {"main", "x.E.\xe6\x97\xa5\xe6\x9c\xac|x.Q\"uo'te.m\xf0\x9f\x98\x80", 3},
        {"main", "x.E.<!--|x.E.amp&amp;", 2},
    };
    mkdir(dir, 0755);
    int rc = save_cells(dir, "browser.fpl", "java -cp app.jar demo.App", browser_cells, 7);
    rc = rc ? rc : save_cells(dir, "tiny.fpl", "java Tiny", tiny_cells, 4);
    rc = rc ? rc
            : save_cells(dir, "hostile.fpl", "java \"</title><b>\" caf\xc3\xa9", hostile_cells, 3);
    rc = rc ? rc : save_cells(dir, "base.fpl", "java Base", diff_base, 3);
    rc = rc ? rc : save_cells(dir, "cur.fpl", "java Cur", diff_cur, 3);
    rc = rc ? rc : save_cells(dir, "types.fpl", "java Types", types_cells, 5);
    /* sampling noise (tests/browser/test_html_diff_noise.py): two draws of one distribution,
     * and a third with a real 5-point shift */
    rc = rc ? rc : save_noise(dir, "noise-a.fpl", 1, 0);
    rc = rc ? rc : save_noise(dir, "noise-b.fpl", 2, 0);
    rc = rc ? rc : save_noise(dir, "noise-shift.fpl", 3, 1);
    if (rc == 0) {
        char path[4096];
        struct fplgen g;
        snprintf(path, sizeof(path), "%s/golden.fpl", dir);
        rc = fplgen_init(&g);
        rc = rc ? rc : golden_log_build(&g, 1);
        rc = rc ? rc : fplgen_save(&g, path);
        fplgen_destroy(&g);
    }
    if (rc) {
        fprintf(stderr, "test_html: writing logs into %s: %s\n", dir, strerror(-rc));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_fixtures(argv[2]);
    if (argc > 1) {
        fprintf(stderr, "usage: test_html [--write DIR]\n");
        return 2;
    }
    test_template();
    test_tiny_encoding();
    test_golden_folded();
    test_hostile_names();
    test_diff();
    test_random_profile();
    test_errors();
    return harness_result("test_html");
}
