/* out_text.h: the plain-text report (`.txt`), for a terminal or a ticket:
 *
 *   - a header: title, kind and what one unit of weight means, duration, selected samples and
 *     weight, the filters and window in force;
 *   - the top-N methods by self weight and by total weight (a method counted once per stack
 *     even when it recurses), with percentages of the selected total; one table per kind with
 *     --kind all. Frame names are display names (overloads and bcis merge); a wall sample's
 *     state leaf counts as self time of the method below it;
 *   - the call tree (render_tree_build with the same options: threads, reverse, states) with
 *     total and self percentages, children heaviest first, indented two spaces per level;
 *     nodes under the prune threshold are folded into one "N more" line per parent.
 *
 * Weights are those of the call tree (render.h): raw for CPU, upscaled for wall. Never prints
 * except into the given stream. Any thread.
 */
#ifndef OUT_TEXT_H
#define OUT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "profile.h"
#include "render.h"

#define OUT_TEXT_TOP 30        /* rows of each flat table */
#define OUT_TEXT_PRUNE 0.5     /* percent of the total under which tree nodes are hidden */
#define OUT_TEXT_INDENT_MAX 40 /* levels indented; deeper nodes say their depth */

struct out_text_opts {
    size_t top;   /* rows per flat table; 0: OUT_TEXT_TOP */
    double prune; /* percent; < 0: OUT_TEXT_PRUNE; 0 shows every node */
};

/* Writes the report of p's samples selected by o to f, with the default table size and
 * pruning. Returns 0, -EINVAL for bad options (a bad regex, ...), -ENOMEM, or -EIO when writing
 * failed; err[0..errlen) then says what failed. */
int out_text_write(const struct profile *p, const struct render_opts *o, FILE *f, char *err,
                   size_t errlen);

/* As out_text_write with the table size and pruning of t (NULL: defaults). */
int out_text_write_opts(const struct profile *p, const struct render_opts *o,
                        const struct out_text_opts *t, FILE *f, char *err, size_t errlen);

#endif
