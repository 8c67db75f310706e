/* out_collapsed.c: folded-stack output (see out_collapsed.h).
 *
 * The lines are written one at a time, in their sorted order, without ever holding their text:
 * memory grows with the distinct (thread, stack) pairs, not with the bytes of the output (a
 * per-thread folded file of a big profile is gigabytes: 1.46 GB for 10M samples over 100k
 * stacks and 32 threads, which the first version kept whole to sort it).
 *
 * A line is a path of names: the [cpu]/[wall] root and the thread's name ("pre" elements),
 * then the frames of a stack, and for a wall sample its thread-state leaf ("[sleeping]"; first
 * after the roots with reverse). Names are interned by their text, so equal ids mean equal text.
 * The distinct stack sequences are sorted once in the byte order of their joined text; each
 * selected cell becomes a unit (its pre names and its stack's rank), the units are merged by
 * a hash and sorted by (pre names, stack rank), which is the byte order of the whole lines;
 * then equal lines are adjacent and are summed as they are written. */
#include "out_collapsed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_codec.h"
#include "fpl_hash.h"
#include "hashtab.h"
#include "render.h"

#define NONE UINT32_MAX
#define MAX_PRE 2 /* [cpu]/[wall], thread */
#define NSTATE (PROFILE_STATE_JVM_IDLE + 1) /* state leaves: 0 none, then the states */

/* One selected (pre names, stack) pair and its summed weight. */
struct unit {
    unsigned __int128 fp;
    uint32_t pre[MAX_PRE];
    uint32_t seq; /* the stack's sequence (index into fold.seqs) */
    uint8_t npre;
};

/* A distinct stack sequence: names root first (reversed: leaf first). */
struct seq {
    size_t off; /* into fold.elems */
    uint32_t len;
    uint32_t rank; /* its place in the byte order of the sequences; equal texts equal ranks */
};

/* frame types told apart by --annotate: enum fpl_frame_type values 0 .. FOLD_TYPES - 1 (others
 * fold as JAVA, whose suffix is none) */
#define FOLD_TYPES 9

struct fold {
    const struct profile *p;
    int reverse;
    int annotate; /* a render_annotation suffix on each frame */
    int states;   /* wall lines end in their thread-state frame */
    uint64_t unit_ns[PROFILE_KINDS]; /* render_unit_ns: weights in ns where the kinds meet */
    char **owned; /* annotated names made here, freed with the fold */
    size_t nowned, owned_cap;
    /* names, interned by text */
    const char **names;
    uint32_t *name_len; /* strlen of each name */
    size_t nnames, names_cap;
    /* per name k, tok[2k] and tok[2k + 1]: the rank of the name followed by the end of the
     * line, and by ';', among all such tokens in byte order (rank_tokens) */
    uint32_t *tok;
    struct hashtab name_index;
    uint32_t *method_name; /* per method slot (+1: undefined method; x FOLD_TYPES with
                            * annotate): name + 1, 0 not yet */
    uint32_t *thread_name; /* per thread slot (+1: undefined thread) */
    /* stack sequences, made for the stacks that are used */
    uint32_t *stack_seq; /* per (stack slot (+1: undefined stack), state leaf): seq + 1, 0 not
                          * yet */
    struct seq *seqs;
    size_t nseqs, seqs_cap;
    uint32_t *elems;
    size_t nelems, elems_cap;
    /* units */
    struct unit *units;
    size_t nunits, units_cap;
    struct hashtab unit_index;
    /* with the [cpu]/[wall] root and no thread: per (stack slot, state leaf, kind root) the
     * unit + 1, 0 none yet -- found by its index, without hashing (NULL: unit_index) */
    uint32_t *kind_unit;
};

/* The id of name s (kept by reference: the profile's strings and constants outlive the
 * fold), NONE when out of memory. */
static uint32_t name_id(struct fold *f, const char *s)
{
    size_t len = strlen(s);
    uint64_t h = fpl_hash_bytes(s, len);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&f->name_index, h, &pr); k != NONE;
         k = hashtab_next(&f->name_index, &pr)) {
        if (f->name_len[k] == len && memcmp(f->names[k], s, len) == 0)
            return k;
    }
    if (len > UINT32_MAX)
        return NONE;
    if (f->nnames == f->names_cap) {
        size_t cap = f->names_cap ? f->names_cap * 2 : 256;
        const char **q = cap < NONE ? realloc(f->names, cap * sizeof(*q)) : NULL;
        if (!q)
            return NONE;
        f->names = q;
        uint32_t *l = realloc(f->name_len, cap * sizeof(*l));
        if (!l)
            return NONE;
        f->name_len = l;
        f->names_cap = cap;
    }
    if (hashtab_add(&f->name_index, h, (uint32_t)f->nnames))
        return NONE;
    f->names[f->nnames] = s;
    f->name_len[f->nnames] = (uint32_t)len;
    return (uint32_t)f->nnames++;
}

/* Keeps s to be freed with the fold: 0, or -ENOMEM (s is freed). */
static int own(struct fold *f, char *s)
{
    if (f->nowned == f->owned_cap) {
        size_t cap = f->owned_cap ? f->owned_cap * 2 : 64;
        char **q = realloc(f->owned, cap * sizeof(*q));
        if (!q) {
            free(s);
            return -ENOMEM;
        }
        f->owned = q;
        f->owned_cap = cap;
    }
    f->owned[f->nowned++] = s;
    return 0;
}

/* The name id of a frame: its method's name, with its type's suffix when annotating. */
static uint32_t frame_name(struct fold *f, const struct profile_frame *fr)
{
    size_t slot = fr->method == PROFILE_NONE ? f->p->nmethods : fr->method;
    const char *suffix = "";
    if (f->annotate) {
        slot = slot * FOLD_TYPES + (fr->type < FOLD_TYPES ? fr->type : 0);
        suffix = render_annotation(fr->type);
    }
    if (!f->method_name[slot]) {
        const char *name = profile_frame_name(f->p, fr);
        if (*suffix) {
            size_t a = strlen(name), b = strlen(suffix);
            char *t = malloc(a + b + 1);
            if (!t || own(f, t) != 0)
                return NONE;
            memcpy(t, name, a);
            memcpy(t + a, suffix, b + 1);
            name = t;
        }
        uint32_t id = name_id(f, name);
        if (id == NONE)
            return NONE;
        f->method_name[slot] = id + 1;
    }
    return f->method_name[slot] - 1;
}

/* The sequence of stack index si (PROFILE_NONE: undefined), made the first time; NONE when
 * out of memory. */
static uint32_t stack_seq(struct fold *f, uint32_t si, int state)
{
    const struct profile *p = f->p;
    size_t slot = (si == PROFILE_NONE ? p->nstacks : si) * NSTATE + (size_t)state;
    if (f->stack_seq[slot])
        return f->stack_seq[slot] - 1;
    const struct profile_stack *st = si == PROFILE_NONE ? NULL : &p->stacks[si];
    uint32_t nf = st && st->nframes ? st->nframes : 1;
    uint32_t n = nf + (state ? 1 : 0);
    if (f->nelems + n > f->elems_cap) {
        size_t cap = f->elems_cap ? f->elems_cap : 4096;
        while (cap < f->nelems + n)
            cap *= 2;
        uint32_t *q = realloc(f->elems, cap * sizeof(*q));
        if (!q)
            return NONE;
        f->elems = q;
        f->elems_cap = cap;
    }
    if (f->nseqs == f->seqs_cap) {
        size_t cap = f->seqs_cap ? f->seqs_cap * 2 : 1024;
        struct seq *q = realloc(f->seqs, cap * sizeof(*q));
        if (!q)
            return NONE;
        f->seqs = q;
        f->seqs_cap = cap;
    }
    uint32_t *out = f->elems + f->nelems;
    if (state) {
        /* the state leaf: the line's last frame, or its first after the roots with reverse */
        uint32_t leaf = name_id(f, render_state_frame(state));
        if (leaf == NONE)
            return NONE;
        if (f->reverse)
            *out++ = leaf;
        else
            out[nf] = leaf;
    }
    if (!st || !st->nframes) {
        out[0] = name_id(f, st ? PROFILE_EMPTY_STACK : PROFILE_UNKNOWN_STACK);
        if (out[0] == NONE)
            return NONE;
    } else {
        for (uint32_t i = 0; i < nf; i++) {
            /* stacks are stored leaf first */
            out[i] = frame_name(f, &st->frames[f->reverse ? i : nf - 1 - i]);
            if (out[i] == NONE)
                return NONE;
        }
    }
    f->seqs[f->nseqs] = (struct seq){f->nelems, n, 0};
    f->nelems += n;
    f->stack_seq[slot] = (uint32_t)++f->nseqs;
    return (uint32_t)f->nseqs - 1;
}

static uint64_t unit_hash(const struct unit *u)
{
    uint64_t h = fpl_hash_mix(fpl_hash_u64(u->seq), u->npre);
    for (int i = 0; i < u->npre; i++)
        h = fpl_hash_mix(h, u->pre[i]);
    return h;
}

static int unit_same(const struct unit *a, const struct unit *b)
{
    if (a->seq != b->seq || a->npre != b->npre)
        return 0;
    for (int i = 0; i < a->npre; i++) {
        if (a->pre[i] != b->pre[i])
            return 0;
    }
    return 1;
}

/* Makes room for one more unit. Returns 0, or -ENOMEM. */
static int units_room(struct fold *f)
{
    if (f->nunits < f->units_cap)
        return 0;
    size_t cap = f->units_cap ? f->units_cap * 2 : 1024;
    struct unit *q = cap < NONE ? realloc(f->units, cap * sizeof(*q)) : NULL;
    if (!q)
        return -ENOMEM;
    f->units = q;
    f->units_cap = cap;
    return 0;
}

/* Adds u's weight to the unit with its key, creating it. */
static int unit_add(struct fold *f, const struct unit *u)
{
    /* Without pre names (one output has the same number on every line) a unit is its
     * sequence, and a new sequence is made by the cell that adds its unit right after: unit k
     * is sequence k, found without hashing (a big profile has a cell per thread and stack). */
    if (u->npre == 0 && u->seq < f->nunits && f->units[u->seq].seq == u->seq &&
        f->units[u->seq].npre == 0) {
        profile_fp_add(&f->units[u->seq].fp, u->fp);
        return 0;
    }
    if (u->npre == 0 && u->seq == f->nunits && f->unit_index.n == 0) {
        if (units_room(f))
            return -ENOMEM;
        f->units[f->nunits++] = *u;
        return 0;
    }
    uint64_t h = unit_hash(u);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&f->unit_index, h, &pr); k != NONE;
         k = hashtab_next(&f->unit_index, &pr)) {
        if (unit_same(&f->units[k], u)) {
            profile_fp_add(&f->units[k].fp, u->fp);
            return 0;
        }
    }
    if (units_room(f))
        return -ENOMEM;
    if (hashtab_add(&f->unit_index, h, (uint32_t)f->nunits))
        return -ENOMEM;
    f->units[f->nunits++] = *u;
    return 0;
}

/* The unit of one cell. */
static int add_entry(struct fold *f, const struct profile_entry *e, int all, int threads)
{
    struct unit u = {.fp = e->upscaled};
    /* where the kinds meet, weights are ns (render_unit_ns) */
    uint64_t m = f->unit_ns[e->kind < PROFILE_KINDS ? e->kind : 0];
    if (m)
        u.fp = u.fp > ~(unsigned __int128)0 / m ? ~(unsigned __int128)0 : u.fp * m;
    if (all) {
        u.pre[u.npre] = name_id(f, e->kind == FPL_KIND_CPU ? "[cpu]" : "[wall]");
        if (u.pre[u.npre++] == NONE)
            return -ENOMEM;
    }
    if (threads) {
        size_t slot = e->thread == PROFILE_NONE ? f->p->nthreads : e->thread;
        if (!f->thread_name[slot]) {
            uint32_t id = name_id(f, profile_entry_thread_name(f->p, e));
            if (id == NONE)
                return -ENOMEM;
            f->thread_name[slot] = id + 1;
        }
        u.pre[u.npre++] = f->thread_name[slot] - 1;
    }
    int state = f->states && e->kind == FPL_KIND_WALL && e->state < NSTATE &&
                        render_state_frame(e->state)
                    ? e->state
                    : 0;
    if ((u.seq = stack_seq(f, e->stack, state)) == NONE)
        return -ENOMEM;
    if (f->kind_unit && all && !threads) {
        size_t si = e->stack == PROFILE_NONE ? f->p->nstacks : e->stack;
        uint32_t *k = &f->kind_unit[(si * NSTATE + (size_t)state) * 2 + (e->kind != FPL_KIND_CPU)];
        if (*k) {
            profile_fp_add(&f->units[*k - 1].fp, u.fp);
            return 0;
        }
        if (units_room(f))
            return -ENOMEM;
        f->units[f->nunits++] = u;
        *k = (uint32_t)f->nunits;
        return 0;
    }
    return unit_add(f, &u);
}

/* Byte order of two different names a and b as parts of folded lines: each is followed by
 * ';' when more_a / more_b, by the end of the line otherwise (which sorts before any byte).
 * Names never contain ';' (profile_clean), so a name followed by ';' is never a prefix of
 * another name followed by ';'. */
static int cmp_names(const char *a, int more_a, const char *b, int more_b)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    for (size_t k = 0;; k++) {
        int cx = x[k] ? x[k] : more_a ? ';' : -1;
        int cy = y[k] ? y[k] : more_b ? ';' : -1;
        if (cx != cy)
            return cx < cy ? -1 : 1;
        if (!x[k]) /* both ended the same way: equal texts (never for different ids) */
            return 0;
    }
}

/* Byte order of two tokens (name * 2 + 1 when ';' follows the name, + 0 when the line
 * ends after it). */
static int cmp_token(const void *pa, const void *pb, void *ctx)
{
    const struct fold *f = ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return cmp_names(f->names[a >> 1], (int)(a & 1), f->names[b >> 1], (int)(b & 1));
}

/* Fills f->tok: a name followed by what comes after it in a line is a token, and as no name
 * holds ';' no token is a prefix of another one, so the byte order of two lines is the order
 * of their first differing tokens: once the tokens are ranked, lines compare as arrays of
 * ranks, without reading their names' text again. */
static int rank_tokens(struct fold *f)
{
    size_t n = 2 * f->nnames;
    uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
    f->tok = malloc((n ? n : 1) * sizeof(*f->tok));
    if (!order || !f->tok) {
        free(order);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof(*order), cmp_token, f);
    for (uint32_t i = 0; i < n; i++)
        f->tok[order[i]] = i;
    free(order);
    return 0;
}

/* Byte order of two stack sequences' joined texts. */
static int cmp_seq(const void *pa, const void *pb, void *ctx)
{
    const struct fold *f = ctx;
    const struct seq *x = &f->seqs[*(const uint32_t *)pa], *y = &f->seqs[*(const uint32_t *)pb];
    const uint32_t *a = f->elems + x->off, *b = f->elems + y->off;
    uint32_t n = x->len < y->len ? x->len : y->len, i = 0;
    while (i < n && a[i] == b[i])
        i++;
    if (i == n) /* one is a prefix of the other: the shorter line ends first */
        return x->len < y->len ? -1 : x->len > y->len;
    uint32_t ta = f->tok[2 * a[i] + (i + 1 < x->len)], tb = f->tok[2 * b[i] + (i + 1 < y->len)];
    return ta < tb ? -1 : 1;
}

/* Key d of sequence si for sort_seqs: 0 past its end (a line that ends sorts first), else
 * the rank of its token d (rank_tokens) + 1. Two sequences compare as their keys do, from
 * key 0 on, as cmp_seq compares them. */
static inline uint32_t seq_key(const struct fold *f, uint32_t si, uint32_t d)
{
    const struct seq *q = &f->seqs[si];
    return d < q->len ? f->tok[2 * f->elems[q->off + d] + (d + 1 < q->len)] + 1 : 0;
}

/* Sorts the sequences v[0..n), whose first d keys are equal, by their keys (multikey
 * quicksort): the keys at d split them into less, equal and greater than a pivot, and the
 * equal ones go on with key d + 1 without comparing the d keys they share again. Stacks share
 * long prefixes (the frames of main, of a thread pool): comparing whole sequences read them
 * again for each of a sort's log n comparisons. */
static void sort_seqs(const struct fold *f, uint32_t *v, size_t n, uint32_t d)
{
    while (n > 1) {
        if (n < 12) {
            /* insertion sort, comparing keys from d on */
            for (size_t i = 1; i < n; i++) {
                uint32_t x = v[i];
                size_t j = i;
                for (; j > 0; j--) {
                    uint32_t e = d, ka, kb;
                    while ((ka = seq_key(f, v[j - 1], e)) == (kb = seq_key(f, x, e)) && ka)
                        e++;
                    if (ka <= kb)
                        break;
                    v[j] = v[j - 1];
                }
                v[j] = x;
            }
            return;
        }
        uint32_t a = seq_key(f, v[0], d), b = seq_key(f, v[n / 2], d), c = seq_key(f, v[n - 1], d);
        uint32_t pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
        /* v[0..lt) < pivot, v[lt..i) == pivot, v[gt..n) > pivot */
        size_t lt = 0, i = 0, gt = n;
        while (i < gt) {
            uint32_t k = seq_key(f, v[i], d), t;
            if (k < pivot) {
                t = v[lt], v[lt++] = v[i], v[i++] = t;
            } else if (k > pivot) {
                t = v[--gt], v[gt] = v[i], v[i] = t;
            } else {
                i++;
            }
        }
        sort_seqs(f, v, lt, d);
        sort_seqs(f, v + gt, n - gt, d);
        if (pivot == 0)
            return; /* all ended at d: equal sequences */
        v += lt;
        n = gt - lt;
        d++;
    }
}

/* Byte order of two units' lines: the pre names (each followed by ';': a stack follows),
 * then the stacks' ranks. */
static int cmp_unit(const void *pa, const void *pb, void *ctx)
{
    const struct fold *f = ctx;
    const struct unit *x = &f->units[*(const uint32_t *)pa], *y = &f->units[*(const uint32_t *)pb];
    for (int i = 0; i < x->npre && i < y->npre; i++) {
        if (x->pre[i] != y->pre[i])
            return f->tok[2 * x->pre[i] + 1] < f->tok[2 * y->pre[i] + 1] ? -1 : 1;
    }
    /* within one output every line has the same number of pre names */
    uint32_t rx = f->seqs[x->seq].rank, ry = f->seqs[y->seq].rank;
    return rx < ry ? -1 : rx > ry;
}

#define OUT_FLUSH (1u << 20) /* the lines are written in blocks of about this many bytes */

/* Writes the bytes gathered in b to out and empties b. */
static int flush_out(struct fpl_buf *b, FILE *out)
{
    if (b->failed)
        return -ENOMEM;
    errno = 0;
    if (b->len && fwrite(b->data, 1, b->len, out) != b->len)
        return errno ? -errno : -EIO;
    b->len = 0;
    return 0;
}

/* Adds the line of unit u with weight w (rounded; nothing when it rounds to 0) to the block b,
 * which goes to out once it holds OUT_FLUSH bytes. */
static int write_line(const struct fold *f, const struct unit *u, unsigned __int128 w,
                      struct fpl_buf *b, FILE *out)
{
    uint64_t weight = profile_fp_round(w);
    if (weight == 0)
        return 0;
    const struct seq *s = &f->seqs[u->seq];
    size_t need = 22; /* " " + 20 digits + "\n" */
    for (int i = 0; i < u->npre; i++)
        need += f->name_len[u->pre[i]] + 1;
    for (uint32_t i = 0; i < s->len; i++)
        need += f->name_len[f->elems[s->off + i]] + 1;
    if (fpl_buf_reserve(b, need) != 0)
        return -ENOMEM;
    char *o = (char *)b->data + b->len;
    for (uint32_t i = 0; i < (uint32_t)u->npre + s->len; i++) {
        uint32_t name = i < u->npre ? u->pre[i] : f->elems[s->off + i - u->npre];
        if (i)
            *o++ = ';';
        memcpy(o, f->names[name], f->name_len[name]);
        o += f->name_len[name];
    }
    char digits[20];
    int nd = 0;
    do {
        digits[nd++] = (char)('0' + weight % 10);
        weight /= 10;
    } while (weight);
    *o++ = ' ';
    while (nd)
        *o++ = digits[--nd];
    *o++ = '\n';
    b->len = (size_t)(o - (char *)b->data);
    return b->len >= OUT_FLUSH ? flush_out(b, out) : 0;
}

static void fold_destroy(struct fold *f)
{
    free(f->names);
    free(f->name_len);
    free(f->tok);
    hashtab_destroy(&f->name_index);
    free(f->method_name);
    for (size_t i = 0; i < f->nowned; i++)
        free(f->owned[i]);
    free(f->owned);
    free(f->thread_name);
    free(f->stack_seq);
    free(f->seqs);
    free(f->elems);
    free(f->units);
    hashtab_destroy(&f->unit_index);
    free(f->kind_unit);
}

/* Folds the cells of kind (resolved), only those sel selects when sel is set; with states, wall
 * lines end in their thread-state frame. */
static int write_folded(const struct profile *p, int kind, int threads, struct render_select *sel,
                        int reverse, int states, FILE *out, char *err, size_t errlen)
{
    struct fold f = {.p = p, .reverse = reverse, .annotate = sel && sel->o.annotate,
                     .states = states};
    struct fpl_buf line = {0};
    uint32_t *order = NULL;
    int all = kind == PROFILE_KIND_ALL, rc = -ENOMEM;

    render_unit_ns(p, kind, f.unit_ns);
    f.method_name = calloc((p->nmethods + 1) * (f.annotate ? FOLD_TYPES : 1),
                           sizeof(*f.method_name));
    f.thread_name = calloc(p->nthreads + 1, sizeof(*f.thread_name));
    f.stack_seq = calloc((p->nstacks + 1) * NSTATE, sizeof(*f.stack_seq));
    if (!f.method_name || !f.thread_name || !f.stack_seq)
        goto nomem;
    if (all && !threads) /* sparse: only the pages of the cells' stacks are touched */
        f.kind_unit = calloc((p->nstacks + 1) * NSTATE * 2, sizeof(*f.kind_unit));
    rc = 0;
    for (size_t i = 0; rc == 0 && i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        if ((!all && e->kind != kind) || e->upscaled == 0)
            continue;
        if (sel && !render_select_entry(sel, e))
            continue;
        rc = add_entry(&f, e, all, threads);
    }
    if (rc)
        goto nomem;
    hashtab_destroy(&f.unit_index); /* merged: only the order matters from here */

    /* rank the sequences by their text; equal texts share a rank so their lines merge */
    if (rank_tokens(&f) != 0)
        goto nomem;
    size_t n = f.nseqs > f.nunits ? f.nseqs : f.nunits;
    order = malloc((n ? n : 1) * sizeof(*order));
    if (!order)
        goto nomem;
    for (uint32_t i = 0; i < f.nseqs; i++)
        order[i] = i;
    sort_seqs(&f, order, f.nseqs, 0);
    for (size_t i = 0, rank = 0; i < f.nseqs; i++) {
        if (i && cmp_seq(&order[i - 1], &order[i], &f) != 0)
            rank++;
        f.seqs[order[i]].rank = (uint32_t)rank;
    }
    for (uint32_t i = 0; i < f.nunits; i++)
        order[i] = i;
    qsort_r(order, f.nunits, sizeof(*order), cmp_unit, &f);

    /* equal lines are adjacent now: sum them, write each once */
    for (size_t i = 0; rc == 0 && i < f.nunits;) {
        const struct unit *u = &f.units[order[i]];
        unsigned __int128 w = u->fp;
        size_t j = i + 1;
        for (; j < f.nunits && cmp_unit(&order[i], &order[j], &f) == 0; j++)
            profile_fp_add(&w, f.units[order[j]].fp);
        rc = write_line(&f, u, w, &line, out);
        i = j;
    }
    if (rc == 0)
        rc = flush_out(&line, out);
    if (rc == -ENOMEM)
        goto nomem;
    if (rc == 0 && fflush(out) != 0)
        rc = errno ? -errno : -EIO;
    if (rc == 0 && ferror(out))
        rc = -EIO;
    if (rc)
        snprintf(err, errlen, "collapsed: write failed: %s", strerror(-rc));
    goto out;
nomem:
    rc = -ENOMEM;
    snprintf(err, errlen, "collapsed: out of memory");
out:
    free(order);
    fpl_buf_free(&line);
    fold_destroy(&f);
    return rc;
}

int out_collapsed_write(const struct profile *p, const struct out_collapsed_opts *o, FILE *f,
                        char *err, size_t errlen)
{
    return write_folded(p, profile_resolve_kind(p, o->kind), o->threads, NULL, 0, o->states, f,
                        err, errlen);
}

int out_collapsed_write_select(const struct profile *p, struct render_select *sel, int threads,
                               int reverse, FILE *f, char *err, size_t errlen)
{
    /* a state filter makes the leaf the same on every line: left out, as in the call trees */
    int states = !sel->o.no_states && sel->o.state == RENDER_STATE_ALL;
    return write_folded(p, sel->kind, threads, sel, reverse, states, f, err, errlen);
}
