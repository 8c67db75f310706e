/* out_collapsed.c: folded-stack output (see out_collapsed.h). */
#include "out_collapsed.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_codec.h"
#include "render.h"

/* A distinct folded line: its bytes in the set's text buffer and its summed weight (fixed
 * point, see profile.h). */
struct folded {
    size_t off;
    size_t len;
    uint64_t hash;
    unsigned __int128 weight;
};

/* The set of distinct lines, hashed so that memory grows with the output, not the samples. */
struct lineset {
    struct fpl_buf text;
    struct folded *lines;
    size_t n;
    size_t cap;
    uint32_t *index; /* line index + 1; 0 empty */
    size_t icap;
};

struct sorted {
    const char *s;
    size_t len;
    uint64_t weight;
};

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h ^ (h >> 29);
}

static int lineset_rehash(struct lineset *ls)
{
    size_t cap = ls->icap ? ls->icap * 2 : 1024, mask = cap - 1;
    uint32_t *idx = calloc(cap, sizeof(*idx));
    if (!idx)
        return -ENOMEM;
    for (size_t k = 0; k < ls->n; k++) {
        size_t i = (size_t)ls->lines[k].hash & mask;
        while (idx[i])
            i = (i + 1) & mask;
        idx[i] = (uint32_t)k + 1;
    }
    free(ls->index);
    ls->index = idx;
    ls->icap = cap;
    return 0;
}

/* Adds weight to the line s[0..len), inserting it if new. */
static int lineset_add(struct lineset *ls, const uint8_t *s, size_t len, unsigned __int128 weight)
{
    uint64_t h = hash_bytes(s, len);
    size_t mask = ls->icap - 1, i = (size_t)h & mask;
    for (uint32_t k; (k = ls->index[i]) != 0; i = (i + 1) & mask) {
        struct folded *f = &ls->lines[k - 1];
        if (f->hash == h && f->len == len && memcmp(ls->text.data + f->off, s, len) == 0) {
            profile_fp_add(&f->weight, weight);
            return 0;
        }
    }
    if (ls->n == ls->cap) {
        size_t cap = ls->cap ? ls->cap * 2 : 256;
        struct folded *q = cap < UINT32_MAX ? realloc(ls->lines, cap * sizeof(*q)) : NULL;
        if (!q)
            return -ENOMEM;
        ls->lines = q;
        ls->cap = cap;
    }
    size_t off = ls->text.len;
    fpl_put_bytes(&ls->text, s, len);
    if (ls->text.failed)
        return -ENOMEM;
    ls->lines[ls->n] = (struct folded){off, len, h, weight};
    ls->index[i] = (uint32_t)++ls->n;
    if (ls->n * 2 > ls->icap)
        return lineset_rehash(ls);
    return 0;
}

static void lineset_destroy(struct lineset *ls)
{
    fpl_buf_free(&ls->text);
    free(ls->lines);
    free(ls->index);
}

static int cmp_sorted(const void *a, const void *b)
{
    const struct sorted *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->s, y->s, n);
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

static void put_frame(struct fpl_buf *b, const char *name)
{
    if (b->len)
        fpl_put_u8(b, ';');
    fpl_put_bytes(b, name, strlen(name));
}

/* Builds the folded line of one cell into b (root first; stacks are stored leaf first). state
 * is the state whose leaf frame ends the line ("[sleeping]"), or 0 for none; with reverse it
 * comes first after the roots, as in the call trees. */
static void fold_entry(const struct profile *p, const struct profile_entry *e, int all, int threads,
                       int reverse, int state, struct fpl_buf *b)
{
    const char *leaf = state ? render_state_frame(state) : NULL;
    b->len = 0;
    if (all)
        put_frame(b, e->kind == FPL_KIND_CPU ? "[cpu]" : "[wall]");
    if (threads)
        put_frame(b, profile_entry_thread_name(p, e));
    if (leaf && reverse)
        put_frame(b, leaf);
    if (e->stack == PROFILE_NONE) {
        put_frame(b, PROFILE_UNKNOWN_STACK);
    } else if (p->stacks[e->stack].nframes == 0) {
        put_frame(b, PROFILE_EMPTY_STACK);
    } else {
        const struct profile_stack *st = &p->stacks[e->stack];
        for (uint32_t i = 0; i < st->nframes; i++)
            put_frame(b, profile_frame_name(p, &st->frames[reverse ? i : st->nframes - 1 - i]));
    }
    if (leaf && !reverse)
        put_frame(b, leaf);
}

/* The state leaf a cell's line ends in: its state for a wall sample when states are shown and
 * the state is known, else 0. */
static int leaf_state(const struct profile_entry *e, int states)
{
    return states && e->kind == FPL_KIND_WALL && render_state_frame(e->state) ? e->state : 0;
}

/* Folds the cells of kind (resolved), only those sel selects when sel is set; with states, wall
 * lines end in their thread-state frame. */
static int write_folded(const struct profile *p, int kind, int threads, struct render_select *sel,
                        int reverse, int states, FILE *f, char *err, size_t errlen)
{
    struct lineset ls = {0};
    struct fpl_buf line = {0};
    struct sorted *v = NULL;
    int all = kind == PROFILE_KIND_ALL;
    int rc = lineset_rehash(&ls);
    /* Without thread roots a line depends only on the cell's stack (and kind, with all, and its
     * state leaf, with states): the cells are summed per stack first, so each stack is folded
     * and hashed once rather than once per thread (a many-threaded profile has several times
     * more cells than stacks, and a line is often kilobytes long). Sums of fixed-point weights
     * do not depend on their order, and the lines are sorted: the output is the same. Slot
     * (stack, k): k = kind (with all) * nst + state leaf. */
    size_t nst = states && kind != FPL_KIND_CPU ? FPL_STATE_NATIVE + 1 : 1;
    size_t nk = (all ? 2 : 1) * nst, nslots = (p->nstacks + 1) * nk;
    unsigned __int128 *per_stack = threads ? NULL : calloc(nslots, sizeof(*per_stack));
    if (!threads && !per_stack)
        rc = -ENOMEM;

    for (size_t i = 0; rc == 0 && i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        if ((!all && e->kind != kind) || e->upscaled == 0)
            continue;
        if (sel && !render_select_entry(sel, e))
            continue;
        int leaf = leaf_state(e, states && (size_t)e->state < nst);
        if (per_stack) {
            size_t si = e->stack == PROFILE_NONE ? p->nstacks : e->stack;
            size_t k = (all && e->kind != FPL_KIND_CPU) * nst + (size_t)leaf;
            profile_fp_add(&per_stack[si * nk + k], e->upscaled);
            continue;
        }
        fold_entry(p, e, all, threads, reverse, leaf, &line);
        if (line.failed)
            rc = -ENOMEM;
        else
            rc = lineset_add(&ls, line.data, line.len, e->upscaled);
    }
    for (size_t slot = 0; rc == 0 && per_stack && slot < nslots; slot++) {
        if (per_stack[slot] == 0)
            continue;
        struct profile_entry e = {0};
        size_t si = slot / nk, k = slot % nk;
        e.stack = si == p->nstacks ? PROFILE_NONE : (uint32_t)si;
        e.kind = (all ? k >= nst : kind == FPL_KIND_WALL) ? FPL_KIND_WALL : FPL_KIND_CPU;
        fold_entry(p, &e, all, 0, reverse, (int)(k % nst), &line);
        if (line.failed)
            rc = -ENOMEM;
        else
            rc = lineset_add(&ls, line.data, line.len, per_stack[slot]);
    }
    free(per_stack);
    if (rc == 0 && ls.n) {
        v = malloc(ls.n * sizeof(*v));
        if (!v)
            rc = -ENOMEM;
    }
    if (rc) {
        snprintf(err, errlen, "collapsed: out of memory");
        goto out;
    }
    for (size_t i = 0; i < ls.n; i++)
        v[i] = (struct sorted){(const char *)ls.text.data + ls.lines[i].off, ls.lines[i].len,
                               profile_fp_round(ls.lines[i].weight)};
    if (ls.n)
        qsort(v, ls.n, sizeof(*v), cmp_sorted);
    for (size_t i = 0; i < ls.n; i++) {
        if (v[i].weight == 0)
            continue;
        errno = 0;
        if (fwrite(v[i].s, 1, v[i].len, f) != v[i].len ||
            fprintf(f, " %llu\n", (unsigned long long)v[i].weight) < 0) {
            rc = errno ? -errno : -EIO;
            break;
        }
    }
    if (rc == 0 && fflush(f) != 0)
        rc = errno ? -errno : -EIO;
    if (rc == 0 && ferror(f))
        rc = -EIO;
    if (rc)
        snprintf(err, errlen, "collapsed: write failed: %s", strerror(-rc));
out:
    free(v);
    fpl_buf_free(&line);
    lineset_destroy(&ls);
    return rc;
}

int out_collapsed_write(const struct profile *p, const struct out_collapsed_opts *o, FILE *f,
                        char *err, size_t errlen)
{
    return write_folded(p, profile_resolve_kind(p, o->kind), o->threads, NULL, 0, o->states, f, err,
                        errlen);
}

int out_collapsed_write_select(const struct profile *p, struct render_select *sel, int threads,
                               int reverse, FILE *f, char *err, size_t errlen)
{
    /* a state filter makes the leaf the same on every line: left out, as in the call trees */
    int states = !sel->o.no_states && sel->o.state == RENDER_STATE_ALL;
    return write_folded(p, sel->kind, threads, sel, reverse, states, f, err, errlen);
}
