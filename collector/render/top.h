/* top.h: the hottest methods of a selection, for the summary (text and JSON) and the text
 * report: per frame name, its self weight (the samples whose leaf it is; a wall sample's state
 * leaf is no frame, so its time is its method's) and its total weight (the samples with it
 * anywhere on the stack, counted once per sample however deep it recurses). Frames merge by
 * display name (overloads and bcis of one method are one row); undefined frames and stacks are
 * rows of their own (PROFILE_UNKNOWN_FRAME, PROFILE_UNKNOWN_STACK, PROFILE_EMPTY_STACK).
 * Weights are exact upscaled sums (fixed point, profile.h), rounded only for display. Memory:
 * the rows are the top's; names point into the profile. Any thread.
 */
#ifndef TOP_H
#define TOP_H

#include <stddef.h>

#include "profile.h"
#include "render.h"

struct top_row {
    const char *name;
    unsigned __int128 self;  /* fixed point */
    unsigned __int128 total; /* fixed point */
};

struct top {
    struct top_row *rows; /* the names with any weight, in no order until top_sort */
    size_t n;
    unsigned __int128 all; /* the selected cells' total (fixed point) */
    uint64_t samples;      /* the selected cells' samples */
};

/* Fills t from the cells sel selects (of its resolved kind; PROFILE_KIND_ALL mixes both, which
 * callers avoid). Returns 0 or -ENOMEM. */
int top_build(struct top *t, const struct profile *p, struct render_select *sel);

/* Sorts the rows heaviest first by total weight (by_total) or self weight, then by name; with
 * self, the rows without self weight come last (n_self says how many have some). */
void top_sort(struct top *t, int by_total, size_t *n_self);

void top_destroy(struct top *t);

#endif
