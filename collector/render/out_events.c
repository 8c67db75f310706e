/* out_events.c: `flyprof events` as text or CSV (see out_events.h). */
#include "out_events.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fpl_format.h"

/* A cleaned string: 63 UTF-16 units take at most 189 bytes; cleaning may grow a byte to 3. */
#define CLEAN_MAX 1024

static int done(FILE *f, char *err, size_t errlen)
{
    errno = 0;
    if (fflush(f) != 0 || ferror(f)) {
        int rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "events: write failed: %s", strerror(-rc));
        return rc;
    }
    return 0;
}

static const char *event_str(const struct eventlog *el, const struct eventlog_event *e, char *buf,
                             size_t len)
{
    profile_clean_text(buf, len, el->strings + e->str_off, e->str_len);
    return buf;
}

static void heading(const struct eventlog *el, const struct out_events_opts *o, FILE *f)
{
    const struct profile_events *t = &el->p->events;
    fprintf(f,
            "events of %s: %" PRIu64 " recorded, %" PRIu64 " dropped, %" PRIu64
            " truncated, on %zu threads\n",
            o->name ? o->name : "the log", t->recorded, t->dropped, t->truncated, el->nthreads);
    if (!el->nevents)
        return;
    if (!el->p->time_known) {
        fprintf(f, "no clock information (header lost): times are raw ticks\n");
        return;
    }
    uint64_t real = profile_ticks_to_real_ns(el->p, el->first_ticks);
    time_t sec = (time_t)(real / 1000000000ull);
    struct tm tm;
    char when[64] = "?";
    if (localtime_r(&sec, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
    fprintf(f, "times in ns since the first event (%s.%09llu, %.6f s after the start)\n", when,
            (unsigned long long)(real % 1000000000ull),
            (double)eventlog_ns(el, el->p->base_ticks, el->first_ticks) / 1e9);
    const struct profile_window *w = &el->p->window;
    if (w->set && w->resolved) {
        fprintf(f, "window: from %.6f s", w->has_from ? (double)w->from_ns / 1e9 : 0.0);
        if (w->has_to)
            fprintf(f, " to %.6f s", (double)w->to_ns / 1e9);
        fprintf(f, " after the start\n");
    }
}

/* The time of an event and its distance from the previous one, as text ("-" when none). */
static void times(const struct eventlog *el, const struct eventlog_thread *t, size_t i, char *tbuf,
                  size_t tlen, char *dbuf, size_t dlen)
{
    const struct eventlog_event *e = &el->events[i];
    if (el->p->time_known)
        snprintf(tbuf, tlen, "%" PRId64, eventlog_ns(el, el->first_ticks, e->ticks));
    else
        snprintf(tbuf, tlen, "%" PRIu64, e->ticks - el->first_ticks);
    if (i == t->first) {
        snprintf(dbuf, dlen, "-");
        return;
    }
    uint64_t prev = el->events[i - 1].ticks;
    if (el->p->time_known)
        snprintf(dbuf, dlen, "%" PRId64, eventlog_ns(el, prev, e->ticks));
    else
        snprintf(dbuf, dlen, "%" PRId64, (int64_t)(e->ticks - prev));
}

static void table(const struct eventlog_pair *p, size_t n, FILE *f)
{
    fprintf(f, "\nintervals between consecutive events of a thread (n -> next n), ns\n");
    if (!n) {
        fprintf(f, "  none (no two consecutive events selected without a drop between them)\n");
        return;
    }
    fprintf(f, "  %11s %11s %10s %12s %12s %12s %12s\n", "from", "to", "count", "min", "p50", "p99",
            "max");
    for (size_t i = 0; i < n; i++)
        fprintf(f,
                "  %11" PRId64 " %11" PRId64 " %10" PRIu64 " %12" PRId64 " %12" PRId64 " %12" PRId64
                " %12" PRId64 "\n",
                p[i].from, p[i].to, p[i].count, p[i].min, p[i].p50, p[i].p99, p[i].max);
}

int out_events_text(const struct eventlog *el, const struct out_events_opts *o, FILE *f, char *err,
                    size_t errlen)
{
    char s[CLEAN_MAX], tb[32], db[32];
    heading(el, o, f);
    for (size_t k = 0; k < el->nthreads && !o->table_only; k++) {
        const struct eventlog_thread *t = &el->threads[k];
        if (!eventlog_thread_selected(el, o->sel, t))
            continue;
        size_t shown = 0;
        for (size_t i = t->first; i < t->first + t->count; i++) {
            if (!eventlog_selected(el, o->sel, t, i))
                continue;
            if (!shown++)
                fprintf(f,
                        "\nthread %s (tid %" PRIu64 "): %zu events, %" PRIu64 " dropped, %" PRIu64
                        " truncated\n",
                        t->name, t->os_tid, t->count, t->dropped, t->truncated);
            const struct eventlog_event *e = &el->events[i];
            if (e->dropped)
                fprintf(f, "  [%" PRIu64 " events dropped]\n", e->dropped);
            times(el, t, i, tb, sizeof(tb), db, sizeof(db));
            fprintf(f, "  %s (%s): %" PRId64 "%s%s%s\n", tb, db, e->n,
                    e->flags & FPL_EVENT_STRING ? " " : "",
                    e->flags & FPL_EVENT_STRING ? event_str(el, e, s, sizeof(s)) : "",
                    e->flags & FPL_EVENT_TRUNCATED ? "..." : "");
        }
        if (!shown && !el->p->window.set && t->dropped_after)
            fprintf(f, "\nthread %s (tid %" PRIu64 "): 0 events, %" PRIu64 " dropped\n", t->name,
                    t->os_tid, t->dropped);
        if (t->dropped_after && (shown || !el->p->window.set) &&
            (!t->count || eventlog_selected(el, o->sel, t, t->first + t->count - 1)))
            fprintf(f, "  [%" PRIu64 " events dropped after the last one]\n", t->dropped_after);
    }
    struct eventlog_pair *pairs = NULL;
    size_t n = 0;
    if (eventlog_pairs(el, o->sel, &pairs, &n) != 0) {
        snprintf(err, errlen, "events: out of memory");
        return -ENOMEM;
    }
    table(pairs, n, f);
    free(pairs);
    return done(f, err, errlen);
}

/* Writes s as one CSV field, quoted when it holds a comma, quote, or line break. */
static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int out_events_csv(const struct eventlog *el, const struct out_events_opts *o, FILE *f, char *err,
                   size_t errlen)
{
    char s[CLEAN_MAX], tb[32], db[32];
    fputs("thread,tid,time_ns,delta_ns,n,string,truncated,dropped_before\n", f);
    for (size_t k = 0; k < el->nthreads; k++) {
        const struct eventlog_thread *t = &el->threads[k];
        if (!eventlog_thread_selected(el, o->sel, t))
            continue;
        int any = 0;
        for (size_t i = t->first; i < t->first + t->count; i++) {
            if (!eventlog_selected(el, o->sel, t, i))
                continue;
            const struct eventlog_event *e = &el->events[i];
            times(el, t, i, tb, sizeof(tb), db, sizeof(db));
            csv_field(f, t->name);
            fprintf(f, ",%" PRIu64 ",%s,%s,%" PRId64 ",", t->os_tid, tb, strcmp(db, "-") ? db : "",
                    e->n);
            if (e->flags & FPL_EVENT_STRING)
                csv_field(f, event_str(el, e, s, sizeof(s)));
            fprintf(f, ",%d,%" PRIu64 "\n", (e->flags & FPL_EVENT_TRUNCATED) != 0, e->dropped);
            any = 1;
        }
        if (t->dropped_after && (any || !el->p->window.set)) {
            csv_field(f, t->name);
            fprintf(f, ",%" PRIu64 ",,,,,0,%" PRIu64 "\n", t->os_tid, t->dropped_after);
        }
    }
    return done(f, err, errlen);
}
