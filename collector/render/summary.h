/* summary.h: the summary of a profile (`flyprof summary`, text or JSON): the JVM and command,
 * start time and duration, sampling setup, samples per kind (for wall: raw and upscaled weight,
 * estimated thread-seconds, and the wall ticks), events of dev.flyprof.Events (recorded,
 * dropped, truncated), failures by cause, drops, the heaviest methods by self and total
 * weight, threads, CPU starvation where both kinds were sampled (out_starvation.h), the agent's
 * own cost, and the damage the reader met. Never prints except
 * into the given stream. Any thread.
 */
#ifndef SUMMARY_H
#define SUMMARY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "profile.h"

#define SUMMARY_TOP 20 /* rows in the method tables */

/* One row of a method table. name points into the profile. */
struct summary_method {
    const char *name; /* frame display name (overloads and bcis merge) */
    uint64_t weight;  /* upscaled weight rounded to the nearest integer (raw weight for CPU) */
    double exact;     /* the upscaled weight unrounded */
};

/* The up-to-max heaviest methods of kind (FPL_KIND_CPU or FPL_KIND_WALL), by self weight
 * (the method is the leaf) or, with total set, by total weight (the method is anywhere in the
 * stack, counted once per sample even when it recurses): top.h's rows over every sample of the
 * kind. Weights are upscaled (profile.h), as in the folded output. Sorted by exact weight,
 * then name. Stores the rows in out[0..*n). Returns 0 or -ENOMEM. */
int summary_top_methods(const struct profile *p, int kind, int total, struct summary_method *out,
                        size_t max, size_t *n);

/* The q-quantile (0 < q <= 1) of the handler-time histogram in ns, interpolated linearly
 * inside the bucket that holds it (buckets are exact below 16 ns, then about 9% wide), never
 * above the recorded maximum. 0 when the log has no histogram. */
uint64_t summary_hist_quantile(const struct profile *p, double q);

/* Writes the summary of p (read from the log `name`) to f. Returns 0, -ENOMEM, or -EIO when
 * writing failed; err[0..errlen) then says what failed. */
int summary_write(const struct profile *p, const char *name, FILE *f, char *err, size_t errlen);

/* The layout of summary_write_json, collector/format/SUMMARY_JSON.md: stable; keys are only
 * added, and a change of meaning takes a new version. */
#define SUMMARY_JSON_VERSION 1

/* The same facts as summary_write, as one JSON object (and a newline) to f: the keys of
 * collector/format/SUMMARY_JSON.md. extra (NULL or ""): more members, `"key":value,...`
 * without the braces, appended last (the hiccups, which take another pass over the log).
 * Returns as summary_write. */
int summary_write_json(const struct profile *p, const char *name, const char *extra, FILE *f,
                       char *err, size_t errlen);

#endif
