/* out_hiccups.c: the hiccup report and series (out_hiccups.h). */
#include "out_hiccups.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fpl_format.h"

#define SUMMARY_STALLS 5

/* ns with 3 significant digits and a unit. */
static const char *dur(uint64_t ns, char *b, size_t len)
{
    static const char *const units[] = {"ns", "us", "ms", "s"};
    double v = (double)ns;
    int u = 0;
    while (u < 3 && v >= 999.5) {
        v /= 1000;
        u++;
    }
    snprintf(b, len, "%.3g%s", v, units[u]);
    return b;
}

/* Seconds after the log's start of a tick value. */
static double offset_s(const struct profile *p, uint64_t ticks)
{
    uint64_t base = p->have_header ? p->header.anchor_ticks : p->base_ticks;
    if (ticks >= base)
        return (double)profile_ticks_to_ns(p, ticks - base) / 1e9;
    return -(double)profile_ticks_to_ns(p, base - ticks) / 1e9;
}

/* Local clock time hh:mm:ss.mmm of a tick value. */
static const char *clock_of(const struct profile *p, uint64_t ticks, char *b, size_t len)
{
    uint64_t real = profile_ticks_to_real_ns(p, ticks);
    time_t sec = (time_t)(real / 1000000000ull);
    struct tm tm;
    char hms[16] = "?";
    if (real && localtime_r(&sec, &tm))
        strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
    snprintf(b, len, "%s.%03u", hms, (unsigned)(real / 1000000ull % 1000));
    return b;
}

static int cmp_longest(const void *a, const void *b)
{
    const struct hiccups_stall *x = *(const struct hiccups_stall *const *)a;
    const struct hiccups_stall *y = *(const struct hiccups_stall *const *)b;
    if (x->duration_ns != y->duration_ns)
        return x->duration_ns > y->duration_ns ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Why the stall got its cause, in a few words. */
static void why(const struct hiccups *h, const struct hiccups_stall *s, char *b, size_t len)
{
    char d1[16], d2[16];
    switch (s->cause) {
    case HICCUPS_GC: {
        const struct hiccups_gc *g = s->gc >= 0 ? &h->gcs[s->gc] : NULL;
        snprintf(b, len, "GC pause over %s of it%s%s%s", dur(s->gc_overlap_ns, d1, sizeof(d1)),
                 g && g->collector[0] ? " (" : "", g ? g->collector : "",
                 g && g->collector[0] ? ")" : "");
        break;
    }
    case HICCUPS_SAFEPOINT:
        snprintf(b, len, "%llu safepoint%s, %s (reaching them %s)",
                 (unsigned long long)s->safepoints, s->safepoints == 1 ? "" : "s",
                 dur(s->safepoint_ns, d1, sizeof(d1)), dur(s->sync_ns, d2, sizeof(d2)));
        break;
    case HICCUPS_OS_CPU:
        if (s->os_overlap_ns > s->run_delay_ns)
            snprintf(b, len, "the OS probe stalled %s of it too (run queue %s)",
                     dur(s->os_overlap_ns, d1, sizeof(d1)), dur(s->run_delay_ns, d2, sizeof(d2)));
        else
            snprintf(b, len, "waited %s in the run queue", dur(s->run_delay_ns, d1, sizeof(d1)));
        break;
    default:
        snprintf(b, len, "run queue %s, %llu safepoints, no GC",
                 dur(s->run_delay_ns, d1, sizeof(d1)), (unsigned long long)s->safepoints);
        if (!(s->flags & FPL_STALL_RUN_DELAY))
            snprintf(b, len, "no run-queue figures (no /proc schedstat)");
        break;
    }
}

/* The samples of a stall's window: the heaviest stacks by their leaf frames. */
static void write_samples(FILE *f, const struct profile *p, const struct hiccups_stall *s)
{
    if (!s->samples)
        return;
    fprintf(f, "               %llu sample%s in its window:", (unsigned long long)s->samples,
            s->samples == 1 ? "" : "s");
    for (size_t k = 0; k < s->nstacks; k++) {
        const struct profile_stack *st = profile_stack_find(p, s->stacks[k].stack_id);
        const struct profile_thread *th = profile_thread_find(p, s->stacks[k].thread_id);
        const char *leaf =
            st && st->nframes ? profile_frame_name(p, &st->frames[0]) : PROFILE_UNKNOWN_STACK;
        fprintf(f, "%s %s in %s (%llu)", k ? ";" : "", leaf,
                th ? th->display : PROFILE_UNKNOWN_THREAD, (unsigned long long)s->stacks[k].weight);
    }
    fputc('\n', f);
}

int out_hiccups_text(FILE *f, const struct profile *p, const struct hiccups *h, size_t top)
{
    char b1[16], b2[16], b3[16], b4[16], b5[16], b6[16];
    if (h->have_settings)
        fprintf(f, "Hiccups: probes woke every %s; a delay of %s or more is a stall\n",
                dur(h->resolution_ns, b1, sizeof(b1)), dur(h->threshold_ns, b2, sizeof(b2)));
    else
        fprintf(f, "Hiccups: no probe interval was read (the log was cut off early)\n");
    fprintf(f, "  %-5s %9s %8s %8s %8s %8s %7s %8s   %s\n", "probe", "wakeups", "p50", "p99",
            "p99.9", "max", "stalls", "stalled", "gc/safepoint/os-cpu/unknown");
    for (int k = 0; k < HICCUPS_PROBES; k++) {
        const struct hdr *t = h->total[k];
        if (!t || !h->wakeups[k])
            continue;
        fprintf(f, "  %-5s %9llu %8s %8s %8s %8s %7llu %8s   %llu/%llu/%llu/%llu\n",
                hiccups_probe_name(k), (unsigned long long)h->wakeups[k],
                dur(hdr_percentile(t, 50), b1, sizeof(b1)),
                dur(hdr_percentile(t, 99), b2, sizeof(b2)),
                dur(hdr_percentile(t, 99.9), b3, sizeof(b3)), dur(t->max, b4, sizeof(b4)),
                (unsigned long long)h->stalls_by_probe[k], dur(h->stalled_ns[k], b5, sizeof(b5)),
                (unsigned long long)h->by_cause[k][HICCUPS_GC],
                (unsigned long long)h->by_cause[k][HICCUPS_SAFEPOINT],
                (unsigned long long)h->by_cause[k][HICCUPS_OS_CPU],
                (unsigned long long)h->by_cause[k][HICCUPS_UNKNOWN]);
    }
    uint64_t longest = 0;
    const char *longest_name = "";
    for (size_t i = 0; i < h->ngcs; i++) {
        uint64_t d = profile_ticks_to_ns(p, h->gcs[i].end - h->gcs[i].start);
        if (d > longest) {
            longest = d;
            longest_name = h->gcs[i].collector;
        }
    }
    fprintf(f, "  JVM: %zu GC pause%s, %s in all", h->ngcs, h->ngcs == 1 ? "" : "s",
            dur(h->gc_ns, b1, sizeof(b1)));
    if (h->ngcs)
        fprintf(f, ", the longest %s%s%s%s", dur(longest, b2, sizeof(b2)),
                longest_name[0] ? " (" : "", longest_name, longest_name[0] ? ")" : "");
    if (h->have_safepoints)
        fprintf(f, "; %llu safepoints, %s (reaching them %s)", (unsigned long long)h->safepoints,
                dur(h->safepoint_ns, b3, sizeof(b3)), dur(h->sync_ns, b4, sizeof(b4)));
    else
        fprintf(f, "; safepoints unknown (no PerfData)");
    if (h->have_steal)
        fprintf(f, "; steal %s", dur(h->steal_ns, b5, sizeof(b5)));
    fputc('\n', f);
    if (h->stalls_dropped || h->gcs_dropped)
        fprintf(f,
                "  warning: %llu stalls and %llu GC pauses were lost (the agent's writer fell "
                "behind)\n",
                (unsigned long long)h->stalls_dropped, (unsigned long long)h->gcs_dropped);
    if (!h->nstalls) {
        fprintf(f, "  no stalls\n");
        return ferror(f) ? -EIO : 0;
    }
    const struct hiccups_stall **order = malloc(h->nstalls * sizeof(*order));
    if (!order)
        return -ENOMEM;
    for (size_t i = 0; i < h->nstalls; i++)
        order[i] = &h->stalls[i];
    qsort(order, h->nstalls, sizeof(*order), cmp_longest);
    size_t n = top < h->nstalls ? top : h->nstalls;
    if (!n) {
        fprintf(f, "  %zu stall%s\n", h->nstalls, h->nstalls == 1 ? "" : "s");
        free(order);
        return ferror(f) ? -EIO : 0;
    }
    fprintf(f, "  The %zu longest stall%s of %zu:\n", n, n == 1 ? "" : "s", h->nstalls);
    fprintf(f, "    %9s %-12s %8s %-5s %-9s %s\n", "at (s)", "clock", "length", "probe", "cause",
            "why");
    for (size_t i = 0; i < n; i++) {
        const struct hiccups_stall *s = order[i];
        char w[256];
        why(h, s, w, sizeof(w));
        fprintf(f, "    %9.3f %-12s %8s %-5s %-9s %s\n", offset_s(p, s->start),
                clock_of(p, s->start, b6, sizeof(b6)), dur(s->duration_ns, b1, sizeof(b1)),
                hiccups_probe_name(s->probe), hiccups_cause_name(s->cause), w);
        write_samples(f, p, s);
    }
    free(order);
    return ferror(f) ? -EIO : 0;
}

int out_hiccups_export(const struct profile *p, const struct hiccups *h, struct exporter *e,
                       char *err, size_t errlen)
{
    /* intervals are sorted by probe, then start: merge the probes into time order */
    size_t at[HICCUPS_PROBES], end[HICCUPS_PROBES], i = 0;
    for (int k = 0; k < HICCUPS_PROBES; k++) {
        at[k] = i;
        while (i < h->nintervals && h->intervals[i].probe == k)
            i++;
        end[k] = i;
    }
    for (;;) {
        int pick = -1;
        for (int k = 0; k < HICCUPS_PROBES; k++) {
            if (at[k] < end[k] &&
                (pick < 0 || h->intervals[at[k]].start < h->intervals[at[pick]].start))
                pick = k;
        }
        if (pick < 0)
            break;
        const struct hiccups_interval *iv = &h->intervals[at[pick]++];
        uint64_t len = profile_ticks_to_ns(p, iv->end - iv->start);
        struct export_point pt = {
            .probe = hiccups_probe_name(iv->probe),
            .start_ns = profile_ticks_to_real_ns(p, iv->start),
            .length_ns = len,
            .hist = iv->hist,
            .max_time_ns = profile_ticks_to_real_ns(p, iv->max_ticks),
            .stalled_pct = len ? 100.0 * (double)iv->stalled_ns / (double)len : 0,
            .gc_ms = (double)iv->gc_ns / 1e6,
            .safepoint_ms = iv->have_safepoints ? (double)iv->safepoint_ns / 1e6 : -1,
        };
        int rc = export_point(e, &pt, err, errlen);
        if (rc)
            return rc;
    }
    return 0;
}

int out_hiccups_stalls_csv(FILE *f, const struct profile *p, const struct hiccups *h)
{
    fprintf(f, "start,end,duration_ns,probe,cause,gc_overlap_ns,os_overlap_ns,run_delay_ns,"
               "safepoints,safepoint_ns,samples\n");
    for (size_t i = 0; i < h->nstalls; i++) {
        const struct hiccups_stall *s = &h->stalls[i];
        fprintf(f, "%llu,%llu,%llu,%s,%s,%llu,%llu,%llu,%llu,%llu,%llu\n",
                (unsigned long long)profile_ticks_to_real_ns(p, s->start),
                (unsigned long long)profile_ticks_to_real_ns(p, s->end),
                (unsigned long long)s->duration_ns, hiccups_probe_name(s->probe),
                hiccups_cause_name(s->cause), (unsigned long long)s->gc_overlap_ns,
                (unsigned long long)s->os_overlap_ns, (unsigned long long)s->run_delay_ns,
                (unsigned long long)s->safepoints, (unsigned long long)s->safepoint_ns,
                (unsigned long long)s->samples);
    }
    return ferror(f) ? -EIO : 0;
}

/* "p50_ns":N,"p99_ns":N,"p999_ns":N,"max_ns":N of a probe's delays. */
static void json_percentiles(FILE *f, const struct hdr *t)
{
    static const struct hdr empty = {.min = UINT64_MAX};
    if (!t)
        t = &empty;
    fprintf(f, "\"p50_ns\":%llu,\"p99_ns\":%llu,\"p999_ns\":%llu,\"max_ns\":%llu",
            (unsigned long long)hdr_percentile(t, 50), (unsigned long long)hdr_percentile(t, 99),
            (unsigned long long)hdr_percentile(t, 99.9), (unsigned long long)t->max);
}

int out_hiccups_json(FILE *f, const struct profile *p, const struct hiccups *h)
{
    if (!h->present) {
        fputs("null", f);
        return ferror(f) ? -EIO : 0;
    }
    fprintf(f, "{\"resolution_ns\":%llu,\"threshold_ns\":%llu,",
            (unsigned long long)h->resolution_ns, (unsigned long long)h->threshold_ns);
    json_percentiles(f, h->total[FPL_PROBE_JAVA]);
    fputs(",\"os\":{", f);
    json_percentiles(f, h->total[FPL_PROBE_OS]);
    fprintf(f, "},\"gc_pauses\":%zu,\"gc_ns\":%llu,", h->ngcs, (unsigned long long)h->gc_ns);
    if (h->have_safepoints)
        fprintf(f, "\"safepoints\":%llu,\"safepoint_ns\":%llu,", (unsigned long long)h->safepoints,
                (unsigned long long)h->safepoint_ns);
    else
        fputs("\"safepoints\":null,\"safepoint_ns\":null,", f);
    fputs("\"stalls\":[", f);
    for (size_t i = 0; i < h->nstalls; i++) {
        const struct hiccups_stall *s = &h->stalls[i];
        fprintf(f, "%s{\"start_ns\":%llu,\"duration_ns\":%llu,\"probe\":\"%s\",\"cause\":\"%s\"}",
                i ? "," : "", (unsigned long long)profile_ticks_to_real_ns(p, s->start),
                (unsigned long long)s->duration_ns, hiccups_probe_name(s->probe),
                hiccups_cause_name(s->cause));
    }
    fputs("]}", f);
    return ferror(f) ? -EIO : 0;
}

int out_hiccups_summary(FILE *f, const struct profile *p, const char *path, char *err,
                        size_t errlen)
{
    /* a log whose header shows no hiccup option has none: spare the second read */
    if (p->have_header && p->header.options && !strstr(p->header.options, "hiccup") &&
        !strstr(p->header.options, "stall="))
        return 0;
    struct hiccups h;
    int rc = hiccups_read(&h, p, path, err, errlen);
    if (rc)
        return rc;
    if (h.present) {
        fputc('\n', f);
        rc = out_hiccups_text(f, p, &h, SUMMARY_STALLS);
        if (rc)
            snprintf(err, errlen, "writing the hiccups: %s", strerror(-rc));
    }
    hiccups_free(&h);
    return rc;
}
