/* summary.c: the text summary of a profile (see summary.h). */
#include "summary.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include "esc.h"
#include "fpl_codec.h"
#include "out_starvation.h"
#include "render.h"
#include "top.h"

#define SUMMARY_THREADS 20 /* rows in a thread table */

int summary_top_methods(const struct profile *p, int kind, int total, struct summary_method *out,
                        size_t max, size_t *n)
{
    struct render_opts o = {.kind = kind, .state = RENDER_STATE_ALL};
    struct render_select sel;
    struct top t;
    char err[64];
    *n = 0;
    if (render_select_init(&sel, p, &o, err, sizeof(err)) != 0)
        return -EINVAL;
    int rc = top_build(&t, p, &sel);
    render_select_destroy(&sel);
    if (rc)
        return rc;
    size_t rows;
    top_sort(&t, total, &rows);
    if (total)
        rows = t.n;
    *n = rows < max ? rows : max;
    for (size_t i = 0; i < *n; i++) {
        unsigned __int128 w = total ? t.rows[i].total : t.rows[i].self;
        out[i] = (struct summary_method){t.rows[i].name, profile_fp_round(w), profile_fp_double(w)};
    }
    top_destroy(&t);
    return 0;
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

/* By enum fpl_state, then the collector's own states (profile.h). */
static const char *state_name(unsigned s)
{
    static const char *const names[] = {"unknown", "running",  "blocked", "waiting",
                                        "timed_waiting", "parked", "sleeping", "native",
                                        "jvm_idle"};
    return s < sizeof(names) / sizeof(names[0]) ? names[s] : "other";
}

static const char *kind_name(int kind)
{
    return kind == FPL_KIND_CPU     ? "cpu"
           : kind == FPL_KIND_WALL  ? "wall"
           : kind == FPL_KIND_ALLOC ? "alloc"
           : kind == FPL_KIND_LOCK  ? "lock"
                                    : "live";
}

/* What a weight of kind counts, for headings. */
static const char *kind_unit(int kind)
{
    return kind == FPL_KIND_ALLOC  ? " (bytes allocated, estimated)"
           : kind == FPL_KIND_LIVE ? " (bytes still reachable at the end, estimated)"
           : kind == FPL_KIND_LOCK ? " (ns waited)"
                                   : "";
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
        fprintf(f, "  agent        flyprof %s\n",
                h->agent_version[0] ? h->agent_version : "(version not in the log)");
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

/* The marker frame that says a stack's walk failed, or NULL when it did not. A failed walk ends
 * in a marker frame: the stack's root-most frame, below the native frames the agent walked
 * before the Java walk failed (`[agct:unknown_Java];SharedRuntime::...;pthread_cond_signal` in
 * folded order), or its only frame; a marker leaf (`[unloaded]`) counts too. Not failures:
 * `[no_Java_frames]` (a thread without Java frames was sampled, not mis-walked) and
 * `[truncated]` (the root of a stack cut at depth frames). */
static const struct profile_frame *failed_walk(const struct profile *p,
                                               const struct profile_stack *st)
{
    if (!st->nframes)
        return NULL;
    const struct profile_frame *leaf = &st->frames[0], *root = &st->frames[st->nframes - 1];
    if (profile_frame_is_marker(p, root)) {
        const char *name = profile_frame_name(p, root);
        if (strcmp(name, "[no_Java_frames]") != 0 && strcmp(name, "[truncated]") != 0)
            return root;
    }
    if (profile_frame_is_marker(p, leaf) &&
        strcmp(profile_frame_name(p, leaf), "[no_Java_frames]") != 0)
        return leaf;
    return NULL;
}

/* Counts samples whose stack, thread or frames point at undefined dictionary ids, and the
 * samples whose stack walk failed (failed_walk), in all and by kind. */
static void count_dangling(const struct profile *p, uint64_t *stacks, uint64_t *threads,
                           uint64_t *frames, uint64_t *markers, uint64_t *marker_by_kind)
{
    *stacks = *threads = *frames = *markers = 0;
    for (int k = 0; k < PROFILE_KINDS; k++)
        marker_by_kind[k] = 0;
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
        if (failed_walk(p, st)) {
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

/* 1 for the profile convert --db made from ClickHouse's rows (collector/fleet/fleetlog.c): a
 * "sample" there is a row of sums, and its wall rows carry their upscaling as made-up ticks. */
static int from_fleet(const struct profile *p)
{
    return p->header.options && strncmp(p->header.options, "fleet:", 6) == 0;
}

static void write_samples(const struct profile *p, FILE *f)
{
    const struct profile_header *h = &p->header;
    uint64_t dstacks, dthreads, dframes, markers, mk[PROFILE_KINDS];
    char a[64];
    int fleet = from_fleet(p);

    count_dangling(p, &dstacks, &dthreads, &dframes, &markers, mk);
    fprintf(f, "\nsamples%s\n",
            fleet ? " (from ClickHouse: each row sums one minute of a host's samples of a stack, "
                    "thread and state)"
                  : "");
    if (!p->samples)
        fprintf(f, "  none\n");
    for (int k = 0; k < PROFILE_KINDS; k++) {
        const struct profile_total *t = &p->total[k];
        if (!t->count)
            continue;
        fprintf(f, "  %-5s %10" PRIu64 " %s, weight %" PRIu64, kind_name(k), t->count,
                fleet ? "rows" : "samples", t->weight);
        if (k == FPL_KIND_ALLOC)
            fprintf(f, " (%.1f MiB allocated, %" PRIu64 " objects, estimated)",
                    (double)t->weight / 1048576.0, t->objects);
        if (k == FPL_KIND_LOCK)
            fprintf(f, " (%.3f s waited for contended locks)", (double)t->weight / 1e9);
        if (k == FPL_KIND_LIVE)
            fprintf(f, " (%.1f MiB, %" PRIu64 " objects still reachable at the end, estimated)",
                    (double)t->weight / 1048576.0, t->objects);
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
        fprintf(f, ", %.2f%% failed stack walks (failure marker)\n", pct(mk[k], t->count));
    }
    if (p->total[FPL_KIND_WALL].count) {
        unsigned __int128 by_state[PROFILE_STATES] = {0};
        for (size_t i = 0; i < p->nentries; i++) {
            const struct profile_entry *e = &p->entries[i];
            if (e->kind == FPL_KIND_WALL)
                by_state[e->state < PROFILE_STATES ? e->state : PROFILE_STATE_OTHER] +=
                    e->upscaled;
        }
        fprintf(f, "  wall by thread state (upscaled):");
        for (unsigned s = 0; s < PROFILE_STATES; s++) {
            if (by_state[s])
                fprintf(f, " %s %.1f%%", state_name(s),
                        pct_fp(by_state[s], p->total[FPL_KIND_WALL].upscaled));
        }
        if (by_state[PROFILE_STATE_JVM_IDLE])
            fprintf(f, " (jvm_idle: the JVM's service threads waiting for work)");
        fprintf(f, "\n");
    }
    if (!fleet) /* its ticks are the rows' upscaling, not the sampler's */
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
    if (c[FPL_CTR_FAULTS_BLOCKED])
        fprintf(f, "  samples not walked inside another library's fault handler (a fault there "
                   "would end the JVM), kept as [faults_blocked]: %" PRIu64 "\n",
                c[FPL_CTR_FAULTS_BLOCKED]);
    if (c[FPL_CTR_OTHER_HANDLER])
        fprintf(f, "  samples not walked inside another profiler's signal handler (its fault "
                   "handler could jump out of flyprof's walk), kept as [other_handler]: %" PRIu64
                   "\n", c[FPL_CTR_OTHER_HANDLER]);
    if (c[FPL_CTR_PERF_FDS_HELD])
        fprintf(f, "  perf fds kept open on /dev/null (a handler run stopped while it used "
                   "them): %" PRIu64 "\n", c[FPL_CTR_PERF_FDS_HELD]);
    if (c[FPL_CTR_HANDLER_BUSY])
        fprintf(f, "  handler runs that found all %" PRIu64 " scratch buffers busy (not walked, "
                   "kept as [handler_busy]): %" PRIu64 "\n",
                c[FPL_CTR_SCRATCH_BUFFERS], c[FPL_CTR_HANDLER_BUSY]);
    if (c[FPL_CTR_WALL_IDLE])
        fprintf(f, "  wall samples of threads that had not run since their last one, repeated "
                   "without a signal: %" PRIu64 "\n", c[FPL_CTR_WALL_IDLE]);
    if (c[FPL_CTR_WALL_UNTAKEN])
        fprintf(f, "  wall signals not sent: the one before was still queued (thread waiting "
                   "for a core, or blocking signals): %" PRIu64 "\n", c[FPL_CTR_WALL_UNTAKEN]);
}

/* Events of dev.flyprof.Events, when the program logged any. */
static void write_events(const struct profile *p, FILE *f)
{
    const struct profile_events *e = &p->events;
    if (!e->recorded && !e->dropped)
        return;
    fprintf(f, "\nevents (dev.flyprof.Events; flyprof events lists them)\n");
    fprintf(f,
            "  recorded %" PRIu64 ", dropped %" PRIu64 " (%.2f%% of those logged: buffers full), "
            "truncated %" PRIu64 " (strings cut to 63 characters), on %" PRIu64 " threads\n",
            e->recorded, e->dropped, pct(e->dropped, e->recorded + e->dropped), e->truncated,
            e->threads);
    const uint64_t *c = p->counters;
    if (c[FPL_CTR_EVENT_WAITS])
        fprintf(f, "  calls that waited for the writer to drain a full buffer: %" PRIu64
                   ", %.3f ms in all; waits that ran out (then dropped): %" PRIu64 "\n",
                c[FPL_CTR_EVENT_WAITS], c[FPL_CTR_EVENT_WAIT_NS] / 1e6,
                c[FPL_CTR_EVENT_WAIT_TIMEOUTS]);
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
    if (c[FPL_CTR_OWN_WALKS])
        fprintf(f, "  Java stacks read from HotSpot's structures, without AsyncGetCallTrace: %"
                   PRIu64 " (%.1f%% of samples pushed)\n",
                c[FPL_CTR_OWN_WALKS], pct(c[FPL_CTR_OWN_WALKS], c[FPL_CTR_SAMPLES]));
    if (c[FPL_CTR_WALK_CHECKED])
        fprintf(f, "  walk=check: stacks walked both ways %" PRIu64 ", differed %" PRIu64
                   " (%.3f%%)\n",
                c[FPL_CTR_WALK_CHECKED], c[FPL_CTR_WALK_DIFFERED],
                pct(c[FPL_CTR_WALK_DIFFERED], c[FPL_CTR_WALK_CHECKED]));
    if (c[FPL_CTR_AGCT_RECOVERED])
        fprintf(f,
                "  walks recovered where AsyncGetCallTrace gave up (from HotSpot's structures): %"
                PRIu64 "\n",
                c[FPL_CTR_AGCT_RECOVERED]);
    if (c[FPL_CTR_FP_WALKS])
        fprintf(f, "  native walks that went on by frame pointer (no unwind table ready for a "
                   "frame): %" PRIu64 "\n", c[FPL_CTR_FP_WALKS]);
    if (c[FPL_CTR_WALK_FAULTS])
        fprintf(f, "  walks that faulted, ended by the crash guard: %" PRIu64 " ([walk_fault])\n",
                c[FPL_CTR_WALK_FAULTS]);
    if (c[FPL_CTR_SAFEREAD] == 3)
        fprintf(f, "  WARNING: the agent had no fault-proof way to read JVM memory: methods of "
                   "unloaded classes were not told from live ones, wall-clock samples did not "
                   "see which threads were in native code (the JVM's stderr says why)\n");
    else if (c[FPL_CTR_SAFEREAD])
        fprintf(f, "  JVM memory read through %s\n",
                c[FPL_CTR_SAFEREAD] == 1
                    ? "a pipe (/proc/self/mem could not be opened)"
                    : "process_vm_readv (neither /proc/self/mem nor a pipe could be used)");
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
        fprintf(f, "\nhottest methods, %s%s, by %s %sweight (of %" PRIu64 ")\n",
                kind_name(kind), kind_unit(kind), total ? "total" : "self",
                kind == FPL_KIND_WALL ? "upscaled " : "",
                profile_fp_round(p->total[kind].upscaled));
        fprintf(f, "  %10s %7s  %s\n", "weight", "%", "method");
        for (size_t i = 0; i < n; i++)
            fprintf(f, "  %10" PRIu64 " %6.2f%%  %s\n", rows[i].weight,
                    all > 0 ? 100.0 * rows[i].exact / all : 0.0, rows[i].name);
    }
    return 0;
}

struct site_row {
    uint32_t leaf, caller; /* method indexes (PROFILE_NONE: none) */
    uint64_t weight, count;
};

static int cmp_site_key(const void *a, const void *b)
{
    const struct site_row *x = a, *y = b;
    if (x->leaf != y->leaf)
        return x->leaf < y->leaf ? -1 : 1;
    return (x->caller > y->caller) - (x->caller < y->caller);
}

static int cmp_site_weight(const void *a, const void *b)
{
    const struct site_row *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight < y->weight ? 1 : -1;
    return cmp_site_key(a, b);
}

/* The top allocation sites (alloc) or contended locks (lock): the class leaf and the method
 * right below it (the one that allocated, or waited), by weight. */
static int write_sites(const struct profile *p, int kind, FILE *f)
{
    size_t n = 0;
    struct site_row *rows = calloc(p->nentries + 1, sizeof(*rows));
    if (!rows)
        return -ENOMEM;
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kind != kind || e->stack == PROFILE_NONE || !e->weight)
            continue;
        const struct profile_stack *st = &p->stacks[e->stack];
        uint32_t k = 1;
        /* a j.u.c lock's wait is in park, under the lock's own methods: the site is the
         * first frame outside them (ReentrantLock.lock's caller) */
        while (kind == FPL_KIND_LOCK && k + 1 < st->nframes &&
               st->frames[k].method != PROFILE_NONE &&
               (!strncmp(p->methods[st->frames[k].method].display, "java.util.concurrent.locks.",
                         27) ||
                !strncmp(p->methods[st->frames[k].method].display, "jdk.internal.misc.", 18)))
            k++;
        rows[n++] = (struct site_row){st->nframes ? st->frames[0].method : PROFILE_NONE,
                                      st->nframes > k ? st->frames[k].method : PROFILE_NONE,
                                      e->weight, e->count};
    }
    qsort(rows, n, sizeof(*rows), cmp_site_key);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && cmp_site_key(&rows[m - 1], &rows[i]) == 0) {
            rows[m - 1].weight += rows[i].weight;
            rows[m - 1].count += rows[i].count;
        } else {
            rows[m++] = rows[i];
        }
    }
    qsort(rows, m, sizeof(*rows), cmp_site_weight);
    fprintf(f, "\n%s%s\n",
            kind == FPL_KIND_ALLOC  ? "top allocation sites"
            : kind == FPL_KIND_LIVE ? "top live allocation sites"
                                    : "top contended locks",
            kind_unit(kind));
    fprintf(f, "  %12s %7s %8s  %s\n", "weight", "%", "samples",
            kind == FPL_KIND_LOCK ? "lock class <- waited in" : "class <- allocated in");
    for (size_t i = 0; i < m && i < SUMMARY_TOP; i++) {
        const struct site_row *r = &rows[i];
        fprintf(f, "  %12" PRIu64 " %6.2f%% %8" PRIu64 "  %s <- %s\n", r->weight,
                pct(r->weight, p->total[kind].weight), r->count,
                r->leaf == PROFILE_NONE ? PROFILE_UNKNOWN_FRAME : p->methods[r->leaf].display,
                r->caller == PROFILE_NONE ? "-" : p->methods[r->caller].display);
    }
    free(rows);
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
    fprintf(f, "\nthreads, %s%s (%zu with samples)%s\n", kind_name(kind), kind_unit(kind), used,
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
    uint64_t unwritten = p->counters[FPL_CTR_WRITE_LOST_CHUNKS];
    if (unwritten)
        fprintf(f,
                "  %" PRIu64 " chunk%s (%" PRIu64 " samples) lost: the agent could not write "
                "them (%s)\n",
                unwritten, unwritten == 1 ? "" : "s", p->counters[FPL_CTR_WRITE_LOST_SAMPLES],
                strerror((int)p->counters[FPL_CTR_WRITE_ERRNO]));
    int damaged = s->chunks_damaged || s->chunks_truncated || s->chunks_bad_framing ||
                  s->bad_records;
    if (!p->end_seen)
        fprintf(f, "  log cut off: END record missing (the JVM crashed or is still running)\n");
    else if (damaged || (s->chunks_lost && !unwritten))
        fprintf(f, "  the log is damaged: figures above miss the samples of the lost chunks\n");
    else if (s->chunks_lost || unwritten)
        fprintf(f, "  the log is incomplete: figures above miss the samples of the chunks the "
                   "agent could not write\n");
}

int summary_write(const struct profile *p, const char *name, FILE *f, char *err, size_t errlen)
{
    int rc = 0;

    write_header(p, name, f);
    write_samples(p, f);
    write_events(p, f);
    write_failures(p, f);
    for (int k = 0; k < PROFILE_KINDS && rc == 0; k++) {
        if (p->total[k].count)
            rc = write_methods(p, k, f);
    }
    for (int k = PROFILE_TIME_KINDS; k < PROFILE_KINDS && rc == 0; k++) {
        if (p->total[k].count)
            rc = write_sites(p, k, f);
    }
    for (int k = 0; k < PROFILE_KINDS && rc == 0; k++) {
        if (p->total[k].count)
            rc = write_threads(p, k, f);
    }
    if (rc == 0)
        rc = out_starvation_text(p, SUMMARY_THREADS, f);
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

/* ---- JSON (SUMMARY_JSON.md) ---- */

static void js_str(struct fpl_buf *b, const char *s)
{
    esc_json(b, s);
}

static void js_u64(struct fpl_buf *b, uint64_t v)
{
    char t[24];
    int n = snprintf(t, sizeof(t), "%" PRIu64, v);
    fpl_put_bytes(b, t, (size_t)n);
}

static void js_dbl(struct fpl_buf *b, double v, int decimals)
{
    char t[64];
    int n = snprintf(t, sizeof(t), "%.*f", decimals, v);
    fpl_put_bytes(b, t, (size_t)n);
}

static void js_raw(struct fpl_buf *b, const char *s)
{
    fpl_put_bytes(b, s, strlen(s));
}

/* ',"key":' (no comma for the first key of an object: first set). */
static void js_key(struct fpl_buf *b, const char *key, int *first)
{
    if (!*first)
        fpl_put_u8(b, ',');
    *first = 0;
    js_str(b, key);
    fpl_put_u8(b, ':');
}

/* A fixed-point weight in sampling intervals of interval ns, as whole ns (nearest). */
static uint64_t fp_ns(unsigned __int128 fp, uint64_t interval)
{
    unsigned __int128 ns = (fp * interval + (PROFILE_FP_ONE >> 1)) >> PROFILE_FP_SHIFT;
    if (interval && fp > ((unsigned __int128)UINT64_MAX << PROFILE_FP_SHIFT) / interval)
        return UINT64_MAX;
    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

static uint64_t interval_of(const struct profile *p, int kind)
{
    if (!p->have_header)
        return 0;
    /* a lock weight is ns already; an alloc weight is bytes, no time */
    return kind == FPL_KIND_CPU    ? p->header.cpu_interval_ns
           : kind == FPL_KIND_WALL ? p->header.wall_interval_ns
           : kind == FPL_KIND_LOCK ? 1
                                   : 0;
}

/* The failed stack walks of kind by their failure marker (failed_walk: "[agct:GC_active]":
 * samples), as the text summary's "% failed stack walks" counts them. */
static int js_failed(struct fpl_buf *b, const struct profile *p, int kind)
{
    uint64_t *by = calloc(p->nmethods + 1, sizeof(*by));
    if (!by)
        return -ENOMEM;
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (e->kind != kind || e->stack == PROFILE_NONE)
            continue;
        const struct profile_frame *m = failed_walk(p, &p->stacks[e->stack]);
        if (m)
            by[m->method] += e->count;
    }
    int first = 1;
    fpl_put_u8(b, '{');
    for (size_t m = 0; m < p->nmethods; m++) {
        if (by[m]) {
            js_key(b, p->methods[m].display, &first);
            js_u64(b, by[m]);
        }
    }
    fpl_put_u8(b, '}');
    free(by);
    return 0;
}

static int js_kind(struct fpl_buf *b, const struct profile *p, int kind)
{
    const struct profile_total *t = &p->total[kind];
    uint64_t iv = interval_of(p, kind), dstacks, dthreads, dframes, markers, mk[PROFILE_KINDS];
    int first = 1;
    count_dangling(p, &dstacks, &dthreads, &dframes, &markers, mk);
    fpl_put_u8(b, '{');
    js_key(b, "samples", &first);
    js_u64(b, t->count);
    js_key(b, "weight", &first);
    if (kind == FPL_KIND_CPU)
        js_u64(b, t->weight);
    else
        js_dbl(b, profile_fp_double(t->upscaled), 4);
    if (kind == FPL_KIND_WALL) {
        js_key(b, "raw_weight", &first);
        js_u64(b, t->weight);
    }
    js_key(b, "weight_ns", &first);
    js_u64(b, fp_ns(t->upscaled, iv));
    if (kind == FPL_KIND_ALLOC || kind == FPL_KIND_LIVE) {
        js_key(b, "objects", &first);
        js_u64(b, t->objects);
    }
    js_key(b, "failed_samples", &first);
    js_u64(b, mk[kind]);
    js_key(b, "failed", &first);
    int rc = js_failed(b, p, kind);
    fpl_put_u8(b, '}');
    return rc;
}

/* Every thread with samples: its id, name, and weights in ns (wall by state). */
static int js_threads(struct fpl_buf *b, const struct profile *p)
{
    size_t n = p->nthreads + 1; /* the last gathers undefined thread ids */
    unsigned __int128(*w)[2 + PROFILE_STATES] = calloc(n, sizeof(*w));
    if (!w)
        return -ENOMEM;
    /* w[t][0] cpu, [1] wall, [2 + s] wall in state s (PROFILE_STATE_OTHER: any unknown) */
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        size_t t = e->thread == PROFILE_NONE ? p->nthreads : e->thread;
        if (e->kind == FPL_KIND_CPU) {
            profile_fp_add(&w[t][0], e->upscaled);
        } else if (e->kind == FPL_KIND_WALL) {
            size_t s = e->state < PROFILE_STATES ? e->state : PROFILE_STATE_OTHER;
            profile_fp_add(&w[t][1], e->upscaled);
            profile_fp_add(&w[t][2 + s], e->upscaled);
        }
    }
    uint64_t civ = interval_of(p, FPL_KIND_CPU), wiv = interval_of(p, FPL_KIND_WALL);
    int any = 0;
    fpl_put_u8(b, '[');
    for (size_t t = 0; t < n; t++) {
        if (!w[t][0] && !w[t][1])
            continue;
        int first = 1;
        if (any)
            fpl_put_u8(b, ',');
        any = 1;
        fpl_put_u8(b, '{');
        js_key(b, "name", &first);
        js_str(b, t < p->nthreads ? p->threads[t].display : PROFILE_UNKNOWN_THREAD);
        js_key(b, "tid", &first);
        if (t < p->nthreads)
            js_u64(b, p->threads[t].os_tid);
        else
            js_raw(b, "null");
        js_key(b, "cpu_ns", &first);
        js_u64(b, fp_ns(w[t][0], civ));
        js_key(b, "wall_ns", &first);
        js_u64(b, fp_ns(w[t][1], wiv));
        js_key(b, "wall_by_state_ns", &first);
        int f2 = 1;
        fpl_put_u8(b, '{');
        for (size_t s = 0; s < PROFILE_STATES; s++) {
            if (!w[t][2 + s])
                continue;
            js_key(b, state_name((unsigned)s), &f2);
            js_u64(b, fp_ns(w[t][2 + s], wiv));
        }
        fpl_put_u8(b, '}');
        fpl_put_u8(b, '}');
    }
    fpl_put_u8(b, ']');
    free(w);
    return 0;
}

/* The SUMMARY_TOP heaviest methods of both kinds, by self or total weight. */
static int js_top(struct fpl_buf *b, const struct profile *p, int by_total)
{
    struct summary_method rows[SUMMARY_TOP];
    int any = 0;
    fpl_put_u8(b, '[');
    for (int k = 0; k < PROFILE_KINDS; k++) {
        size_t n;
        if (!p->total[k].count)
            continue;
        int rc = summary_top_methods(p, k, by_total, rows, SUMMARY_TOP, &n);
        if (rc)
            return rc;
        double all = profile_fp_double(p->total[k].upscaled);
        uint64_t iv = interval_of(p, k);
        for (size_t i = 0; i < n; i++) {
            int first = 1;
            if (any)
                fpl_put_u8(b, ',');
            any = 1;
            fpl_put_u8(b, '{');
            js_key(b, "method", &first);
            js_str(b, rows[i].name);
            js_key(b, "kind", &first);
            js_str(b, kind_name(k));
            js_key(b, "weight", &first);
            js_dbl(b, rows[i].exact, k == FPL_KIND_CPU ? 0 : 4);
            js_key(b, "weight_ns", &first);
            js_u64(b, (uint64_t)llround(rows[i].exact * (double)iv));
            js_key(b, "share", &first);
            js_dbl(b, all > 0 ? rows[i].exact / all : 0.0, 6);
            fpl_put_u8(b, '}');
        }
    }
    fpl_put_u8(b, ']');
    return 0;
}

static void js_agent(struct fpl_buf *b, const struct profile *p)
{
    int first = 1;
    fpl_put_u8(b, '{');
    js_key(b, "version", &first);
    if (p->have_header && p->header.agent_version[0])
        js_str(b, p->header.agent_version);
    else
        js_raw(b, "null");
    js_key(b, "handler_p50_ns", &first);
    js_u64(b, summary_hist_quantile(p, 0.5));
    js_key(b, "handler_p99_ns", &first);
    js_u64(b, summary_hist_quantile(p, 0.99));
    js_key(b, "handler_max_ns", &first);
    js_u64(b, p->have_hist ? p->hist_max_ns : 0);
    js_key(b, "writer_cpu_ns", &first);
    js_u64(b, p->counters[FPL_CTR_WRITER_CPU_NS]);
    js_key(b, "log_bytes", &first);
    js_u64(b, p->stats.file_bytes);
    js_key(b, "signals", &first);
    js_u64(b, p->counters[FPL_CTR_SIGNALS] + p->counters[FPL_CTR_WALL_SIGNALS]);
    js_key(b, "samples_pushed", &first);
    js_u64(b, p->counters[FPL_CTR_SAMPLES]);
    js_key(b, "walks_failed", &first);
    int f2 = 1;
    fpl_put_u8(b, '{');
    for (int n = 0; n < FPL_AGCT_CODES && FPL_CTR_AGCT_BASE + n < FPL_CTR_MAX; n++) {
        if (p->counters[FPL_CTR_AGCT_BASE + n]) {
            js_key(b, fpl_agct_name(-n), &f2);
            js_u64(b, p->counters[FPL_CTR_AGCT_BASE + n]);
        }
    }
    fpl_put_u8(b, '}');
    js_key(b, "walks_recovered", &first);
    js_u64(b, p->counters[FPL_CTR_AGCT_RECOVERED]);
    js_key(b, "walks_by_frame_pointer", &first);
    js_u64(b, p->counters[FPL_CTR_FP_WALKS]);
    js_key(b, "walks_own", &first);
    js_u64(b, p->counters[FPL_CTR_OWN_WALKS]);
    js_key(b, "walks_checked", &first);
    js_u64(b, p->counters[FPL_CTR_WALK_CHECKED]);
    js_key(b, "walks_differed", &first);
    js_u64(b, p->counters[FPL_CTR_WALK_DIFFERED]);
    js_key(b, "endpoint_drops", &first);
    js_u64(b, p->counters[FPL_CTR_ENDPOINT_DROPS]);
    js_key(b, "context_lost", &first);
    js_u64(b, p->counters[FPL_CTR_CONTEXT_LOST]);
    js_key(b, "handler_busy", &first);
    js_u64(b, p->counters[FPL_CTR_HANDLER_BUSY]);
    js_key(b, "scratch_buffers", &first);
    js_u64(b, p->counters[FPL_CTR_SCRATCH_BUFFERS]);
    fpl_put_u8(b, '}');
}

/* The log's state. Complete: it has its END and no chunk is missing, whether the reader found
 * the gap or the agent counted a chunk it could not write (either may be seen without the
 * other: the counter is in a later chunk than the gap, which may itself be lost). */
static void js_log(struct fpl_buf *b, const struct profile *p)
{
    const struct reader_stats *s = &p->stats;
    uint64_t unwritten = p->counters[FPL_CTR_WRITE_LOST_CHUNKS];
    int first = 1;
    fpl_put_u8(b, '{');
    js_key(b, "complete", &first);
    js_raw(b, p->end_seen && !s->chunks_lost && !unwritten ? "true" : "false");
    js_key(b, "chunks", &first);
    js_u64(b, s->chunks_ok);
    js_key(b, "chunks_damaged", &first);
    js_u64(b, s->chunks_damaged);
    js_key(b, "chunks_lost", &first);
    js_u64(b, s->chunks_lost);
    js_key(b, "bad_records", &first);
    js_u64(b, s->bad_records);
    js_key(b, "write_lost_chunks", &first);
    js_u64(b, unwritten);
    js_key(b, "write_lost_samples", &first);
    js_u64(b, p->counters[FPL_CTR_WRITE_LOST_SAMPLES]);
    js_key(b, "write_errno", &first);
    js_u64(b, p->counters[FPL_CTR_WRITE_ERRNO]);
    js_key(b, "reasons", &first);
    int f2 = 1;
    fpl_put_u8(b, '[');
    if (!p->end_seen) {
        js_raw(b, f2 ? "" : ",");
        js_str(b, "no_end");
        f2 = 0;
    }
    if (s->chunks_lost) {
        js_raw(b, f2 ? "" : ",");
        js_str(b, "lost_chunks");
        f2 = 0;
    }
    if (unwritten) {
        js_raw(b, f2 ? "" : ",");
        js_str(b, "write_errors");
    }
    fpl_put_u8(b, ']');
    fpl_put_u8(b, '}');
}

int summary_write_json(const struct profile *p, const char *name, const char *extra, FILE *f,
                       char *err, size_t errlen)
{
    const struct profile_header *h = &p->header;
    struct fpl_buf b = {0};
    const char *how;
    int first = 1, rc = 0;

    fpl_put_u8(&b, '{');
    js_key(&b, "format", &first);
    js_str(&b, "flyprof-summary");
    js_key(&b, "version", &first);
    js_u64(&b, SUMMARY_JSON_VERSION);
    js_key(&b, "log", &first);
    js_str(&b, name);
    js_key(&b, "jvm", &first);
    if (p->have_header && (h->jvm_name[0] || h->jvm_version[0])) {
        char jvm[320];
        snprintf(jvm, sizeof(jvm), "%s%s%s", h->jvm_name, h->jvm_name[0] ? " " : "",
                 h->jvm_version);
        js_str(&b, jvm);
    } else {
        js_raw(&b, "null");
    }
    js_key(&b, "command", &first);
    if (p->have_header && h->command[0])
        js_str(&b, h->command);
    else
        js_raw(&b, "null");
    js_key(&b, "pid", &first);
    if (p->have_header)
        js_u64(&b, h->pid);
    else
        js_raw(&b, "null");
    js_key(&b, "started_ns", &first);
    if (p->have_header)
        js_u64(&b, h->anchor_real_ns);
    else
        js_raw(&b, "null");
    js_key(&b, "duration_ns", &first);
    js_u64(&b, duration_ns(p, &how));
    js_key(&b, "options", &first);
    js_str(&b, p->have_header ? h->options : "");
    js_key(&b, "engine", &first);
    js_str(&b, p->have_header && h->cpu_interval_ns ? engine_name(h->engine) : "none");
    js_key(&b, "interval_ns", &first);
    int f2 = 1;
    fpl_put_u8(&b, '{');
    js_key(&b, "cpu", &f2);
    js_u64(&b, interval_of(p, FPL_KIND_CPU));
    js_key(&b, "wall", &f2);
    js_u64(&b, interval_of(p, FPL_KIND_WALL));
    fpl_put_u8(&b, '}');
    for (int k = 0; k < PROFILE_KINDS && !rc; k++) {
        if (k >= PROFILE_TIME_KINDS && !p->total[k].count)
            continue; /* alloc and lock appear only when the log has them */
        js_key(&b, kind_name(k), &first);
        rc = js_kind(&b, p, k);
    }
    js_key(&b, "drops", &first);
    js_u64(&b, p->counters[FPL_CTR_RING_DROPS]);
    if (!rc) {
        js_key(&b, "threads", &first);
        rc = js_threads(&b, p);
    }
    if (!rc) {
        js_key(&b, "starvation", &first);
        rc = out_starvation_json(p, &b);
    }
    if (!rc) {
        js_key(&b, "top_self", &first);
        rc = js_top(&b, p, 0);
    }
    if (!rc) {
        js_key(&b, "top_total", &first);
        rc = js_top(&b, p, 1);
    }
    js_key(&b, "agent", &first);
    js_agent(&b, p);
    js_key(&b, "log_state", &first);
    js_log(&b, p);
    js_key(&b, "events", &first);
    {
        const struct profile_events *e = &p->events;
        int f3 = 1;
        fpl_put_u8(&b, '{');
        js_key(&b, "recorded", &f3);
        js_u64(&b, e->recorded);
        js_key(&b, "dropped", &f3);
        js_u64(&b, e->dropped);
        js_key(&b, "truncated", &f3);
        js_u64(&b, e->truncated);
        js_key(&b, "threads", &f3);
        js_u64(&b, e->threads);
        js_key(&b, "waits", &f3);
        js_u64(&b, p->counters[FPL_CTR_EVENT_WAITS]);
        js_key(&b, "wait_ns", &f3);
        js_u64(&b, p->counters[FPL_CTR_EVENT_WAIT_NS]);
        js_key(&b, "wait_timeouts", &f3);
        js_u64(&b, p->counters[FPL_CTR_EVENT_WAIT_TIMEOUTS]);
        fpl_put_u8(&b, '}');
    }
    if (extra && extra[0]) {
        js_raw(&b, ",");
        js_raw(&b, extra);
    }
    js_raw(&b, "}\n");
    if (rc || b.failed) {
        fpl_buf_free(&b);
        snprintf(err, errlen, "summary: out of memory");
        return -ENOMEM;
    }
    errno = 0;
    if (fwrite(b.data, 1, b.len, f) != b.len || fflush(f) != 0 || ferror(f)) {
        rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "summary: write failed: %s", strerror(-rc));
    }
    fpl_buf_free(&b);
    return rc;
}
