/* nativewalk.c: the native stack walk.
 *
 * ASYNC-SIGNAL-SAFE: nativewalk_sigsafe and nativewalk_is_java_sigsafe run in signal handlers.
 * A frame's step applies its rule from the tables cfitab.c built outside handlers (CFA, return
 * address and rbp: a few loads); for the rare frame whose rule is a libunwind register state
 * they call only libunwind's unw_init_local2 (once libunwind is initialized: cfitab_init),
 * unw_apply_reg_state and unw_get_reg, which compute and read registers and the stack (see
 * cfitab.h for why unw_step is never called here).
 */
#define UNW_LOCAL_ONLY
#include "nativewalk.h"

#include <libunwind.h>
#include <stdatomic.h>
#include <string.h>
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
/* the stack a frame-pointer step may read above sp, when the thread's bounds are not known */
#define FP_WINDOW (8u << 20)
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

/* The row state at offset off of a module (struct cfitab_row), CFITAB_NONE when none. */
static uint32_t find_state(const struct cfitab_table *t, uintptr_t off)
{
    if (off >= UINT32_MAX || t->nrows == 0 || off < t->rows[0].off)
        return CFITAB_NONE;
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
    if (st == CFITAB_NONE || (st & CFITAB_UNW ? (st & ~CFITAB_UNW) >= t->nstates
                                              : st >= t->nrules))
        return CFITAB_NONE;
    return st;
}

int nativewalk_rule_step_sigsafe(const struct cfitab_rule *r, uintptr_t pc, uintptr_t sp, uintptr_t fp,
                     uintptr_t lo, uintptr_t hi, uintptr_t *npc, uintptr_t *nsp, uintptr_t *nfp)
{
    uintptr_t cfa;
    if (r->kind == CFITAB_RULE_STD)
        cfa = (r->cfa_reg == CFITAB_REG_RSP ? sp : fp) + (uintptr_t)(intptr_t)r->cfa_off;
    else if (r->kind == CFITAB_RULE_PLT)
        cfa = sp + (uintptr_t)(intptr_t)r->cfa_off + ((pc & 15) >= r->plt_at ? 8 : 0);
    else
        return 0;
    uintptr_t at = cfa + (uintptr_t)(intptr_t)r->ra_off;
    if (at < lo || at > hi - 8)
        return 0;
    *npc = *(const uintptr_t *)at;
    *nfp = fp;
    if (r->fp_off) {
        at = cfa + (uintptr_t)(intptr_t)r->fp_off;
        if (at < lo || at > hi - 8)
            return 0;
        *nfp = *(const uintptr_t *)at;
    }
    *nsp = cfa;
    return 1;
}

/* 1 when ra, an address of known code (a module of snapshot s or Java code), follows a call
 * instruction: call rel32, or an indirect call through a register or memory (ff /2, with or
 * without a displacement). */
static int after_call(const struct cfitab_snap *s, uintptr_t ra)
{
    const struct cfitab_mod *m = find_mod(s, ra);
    if (m ? ra < m->lo + 8 : !nativewalk_is_java_sigsafe(ra) || ra < 4096)
        return 0;
    const unsigned char *c = (const unsigned char *)ra;
    if (c[-5] == 0xe8)
        return 1;
    for (int len = 2; len <= 7; len++)
        if (c[-len] == 0xff && (c[1 - len] & 0x38) == 0x10)
            return 1;
    return 0;
}

/* One frame-pointer step from the frame of pc (stack pointer sp, rbp fp, in module m) to its
 * caller: *ra, *nsp and *nfp as they were before the call. leaf: pc is where execution resumes
 * (the interrupted pc), which may be in a prologue, at a return, or in a function that keeps
 * no frame (a small leaf: GCC makes none even with -fno-omit-frame-pointer), where rbp is its
 * caller's: the code there and the top of the stack say which. Returns 1, or 0 when the
 * registers do not make a frame on [stack_lo, stack_hi). */
static int fp_step(const struct cfitab_snap *s, uintptr_t pc, uintptr_t sp, uintptr_t fp,
                   int leaf, uintptr_t stack_lo, uintptr_t stack_hi, const struct cfitab_mod *m,
                   uintptr_t *ra, uintptr_t *nsp, uintptr_t *nfp)
{
    if (leaf && pc > m->lo && pc + 8 <= m->hi && sp >= stack_lo && sp + 16 <= stack_hi) {
        const unsigned char *c = (const unsigned char *)pc;
        if (c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa)
            c += 4;             /* endbr64, then the prologue */
        uintptr_t top = *(const uintptr_t *)sp;
        if (c[0] == 0x55 || c[0] == 0xc3 ||
            (sp != fp && after_call(s, top))) {
            /* push %rbp not run yet, a ret (rbp restored), or a return address on top of the
             * stack, after its call (a leaf without a frame): this function's own */
            *ra = top;
            *nsp = sp + 8;
            *nfp = fp;
            return 1;
        }
        if (c[-1] == 0x55 && c[0] == 0x48 && c[1] == 0x89 && c[2] == 0xe5) {
            /* mov %rsp,%rbp right after push %rbp: the caller's rbp on top, then the return */
            *nfp = top;
            *ra = *(const uintptr_t *)(sp + 8);
            *nsp = sp + 16;
            return 1;
        }
    }
    if (fp < sp || fp < stack_lo || fp + 16 > stack_hi || (fp & 7))
        return 0;
    *nfp = *(const uintptr_t *)fp;
    *ra = *(const uintptr_t *)(fp + 8);
    *nsp = fp + 16;
    return 1;
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
    /* the current frame's rbp: the interrupted one, then as each step restored it */
    uintptr_t fp = (uintptr_t)u->uc_mcontext.gregs[REG_RBP];
    if (nativewalk_is_java_sigsafe(pc))
        return 0;
    /* frame-pointer steps check their reads against the stack; a thread whose bounds are not
     * known (not started under the agent) gets a window above its sp that holds any thread
     * stack the JVM makes (1-8 MB); a read outside the stack faults into the crash guard */
    uintptr_t fp_lo = stack_hi ? stack_lo : sp, fp_hi = stack_hi ? stack_hi : sp + FP_WINDOW;
    if (fp_hi < fp_lo)
        fp_hi = UINTPTR_MAX;
    const struct cfitab_snap *s = atomic_load_explicit(&snapshot, memory_order_seq_cst);
    /* libunwind's cursor, for the few frames whose rule is a libunwind state: made when the
     * first such frame is met, from uc at the leaf (all its registers), else from the pc,
     * sp and rbp the walk restored, the other registers unknown (0): a state that needs one
     * of them gives a caller that must then land in known code, as a frame-pointer step's */
    unw_cursor_t c;
    ucontext_t regs;
    int cursor_ok = 0;
    int n = 0, by_fp = 0;
    /* the leaf pc is where execution resumes; callers' pcs are return addresses, whose call
     * instruction lies one byte before */
    uintptr_t adjust = 0;
    /* the last frame stored, with its rbp (for where the walk stopped) */
    uintptr_t cur_pc = 0, cur_sp = 0, cur_fp = 0;
    while (n < max) {
        cur_pc = pc;
        cur_sp = sp;
        cur_fp = fp;
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
        if (!t && m->eh_frame_hdr &&
            !atomic_exchange_explicit(&m->wanted, 1, memory_order_relaxed)) {
            /* the first walk to meet this module asks for its table and wakes the writer
             * (write(2) is async-signal-safe; the handler saves and restores errno) */
            atomic_store_explicit(&wanted_any, 1, memory_order_relaxed);
            wake_writer();
        }
        uint32_t st = t ? find_state(t, pc - adjust - m->base) : CFITAB_NONE;
        uintptr_t npc = 0, nsp = 0, nfp = 0;
        int rs = st != CFITAB_NONE;
        if (rs && !(st & CFITAB_UNW)) {
            if (!nativewalk_rule_step_sigsafe(&t->rules[st], pc, sp, fp, fp_lo, fp_hi, &npc, &nsp,
                                              &nfp))
                break;
            cursor_ok = 0;
        } else if (rs) {
            if (!cursor_ok) {
                /* libunwind was initialized by cfitab_init: this takes no lock (its first
                 * call would) */
                const void *from = uc;
                if (n > 1) {
                    memset(regs.uc_mcontext.gregs, 0, sizeof(regs.uc_mcontext.gregs));
                    regs.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
                    regs.uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
                    regs.uc_mcontext.gregs[REG_RBP] = (greg_t)fp;
                    from = &regs;
                }
                if (unw_init_local2(&c, (unw_context_t *)from, UNW_INIT_SIGNAL_FRAME) < 0)
                    break;
                cursor_ok = 1;
            }
            void *state = (void *)(t->states + (size_t)(st & ~CFITAB_UNW) * t->state_size);
            unw_word_t a = 0, b = 0, d = 0;
            if (unw_apply_reg_state(&c, state) <= 0 || unw_get_reg(&c, UNW_REG_IP, &a) < 0 ||
                unw_get_reg(&c, UNW_REG_SP, &b) < 0)
                break;
            if (unw_get_reg(&c, UNW_X86_64_RBP, &d) < 0)
                d = 0;
            npc = a;
            nsp = b;
            nfp = d;
        } else {
            /* no rule for this pc (the module's table is not built yet: libjvm's takes the
             * writer a few hundred ms at the start; or it has none): by frame pointer, which
             * libjvm and the JDK's libraries keep. A frame without one (a leaf) makes the step
             * skip its caller, once, where stopping would lose every caller. */
            if (!fp_step(s, pc, sp, fp, n == 1, fp_lo, fp_hi, m, &npc, &nsp, &nfp))
                break;
            cursor_ok = 0;
            by_fp++;
        }
        /* callers live higher on the stack: anything else is a broken rule or stack */
        if (nsp <= sp || npc < 4096 || (stack_hi && (nsp > stack_hi || nsp < stack_lo)))
            break;
        if (nativewalk_is_java_sigsafe(npc)) {
            if (java) {
                java->pc = npc;
                java->sp = nsp;
                java->fp = nfp;
                java->fp_steps = by_fp;
            }
            return n;
        }
        /* a frame-pointer step must land in known code (a frame without a frame pointer gave a
         * garbage rbp), and so must a libunwind step past the leaf (made from registers the
         * walk only partly knows) */
        if ((!rs || ((st & CFITAB_UNW) && n > 1)) && !find_mod(s, npc))
            break;
        pc = npc;
        sp = nsp;
        fp = nfp;
        adjust = 1;
    }
    if (java) {
        java->fp_steps = by_fp;
        if (n > 1 && cur_fp) {
            /* stopped at a caller's frame: its registers as the walk restored them */
            java->stop_pc = cur_pc;
            java->stop_sp = cur_sp;
            java->stop_fp = cur_fp;
        }
    }
    return n;
}
