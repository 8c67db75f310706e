/* select.c: the k smallest of an array (select.h). */
#include "select.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t select_rounds(size_t n)
{
    size_t lg = 0;
    while (n > 1) {
        n >>= 1;
        lg++;
    }
    return 2 * lg + 4;
}

static void swap_elems(unsigned char *base, size_t size, size_t i, size_t j)
{
    if (i == j)
        return;
    unsigned char t[SELECT_MAX_SIZE];
    memcpy(t, base + i * size, size);
    memcpy(base + i * size, base + j * size, size);
    memcpy(base + j * size, t, size);
}

struct sort_by_less {
    select_less_fn less;
    void *arg;
};

static int cmp_by_less(const void *x, const void *y, void *p)
{
    const struct sort_by_less *s = p;
    if (s->less(x, y, s->arg))
        return -1;
    return s->less(y, x, s->arg) ? 1 : 0;
}

int select_smallest(void *base_, size_t n, size_t size, size_t k, select_less_fn less,
                    void *arg)
{
    unsigned char *a = base_;
    if (size == 0 || size > SELECT_MAX_SIZE)
        return 0;
#define AT(i) (a + (i) * size)
    size_t lo = 0, hi = n; /* the k-th smallest is in [lo, hi) */
    size_t budget = select_rounds(n);
    while (hi - lo > 1 && k > lo && k < hi) {
        if (budget == 0) {
            struct sort_by_less s = {less, arg};
            qsort_r(AT(lo), hi - lo, size, cmp_by_less, &s);
            return 1;
        }
        size_t mid = lo + (hi - lo) / 2;
        if (less(AT(mid), AT(lo), arg))
            swap_elems(a, size, mid, lo);
        if (less(AT(hi - 1), AT(lo), arg))
            swap_elems(a, size, hi - 1, lo);
        if (less(AT(hi - 1), AT(mid), arg))
            swap_elems(a, size, hi - 1, mid);
        swap_elems(a, size, mid, hi - 1); /* the pivot, the median, at the end */
        size_t store = lo;
        for (size_t i = lo; i < hi - 1; i++)
            if (less(AT(i), AT(hi - 1), arg))
                swap_elems(a, size, i, store++);
        swap_elems(a, size, store, hi - 1); /* [lo, store) before the pivot, now at store */
        if (store == k)
            return 0;
        size_t was = hi - lo;
        if (store < k)
            lo = store + 1;
        else
            hi = store;
        if (hi - lo > was / 4 * 3)
            budget--; /* a poor pivot: more than 3/4 of the range is left */
    }
#undef AT
    return 0;
}
