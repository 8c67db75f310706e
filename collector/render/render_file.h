/* render_file.h: renders a profile into a file of the format its name (or a format name)
 * asks for, atomically: the output is written to a temporary file next to it, flushed to disk,
 * then renamed into place, so a reader never sees a half-written output and a failure leaves
 * an existing file untouched. Shared by `flyprof convert` / `flyprof diff` and by the agent,
 * which renders file=*.html etc. when profiling stops: never prints, never exits, returns 0 or
 * -errno with a message naming the output in err. Any thread.
 */
#ifndef RENDER_FILE_H
#define RENDER_FILE_H

#include <stddef.h>

#include "census.h"
#include "profile.h"
#include "render.h"

enum render_file_format {
    RENDER_FILE_COLLAPSED = 0, /* .collapsed, .folded: out_collapsed */
    RENDER_FILE_TXT = 1,       /* .txt: out_text */
    RENDER_FILE_HTML = 2,      /* .html: out_html */
    RENDER_FILE_PPROF = 3,     /* .pb.gz: out_pprof */
    RENDER_FILE_JFR = 4,       /* .jfr: out_jfr */
};

/* For messages: the names --format takes and the extensions that pick a format. */
#define RENDER_FILE_FORMAT_NAMES "collapsed, html, jfr, pprof, txt"
#define RENDER_FILE_EXTENSIONS ".collapsed, .folded, .html, .jfr, .pb.gz, .txt"

/* The format of an output: format when not NULL (collapsed or folded, html, jfr, pprof, txt
 * or text), otherwise path's extension; "-" (standard output) without a format is collapsed.
 * Returns an enum render_file_format, or -EINVAL with a message listing the accepted names or
 * extensions. */
int render_file_format(const char *path, const char *format, char *err, size_t errlen);

/* Renders p's samples selected by o in the format of (path, format) into path ("-": standard
 * output, written directly), atomically. A format whose writer is not built into this library
 * is -ENOSYS ("format not built"). Returns 0 or -errno with err filled; on failure path is
 * left as it was. */
int render_file_write(const struct profile *p, const struct render_opts *o, const char *path,
                      const char *format, char *err, size_t errlen);

/* An estimate of the memory, in bytes, that reading the log at log_path into a profile and
 * rendering it with o in the format of (path, format) will take at its peak: from one
 * streaming pass over the log (census.h) that counts its dictionaries and distinct cells and
 * keeps nothing, sized with the structures the reader and the writers allocate, erring high
 * (dictionary arrays and cells just doubled, a unit per cell, every frame a node of the flame
 * graph up to its node budget): 1.2 to 1.8 times the peak RSS of `flyprof convert` on
 * synthetic logs of 0.5M to 10M samples (tests/bench/fplsynth; a process's own ~10 MiB, which
 * a JVM has already, is not counted). For a caller that must not run out of memory, such as
 * the agent rendering at stop inside the JVM. Returns 0, or -errno with err filled (a bad
 * format, an unreadable log). */
int render_file_estimate(const char *log_path, const struct render_opts *o, const char *path,
                         const char *format, uint64_t *bytes, char *err, size_t errlen);

/* The same estimate from a census already taken, for an enum render_file_format. */
uint64_t render_file_estimate_census(const struct census *c, const struct render_opts *o,
                                     int format);

/* Renders a differential flame graph (out_html_write_diff: cur's shape colored by the change
 * from base) into path, atomically. The format must be html. Returns as render_file_write. */
int render_file_write_diff(const struct profile *base, const struct profile *cur,
                           const struct render_opts *o, const char *path, const char *format,
                           char *err, size_t errlen);

#endif
