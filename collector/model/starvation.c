/* starvation.c: CPU starvation per thread and overall (starvation.h). */
#include "starvation.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double starvation_ratio(uint64_t cpu_ns, uint64_t running_wall_ns)
{
    if (!running_wall_ns || cpu_ns >= running_wall_ns)
        return 0.0;
    return 1.0 - (double)cpu_ns / (double)running_wall_ns;
}

double starvation_error(double starvation, uint64_t running_samples, uint64_t running_wall_ns,
                        uint64_t cpu_interval_ns, size_t nthreads)
{
    if (!running_samples || !running_wall_ns)
        return 1.0;
    double r = 1.0 - starvation, q = (double)cpu_interval_ns / (double)running_wall_ns;
    return sqrt(r * r / (double)running_samples + (double)nthreads * q * q / 12.0);
}

/* A fixed-point weight in intervals of interval ns, as whole ns (nearest), saturating. */
static uint64_t fp_ns(unsigned __int128 fp, uint64_t interval)
{
    if (interval && fp > ((unsigned __int128)UINT64_MAX << PROFILE_FP_SHIFT) / interval)
        return UINT64_MAX;
    unsigned __int128 ns = (fp * interval + (PROFILE_FP_ONE >> 1)) >> PROFILE_FP_SHIFT;
    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t row_tid(const struct profile *p, const struct starvation_thread *t)
{
    return t->thread == PROFILE_NONE ? 0 : p->threads[t->thread].os_tid;
}

/* Longest running wall time first; ties by tid, then by dictionary index (stable output). */
static int cmp_row(const void *a, const void *b, void *arg)
{
    const struct starvation_thread *x = a, *y = b;
    if (x->running_wall_ns != y->running_wall_ns)
        return x->running_wall_ns < y->running_wall_ns ? 1 : -1;
    uint64_t tx = row_tid(arg, x), ty = row_tid(arg, y);
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

/* The mean time between wall ticks, ns. The sampler keeps to absolute deadlines, but when it
 * falls behind by more than a period (its own thread waits for a CPU, as every thread does on
 * a starved machine) it skips ticks rather than burst; each wall sample then stands for more
 * than one interval, and weighing it by the interval would make the running time, and the
 * starvation, read low. Measured from the ticks' own times when there are enough of them. */
static uint64_t tick_period_ns(const struct profile *p)
{
    uint64_t iv = p->header.wall_interval_ns;
    if (p->wall.ticks < STARVATION_MIN_TICKS || !p->time_known ||
        p->wall.last_at <= p->wall.first_at ||
        p->wall.last_id - p->wall.first_id < STARVATION_MIN_TICKS - 1)
        return iv;
    /* by ids, not by records read: a tick whose record was lost (ring full) still ticked */
    uint64_t span = profile_ticks_to_ns(p, p->wall.last_at - p->wall.first_at);
    uint64_t period = span / (p->wall.last_id - p->wall.first_id);
    return period ? period : iv;
}

int starvation_compute(const struct profile *p, starvation_select select, void *ctx,
                       struct starvation *out)
{
    return starvation_compute_cells(p, p->entries, p->nentries, select, ctx, out);
}

int starvation_compute_cells(const struct profile *p, const struct profile_entry *cells,
                             size_t ncells, starvation_select select, void *ctx,
                             struct starvation *out)
{
    memset(out, 0, sizeof(*out));
    if (!p->have_header || !p->header.cpu_interval_ns || !p->header.wall_interval_ns ||
        !p->total[FPL_KIND_CPU].count || !p->total[FPL_KIND_WALL].count)
        return 0;
    out->available = 1;
    out->tick_ns = tick_period_ns(p);
    /* per dictionary thread, the last slot gathering undefined thread ids: [0] cpu weight,
     * [1] upscaled RUNNING wall weight, both fixed point; and its RUNNING wall samples */
    size_t n = p->nthreads + 1;
    unsigned __int128(*w)[2] = calloc(n, sizeof(*w));
    uint64_t *nrun = calloc(n, sizeof(*nrun));
    if (!w || !nrun) {
        free(w);
        free(nrun);
        return -ENOMEM;
    }
    for (size_t i = 0; i < ncells; i++) {
        const struct profile_entry *e = &cells[i];
        if (select && !select(p, e, ctx))
            continue;
        size_t t = e->thread == PROFILE_NONE ? p->nthreads : e->thread;
        if (e->kind == FPL_KIND_CPU)
            profile_fp_add(&w[t][0], e->upscaled);
        else if (e->kind == FPL_KIND_WALL && e->state == FPL_STATE_RUNNING) {
            profile_fp_add(&w[t][1], e->upscaled);
            nrun[t] = add_sat(nrun[t], e->count);
        }
    }
    size_t rows = 0;
    for (size_t t = 0; t < n; t++)
        rows += w[t][1] != 0;
    out->threads = rows ? calloc(rows, sizeof(*out->threads)) : NULL;
    if (rows && !out->threads) {
        free(w);
        free(nrun);
        return -ENOMEM;
    }
    for (size_t t = 0; t < n; t++) {
        if (!w[t][1])
            continue;
        struct starvation_thread *r = &out->threads[out->nthreads++];
        r->thread = t < p->nthreads ? (uint32_t)t : PROFILE_NONE;
        r->cpu_ns = fp_ns(w[t][0], p->header.cpu_interval_ns);
        r->running_wall_ns = fp_ns(w[t][1], out->tick_ns);
        if (!r->running_wall_ns) { /* a sliver of a sample: below a nanosecond */
            out->nthreads--;
            continue;
        }
        r->running_samples = nrun[t];
        r->starvation = starvation_ratio(r->cpu_ns, r->running_wall_ns);
        r->error = starvation_error(r->starvation, r->running_samples, r->running_wall_ns,
                                    p->header.cpu_interval_ns, 1);
        out->cpu_ns = add_sat(out->cpu_ns, r->cpu_ns);
        out->running_wall_ns = add_sat(out->running_wall_ns, r->running_wall_ns);
        out->running_samples = add_sat(out->running_samples, r->running_samples);
    }
    free(w);
    free(nrun);
    out->overall = starvation_ratio(out->cpu_ns, out->running_wall_ns);
    out->error = starvation_error(out->overall, out->running_samples, out->running_wall_ns,
                                  p->header.cpu_interval_ns, out->nthreads);
    if (out->nthreads > 1)
        qsort_r(out->threads, out->nthreads, sizeof(*out->threads), cmp_row, (void *)p);
    return 0;
}

void starvation_destroy(struct starvation *s)
{
    free(s->threads);
    s->threads = NULL;
    s->nthreads = 0;
}
