/* test_select: the k smallest of an array (collector/model/select.c), used by the timeline's
 * purge to let the lighter half of the requests go.
 *
 * - Right: on random arrays with many ties (broken by index, as the timeline breaks them by
 *   id), sorted, reversed and organ-pipe arrays, every k: the first k are the k smallest
 *   (compared with a sort), and the array is a permutation of what it was.
 * - Bounded: against an adversary that decides each comparison as late as it can (McIlroy,
 *   "A killer adversary for quicksort", 1999), which drives a quickselect that only
 *   partitions to order n^2 comparisons (75M for n = 20000 without the fallback),
 *   select_smallest falls back to sorting and stays within 8 n log2 n comparisons; on random
 *   orders (the same every run: a fixed seed) it rarely falls back at all.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "select.h"

struct item {
    uint32_t key;
    uint32_t id;
};

static uint64_t ncmp;

static int item_less(const void *x, const void *y, void *arg)
{
    (void)arg;
    const struct item *a = x, *b = y;
    ncmp++;
    if (a->key != b->key)
        return a->key < b->key;
    return a->id < b->id;
}

static int item_cmp(const void *x, const void *y)
{
    return item_less(x, y, NULL) ? -1 : item_less(y, x, NULL) ? 1 : 0;
}

static uint64_t rng = 88172645463325252ull;

static uint32_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 32);
}

/* the first k of a (after selecting) are the k first of sorted, and a is a permutation */
static int selected_right(const struct item *a, const struct item *sorted, size_t n, size_t k)
{
    unsigned char *seen = calloc(n ? n : 1, 1);
    int ok = seen != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        if (a[i].id >= n || seen[a[i].id])
            ok = 0;
        else
            seen[a[i].id] = 1;
        /* sorted[k-1] is the largest of the k smallest: ids are unique, so it is strict */
        if (ok && k > 0 && k < n) {
            int small = !item_less(&sorted[k - 1], &a[i], NULL);
            if (small != (i < k))
                ok = 0;
        }
    }
    free(seen);
    return ok;
}

static void check_order(const char *what, struct item *init, size_t n)
{
    struct item *sorted = malloc(n * sizeof(*sorted)), *a = malloc(n * sizeof(*a));
    if (!sorted || !a) {
        CHECK(!"out of memory");
        free(sorted);
        free(a);
        return;
    }
    memcpy(sorted, init, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), item_cmp);
    int bad = 0;
    for (size_t k = 0; k <= n; k += 1 + (n > 64) * (n / 61)) {
        memcpy(a, init, n * sizeof(*a));
        select_smallest(a, n, sizeof(*a), k, item_less, NULL);
        if (!selected_right(a, sorted, n, k)) {
            if (!bad)
                fprintf(stderr, "%s, n %zu: wrong for k %zu\n", what, n, k);
            bad = 1;
        }
    }
    CHECK(!bad);
    free(sorted);
    free(a);
}

static void test_right(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 33, 100, 1000, 5000};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        struct item *init = malloc((n ? n : 1) * sizeof(*init));
        if (!init) {
            CHECK(!"out of memory");
            return;
        }
        for (uint32_t i = 0; i < n; i++)
            init[i] = (struct item){next_rand() % 7, i}; /* many ties */
        check_order("random, 7 keys", init, n);
        for (uint32_t i = 0; i < n; i++)
            init[i] = (struct item){next_rand(), i};
        check_order("random", init, n);
        for (uint32_t i = 0; i < n; i++)
            init[i] = (struct item){i, i};
        check_order("sorted", init, n);
        for (uint32_t i = 0; i < n; i++)
            init[i] = (struct item){(uint32_t)n - i, i};
        check_order("reversed", init, n);
        for (uint32_t i = 0; i < n; i++)
            init[i] = (struct item){i < n / 2 ? i : (uint32_t)n - i, i};
        check_order("organ pipe", init, n);
        for (uint32_t i = 0; i < n; i++)
            init[i] = (struct item){0, i};
        check_order("all equal keys", init, n);
        free(init);
    }
}

/* McIlroy's adversary. Elements are indexes into val; every one starts as "gas" (greater
 * than every solid value, equal to every gas). A comparison of two gas elements freezes one
 * (the candidate pivot when it is one of them) to the next solid value, so the pivot ends up
 * small and each partition round removes one element. Values, once solid, never change: the
 * order is consistent, so the run is the run of a real input (val at the end). */
struct adversary {
    uint32_t *val;
    uint32_t gas, nsolid;
    uint32_t candidate;
};

static int adv_less(const void *x, const void *y, void *arg)
{
    struct adversary *ad = arg;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    ncmp++;
    if (ad->val[a] == ad->gas && ad->val[b] == ad->gas) {
        if (a == ad->candidate)
            ad->val[a] = ad->nsolid++;
        else
            ad->val[b] = ad->nsolid++;
    }
    if (ad->val[a] == ad->gas)
        ad->candidate = a;
    else if (ad->val[b] == ad->gas)
        ad->candidate = b;
    if (ad->val[a] != ad->val[b])
        return ad->val[a] < ad->val[b];
    return a < b; /* gas against gas: by index, a total order */
}

static double log2_of(size_t n)
{
    double l = 0;
    while (n > 1) {
        n >>= 1;
        l += 1;
    }
    return l;
}

static void test_adversary(void)
{
    const size_t n = 20000, k = n / 2;
    uint32_t *a = malloc(n * sizeof(*a));
    struct adversary ad = {malloc(n * sizeof(uint32_t)), (uint32_t)n, 0, 0};
    if (!a || !ad.val) {
        CHECK(!"out of memory");
        free(a);
        free(ad.val);
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        a[i] = i;
        ad.val[i] = ad.gas;
    }
    ncmp = 0;
    int sorted = select_smallest(a, n, sizeof(*a), k, adv_less, &ad);
    double bound = 8.0 * (double)n * log2_of(n);
    printf("adversary: n %zu, %llu comparisons (bound %.0f), fell back: %d\n", n,
           (unsigned long long)ncmp, bound, sorted);
    CHECK(sorted == 1);
    CHECK((double)ncmp <= bound);
    /* the answer is right under the values the adversary settled on */
    uint32_t maxk = 0, minrest = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = ad.val[a[i]] == ad.gas ? ad.gas : ad.val[a[i]];
        if (i < k && v > maxk)
            maxk = v;
        if (i >= k && v < minrest)
            minrest = v;
    }
    CHECK(maxk <= minrest);
    free(a);
    free(ad.val);
}

static void test_random_rarely_sorts(void)
{
    const size_t n = 50000;
    struct item *a = malloc(n * sizeof(*a));
    if (!a) {
        CHECK(!"out of memory");
        return;
    }
    int fell_back = 0;
    uint64_t most = 0;
    for (int trial = 0; trial < 40; trial++) {
        for (uint32_t i = 0; i < n; i++)
            a[i] = (struct item){next_rand(), i};
        ncmp = 0;
        fell_back += select_smallest(a, n, sizeof(*a), n / 2, item_less, NULL);
        if (ncmp > most)
            most = ncmp;
    }
    printf("random orders: 40 of n %zu, fell back %d times, at most %.2f n comparisons\n", n,
           fell_back, (double)most / (double)n);
    CHECK(fell_back <= 2);
    CHECK(most <= 8 * n);
    free(a);
}

int main(void)
{
    test_right();
    test_adversary();
    test_random_rarely_sorts();
    return harness_result("test_select");
}
