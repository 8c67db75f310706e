/* out_starvation.c: the starvation section of the summary (out_starvation.h). */
#include "out_starvation.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "esc.h"
#include "starvation.h"

static const char *row_name(const struct profile *p, const struct starvation_thread *t)
{
    return t->thread == PROFILE_NONE ? PROFILE_UNKNOWN_THREAD : p->threads[t->thread].display;
}

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

int out_starvation_text(const struct profile *p, size_t max_rows, FILE *f)
{
    struct starvation s;
    int rc = starvation_compute(p, NULL, NULL, &s);
    if (rc || !s.available)
        return rc;
    fprintf(f, "\nCPU starvation (share of running wall time spent waiting for a CPU: "
               "1 - cpu / running wall)\n");
    if (!s.nthreads) {
        fprintf(f, "  no thread was sampled running Java code: nothing to compare\n");
        starvation_destroy(&s);
        return 0;
    }
    fprintf(f,
            "  overall %.3f: %.1f ms of CPU in %.1f ms of running wall time, %zu threads "
            "(+- %.3f: two standard errors of %" PRIu64 " running samples)\n",
            s.overall, ms(s.cpu_ns), ms(s.running_wall_ns), s.nthreads, 2 * s.error,
            s.running_samples);
    if (s.tick_ns != p->header.wall_interval_ns)
        fprintf(f,
                "  wall samples weigh the mean time between wall ticks, %.3f ms (interval "
                "%.3f ms)\n",
                ms(s.tick_ns), ms(p->header.wall_interval_ns));
    fprintf(f, "  %10s %6s %12s %14s %8s  %s\n", "starvation", "+-", "cpu ms", "running ms",
            "tid", "name");
    for (size_t i = 0; i < s.nthreads && i < max_rows; i++) {
        const struct starvation_thread *t = &s.threads[i];
        char tid[24] = "-";
        if (t->thread != PROFILE_NONE)
            snprintf(tid, sizeof(tid), "%" PRIu64, p->threads[t->thread].os_tid);
        fprintf(f, "  %10.3f %6.3f %12.1f %14.1f %8s  %s\n", t->starvation, 2 * t->error,
                ms(t->cpu_ns), ms(t->running_wall_ns), tid, row_name(p, t));
    }
    if (s.nthreads > max_rows)
        fprintf(f, "  ... %zu more threads\n", s.nthreads - max_rows);
    starvation_destroy(&s);
    return 0;
}

static void put_raw(struct fpl_buf *b, const char *s)
{
    fpl_put_bytes(b, s, strlen(s));
}

static void put_u64(struct fpl_buf *b, uint64_t v)
{
    char t[24];
    snprintf(t, sizeof(t), "%" PRIu64, v);
    put_raw(b, t);
}

/* A ratio 0..1 with 4 decimals (the sampling error is far larger). */
static void put_ratio(struct fpl_buf *b, double v)
{
    char t[32];
    snprintf(t, sizeof(t), "%.4f", v);
    put_raw(b, t);
}

int out_starvation_json(const struct profile *p, struct fpl_buf *b)
{
    struct starvation s;
    int rc = starvation_compute(p, NULL, NULL, &s);
    if (rc)
        return rc;
    if (!s.available) {
        put_raw(b, "null");
        return 0;
    }
    put_raw(b, "{\"overall\":");
    put_ratio(b, s.overall);
    put_raw(b, ",\"cpu_ns\":");
    put_u64(b, s.cpu_ns);
    put_raw(b, ",\"running_wall_ns\":");
    put_u64(b, s.running_wall_ns);
    put_raw(b, ",\"running_samples\":");
    put_u64(b, s.running_samples);
    put_raw(b, ",\"error\":");
    put_ratio(b, s.error);
    put_raw(b, ",\"wall_tick_ns\":");
    put_u64(b, s.tick_ns);
    put_raw(b, ",\"threads\":[");
    for (size_t i = 0; i < s.nthreads; i++) {
        const struct starvation_thread *t = &s.threads[i];
        put_raw(b, i ? ",{\"name\":" : "{\"name\":");
        esc_json(b, row_name(p, t));
        put_raw(b, ",\"tid\":");
        if (t->thread == PROFILE_NONE)
            put_raw(b, "null");
        else
            put_u64(b, p->threads[t->thread].os_tid);
        put_raw(b, ",\"cpu_ns\":");
        put_u64(b, t->cpu_ns);
        put_raw(b, ",\"running_wall_ns\":");
        put_u64(b, t->running_wall_ns);
        put_raw(b, ",\"running_samples\":");
        put_u64(b, t->running_samples);
        put_raw(b, ",\"starvation\":");
        put_ratio(b, t->starvation);
        put_raw(b, ",\"error\":");
        put_ratio(b, t->error);
        put_raw(b, "}");
    }
    put_raw(b, "]}");
    starvation_destroy(&s);
    return 0;
}
