/* out_pprof.h: pprof output: a gzipped profile.proto (github.com/google/pprof, proto/
 * profile.proto), as read by `go tool pprof`, Grafana Pyroscope, Parca and speedscope.
 *
 * What the profile holds:
 * - sample types: for CPU samples [samples/count, cpu/nanoseconds]; for wall samples
 *   [samples/count, wall/nanoseconds]. `samples` counts the sample records; the nanoseconds are
 *   the weight times the sampling interval of the log's header: the raw weight (1 + timer
 *   overruns) for CPU, the upscaled weight (weight x candidates / chosen of the sample's wall
 *   tick, exact in fixed point, rounded once per pprof sample) for wall, so a wall value
 *   estimates thread-time. Without the header (its chunk lost) the interval is unknown and the
 *   nanoseconds are 0; the counts remain. With PROFILE_KIND_ALL the profile has four types,
 *   [cpu_samples/count, cpu/nanoseconds, wall_samples/count, wall/nanoseconds], and each
 *   sample has zeros in the two of the other kind (pprof needs one list of types; pick one with
 *   -sample_index). default_sample_type is the nanoseconds type (cpu when there are CPU
 *   samples, with all). period_type and period: the kind's interval (cpu's with all).
 * - one pprof sample per selected aggregation cell (thread, stack, kind, state), grouped by
 *   stack (in the profile's stack order, cell order within a stack: the repeats of a location
 *   list then compress well); its locations leaf first; labels `thread` (the thread's display
 *   name) and, for wall samples, `state` (running, blocked, waiting, timed_waiting, parked,
 *   sleeping, native, unknown).
 * - one function per method: name = profile_method.display (`package.Class.method`, or the
 *   marker or C function's name), system_name = that name followed by the JVM signature
 *   (`pkg.C.m(I)J`), filename = the source file under its package's directory
 *   (`dev/flyprof/workload/Split123.java`, so pprof's -list finds it with -source_path at a
 *   source root; "" unknown), start_line = the smallest line of the method's table. Frames of
 *   undefined methods, undefined stacks and empty stacks get the functions `[unknown]`,
 *   `[unknown stack]` and `[no frames]` (profile.h).
 * - one location per (function, line): the line of a frame's bci is the line of the largest
 *   start_bci at or below it in the method's line table, 0 when there is none (no bci, no
 *   table), in the one mapping `[jvm]`, which says it has functions, file names and line
 *   numbers (so pprof does not try to symbolize); no addresses.
 * - time_nanos (when profiling started: the header's realtime anchor; the window's start with
 *   --from), duration_nanos (profile_duration_ns), and comments: the title, the JVM, the
 *   agent's options.
 * Protobuf strings must be valid UTF-8: display names already are (profile_clean); the raw
 * strings (signatures, source files, the header's) are converted here from the JVM's modified
 * UTF-8 (a surrogate pair joined into one character, an encoded NUL as '_', a lone surrogate
 * or any other invalid byte as U+FFFD).
 *
 * Cost: two passes over the aggregation cells (select and count, then encode); each distinct
 * stack's locations are encoded once and cached. Samples are deflated as they are encoded;
 * memory grows with the cells, distinct stacks, methods, (method, line) pairs and strings, never
 * with the samples. Never prints except into the given stream. Any thread.
 */
#ifndef OUT_PPROF_H
#define OUT_PPROF_H

#include <stddef.h>
#include <stdio.h>

#include "profile.h"
#include "render.h"

/* Writes p's cells selected by o (kind, state, include/exclude, see render.h; `threads` and
 * `reverse` do not apply: the thread is a label and pprof orders frames itself; a NULL o is
 * the defaults: auto kind, every state, no filters) to f as a gzipped profile.proto (deflate
 * level 6). An empty selection gives a valid profile without samples. Returns 0; -EINVAL for
 * a bad regex, kind or state (render_select_init's message); -ENOMEM; -EIO (or -errno) when
 * writing to f failed. err[0..errlen) then says what failed. */
int out_pprof_write(const struct profile *p, const struct render_opts *o, FILE *f, char *err,
                    size_t errlen);

#endif
