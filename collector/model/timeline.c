/* timeline.c: (bin, cell) pairs of sampled weight in bounded memory (see timeline.h). The
 * per-sample path is one probe of the pair index (the newest bin's row, in the CPU's cache);
 * doubling the bins rebuilds the pairs and
 * their index once (at most log2 of the log's duration in ms times). */
#include "timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"

#define NONE HASHTAB_NONE

void timeline_init(struct timeline *tl)
{
    memset(tl, 0, sizeof(*tl));
}

void timeline_destroy(struct timeline *tl)
{
    free(tl->pairs);
    free(tl->series);
    free(tl->cell_series);
    free(tl->gcs);
    free(tl->stalls);
    free(tl->cpairs);
    free(tl->let_go);
    hashtab_destroy(&tl->let_go_index);
    free(tl->bin_index);
    hashtab_destroy(&tl->index);
    hashtab_destroy(&tl->series_index);
    hashtab_destroy(&tl->cindex);
    timeline_init(tl);
}

void timeline_start(struct timeline *tl, uint64_t origin_ticks, uint64_t ticks_per_sec)
{
    if (tl->started)
        return;
    if (!ticks_per_sec)
        ticks_per_sec = 1000000000u;
    tl->origin_ticks = origin_ticks;
    tl->bin_ticks = (uint64_t)((unsigned __int128)ticks_per_sec * TIMELINE_FIRST_BIN_NS /
                               1000000000u);
    if (!tl->bin_ticks)
        tl->bin_ticks = 1;
    tl->started = 1;
}

static uint64_t pair_hash(uint32_t bin, uint32_t cell)
{
    return fpl_hash_u64((uint64_t)bin << 32 | cell);
}

static void pair_add_fp(struct timeline_pair *pr, unsigned __int128 fp)
{
    unsigned __int128 sum = timeline_fp(pr) + fp;
    if (sum < fp)
        sum = ~(unsigned __int128)0; /* saturate, as profile_fp_add */
    pr->fp_lo = (uint64_t)sum;
    pr->fp_hi = (uint64_t)(sum >> 64);
}

static int cmp_pair(const void *a, const void *b)
{
    const struct timeline_pair *x = a, *y = b;
    if (x->bin != y->bin)
        return x->bin < y->bin ? -1 : 1;
    return x->cell < y->cell ? -1 : x->cell > y->cell;
}

static uint32_t pair_find(const struct timeline *tl, uint32_t bin, uint32_t cell);
static int index_add(struct timeline *tl, uint32_t bin, uint32_t cell, uint32_t k);
static int index_clear(struct timeline *tl, size_t over);
static int pair_new(struct timeline *tl, uint32_t bin, uint32_t cell, unsigned __int128 fp);

#define DEAD (TIMELINE_OVER - 1u) /* a pair merged away while coarsening */

/* A cell pair of a bin over the cap, while trimming. */
struct trim {
    uint32_t bin;
    uint32_t place; /* index in tl->pairs */
    unsigned __int128 fp;
};

/* By bin, then heaviest first, then place (deterministic). */
static int cmp_trim(const void *a, const void *b)
{
    const struct trim *x = a, *y = b;
    if (x->bin != y->bin)
        return x->bin < y->bin ? -1 : 1;
    if (x->fp != y->fp)
        return x->fp > y->fp ? -1 : 1;
    return x->place < y->place ? -1 : x->place > y->place;
}

/* Moves the k first of t[0..n) in cmp_trim's order (the heaviest) to its front, in no given
 * order: a selection (Hoare's, median-of-three pivots), linear on average where sorting a
 * bin of thousands of cells to keep its TIMELINE_BIN_CELLS heaviest was not. The keys are
 * distinct (place), so the k chosen are those a sort would keep. */
static void select_heaviest(struct trim *t, size_t n, size_t k)
{
    size_t lo = 0, hi = n, q = k - 1;
    if (k == 0 || k >= n)
        return;
    while (hi - lo > 3) {
        size_t mid = lo + (hi - lo) / 2;
        const struct trim *a = &t[lo], *b = &t[mid], *c = &t[hi - 1];
        const struct trim *m;
        if (cmp_trim(a, b) < 0)
            m = cmp_trim(b, c) < 0 ? b : cmp_trim(a, c) < 0 ? c : a;
        else
            m = cmp_trim(a, c) < 0 ? a : cmp_trim(b, c) < 0 ? c : b;
        struct trim pv = *m, x;
        size_t i = lo - 1, j = hi;
        for (;;) {
            do
                i++;
            while (cmp_trim(&t[i], &pv) < 0);
            do
                j--;
            while (cmp_trim(&t[j], &pv) > 0);
            if (i >= j)
                break;
            x = t[i], t[i] = t[j], t[j] = x;
        }
        if (q <= j)
            hi = j + 1;
        else
            lo = j + 1;
    }
    for (size_t i = lo + 1; i < hi; i++) /* 3 or fewer: insertion */
        for (size_t j = i; j > lo && cmp_trim(&t[j], &t[j - 1]) < 0; j--) {
            struct trim x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
}

/* Rebuilds the index over the live pairs, dropping dead ones; recounts the per-bin cells. */
static int reindex(struct timeline *tl)
{
    size_t k = 0;
    tl->over_pairs = 0;
    memset(tl->bin_cells, 0, sizeof(tl->bin_cells));
    for (size_t i = 0; i < tl->npairs; i++) {
        if (tl->pairs[i].cell == DEAD)
            continue;
        tl->pairs[k++] = tl->pairs[i];
        if (tl->pairs[i].cell & TIMELINE_OVER)
            tl->over_pairs++;
        else
            tl->bin_cells[tl->pairs[i].bin]++;
    }
    tl->npairs = k;
    if (index_clear(tl, tl->over_pairs))
        return -ENOMEM;
    for (size_t i = 0; i < tl->npairs; i++) {
        if (index_add(tl, tl->pairs[i].bin, tl->pairs[i].cell, (uint32_t)i))
            return -ENOMEM;
    }
    return 0;
}

/* ---- context pairs ---- */

static uint64_t ctx_hash(uint32_t bin, uint32_t cell, uint64_t ctx)
{
    return fpl_hash_mix(fpl_hash_u64((uint64_t)bin << 32 | cell), ctx);
}

int timeline_ctx_kept(const struct timeline *tl, uint64_t root)
{
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&tl->let_go_index, fpl_hash_u64(root), &pr); k != NONE;
         k = hashtab_next(&tl->let_go_index, &pr))
        if (tl->let_go[k] == root)
            return 0;
    return 1;
}

static uint32_t ctx_find(const struct timeline *tl, uint32_t bin, uint32_t cell, uint64_t ctx)
{
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&tl->cindex, ctx_hash(bin, cell, ctx), &pr); k != NONE;
         k = hashtab_next(&tl->cindex, &pr)) {
        const struct timeline_ctx_pair *cp = &tl->cpairs[k];
        if (cp->bin == bin && cp->cell == cell && cp->ctx == ctx)
            return k;
    }
    return NONE;
}

static void ctx_add_fp(struct timeline_ctx_pair *cp, unsigned __int128 fp)
{
    unsigned __int128 sum = timeline_ctx_fp(cp) + fp;
    if (sum < fp)
        sum = ~(unsigned __int128)0;
    cp->fp_lo = (uint64_t)sum;
    cp->fp_hi = (uint64_t)(sum >> 64);
}

/* Rebuilds the context pairs in place: their bins halved when halve is set (the bins were
 * doubled), those of requests let go dropped, equal keys merged. 0 or -ENOMEM. */
static int ctx_rebuild(struct timeline *tl, int halve)
{
    hashtab_destroy(&tl->cindex);
    if (hashtab_reserve(&tl->cindex, tl->ncpairs))
        return -ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < tl->ncpairs; i++) {
        struct timeline_ctx_pair cp = tl->cpairs[i];
        if (tl->nlet_go && !timeline_ctx_kept(tl, cp.root))
            continue;
        if (halve)
            cp.bin >>= 1;
        uint32_t at = ctx_find(tl, cp.bin, cp.cell, cp.ctx);
        if (at != NONE) {
            ctx_add_fp(&tl->cpairs[at], timeline_ctx_fp(&cp));
            continue;
        }
        tl->cpairs[k] = cp;
        if (hashtab_add(&tl->cindex, ctx_hash(cp.bin, cp.cell, cp.ctx), (uint32_t)k))
            return -ENOMEM;
        k++;
    }
    tl->ncpairs = k;
    return 0;
}

/* A request's weight so far, while purging. */
struct root_weight {
    uint64_t root;
    unsigned __int128 fp;
};

/* Lightest first; equal weights in an order of their ids' hashes (no bias to old or new),
 * then by id: a total order, so the lighter half is one set whatever the algorithm. */
static int lighter(const struct root_weight *x, const struct root_weight *y)
{
    if (x->fp != y->fp)
        return x->fp < y->fp;
    uint64_t hx = fpl_hash_u64(x->root), hy = fpl_hash_u64(y->root);
    if (hx != hy)
        return hx < hy;
    return x->root < y->root;
}

static int lighter_v(const void *x, const void *y, void *arg)
{
    (void)arg;
    return lighter(x, y);
}

/* Lets the lighter half of the requests kept go (at least one), whole: their roots are
 * remembered and their pairs dropped. Each request's weight is summed through a hash table
 * and the lighter half found by selection, not by sorting: the purges were half of the
 * converter's time on a busy traced log. 0 or -ENOMEM. */
static int ctx_purge(struct timeline *tl)
{
    struct root_weight *rw = malloc((tl->ncpairs ? tl->ncpairs : 1) * sizeof(*rw));
    struct hashtab idx = {0};
    if (!rw || hashtab_reserve(&idx, tl->ncpairs)) {
        free(rw);
        hashtab_destroy(&idx);
        return -ENOMEM;
    }
    size_t m = 0;
    for (size_t i = 0; i < tl->ncpairs; i++) {
        uint64_t root = tl->cpairs[i].root, h = fpl_hash_u64(root);
        unsigned __int128 fp = timeline_ctx_fp(&tl->cpairs[i]);
        struct hashtab_probe pr;
        uint32_t k = hashtab_first(&idx, h, &pr);
        while (k != NONE && rw[k].root != root)
            k = hashtab_next(&idx, &pr);
        if (k != NONE) {
            unsigned __int128 sum = rw[k].fp + fp;
            rw[k].fp = sum < fp ? ~(unsigned __int128)0 : sum;
        } else {
            hashtab_add(&idx, h, (uint32_t)m); /* reserved: cannot fail */
            rw[m++] = (struct root_weight){root, fp};
        }
    }
    hashtab_destroy(&idx);
    size_t go = m / 2 ? m / 2 : m;
    select_smallest(rw, m, sizeof(*rw), go, lighter_v, NULL);
    int rc = 0;
    for (size_t i = 0; i < go && rc == 0; i++) {
        if (tl->nlet_go == tl->let_go_cap) {
            size_t cap = tl->let_go_cap ? tl->let_go_cap * 2 : 1024;
            uint64_t *q = realloc(tl->let_go, cap * sizeof(*q));
            if (!q) {
                rc = -ENOMEM;
                break;
            }
            tl->let_go = q;
            tl->let_go_cap = cap;
        }
        if (hashtab_add(&tl->let_go_index, fpl_hash_u64(rw[i].root), (uint32_t)tl->nlet_go))
            rc = -ENOMEM;
        else
            tl->let_go[tl->nlet_go++] = rw[i].root;
    }
    free(rw);
    tl->ctx_purges++;
    return rc ? rc : ctx_rebuild(tl, 0);
}

int timeline_ctx_add(struct timeline *tl, uint64_t ticks, uint32_t cell, uint64_t ctx,
                     uint64_t root, unsigned __int128 fp)
{
    if (!tl->started || !tl->bin_ticks)
        return 0;
    if (ticks < tl->origin_ticks)
        ticks = tl->origin_ticks;
    uint64_t b = (ticks - tl->origin_ticks) / tl->bin_ticks;
    if (b >= TIMELINE_MAX_BINS)
        b = TIMELINE_MAX_BINS - 1; /* timeline_add of the same sample made room already */
    uint32_t bin = (uint32_t)b;
    for (;;) {
        /* a pair found is a request kept (the pairs of those let go are gone) */
        uint32_t at = ctx_find(tl, bin, cell, ctx);
        if (at != NONE) {
            ctx_add_fp(&tl->cpairs[at], fp);
            return 0;
        }
        if (tl->nlet_go && !timeline_ctx_kept(tl, root)) {
            tl->ctx_let_go++;
            return 0;
        }
        if (tl->ncpairs < TIMELINE_MAX_CTX_PAIRS)
            break;
        int rc = ctx_purge(tl); /* full: the lighter half goes (this request may be among) */
        if (rc)
            return rc;
    }
    if (tl->ncpairs == tl->ccap) {
        size_t cap = tl->ccap ? tl->ccap * 2 : 1024;
        struct timeline_ctx_pair *q = realloc(tl->cpairs, cap * sizeof(*q));
        if (!q)
            return -ENOMEM;
        tl->cpairs = q;
        tl->ccap = cap;
    }
    if (hashtab_add(&tl->cindex, ctx_hash(bin, cell, ctx), (uint32_t)tl->ncpairs))
        return -ENOMEM;
    tl->cpairs[tl->ncpairs++] = (struct timeline_ctx_pair){
        .bin = bin, .cell = cell, .ctx = ctx, .root = root, .fp_lo = (uint64_t)fp,
        .fp_hi = (uint64_t)(fp >> 64)};
    return 0;
}

/* Doubles the bins' width: pairs of bins 2k and 2k+1 merge into bin k (through the index, in
 * one pass); in a bin that ends with more than TIMELINE_BIN_CELLS cells, the lightest become
 * overflow pairs. */
static int coarsen(struct timeline *tl)
{
    int rc;
    if (index_clear(tl, tl->over_pairs))
        return -ENOMEM;
    for (size_t i = 0; i < tl->npairs; i++)
        tl->pairs[i].bin >>= 1;
    size_t n = tl->npairs;
    memset(tl->bin_cells, 0, sizeof(tl->bin_cells));
    for (size_t i = 0; i < n; i++) {
        struct timeline_pair *pr = &tl->pairs[i];
        uint32_t k = pair_find(tl, pr->bin, pr->cell);
        if (k != NONE) {
            pair_add_fp(&tl->pairs[k], timeline_fp(pr));
            pr->cell = DEAD;
        } else {
            if (index_add(tl, pr->bin, pr->cell, (uint32_t)i))
                return -ENOMEM;
            if (!(pr->cell & TIMELINE_OVER))
                tl->bin_cells[pr->bin]++;
        }
    }
    /* bins over the cap: their cell pairs by weight, the lightest to overflow */
    size_t nover = 0;
    for (size_t i = 0; i < n; i++) {
        const struct timeline_pair *pr = &tl->pairs[i];
        nover += pr->cell < DEAD && tl->bin_cells[pr->bin] > TIMELINE_BIN_CELLS;
    }
    if (nover) {
        /* grouped by bin (a counting sort: bins are few), then per bin a selection of the
         * heaviest; the others go to overflow in their pairs' order */
        struct trim *sel = malloc(nover * sizeof(*sel));
        size_t *at = calloc((size_t)TIMELINE_MAX_BINS + 1, sizeof(*at));
        uint8_t *drop = calloc(n, 1);
        if (!sel || !at || !drop) {
            free(sel);
            free(at);
            free(drop);
            return -ENOMEM;
        }
        for (size_t i = 0; i < n; i++) {
            const struct timeline_pair *pr = &tl->pairs[i];
            if (pr->cell < DEAD && tl->bin_cells[pr->bin] > TIMELINE_BIN_CELLS)
                at[pr->bin + 1]++;
        }
        for (uint32_t b = 0; b < TIMELINE_MAX_BINS; b++)
            at[b + 1] += at[b];
        for (size_t i = 0; i < n; i++) {
            const struct timeline_pair *pr = &tl->pairs[i];
            if (pr->cell < DEAD && tl->bin_cells[pr->bin] > TIMELINE_BIN_CELLS)
                sel[at[pr->bin]++] = (struct trim){pr->bin, (uint32_t)i, timeline_fp(pr)};
        }
        for (size_t i = 0; i < nover;) { /* at[b] is now bin b's end */
            size_t end = at[sel[i].bin];
            select_heaviest(sel + i, end - i, TIMELINE_BIN_CELLS);
            for (size_t k = i + TIMELINE_BIN_CELLS; k < end; k++)
                drop[sel[k].place] = 1;
            i = end;
        }
        free(sel);
        free(at);
        rc = 0;
        for (size_t i = 0; i < n && rc == 0; i++) {
            if (!drop[i])
                continue;
            struct timeline_pair *pr = &tl->pairs[i];
            unsigned __int128 fp = timeline_fp(pr);
            uint32_t over = TIMELINE_OVER | (tl->cell_series[pr->cell] - 1);
            pr->cell = DEAD;
            uint32_t k = pair_find(tl, pr->bin, over);
            if (k != NONE)
                pair_add_fp(&tl->pairs[k], fp);
            else
                rc = pair_new(tl, pr->bin, over, fp);
        }
        free(drop);
        if (rc)
            return rc;
    }
    tl->bin_ticks *= 2;
    tl->nbins = (tl->nbins + 1) / 2;
    tl->coarsened++;
    if ((rc = ctx_rebuild(tl, 1)) != 0)
        return rc;
    return reindex(tl);
}

/* The series index of (thread, kind, state), added if new; NONE when out of memory. */
static uint32_t series_of(struct timeline *tl, uint64_t thread_id, uint8_t kind, uint8_t state)
{
    uint64_t h = fpl_hash_mix(fpl_hash_u64(thread_id), (uint64_t)kind << 8 | state);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&tl->series_index, h, &pr); k != NONE;
         k = hashtab_next(&tl->series_index, &pr)) {
        const struct timeline_series *s = &tl->series[k];
        if (s->thread_id == thread_id && s->kind == kind && s->state == state)
            return k;
    }
    if (tl->nseries >= TIMELINE_OVER - 1)
        return NONE;
    if (tl->nseries == tl->series_cap) {
        size_t cap = tl->series_cap ? tl->series_cap * 2 : 64;
        struct timeline_series *q = realloc(tl->series, cap * sizeof(*q));
        if (!q)
            return NONE;
        tl->series = q;
        tl->series_cap = cap;
    }
    if (hashtab_add(&tl->series_index, h, (uint32_t)tl->nseries))
        return NONE;
    tl->series[tl->nseries] = (struct timeline_series){thread_id, kind, state};
    return (uint32_t)tl->nseries++;
}

/* The first slot of cell in its bin's row. */
static uint32_t row_slot(uint32_t cell)
{
    return (uint32_t)(fpl_hash_u64(cell) >> 32) % TIMELINE_ROW_SLOTS;
}

/* Empties the index (rows up to index_rows), ready for `over` overflow pairs. 0 or -ENOMEM. */
static int index_clear(struct timeline *tl, size_t over)
{
    if (tl->bin_index)
        memset(tl->bin_index, 0, (size_t)tl->index_rows * sizeof(*tl->bin_index));
    tl->index_rows = 0;
    hashtab_destroy(&tl->index);
    return hashtab_reserve(&tl->index, over);
}

/* Indexes pair k of (bin, cell). 0 or -ENOMEM. */
static int index_add(struct timeline *tl, uint32_t bin, uint32_t cell, uint32_t k)
{
    if (cell & TIMELINE_OVER)
        return hashtab_add(&tl->index, pair_hash(bin, cell), k);
    if (!tl->bin_index &&
        !(tl->bin_index = calloc(TIMELINE_MAX_BINS, sizeof(*tl->bin_index)))) /* lazily paged */
        return -ENOMEM;
    uint32_t *row = tl->bin_index[bin];
    uint32_t s = row_slot(cell);
    while (row[s])
        s = (s + 1) % TIMELINE_ROW_SLOTS; /* a row is at most half full */
    row[s] = k + 1;
    if (bin + 1 > tl->index_rows)
        tl->index_rows = bin + 1;
    return 0;
}

/* The pair of (bin, cell), or NONE. */
static uint32_t pair_find(const struct timeline *tl, uint32_t bin, uint32_t cell)
{
    if (!(cell & TIMELINE_OVER)) {
        if (!tl->bin_index || bin >= tl->index_rows)
            return NONE;
        const uint32_t *row = tl->bin_index[bin];
        for (uint32_t s = row_slot(cell); row[s]; s = (s + 1) % TIMELINE_ROW_SLOTS)
            if (tl->pairs[row[s] - 1].cell == cell)
                return row[s] - 1;
        return NONE;
    }
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&tl->index, pair_hash(bin, cell), &pr); k != NONE;
         k = hashtab_next(&tl->index, &pr)) {
        if (tl->pairs[k].bin == bin && tl->pairs[k].cell == cell)
            return k;
    }
    return NONE;
}

/* Appends a new pair. Returns 0 or -ENOMEM. */
static int pair_new(struct timeline *tl, uint32_t bin, uint32_t cell, unsigned __int128 fp)
{
    if (tl->npairs == tl->cap) {
        size_t cap = tl->cap ? tl->cap * 2 : 1024;
        struct timeline_pair *q = realloc(tl->pairs, cap * sizeof(*q));
        if (!q)
            return -ENOMEM;
        tl->pairs = q;
        tl->cap = cap;
    }
    if (index_add(tl, bin, cell, (uint32_t)tl->npairs))
        return -ENOMEM;
    tl->pairs[tl->npairs] = (struct timeline_pair){bin, cell, (uint64_t)fp, (uint64_t)(fp >> 64)};
    tl->npairs++;
    if (cell & TIMELINE_OVER)
        tl->over_pairs++;
    else
        tl->bin_cells[bin]++;
    return 0;
}

int timeline_add(struct timeline *tl, uint64_t ticks, uint32_t cell, uint64_t thread_id,
                 uint8_t kind, uint8_t state, unsigned __int128 fp)
{
    return timeline_add_series(tl, ticks, cell, thread_id, kind, state, fp, NULL);
}

/* The series + 1 of cell, set in tl->cell_series (and *memo) on first use; 0 when out of
 * memory. */
static uint32_t cell_series(struct timeline *tl, uint32_t cell, uint64_t thread_id, uint8_t kind,
                            uint8_t state, uint32_t *memo)
{
    if (memo && *memo)
        return *memo;
    if (cell >= tl->cell_series_cap) {
        size_t cap = tl->cell_series_cap ? tl->cell_series_cap : 1024;
        while (cap <= cell)
            cap *= 2;
        uint32_t *q = realloc(tl->cell_series, cap * sizeof(*q));
        if (!q)
            return 0;
        memset(q + tl->cell_series_cap, 0, (cap - tl->cell_series_cap) * sizeof(*q));
        tl->cell_series = q;
        tl->cell_series_cap = cap;
    }
    if (!tl->cell_series[cell]) {
        uint32_t s = series_of(tl, thread_id, kind, state);
        if (s == NONE)
            return 0;
        tl->cell_series[cell] = s + 1;
    }
    if (memo)
        *memo = tl->cell_series[cell];
    return tl->cell_series[cell];
}

int timeline_add_series(struct timeline *tl, uint64_t ticks, uint32_t cell, uint64_t thread_id,
                        uint8_t kind, uint8_t state, unsigned __int128 fp, uint32_t *memo)
{
    int rc;
    if (!tl->started)
        timeline_start(tl, ticks, 0);
    if (cell >= DEAD)
        return -ERANGE;
    if (ticks < tl->origin_ticks) {
        tl->early_samples++;
        ticks = tl->origin_ticks;
    }
    uint64_t b = (ticks - tl->origin_ticks) / tl->bin_ticks;
    while (b >= TIMELINE_MAX_BINS) {
        if ((rc = coarsen(tl)) != 0)
            return rc;
        b = (ticks - tl->origin_ticks) / tl->bin_ticks;
    }
    uint32_t bin = (uint32_t)b;
    if (bin + 1 > tl->nbins)
        tl->nbins = bin + 1;
    uint32_t k = pair_find(tl, bin, cell);
    if (k != NONE) {
        pair_add_fp(&tl->pairs[k], fp);
        return 0;
    }
    /* the cell's series, where its weight goes when its bin is full; coarsen needs it for
     * every cell with a pair. Looked up when the cell's pair is not found, not per sample:
     * the array over every cell missed the cache on most samples of a log of millions */
    uint32_t s = cell_series(tl, cell, thread_id, kind, state, memo);
    if (!s)
        return -ENOMEM;
    if (tl->bin_cells[bin] < TIMELINE_BIN_CELLS)
        return pair_new(tl, bin, cell, fp);
    tl->over_samples++;
    uint32_t over = TIMELINE_OVER | (s - 1);
    uint32_t *hint = &tl->over_hint[(s - 1) % TIMELINE_OVER_HINTS];
    if (*hint && *hint <= tl->npairs && tl->pairs[*hint - 1].bin == bin &&
        tl->pairs[*hint - 1].cell == over) {
        pair_add_fp(&tl->pairs[*hint - 1], fp);
        return 0;
    }
    k = pair_find(tl, bin, over);
    if (k != NONE) {
        pair_add_fp(&tl->pairs[k], fp);
    } else {
        if ((rc = pair_new(tl, bin, over, fp)) != 0)
            return rc;
        k = (uint32_t)tl->npairs - 1;
    }
    *hint = k + 1;
    return 0;
}

int timeline_span_add(struct timeline *tl, int gc, uint64_t probe, uint64_t start, uint64_t end)
{
    struct timeline_span **a = gc ? &tl->gcs : &tl->stalls;
    size_t *n = gc ? &tl->ngcs : &tl->nstalls;
    if (*n >= TIMELINE_MAX_SPANS) {
        ++*(gc ? &tl->gcs_over : &tl->stalls_over);
        return 0;
    }
    if (!*a) {
        *a = malloc(TIMELINE_MAX_SPANS * sizeof(**a)); /* 128 KiB, only in hiccup mode */
        if (!*a)
            return -ENOMEM;
    }
    (*a)[(*n)++] = (struct timeline_span){start, end > start ? end : start, gc ? 0 : probe};
    return 0;
}

void timeline_finish(struct timeline *tl)
{
    /* by bin with a stable counting sort (bins are few): O(pairs), no comparison sort */
    size_t *start = calloc((size_t)tl->nbins + 1, sizeof(*start));
    struct timeline_pair *by = malloc((tl->npairs ? tl->npairs : 1) * sizeof(*by));
    if (start && by) {
        for (size_t i = 0; i < tl->npairs; i++)
            start[tl->pairs[i].bin + 1]++;
        for (uint32_t k = 0; k < tl->nbins; k++)
            start[k + 1] += start[k];
        for (size_t i = 0; i < tl->npairs; i++)
            by[start[tl->pairs[i].bin]++] = tl->pairs[i];
        free(tl->pairs);
        tl->pairs = by;
        tl->cap = tl->npairs ? tl->npairs : 1;
        by = NULL;
    } else {
        qsort(tl->pairs, tl->npairs, sizeof(*tl->pairs), cmp_pair); /* no memory: in place */
    }
    free(start);
    free(by);
    free(tl->bin_index);
    tl->bin_index = NULL;
    tl->index_rows = 0;
    hashtab_destroy(&tl->index);
    hashtab_destroy(&tl->series_index);
    hashtab_destroy(&tl->cindex);
}

size_t timeline_bytes(const struct timeline *tl)
{
    return tl->cap * sizeof(*tl->pairs) + tl->series_cap * sizeof(*tl->series) +
           tl->cell_series_cap * sizeof(*tl->cell_series) +
           (size_t)tl->index_rows * sizeof(*tl->bin_index) + hashtab_bytes(&tl->index) +
           hashtab_bytes(&tl->series_index) +
           tl->ccap * sizeof(*tl->cpairs) + hashtab_bytes(&tl->cindex) +
           tl->let_go_cap * sizeof(*tl->let_go) + hashtab_bytes(&tl->let_go_index);
}
