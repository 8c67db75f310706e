/* out_html.h: the interactive flame graph, one self-contained HTML file (no network): a canvas
 * flame graph with click-to-zoom, regex search with the matched share, a tooltip, a callers
 * (reversed) view, colors by frame type with a legend, and a title saying what was profiled.
 * The differential variant shows NEW's tree colored by each frame's change in share where the
 * change is beyond sampling noise (a two-proportion z test of the frame's two shares, its
 * limit in the legend), with the frames that exist only in BASE added where they were, as
 * wide as the share they lost.
 *
 * The page is collector/html/flame.{html,css,js}, embedded at build time
 * (collector/html/embed.cmake); this module fills in the title and the data.
 *
 * Embedded data: one <script type="application/json" id="fp-data"> object, pure ASCII (every
 * non-ASCII character, '<', '>' and '&' as a \uXXXX escape, so no name can close the script
 * or be misread under any charset). Fields:
 *   v           OUT_HTML_DATA_VERSION
 *   title       the page title (o->title or render_default_title)
 *   kind        "cpu", "wall" or "all";  interval_ns  one weight in ns (0: unknown)
 *   unit_ns     1 when weights are ns (kind "all": CPU time and thread time, which add up;
 *               render_unit_ns), interval_ns is 1 then; 0 when they count sampling intervals
 *   samples     selected samples (raw count);  total  the root's weight
 *   reverse     1 when tree is the callers view (leaf first)
 *   min_share   the node budget in force (render.h): frames under this fraction of the
 *               total were merged into "[N small frames]" nodes (type RENDER_SMALL);
 *               0: none were;  max_nodes  the node limit (0: none)
 *   merged_frames, merged_nodes  how many frames were merged, into how many such nodes
 *   names       the frame table: names, most used first
 *   types       one digit per names entry: its enum render_type (a name used with two types
 *               has two entries)
 *   n, tree     the call tree: n nodes in depth-first preorder, children in render_tree
 *               order (by name), encoded as below
 *   tl          the timeline, when the profile kept one (profile_want_timeline): see
 *               out_html_timeline.h
 * and for a diff (out_html_write_diff) also
 *   diff 1;  base_total  the base tree's root weight;  base_samples  its selected samples
 *   (the page tests each frame's change against sampling noise with both counts);  base  n
 *   base weights, one per node in tree order (render_tree_match: the weight of the same path
 *   in BASE, 0 when absent);
 *   lost  n numbers: per node the width its subtree gives frames only in BASE -- the diff tree
 *   is NEW's, plus under each frame the frames BASE had there and NEW has not, each as wide as
 *   its BASE weight scaled to NEW's total (total * base weight / base_total, rounded down),
 *   its ancestors widened by as much; such a frame has lost == its weight, and a node's own
 *   NEW weight is its weight - lost; total stays NEW's root weight;
 *   n2, tree2, base2, lost2  the same for the opposite orientation (callers when tree is
 *   callees).
 *
 * Tree encoding: a string of digit characters. A number is written little-endian in base
 * OUT_HTML_BASE: every digit but the last is a "more" digit (OUT_HTML_MORE, value = index),
 * the last is an "end" digit (OUT_HTML_END). Per node: h = children * 2 + same; the frame
 * table index; then the node's weight unless same is 1, which says it equals what is left of
 * the parent's weight after the node's earlier siblings (the root never sets it). A node's self
 * weight is its weight less its children's. The base stream is n plain numbers.
 *
 * Never prints except into the given stream. Any thread.
 */
#ifndef OUT_HTML_H
#define OUT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "fpl_codec.h"
#include "profile.h"
#include "render.h"

#define OUT_HTML_DATA_VERSION 1
#define OUT_HTML_BASE 44
/* digits: neither quotes, backslash, '<', '>' nor '&' (safe in a JSON string in a script) */
#define OUT_HTML_END "#$%()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQR"
#define OUT_HTML_MORE "STUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~!"

/* The page's node budget when render_opts leaves it 0: frames under 0.001% of the total are
 * merged, and the tree keeps at most 500,000 nodes (the share is raised until it does). A
 * 10M-sample log of 100k stacks on 32 threads makes a page of about a MiB per 250,000 nodes
 * with --threads, drawn in a fraction of a second (tests/bench/html_bench.py); unbudgeted it
 * was 17M nodes, 65 MiB and 7 s. */
#define OUT_HTML_MIN_SHARE 0.00001
#define OUT_HTML_MAX_NODES 500000u

/* Appends v to b in the page's digit encoding (above). */
void out_html_put_num(struct fpl_buf *b, uint64_t v);

/* The kind a page shows for o: with the automatic kind (and no state filter), every kind p
 * holds -- CPU and wall samples of a cpu+wall log together, as time (render_unit_ns), with
 * the timeline telling them apart -- so a page shows what was recorded, whoever renders it
 * (`flyprof convert`, the agent's file=*.html); otherwise o->kind. */
int out_html_default_kind(const struct profile *p, const struct render_opts *o);

/* Writes the flame graph of p's samples selected by o (kind, threads, reverse, filters; title
 * or the default one; the node budget of o, OUT_HTML_MIN_SHARE and OUT_HTML_MAX_NODES where it
 * is 0, none for a negative min_share) to f. Returns 0, or -errno with err[0..errlen) saying what
 * failed: a bad filter regex (-EINVAL), -ENOMEM, or -EIO and the like when writing to f failed. */
int out_html_write(const struct profile *p, const struct render_opts *o, FILE *f, char *err,
                   size_t errlen);

/* Writes the differential flame graph of cur against base to f: cur's tree, each frame colored
 * by cur_total / cur_root - base_total / base_root (red: grew, blue: shrank) when the change
 * is beyond sampling noise, grey otherwise, its tooltip showing both shares, the change and
 * its z; frames only in base are drawn where base had them, as wide as their base share of
 * cur's total, colored by the share they lost. Both profiles are selected with o; the default
 * title names both. Returns as out_html_write. */
int out_html_write_diff(const struct profile *base, const struct profile *cur,
                        const struct render_opts *o, FILE *f, char *err, size_t errlen);

#endif
