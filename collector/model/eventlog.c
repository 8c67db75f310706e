/* eventlog.c: a log's events grouped by thread, their selection and interval table (see
 * eventlog.h). */
#include "eventlog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_format.h"

#define NAME_MAX_BYTES 256

/* Drops read for a thread whose next event has not come yet. */
struct eventlog_pending {
    uint64_t thread_id;
    uint64_t dropped;
};

/* arr with room for need elements (capacity in *cap), or NULL when out of memory (arr stays
 * the caller's). */
static void *grow(void *arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap && arr)
        return arr;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *p = realloc(arr, c * elem);
    if (p)
        *cap = c;
    return p;
}

/* Takes the drops waiting for thread_id (0 when none). */
static uint64_t take_pending(struct eventlog *el, uint64_t thread_id)
{
    for (size_t i = 0; i < el->npending; i++) {
        if (el->pending[i].thread_id == thread_id) {
            uint64_t d = el->pending[i].dropped;
            el->pending[i] = el->pending[--el->npending];
            return d;
        }
    }
    return 0;
}

static int on_event(void *ctx, const struct reader_event *e)
{
    struct eventlog *el = ctx;
    size_t n = el->nevents;
    void *q = grow(el->events, &el->events_cap, n + 1, sizeof(*el->events));
    if (!q)
        return -ENOMEM;
    el->events = q;
    q = grow(el->event_thread, &el->event_thread_cap, n + 1, sizeof(*el->event_thread));
    if (!q)
        return -ENOMEM;
    el->event_thread = q;
    size_t len = e->s.len;
    if (len > UINT32_MAX || el->strings_len > UINT32_MAX - len)
        return -ENOMEM; /* offsets are 32-bit: 4 GiB of strings */
    q = grow(el->strings, &el->strings_cap, el->strings_len + len, 1);
    if (!q)
        return -ENOMEM;
    el->strings = q;
    struct eventlog_event *ev = &el->events[n];
    ev->ticks = e->ticks;
    ev->n = e->n;
    ev->flags = e->flags;
    ev->dropped = e->dropped + (el->npending ? take_pending(el, e->thread_id) : 0);
    ev->str_off = (uint32_t)el->strings_len;
    ev->str_len = (uint32_t)len;
    memcpy(el->strings + el->strings_len, e->s.s, len);
    el->strings_len += len;
    el->event_thread[n] = e->thread_id;
    el->nevents = n + 1;
    return 0;
}

static int on_drops(void *ctx, uint64_t thread_id, uint64_t dropped_after)
{
    struct eventlog *el = ctx;
    for (size_t i = 0; i < el->npending; i++) {
        if (el->pending[i].thread_id == thread_id) {
            el->pending[i].dropped += dropped_after;
            return 0;
        }
    }
    void *q = grow(el->pending, &el->pending_cap, el->npending + 1, sizeof(*el->pending));
    if (!q)
        return -ENOMEM;
    el->pending = q;
    el->pending[el->npending].thread_id = thread_id;
    el->pending[el->npending].dropped = dropped_after;
    el->npending++;
    return 0;
}

/* A thread id's group: the kernel tid of a defined thread; an undefined id (its THREAD record
 * was lost), and id 0 (events dropped before a thread had a buffer), stand alone. */
struct key {
    uint64_t tid; /* os_tid, or the thread id itself when undefined */
    int undefined;
    uint64_t thread_id;
    uint32_t group;
};

static int key_cmp(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    if (x->undefined != y->undefined)
        return x->undefined < y->undefined ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return 0;
}

static int key_by_id(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    return x->thread_id < y->thread_id ? -1 : x->thread_id > y->thread_id;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The distinct thread ids of events and pending drops, sorted, in *ids. */
static int distinct_ids(struct eventlog *el, uint64_t **ids, size_t *n)
{
    size_t total = el->nevents + el->npending;
    uint64_t *v = malloc((total ? total : 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    size_t k = 0;
    uint64_t last = 0;
    int have = 0;
    /* most runs of events share a thread: skip repeats cheaply before sorting */
    for (size_t i = 0; i < el->nevents; i++) {
        if (have && el->event_thread[i] == last)
            continue;
        last = v[k++] = el->event_thread[i];
        have = 1;
    }
    for (size_t i = 0; i < el->npending; i++)
        v[k++] = el->pending[i].thread_id;
    qsort(v, k, sizeof(*v), u64_cmp);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (!u || v[i] != v[u - 1])
            v[u++] = v[i];
    *ids = v;
    *n = u;
    return 0;
}

/* The name a thread id is shown with (buf holds it when made up). */
static const char *thread_name(struct eventlog *el, const struct key *k, char *buf, size_t len)
{
    if (k->thread_id == 0)
        return "[no thread: buffer allocation failed]";
    const struct profile_thread *t = profile_thread_find(el->p, k->thread_id);
    if (t)
        return t->display;
    snprintf(buf, len, "%s (id %llu)", PROFILE_UNKNOWN_THREAD, (unsigned long long)k->thread_id);
    return buf;
}

/* Threads by the time of their first event; those with drops only last. */
static int thread_by_start(const void *a, const void *b, void *ctx)
{
    const struct eventlog *el = ctx;
    const struct eventlog_thread *x = a, *y = b;
    uint64_t tx = x->count ? el->events[x->first].ticks : UINT64_MAX;
    uint64_t ty = y->count ? el->events[y->first].ticks : UINT64_MAX;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return x->os_tid < y->os_tid ? -1 : x->os_tid > y->os_tid;
}

/* Groups the events read by thread (stable: each thread's events stay in the order read). */
static int group(struct eventlog *el)
{
    uint64_t *ids = NULL;
    size_t nids = 0;
    int rc = distinct_ids(el, &ids, &nids);
    if (rc)
        return rc;
    struct key *keys = calloc(nids ? nids : 1, sizeof(*keys));
    if (!keys) {
        free(ids);
        return -ENOMEM;
    }
    for (size_t i = 0; i < nids; i++) {
        const struct profile_thread *t = ids[i] ? profile_thread_find(el->p, ids[i]) : NULL;
        keys[i].thread_id = ids[i];
        keys[i].undefined = !t || !t->os_tid;
        keys[i].tid = t && t->os_tid ? t->os_tid : ids[i];
    }
    free(ids);
    /* one group per tid, named after the tid's thread id seen last in the dictionary order */
    qsort(keys, nids, sizeof(*keys), key_cmp);
    size_t ngroups = 0;
    for (size_t i = 0; i < nids; i++) {
        if (i == 0 || key_cmp(&keys[i], &keys[i - 1]) != 0)
            ngroups++;
        keys[i].group = (uint32_t)(ngroups - 1);
    }
    el->threads = calloc(ngroups ? ngroups : 1, sizeof(*el->threads));
    size_t *counts = calloc(ngroups ? ngroups : 1, sizeof(*counts));
    struct eventlog_event *sorted = malloc((el->nevents ? el->nevents : 1) * sizeof(*sorted));
    if (!el->threads || !counts || !sorted) {
        free(keys);
        free(counts);
        free(sorted);
        return -ENOMEM;
    }
    el->nthreads = ngroups;
    for (size_t i = 0; i < nids; i++)
        el->threads[keys[i].group].os_tid = keys[i].undefined ? 0 : keys[i].tid;
    qsort(keys, nids, sizeof(*keys), key_by_id);
    /* counting sort by group, stable */
    uint32_t *gof = malloc((el->nevents ? el->nevents : 1) * sizeof(*gof));
    uint64_t *last = calloc(ngroups ? ngroups : 1, sizeof(*last)); /* a group's newest id */
    if (!gof || !last) {
        free(gof);
        free(last);
        free(keys);
        free(counts);
        free(sorted);
        return -ENOMEM;
    }
    uint64_t last_id = 0;
    uint32_t last_group = 0;
    int have = 0;
    for (size_t i = 0; i < el->nevents; i++) {
        uint64_t id = el->event_thread[i];
        if (!have || id != last_id) {
            struct key probe = {.thread_id = id};
            const struct key *k = bsearch(&probe, keys, nids, sizeof(*keys), key_by_id);
            last_group = k ? k->group : 0;
            last_id = id;
            have = 1;
        }
        gof[i] = last_group;
        counts[last_group]++;
        last[last_group] = id;
    }
    size_t at = 0;
    for (size_t g = 0; g < ngroups; g++) {
        el->threads[g].first = at;
        el->threads[g].count = 0;
        at += counts[g];
    }
    for (size_t i = 0; i < el->nevents; i++) {
        struct eventlog_thread *t = &el->threads[gof[i]];
        struct eventlog_event *e = &sorted[t->first + t->count++];
        *e = el->events[i];
        t->dropped += e->dropped;
        t->truncated += (e->flags & FPL_EVENT_TRUNCATED) != 0;
    }
    for (size_t i = 0; i < el->npending; i++) {
        struct key probe = {.thread_id = el->pending[i].thread_id};
        const struct key *k = bsearch(&probe, keys, nids, sizeof(*keys), key_by_id);
        if (k) {
            el->threads[k->group].dropped_after += el->pending[i].dropped;
            el->threads[k->group].dropped += el->pending[i].dropped;
            if (!counts[k->group])
                last[k->group] = k->thread_id;
        }
    }
    /* a thread is shown with the name it had at its last event (a renamed thread keeps its
     * events together) */
    char buf[NAME_MAX_BYTES];
    for (size_t g = 0; g < ngroups && rc == 0; g++) {
        struct key probe = {.thread_id = last[g]};
        const struct key *k = bsearch(&probe, keys, nids, sizeof(*keys), key_by_id);
        if (k && !(el->threads[g].name = strdup(thread_name(el, k, buf, sizeof(buf)))))
            rc = -ENOMEM;
        else if (!k && !(el->threads[g].name = strdup("?")))
            rc = -ENOMEM;
    }
    free(last);
    free(gof);
    free(keys);
    free(counts);
    free(el->events);
    el->events = sorted;
    el->first_ticks = UINT64_MAX;
    for (size_t i = 0; i < el->nevents; i++)
        if (el->events[i].ticks < el->first_ticks)
            el->first_ticks = el->events[i].ticks;
    qsort_r(el->threads, el->nthreads, sizeof(*el->threads), thread_by_start, el);
    return rc;
}

void eventlog_free(struct eventlog *el)
{
    if (!el)
        return;
    for (size_t i = 0; i < el->nthreads; i++)
        free((char *)el->threads[i].name);
    free(el->threads);
    free(el->events);
    free(el->event_thread);
    free(el->strings);
    free(el->pending);
    profile_free(el->p);
    free(el);
}

struct eventlog *eventlog_read(const char *path, const struct profile_time *from,
                               const struct profile_time *to, char *err, size_t errlen)
{
    struct eventlog *el = calloc(1, sizeof(*el));
    if (!el || !(el->p = profile_new())) {
        free(el);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int rc = profile_set_window_times(el->p, from, to, err, errlen);
    if (rc == 0) {
        struct profile_event_sink sink = {on_event, on_drops, el};
        profile_set_event_sink(el->p, &sink);
        rc = profile_read_file(el->p, path, err, errlen);
    }
    if (rc == 0 && (rc = group(el)) != 0)
        snprintf(err, errlen, "'%s': out of memory", path);
    free(el->event_thread);
    el->event_thread = NULL;
    if (rc) {
        eventlog_free(el);
        return NULL;
    }
    return el;
}

int eventlog_thread_selected(const struct eventlog *el, const struct eventlog_select *sel,
                             const struct eventlog_thread *t)
{
    (void)el;
    return !sel || !sel->thread || regexec(sel->thread, t->name, 0, NULL, 0) == 0;
}

int eventlog_selected(const struct eventlog *el, const struct eventlog_select *sel,
                      const struct eventlog_thread *t, size_t i)
{
    const struct profile_window *w = &el->p->window;
    if (!eventlog_thread_selected(el, sel, t))
        return 0;
    if (!w->set)
        return 1;
    if (!w->resolved)
        return 0; /* no clock information: nothing can be placed in the window */
    uint64_t ticks = el->events[i].ticks;
    return (!w->has_from || ticks >= w->from_ticks) && (!w->has_to || ticks < w->to_ticks);
}

int64_t eventlog_ns(const struct eventlog *el, uint64_t a, uint64_t b)
{
    if (b >= a) {
        uint64_t ns = profile_ticks_to_ns(el->p, b - a);
        return ns > INT64_MAX ? INT64_MAX : (int64_t)ns;
    }
    uint64_t ns = profile_ticks_to_ns(el->p, a - b);
    return ns > INT64_MAX ? INT64_MIN : -(int64_t)ns;
}

/* One interval while the table is built. */
struct interval {
    int64_t from, to, ns;
};

static int interval_cmp(const void *a, const void *b)
{
    const struct interval *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    return x->ns < y->ns ? -1 : x->ns > y->ns;
}

/* The nearest-rank q-quantile of v[0..n), sorted, n > 0. */
static int64_t rank(const struct interval *v, size_t n, unsigned q_percent)
{
    size_t k = (n * q_percent + 99) / 100; /* ceil(n * q) */
    return v[k ? k - 1 : 0].ns;
}

int eventlog_pairs(const struct eventlog *el, const struct eventlog_select *sel,
                   struct eventlog_pair **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    struct interval *v = malloc((el->nevents ? el->nevents : 1) * sizeof(*v));
    if (!v)
        return -ENOMEM;
    size_t nv = 0;
    for (size_t t = 0; t < el->nthreads; t++) {
        const struct eventlog_thread *th = &el->threads[t];
        if (!eventlog_thread_selected(el, sel, th))
            continue;
        for (size_t i = th->first + 1; i < th->first + th->count; i++) {
            const struct eventlog_event *a = &el->events[i - 1], *b = &el->events[i];
            if (b->dropped || !eventlog_selected(el, sel, th, i - 1) ||
                !eventlog_selected(el, sel, th, i))
                continue;
            v[nv].from = a->n;
            v[nv].to = b->n;
            v[nv].ns = eventlog_ns(el, a->ticks, b->ticks);
            nv++;
        }
    }
    qsort(v, nv, sizeof(*v), interval_cmp);
    size_t rows = 0;
    for (size_t i = 0; i < nv; i++)
        rows += i == 0 || v[i].from != v[i - 1].from || v[i].to != v[i - 1].to;
    struct eventlog_pair *p = calloc(rows ? rows : 1, sizeof(*p));
    if (!p) {
        free(v);
        return -ENOMEM;
    }
    size_t r = 0;
    for (size_t i = 0; i < nv;) {
        size_t j = i;
        while (j < nv && v[j].from == v[i].from && v[j].to == v[i].to)
            j++;
        p[r].from = v[i].from;
        p[r].to = v[i].to;
        p[r].count = j - i;
        p[r].min = v[i].ns;
        p[r].max = v[j - 1].ns;
        p[r].p50 = rank(v + i, j - i, 50);
        p[r].p99 = rank(v + i, j - i, 99);
        r++;
        i = j;
    }
    free(v);
    *out = p;
    *n = rows;
    return 0;
}
