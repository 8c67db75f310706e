/* out_jfr.h: JFR output: a Java Flight Recorder file (format 2.0) that the JDK's reader
 * (jdk.jfr.consumer.RecordingFile, under `jfr`, JDK Mission Control and IntelliJ) reads, of
 * JDK 17 and later. The mapping is collector/format/JFR.md; in short:
 *
 * - each selected aggregation cell (thread, stack, kind, state) becomes N identical sample
 *   events, N its weight rounded (the raw weight for CPU, the upscaled one for wall: what a
 *   folded line counts), so that a reader counting events counts what `convert -o
 *   x.collapsed` counts. CPU samples are jdk.ExecutionSample (state STATE_RUNNABLE); wall
 *   samples are jdk.ExecutionSample too when the file holds one kind (its state field the
 *   thread's state), flyprof.WallSample beside CPU samples (--kind all), so no reader adds
 *   the two kinds up;
 * - alloc, lock and live samples are one event each, at their own time
 *   (jdk.ObjectAllocationSample; jdk.JavaMonitorEnter for a monitor, jdk.ThreadPark for a
 *   park; flyprof.LiveObject), their stack's class leaf as the event's class and their weight
 *   as its weight (bytes) or duration (ns: a file with lock waits counts ticks in ns), from
 *   profile.kept (profile_want_kept; without it one event per cell); without --kind and with
 *   --kind all they come beside the CPU (and wall) samples;
 * - a stack is a jdk.types.StackTrace whose frames carry their method (class, name,
 *   descriptor), line, bytecode index and frame type; a Java method's class and name are its
 *   display name's (normalized, names.h), a C function's class is its module and a marker's
 *   class is "";
 * - events at the start of the timeline bin their samples fell in when the profile has a
 *   timeline (profile_want_timeline; otherwise all at the profile's start); a sample of a
 *   request (cells split by context, profile.cells_by_context) gets a flyprof.ContextSample
 *   beside it, an alloc, lock or live event of a request its flyprof.<event>Context; hiccup mode's stalls and GC pauses (kept by the timeline) are flyprof.Stall
 *   and flyprof.GCPause events;
 * - threads (name and OS id), jdk.ActiveSetting events with the sampling settings and the
 *   agent's options at each chunk's start;
 * - chunks of at most o->chunk_bytes of events (12 MB by default) or o->chunk_ns of sample
 *   time (1 h); every chunk has its constant pools (only the keys its events use) and the
 *   metadata; a key means one value in the whole file, as the JDK's reader reuses a key's
 *   value from the chunk before.
 *
 * Memory: the chunk being written, a few arrays over the profile's threads, stacks, methods
 * and cells, each stack's encoded pool entry, and the interned
 * class, package and symbol names. Never prints except into f. Any thread.
 */
#ifndef OUT_JFR_H
#define OUT_JFR_H

#include <stddef.h>
#include <stdio.h>

#include "profile.h"
#include "render.h"

#define OUT_JFR_CHUNK_BYTES (12ull << 20)          /* the JDK's default maxchunksize */
#define OUT_JFR_CHUNK_NS (3600ull * 1000000000ull) /* the JDK's default chunk age, 1 h */

/* Writes p's cells selected by o (kind -- AUTO and ALL add the alloc, lock and live samples --,
 * state, include/exclude; `threads`, `reverse` and
 * `annotate` do not apply: a JFR sample has its thread, and frame types are always there;
 * NULL o: the defaults) to f as JFR. An empty selection gives a valid file without samples.
 * Returns 0; -EINVAL (a bad regex, kind or state: render_select_init's message); -ENOMEM;
 * -EFBIG (a constant pool over 256 MB); -EIO (or -errno) when writing failed. err then says
 * what failed. */
int out_jfr_write(const struct profile *p, const struct render_opts *o, FILE *f, char *err,
                  size_t errlen);

#endif
