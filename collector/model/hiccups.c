/* hiccups.c: the hiccup records of a log on one time line, and each stall's cause
 * (hiccups.h). */
#include "hiccups.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_format.h"
#include "reader.h"

#define MAX_DISTINCT 256 /* distinct (stack, thread) pairs counted per stall; more go uncounted */

struct acc {
    struct hiccups_stack *s;
    size_t n, cap;
};

struct ctx {
    struct hiccups *h;
    const struct profile *p;
    int failed;
    size_t cap_i, cap_s, cap_g, cap_p;
    /* pass 2 */
    uint64_t *pmax_end; /* max end of stalls[0..i] */
    struct acc *acc;    /* per stall */
};

/* Grows *arr (elements of size elem, capacity *cap) to hold n + 1. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : 64;
    void *q = realloc(*arr, c * elem);
    if (!q)
        return -ENOMEM;
    *arr = q;
    *cap = c;
    return 0;
}

static uint64_t ns(const struct ctx *c, uint64_t dticks)
{
    return profile_ticks_to_ns(c->p, dticks);
}

static int on_hiccup(void *vc, const struct reader_hiccup *r)
{
    struct ctx *c = vc;
    struct hiccups *h = c->h;
    if (r->probe >= HICCUPS_PROBES || r->end < r->start)
        return 0;
    if (grow((void **)&h->intervals, &c->cap_i, h->nintervals, sizeof(*h->intervals)))
        return -ENOMEM;
    struct hiccups_interval *iv = &h->intervals[h->nintervals];
    memset(iv, 0, sizeof(*iv));
    iv->hist = malloc(sizeof(*iv->hist));
    if (!iv->hist)
        return -ENOMEM;
    h->nintervals++;
    hdr_reset(iv->hist);
    for (size_t i = 0; i < r->nbuckets; i++) {
        unsigned idx = r->buckets[i].index >= FPL_HDR_COUNTS ? FPL_HDR_COUNTS - 1
                                                             : (unsigned)r->buckets[i].index;
        hdr_record_index(iv->hist, idx, r->buckets[i].count);
    }
    if (iv->hist->total)
        iv->hist->max = r->max_ns; /* exact: the record says */
    iv->probe = (int)r->probe;
    iv->start = r->start;
    iv->end = r->end;
    iv->wakeups = r->wakeups;
    iv->max_ns = r->max_ns;
    iv->max_ticks = r->max_ticks;
    iv->stalls = r->stalls;
    iv->stalled_ns = r->stalled_ns;
    iv->run_delay_ns = r->run_delay_ns;
    if (!h->have_settings) {
        h->resolution_ns = r->resolution_ns;
        h->threshold_ns = r->threshold_ns;
        h->have_settings = 1;
    }
    h->present = 1;
    return 0;
}

static int on_stall(void *vc, const struct reader_stall *r)
{
    struct ctx *c = vc;
    struct hiccups *h = c->h;
    if (r->probe >= HICCUPS_PROBES || r->end < r->start)
        return 0;
    if (grow((void **)&h->stalls, &c->cap_s, h->nstalls, sizeof(*h->stalls)))
        return -ENOMEM;
    struct hiccups_stall *s = &h->stalls[h->nstalls++];
    memset(s, 0, sizeof(*s));
    s->probe = (int)r->probe;
    s->flags = r->flags;
    s->start = r->start;
    s->end = r->end;
    s->run_delay_ns = r->flags & FPL_STALL_RUN_DELAY ? r->run_delay_ns : 0;
    s->safepoints = r->flags & FPL_STALL_SAFEPOINTS ? r->safepoints : 0;
    s->safepoint_ns = r->flags & FPL_STALL_SAFEPOINTS ? r->safepoint_ns : 0;
    s->sync_ns = r->flags & FPL_STALL_SAFEPOINTS ? r->sync_ns : 0;
    s->gc = -1;
    h->present = 1;
    return 0;
}

static int on_gc(void *vc, const struct reader_gc *r)
{
    struct ctx *c = vc;
    struct hiccups *h = c->h;
    if (r->end < r->start)
        return 0;
    if (grow((void **)&h->gcs, &c->cap_g, h->ngcs, sizeof(*h->gcs)))
        return -ENOMEM;
    char *name = malloc(r->collector.len + 1);
    if (!name)
        return -ENOMEM;
    memcpy(name, r->collector.s, r->collector.len);
    name[r->collector.len] = 0;
    for (size_t i = 0; i < r->collector.len; i++) {
        if ((unsigned char)name[i] < 0x20)
            name[i] = '_';
    }
    h->gcs[h->ngcs++] = (struct hiccups_gc){r->start, r->end, name};
    return 0;
}

static int on_pause_stats(void *vc, const struct reader_pause_stats *r)
{
    struct ctx *c = vc;
    struct hiccups *h = c->h;
    if (r->end < r->start)
        return 0;
    if (grow((void **)&h->pauses, &c->cap_p, h->npauses, sizeof(*h->pauses)))
        return -ENOMEM;
    h->pauses[h->npauses++] = (struct hiccups_pause){
        r->start,   r->end,      r->flags, r->safepoints,     r->safepoint_ns,
        r->sync_ns, r->steal_ns, r->cpus,  r->stalls_dropped, r->gcs_dropped};
    return 0;
}

static uint64_t overlap(uint64_t a0, uint64_t a1, uint64_t b0, uint64_t b1)
{
    uint64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
    return hi > lo ? hi - lo : 0;
}

static int cmp_interval(const void *a, const void *b)
{
    const struct hiccups_interval *x = a, *y = b;
    if (x->probe != y->probe)
        return x->probe - y->probe;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_stall(const void *a, const void *b)
{
    const struct hiccups_stall *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->probe - y->probe;
}

static int cmp_gc(const void *a, const void *b)
{
    const struct hiccups_gc *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_pause(const void *a, const void *b)
{
    const struct hiccups_pause *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

int hiccups_cause(int probe, uint64_t duration_ns, uint64_t run_delay_ns, uint64_t safepoints,
                  uint64_t safepoint_ns, uint64_t gc_overlap_ns, uint64_t os_overlap_ns)
{
    uint64_t d = duration_ns;
    if (d == 0)
        return HICCUPS_UNKNOWN;
    /* a GC pause over half the stall is the cause whatever else the probe waited for: the
     * run-queue wait after a collection is its own threads' */
    if (probe == FPL_PROBE_JAVA && gc_overlap_ns * 2 >= d)
        return HICCUPS_GC;
    uint64_t sp = probe == FPL_PROBE_JAVA && safepoints ? (safepoint_ns < d ? safepoint_ns : d) : 0;
    uint64_t os = run_delay_ns < d ? run_delay_ns : d;
    if (probe == FPL_PROBE_JAVA && os_overlap_ns > os)
        os = os_overlap_ns < d ? os_overlap_ns : d;
    uint64_t gc = probe == FPL_PROBE_JAVA ? gc_overlap_ns : 0;
    uint64_t best = gc;
    int cause = HICCUPS_GC;
    if (sp > best) {
        best = sp;
        cause = HICCUPS_SAFEPOINT;
    }
    if (os > best) {
        best = os;
        cause = HICCUPS_OS_CPU;
    }
    return best * 4 >= d ? cause : HICCUPS_UNKNOWN;
}

const char *hiccups_cause_name(int cause)
{
    static const char *const names[] = {"gc", "safepoint", "os/cpu", "unknown"};
    return cause >= 0 && cause < HICCUPS_CAUSES ? names[cause] : "unknown";
}

const char *hiccups_probe_name(int probe)
{
    return probe == FPL_PROBE_JAVA ? "java" : probe == FPL_PROBE_OS ? "os" : "probe";
}

/* Overlaps, causes, per-interval GC and safepoint time, totals: everything pass 1 allows. */
static int analyse(struct ctx *c)
{
    struct hiccups *h = c->h;
    /* an array never grown is NULL, which qsort may not be given even for 0 elements */
    if (h->nintervals)
        qsort(h->intervals, h->nintervals, sizeof(*h->intervals), cmp_interval);
    if (h->nstalls)
        qsort(h->stalls, h->nstalls, sizeof(*h->stalls), cmp_stall);
    if (h->ngcs)
        qsort(h->gcs, h->ngcs, sizeof(*h->gcs), cmp_gc);
    if (h->npauses)
        qsort(h->pauses, h->npauses, sizeof(*h->pauses), cmp_pause);
    for (int k = 0; k < HICCUPS_PROBES; k++) {
        h->total[k] = malloc(sizeof(*h->total[k]));
        if (!h->total[k])
            return -ENOMEM;
        hdr_reset(h->total[k]);
    }
    for (size_t i = 0; i < h->ngcs; i++)
        h->gc_ns += ns(c, h->gcs[i].end - h->gcs[i].start);
    for (size_t i = 0; i < h->npauses; i++) {
        const struct hiccups_pause *q = &h->pauses[i];
        if (q->flags & FPL_PAUSE_SAFEPOINTS) {
            h->have_safepoints = 1;
            h->safepoints += q->safepoints;
            h->safepoint_ns += q->safepoint_ns;
            h->sync_ns += q->sync_ns;
        }
        if (q->flags & FPL_PAUSE_STEAL) {
            h->have_steal = 1;
            h->steal_ns += q->steal_ns;
        }
        h->stalls_dropped = q->stalls_dropped;
        h->gcs_dropped = q->gcs_dropped;
    }
    uint64_t max_len = 0; /* the longest stall, ticks: how far back an overlap can start */
    for (size_t i = 0; i < h->nstalls; i++) {
        if (h->stalls[i].end - h->stalls[i].start > max_len)
            max_len = h->stalls[i].end - h->stalls[i].start;
    }
    /* stalls are few, GC pauses fewer: a scan of the GCs that can overlap */
    size_t g0 = 0;
    for (size_t i = 0; i < h->nstalls; i++) {
        struct hiccups_stall *s = &h->stalls[i];
        s->duration_ns = ns(c, s->end - s->start);
        uint64_t best = 0;
        while (g0 < h->ngcs && h->gcs[g0].end < s->start && g0 + 1 < h->ngcs &&
               h->gcs[g0 + 1].start <= s->start)
            g0++;
        for (size_t g = g0; g < h->ngcs && h->gcs[g].start <= s->end; g++) {
            uint64_t o = overlap(s->start, s->end, h->gcs[g].start, h->gcs[g].end);
            s->gc_overlap_ns += ns(c, o);
            if (o > best) {
                best = o;
                s->gc = (int)g;
            }
        }
        if (s->probe == FPL_PROBE_JAVA) {
            /* an OS-probe stall overlapping this one starts at most max_len before it */
            for (size_t j = i; j-- > 0 && h->stalls[j].start + max_len >= s->start;) {
                if (h->stalls[j].probe == FPL_PROBE_OS)
                    s->os_overlap_ns +=
                        ns(c, overlap(s->start, s->end, h->stalls[j].start, h->stalls[j].end));
            }
            for (size_t j = i + 1; j < h->nstalls && h->stalls[j].start <= s->end; j++) {
                if (h->stalls[j].probe == FPL_PROBE_OS)
                    s->os_overlap_ns +=
                        ns(c, overlap(s->start, s->end, h->stalls[j].start, h->stalls[j].end));
            }
        }
        s->cause = hiccups_cause(s->probe, s->duration_ns, s->run_delay_ns, s->safepoints,
                                 s->safepoint_ns, s->gc_overlap_ns, s->os_overlap_ns);
        h->by_cause[s->probe][s->cause]++;
        h->cause_ns[s->probe][s->cause] += s->duration_ns;
    }
    size_t p0 = 0;
    g0 = 0;
    for (size_t i = 0; i < h->nintervals; i++) {
        struct hiccups_interval *iv = &h->intervals[i];
        hdr_add(h->total[iv->probe], iv->hist);
        h->wakeups[iv->probe] += iv->wakeups;
        h->stalls_by_probe[iv->probe] += iv->stalls;
        h->stalled_ns[iv->probe] += iv->stalled_ns;
        if (i > 0 && iv->probe != iv[-1].probe)
            p0 = g0 = 0;
        for (size_t g = g0; g < h->ngcs && h->gcs[g].start < iv->end; g++)
            iv->gc_ns += ns(c, overlap(iv->start, iv->end, h->gcs[g].start, h->gcs[g].end));
        while (g0 < h->ngcs && h->gcs[g0].end <= iv->start)
            g0++;
        while (p0 < h->npauses && h->pauses[p0].end <= iv->start)
            p0++;
        for (size_t q = p0; q < h->npauses && h->pauses[q].start < iv->end; q++) {
            const struct hiccups_pause *pp = &h->pauses[q];
            uint64_t len = pp->end - pp->start, o = overlap(iv->start, iv->end, pp->start, pp->end);
            if (!(pp->flags & FPL_PAUSE_SAFEPOINTS) || !len)
                continue;
            iv->have_safepoints = 1;
            iv->safepoint_ns += (uint64_t)((unsigned __int128)pp->safepoint_ns * o / len);
        }
    }
    return 0;
}

/* Pass 2: a sample inside stalls' windows counts for each of them. */
static int on_sample(void *vc, const struct reader_sample *smp)
{
    struct ctx *c = vc;
    struct hiccups *h = c->h;
    size_t lo = 0, hi = h->nstalls;
    while (lo < hi) { /* the first stall starting after the sample */
        size_t mid = (lo + hi) / 2;
        if (h->stalls[mid].start <= smp->ticks)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t j = lo; j-- > 0 && c->pmax_end[j] >= smp->ticks;) {
        struct hiccups_stall *s = &h->stalls[j];
        if (smp->ticks > s->end)
            continue;
        s->samples++;
        s->sample_weight += smp->weight;
        struct acc *a = &c->acc[j];
        size_t k;
        for (k = 0; k < a->n; k++) {
            if (a->s[k].stack_id == smp->stack_id && a->s[k].thread_id == smp->thread_id)
                break;
        }
        if (k == a->n) {
            if (a->n >= MAX_DISTINCT)
                continue;
            if (grow((void **)&a->s, &a->cap, a->n, sizeof(*a->s)))
                return -ENOMEM;
            a->s[a->n++] = (struct hiccups_stack){smp->stack_id, smp->thread_id, 0};
        }
        a->s[k].weight += smp->weight;
    }
    return 0;
}

static int cmp_stack(const void *a, const void *b)
{
    const struct hiccups_stack *x = a, *y = b;
    if (x->weight != y->weight)
        return x->weight > y->weight ? -1 : 1;
    return x->stack_id < y->stack_id ? -1 : x->stack_id > y->stack_id;
}

int hiccups_read(struct hiccups *h, const struct profile *p, const char *path, char *err,
                 size_t errlen)
{
    memset(h, 0, sizeof(*h));
    struct ctx c;
    memset(&c, 0, sizeof(c));
    c.h = h;
    c.p = p;
    struct reader_ops ops;
    memset(&ops, 0, sizeof(ops));
    ops.hiccup = on_hiccup;
    ops.stall = on_stall;
    ops.gc = on_gc;
    ops.pause_stats = on_pause_stats;
    int rc = reader_read_file(path, &ops, &c, NULL, err, errlen);
    if (rc == 0 && h->present)
        rc = analyse(&c);
    if (rc == 0 && h->nstalls) {
        c.pmax_end = malloc(h->nstalls * sizeof(*c.pmax_end));
        c.acc = calloc(h->nstalls, sizeof(*c.acc));
        if (!c.pmax_end || !c.acc)
            rc = -ENOMEM;
        for (size_t i = 0; rc == 0 && i < h->nstalls; i++)
            c.pmax_end[i] =
                i && c.pmax_end[i - 1] > h->stalls[i].end ? c.pmax_end[i - 1] : h->stalls[i].end;
        if (rc == 0) {
            memset(&ops, 0, sizeof(ops));
            ops.sample = on_sample;
            rc = reader_read_file(path, &ops, &c, NULL, err, errlen);
        }
        for (size_t i = 0; rc == 0 && i < h->nstalls; i++) {
            struct acc *a = &c.acc[i];
            if (!a->n)
                continue; /* no samples in its window (a->s is NULL) */
            qsort(a->s, a->n, sizeof(*a->s), cmp_stack);
            h->stalls[i].nstacks = a->n < HICCUPS_TOP_STACKS ? a->n : HICCUPS_TOP_STACKS;
            memcpy(h->stalls[i].stacks, a->s, h->stalls[i].nstacks * sizeof(*a->s));
        }
        for (size_t i = 0; c.acc && i < h->nstalls; i++)
            free(c.acc[i].s);
    }
    free(c.acc);
    free(c.pmax_end);
    if (rc == -ENOMEM)
        snprintf(err, errlen, "out of memory reading the hiccups of '%s'", path);
    if (rc)
        hiccups_free(h);
    return rc;
}

void hiccups_free(struct hiccups *h)
{
    for (size_t i = 0; i < h->nintervals; i++)
        free(h->intervals[i].hist);
    for (size_t i = 0; i < h->ngcs; i++)
        free(h->gcs[i].collector);
    for (int k = 0; k < HICCUPS_PROBES; k++)
        free(h->total[k]);
    free(h->intervals);
    free(h->stalls);
    free(h->gcs);
    free(h->pauses);
    memset(h, 0, sizeof(*h));
}
