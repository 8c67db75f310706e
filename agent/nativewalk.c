/* nativewalk.c: the native stack walk.
 *
 * ASYNC-SIGNAL-SAFE: nativewalk_sigsafe and nativewalk_is_java_sigsafe run in signal handlers.
 * They call only libunwind's unw_init_local2 (once libunwind is initialized: cfitab_init),
 * unw_apply_reg_state and unw_get_reg, which compute and read registers and the stack; the
 * unwind rules come from the tables cfitab.c built outside handlers (see cfitab.h for why
 * unw_step is never called here).
 */
#define UNW_LOCAL_ONLY
#include "nativewalk.h"

#include <libunwind.h>
#include <stdatomic.h>
#include <ucontext.h>
#include <unistd.h>

/* seq_cst both ways (a plain load on x86): the writer frees a replaced snapshot once it read
 * handler_inflight() == 0 after this store, so a handler counted after that read must load
 * the new one (cfitab_reclaim) */
static _Atomic(const struct cfitab_snap *) snapshot;
/* set by handlers (relaxed: the flag is a hint; the module's own flag says which) */
static atomic_int wanted_any;
static atomic_int unknown_any;  /* a walk met a pc in no module of the snapshot */
/* the writer's eventfd (-1: none); written while no handler runs */
static int wake_fd = -1;
/* written while no handler runs: HotSpot's CodeCache::_low_bound and _high_bound statics,
 * read at every check (HotSpot sets them once, but reading costs nothing and is never stale) */
static const volatile uintptr_t *code_lo, *code_hi;

void nativewalk_set_snapshot(const struct cfitab_snap *s)
{
    atomic_store_explicit(&snapshot, s, memory_order_seq_cst);
}

void nativewalk_set_code_bounds(const uintptr_t *lo, const uintptr_t *hi)
{
    code_lo = lo;
    code_hi = hi;
}

int nativewalk_is_java_sigsafe(uintptr_t pc)
{
    return code_lo && code_hi && pc >= *code_lo && pc < *code_hi;
}

void nativewalk_set_wake_fd(int fd)
{
    wake_fd = fd;
}

int nativewalk_take_wanted(void)
{
    return atomic_exchange_explicit(&wanted_any, 0, memory_order_relaxed);
}

int nativewalk_unknown_pending(void)
{
    return atomic_load_explicit(&unknown_any, memory_order_relaxed);
}

void nativewalk_clear_unknown(void)
{
    atomic_store_explicit(&unknown_any, 0, memory_order_relaxed);
}

static void wake_writer(void)
{
    if (wake_fd >= 0) {
        uint64_t one = 1;
        ssize_t w = write(wake_fd, &one, sizeof(one));
        (void)w; /* fails only when the counter is full: awake anyway */
    }
}

/* The module holding pc, or NULL. */
static struct cfitab_mod *find_mod(const struct cfitab_snap *s, uintptr_t pc)
{
    uint32_t lo = 0, hi = s->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        struct cfitab_mod *m = s->mods[mid];
        if (pc < m->lo)
            hi = mid;
        else if (pc >= m->hi)
            lo = mid + 1;
        else
            return m;
    }
    return NULL;
}

/* The register state at offset off of a module, or NULL when there is none. */
static void *find_state(const struct cfitab_table *t, uintptr_t off)
{
    if (off >= UINT32_MAX || t->nrows == 0 || off < t->rows[0].off)
        return NULL;
    /* the last row with rows[i].off <= off, between the rows in force at the start of off's
     * page and of the next page */
    uint32_t lo = 0, hi = t->nrows;
    uintptr_t p = off >> CFITAB_PAGE_SHIFT;
    if (p + 1 < t->npages) {
        lo = t->pages[p];
        hi = t->pages[p + 1] + 1;
    }
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->rows[mid].off <= off)
            lo = mid;
        else
            hi = mid;
    }
    uint32_t st = t->rows[lo].state;
    if (st == CFITAB_NONE || st >= t->nstates)
        return NULL;
    return (void *)(t->states + (size_t)st * t->state_size);
}

int nativewalk_sigsafe(void *uc, struct sample_frame *frames, int max, uintptr_t stack_lo,
                       uintptr_t stack_hi, struct nativewalk_java *java)
{
    if (java)
        *java = (struct nativewalk_java){0};
    if (!uc || max <= 0)
        return 0;
    const ucontext_t *u = uc;
    uintptr_t pc = (uintptr_t)u->uc_mcontext.gregs[REG_RIP];
    uintptr_t sp = (uintptr_t)u->uc_mcontext.gregs[REG_RSP];
    if (nativewalk_is_java_sigsafe(pc))
        return 0;
    const struct cfitab_snap *s = atomic_load_explicit(&snapshot, memory_order_seq_cst);
    unw_cursor_t c;
    /* reads the registers out of uc; libunwind was initialized by cfitab_init, so this takes
     * no lock (its first call would) */
    if (!s || unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0)
        s = NULL;
    int n = 0;
    /* the leaf pc is where execution resumes; callers' pcs are return addresses, whose call
     * instruction lies one byte before */
    uintptr_t adjust = 0;
    /* the last frame stored, with its rbp as restored (read for callers only) */
    uintptr_t cur_pc = 0, cur_sp = 0;
    unw_word_t fp = 0;
    while (n < max) {
        cur_pc = pc;
        cur_sp = sp;
        if (n > 0 && unw_get_reg(&c, UNW_X86_64_RBP, &fp) < 0)
            fp = 0;
        frames[n].lineno = SAMPLE_FRAME_PACK(SAMPLE_FT_NATIVE, 0);
        frames[n].method_id = (jmethodID)pc;
        n++;
        struct cfitab_mod *m = s ? find_mod(s, pc) : NULL;
        if (!m) {
            /* maybe a library loaded since the last scan (the JDK loads libzip, libnio...
             * on first use): the writer rescans now rather than at its next period; once
             * until it has looked */
            if (s && !atomic_exchange_explicit(&unknown_any, 1, memory_order_relaxed))
                wake_writer();
            break;
        }
        const struct cfitab_table *t = atomic_load_explicit(&m->table, memory_order_acquire);
        if (!t) {
            /* the first walk to meet this module asks for its table and wakes the writer
             * (write(2) is async-signal-safe; the handler saves and restores errno) */
            if (m->eh_frame_hdr &&
                !atomic_exchange_explicit(&m->wanted, 1, memory_order_relaxed)) {
                atomic_store_explicit(&wanted_any, 1, memory_order_relaxed);
                wake_writer();
            }
            break;
        }
        void *rs = find_state(t, pc - adjust - m->base);
        if (!rs || unw_apply_reg_state(&c, rs) <= 0)
            break;
        unw_word_t npc = 0, nsp = 0;
        if (unw_get_reg(&c, UNW_REG_IP, &npc) < 0 || unw_get_reg(&c, UNW_REG_SP, &nsp) < 0)
            break;
        /* callers live higher on the stack: anything else is a broken rule or stack */
        if (nsp <= sp || npc < 4096 || (stack_hi && (nsp > stack_hi || nsp < stack_lo)))
            break;
        pc = npc;
        sp = nsp;
        adjust = 1;
        if (nativewalk_is_java_sigsafe(pc)) {
            unw_word_t jfp = 0;
            if (java && unw_get_reg(&c, UNW_X86_64_RBP, &jfp) == 0) {
                java->pc = pc;
                java->sp = sp;
                java->fp = jfp;
            }
            return n;
        }
    }
    if (java && n > 1 && fp) {
        /* stopped at a caller's frame: its registers as the walk restored them */
        java->stop_pc = cur_pc;
        java->stop_sp = cur_sp;
        java->stop_fp = fp;
    }
    return n;
}
