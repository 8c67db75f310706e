/* out_events.h: the outputs of `flyprof events`: the events of each thread in order, and the
 * table of intervals between consecutive events (eventlog.h), as text or CSV.
 *
 * Text: a heading with the totals; per selected thread a line "thread NAME (tid T): ..." and
 * one line per event, "TIME (DELTA): N STRING", TIME in ns since the first event of the log,
 * DELTA in ns since the thread's previous event ("-" for its first), as in the seed of issue
 * 13; "[K events dropped]" where drops were; then the interval table. Strings are made valid
 * one-line UTF-8 (profile_clean_text); a truncated one ends with "...".
 *
 * CSV (RFC 4180, header line): thread,tid,time_ns,delta_ns,n,string,truncated,dropped_before;
 * one row per event, and one row per thread whose last events were dropped (empty time, n and
 * string; dropped_before holds the count). Strings as in the text output.
 *
 * Never prints except into the given stream. Any thread.
 */
#ifndef OUT_EVENTS_H
#define OUT_EVENTS_H

#include <stddef.h>
#include <stdio.h>

#include "eventlog.h"

struct out_events_opts {
    const struct eventlog_select *sel;
    int table_only;   /* text: only the heading and the interval table */
    const char *name; /* the log's name for the heading */
};

/* Writes the text output. Returns 0, -ENOMEM, or -EIO when writing failed (err says). */
int out_events_text(const struct eventlog *el, const struct out_events_opts *o, FILE *f, char *err,
                    size_t errlen);

/* Writes the CSV output. Returns 0 or -EIO when writing failed (err says). */
int out_events_csv(const struct eventlog *el, const struct out_events_opts *o, FILE *f, char *err,
                   size_t errlen);

#endif
