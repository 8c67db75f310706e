/* out_html_timeline.h: the timeline of the HTML page (out_html.h): when the samples of the
 * flame graph were taken, per thread, and per time bin which frames they ended in, so the
 * page can draw rows of marks colored by kind and thread state and rebuild the flame graph
 * of any time range by summing bins. Made from the profile's timeline (timeline.h: bins of
 * (cell, weight) pairs), mapped onto the page's budgeted tree.
 *
 * Embedded as the key "tl" of the page's data (absent when the profile kept no timeline):
 *   bin_ns     a bin's width in ns;  t0_ns  where bin 0 starts, ns after the log's start
 *   gc, stalls hiccup mode's GC pauses and probe stalls: [[start_ns, end_ns], ...] after the
 *              log's start ([start_ns, end_ns, probe] for a stall, probe 0 java, 1 os), the
 *              first TIMELINE_MAX_SPANS of each; gc_over, stalls_over how many more the log
 *              held
 *   nbins      bins covered (bin 0 .. nbins-1)
 *   cats       the mark categories, by index: "cpu", then per state the wall samples in it
 *              ("wall" for state unknown, "running", "blocked", "waiting", "timed_waiting",
 *              "parked", "sleeping", "native", "jvm_idle": PROFILE_STATE_JVM_IDLE)
 *   rows       one [name, data] per thread (sorted by name), data in the tree's digit
 *              encoding: records (bin - previous record's bin, category, weight), bins
 *              ascending; a thread with no selected weight has no row. Beyond
 *              OUT_HTML_TL_MAX_ROWS threads, the lightest are summed into one last row
 *              "[N more threads]" (rows_merged = N).
 *   stk        per bin from 0 to nbins-1: the number of entries m, then m pairs (preorder
 *              index of the tree node - the previous entry's, weight): the weight of the
 *              bin's samples that ends in that node (its self weight within the bin). The
 *              sum over all bins of a node's entries is its self weight in the tree (exactly
 *              for CPU; wall weights are rounded per bin and node), so a range's flame graph
 *              is the tree with the self weights of its bins.
 *   cap        entries kept per bin (OUT_HTML_TL_MAX_ENTRIES / bins with samples, at least
 *              OUT_HTML_TL_MIN_CAP): a bin with more has its lightest entries moved to an
 *              ancestor (half their depth up, repeatedly) until it fits, so its weight stays
 *              in the bin under a caller frame; moved  the weight so moved (all bins)
 *   over       weight whose stack the model did not keep (timeline.h's pair cap): it is in
 *              its rows and bins, as self weight of the root
 *   hidden     overflow weight left out because --include/--exclude cannot be applied to it
 *              (its stack is unknown): in neither rows nor bins
 *   sp         the requests (trace contexts) of the samples, from the timeline's context
 *              pairs: out_html_spans.h
 *
 * Never prints. Any thread.
 */
#ifndef OUT_HTML_TIMELINE_H
#define OUT_HTML_TIMELINE_H

#include <stdint.h>

#include "fpl_codec.h"
#include "profile.h"
#include "render.h"

#define OUT_HTML_TL_MAX_ENTRIES 300000u
#define OUT_HTML_TL_MIN_CAP 16u
#define OUT_HTML_TL_MAX_ROWS 512u

/* Appends ",\"tl\":{...}" for p's timeline to b, for the page's tree t built from p with o,
 * whose nodes are at the preorder positions pos[node]. Nothing when p kept no timeline.
 * Returns 0, or -ENOMEM with err filled. */
int out_html_timeline_put(struct fpl_buf *b, const struct profile *p, const struct render_tree *t,
                          const uint32_t *pos, const struct render_opts *o, char *err,
                          size_t errlen);

#endif
