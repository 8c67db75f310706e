/* jfr_import.h: reads a Java Flight Recorder file (format 1.x/2.x: the JDK's recordings,
 * async-profiler's, flyprof's own) and writes its samples as a flyprof log, so that every
 * output of the collector (flame graph, timeline, diff, summary, folded, pprof) takes JFR as
 * it takes a .fpl log.
 *
 * What is taken: jdk.ExecutionSample events as CPU samples and jdk.NativeMethodSample events
 * as wall samples in state NATIVE, each event one sample of weight 1 (what the JDK's reader
 * counts), at the event's time, with its thread (Java name, else OS name; OS thread id) and
 * stack (collector/format/JFR.md, section 6, says how frames map back); flyprof.WallSample
 * (flyprof's own files with both kinds) as wall samples with their state. Every other event is
 * skipped. Each chunk is read on its own (its metadata, then its constant pools, then its
 * events), so memory grows with the largest chunk, not the file. Damage is an error naming
 * the chunk, its offset and what was wrong (a size past the end, a type the metadata does not
 * declare, a key no pool defines, a value that does not decode).
 * Never prints. Any thread.
 */
#ifndef JFR_IMPORT_H
#define JFR_IMPORT_H

#include <stddef.h>
#include <stdint.h>

/* 1 when data[0..len) starts like a JFR file ("FLR\0"). */
int jfr_import_is_jfr(const void *data, size_t len);

/* Converts the JFR file in data[0..len) (name for messages) into a flyprof log written to fd
 * (preamble and checksummed chunks, fpl_chunk.h). Returns 0, -ENOMEM, -errno of a write, or
 * -EINVAL with err[0..errlen) naming the file, the chunk and what was wrong. *samples gets the
 * number of samples written. */
int jfr_import(const void *data, size_t len, const char *name, int fd, uint64_t *samples, char *err,
               size_t errlen);

#endif
