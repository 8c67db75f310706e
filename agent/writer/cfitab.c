/* cfitab.c: builds the native walker's unwind tables (see cfitab.h). Control and writer
 * threads only: it takes the loader's lock (dl_iterate_phdr) and allocates. */
#define UNW_LOCAL_ONLY
#include "cfitab.h"

#include <errno.h>
#include <setjmp.h>
#include <link.h>
#include <libunwind.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "bigmem.h"
#include "crashguard.h"
#include "ehframe.h"
#include "nativewalk.h"

/* DWARF pointer encodings .eh_frame_hdr uses (LSB 5.0, "Exception Frame Header") */
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_pcrel 0x10
#define DW_EH_PE_datarel 0x30
#define DW_EH_PE_omit 0xff

/* Everything below is touched by one thread at a time: control_start (cfitab_init) runs before
 * the writer starts, cfitab_reset after it stopped. */
static struct cfitab_mod **mods;        /* every module seen this session */
static size_t nmods, capmods;
static const struct cfitab_snap *snaps[CFITAB_MAX_SNAPSHOTS];
static size_t nsnaps;
static unsigned long long loader_adds = ~0ull, loader_subs = ~0ull;
static int initialized;
static int want_pending;                /* cfitab_want asked for a table */
static int asks_muted;                  /* walks' asks for a scan ignored until a regular one */
static uint64_t last_scan_ns;
#define RESCAN_NS 500000000ull
#define RESCAN_ASKED_NS 20000000ull     /* sooner when a walk met an unknown pc */
static _Atomic size_t table_bytes;      /* relaxed: a statistic */
static _Atomic unsigned build_faults;   /* relaxed: builds cut by a fault (module unloaded) */
static atomic_int cancel;               /* builds are to end at once (profiling stops) */
/* CLOCK_MONOTONIC ns when profiling ends by itself (duration=), 0: never; past it builds end
 * as after cfitab_cancel_builds. Writer thread only. */
static uint64_t build_deadline_ns;

struct scan {
    struct cfitab_mod **found;
    size_t n, cap;
    unsigned long long adds, subs;
    int failed;
};

/* dl_iterate_phdr callback: records each module's executable range and .eh_frame_hdr. */
static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct scan *sc = arg;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
        sc->adds = info->dlpi_adds;
        sc->subs = info->dlpi_subs;
    }
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    const unsigned char *hdr = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            uintptr_t a = info->dlpi_addr + ph->p_vaddr;
            if (a < lo)
                lo = a;
            if (a + ph->p_memsz > hi)
                hi = a + ph->p_memsz;
        } else if (ph->p_type == PT_GNU_EH_FRAME) {
            hdr = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        }
    }
    if (lo >= hi)
        return 0;
    /* the same module as before (same range, same base): keep it and its table */
    struct cfitab_mod *m = NULL;
    for (size_t i = 0; i < nmods; i++) {
        if (mods[i]->lo == lo && mods[i]->hi == hi && mods[i]->base == info->dlpi_addr &&
            mods[i]->eh_frame_hdr == hdr) {
            m = mods[i];
            break;
        }
    }
    if (!m) {
        if (nmods == capmods) {
            size_t cap = capmods ? capmods * 2 : 64;
            struct cfitab_mod **p = realloc(mods, cap * sizeof(*p));
            if (!p) {
                sc->failed = 1;
                return 0;
            }
            mods = p;
            capmods = cap;
        }
        m = calloc(1, sizeof(*m));
        if (!m) {
            sc->failed = 1;
            return 0;
        }
        m->lo = lo;
        m->hi = hi;
        m->base = info->dlpi_addr;
        m->eh_frame_hdr = hdr;
        mods[nmods++] = m;
    }
    if (sc->n == sc->cap) {
        size_t cap = sc->cap ? sc->cap * 2 : 64;
        struct cfitab_mod **p = realloc(sc->found, cap * sizeof(*p));
        if (!p) {
            sc->failed = 1;
            return 0;
        }
        sc->found = p;
        sc->cap = cap;
    }
    sc->found[sc->n++] = m;
    return 0;
}

static int by_lo(const void *a, const void *b)
{
    const struct cfitab_mod *x = *(struct cfitab_mod *const *)a;
    const struct cfitab_mod *y = *(struct cfitab_mod *const *)b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Scans the loaded modules and publishes a new snapshot when the loader changed (returns 1
 * then, else 0). */
static int rescan(void)
{
    struct scan sc;
    memset(&sc, 0, sizeof(sc));
    dl_iterate_phdr(scan_one, &sc);
    if (!sc.failed) { /* what is loaded now: only these modules' memory may be read */
        /* an unloaded module's ask is dropped: loaded again at the same place (its entry is
         * kept), the next walk that meets it asks again, which wakes the build; a stale ask
         * would hide that one */
        for (size_t i = 0; i < nmods; i++)
            mods[i]->live = 0;
        for (size_t i = 0; i < sc.n; i++)
            sc.found[i]->live = 1;
        for (size_t i = 0; i < nmods; i++)
            if (!mods[i]->live)
                atomic_store_explicit(&mods[i]->wanted, 0, memory_order_relaxed);
    }
    if (sc.failed || (sc.adds == loader_adds && sc.subs == loader_subs) ||
        nsnaps == CFITAB_MAX_SNAPSHOTS) {
        free(sc.found);
        return 0;
    }
    qsort(sc.found, sc.n, sizeof(*sc.found), by_lo);
    struct cfitab_snap *s = malloc(sizeof(*s) + sc.n * sizeof(s->mods[0]));
    if (!s) {
        free(sc.found);
        return 0;
    }
    /* overlapping ranges would break the handler's binary search: keep the first */
    uint32_t n = 0;
    for (size_t i = 0; i < sc.n; i++)
        if (n == 0 || sc.found[i]->lo >= s->mods[n - 1]->hi)
            s->mods[n++] = sc.found[i];
    s->n = n;
    free(sc.found);
    loader_adds = sc.adds;
    loader_subs = sc.subs;
    snaps[nsnaps++] = s;
    nativewalk_set_snapshot(s);
    return 1;
}

/* A set of distinct fixed-size items (rules, or libunwind's register states), each kept once. */
struct interner {
    unsigned char *items;
    uint32_t n, cap, size;          /* size: bytes per item, a multiple of 8 */
    uint32_t *hash;                 /* open addressing over items: index + 1, 0 = empty */
    uint32_t hashcap;               /* power of two, > 2 * n */
};

/* The rows of one module under construction. */
struct build {
    struct cfitab_mod *m;
    struct cfitab_row *rows;
    size_t nrows, caprows;
    struct interner rules, unw;
    uint32_t unw_fdes;              /* FDEs handed to libunwind */
    int failed;
};

static void interner_free_hash(struct interner *in)
{
    bigmem_free(in->hash, in->hashcap * sizeof(*in->hash));
    in->hash = NULL;
    in->hashcap = 0;
}

/* The hashes of a build (its items stay: a published table holds them). */
static void build_free_hashes(struct build *b)
{
    interner_free_hash(&b->rules);
    interner_free_hash(&b->unw);
}

/* The rows and items of an unfinished build (the hashes are freed apart, once the items are
 * complete). */
static void build_free(struct build *b)
{
    bigmem_free(b->rows, b->caprows * sizeof(*b->rows));
    bigmem_free(b->rules.items, (size_t)b->rules.cap * b->rules.size);
    bigmem_free(b->unw.items, (size_t)b->unw.cap * b->unw.size);
    b->rows = NULL;
    b->rules.items = NULL;
    b->unw.items = NULL;
}

static uint64_t hash_bytes(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* The index of item (size bytes) in in, adding it when new; CFITAB_NONE when out of memory. */
static uint32_t interner_add(struct interner *in, const void *item, size_t size)
{
    if (in->size == 0)
        in->size = (uint32_t)((size + 7) & ~(size_t)7);
    if (size > in->size)
        return CFITAB_NONE; /* libunwind changed its mind about the size: not expected */
    unsigned char tmp[512];
    if (in->size > sizeof(tmp))
        return CFITAB_NONE;
    memset(tmp, 0, in->size);
    memcpy(tmp, item, size);
    if (2 * (in->n + 1) >= in->hashcap) {
        uint32_t cap = in->hashcap ? in->hashcap * 2 : 256;
        uint32_t *h = bigmem_alloc(cap * sizeof(*h));
        if (!h)
            return CFITAB_NONE;
        for (uint32_t i = 0; i < in->n; i++) {
            uint64_t k = hash_bytes(in->items + (size_t)i * in->size, in->size);
            uint32_t j = (uint32_t)k & (cap - 1);
            while (h[j])
                j = (j + 1) & (cap - 1);
            h[j] = i + 1;
        }
        bigmem_free(in->hash, in->hashcap * sizeof(*h));
        in->hash = h;
        in->hashcap = cap;
    }
    uint64_t k = hash_bytes(tmp, in->size);
    uint32_t j = (uint32_t)k & (in->hashcap - 1);
    while (in->hash[j]) {
        uint32_t i = in->hash[j] - 1;
        if (memcmp(in->items + (size_t)i * in->size, tmp, in->size) == 0)
            return i;
        j = (j + 1) & (in->hashcap - 1);
    }
    if (in->n == in->cap) {
        uint32_t cap = in->cap ? in->cap * 2 : 64;
        unsigned char *p = bigmem_resize(in->items, (size_t)in->cap * in->size,
                                         (size_t)cap * in->size);
        if (!p)
            return CFITAB_NONE;
        in->items = p;
        in->cap = cap;
    }
    memcpy(in->items + (size_t)in->n * in->size, tmp, in->size);
    in->hash[j] = in->n + 1;
    return in->n++;
}

/* Appends a row, merging it into the previous one when the state is the same, replacing a
 * previous row at the same offset (the end marker of the FDE before). */
static void push_row(struct build *b, uintptr_t addr, uint32_t state)
{
    if (addr < b->m->base || addr - b->m->base >= UINT32_MAX) {
        b->failed = 1;
        return;
    }
    uint32_t off = (uint32_t)(addr - b->m->base);
    if (b->nrows && off < b->rows[b->nrows - 1].off)
        return; /* overlapping FDEs: keep the first */
    if (b->nrows && b->rows[b->nrows - 1].off == off)
        b->nrows--;
    if (b->nrows && b->rows[b->nrows - 1].state == state)
        return;
    if (b->nrows == b->caprows) {
        size_t cap = b->caprows ? b->caprows * 2 : 1024;
        struct cfitab_row *p = bigmem_resize(b->rows, b->caprows * sizeof(*p), cap * sizeof(*p));
        if (!p) {
            b->failed = 1;
            return;
        }
        b->rows = p;
        b->caprows = cap;
    }
    b->rows[b->nrows].off = off;
    b->rows[b->nrows].state = state;
    b->nrows++;
}

/* The rows ehframe.c read from one FDE, then its end. */
static void add_rows(struct build *b, const struct ehframe_row *r, int n)
{
    for (int i = 0; i < n && !b->failed; i++) {
        uint32_t st = interner_add(&b->rules, &r[i].rule, sizeof(r[i].rule));
        push_row(b, r[i].start, st >= CFITAB_UNW ? CFITAB_NONE : st);
        if (i + 1 == n || r[i + 1].start != r[i].end)
            push_row(b, r[i].end, CFITAB_NONE);
    }
}

static void (*build_hook)(void);

void cfitab_set_build_hook(void (*fn)(void))
{
    build_hook = fn;
}

/* ehframe.c's rows of the FDE being read (writer only: one build at a time) */
static struct ehframe_row ehrows[EHFRAME_MAX_ROWS];

struct fde_rows {
    struct build *b;
    uintptr_t end;
};

/* unw_reg_states_iterate callback: one row [start, end) of an FDE. */
static int on_state(void *token, void *rs, size_t size, unw_word_t start, unw_word_t end)
{
    struct fde_rows *f = token;
    if (end <= start)
        return 0;
    uint32_t st = interner_add(&f->b->unw, rs, size);
    push_row(f->b, start, st == CFITAB_NONE || st >= CFITAB_UNW ? CFITAB_NONE : st | CFITAB_UNW);
    if (end > f->end)
        f->end = end;
    return f->b->failed ? -UNW_ENOMEM : 0;
}

/* Runs libunwind's CFI interpreter over the FDE that starts at ip. */
static void add_fde(struct build *b, uintptr_t ip)
{
    ucontext_t uc;
    memset(&uc, 0, sizeof(uc));
    uc.uc_mcontext.gregs[REG_RIP] = (greg_t)ip;
    uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)&uc;
    unw_cursor_t c;
    if (unw_init_local2(&c, &uc, UNW_INIT_SIGNAL_FRAME) < 0)
        return;
    struct fde_rows f = {b, 0};
    unw_reg_states_iterate(&c, on_state, &f);
    if (f.end)
        push_row(b, f.end, CFITAB_NONE);
}

/* Reads a 4-byte field of .eh_frame_hdr at p with encoding enc. Returns 0 or -EINVAL. */
static int read_enc4(const unsigned char *p, const unsigned char *hdr, int enc, uintptr_t *out)
{
    int32_t v;
    memcpy(&v, p, sizeof(v));
    switch (enc & 0x0f) {
    case DW_EH_PE_udata4: *out = (uint32_t)v; break;
    case DW_EH_PE_sdata4: *out = (uintptr_t)(intptr_t)v; break;
    default: return -EINVAL;
    }
    switch (enc & 0x70) {
    case 0: break;
    case DW_EH_PE_pcrel: *out += (uintptr_t)p; break;
    case DW_EH_PE_datarel: *out += (uintptr_t)hdr; break;
    default: return -EINVAL;
    }
    return 0;
}

/* The number of FDEs in m's .eh_frame_hdr search table (0 when it has none we can read). */
static uintptr_t fde_count(const struct cfitab_mod *m)
{
    const unsigned char *h = m->eh_frame_hdr;
    uintptr_t count;
    if (!h || h[0] != 1 || h[2] == DW_EH_PE_omit || read_enc4(h + 8, h, h[2], &count) != 0)
        return 0;
    return count;
}

/* The writer's work that must not wait for a long build (cfitab_set_yield), and the guard of
 * the build under way, left while that work runs. Writer thread. */
static void (*yield_fn)(void);
static struct crashguard *build_guard;
static uint64_t yield_next_ns;
#define YIELD_NS 50000000ull

void cfitab_set_yield(void (*fn)(void))
{
    yield_fn = fn;
}

/* Runs the writer's yield work every YIELD_NS of a build, outside the build's crash guard (a
 * fault there is no build's, and must not be ended as one with a lock held). */
static void maybe_yield(void)
{
    if (!yield_fn || !build_guard)
        return;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    if (now < yield_next_ns)
        return;
    yield_next_ns = now + YIELD_NS;
    struct crashguard *g = build_guard;
    crashguard_leave(g);
    yield_fn();
    crashguard_enter(g);
}

/* 1 when builds are to end: profiling stops (cfitab_cancel_builds), or its duration= is over
 * (a build of libjvm's table takes seconds on a busy machine: the writer must not miss the
 * end of the profile for it). Writer thread. */
static int cancelled(void)
{
    if (atomic_load_explicit(&cancel, memory_order_relaxed))
        return 1;
    if (!build_deadline_ns)
        return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec < build_deadline_ns)
        return 0;
    atomic_store_explicit(&cancel, 1, memory_order_relaxed);
    return 1;
}

/* Builds and publishes the table of module m from its .eh_frame_hdr search table, in b
 * (zeroed). What b holds when a read faults is the unfinished build's, freed by the caller;
 * once published, the table owns it and b holds nothing. */
static void build_table(struct cfitab_mod *m, struct build *b)
{
    m->built = 1;
    const unsigned char *h = m->eh_frame_hdr;
    /* version 1; eh_frame_ptr, fde_count and the table as 4-byte fields (what GNU ld, gold and
     * lld write); anything else is left without a table */
    uintptr_t count, dummy;
    if (!h || h[0] != 1 || h[2] == DW_EH_PE_omit || h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4) ||
        read_enc4(h + 4, h, h[1], &dummy) != 0 || read_enc4(h + 8, h, h[2], &count) != 0)
        return;
    b->m = m;
    const unsigned char *tab = h + 12;
    /* Each FDE is read by ehframe.c; only the few whose rules it cannot say go to libunwind,
     * whose per-FDE lookup (dl_iterate_phdr between two sigprocmask calls) made this loop
     * cost ~0.5 s for libjvm when every FDE went there. (Not registered with
     * _U_dyn_register: in 1.6.2 the CIE parsed for a dynamically registered table is never
     * given back to its pool, ~3.4 MB lost per build of libjvm's table.) */
    for (uintptr_t i = 0; i < count && !b->failed; i++) {
        if (i % 64 == 63)
            maybe_yield();
        if (i % 64 == 63 && cancelled()) {
            m->built = 0; /* left for a later session, if its module list stays */
            build_free(b);
            build_free_hashes(b);
            return;
        }
        uintptr_t ip, fde;
        if (read_enc4(tab + 8 * i, h, h[3], &ip) != 0 ||
            read_enc4(tab + 8 * i + 4, h, h[3], &fde) != 0)
            break;
        if (ip < m->lo || ip >= m->hi)
            continue;
        if (build_hook)
            build_hook();
        int n = 0;
        if (ehframe_fde_rows((const unsigned char *)fde, ip, ehrows, &n) == 0) {
            add_rows(b, ehrows, n);
        } else {
            b->unw_fdes++;
            add_fde(b, ip);
        }
    }
    build_free_hashes(b);
    struct cfitab_table *t = b->failed || !b->nrows ? NULL : malloc(sizeof(*t));
    if (!t) {
        build_free(b);
        return;
    }
    if (b->rows[b->nrows - 1].state != CFITAB_NONE)
        push_row(b, m->hi, CFITAB_NONE);
    struct cfitab_row *rows = bigmem_resize(b->rows, b->caprows * sizeof(*rows),
                                            b->nrows * sizeof(*rows));
    t->rows = rows ? rows : b->rows;
    t->rows_bytes = (rows ? b->nrows : b->caprows) * sizeof(*rows);
    t->nrows = (uint32_t)b->nrows;
    /* the page index: for each page up to the last row's, the row in force at its start */
    uint32_t npages = (t->rows[t->nrows - 1].off >> CFITAB_PAGE_SHIFT) + 2;
    uint32_t *pages = bigmem_alloc((size_t)npages * sizeof(*pages));
    if (pages) {
        uint32_t r = 0;
        for (uint32_t p = 0; p < npages; p++) {
            uint64_t at = (uint64_t)p << CFITAB_PAGE_SHIFT;
            while (r + 1 < t->nrows && t->rows[r + 1].off <= at)
                r++;
            pages[p] = r;
        }
    }
    t->pages = pages;
    t->npages = pages ? npages : 0;
    t->states = b->unw.items;
    t->states_bytes = (size_t)b->unw.cap * b->unw.size;
    t->nstates = b->unw.n;
    t->state_size = b->unw.size;
    t->rules = (const struct cfitab_rule *)b->rules.items;
    t->rules_bytes = (size_t)b->rules.cap * b->rules.size;
    t->nrules = b->rules.n;
    t->unw_fdes = b->unw_fdes;
    atomic_fetch_add_explicit(&table_bytes,
                              sizeof(*t) + b->nrows * sizeof(*rows) + t->states_bytes +
                                  t->rules_bytes + (size_t)t->npages * sizeof(*pages),
                              memory_order_relaxed);
    atomic_store_explicit(&m->table, t, memory_order_release);
    b->rows = NULL; /* the table's now: a later fault must not free them */
    b->unw.items = NULL;
    b->rules.items = NULL;
}

int cfitab_init(void)
{
    if (!initialized) {
        /* libunwind's one-time setup (tdep_init: a mutex, its memory pools) runs in the first
         * unw_init_local; do it here so that no handler ever does. Walking a row table of one
         * function of ours also primes the CFI parser's pools. */
        struct build b;
        memset(&b, 0, sizeof(b));
        struct cfitab_mod self = {0};
        b.m = &self;
        add_fde(&b, (uintptr_t)cfitab_init);
        build_free(&b);
        build_free_hashes(&b);
        initialized = 1;
    }
    atomic_store_explicit(&cancel, 0, memory_order_relaxed);
    build_deadline_ns = 0;
    rescan();
    return nsnaps ? 0 : -ENOMEM;
}

void cfitab_want(uintptr_t pc)
{
    for (size_t i = 0; i < nmods; i++) {
        struct cfitab_mod *m = mods[i];
        if (pc >= m->lo && pc < m->hi && m->eh_frame_hdr) {
            atomic_store_explicit(&m->wanted, 1, memory_order_relaxed);
            want_pending = 1;
        }
    }
}

/* The module whose memory the writer reads (build_next), and the build under way: where a
 * fault leaves them. Writer only. */
static struct cfitab_mod *volatile reading;
static struct build building;

/* Builds the table of the wanted, loaded module with the fewest FDEs. Returns 0 when none
 * is left. Smallest first: libjvm's table (tens of thousands of FDEs) takes the better part
 * of a second to build, and a library met during it (libzip under Deflater) would otherwise
 * wait behind it, its samples cut short at its first frame meanwhile. */
static int build_next(void)
{
    memset(&building, 0, sizeof(building)); /* a fault below frees what it holds */
    struct cfitab_mod *best = NULL;
    uintptr_t best_count = 0;
    for (size_t i = 0; i < nmods; i++) {
        struct cfitab_mod *m = mods[i];
        if (m->built || !m->live || !atomic_load_explicit(&m->wanted, memory_order_relaxed))
            continue;
        reading = m;
        uintptr_t count = fde_count(m);
        if (!best || count < best_count) {
            best = m;
            best_count = count;
        }
    }
    if (!best)
        return 0;
    reading = best;
    build_table(best, &building);
    return 1;
}

/* build_next under the crash guard: a module unloaded while the writer reads its tables
 * faults here, and is then left without a table (its walks stop at its frames, as before a
 * table is built) instead of taking the JVM down. Returns 0 when no module is left. */
static int build_guarded(void)
{
    struct crashguard g;
    if (sigsetjmp(g.jb, 0) == 0) {
        crashguard_enter(&g);
        build_guard = &g;
        int more = build_next();
        build_guard = NULL;
        crashguard_leave(&g);
        return more;
    }
    build_guard = NULL;
    /* the guard is left; libunwind may have lost a little of its pool to the cut parse */
    build_free_hashes(&building);
    build_free(&building);
    memset(&building, 0, sizeof(building));
    atomic_fetch_add_explicit(&build_faults, 1, memory_order_relaxed);
    /* gone (the usual case): no longer live, its ask dropped; loaded again at the same place
     * later, its entry is kept and its next ask builds it. Still loaded (a header that faults
     * for another reason): given up, or every service would fault on it again. */
    struct cfitab_mod *m = reading;
    if (rescan())
        nativewalk_clear_unknown();
    m->built = m->live;
    return 1;
}

void cfitab_service(void)
{
    if (!initialized)
        return;
    /* the loader changes rarely; its scan takes its lock: twice a second is enough */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    /* a walk that met code outside every known module asks for a scan sooner (a library the
     * JDK loaded on first use: libzip, libnio). Anonymous code is outside every module too and
     * would ask at every sample: when the asked-for scan finds nothing new, handlers stop
     * asking until the next regular one. */
    int asked_scan = !asks_muted && nativewalk_unknown_pending();
    int regular = now - last_scan_ns >= RESCAN_NS;
    if (regular || (asked_scan && now - last_scan_ns >= RESCAN_ASKED_NS)) {
        last_scan_ns = now;
        int changed = rescan();
        /* an asked-for scan that found nothing new: the pc was anonymous code, which the next
         * walks will meet again; the asks are muted until the next regular scan (before, the
         * flag stayed set and the writer took the loader's lock every 20 ms) */
        asks_muted = !changed && !regular;
        nativewalk_clear_unknown();
    }
    int asked = want_pending;
    want_pending = 0;
    if (!nativewalk_take_wanted() && !asked)
        return;
    /* a module a walk met may have been unloaded since (dlclose): its memory is gone, and
     * reading its tables would fault in this thread. Build only what is loaded now; one
     * unloaded during its build (not excluded: holding the loader's lock that long would
     * stall dlopen and C++ exceptions in the JVM) is left without a table (build_guarded). */
    if (rescan())
        nativewalk_clear_unknown();
    while (!cancelled() && build_guarded())
        ;
}

void cfitab_set_deadline(uint64_t mono_ns)
{
    build_deadline_ns = mono_ns;
}

void cfitab_cancel_builds(void)
{
    atomic_store_explicit(&cancel, 1, memory_order_relaxed);
}

static void free_mod(struct cfitab_mod *m)
{
    const struct cfitab_table *t = atomic_load_explicit(&m->table, memory_order_relaxed);
    if (t) {
        atomic_fetch_sub_explicit(&table_bytes,
                                  sizeof(*t) + t->nrows * sizeof(*t->rows) +
                                      t->states_bytes + t->rules_bytes +
                                      (size_t)t->npages * sizeof(*t->pages),
                                  memory_order_relaxed);
        bigmem_free((void *)t->rows, t->rows_bytes);
        bigmem_free((void *)t->pages, (size_t)t->npages * sizeof(*t->pages));
        bigmem_free((void *)t->states, t->states_bytes);
        bigmem_free((void *)t->rules, t->rules_bytes);
        free((void *)t);
    }
    free(m);
}

/* Whether snapshot s holds m (s is sorted by lo, its ranges disjoint). */
static int in_snapshot(const struct cfitab_snap *s, const struct cfitab_mod *m)
{
    uint32_t lo = 0, hi = s->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->mods[mid]->lo < m->lo)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->mods[lo] == m;
}

size_t cfitab_replaced(void)
{
    return nsnaps > 1 ? nsnaps - 1 : 0;
}

void cfitab_reclaim(void)
{
    if (nsnaps < 2)
        return;
    const struct cfitab_snap *cur = snaps[nsnaps - 1];
    for (size_t i = 0; i + 1 < nsnaps; i++)
        free((void *)snaps[i]);
    snaps[0] = cur;
    nsnaps = 1;
    size_t k = 0;
    for (size_t i = 0; i < nmods; i++) {
        if (in_snapshot(cur, mods[i]))
            mods[k++] = mods[i];
        else
            free_mod(mods[i]);
    }
    nmods = k;
}

void cfitab_reset(void)
{
    nativewalk_set_snapshot(NULL);
    for (size_t i = 0; i < nsnaps; i++)
        free((void *)snaps[i]);
    nsnaps = 0;
    for (size_t i = 0; i < nmods; i++)
        free_mod(mods[i]);
    free(mods);
    mods = NULL;
    nmods = capmods = 0;
    want_pending = 0;
    asks_muted = 0;
    loader_adds = loader_subs = ~0ull;
    atomic_store_explicit(&table_bytes, 0, memory_order_relaxed);
}

size_t cfitab_bytes(void)
{
    return atomic_load_explicit(&table_bytes, memory_order_relaxed);
}

unsigned cfitab_build_faults(void)
{
    return atomic_load_explicit(&build_faults, memory_order_relaxed);
}

const struct cfitab_table *cfitab_table_of(uintptr_t pc)
{
    for (size_t i = 0; i < nmods; i++)
        if (pc >= mods[i]->lo && pc < mods[i]->hi && mods[i]->live)
            return atomic_load_explicit(&mods[i]->table, memory_order_acquire);
    return NULL;
}
