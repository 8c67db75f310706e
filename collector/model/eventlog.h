/* eventlog.h: the events of a log (dev.flyprof.Events, FPL_REC_EVENTS) grouped by thread, in
 * the order each thread logged them, with the drops between them; a selection (thread name,
 * time window); and the intervals between consecutive events of a thread, by pair of event
 * numbers (n -> next n): count, min, median, p99, max.
 *
 * Threads are told apart by their kernel tid: a renamed thread keeps its events together (it
 * is shown with its last name). Two threads that had the same tid one after the other in one
 * log (tids are reused only after the kernel ran through pid_max) would be merged.
 *
 * Built on struct profile (profile.h), which reads the log once and gives the dictionaries,
 * the clock conversion and the damage statistics. Never prints, never exits. Memory: about
 * 40 bytes per event plus its string. Any thread; one user at a time.
 */
#ifndef EVENTLOG_H
#define EVENTLOG_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* One event, in its thread's order. */
struct eventlog_event {
    uint64_t ticks;
    int64_t n;
    uint64_t dropped; /* events of this thread dropped right before this one */
    uint32_t str_off; /* the string (as logged, modified UTF-8) at eventlog.strings + str_off */
    uint32_t str_len;
    uint8_t flags; /* enum fpl_event_flag */
};

/* The events of one thread (kernel tid). */
struct eventlog_thread {
    uint64_t os_tid;  /* 0 when unknown */
    const char *name; /* display name (profile_clean'ed), or a placeholder */
    size_t first;     /* its events are eventlog.events[first .. first + count) */
    size_t count;
    uint64_t dropped;       /* all its drops, dropped_after included */
    uint64_t dropped_after; /* drops after its last event */
    uint64_t truncated;
};

struct eventlog {
    struct profile *p;             /* owned: the log's dictionaries, clock and damage */
    struct eventlog_event *events; /* grouped by thread */
    size_t nevents;
    struct eventlog_thread *threads; /* sorted by the time of their first event */
    size_t nthreads;
    char *strings;
    size_t strings_len;
    uint64_t first_ticks; /* the earliest event (valid when nevents > 0) */
    /* internal, while reading */
    uint64_t *event_thread; /* the THREAD id of each event, in read order */
    size_t events_cap, event_thread_cap, strings_cap;
    struct eventlog_pending *pending; /* drops waiting for a thread's next event */
    size_t npending, pending_cap;
    int failed; /* out of memory while reading */
};

/* What to show: threads whose name matches a regex, events inside a time window. */
struct eventlog_select {
    const regex_t *thread; /* NULL: every thread */
};

/* Statistics of the intervals from events numbered `from` to the next event of the same
 * thread when it is numbered `to` (both selected, no drop between them), in ns. */
struct eventlog_pair {
    int64_t from, to;
    uint64_t count;
    int64_t min, p50, p99, max; /* nearest-rank percentiles */
};

/* Reads the events of the log at path, with the window [from, to) applied (profile.h's
 * profile_time: NONE for no bound). Returns the event log, or NULL with a message in err
 * (the file, out of memory, an empty window). */
struct eventlog *eventlog_read(const char *path, const struct profile_time *from,
                               const struct profile_time *to, char *err, size_t errlen);

/* Frees everything; NULL is a no-op. */
void eventlog_free(struct eventlog *el);

/* Whether event i (an index into el->events) of thread t is selected: its thread matches and
 * it lies inside the window. */
int eventlog_selected(const struct eventlog *el, const struct eventlog_select *sel,
                      const struct eventlog_thread *t, size_t i);

/* Whether thread t is selected (its name matches). */
int eventlog_thread_selected(const struct eventlog *el, const struct eventlog_select *sel,
                             const struct eventlog_thread *t);

/* Nanoseconds from a to b (negative when b is earlier); 0 when the clock is unknown. */
int64_t eventlog_ns(const struct eventlog *el, uint64_t a, uint64_t b);

/* The interval table of the selection, sorted by (from, to): *out gets a malloc'ed array of
 * *n rows (the caller frees it). Returns 0 or -ENOMEM. */
int eventlog_pairs(const struct eventlog *el, const struct eventlog_select *sel,
                   struct eventlog_pair **out, size_t *n);

#endif
