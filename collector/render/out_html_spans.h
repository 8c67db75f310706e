/* out_html_spans.h: the requests of the HTML page's timeline (out_html_timeline.h): for each
 * trace context (span, root span: dev.flyprof.Context) whose samples the timeline kept, which
 * thread row, bin, category and tree node they weigh in, so the page can show one request
 * alone -- `#view=timeline&span=ID`, or a click on a mark -- across every thread that worked on
 * it, with the flame graph of just its samples.
 *
 * Embedded as the key "sp" of the timeline's data (absent when no kept sample had a context):
 *   ids      one [span, root, endpoint] per context, ordered by root then span; the ids as
 *            decimal strings (64-bit, past JavaScript's exact integers), endpoint the root
 *            span's name (Context.endpoint) or null
 *   m        per context, in the order of ids, in the tree's digit encoding: the number of
 *            records n, then n records (bin - previous record's bin, row, category, preorder
 *            position of the tree node, weight), bins ascending. The weight is the context's
 *            self weight in that node, bin, thread row and category (at least 1).
 *   let_go   requests the timeline let go, whole, when its context pairs were full
 *            (timeline.h: the lighter half each time); 0 when every one was kept
 *   unknown  weight of samples whose context id was never defined (its chunk was lost)
 * The records come from the timeline's context pairs (timeline.h), kept apart from its
 * per-bin cells: a request's samples keep their stacks even where a bin had too many. There
 * are at most as many records as pairs (TIMELINE_MAX_CTX_PAIRS): that bounds the page.
 *
 * Never prints. Any thread.
 */
#ifndef OUT_HTML_SPANS_H
#define OUT_HTML_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "fpl_codec.h"
#include "profile.h"

/* One weight of a context, as the timeline found it: def indexes p->ctx.defs, slot is the
 * thread slot (row_of maps it to its row), pos the node's preorder position. */
struct out_html_span_rec {
    uint32_t def;
    uint32_t bin;
    uint32_t slot;
    uint32_t cat;
    uint32_t pos;
    unsigned __int128 fp;
};

/* Appends ",\"sp\":{...}" for the n records r (reordered here) to b; nothing when n is 0.
 * unknown_fp is the weight of samples with an undefined context, let_go the requests the
 * timeline let go. Returns 0 or -ENOMEM. */
int out_html_spans_put(struct fpl_buf *b, const struct profile *p, struct out_html_span_rec *r,
                       size_t n, const uint32_t *row_of, unsigned __int128 unknown_fp,
                       uint64_t let_go);

#endif
