/* top.c: self and total weight per method name over selected cells (see top.h). */
#include "top.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_hash.h"
#include "hashtab.h"

/* Name ids 0..2 are the placeholders for undefined references and empty stacks. */
enum { NAME_UNKNOWN, NAME_UNKNOWN_STACK, NAME_EMPTY, NAME_FIRST };

/* Gives every method index the id of its display name, equal names one id; the names by id go
 * to rows[].name. Returns the method -> id map (malloc'd) or NULL. */
static uint32_t *name_ids(const struct profile *p, struct top_row *rows, size_t *nnames)
{
    struct hashtab index = {0}; /* name -> id */
    uint32_t *of_method = malloc((p->nmethods + 1) * sizeof(*of_method));
    if (!of_method || hashtab_reserve(&index, p->nmethods)) {
        hashtab_destroy(&index);
        free(of_method);
        return NULL;
    }
    rows[NAME_UNKNOWN].name = PROFILE_UNKNOWN_FRAME;
    rows[NAME_UNKNOWN_STACK].name = PROFILE_UNKNOWN_STACK;
    rows[NAME_EMPTY].name = PROFILE_EMPTY_STACK;
    size_t n = NAME_FIRST;
    for (size_t m = 0; m < p->nmethods; m++) {
        const char *s = p->methods[m].display;
        uint64_t h = fpl_hash_str(s);
        struct hashtab_probe pr;
        uint32_t k = hashtab_first(&index, h, &pr);
        while (k != HASHTAB_NONE && strcmp(rows[k].name, s) != 0)
            k = hashtab_next(&index, &pr);
        if (k == HASHTAB_NONE) {
            k = (uint32_t)n++;
            rows[k].name = s;
            hashtab_add(&index, h, k); /* cannot fail: reserved */
        }
        of_method[m] = k;
    }
    hashtab_destroy(&index);
    *nnames = n;
    return of_method;
}

int top_build(struct top *t, const struct profile *p, struct render_select *sel)
{
    uint64_t *stamp = NULL;
    uint32_t *of_method = NULL;
    size_t nnames = 0;
    memset(t, 0, sizeof(*t));
    t->rows = calloc(p->nmethods + NAME_FIRST, sizeof(*t->rows));
    if (!t->rows || !(of_method = name_ids(p, t->rows, &nnames)) ||
        !(stamp = calloc(nnames, sizeof(*stamp)))) {
        free(of_method);
        top_destroy(t);
        return -ENOMEM;
    }
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->upscaled == 0 || !render_select_entry(sel, e))
            continue;
        unsigned __int128 fp = render_entry_fp(sel, e);
        profile_fp_add(&t->all, fp);
        t->samples += e->count;
        if (e->stack == PROFILE_NONE || p->stacks[e->stack].nframes == 0) {
            struct top_row *r =
                &t->rows[e->stack == PROFILE_NONE ? NAME_UNKNOWN_STACK : NAME_EMPTY];
            profile_fp_add(&r->self, fp);
            profile_fp_add(&r->total, fp);
            continue;
        }
        const struct profile_stack *st = &p->stacks[e->stack];
        for (uint32_t k = 0; k < st->nframes; k++) {
            uint32_t m = st->frames[k].method;
            uint32_t id = m == PROFILE_NONE ? NAME_UNKNOWN : of_method[m];
            if (k == 0)
                profile_fp_add(&t->rows[id].self, fp);
            /* a recursive method counts once per sample: stamp each name with this cell */
            if (stamp[id] != i + 1) {
                stamp[id] = i + 1;
                profile_fp_add(&t->rows[id].total, fp);
            }
        }
    }
    size_t n = 0;
    for (size_t id = 0; id < nnames; id++) {
        if (t->rows[id].total)
            t->rows[n++] = t->rows[id];
    }
    t->n = n;
    free(stamp);
    free(of_method);
    return 0;
}

static int cmp_self(const void *a, const void *b)
{
    const struct top_row *x = a, *y = b;
    if (x->self != y->self)
        return x->self < y->self ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int cmp_total(const void *a, const void *b)
{
    const struct top_row *x = a, *y = b;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return strcmp(x->name, y->name);
}

void top_sort(struct top *t, int by_total, size_t *n_self)
{
    if (t->n)
        qsort(t->rows, t->n, sizeof(*t->rows), by_total ? cmp_total : cmp_self);
    if (n_self) {
        size_t k = 0;
        for (size_t i = 0; i < t->n; i++)
            k += t->rows[i].self != 0;
        *n_self = k;
    }
}

void top_destroy(struct top *t)
{
    free(t->rows);
    memset(t, 0, sizeof(*t));
}
