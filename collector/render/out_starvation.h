/* out_starvation.h: the CPU-starvation part of `flyprof summary` (starvation.h computes it):
 * a text section, and the `starvation` value of the JSON summary
 * (collector/format/SUMMARY_JSON.md). Any thread; never prints except into the given output.
 */
#ifndef OUT_STARVATION_H
#define OUT_STARVATION_H

#include <stddef.h>
#include <stdio.h>

#include "fpl_codec.h"
#include "profile.h"

/* Writes the text section for p's threads to f (nothing when the log lacks CPU or wall
 * samples); at most max_rows thread rows. Returns 0 or -ENOMEM. */
int out_starvation_text(const struct profile *p, size_t max_rows, FILE *f);

/* Appends the JSON value of key `starvation` to b: an object, or null when the log lacks CPU
 * or wall samples. Returns 0 or -ENOMEM. */
int out_starvation_json(const struct profile *p, struct fpl_buf *b);

#endif
