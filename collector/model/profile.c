/* profile.c: aggregates a .fpl log into dictionaries and (thread, stack, kind, state) cells.
 * The per-sample path is a check of the previous sample's cell, else one probe of the cell
 * index (hashtab.h), and no allocation but the doubling of the cells; a wall sample adds one
 * probe of the tick index. The cells are the profile's entries from the start: no second copy
 * is made when reading ends. */
#include "profile.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jfr_import.h"
#include "names.h"
#include "spill.h"
#include "timeline.h"

#define ARENA_BLOCK (1u << 20)
#define PREFAULT_MIN (1u << 20) /* regions this big are populated in one call */

/* Maps the pages of [a, a + n) that lie wholly inside it, before they are written: a big
 * profile's arrays take hundreds of MB, and on a virtual machine the page fault that maps each
 * 4 KiB page on its first write costs more than writing it (a tenth of the read was spent in
 * faults); one madvise maps a region's pages at once. A hint: its failure (an older kernel)
 * changes nothing. */
static void prefault(void *a, size_t n)
{
#ifdef MADV_POPULATE_WRITE
    uintptr_t pg = 4096;
    uintptr_t lo = ((uintptr_t)a + pg - 1) & ~(pg - 1), hi = ((uintptr_t)a + n) & ~(pg - 1);
    if (n >= PREFAULT_MIN && hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
    (void)a;
    (void)n;
#endif
}

struct profile_arena_block {
    struct profile_arena_block *next;
    size_t used;
    size_t cap;
    _Alignas(16) unsigned char data[];
};

/* Bump allocation for dictionary strings and arrays, freed all at once. */
static void *arena_alloc(struct profile *p, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    struct profile_arena_block *b = p->arena;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
        struct profile_arena_block *nb = malloc(sizeof(*nb) + cap);
        if (!nb)
            return NULL;
        if (b && cap == ARENA_BLOCK) /* a profile past its first block is a big one */
            prefault(nb->data, cap);
        nb->used = 0;
        nb->cap = cap;
        if (b && cap != ARENA_BLOCK) {
            /* a big allocation gets its own block behind the current one, which stays open */
            nb->next = b->next;
            b->next = nb;
        } else {
            nb->next = b;
            p->arena = nb;
        }
        b = nb;
    }
    void *r = b->data + b->used;
    b->used += n;
    return r;
}

/* A NUL-terminated copy of a logged string; an embedded NUL becomes '_'. */
static const char *arena_str(struct profile *p, struct reader_str s)
{
    char *d = arena_alloc(p, s.len + 1);
    if (!d)
        return NULL;
    for (size_t i = 0; i < s.len; i++)
        d[i] = s.s[i] ? s.s[i] : '_';
    d[s.len] = 0;
    return d;
}

/* The length of a valid UTF-8 sequence at s[0..len), 0 when the bytes there are not one. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
    unsigned char c = s[0];
    size_t n = c < 0x80                 ? 1
               : c >= 0xc2 && c <= 0xdf ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
    if (n == 0 || n > len)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    }
    /* overlong forms, surrogates and code points past U+10FFFF */
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) || (c == 0xf0 && s[1] < 0x90) ||
        (c == 0xf4 && s[1] >= 0x90))
        return 0;
    return n;
}

/* A surrogate pair of JVM modified UTF-8 (CESU-8: ED A0-AF xx ED B0-BF xx) at s[0..len)
 * decoded into its code point, or 0. */
static uint32_t cesu_pair(const unsigned char *s, size_t len)
{
    if (len < 6 || s[0] != 0xed || (s[1] & 0xf0) != 0xa0 || (s[2] & 0xc0) != 0x80 || s[3] != 0xed ||
        (s[4] & 0xf0) != 0xb0 || (s[5] & 0xc0) != 0x80)
        return 0;
    uint32_t hi = 0xd000u | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
    uint32_t lo = 0xd000u | (uint32_t)(s[4] & 0x3f) << 6 | (s[5] & 0x3f);
    return 0x10000u + ((hi - 0xd800u) << 10) + (lo - 0xdc00u);
}

/* Cleans src[0..len) into dst (when not NULL) up to cap - 1 bytes, never splitting a
 * character; returns the length of the cleaned text (all of it when dst is NULL). With
 * keep_semicolon (plain text, not a folded frame) ';' stays and the modified UTF-8 NUL is a
 * control character ('_'); without, ';' becomes '_' and the NUL U+FFFD (FORMAT.md 11). */
static size_t clean_text(char *dst, size_t cap, const char *src, size_t len, int keep_semicolon)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t i = 0, o = 0;
    while (i < len) {
        unsigned char out[4];
        size_t in, n;
        uint32_t cp;
        if ((s[i] == ';' && !keep_semicolon) || s[i] < 0x20 || s[i] == 0x7f) {
            out[0] = '_';
            n = in = 1;
        } else if (keep_semicolon && s[i] == 0xc0 && i + 1 < len && s[i + 1] == 0x80) {
            out[0] = '_'; /* U+0000 in modified UTF-8: a control character like the others */
            n = 1;
            in = 2;
        } else if ((in = utf8_seq(s + i, len - i)) != 0) {
            memcpy(out, s + i, in);
            n = in;
        } else if ((cp = cesu_pair(s + i, len - i)) != 0) {
            out[0] = (unsigned char)(0xf0 | cp >> 18);
            out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
            out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
            out[3] = (unsigned char)(0x80 | (cp & 0x3f));
            n = 4;
            in = 6;
        } else {
            memcpy(out, "\xef\xbf\xbd", 3); /* U+FFFD for a byte that is not text */
            n = 3;
            in = 1;
        }
        if (dst) {
            if (o + n > cap - 1)
                break;
            memcpy(dst + o, out, n);
        }
        o += n;
        i += in;
    }
    if (dst)
        dst[o] = 0;
    return o;
}

static size_t clean(char *dst, size_t cap, const char *src, size_t len)
{
    return clean_text(dst, cap, src, len, 0);
}

size_t profile_clean(char *dst, size_t cap, const char *src, size_t len)
{
    return clean(dst, cap, src, len);
}

size_t profile_clean_text(char *dst, size_t cap, const char *src, size_t len)
{
    return clean_text(dst, cap, src, len, 1);
}

/* A cleaned copy (see profile_clean) of the concatenation a + sep + b. */
static const char *arena_display(struct profile *p, const char *a, const char *sep, const char *b)
{
    size_t la = strlen(a), ls = strlen(sep), lb = strlen(b);
    size_t ca = clean(NULL, 0, a, la), cb = clean(NULL, 0, b, lb);
    char *d = arena_alloc(p, ca + ls + cb + 1);
    if (!d)
        return NULL;
    clean(d, ca + 1, a, la);
    memcpy(d + ca, sep, ls);
    clean(d + ca + ls, cb + 1, b, lb);
    return d;
}

/* "class.name" with the class's run-to-run parts dropped (names.h). */
static const char *display_normalized(struct profile *p, const char *cls, const char *name)
{
    char small[512], *c = small;
    size_t n = strlen(cls);
    if (n >= sizeof(small) && !(c = malloc(n + 1)))
        return NULL;
    memcpy(c, cls, n + 1);
    names_class(c);
    const char *d = arena_display(p, c, ".", name);
    if (c != small)
        free(c);
    return d;
}

/* The dictionary index of id: ids are looked up in the dictionary array itself (the id of
 * element k is at base + k * stride, the first field of each entry), so the index holds no
 * keys of its own. */
_Static_assert(offsetof(struct profile_thread, id) == 0 &&
                   offsetof(struct profile_method, id) == 0 &&
                   offsetof(struct profile_stack, id) == 0,
               "dictionary entries start with their id");
static uint32_t dict_find(const struct hashtab *t, const void *base, size_t stride, uint64_t id)
{
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(t, fpl_hash_u64(id), &pr); k != HASHTAB_NONE;
         k = hashtab_next(t, &pr)) {
        uint64_t kid;
        memcpy(&kid, (const char *)base + (size_t)k * stride, sizeof(kid));
        if (kid == id)
            return k;
    }
    return PROFILE_NONE;
}

/* The array with room for element n (reallocated, capacity doubling, when full), or NULL
 * when out of memory (the old array stays valid). Indices stay below PROFILE_NONE. The pages
 * ahead of element n are mapped PREFAULT_MIN bytes at a time as the elements reach them, not
 * the whole doubled capacity at once: the room the last doubling left (up to half the array)
 * never becomes resident, so a big profile's peak memory is what its elements take. */
static void *grow(void *arr, size_t *cap, size_t n, size_t elem)
{
    if (n >= *cap) {
        if (n >= PROFILE_NONE - 1)
            return NULL;
        size_t c = *cap ? *cap * 2 : 16;
        char *q = realloc(arr, c * elem);
        if (!q)
            return NULL;
        arr = q;
        *cap = c;
    }
    size_t at = n * elem, end = *cap * elem;
    if (at % PREFAULT_MIN < elem && end - at >= PREFAULT_MIN) {
        /* element n is the first to start in this step: map the step from its page on */
        uintptr_t a = ((uintptr_t)arr + at) & ~(uintptr_t)4095;
        uintptr_t lo = a < (uintptr_t)arr ? (uintptr_t)arr : a;
        prefault((void *)lo, (uintptr_t)arr + at + PREFAULT_MIN - lo);
    }
    return arr;
}

/* The index of id in a dictionary of *n entries whose ids are at base + k * stride: the
 * existing one (a redefinition replaces the entry), or *n for a new id, for which the caller
 * has made room (and stores the id there). */
static int dict_slot(struct hashtab *t, const void *base, size_t stride, size_t *n, uint64_t id,
                     uint32_t *idx)
{
    uint32_t i = dict_find(t, base, stride, id);
    if (i != PROFILE_NONE) {
        *idx = i;
        return 0;
    }
    if (hashtab_add(t, fpl_hash_u64(id), (uint32_t)*n))
        return -ENOMEM;
    *idx = (uint32_t)(*n)++;
    return 0;
}

/* base + the first tick whose elapsed time is at least ns (ns * den / num rounded up; down
 * for a negative ns), saturating. */
static uint64_t window_ticks(const struct profile_window *w, int64_t ns)
{
    if (ns >= 0) {
        unsigned __int128 d = ((unsigned __int128)ns * w->den + w->num - 1) / w->num;
        return d > UINT64_MAX - w->base_ticks ? UINT64_MAX : w->base_ticks + (uint64_t)d;
    }
    unsigned __int128 d = (unsigned __int128)(-(ns + 1) + (uint64_t)1) * w->den / w->num;
    return d > w->base_ticks ? 0 : w->base_ticks - (uint64_t)d;
}

/* A clock time (ns after midnight) on the day of real_ns, local time; the next day when that
 * is more than 12 h before real_ns. Returns ns since the epoch, or 0 when it cannot be
 * placed. */
static uint64_t clock_on_day(uint64_t real_ns, uint64_t clock_ns)
{
    time_t start = (time_t)(real_ns / 1000000000ull);
    struct tm tm;
    if (!localtime_r(&start, &tm))
        return 0;
    for (int next = 0; next < 2; next++) {
        struct tm d = tm;
        d.tm_mday += next;
        d.tm_hour = (int)(clock_ns / 3600000000000ull);
        d.tm_min = (int)(clock_ns / 60000000000ull % 60);
        d.tm_sec = (int)(clock_ns / 1000000000ull % 60);
        d.tm_isdst = -1;
        time_t t = mktime(&d);
        if (t == (time_t)-1 || t < 0)
            return 0;
        uint64_t ns = (uint64_t)t * 1000000000ull + clock_ns % 1000000000ull;
        if (ns + 12 * 3600000000000ull >= real_ns)
            return ns;
    }
    return 0;
}

/* A window bound as signed ns after the base. */
static int64_t window_rel(const struct profile_window *w, const struct profile_time *t)
{
    uint64_t real;
    if (t->kind == PROFILE_TIME_REL)
        return t->ns > INT64_MAX ? INT64_MAX : (int64_t)t->ns;
    real = t->kind == PROFILE_TIME_REAL ? t->ns : clock_on_day(w->base_real_ns, t->ns);
    if (real >= w->base_real_ns)
        return real - w->base_real_ns > INT64_MAX ? INT64_MAX : (int64_t)(real - w->base_real_ns);
    return w->base_real_ns - real > INT64_MAX ? INT64_MIN : -(int64_t)(w->base_real_ns - real);
}

/* Computes the window's bounds from the base and the conversion in force. */
static void window_resolve(struct profile *p)
{
    struct profile_window *w = &p->window;
    if (!w->set || !w->have_base || !w->num || !w->den)
        return;
    w->has_from = w->from.kind != PROFILE_TIME_NONE;
    w->has_to = w->to.kind != PROFILE_TIME_NONE;
    if (!w->resolved) {
        /* relative bounds are fixed once; only their ticks follow a refined frequency */
        w->from_ns = w->has_from ? window_rel(w, &w->from) : 0;
        w->to_ns = w->has_to ? window_rel(w, &w->to) : INT64_MAX;
    }
    w->from_ticks = w->has_from ? window_ticks(w, w->from_ns) : 0;
    w->to_ticks = w->has_to ? window_ticks(w, w->to_ns) : UINT64_MAX;
    w->resolved = 1;
}

/* A clock reference for the window: the HEADER's anchor wins over an earlier ANCHOR. */
static void window_base(struct profile *p, uint64_t ticks, uint64_t mono, uint64_t real,
                        uint64_t tps)
{
    struct profile_window *w = &p->window;
    if (w->have_base && (w->base_is_header || !tps)) {
        /* a later anchor refines the frequency as finish_time will (FORMAT.md section 9) */
        if (mono > w->base_mono_ns && mono - w->base_mono_ns > 1000000000ull &&
            ticks > w->base_ticks) {
            w->num = mono - w->base_mono_ns;
            w->den = ticks - w->base_ticks;
            window_resolve(p);
        }
        return;
    }
    if (w->resolved && !tps)
        return;
    w->have_base = 1;
    w->base_is_header = tps != 0;
    w->base_ticks = ticks;
    w->base_mono_ns = mono;
    w->base_real_ns = real;
    w->num = tps ? 1000000000ull : 0;
    w->den = tps;
    w->resolved = 0;
    window_resolve(p);
}

static int on_header(void *ctx, const struct reader_header *h)
{
    struct profile *p = ctx;
    /* each log of several places the window by its own start (profile_read_files) */
    if (!p->log_headers++ && p->headers && p->window.set && h->ticks_per_sec)
        window_base(p, h->anchor_ticks, h->anchor_mono_ns, h->anchor_real_ns, h->ticks_per_sec);
    if (p->headers++)
        return 0;
    struct profile_header *o = &p->header;
    o->pid = h->pid;
    o->clock = h->clock;
    o->ticks_per_sec = h->ticks_per_sec;
    o->anchor_ticks = h->anchor_ticks;
    o->anchor_mono_ns = h->anchor_mono_ns;
    o->anchor_real_ns = h->anchor_real_ns;
    o->cpu_interval_ns = h->cpu_interval_ns;
    o->engine = h->engine;
    o->wall_interval_ns = h->wall_interval_ns;
    o->wall_threads = h->wall_threads;
    o->depth = h->depth;
    o->options = arena_str(p, h->options);
    o->jvm_name = arena_str(p, h->jvm_name);
    o->jvm_version = arena_str(p, h->jvm_version);
    o->command = arena_str(p, h->command);
    o->agent_version = arena_str(p, h->agent_version);
    if (!o->options || !o->jvm_name || !o->jvm_version || !o->command || !o->agent_version)
        return -ENOMEM;
    p->have_header = 1;
    if (p->window.set && h->ticks_per_sec)
        window_base(p, h->anchor_ticks, h->anchor_mono_ns, h->anchor_real_ns, h->ticks_per_sec);
    return 0;
}

static int on_anchor(void *ctx, uint64_t ticks, uint64_t mono_ns, uint64_t real_ns)
{
    struct profile *p = ctx;
    struct profile_anchor a = {ticks, mono_ns, real_ns};
    if (!p->anchors++)
        p->first_anchor = a;
    p->last_anchor = a;
    if (p->window.set)
        window_base(p, ticks, mono_ns, real_ns, 0);
    return 0;
}

static int on_thread(void *ctx, uint64_t id, uint64_t os_tid, struct reader_str name)
{
    struct profile *p = ctx;
    uint32_t i;
    id += p->id_base;
    void *q = grow(p->threads, &p->threads_cap, p->nthreads, sizeof(*p->threads));
    if (!q)
        return -ENOMEM;
    p->threads = q;
    if (dict_slot(&p->thread_index, p->threads, sizeof(*p->threads), &p->nthreads, id, &i))
        return -ENOMEM;
    struct profile_thread *t = &p->threads[i];
    t->id = id;
    t->os_tid = os_tid;
    t->java_id = 0;
    t->name = arena_str(p, name);
    t->display = t->name ? arena_display(p, "", "", t->name) : NULL;
    return t->display ? 0 : -ENOMEM;
}

static int on_thread_java_id(void *ctx, uint64_t id, uint64_t java_id)
{
    struct profile *p = ctx;
    uint32_t i = dict_find(&p->thread_index, p->threads, sizeof(*p->threads), id + p->id_base);
    if (i != PROFILE_NONE)
        p->threads[i].java_id = java_id;
    return 0;
}

static int on_method(void *ctx, const struct reader_method *rm)
{
    struct profile *p = ctx;
    uint32_t i;
    void *q = grow(p->methods, &p->methods_cap, p->nmethods, sizeof(*p->methods));
    if (!q)
        return -ENOMEM;
    p->methods = q;
    if (dict_slot(&p->method_index, p->methods, sizeof(*p->methods), &p->nmethods,
                  rm->id + p->id_base, &i))
        return -ENOMEM;
    struct profile_method *m = &p->methods[i];
    memset(m, 0, sizeof(*m));
    m->id = rm->id + p->id_base;
    m->kind = rm->kind;
    m->class_name = arena_str(p, rm->class_name);
    m->name = arena_str(p, rm->name);
    m->signature = arena_str(p, rm->signature);
    m->source_file = arena_str(p, rm->source_file);
    if (!m->class_name || !m->name || !m->signature || !m->source_file)
        return -ENOMEM;
    if (rm->kind == FPL_METHOD_MARKER || rm->kind == FPL_METHOD_CFUNC || !m->class_name[0])
        m->display = arena_display(p, "", "", m->name);
    else if (p->raw_names)
        m->display = arena_display(p, m->class_name, ".", m->name);
    else
        m->display = display_normalized(p, m->class_name, m->name);
    if (!m->display)
        return -ENOMEM;
    if (rm->nlines) {
        struct profile_line *l = arena_alloc(p, rm->nlines * sizeof(*l));
        if (!l)
            return -ENOMEM;
        for (size_t k = 0; k < rm->nlines; k++) {
            l[k].start_bci = rm->lines[k].start_bci;
            l[k].line = rm->lines[k].line;
        }
        m->lines = l;
        m->nlines = rm->nlines;
    }
    return 0;
}

static int on_stack(void *ctx, uint64_t id, const struct reader_frame *frames, size_t n)
{
    struct profile *p = ctx;
    uint32_t i;
    if (n > UINT32_MAX)
        return 0; /* cannot happen: a chunk holds at most 8M frames */
    id += p->id_base;
    void *q = grow(p->stacks, &p->stacks_cap, p->nstacks, sizeof(*p->stacks));
    if (!q)
        return -ENOMEM;
    p->stacks = q;
    if (dict_slot(&p->stack_index, p->stacks, sizeof(*p->stacks), &p->nstacks, id, &i))
        return -ENOMEM;
    p->stacks[i] = (struct profile_stack){id, 0, NULL}; /* the index compares this id */
    struct profile_frame *f = n ? arena_alloc(p, n * sizeof(*f)) : NULL;
    if (n && !f)
        return -ENOMEM;
    for (size_t k = 0; k < n; k++) {
        f[k].method_id = frames[k].method_id + p->id_base;
        f[k].method = PROFILE_NONE; /* resolved when reading finishes */
        int64_t b = frames[k].bci;
        f[k].bci = b < INT32_MIN ? INT32_MIN : b > INT32_MAX ? INT32_MAX : (int32_t)b;
        f[k].type = frames[k].type;
    }
    p->stacks[i].id = id;
    p->stacks[i].nframes = (uint32_t)n;
    p->stacks[i].frames = f;
    return 0;
}

static uint64_t cell_hash(uint64_t thread, uint64_t stack, uint8_t kind, uint8_t state)
{
    return fpl_hash_mix(fpl_hash_mix(fpl_hash_u64(thread), stack), (uint64_t)kind << 8 | state);
}

/* A WALL_TICK in profile.ticks. */
struct profile_tick {
    uint64_t id;
    uint64_t candidates;
    uint64_t chosen;
};

/* A wall sample waiting for its WALL_TICK. */
struct profile_pending {
    uint64_t tick_id;
    uint64_t weight;
    uint64_t ticks; /* when it was taken, for the timeline */
    uint64_t ctx;   /* its CONTEXT id, for the timeline */
    uint32_t cell;
};

/* The context part of a sample's cell key: its context id when cells are kept by context */
static uint64_t cell_context(const struct profile *p, const struct reader_sample *s)
{
    return p->cells_by_context ? s->context_id : 0;
}

static int cell_match(const struct profile *p, const struct profile_entry *e,
                      const struct reader_sample *s)
{
    return e->thread_id == s->thread_id && e->stack_id == s->stack_id && e->kind == s->kind &&
           e->state == s->state && e->context_id == cell_context(p, s);
}

/* The hash of the sample's cell key in p->cell_index. */
static uint64_t cell_key_hash(const struct profile *p, const struct reader_sample *s)
{
    uint64_t h = cell_hash(s->thread_id, s->stack_id, s->kind, s->state);
    return cell_context(p, s) ? fpl_hash_mix(h, cell_context(p, s)) : h;
}

/* The index of the cell of the sample's key in p->entries, a new one (zero weight and count)
 * when the key is new; PROFILE_NONE when out of memory or cells. Cells are numbered in the
 * order their first sample was read, so the cells' order does not depend on the hash. */
static uint32_t agg_cell(struct profile *p, const struct reader_sample *s)
{
    /* a thread in a hot loop repeats its cell: try the previous one first */
    if (p->cell_last < p->nentries && cell_match(p, &p->entries[p->cell_last], s))
        return p->cell_last;
    uint64_t h = cell_key_hash(p, s);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&p->cell_index, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&p->cell_index, &pr)) {
        if (cell_match(p, &p->entries[k], s))
            return p->cell_last = k;
    }
    void *q = grow(p->entries, &p->entries_cap, p->nentries, sizeof(*p->entries));
    if (!q)
        return PROFILE_NONE;
    p->entries = q;
    uint32_t k = (uint32_t)p->nentries;
    if (hashtab_add(&p->cell_index, h, k))
        return PROFILE_NONE;
    p->entries[k] = (struct profile_entry){.thread_id = s->thread_id,
                                           .stack_id = s->stack_id,
                                           .thread = PROFILE_NONE,
                                           .stack = PROFILE_NONE,
                                           .kind = s->kind,
                                           .state = s->state,
                                           .context_id = cell_context(p, s)};
    p->nentries++;
    return p->cell_last = k;
}

void profile_fp_add(unsigned __int128 *acc, unsigned __int128 v)
{
    unsigned __int128 sum = *acc + v;
    *acc = sum < v ? ~(unsigned __int128)0 : sum;
}

unsigned __int128 profile_fp_scale(uint64_t weight, uint64_t candidates, uint64_t chosen)
{
    /* (weight * candidates << SHIFT) / chosen without overflowing 128 bits: the quotient's
     * integer part, then the remainder's fraction, rounded to nearest */
    unsigned __int128 num = (unsigned __int128)weight * candidates;
    unsigned __int128 q = num / chosen, r = num % chosen;
    if (q >> (128 - PROFILE_FP_SHIFT))
        return ~(unsigned __int128)0;
    unsigned __int128 out = q << PROFILE_FP_SHIFT;
    profile_fp_add(&out, ((r << PROFILE_FP_SHIFT) + chosen / 2) / chosen);
    return out;
}

uint64_t profile_fp_round(unsigned __int128 fp)
{
    unsigned __int128 n = fp >> PROFILE_FP_SHIFT;
    if (fp & (PROFILE_FP_ONE >> 1))
        n++;
    return n > UINT64_MAX ? UINT64_MAX : (uint64_t)n;
}

double profile_fp_double(unsigned __int128 fp)
{
    return (double)fp / (double)PROFILE_FP_ONE;
}

/* The tick with this id, or NULL when none was read (yet). */
static const struct profile_tick *tick_get(const struct profile *p, uint64_t id)
{
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&p->tick_index, fpl_hash_u64(id), &pr); k != HASHTAB_NONE;
         k = hashtab_next(&p->tick_index, &pr)) {
        if (p->ticks[k].id == id)
            return &p->ticks[k];
    }
    return NULL;
}

/* Adds a tick whose id is not in the map yet. Returns 0 or -ENOMEM. */
static int tick_put(struct profile *p, const struct profile_tick *t)
{
    void *q = grow(p->ticks, &p->ticks_cap, p->wall.ticks, sizeof(*p->ticks));
    if (!q)
        return -ENOMEM;
    p->ticks = q;
    if (hashtab_add(&p->tick_index, fpl_hash_u64(t->id), (uint32_t)p->wall.ticks))
        return -ENOMEM;
    p->ticks[p->wall.ticks] = *t;
    return 0;
}

/* Puts a sample's upscaled weight fp, taken at ticks, on the timeline when one is kept
 * (profile_want_timeline), and on its request's context pairs when it has a context (ctx).
 * Bin 0 starts at the log's start (the header's anchor). */
#define LOCK_SPREAD_NS 1000000u /* a lock wait this long or longer is spread on the timeline */
#define LOCK_PIECES 32

static int timeline_note(struct profile *p, uint32_t cell, uint64_t ticks, unsigned __int128 fp,
                         uint64_t ctx)
{
    struct timeline *tl = p->timeline;
    if (p->spill) /* the spill's reader places alloc, lock and live samples from profile.kept */
        return p->spill_kinds >> p->entries[cell].kind & 1 ? spill_add(p->spill, cell, ticks, fp)
                                                            : 0;
    if (!tl)
        return 0;
    if (!tl->started) {
        if (p->have_header)
            timeline_start(tl, p->header.anchor_ticks, p->header.ticks_per_sec);
        else if (p->anchors)
            timeline_start(tl, p->first_anchor.ticks, 0);
    }
    struct profile_entry *e = &p->entries[cell];
    /* a lock sample is a wait from its ticks on, weight ns long: spread over the wait in
     * LOCK_PIECES equal parts (a wait of a millisecond or more), so the timeline shows when
     * the thread waited, not only when it began */
    unsigned pieces = 1;
    uint64_t span = 0;
    if (e->kind == FPL_KIND_LOCK && p->have_header && p->header.ticks_per_sec) {
        uint64_t ns = (uint64_t)(fp >> PROFILE_FP_SHIFT);
        span = (uint64_t)((unsigned __int128)ns * p->header.ticks_per_sec / 1000000000u);
        if (ns >= LOCK_SPREAD_NS)
            pieces = LOCK_PIECES;
    }
    const struct tracectx_def *d = ctx ? tracectx_find(&p->ctx, ctx) : NULL;
    if (ctx && !d)
        profile_fp_add(&tl->ctx_unknown, fp);
    unsigned __int128 part = fp / pieces, left = fp;
    for (unsigned i = 0; i < pieces; i++) {
        unsigned __int128 f = i + 1 == pieces ? left : part;
        uint64_t at = pieces == 1 ? ticks : ticks + span * (2 * i + 1) / (2 * pieces);
        left -= f;
        int rc = timeline_add_series(tl, at, cell, e->thread_id, e->kind, e->state, f,
                                     &e->tl_series);
        if (!rc && d)
            rc = timeline_ctx_add(tl, at, cell, ctx, d->root, f);
        if (rc)
            return rc;
    }
    return 0;
}

/* Adds a sample of context ctx (0: none) in cell, of raw weight and upscaled weight fp, to its
 * (context, thread, kind, state) total when profile.context_totals is set. 0 or -ENOMEM. */
static int ctx_total_add(struct profile *p, uint32_t cell, uint64_t weight, unsigned __int128 fp,
                         uint64_t ctx)
{
    if (!p->context_totals || !ctx)
        return 0;
    const struct profile_entry *c = &p->entries[cell];
    uint64_t h = fpl_hash_mix(cell_hash(c->thread_id, 0, c->kind, c->state), ctx);
    struct profile_entry *e = NULL;
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&p->ctx_cell_index, h, &pr); k != HASHTAB_NONE && !e;
         k = hashtab_next(&p->ctx_cell_index, &pr)) {
        struct profile_entry *x = &p->ctx_entries[k];
        if (x->context_id == ctx && x->thread_id == c->thread_id && x->kind == c->kind &&
            x->state == c->state)
            e = x;
    }
    if (!e) {
        void *q =
            grow(p->ctx_entries, &p->ctx_entries_cap, p->nctx_entries, sizeof(*p->ctx_entries));
        if (!q)
            return -ENOMEM;
        p->ctx_entries = q;
        if (hashtab_add(&p->ctx_cell_index, h, (uint32_t)p->nctx_entries))
            return -ENOMEM;
        e = &p->ctx_entries[p->nctx_entries++];
        *e = (struct profile_entry){.thread_id = c->thread_id,
                                    .thread = PROFILE_NONE,
                                    .stack = PROFILE_NONE,
                                    .kind = c->kind,
                                    .state = c->state,
                                    .context_id = ctx};
    }
    e->weight += weight;
    e->count++;
    profile_fp_add(&e->upscaled, fp);
    return 0;
}

/* Everything a sample adds besides its cell, once its upscaled weight fp is known: its
 * context's total and its place on the timeline. */
static int sample_noted(struct profile *p, uint32_t cell, uint64_t ticks, uint64_t weight,
                        unsigned __int128 fp, uint64_t ctx)
{
    int rc = ctx_total_add(p, cell, weight, fp, ctx);
    return rc ? rc : timeline_note(p, cell, ticks, fp, ctx);
}

/* Adds a wall sample's weight to its cell, upscaled by its tick, or as it is (counted) when
 * the tick cannot scale it. t is NULL for an unknown tick. */
static int wall_scale(struct profile *p, uint32_t cell, uint64_t weight, uint64_t ticks,
                      const struct profile_tick *t, uint64_t ctx)
{
    unsigned __int128 *up = &p->entries[cell].upscaled;
    unsigned __int128 fp = (unsigned __int128)weight << PROFILE_FP_SHIFT;
    if (!t) {
        p->wall.unknown_tick++;
    } else if (t->chosen == 0 || t->chosen > t->candidates) {
        p->wall.bad_tick++;
    } else {
        p->wall.scaled++;
        fp = profile_fp_scale(weight, t->candidates, t->chosen);
    }
    profile_fp_add(up, fp);
    return sample_noted(p, cell, ticks, weight, fp, ctx);
}

/* Scales the pending samples whose tick is known now and keeps the others; with final set,
 * scales those by 1 as samples of an unknown tick. */
static int pending_resolve(struct profile *p, int final)
{
    size_t k = 0;
    int rc = 0;
    for (size_t i = 0; i < p->npending; i++) {
        const struct profile_pending *w = &p->pending[i];
        const struct profile_tick *t = tick_get(p, w->tick_id);
        if (t || final) {
            int r = wall_scale(p, w->cell, w->weight, w->ticks, t, w->ctx);
            if (r && !rc)
                rc = r;
        } else {
            p->pending[k++] = *w;
        }
    }
    p->npending = k;
    return rc;
}

/* Queues a wall sample whose tick has not been read yet. A full queue is first cleared of the
 * samples whose tick came since, and grows only if still at least half full, so each queued
 * sample costs O(1) amortized and the queue stays as small as the lag between samples and
 * their ticks. */
static int pending_push(struct profile *p, uint32_t cell, uint64_t weight, uint64_t tick_id,
                        uint64_t ticks, uint64_t ctx)
{
    if (p->npending == p->pending_cap) {
        int rc = pending_resolve(p, 0);
        if (rc)
            return rc;
        if (p->npending * 2 >= p->pending_cap) {
            size_t cap = p->pending_cap ? p->pending_cap * 2 : 256;
            struct profile_pending *q = realloc(p->pending, cap * sizeof(*q));
            if (!q)
                return -ENOMEM;
            p->pending = q;
            p->pending_cap = cap;
        }
    }
    p->pending[p->npending++] = (struct profile_pending){tick_id, weight, ticks, ctx, cell};
    return 0;
}

/* Accounts a wall sample's upscaled weight to the cell with index cell. */
static int wall_add(struct profile *p, uint32_t cell, uint64_t weight, uint64_t tick_id,
                    uint64_t ticks, uint64_t ctx)
{
    if (tick_id == 0) {
        p->wall.no_tick++;
        unsigned __int128 fp = (unsigned __int128)weight << PROFILE_FP_SHIFT;
        profile_fp_add(&p->entries[cell].upscaled, fp);
        return sample_noted(p, cell, ticks, weight, fp, ctx);
    }
    const struct profile_tick *t = tick_get(p, tick_id);
    if (!t)
        return pending_push(p, cell, weight, tick_id, ticks, ctx);
    return wall_scale(p, cell, weight, ticks, t, ctx);
}

/* Keeps an ALLOC, LOCK or LIVE sample of cell one by one (profile.kept); past
 * profile.kept_max, adds its weight to its cell's last kept sample. 0 or -ENOMEM. */
static int kept_add(struct profile *p, uint32_t cell, const struct reader_sample *s)
{
    if (cell >= p->kept_last_cap) {
        size_t cap = p->kept_last_cap ? p->kept_last_cap : 1024;
        while (cap <= cell)
            cap *= 2;
        uint32_t *q = realloc(p->kept_last, cap * sizeof(*q));
        if (!q)
            return -ENOMEM;
        memset(q + p->kept_last_cap, 0, (cap - p->kept_last_cap) * sizeof(*q));
        p->kept_last = q;
        p->kept_last_cap = cap;
    }
    if (p->nkept >= p->kept_max && p->kept_last[cell]) {
        struct profile_kept *k = &p->kept[p->kept_last[cell] - 1];
        k->weight = k->weight + s->weight < k->weight ? UINT64_MAX : k->weight + s->weight;
        p->kept_merged++;
        return 0;
    }
    if (p->nkept == p->kept_cap) {
        size_t cap = p->kept_cap ? p->kept_cap * 2 : 4096;
        struct profile_kept *q = realloc(p->kept, cap * sizeof(*q));
        if (!q)
            return -ENOMEM;
        p->kept = q;
        p->kept_cap = cap;
    }
    p->kept[p->nkept] = (struct profile_kept){s->ticks, s->weight, cell,
                                              s->size > UINT32_MAX ? UINT32_MAX
                                                                   : (uint32_t)s->size};
    p->kept_last[cell] = (uint32_t)++p->nkept;
    return 0;
}

static int cmp_kept(const void *a, const void *b)
{
    const struct profile_kept *x = a, *y = b;
    if (x->ticks != y->ticks)
        return x->ticks < y->ticks ? -1 : 1;
    return x->cell < y->cell ? -1 : x->cell > y->cell;
}

/* The sample as the profile keeps it: s itself, or *known with the ids of the log being read
 * (profile_read_files) and its state mapped. */
static const struct reader_sample *sample_known(const struct profile *p,
                                                const struct reader_sample *s,
                                                struct reader_sample *known)
{
    if (s->state <= FPL_STATE_NATIVE && !p->id_base)
        return s;
    *known = *s;
    /* a state of a newer agent: one "other", apart from the collector's own states */
    if (s->state > FPL_STATE_NATIVE)
        known->state = PROFILE_STATE_OTHER;
    /* the ids of a log after the first (0: none, for ticks and contexts) */
    known->thread_id += p->id_base;
    known->stack_id += p->id_base;
    if (known->tick_id)
        known->tick_id += p->id_base;
    if (known->context_id)
        known->context_id += p->id_base;
    return known;
}

static int on_sample(void *ctx, const struct reader_sample *s)
{
    struct profile *p = ctx;
    struct reader_sample known;

    if (s->kind >= PROFILE_KINDS) {
        p->unknown_kind_samples++;
        return 0;
    }
    s = sample_known(p, s, &known);
    if (p->window.set) {
        const struct profile_window *w = &p->window;
        if (!w->resolved) {
            p->window.untimed++;
            return 0;
        }
        if (!p->window.span_samples++ || s->ticks < w->span_first_ticks)
            p->window.span_first_ticks = s->ticks;
        if (s->ticks > w->span_last_ticks)
            p->window.span_last_ticks = s->ticks;
        if ((w->has_from && s->ticks < w->from_ticks) || (w->has_to && s->ticks >= w->to_ticks)) {
            p->window.skipped++;
            return 0;
        }
    }
    if (!tracectx_keep(&p->ctx, s->context_id))
        return 0;
    if (!p->samples || s->ticks < p->first_ticks)
        p->first_ticks = s->ticks;
    if (!p->samples || s->ticks > p->last_ticks)
        p->last_ticks = s->ticks;
    p->samples++;
    p->total[s->kind].count++;
    p->total[s->kind].weight += s->weight;

    uint32_t cell = agg_cell(p, s);
    if (cell == PROFILE_NONE)
        return -ENOMEM;
    p->entries[cell].weight += s->weight;
    p->entries[cell].count++;
    if (s->kind == FPL_KIND_ALLOC || s->kind == FPL_KIND_LIVE) {
        /* the objects an allocation sample stands for: weight / size = 1 / p (FORMAT.md 10) */
        uint64_t o = s->size ? (s->weight + s->size / 2) / s->size : 1;
        o = o ? o : 1;
        p->entries[cell].objects += o;
        p->total[s->kind].objects += o;
    }
    if (p->want_kept && s->kind >= FPL_KIND_ALLOC && kept_add(p, cell, s) != 0)
        return -ENOMEM;
    /* a CPU sample's upscaled weight is its weight: set when reading finishes */
    if (s->kind == FPL_KIND_WALL)
        return wall_add(p, cell, s->weight, s->tick_id, s->ticks, s->context_id);
    return sample_noted(p, cell, s->ticks, s->weight,
                        (unsigned __int128)s->weight << PROFILE_FP_SHIFT, s->context_id);
}

/* A run of samples (reader_ops.samples). A big profile's cells do not fit in the caches, and
 * a sample's cell costs two memory accesses that depend on each other (its index slot, then
 * the cell): done one sample after the other they leave the core waiting twice per sample.
 * So the slots of the whole run are fetched first, then the cells they point at, the
 * accesses of all the samples overlapping; then on_sample adds each sample, in order, its
 * lookup finding what it needs in the cache. Only the timing changes: the prefetches are
 * hints, and a slot moved by a growing table is merely looked up again. */
static int on_samples(void *ctx, const struct reader_sample *s, size_t n)
{
    struct profile *p = ctx;
    const struct hashtab *t = &p->cell_index;
    uint64_t h[READER_BATCH];

    if (t->cap && n > 1 && n <= READER_BATCH) {
        for (size_t i = 0; i < n; i++) {
            struct reader_sample known;
            h[i] = cell_key_hash(p, sample_known(p, &s[i], &known));
            __builtin_prefetch(&t->slots[(uint32_t)h[i] & (t->cap - 1)]);
        }
        for (size_t i = 0; i < n; i++) {
            struct hashtab_probe pr;
            uint32_t k = hashtab_first(t, h[i], &pr);
            if (k != HASHTAB_NONE && k < p->nentries) {
                __builtin_prefetch(&p->entries[k]);
                __builtin_prefetch(&p->entries[k].count);
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        int rc = on_sample(p, &s[i]);
        if (rc)
            return rc;
    }
    return 0;
}

/* GC pauses and probe stalls of hiccup mode go on the timeline's time axis. */
static int on_gc(void *ctx, const struct reader_gc *g)
{
    struct profile *p = ctx;
    return p->timeline ? timeline_span_add(p->timeline, 1, 0, g->start, g->end) : 0;
}

static int on_stall(void *ctx, const struct reader_stall *s)
{
    struct profile *p = ctx;
    return p->timeline ? timeline_span_add(p->timeline, 0, s->probe, s->start, s->end) : 0;
}

static int on_wall_tick(void *ctx, const struct reader_wall_tick *t)
{
    struct profile *p = ctx;
    struct reader_wall_tick based;
    if (p->id_base) {
        based = *t;
        based.id += p->id_base;
        t = &based;
    }
    if (tick_get(p, t->id)) {
        p->wall.duplicate_ticks++;
        return 0;
    }
    struct profile_tick k = {t->id, t->candidates, t->chosen};
    if (tick_put(p, &k))
        return -ENOMEM;
    if (!p->wall.ticks || t->id < p->wall.first_id) {
        p->wall.first_id = t->id;
        p->wall.first_at = t->ticks;
    }
    if (!p->wall.ticks || t->id > p->wall.last_id) {
        p->wall.last_id = t->id;
        p->wall.last_at = t->ticks;
    }
    p->wall.ticks++;
    p->wall.candidates += t->candidates;
    p->wall.chosen += t->chosen;
    p->wall.signaled += t->signaled;
    p->wall.failed += t->failed;
    return 0;
}

static int on_counters(void *ctx, const struct reader_counter *c, size_t n)
{
    struct profile *p = ctx;
    for (size_t i = 0; i < n; i++) {
        if (c[i].id < FPL_CTR_MAX) {
            /* several logs: their counts add up; a value that is no count is the last one */
            p->counters[c[i].id] = c[i].value;
            if (!fpl_counter_is_gauge((unsigned)c[i].id))
                p->counters[c[i].id] += p->counters_before[c[i].id];
            p->counter_seen[c[i].id] = 1;
        }
    }
    return 0;
}

static int on_hist(void *ctx, const uint64_t *b, size_t n, uint64_t max_ns, uint64_t total_ns)
{
    struct profile *p = ctx;
    memcpy(p->hist, p->hist_before, sizeof(p->hist));
    for (size_t i = 0; i < n; i++)
        p->hist[i < FPL_HIST_BUCKETS ? i : FPL_HIST_BUCKETS - 1] += b[i];
    p->hist_max_ns = max_ns > p->hist_max_before ? max_ns : p->hist_max_before;
    p->hist_total_ns = p->hist_total_before + total_ns;
    p->have_hist = 1;
    return 0;
}

static int on_end(void *ctx, uint64_t ticks)
{
    struct profile *p = ctx;
    p->end_seen = 1; /* this log's: see profile_read_files */
    p->end_ticks = ticks;
    return 0;
}

/* Counts a thread id with events once. */
static int event_thread(struct profile *p, uint64_t id)
{
    if (dict_find(&p->event_index, p->event_tids, sizeof(*p->event_tids), id) != PROFILE_NONE)
        return 0;
    uint64_t *q = grow(p->event_tids, &p->event_tids_cap, p->events.threads, sizeof(*q));
    if (!q)
        return -ENOMEM;
    p->event_tids = q;
    uint32_t i;
    size_t n = p->events.threads;
    if (dict_slot(&p->event_index, p->event_tids, sizeof(*p->event_tids), &n, id, &i))
        return -ENOMEM;
    p->event_tids[i] = id;
    p->events.threads = n;
    return 0;
}

static int on_event(void *ctx, const struct reader_event *e)
{
    struct profile *p = ctx;
    struct reader_event based;
    if (p->id_base) {
        based = *e;
        based.thread_id += p->id_base;
        e = &based;
    }
    p->events.recorded++;
    p->events.dropped += e->dropped;
    p->events.truncated += (e->flags & FPL_EVENT_TRUNCATED) != 0;
    if (event_thread(p, e->thread_id))
        return -ENOMEM;
    return p->event_sink.event ? p->event_sink.event(p->event_sink.ctx, e) : 0;
}

static int on_event_drops(void *ctx, uint64_t thread_id, uint64_t dropped_after)
{
    struct profile *p = ctx;
    thread_id += p->id_base;
    p->events.dropped += dropped_after;
    if (event_thread(p, thread_id))
        return -ENOMEM;
    return p->event_sink.drops ? p->event_sink.drops(p->event_sink.ctx, thread_id, dropped_after)
                               : 0;
}

/* Chooses the clock conversion. The header's frequency is measured over a short calibration;
 * an anchor written much later gives a better one, so with one more than 1 s after the base
 * the frequency is (ticks difference) / (monotonic difference). Without a header, two anchors
 * are the only clue. */
static void finish_time(struct profile *p)
{
    const struct profile_anchor *last = &p->last_anchor;
    struct profile_anchor base;

    if (p->have_header) {
        base.ticks = p->header.anchor_ticks;
        base.mono_ns = p->header.anchor_mono_ns;
        base.real_ns = p->header.anchor_real_ns;
    } else if (p->anchors) {
        base = p->first_anchor;
    } else {
        return;
    }
    p->base_ticks = base.ticks;
    p->base_mono_ns = base.mono_ns;
    p->base_real_ns = base.real_ns;
    if (p->have_header && p->header.ticks_per_sec) {
        p->time_num = 1000000000ull;
        p->time_den = p->header.ticks_per_sec;
        p->time_known = 1;
    }
    if (p->anchors && last->mono_ns > base.mono_ns &&
        last->mono_ns - base.mono_ns > 1000000000ull && last->ticks > base.ticks) {
        p->time_num = last->mono_ns - base.mono_ns;
        p->time_den = last->ticks - base.ticks;
        p->time_known = 1;
        p->time_refined = 1;
    }
}

/* arr of cap elements, n used, reallocated to n (as it was when that fails or n is 0). */
static void *shrink(void *arr, size_t *cap, size_t n, size_t elem)
{
    if (!n || n >= *cap)
        return arr;
    void *q = realloc(arr, n * elem);
    if (!q)
        return arr;
    *cap = n;
    return q;
}

int profile_jvm_service_name(const char *name)
{
    /* HotSpot's JavaThreads without Java work of their own, and the JDK's reference and
     * cleaner threads: they spend their lives waiting for the next thing to do */
    static const char *const names[] = {
        "Reference Handler", "Finalizer", "Signal Dispatcher", "Service Thread",
        "Monitor Deflation Thread", "Notification Thread", "Common-Cleaner", "Attach Listener",
        "DestroyJavaVM", "Sweeper thread", "Low Memory Detector",
        "Surrogate Locker Thread (Concurrent GC)",
    };
    for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(name, names[i]) == 0)
            return 1;
    }
    return 0;
}

/* What jvm_idle found out about each thread and stack, found once: a big profile has a wall
 * cell per (thread, stack, state), and each would compare its thread's name with every
 * service thread's and walk its stack's frames again. Per index: 0 not known yet, 1 no, 2 yes
 * (a service thread's name; a stack with the [no_Java_frames] marker). NULL arrays (out of
 * memory) mean nothing is remembered: the answers are the same, only slower. */
struct idle_memo {
    uint8_t *service; /* per thread index */
    uint8_t *no_java; /* per stack index */
};

/* Whether the stack with index stack holds the [no_Java_frames] marker. */
static int stack_no_java(const struct profile *p, uint32_t stack)
{
    const struct profile_stack *st = &p->stacks[stack];
    for (uint32_t k = 0; k < st->nframes; k++) {
        const struct profile_frame *f = &st->frames[k];
        if (profile_frame_is_marker(p, f) &&
            strcmp(p->methods[f->method].name, PROFILE_NO_JAVA_FRAMES) == 0)
            return 1;
    }
    return 0;
}

/* Whether a wall sample of thread (index or PROFILE_NONE), stack and state is a JVM service
 * thread waiting for work (PROFILE_STATE_JVM_IDLE in profile.h). */
static int jvm_idle(const struct profile *p, struct idle_memo *m, uint32_t thread, uint32_t stack,
                    int state)
{
    if (state == FPL_STATE_UNKNOWN || state == FPL_STATE_RUNNING || state > FPL_STATE_NATIVE)
        return 0;
    if (thread != PROFILE_NONE) {
        uint8_t *k = m->service ? &m->service[thread] : NULL;
        int yes = k && *k ? *k == 2 : profile_jvm_service_name(p->threads[thread].name);
        if (k)
            *k = (uint8_t)(yes + 1);
        if (yes)
            return 1;
    }
    if (state == FPL_STATE_NATIVE || stack == PROFILE_NONE)
        return 0;
    uint8_t *k = m->no_java ? &m->no_java[stack] : NULL;
    int yes = k && *k ? *k == 2 : stack_no_java(p, stack);
    if (k)
        *k = (uint8_t)(yes + 1);
    return yes;
}

/* A dictionary's ids mapped to its indices by an array (map[id], PROFILE_NONE for an id not
 * defined), when its ids are dense (an agent numbers them 1, 2, 3...): resolving millions of
 * frames and cells then reads one array instead of probing a hash table each time. NULL when
 * the ids are too sparse for it (several logs' ids, a damaged log) or memory is short:
 * dict_find then. *nmap gets the array's length. */
static uint32_t *dense_map(const void *base, size_t stride, size_t n, size_t *nmap)
{
    uint64_t max = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t id;
        memcpy(&id, (const char *)base + i * stride, sizeof(id));
        max = id > max ? id : max;
    }
    if (!n || max > 4 * (uint64_t)n + 1024)
        return NULL;
    uint32_t *map = malloc(((size_t)max + 1) * sizeof(*map));
    if (!map)
        return NULL;
    memset(map, 0xff, ((size_t)max + 1) * sizeof(*map)); /* PROFILE_NONE */
    for (size_t i = 0; i < n; i++) {
        uint64_t id;
        memcpy(&id, (const char *)base + i * stride, sizeof(id));
        map[id] = (uint32_t)i;
    }
    *nmap = (size_t)max + 1;
    return map;
}

/* The index of id: by the dense map when there is one, else by the hash index. */
static uint32_t link_id(const uint32_t *map, size_t nmap, const struct hashtab *t,
                        const void *base, size_t stride, uint64_t id)
{
    if (map)
        return id < nmap ? map[id] : PROFILE_NONE;
    return dict_find(t, base, stride, id);
}

/* Resolves ids to indices once, so outputs never search, and completes the cells' upscaled
 * weights and the totals; marks the wall cells of JVM service threads waiting for work. */
static int finish_links(struct profile *p)
{
    size_t nm = 0, ns = 0, nt = 0;
    uint32_t *mm = dense_map(p->methods, sizeof(*p->methods), p->nmethods, &nm);
    for (size_t s = 0; s < p->nstacks; s++) {
        struct profile_frame *f = (struct profile_frame *)p->stacks[s].frames;
        for (uint32_t k = 0; k < p->stacks[s].nframes; k++)
            f[k].method = link_id(mm, nm, &p->method_index, p->methods, sizeof(*p->methods),
                                  f[k].method_id);
    }
    free(mm);
    uint32_t *sm = dense_map(p->stacks, sizeof(*p->stacks), p->nstacks, &ns);
    uint32_t *tm = dense_map(p->threads, sizeof(*p->threads), p->nthreads, &nt);
    struct idle_memo memo = {calloc(p->nthreads + 1, 1), calloc(p->nstacks + 1, 1)};
    for (size_t k = 0; k < p->nentries; k++) {
        struct profile_entry *e = &p->entries[k];
        e->thread = link_id(tm, nt, &p->thread_index, p->threads, sizeof(*p->threads),
                            e->thread_id);
        e->stack = link_id(sm, ns, &p->stack_index, p->stacks, sizeof(*p->stacks), e->stack_id);
        if (e->kind != FPL_KIND_WALL)
            e->upscaled = (unsigned __int128)e->weight << PROFILE_FP_SHIFT;
        else if (jvm_idle(p, &memo, e->thread, e->stack, e->state))
            e->state = PROFILE_STATE_JVM_IDLE;
        profile_fp_add(&p->total[e->kind].upscaled, e->upscaled);
    }
    free(sm);
    free(tm);
    for (size_t k = 0; k < p->nctx_entries; k++) {
        struct profile_entry *e = &p->ctx_entries[k];
        e->thread = dict_find(&p->thread_index, p->threads, sizeof(*p->threads), e->thread_id);
        if (e->kind == FPL_KIND_WALL && jvm_idle(p, &memo, e->thread, PROFILE_NONE, e->state))
            e->state = PROFILE_STATE_JVM_IDLE;
    }
    /* the timeline's weight without stacks (timeline.h) is told by its thread's name only */
    for (size_t k = 0; p->timeline && k < p->timeline->nseries; k++) {
        struct timeline_series *se = &p->timeline->series[k];
        uint32_t th = dict_find(&p->thread_index, p->threads, sizeof(*p->threads), se->thread_id);
        if (se->kind == FPL_KIND_WALL && jvm_idle(p, &memo, th, PROFILE_NONE, se->state))
            se->state = PROFILE_STATE_JVM_IDLE;
    }
    free(memo.service);
    free(memo.no_java);
    /* give back the room the doubling left */
    p->entries = shrink(p->entries, &p->entries_cap, p->nentries, sizeof(*p->entries));
    p->ctx_entries =
        shrink(p->ctx_entries, &p->ctx_entries_cap, p->nctx_entries, sizeof(*p->ctx_entries));
    return 0;
}

static int on_context(void *ctx, uint64_t id, uint64_t span, uint64_t root)
{
    struct profile *p = ctx;
    return tracectx_define(&p->ctx, id ? id + p->id_base : 0, span, root);
}

static int on_endpoint(void *ctx, uint64_t root, struct reader_str name)
{
    struct profile *p = ctx;
    return tracectx_name(&p->ctx, root, name.s, name.len);
}

/* The first pass of a read selecting by endpoint: the names alone. */
static const struct reader_ops names_ops = {
    .endpoint = on_endpoint,
};

static const struct reader_ops profile_ops = {
    .context = on_context,
    .endpoint = on_endpoint,
    .header = on_header,
    .anchor = on_anchor,
    .thread = on_thread,
    .thread_java_id = on_thread_java_id,
    .method = on_method,
    .stack = on_stack,
    .samples = on_samples,
    .counters = on_counters,
    .handler_hist = on_hist,
    .end = on_end,
    .wall_tick = on_wall_tick,
    .event = on_event,
    .event_drops = on_event_drops,
    .gc = on_gc,
    .stall = on_stall,
};

struct profile *profile_new(void)
{
    struct profile *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->cell_last = PROFILE_NONE;
    static const char empty[] = "";
    p->header.options = p->header.jvm_name = p->header.jvm_version = p->header.command = empty;
    p->header.agent_version = empty;
    return p;
}

void profile_free(struct profile *p)
{
    if (!p)
        return;
    hashtab_destroy(&p->thread_index);
    hashtab_destroy(&p->method_index);
    hashtab_destroy(&p->stack_index);
    hashtab_destroy(&p->cell_index);
    hashtab_destroy(&p->ctx_cell_index);
    hashtab_destroy(&p->tick_index);
    hashtab_destroy(&p->event_index);
    tracectx_destroy(&p->ctx);
    free(p->event_tids);
    free(p->threads);
    free(p->methods);
    free(p->stacks);
    free(p->entries);
    free(p->ctx_entries);
    free(p->ticks);
    free(p->pending);
    free(p->kept);
    free(p->kept_last);
    if (p->timeline) {
        timeline_destroy(p->timeline);
        free(p->timeline);
    }
    spill_free(p->spill);
    while (p->arena) {
        struct profile_arena_block *b = p->arena;
        p->arena = b->next;
        free(b);
    }
    free(p);
}

/* Shared tail of the two readers. */
static int read_done(struct profile *p, int rc)
{
    p->read_done = 1;
    if (rc == 0) {
        rc = pending_resolve(p, 1);
        finish_time(p);
        if (rc == 0)
            rc = finish_links(p);
    }
    if (rc)
        p->nentries = p->nctx_entries = p->nkept = 0; /* a read that failed is no profile */
    /* a lock sample's ticks are its wait's start, logged at its end: out of order */
    if (p->nkept)
        qsort(p->kept, p->nkept, sizeof(*p->kept), cmp_kept);
    free(p->kept_last);
    p->kept_last = NULL;
    p->kept_last_cap = 0;
    if (p->timeline) {
        if (rc)
            timeline_destroy(p->timeline);
        timeline_finish(p->timeline);
    }
    /* what only reading needs */
    hashtab_destroy(&p->cell_index);
    hashtab_destroy(&p->ctx_cell_index);
    hashtab_destroy(&p->tick_index);
    free(p->ticks);
    p->ticks = NULL;
    p->ticks_cap = 0;
    free(p->pending);
    p->pending = NULL;
    p->npending = p->pending_cap = 0;
    return rc;
}

/* Maps the file at path read-only: 0 with *data and *len (len 0: *data NULL), or -errno. */
static int map_file(const char *path, const uint8_t **data, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
    struct stat st;
    if (fd < 0)
        return -errno;
    *data = NULL;
    *len = 0;
    if (fstat(fd, &st) != 0) {
        rc = -errno;
    } else if (st.st_size > 0) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED)
            rc = -errno;
        else
            *data = m, *len = (size_t)st.st_size;
    }
    close(fd);
    return rc;
}

/* What the file at path starts like: 1 a JFR file, 2 a flyprof log, 0 neither or unreadable
 * (the reader then says why). */
static int file_kind(const char *path)
{
    uint8_t magic[sizeof(FPL_MAGIC)];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, magic, sizeof(magic));
    close(fd);
    if (n >= 4 && jfr_import_is_jfr(magic, (size_t)n))
        return 1;
    return n == (ssize_t)sizeof(magic) && memcmp(magic, FPL_MAGIC, sizeof(magic)) == 0 ? 2 : 0;
}

/* Reads a JFR file: its samples become a flyprof log in an anonymous memory file
 * (jfr_import.h), which is read as any log, into p and stats. */
static int read_jfr(struct profile *p, const char *path, struct reader_stats *stats, char *err,
                    size_t errlen)
{
    const uint8_t *in = NULL, *log = NULL;
    size_t in_len = 0, log_len = 0;
    uint64_t samples;
    int rc = map_file(path, &in, &in_len);
    if (rc) {
        snprintf(err, errlen, "cannot read '%s': %s", path, strerror(-rc));
        return rc;
    }
    int fd = memfd_create("flyprof-jfr", MFD_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        snprintf(err, errlen, "'%s': cannot make a memory file for the conversion: %s", path,
                 strerror(-rc));
    } else {
        rc = jfr_import(in, in_len, path, fd, &samples, err, errlen);
    }
    if (in)
        munmap((void *)in, in_len);
    if (rc == 0) {
        off_t end = lseek(fd, 0, SEEK_END);
        log_len = end > 0 ? (size_t)end : 0;
        void *m = log_len ? mmap(NULL, log_len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
        if (m == MAP_FAILED) {
            rc = -errno;
            snprintf(err, errlen, "'%s': cannot map the converted log: %s", path, strerror(-rc));
        } else {
            log = m;
        }
    }
    if (fd >= 0)
        close(fd);
    if (rc)
        return rc;
    if (tracectx_wants_names(&p->ctx))
        rc = reader_read_mem(log, log_len, path, &names_ops, p, NULL, err, errlen);
    if (rc == 0)
        rc = reader_read_mem(log, log_len, path, &profile_ops, p, stats, err, errlen);
    if (log)
        munmap((void *)log, log_len);
    return rc;
}

/* Reads one file, a flyprof log or a JFR recording, into p and stats (not finished: the
 * caller calls read_done). */
static int read_one(struct profile *p, const char *path, struct reader_stats *stats, char *err,
                    size_t errlen)
{
    int kind = file_kind(path);
    if (kind == 1)
        return read_jfr(p, path, stats, err, errlen);
    size_t n = strlen(path);
    if (kind == 0 && n > 4 && strcmp(path + n - 4, ".jfr") == 0 && access(path, R_OK) == 0) {
        /* named as a recording but not one: say so rather than "not a flyprof log" */
        snprintf(err, errlen, "'%s': not a JFR recording (it does not start with FLR\\0) nor a "
                              "flyprof log",
                 path);
        return -EINVAL;
    }
    if (tracectx_wants_names(&p->ctx)) {
        int rc = reader_read_file(path, &names_ops, p, NULL, err, errlen);
        if (rc)
            return rc;
    }
    return reader_read_file(path, &profile_ops, p, stats, err, errlen);
}

int profile_read_file(struct profile *p, const char *path, char *err, size_t errlen)
{
    if (p->read_done) {
        snprintf(err, errlen, "profile: a profile is read once ('%s')", path);
        return -EINVAL;
    }
    snprintf(p->name, sizeof(p->name), "%s", path);
    return read_done(p, read_one(p, path, &p->stats, err, errlen));
}

static void stats_add(struct reader_stats *to, const struct reader_stats *s)
{
    to->file_bytes += s->file_bytes;
    to->chunks_ok += s->chunks_ok;
    to->chunks_damaged += s->chunks_damaged;
    to->chunks_truncated += s->chunks_truncated;
    to->chunks_lost += s->chunks_lost;
    to->chunks_bad_framing += s->chunks_bad_framing;
    to->seq_errors += s->seq_errors;
    to->bytes_skipped += s->bytes_skipped;
    to->bytes_truncated += s->bytes_truncated;
    to->records += s->records;
    to->unknown_records += s->unknown_records;
    to->bad_records += s->bad_records;
}

int profile_read_files(struct profile *p, const char *const *paths, size_t n, char *err,
                       size_t errlen)
{
    if (n == 1)
        return profile_read_file(p, paths[0], err, errlen);
    if (p->read_done || n == 0 || n >= ((size_t)1 << (64 - PROFILE_LOG_ID_SHIFT))) {
        snprintf(err, errlen, "profile: %s", n ? "a profile is read once" : "no log to read");
        return -EINVAL;
    }
    snprintf(p->name, sizeof(p->name), "%s (and %zu more)", paths[0], n - 1);
    struct reader_stats all = {0};
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        p->logs = k + 1;
        p->id_base = (uint64_t)k << PROFILE_LOG_ID_SHIFT;
        p->log_headers = 0;
        p->end_seen = 0;
        if (k > 0 && p->window.set) {
            /* the window as moments (the first log placed it): each later log finds them by
             * its own clock */
            struct profile_window *w = &p->window;
            struct profile_time *b[2] = {&w->from, &w->to};
            for (int i = 0; i < 2 && w->resolved; i++) {
                if (b[i]->kind == PROFILE_TIME_REL)
                    *b[i] = (struct profile_time){PROFILE_TIME_REAL,
                                                  w->base_real_ns + b[i]->ns};
                else if (b[i]->kind == PROFILE_TIME_CLOCK)
                    *b[i] = (struct profile_time){PROFILE_TIME_REAL,
                                                  clock_on_day(w->base_real_ns, b[i]->ns)};
            }
            w->resolved = 0;
            w->have_base = 0;
        }
        p->cell_last = PROFILE_NONE;
        memcpy(p->counters_before, p->counters, sizeof(p->counters));
        memcpy(p->hist_before, p->hist, sizeof(p->hist));
        p->hist_max_before = p->hist_max_ns;
        p->hist_total_before = p->hist_total_ns;
        struct reader_stats st = {0};
        rc = read_one(p, paths[k], &st, err, errlen);
        stats_add(&all, &st);
        if (!p->end_seen)
            p->ends_missing++;
    }
    p->stats = all;
    p->end_seen = rc == 0 && p->ends_missing == 0;
    p->id_base = 0;
    return read_done(p, rc);
}

int profile_read_mem(struct profile *p, const void *data, size_t len, const char *name, char *err,
                     size_t errlen)
{
    if (p->read_done) {
        snprintf(err, errlen, "profile: a profile is read once ('%s')", name);
        return -EINVAL;
    }
    snprintf(p->name, sizeof(p->name), "%s", name ? name : "(memory)");
    if (tracectx_wants_names(&p->ctx)) {
        int rc = reader_read_mem(data, len, p->name, &names_ops, p, NULL, err, errlen);
        if (rc)
            return read_done(p, rc);
    }
    return read_done(p,
                     reader_read_mem(data, len, p->name, &profile_ops, p, &p->stats, err, errlen));
}

int profile_select_context(struct profile *p, const char *endpoint_re, const uint64_t *span,
                           const uint64_t *root, char *err, size_t errlen)
{
    return tracectx_select(&p->ctx, endpoint_re, span, root, err, errlen);
}

int profile_want_timeline(struct profile *p)
{
    if (p->timeline || p->read_done)
        return 0;
    p->timeline = malloc(sizeof(*p->timeline));
    if (!p->timeline)
        return -ENOMEM;
    timeline_init(p->timeline);
    return 0;
}

int profile_want_spill(struct profile *p, const char *dir, unsigned kinds)
{
    if (p->spill || p->read_done)
        return 0;
    p->spill_kinds = kinds & (1u << FPL_KIND_CPU | 1u << FPL_KIND_WALL);
    return spill_new(dir, &p->spill);
}

void profile_want_kept(struct profile *p, size_t max)
{
    if (!p->read_done) {
        p->want_kept = 1;
        p->kept_max = max;
    }
}

void profile_set_event_sink(struct profile *p, const struct profile_event_sink *sink)
{
    if (sink)
        p->event_sink = *sink;
    else
        memset(&p->event_sink, 0, sizeof(p->event_sink));
}

int profile_set_window(struct profile *p, uint64_t from_ns, uint64_t to_ns)
{
    struct profile_time from = {from_ns ? PROFILE_TIME_REL : PROFILE_TIME_NONE, from_ns};
    struct profile_time to = {to_ns == UINT64_MAX ? PROFILE_TIME_NONE : PROFILE_TIME_REL, to_ns};
    char err[8];
    return profile_set_window_times(p, &from, &to, err, sizeof(err));
}

/* The form a bound was given in, for messages. */
static void time_str(const struct profile_time *t, char *buf, size_t len) __attribute__((nonnull));
static void time_str(const struct profile_time *t, char *buf, size_t len)
{
    uint64_t s = t->ns / 1000000000ull, f = t->ns % 1000000000ull;
    if (t->kind == PROFILE_TIME_REL) {
        snprintf(buf, len, "%llu.%09llus", (unsigned long long)s, (unsigned long long)f);
    } else if (t->kind == PROFILE_TIME_CLOCK) {
        snprintf(buf, len, "%02llu:%02llu:%02llu.%09llu", (unsigned long long)(s / 3600),
                 (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60),
                 (unsigned long long)f);
    } else {
        time_t tt = (time_t)s;
        struct tm tm;
        char d[32];
        if (!localtime_r(&tt, &tm) || !strftime(d, sizeof(d), "%Y-%m-%dT%H:%M:%S", &tm))
            snprintf(d, sizeof(d), "%llus", (unsigned long long)s);
        snprintf(buf, len, "%s.%09llu", d, (unsigned long long)f);
    }
}

int profile_set_window_times(struct profile *p, const struct profile_time *from,
                             const struct profile_time *to, char *err, size_t errlen)
{
    static const struct profile_time none = {PROFILE_TIME_NONE, 0};
    from = from ? from : &none;
    to = to ? to : &none;
    if (p->read_done) {
        snprintf(err, errlen, "profile: the window is set before reading");
        return -EINVAL;
    }
    /* bounds of one form compare now; mixed forms only once the start is known */
    if (from->kind != PROFILE_TIME_NONE && from->kind == to->kind && from->ns >= to->ns) {
        char a[80], b[80];
        time_str(from, a, sizeof(a));
        time_str(to, b, sizeof(b));
        snprintf(err, errlen, "profile: empty time window: from %s is not before to %s", a, b);
        return -EINVAL;
    }
    memset(&p->window, 0, sizeof(p->window));
    p->window.set = from->kind != PROFILE_TIME_NONE || to->kind != PROFILE_TIME_NONE;
    p->window.from = *from;
    p->window.to = *to;
    return 0;
}

/* Parses digits[.digits] at *s as a fixed-point number scaled by unit ns; advances *s.
 * Returns 0, or -1 when there are no digits or it overflows. */
static int parse_scaled(const char **s, uint64_t unit, uint64_t *out)
{
    const char *c = *s;
    unsigned __int128 v = 0;
    uint64_t div = 1;
    int digits = 0;
    for (; *c >= '0' && *c <= '9'; c++, digits++) {
        v = v * 10 + (unsigned)(*c - '0');
        if (v > UINT64_MAX)
            return -1;
    }
    v *= unit;
    if (*c == '.') {
        unsigned __int128 frac = 0;
        for (c++; *c >= '0' && *c <= '9'; c++, digits++) {
            if (div <= UINT64_MAX / 10) { /* digits beyond 10^-19 cannot matter */
                frac = frac * 10 + (unsigned)(*c - '0');
                div *= 10;
            }
        }
        v += frac * unit / div;
    }
    if (!digits || v > UINT64_MAX)
        return -1;
    *out = (uint64_t)v;
    *s = c;
    return 0;
}

/* Parses exactly n digits into *out. */
static int parse_fixed(const char **s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = (*s)[i];
        if (c < '0' || c > '9')
            return -1;
        v = v * 10 + (c - '0');
    }
    *s += n;
    *out = v;
    return 0;
}

/* HH:MM[:SS[.frac]] at *s into ns after midnight; advances *s. */
static int parse_clock(const char **s, uint64_t *ns)
{
    int h, m, sec = 0;
    uint64_t frac = 0;
    const char *c = *s;
    if (parse_fixed(&c, 2, &h) || *c++ != ':' || parse_fixed(&c, 2, &m))
        return -1;
    if (*c == ':') {
        c++;
        if (parse_fixed(&c, 2, &sec))
            return -1;
        if (*c == '.') {
            uint64_t scale = 100000000ull;
            int n = 0;
            for (c++; *c >= '0' && *c <= '9'; c++, n++) {
                frac += (uint64_t)(*c - '0') * scale;
                scale /= 10;
            }
            if (!n)
                return -1;
        }
    }
    if (h > 23 || m > 59 || sec > 60)
        return -1;
    *ns = ((uint64_t)h * 3600 + (uint64_t)m * 60 + (uint64_t)sec) * 1000000000ull + frac;
    *s = c;
    return 0;
}

int profile_time_parse(const char *s, struct profile_time *t, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        uint64_t ns;
    } units[] = {{"", 1000000000ull},  {"s", 1000000000ull}, {"ms", 1000000ull},
                 {"us", 1000ull},      {"ns", 1ull},         {"min", 60000000000ull},
                 {"m", 60000000000ull}};
    size_t len = strlen(s);
    const char *c = s;

    /* YYYY-MM-DD[T ]HH:MM[:SS[.frac]][Z] */
    if (len >= 16 && s[4] == '-' && s[7] == '-' && (s[10] == 'T' || s[10] == ' ')) {
        int y, mo, d;
        uint64_t clock;
        c = s;
        if (parse_fixed(&c, 4, &y) || *c++ != '-' || parse_fixed(&c, 2, &mo) || *c++ != '-' ||
            parse_fixed(&c, 2, &d) || !(*c == 'T' || *c == ' '))
            goto bad;
        c++;
        if (parse_clock(&c, &clock))
            goto bad;
        int utc = *c == 'Z';
        if (utc)
            c++;
        if (*c || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31)
            goto bad;
        struct tm tm = {0};
        tm.tm_year = y - 1900;
        tm.tm_mon = mo - 1;
        tm.tm_mday = d;
        tm.tm_hour = (int)(clock / 3600000000000ull);
        tm.tm_min = (int)(clock / 60000000000ull % 60);
        tm.tm_sec = (int)(clock / 1000000000ull % 60);
        tm.tm_isdst = -1;
        time_t tt = utc ? timegm(&tm) : mktime(&tm);
        if (tt == (time_t)-1 || tt < 0 || tm.tm_mday != d)
            goto bad;
        t->kind = PROFILE_TIME_REAL;
        t->ns = (uint64_t)tt * 1000000000ull + clock % 1000000000ull;
        return 0;
    }
    /* HH:MM[:SS[.frac]] */
    if (len >= 5 && s[2] == ':') {
        uint64_t clock;
        c = s;
        if (parse_clock(&c, &clock) || *c)
            goto bad;
        t->kind = PROFILE_TIME_CLOCK;
        t->ns = clock;
        return 0;
    }
    /* a number and a unit */
    const char *u = s + strspn(s, "0123456789.");
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(u, units[i].name) != 0)
            continue;
        uint64_t ns;
        c = s;
        if (parse_scaled(&c, units[i].ns, &ns) || c != u)
            goto bad;
        t->kind = PROFILE_TIME_REL;
        t->ns = ns;
        return 0;
    }
bad:
    snprintf(err, errlen,
             "bad time '%s': use seconds from the start of the profile (2.5, 2.5s, 500ms, 250us, "
             "2min) or a clock time (14:03:05, 14:03:05.250, 2026-11-21T14:03:05)",
             s);
    return -EINVAL;
}

/* ticks as signed ns after the window's base, with its conversion. */
static int64_t window_ns(const struct profile_window *w, uint64_t ticks)
{
    if (ticks >= w->base_ticks) {
        unsigned __int128 d = (unsigned __int128)(ticks - w->base_ticks) * w->num / w->den;
        return d > INT64_MAX ? INT64_MAX : (int64_t)d;
    }
    unsigned __int128 d = (unsigned __int128)(w->base_ticks - ticks) * w->num / w->den;
    return d > INT64_MAX ? INT64_MIN : -(int64_t)d;
}

int profile_window_span(const struct profile *p, int64_t *first_ns, int64_t *last_ns,
                        uint64_t *first_real, uint64_t *last_real)
{
    const struct profile_window *w = &p->window;
    if (!w->set || !w->resolved || !w->span_samples || !w->num || !w->den)
        return -ENOENT;
    *first_ns = window_ns(w, w->span_first_ticks);
    *last_ns = window_ns(w, w->span_last_ticks);
    *first_real = profile_ticks_to_real_ns(p, w->span_first_ticks);
    *last_real = profile_ticks_to_real_ns(p, w->span_last_ticks);
    return 0;
}

uint64_t profile_duration_ns(const struct profile *p)
{
    const struct profile_window *w = &p->window;
    if (!p->time_known)
        return 0;
    if (p->end_seen && p->have_header && p->end_ticks > p->header.anchor_ticks) {
        uint64_t e = profile_ticks_to_ns(p, p->end_ticks - p->header.anchor_ticks);
        int64_t start = 0, end = e > INT64_MAX ? INT64_MAX : (int64_t)e;
        if (w->resolved && w->has_from && w->from_ns > start)
            start = w->from_ns;
        if (w->resolved && w->has_to && w->to_ns < end)
            end = w->to_ns;
        return end > start ? (uint64_t)(end - start) : 0;
    }
    if (p->samples)
        return profile_ticks_to_ns(p, p->last_ticks - p->first_ticks);
    return 0;
}

int profile_resolve_kind(const struct profile *p, int sel)
{
    if (sel != PROFILE_KIND_AUTO)
        return sel;
    if (p->total[FPL_KIND_CPU].count)
        return FPL_KIND_CPU;
    if (!p->total[FPL_KIND_WALL].count && p->total[FPL_KIND_ALLOC].count)
        return FPL_KIND_ALLOC;
    if (!p->total[FPL_KIND_WALL].count && p->total[FPL_KIND_LOCK].count)
        return FPL_KIND_LOCK;
    if (!p->total[FPL_KIND_WALL].count && p->total[FPL_KIND_LIVE].count)
        return FPL_KIND_LIVE;
    return FPL_KIND_WALL;
}

const struct profile_thread *profile_thread_find(const struct profile *p, uint64_t id)
{
    uint32_t i = dict_find(&p->thread_index, p->threads, sizeof(*p->threads), id);
    return i == PROFILE_NONE ? NULL : &p->threads[i];
}

const struct profile_method *profile_method_find(const struct profile *p, uint64_t id)
{
    uint32_t i = dict_find(&p->method_index, p->methods, sizeof(*p->methods), id);
    return i == PROFILE_NONE ? NULL : &p->methods[i];
}

const struct profile_stack *profile_stack_find(const struct profile *p, uint64_t id)
{
    uint32_t i = dict_find(&p->stack_index, p->stacks, sizeof(*p->stacks), id);
    return i == PROFILE_NONE ? NULL : &p->stacks[i];
}

const char *profile_frame_name(const struct profile *p, const struct profile_frame *f)
{
    return f->method == PROFILE_NONE ? PROFILE_UNKNOWN_FRAME : p->methods[f->method].display;
}

const char *profile_entry_thread_name(const struct profile *p, const struct profile_entry *e)
{
    return e->thread == PROFILE_NONE ? PROFILE_UNKNOWN_THREAD : p->threads[e->thread].display;
}

int profile_frame_is_marker(const struct profile *p, const struct profile_frame *f)
{
    return f->method != PROFILE_NONE && p->methods[f->method].kind == FPL_METHOD_MARKER;
}

uint64_t profile_ticks_to_ns(const struct profile *p, uint64_t dticks)
{
    if (!p->time_known)
        return 0;
    unsigned __int128 ns = (unsigned __int128)dticks * p->time_num / p->time_den;
    return ns > UINT64_MAX ? UINT64_MAX : (uint64_t)ns;
}

uint64_t profile_ticks_to_real_ns(const struct profile *p, uint64_t ticks)
{
    if (!p->time_known)
        return 0;
    if (ticks >= p->base_ticks)
        return p->base_real_ns + profile_ticks_to_ns(p, ticks - p->base_ticks);
    uint64_t back = profile_ticks_to_ns(p, p->base_ticks - ticks);
    return back < p->base_real_ns ? p->base_real_ns - back : 0;
}

double profile_ticks_per_sec(const struct profile *p)
{
    if (!p->time_known)
        return 0;
    return (double)p->time_den * 1e9 / (double)p->time_num;
}
