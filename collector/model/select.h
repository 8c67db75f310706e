/* select.h: the k smallest of an array, in place, without sorting it (a selection).
 *
 * A quickselect with the median of three as pivot: expected O(n) comparisons. An order that
 * defeats the median of three (each round then closes in by one element: O(n^2)) is cut short:
 * after select_rounds(n) poor rounds (each leaving more than 3/4 of its range; a random order
 * has about one in three) what is left is sorted: O(n log n) at worst. `less` must be
 * a strict total order for the k smallest to be one set whatever the input's order (break
 * ties by a key); it may not fail. Never prints, never allocates but through qsort_r.
 */
#ifndef SELECT_H
#define SELECT_H

#include <stddef.h>

/* less(x, y, arg): nonzero when *x comes strictly before *y */
typedef int (*select_less_fn)(const void *x, const void *y, void *arg);

/* the most poor rounds before sorting what is left: 2 log2(n) + 4 */
size_t select_rounds(size_t n);

/* Reorders the n elements of `size` bytes (at most SELECT_MAX_SIZE) at base so that the k
 * smallest under less come first, in no order. Returns 1 if it fell back to sorting, else 0. */
#define SELECT_MAX_SIZE 64
int select_smallest(void *base, size_t n, size_t size, size_t k, select_less_fn less,
                    void *arg);

#endif
