/* out_collapsed.h: folded stacks ("collapsed" format, as read by flamegraph.pl and most
 * flame graph tools): one line per distinct stack, frames root first separated by ';', a
 * space and the summed sample weight:
 *
 *     java.lang.Thread.run;com.example.App.work;com.example.App.hash 42
 *
 * The weight is the upscaled weight (profile.h): for CPU samples the raw weight sum; for wall
 * samples the sum of weight * candidates / chosen of each sample's tick, summed per line and
 * then rounded to the nearest integer (halves up), so a wall line estimates thread-intervals
 * rather than counting samples. Both kinds in one output ([cpu] and [wall] roots) count
 * time instead: each weight times its kind's interval, in ns (render_unit_ns), so the lines of
 * the two kinds add up. A wall sample of a known thread state ends in a frame naming
 * the state, as in the flame graph ("...;java.lang.Thread.sleep0;[sleeping] 9"), unless asked
 * not to. Frame names are profile_method.display (';' and control characters
 * replaced by '_'), so two stacks that differ only in bci fold into one line. Lines are sorted
 * bytewise, so the output is deterministic. Lines are written one at a time, in order, and never
 * held: memory grows with the distinct (thread, stack) pairs selected, not with the output's
 * size. Never prints except into the given stream. Any thread.
 */
#ifndef OUT_COLLAPSED_H
#define OUT_COLLAPSED_H

#include <stdio.h>

#include "profile.h"

struct render_select;

struct out_collapsed_opts {
    int kind;    /* FPL_KIND_CPU, FPL_KIND_WALL, PROFILE_KIND_ALL or PROFILE_KIND_AUTO */
    int threads; /* prepend the thread's name as the root frame */
    int states;  /* end wall lines in their thread-state frame ("[sleeping]") */
};

/* Writes p's samples of the selected kind to f as folded lines. With PROFILE_KIND_ALL every
 * line starts with a root frame "[cpu]" or "[wall]" (before the thread), as the weights of
 * the two kinds count different things. Lines whose weight rounds to zero are left out. Returns 0,
 * -ENOMEM, or -EIO when writing to f failed; err[0..errlen) then says what failed. */
int out_collapsed_write(const struct profile *p, const struct out_collapsed_opts *o, FILE *f,
                        char *err, size_t errlen);

/* As out_collapsed_write, for the cells sel selects (render.h: its resolved kind, state,
 * include and exclude filters), with frames leaf first when reverse is set (below the
 * [cpu]/[wall] and thread roots). Wall lines end in their thread-state frame, as in the call
 * trees (render_tree_build), unless sel's options say no_states or filter on one state; with
 * reverse the state frame comes first, below the roots. With sel->o.annotate each stack frame
 * carries the suffix of its frame type (render_annotation: `_[j]` compiled, `_[i]` inlined,
 * `_[0]` interpreted, `_[1]` C1, `_[k]` kernel), so frames of one method that ran differently
 * are different frames. */
int out_collapsed_write_select(const struct profile *p, struct render_select *sel, int threads,
                               int reverse, FILE *f, char *err, size_t errlen);

#endif
