/* jitter.c: pinned spin threads reading the TSC in unrolled blocks (jitter.h). */
#include "jitter.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jclock.h"

struct jitter_cpu {
    struct jitter_run *run;
    int cpu;
    pthread_t thread;
    int created;
    atomic_int ready; /* release: the thread runs pinned; read by jitter_start */
    atomic_int ended; /* release: the last slot is published; read by the reader */
    /* slot n % JITTER_SLOTS is filled while n == published; release on publish orders the
     * slot's contents before the count; the reader's acquire load pairs with it */
    _Atomic uint64_t published;
    /* release on release orders the reader's emptying of a slot before the spin thread's
     * acquire load, which lets it write into that slot again */
    _Atomic uint64_t released;
    struct jitter_slot *slots; /* JITTER_SLOTS */
};

void jitter_counts_reset(struct jitter_counts *c)
{
    memset(c, 0, offsetof(struct jitter_counts, large));
    hdr_reset(&c->large);
    c->large_sumsq = 0;
}

/* Counts a gap that is an interruption or too long for the exact array: the slow path. */
static void count_slow(struct jitter_slot *s, uint64_t d, uint64_t at, uint64_t thr,
                       double ns_per_tick)
{
    if (d < JITTER_SMALL) {
        s->c.small[d]++;
    } else {
        double ns = (double)d * ns_per_tick;
        hdr_record(&s->c.large, (uint64_t)ns, 1);
        s->c.large_sumsq += (long double)ns * ns;
    }
    if (d >= thr) {
        s->c.nint++;
        s->c.int_ticks += d;
        if (s->nout < JITTER_OUT_MAX)
            s->out[s->nout++] = (struct jitter_outlier){at, d};
    }
}

#define READ1(i) t[i] = jclock_read()
#define READ4(i)                                                                                   \
    READ1(i);                                                                                      \
    READ1(i + 1);                                                                                  \
    READ1(i + 2);                                                                                  \
    READ1(i + 3)

static void *spin_main(void *arg)
{
    struct jitter_cpu *k = arg;
    struct jitter_run *r = k->run;
    const uint64_t thr = r->cfg.threshold_ticks;
    const uint64_t fast = thr < JITTER_SMALL ? thr : JITTER_SMALL;
    const double ns_per_tick = 1e9 / r->cfg.hz;
    uint64_t t[JITTER_BLOCK + 1];

    atomic_store_explicit(&k->ready, 1, memory_order_release);
    /* go's release store (after start_tick is set) pairs with this acquire load */
    while (!atomic_load_explicit(&r->go, memory_order_acquire))
        ;
    const uint64_t end = r->start_tick + r->cfg.duration_ticks;
    uint64_t n = 0;
    struct jitter_slot *s = &k->slots[0];
    s->c.start = r->start_tick;
    s->c.end = r->start_tick + r->cfg.report_ticks;
    if (s->c.end > end)
        s->c.end = end;
    s->c.periods = 1;
    uint64_t prev = jclock_read();
    for (;;) {
        t[0] = prev;
        READ4(1);
        READ4(5);
        READ4(9);
        READ4(13);
        /* the block's gaps are counted only now, so no branch sits between two reads */
        for (int i = 1; i <= JITTER_BLOCK; i++) {
            uint64_t d = t[i] - t[i - 1];
            if (d > s->c.max) {
                s->c.max = d;
                s->c.max_at = t[i - 1];
            }
            if (d < fast)
                s->c.small[d]++;
            else
                count_slow(s, d, t[i - 1], thr, ns_per_tick);
        }
        s->c.reads += JITTER_BLOCK;
        prev = t[JITTER_BLOCK];
        if (prev < s->c.end)
            continue;
        /* stop is a plain flag: a late look costs one more interval at most */
        int last = prev >= end || atomic_load_explicit(&r->stop, memory_order_relaxed);
        uint64_t rel = atomic_load_explicit(&k->released, memory_order_acquire);
        if (!last && n + 2 - rel > JITTER_SLOTS) {
            /* no free slot: this one covers the next period too */
            s->c.end += r->cfg.report_ticks;
            if (s->c.end > end)
                s->c.end = end;
            s->c.periods++;
            continue;
        }
        uint64_t boundary = s->c.end;
        if (last)
            s->c.end = prev;
        atomic_store_explicit(&k->published, ++n, memory_order_release);
        if (last)
            break;
        s = &k->slots[n % JITTER_SLOTS];
        s->c.start = boundary;
        s->c.end = boundary + r->cfg.report_ticks;
        if (s->c.end > end)
            s->c.end = end;
        s->c.periods = 1;
    }
    atomic_store_explicit(&k->ended, 1, memory_order_release);
    return NULL;
}

static void empty_slot(struct jitter_slot *s)
{
    jitter_counts_reset(&s->c);
    s->nout = 0;
}

int jitter_start(struct jitter_run *r, const struct jitter_config *c, char *err, size_t errlen)
{
    int rc = 0;
    memset(r, 0, sizeof(*r));
    r->cfg = *c;
    r->cpu = calloc(c->ncpu, sizeof(*r->cpu));
    if (!r->cpu) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    for (unsigned i = 0; i < c->ncpu; i++) {
        struct jitter_cpu *k = &r->cpu[i];
        k->run = r;
        k->cpu = c->cpus[i];
        /* malloc and fill, so every page is touched now rather than on the first gap */
        k->slots = malloc(JITTER_SLOTS * sizeof(*k->slots));
        if (!k->slots) {
            snprintf(err, errlen, "out of memory");
            rc = -ENOMEM;
            goto fail;
        }
        for (int j = 0; j < JITTER_SLOTS; j++) {
            memset(&k->slots[j], 0, sizeof(k->slots[j]));
            empty_slot(&k->slots[j]);
        }
    }
    for (unsigned i = 0; i < c->ncpu; i++) {
        struct jitter_cpu *k = &r->cpu[i];
        pthread_attr_t a;
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(k->cpu, &set);
        pthread_attr_init(&a);
        int e = pthread_attr_setaffinity_np(&a, sizeof(set), &set);
        if (e == 0)
            e = pthread_create(&k->thread, &a, spin_main, k);
        pthread_attr_destroy(&a);
        if (e) {
            snprintf(err, errlen, "cannot run a thread on CPU %d: %s", k->cpu, strerror(e));
            rc = -e;
            goto fail;
        }
        k->created = 1;
    }
    for (unsigned i = 0; i < c->ncpu; i++) {
        while (!atomic_load_explicit(&r->cpu[i].ready, memory_order_acquire))
            sched_yield();
    }
    r->start_tick = jclock_read();
    atomic_store_explicit(&r->go, 1, memory_order_release);
    return 0;
fail:
    atomic_store_explicit(&r->stop, 1, memory_order_relaxed);
    r->start_tick = jclock_read();
    r->cfg.duration_ticks = 0;
    atomic_store_explicit(&r->go, 1, memory_order_release);
    jitter_join(r);
    return rc;
}

void jitter_stop(struct jitter_run *r)
{
    atomic_store_explicit(&r->stop, 1, memory_order_relaxed);
}

const struct jitter_slot *jitter_next(struct jitter_run *r, unsigned k)
{
    struct jitter_cpu *c = &r->cpu[k];
    uint64_t rel = atomic_load_explicit(&c->released, memory_order_relaxed);
    if (atomic_load_explicit(&c->published, memory_order_acquire) <= rel)
        return NULL;
    return &c->slots[rel % JITTER_SLOTS];
}

void jitter_release(struct jitter_run *r, unsigned k)
{
    struct jitter_cpu *c = &r->cpu[k];
    uint64_t rel = atomic_load_explicit(&c->released, memory_order_relaxed);
    empty_slot(&c->slots[rel % JITTER_SLOTS]);
    atomic_store_explicit(&c->released, rel + 1, memory_order_release);
}

int jitter_ended(struct jitter_run *r, unsigned k)
{
    return atomic_load_explicit(&r->cpu[k].ended, memory_order_acquire);
}

void jitter_join(struct jitter_run *r)
{
    if (!r->cpu)
        return;
    for (unsigned i = 0; i < r->cfg.ncpu; i++) {
        if (r->cpu[i].created)
            pthread_join(r->cpu[i].thread, NULL);
        free(r->cpu[i].slots);
    }
    free(r->cpu);
    r->cpu = NULL;
}

void jitter_counts_add(struct jitter_counts *dst, const struct jitter_counts *src)
{
    if (!dst->reads && !dst->periods) {
        dst->start = src->start;
        dst->end = src->end;
    }
    if (src->start < dst->start)
        dst->start = src->start;
    if (src->end > dst->end)
        dst->end = src->end;
    dst->periods += src->periods;
    dst->reads += src->reads;
    if (src->max > dst->max) {
        dst->max = src->max;
        dst->max_at = src->max_at;
    }
    dst->nint += src->nint;
    dst->int_ticks += src->int_ticks;
    for (unsigned i = 0; i < JITTER_SMALL; i++)
        dst->small[i] += src->small[i];
    hdr_add(&dst->large, &src->large);
    dst->large_sumsq += src->large_sumsq;
}

void jitter_counts_hdr(const struct jitter_counts *c, double hz, struct hdr *out)
{
    hdr_reset(out);
    for (unsigned t = 0; t < JITTER_SMALL; t++) {
        if (c->small[t])
            hdr_record(out, (uint64_t)(jclock_ns(t, hz) + 0.5), c->small[t]);
    }
    hdr_add(out, &c->large);
}

void jitter_counts_int_hdr(const struct jitter_counts *c, uint64_t threshold_ticks, double hz,
                           struct hdr *out)
{
    hdr_reset(out);
    for (uint64_t t = threshold_ticks; t < JITTER_SMALL; t++) {
        if (c->small[t])
            hdr_record(out, (uint64_t)(jclock_ns(t, hz) + 0.5), c->small[t]);
    }
    if (!c->large.total)
        return;
    unsigned from = fpl_hdr_index((uint64_t)jclock_ns(threshold_ticks, hz));
    for (unsigned i = from; i < FPL_HDR_COUNTS; i++) {
        if (c->large.counts[i])
            hdr_record_index(out, i, c->large.counts[i]);
    }
    if (out->total && c->large.max > 0 && out->max > c->large.max)
        out->max = c->large.max;
}
