/* summary.c: the text summary of a profile (see summary.h). */
#include "summary.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SUMMARY_THREADS 20 /* rows in a thread table */

/* Names of frames, deduplicated, so overloads and different bcis of one method are one row.
 * Ids 0..2 are the placeholders for undefined references and empty stacks. */
enum { NAME_UNKNOWN, NAME_UNKNOWN_STACK, NAME_EMPTY, NAME_FIRST };

struct names {
    const char **name; /* id -> name */
    size_t n;
    uint32_t *of_method; /* method index -> id */
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return h ^ (h >> 29);
}

static void names_destroy(struct names *nm)
{
    free(nm->name);
    free(nm->of_method);
}

static int names_build(const struct profile *p, struct names *nm)
{
    size_t cap = 64;
    while (cap < 2 * (p->nmethods + NAME_FIRST))
        cap *= 2;
    uint32_t *slots = calloc(cap, sizeof(*slots));
    nm->name = malloc((p->nmethods + NAME_FIRST) * sizeof(*nm->name));
    nm->of_method = malloc((p->nmethods + 1) * sizeof(*nm->of_method));
    if (!slots || !nm->name || !nm->of_method) {
        free(slots);
        names_destroy(nm);
        return -ENOMEM;
    }
    nm->name[NAME_UNKNOWN] = PROFILE_UNKNOWN_FRAME;
    nm->name[NAME_UNKNOWN_STACK] = PROFILE_UNKNOWN_STACK;
    nm->name[NAME_EMPTY] = PROFILE_EMPTY_STACK;
    nm->n = NAME_FIRST;
    for (size_t m = 0; m < p->nmethods; m++) {
        const char *s = p->methods[m].display;
        size_t i = (size_t)hash_str(s) & (cap - 1);
        while (slots[i] && strcmp(nm->name[slots[i] - 1], s) != 0)
            i = (i + 1) & (cap - 1);
        if (!slots[i]) {
            nm->name[nm->n] = s;
            slots[i] = (uint32_t)++nm->n;
        }
        nm->of_method[m] = slots[i] - 1;
    }
    free(slots);
    return 0;
}

static uint32_t frame_name(const struct names *nm, const struct profile_frame *f)
{
    return f->method == PROFILE_NONE ? NAME_UNKNOWN : nm->of_method[f->method];
}

/* A row while ranking: the exact (fixed-point) weight, rounded only for display. */
struct method_row {
    const char *name;
    unsigned __int128 fp;
};

static int cmp_method(const void *a, const void *b)
{
    const struct method_row *x = a, *y = b;
    if (x->fp != y->fp)
        return x->fp < y->fp ? 1 : -1;
    return strcmp(x->name, y->name);
}

int summary_top_methods(const struct profile *p, int kind, int total, struct summary_method *out,
                        size_t max, size_t *n)
{
    struct names nm = {0};
    unsigned __int128 *w = NULL;
    uint64_t *stamp = NULL;
    struct method_row *rows = NULL;
    int rc = names_build(p, &nm);

    *n = 0;
    if (rc)
        return rc;
    w = calloc(nm.n, sizeof(*w));
    stamp = calloc(nm.n, sizeof(*stamp));
    rows = malloc(nm.n * sizeof(*rows));
    if (!w || !stamp || !rows) {
        rc = -ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kind != kind)
            continue;
        if (e->stack == PROFILE_NONE || p->stacks[e->stack].nframes == 0) {
            profile_fp_add(&w[e->stack == PROFILE_NONE ? NAME_UNKNOWN_STACK : NAME_EMPTY],
                           e->upscaled);
            continue;
        }
        const struct profile_stack *st = &p->stacks[e->stack];
        if (!total) {
            profile_fp_add(&w[frame_name(&nm, &st->frames[0])], e->upscaled);
            continue;
        }
        /* a recursive method counts once per sample: stamp each name with this cell */
        for (uint32_t k = 0; k < st->nframes; k++) {
            uint32_t id = frame_name(&nm, &st->frames[k]);
            if (stamp[id] != i + 1) {
                stamp[id] = i + 1;
                profile_fp_add(&w[id], e->upscaled);
            }
        }
    }
    size_t nrows = 0;
    for (size_t id = 0; id < nm.n; id++) {
        if (w[id])
            rows[nrows++] = (struct method_row){nm.name[id], w[id]};
    }
    qsort(rows, nrows, sizeof(*rows), cmp_method);
    *n = nrows < max ? nrows : max;
    for (size_t i = 0; i < *n; i++)
        out[i] = (struct summary_method){rows[i].name, profile_fp_round(rows[i].fp),
                                         profile_fp_double(rows[i].fp)};
out:
    free(rows);
    free(stamp);
    free(w);
    names_destroy(&nm);
    return rc;
}

uint64_t summary_hist_quantile(const struct profile *p, double q)
{
    uint64_t n = 0, cum = 0;
    if (!p->have_hist)
        return 0;
    for (unsigned i = 0; i < FPL_HIST_BUCKETS; i++)
        n += p->hist[i];
    if (!n)
        return 0;
    double target = q * (double)n;
    for (unsigned i = 0; i < FPL_HIST_BUCKETS; i++) {
        uint64_t c = p->hist[i];
        if (!c || (double)(cum + c) < target) {
            cum += c;
            continue;
        }
        uint64_t lo = fpl_hist_lower(i);
        uint64_t hi = i + 1 < FPL_HIST_BUCKETS ? fpl_hist_lower(i + 1) : p->hist_max_ns + 1;
        if (hi <= lo)
            hi = lo + 1;
        double frac = (target - (double)cum) / (double)c;
        if (frac < 0)
            frac = 0;
        uint64_t v = lo + (uint64_t)(frac * (double)(hi - lo));
        if (v >= hi)
            v = hi - 1;
        if (p->hist_max_ns >= lo && v > p->hist_max_ns)
            v = p->hist_max_ns;
        return v;
    }
    return p->hist_max_ns;
}

/* A time in ns as "10 ms", "1.500 ms", "250 us", with the largest unit that fits. */
static const char *fmt_ns(char *buf, size_t len, uint64_t ns)
{
    static const struct {
        uint64_t div;
        const char *unit;
    } u[] = {{1000000000ull, "s"}, {1000000ull, "ms"}, {1000ull, "us"}, {1, "ns"}};
    size_t i = 0;
    while (i < 3 && ns < u[i].div)
        i++;
    if (ns % u[i].div == 0)
        snprintf(buf, len, "%" PRIu64 " %s", ns / u[i].div, u[i].unit);
    else
        snprintf(buf, len, "%.3f %s", (double)ns / (double)u[i].div, u[i].unit);
    return buf;
}

/* A wall-clock time in ns since the epoch as ISO 8601 local time with milliseconds. */
static const char *fmt_real(char *buf, size_t len, uint64_t real_ns)
{
    time_t sec = (time_t)(real_ns / 1000000000ull);
    struct tm tm;
    char date[32], zone[8];
    if (!localtime_r(&sec, &tm) || !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm) ||
        !strftime(zone, sizeof(zone), "%z", &tm)) {
        snprintf(buf, len, "%" PRIu64 " ns since the epoch", real_ns);
        return buf;
    }
    /* %z gives +0200; ISO 8601 extended format wants +02:00 */
    snprintf(buf, len, "%s.%03u%.3s:%.2s", date, (unsigned)(real_ns / 1000000 % 1000), zone,
             zone + 3);
    return buf;
}

static double pct(uint64_t a, uint64_t b)
{
    return b ? 100.0 * (double)a / (double)b : 0.0;
}

static double pct_fp(unsigned __int128 a, unsigned __int128 b)
{
    return b ? 100.0 * profile_fp_double(a) / profile_fp_double(b) : 0.0;
}

static const char *engine_name(unsigned e)
{
    static const char *const names[] = {"none", "cputimer", "itimer", "perf"};
    return e < sizeof(names) / sizeof(names[0]) ? names[e] : "unknown";
}

static const char *state_name(unsigned s)
{
    static const char *const names[] = {"unknown",       "running", "blocked",  "waiting",
                                        "timed_waiting", "parked",  "sleeping", "native"};
    return s < sizeof(names) / sizeof(names[0]) ? names[s] : "other";
}

static const char *kind_name(int kind)
{
    return kind == FPL_KIND_CPU ? "cpu" : "wall";
}

/* The profile's duration and where it was measured from; 0 when unknown. */
static uint64_t duration_ns(const struct profile *p, const char **how)
{
    if (p->end_seen && p->have_header && p->time_known && p->end_ticks > p->header.anchor_ticks) {
        *how = "start to END";
        return profile_ticks_to_ns(p, p->end_ticks - p->header.anchor_ticks);
    }
    if (p->samples && p->time_known) {
        *how = "first to last sample";
        return profile_ticks_to_ns(p, p->last_ticks - p->first_ticks);
    }
    *how = "unknown";
    return 0;
}

static void write_header(const struct profile *p, const char *name, FILE *f)
{
    const struct profile_header *h = &p->header;
    char a[64], b[64];
    const char *how;
    uint64_t dur = duration_ns(p, &how);

    fprintf(f, "flyprof summary of %s\n", name);
    if (p->have_header) {
        fprintf(f, "  jvm          %s %s\n", h->jvm_name[0] ? h->jvm_name : "(unknown)",
                h->jvm_version);
        fprintf(f, "  command      %s\n", h->command[0] ? h->command : "(unknown)");
        fprintf(f, "  pid          %" PRIu64 "\n", h->pid);
        fprintf(f, "  started      %s\n", fmt_real(a, sizeof(a), h->anchor_real_ns));
    } else {
        fprintf(f, "  header       missing (its chunk was damaged or lost): jvm, command, pid "
                   "and start time unknown\n");
    }
    if (p->time_known)
        fprintf(f, "  duration     %.3f s (%s)\n", (double)dur / 1e9, how);
    else
        fprintf(f, "  duration     unknown (no clock information)\n");
    if (p->have_header) {
        fprintf(f, "  sampling    ");
        if (h->cpu_interval_ns)
            fprintf(f, " cpu every %s (engine %s)", fmt_ns(a, sizeof(a), h->cpu_interval_ns),
                    engine_name(h->engine));
        if (h->wall_interval_ns)
            fprintf(f, "%s wall every %s (%" PRIu64 " threads per tick)",
                    h->cpu_interval_ns ? "," : "", fmt_ns(b, sizeof(b), h->wall_interval_ns),
                    h->wall_threads);
        if (!h->cpu_interval_ns && !h->wall_interval_ns)
            fprintf(f, " off");
        fprintf(f, ", depth %" PRIu64 "\n", h->depth);
        if (h->options[0])
            fprintf(f, "  options      %s\n", h->options);
    }
    if (p->time_known)
        fprintf(f, "  clock        %s, %.6f GHz%s\n",
                !p->have_header                   ? "clock unknown"
                : h->clock == FPL_CLOCK_MONOTONIC ? "monotonic"
                                                  : "tsc",
                profile_ticks_per_sec(p) / 1e9,
                p->time_refined ? " (measured between anchors)" : " (header)");
}

/* Counts samples whose stack, thread or frames point at undefined dictionary ids. */
static void count_dangling(const struct profile *p, uint64_t *stacks, uint64_t *threads,
                           uint64_t *frames, uint64_t *markers, uint64_t *marker_by_kind)
{
    *stacks = *threads = *frames = *markers = 0;
    marker_by_kind[0] = marker_by_kind[1] = 0;
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->thread == PROFILE_NONE)
            *threads += e->count;
        if (e->stack == PROFILE_NONE) {
            *stacks += e->count;
            continue;
        }
        const struct profile_stack *st = &p->stacks[e->stack];
        for (uint32_t k = 0; k < st->nframes; k++) {
            if (st->frames[k].method == PROFILE_NONE) {
                *frames += e->count;
                break;
            }
        }
        /* a thread with no Java frames (a JVM service thread) was sampled, not mis-walked */
        if (st->nframes && profile_frame_is_marker(p, &st->frames[0]) &&
            strcmp(profile_frame_name(p, &st->frames[0]), "[no_Java_frames]") != 0) {
            *markers += e->count;
            marker_by_kind[e->kind] += e->count;
        }
    }
}

/* What the wall ticks say: how many threads each stood for and how the samples were
 * upscaled. */
static void write_wall_ticks(const struct profile *p, FILE *f)
{
    const struct profile_wall *w = &p->wall;
    if (!w->ticks && !p->total[FPL_KIND_WALL].count)
        return;
    fprintf(f, "  wall ticks: %" PRIu64, w->ticks);
    if (w->ticks)
        fprintf(f,
                ", on average %.2f candidate threads and %.2f chosen per tick; %" PRIu64
                " threads signaled, %" PRIu64 " signals failed",
                (double)w->candidates / (double)w->ticks, (double)w->chosen / (double)w->ticks,
                w->signaled, w->failed);
    fprintf(f, "\n");
    fprintf(f, "  wall upscaling: %" PRIu64 " samples scaled by candidates / chosen of their tick",
            w->scaled);
    if (w->no_tick)
        fprintf(f, ", %" PRIu64 " without a tick (x1)", w->no_tick);
    if (w->unknown_tick)
        fprintf(f, ", %" PRIu64 " whose tick was lost (x1)", w->unknown_tick);
    if (w->bad_tick)
        fprintf(f, ", %" PRIu64 " whose tick has impossible counts (x1)", w->bad_tick);
    if (w->duplicate_ticks)
        fprintf(f, "; %" PRIu64 " repeated tick ids ignored", w->duplicate_ticks);
    fprintf(f, "\n");
}

static void write_samples(const struct profile *p, FILE *f)
{
    const struct profile_header *h = &p->header;
    uint64_t dstacks, dthreads, dframes, markers, mk[PROFILE_KINDS];
    char a[64];

    count_dangling(p, &dstacks, &dthreads, &dframes, &markers, mk);
    fprintf(f, "\nsamples\n");
    if (!p->samples)
        fprintf(f, "  none\n");
    for (int k = 0; k < PROFILE_KINDS; k++) {
        const struct profile_total *t = &p->total[k];
        if (!t->count)
            continue;
        fprintf(f, "  %-4s  %10" PRIu64 " samples, weight %" PRIu64, kind_name(k), t->count,
                t->weight);
        if (k == FPL_KIND_CPU && h->cpu_interval_ns)
            fprintf(f, " (%.3f s of CPU at %s)",
                    (double)t->weight * (double)h->cpu_interval_ns / 1e9,
                    fmt_ns(a, sizeof(a), h->cpu_interval_ns));
        if (k == FPL_KIND_WALL) {
            fprintf(f, ", upscaled %.2f", profile_fp_double(t->upscaled));
            if (h->wall_interval_ns)
                fprintf(f, " (%.3f thread-seconds at %s)",
                        profile_fp_double(t->upscaled) * (double)h->wall_interval_ns / 1e9,
                        fmt_ns(a, sizeof(a), h->wall_interval_ns));
        }
        fprintf(f, ", %.2f%% failed stack walks (marker leaf)\n", pct(mk[k], t->count));
    }
    if (p->total[FPL_KIND_WALL].count) {
        unsigned __int128 by_state[9] = {0};
        for (size_t i = 0; i < p->nentries; i++) {
            const struct profile_entry *e = &p->entries[i];
            if (e->kind == FPL_KIND_WALL)
                by_state[e->state < 8 ? e->state : 8] += e->upscaled;
        }
        fprintf(f, "  wall by thread state (upscaled):");
        for (unsigned s = 0; s < 9; s++) {
            if (by_state[s])
                fprintf(f, " %s %.1f%%", state_name(s),
                        pct_fp(by_state[s], p->total[FPL_KIND_WALL].upscaled));
        }
        fprintf(f, "\n");
    }
    write_wall_ticks(p, f);
    if (p->unknown_kind_samples)
        fprintf(f, "  %" PRIu64 " samples of an unknown kind ignored\n", p->unknown_kind_samples);
    if (dstacks || dthreads || dframes)
        fprintf(f,
                "  undefined references (their dictionary chunk was lost): %" PRIu64
                " samples with an unknown stack, %" PRIu64 " with an unknown frame, %" PRIu64
                " with an unknown thread\n",
                dstacks, dframes, dthreads);
}

/* The signal-hygiene counters, each only when it says something. */
static void write_signals(const uint64_t *c, FILE *f)
{
    if (c[FPL_CTR_CPU_SIGNO] && c[FPL_CTR_CPU_SIGNO] != SIGPROF)
        fprintf(f, "  CPU signal: %" PRIu64 ", a free real-time signal (SIGPROF has another "
                   "handler, left alone)\n", c[FPL_CTR_CPU_SIGNO]);
    if (c[FPL_CTR_HANDLER_LOST])
        fprintf(f, "  WARNING: another library replaced %" PRIu64 " of flyprof's signal "
                   "handlers during the profile; the engines using them stopped there\n",
                c[FPL_CTR_HANDLER_LOST]);
    if (c[FPL_CTR_FOREIGN_SIGNALS])
        fprintf(f, "  signals that were not flyprof's, passed on: %" PRIu64 "\n",
                c[FPL_CTR_FOREIGN_SIGNALS]);
    if (c[FPL_CTR_HANDLER_NESTED])
        fprintf(f, "  handler re-entries on one thread (not walked): %" PRIu64 "\n",
                c[FPL_CTR_HANDLER_NESTED]);
    if (c[FPL_CTR_WALL_IDLE])
        fprintf(f, "  wall samples of threads that had not run since their last one, repeated "
                   "without a signal: %" PRIu64 "\n", c[FPL_CTR_WALL_IDLE]);
    if (c[FPL_CTR_WALL_UNTAKEN])
        fprintf(f, "  wall signals not sent: the one before was still queued (thread waiting "
                   "for a core, or blocking signals): %" PRIu64 "\n", c[FPL_CTR_WALL_UNTAKEN]);
}

static void write_failures(const struct profile *p, FILE *f)
{
    const uint64_t *c = p->counters;
    int any = 0;
    for (int i = 0; i < FPL_CTR_MAX; i++)
        any |= p->counter_seen[i];
    fprintf(f, "\nfailures and drops\n");
    if (!any) {
        fprintf(f, "  no counters in the log\n");
        return;
    }
    uint64_t agct = 0;
    for (int n = 0; n < FPL_AGCT_CODES && FPL_CTR_AGCT_BASE + n < FPL_CTR_MAX; n++)
        agct += c[FPL_CTR_AGCT_BASE + n];
    fprintf(f, "  signals handled %" PRIu64 " cpu, %" PRIu64 " wall; samples pushed %" PRIu64 "\n",
            c[FPL_CTR_SIGNALS], c[FPL_CTR_WALL_SIGNALS], c[FPL_CTR_SAMPLES]);
    if (c[FPL_CTR_WALL_WALKED])
        fprintf(f, "  wall samples of threads not in Java code, walked by the sampler (JVMTI): %"
                   PRIu64 "\n", c[FPL_CTR_WALL_WALKED]);
    fprintf(f, "  stack walks failed: %" PRIu64 " (%.2f%% of samples pushed)\n", agct,
            pct(agct, c[FPL_CTR_SAMPLES]));
    for (int n = 0; n < FPL_AGCT_CODES && FPL_CTR_AGCT_BASE + n < FPL_CTR_MAX; n++) {
        uint64_t v = c[FPL_CTR_AGCT_BASE + n];
        if (v)
            fprintf(f, "    %-22s %10" PRIu64 "  (AGCT %d)\n", fpl_agct_name(-n), v, -n);
    }
    if (c[FPL_CTR_AGCT_RECOVERED])
        fprintf(f,
                "  walks recovered from a JVM stub's caller frame: %" PRIu64
                " (charged to the Java caller)\n",
                c[FPL_CTR_AGCT_RECOVERED]);
    fprintf(f, "  ring drops: %" PRIu64 " (%.2f%% of samples taken)\n", c[FPL_CTR_RING_DROPS],
            pct(c[FPL_CTR_RING_DROPS], c[FPL_CTR_SAMPLES] + c[FPL_CTR_RING_DROPS]));
    fprintf(f, "  signals on threads without a JNIEnv: %" PRIu64 "\n", c[FPL_CTR_NO_ENV]);
    fprintf(f, "  timer errors: %" PRIu64 ", timer overruns folded into weights: %" PRIu64 "\n",
            c[FPL_CTR_TIMER_ERRORS], c[FPL_CTR_OVERRUNS]);
    write_signals(c, f);
}

static int write_methods(const struct profile *p, int kind, FILE *f)
{
    struct summary_method rows[SUMMARY_TOP];
    double all = profile_fp_double(p->total[kind].upscaled);
    size_t n;

    for (int total = 0; total < 2; total++) {
        int rc = summary_top_methods(p, kind, total, rows, SUMMARY_TOP, &n);
        if (rc)
            return rc;
        fprintf(f, "\nhottest methods, %s, by %s %sweight (of %" PRIu64 ")\n", kind_name(kind),
                total ? "total" : "self", kind == FPL_KIND_WALL ? "upscaled " : "",
                profile_fp_round(p->total[kind].upscaled));
        fprintf(f, "  %10s %7s  %s\n", "weight", "%", "method");
        for (size_t i = 0; i < n; i++)
            fprintf(f, "  %10" PRIu64 " %6.2f%%  %s\n", rows[i].weight,
                    all > 0 ? 100.0 * rows[i].exact / all : 0.0, rows[i].name);
    }
    return 0;
}

struct thread_row {
    const char *name;
    uint64_t tid;
    int known;
    unsigned __int128 weight; /* upscaled, fixed point */
    uint64_t count;
};

static int cmp_thread(const void *a, const void *b)
{
    const struct thread_row *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight < y->weight ? 1 : -1;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->tid > y->tid) - (x->tid < y->tid);
}

static int write_threads(const struct profile *p, int kind, FILE *f)
{
    /* row i for thread index i; the last row gathers undefined thread ids */
    size_t nrows = p->nthreads + 1, used = 0;
    struct thread_row *rows = calloc(nrows, sizeof(*rows));
    if (!rows)
        return -ENOMEM;
    for (size_t i = 0; i < p->nthreads; i++)
        rows[i] = (struct thread_row){p->threads[i].display, p->threads[i].os_tid, 1, 0, 0};
    rows[p->nthreads] = (struct thread_row){PROFILE_UNKNOWN_THREAD, 0, 0, 0, 0};
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kind != kind)
            continue;
        struct thread_row *r = &rows[e->thread == PROFILE_NONE ? p->nthreads : e->thread];
        profile_fp_add(&r->weight, e->upscaled);
        r->count += e->count;
    }
    for (size_t i = 0; i < nrows; i++) {
        if (rows[i].count)
            rows[used++] = rows[i];
    }
    qsort(rows, used, sizeof(*rows), cmp_thread);
    fprintf(f, "\nthreads, %s (%zu with samples)%s\n", kind_name(kind), used,
            kind == FPL_KIND_WALL ? ", by upscaled weight" : "");
    fprintf(f, "  %10s %7s %10s %8s  %s\n", "weight", "%", "samples", "tid", "name");
    for (size_t i = 0; i < used && i < SUMMARY_THREADS; i++) {
        const struct thread_row *r = &rows[i];
        char tid[24] = "-";
        if (r->known)
            snprintf(tid, sizeof(tid), "%" PRIu64, r->tid);
        fprintf(f, "  %10" PRIu64 " %6.2f%% %10" PRIu64 " %8s  %s\n", profile_fp_round(r->weight),
                pct_fp(r->weight, p->total[kind].upscaled), r->count, tid, r->name);
    }
    if (used > SUMMARY_THREADS)
        fprintf(f, "  ... %zu more threads\n", used - SUMMARY_THREADS);
    free(rows);
    return 0;
}

static void write_cost(const struct profile *p, FILE *f)
{
    char a[32], b[32], c[32], d[32];
    const char *how;
    uint64_t dur = duration_ns(p, &how);

    fprintf(f, "\nagent cost\n");
    if (p->have_hist) {
        uint64_t runs = 0;
        for (unsigned i = 0; i < FPL_HIST_BUCKETS; i++)
            runs += p->hist[i];
        fprintf(f,
                "  signal handler: p50 %s, p99 %s, max %s, mean %s over %" PRIu64
                " runs (percentiles interpolated inside histogram buckets)\n",
                fmt_ns(a, sizeof(a), summary_hist_quantile(p, 0.5)),
                fmt_ns(b, sizeof(b), summary_hist_quantile(p, 0.99)),
                fmt_ns(c, sizeof(c), p->hist_max_ns),
                fmt_ns(d, sizeof(d), runs ? p->hist_total_ns / runs : 0), runs);
    } else {
        fprintf(f, "  signal handler: no histogram in the log\n");
    }
    /* every agent thread's CPU, then the sum with the handler's: what the agent cost */
    static const struct {
        unsigned id;
        const char *what;
    } threads[] = {
        {FPL_CTR_WRITER_CPU_NS, "writer thread CPU"},
        {FPL_CTR_SAMPLER_CPU_NS, "wall sampler thread CPU"},
        {FPL_CTR_AGENT_OTHER_CPU_NS, "other agent threads CPU"},
    };
    uint64_t sum = p->have_hist ? p->hist_total_ns : 0;
    int parts = p->have_hist;
    for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
        if (!p->counter_seen[threads[i].id])
            continue;
        uint64_t w = p->counters[threads[i].id];
        fprintf(f, "  %s: %s", threads[i].what, fmt_ns(a, sizeof(a), w));
        if (dur)
            fprintf(f, " (%.3f%% of the %.3f s duration)", pct(w, dur), (double)dur / 1e9);
        fprintf(f, "\n");
        sum += w;
        parts++;
    }
    if (parts > 1) {
        fprintf(f, "  agent CPU in all (handler runs and agent threads): %s",
                fmt_ns(a, sizeof(a), sum));
        if (dur)
            fprintf(f, " (%.3f%% of the %.3f s duration)", pct(sum, dur), (double)dur / 1e9);
        fprintf(f, "\n");
    }
    fprintf(f, "  log size: %" PRIu64 " bytes", p->stats.file_bytes);
    if (p->samples)
        fprintf(f, ", %.1f bytes per sample", (double)p->stats.file_bytes / (double)p->samples);
    fprintf(f, "\n");
    if (p->counters[FPL_CTR_DICT_RESETS])
        fprintf(f, "  dictionaries reset: %" PRIu64 " times (the agent's memory bound; names "
                   "used afterwards were written again)\n", p->counters[FPL_CTR_DICT_RESETS]);
}

static void write_log(const struct profile *p, FILE *f)
{
    const struct reader_stats *s = &p->stats;

    fprintf(f, "\nlog\n");
    fprintf(f, "  chunks: %" PRIu64 " read", s->chunks_ok);
    if (s->chunks_damaged)
        fprintf(f, ", %" PRIu64 " damaged regions skipped (%" PRIu64 " bytes)", s->chunks_damaged,
                s->bytes_skipped);
    if (s->chunks_lost)
        fprintf(f, ", %" PRIu64 " lost (sequence gaps)", s->chunks_lost);
    if (s->chunks_truncated)
        fprintf(f, ", 1 cut off at the end (%" PRIu64 " bytes ignored)", s->bytes_truncated);
    if (s->chunks_bad_framing)
        fprintf(f, ", %" PRIu64 " ended early by a record running past the chunk",
                s->chunks_bad_framing);
    if (s->seq_errors)
        fprintf(f, ", %" PRIu64 " numbered before a chunk already read", s->seq_errors);
    fprintf(f, "\n");
    if (s->unknown_records)
        fprintf(f, "  %" PRIu64 " records of an unknown type skipped (written by a newer agent?)\n",
                s->unknown_records);
    if (s->bad_records)
        fprintf(f, "  %" PRIu64 " undecodable records skipped\n", s->bad_records);
    if (!p->end_seen)
        fprintf(f, "  log cut off: END record missing (the JVM crashed or is still running)\n");
    else if (s->chunks_damaged || s->chunks_lost || s->chunks_truncated || s->chunks_bad_framing ||
             s->bad_records)
        fprintf(f, "  the log is damaged: figures above miss the samples of the lost chunks\n");
}

int summary_write(const struct profile *p, const char *name, FILE *f, char *err, size_t errlen)
{
    int rc = 0;

    write_header(p, name, f);
    write_samples(p, f);
    write_failures(p, f);
    for (int k = 0; k < PROFILE_KINDS && rc == 0; k++) {
        if (p->total[k].count)
            rc = write_methods(p, k, f);
    }
    for (int k = 0; k < PROFILE_KINDS && rc == 0; k++) {
        if (p->total[k].count)
            rc = write_threads(p, k, f);
    }
    if (rc) {
        snprintf(err, errlen, "summary: out of memory");
        return rc;
    }
    write_cost(p, f);
    write_log(p, f);
    errno = 0;
    if (fflush(f) != 0 || ferror(f)) {
        rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "summary: write failed: %s", strerror(-rc));
    }
    return rc;
}
