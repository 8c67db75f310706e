/* stackwalk.c: crash-guarded AsyncGetCallTrace with recovery from HotSpot's structures (see
 * stackwalk.h).
 *
 * ASYNC-SIGNAL-SAFE: stackwalk_java_sigsafe and everything it calls run in signal handlers.
 * Every read of JVM memory and every AGCT call happens inside a crash guard; values read are
 * range-checked (thread stack bounds, code cache) before they are followed.
 */
#include "stackwalk.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "codecache.h"
#include "counters.h"
#include "crashguard.h"
#include "framecache.h"

/* AGCT's ABI (not in any JDK header). */
struct agct_trace {
    JNIEnv *env_id;
    jint num_frames;
    struct sample_frame *frames;
};
typedef void (*agct_fn)(struct agct_trace *, jint, void *);

static agct_fn agct;
static enum stackwalk_mode mode;
static int asgct_flag = -1;
static intptr_t env_offset;
static unsigned fault_every;
/* relaxed: only picks which walks fault on purpose */
static _Atomic unsigned walks;
/* test-only forced faults: an unreadable page, and an AGCT trace AGCT cannot write into */
static void *fault_page;
static struct agct_trace *ro_trace;

/* the stub name used when HotSpot's own cannot be read: a literal, which lives as long as the
 * library (never unloaded) */
static const char unknown_stub[] = "[unknown stub]";

int stackwalk_init(void)
{
    if (!agct)
        agct = (agct_fn)dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
    return agct ? 0 : -ENOENT;
}

int stackwalk_configure(enum stackwalk_mode m, int flag, intptr_t env_off, unsigned every)
{
    mode = m;
    asgct_flag = flag;
    env_offset = env_off;
    if (every && !fault_page) {
        /* two pages: the first unreadable, the second a trace made read-only once filled */
        char *p = mmap(NULL, 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return -errno;
        if (mprotect(p + 4096, 4096, PROT_READ | PROT_WRITE) != 0) {
            int e = errno;
            munmap(p, 8192);
            return -e;
        }
        ro_trace = (struct agct_trace *)(p + 4096);
        /* AGCT only checks env_id against NULL (an assert compares it in debug builds) */
        ro_trace->env_id = (JNIEnv *)(p + 4096);
        if (mprotect(p + 4096, 4096, PROT_READ) != 0) {
            int e = errno;
            munmap(p, 8192);
            return -e;
        }
        fault_page = p;
    }
    fault_every = every;
    return 0;
}

/* Arms the guard to put back the flag AGCT sets on the thread while it runs. */
static void guard_asgct_flag(struct crashguard *g, JNIEnv *env)
{
    if (asgct_flag >= 0 && env_offset > 0) {
        g->restore = (volatile uint8_t *)((uintptr_t)env - (uintptr_t)env_offset +
                                          (uintptr_t)asgct_flag);
        g->restore_value = *g->restore;
    }
}

/* Calls AGCT; the flag AGCT sets on the thread while it runs is put back if it faults. */
static int call_agct(struct crashguard *g, JNIEnv *env, void *uc, struct sample_frame *frames,
                     int depth)
{
    guard_asgct_flag(g, env);
    struct agct_trace t = {env, 0, frames};
    agct(&t, depth, uc);
    g->restore = NULL;
    return t.num_frames;
}

/* Faults on purpose (test option _faultevery), alternately inside AGCT after it set its
 * thread flag (a trace it cannot write its result into) and in our own code, so that both
 * ways out of a fault are exercised. Does not return. */
static void forced_fault(struct crashguard *g, JNIEnv *env, unsigned k)
{
    if ((k / fault_every) & 1) {
        guard_asgct_flag(g, env);
        agct(ro_trace, 1, NULL);
    }
    (void)*(volatile const char *)fault_page;
}

/* The name of the stub at pc in blob b, as HotSpot names it: the stub's own name where the
 * blob holds many (StubRoutines' blobs: `StubRoutines::jbyte_disjoint_arraycopy`), else the
 * blob's. *start is set to the stub's first instruction when known (0 otherwise). */
static const char *stub_name(const struct codecache_blob *b, uintptr_t pc, uintptr_t *start)
{
    const char *qualified = NULL;
    uintptr_t st = 0;
    const char *name = codecache_stub_name_sigsafe(pc, &st, &qualified);
    if (name && st < b->code_begin) {
        name = NULL; /* a stale entry: the blob holding pc starts after it */
        st = 0;
    }
    if (start)
        *start = st;
    if (name && b->name) {
        const char *p = b->name, *q = "StubRoutines";
        while (*q && *p == *q)
            p++, q++;
        if (!*q && qualified)
            return qualified;
    }
    if (name)
        return name;
    return b->name ? b->name : unknown_stub;
}

/* Registers of one frame. */
struct regs {
    uintptr_t pc, sp, fp;
};

static inline uintptr_t rd(uintptr_t a)
{
    return *(const volatile uintptr_t *)a;
}

static inline uint8_t rd8(uintptr_t a)
{
    return *(const volatile uint8_t *)a;
}

/* Whether ret can be a return address: the bytes before it end with a call instruction
 * (call rel32; call through a register or memory, with or without a REX prefix). */
static int after_call(uintptr_t ret)
{
    if (rd8(ret - 5) == 0xe8)
        return 1;
    for (int len = 2; len <= 7; len++) {
        uint8_t op = rd8(ret - (uintptr_t)len);
        uint8_t modrm = rd8(ret - (uintptr_t)len + 1);
        if (op == 0xff && (modrm & 0x38) == 0x10) {
            int mod = modrm >> 6, rm = modrm & 7;
            int want = 2 + (rm == 4 && mod != 3) + (mod == 1 ? 1 : mod == 2 ? 4 : 0) +
                       (mod == 0 && rm == 5 ? 4 : 0);
            if (want == len)
                return 1;
        }
    }
    return 0;
}

/* Whether a frame of the caller (pc, sp) is plausible: sp inside the stack above the stub's,
 * pc right after a call in compiled Java code or the interpreter. */
static int caller_ok(const struct codecache_thread *th, uintptr_t old_sp, const struct regs *c)
{
    if (c->sp <= old_sp || c->sp >= th->stack_hi || (c->sp & 7))
        return 0;
    struct codecache_blob b;
    if (!codecache_find_sigsafe(c->pc, &b) || b.kind == CODECACHE_STUB)
        return 0;
    /* the interpreter pushes its return entry and jumps: no call before it; AGCT checks an
     * interpreted frame thoroughly itself (its Method*, bcp, locals) */
    return b.kind == CODECACHE_INTERPRETER || after_call(c->pc);
}

static int unwind_prologue(uintptr_t from, int frame_size, const struct regs *r,
                           struct regs *c, int *built);

/* Unwinds the frame of the stub holding r->pc (blob b) into *c, exactly, or returns 0. */
static int unwind_stub(const struct codecache_thread *th, const struct codecache_blob *b,
                       uintptr_t stub_start, const struct regs *r, struct regs *c)
{
    uintptr_t pc = r->pc, sp = r->sp, fp = r->fp;
    if (sp < th->stack_lo || sp >= th->stack_hi || (sp & 7))
        return 0;
    /* a blob that is one frame of known size (runtime stubs, adapters, safepoint and deopt
     * blobs) once the frame is built: its size counts the return address and saved rbp */
    if (b->frame_size > 0 && b->frame_complete >= 0 &&
        pc >= b->code_begin + (uintptr_t)b->frame_complete) {
        uintptr_t nsp = sp + (uintptr_t)b->frame_size * sizeof(uintptr_t);
        if (nsp > th->stack_hi)
            return 0;
        c->pc = rd(nsp - 8);
        c->fp = rd(nsp - 16);
        c->sp = nsp;
        return caller_ok(th, sp, c);
    }
    uintptr_t start = stub_start ? stub_start : b->code_begin;
    /* a stub that builds its frame with `push rbp; mov rbp, rsp` (HotSpot's enter()) */
    int enter = rd8(start) == 0x55 && rd8(start + 1) == 0x48 &&
                ((rd8(start + 2) == 0x89 && rd8(start + 3) == 0xe5) ||
                 (rd8(start + 2) == 0x8b && rd8(start + 3) == 0xec));
    if (enter && pc == start + 1) {
        c->pc = rd(sp + 8);
        c->fp = rd(sp);
        c->sp = sp + 16;
        if (caller_ok(th, sp, c))
            return 1;
    }
    if (enter && pc >= start + 4 && rd8(pc) != 0xc3 && fp >= sp && fp < th->stack_hi - 16 &&
        !(fp & 7)) {
        c->pc = rd(fp + 8);
        c->fp = rd(fp);
        c->sp = fp + 16;
        if (caller_ok(th, sp, c))
            return 1;
    }
    /* in a stub's frame setup (pushes, sub rsp): the decoded part says where the return
     * address is */
    int built;
    if (!enter && pc > start && unwind_prologue(start, b->frame_size, r, c, &built) &&
        caller_ok(th, sp, c))
        return 1;
    /* at the stub's entry, at its `ret`, or a stub that never builds a frame (vtable and
     * itable stubs): the return address is on top of the stack */
    c->pc = rd(sp);
    c->fp = fp;
    c->sp = sp + 8;
    return caller_ok(th, sp, c);
}

/* Bytes of a ModRM operand at p (ModRM, SIB, displacement). */
static int modrm_len(uintptr_t p)
{
    uint8_t m = rd8(p);
    int mod = m >> 6, rm = m & 7, n = 1;
    if (mod != 3 && rm == 4) {
        n++;
        if (mod == 0 && (rd8(p + 1) & 7) == 5)
            n += 4;
    }
    if (mod == 1)
        n += 1;
    else if (mod == 2 || (mod == 0 && rm == 5))
        n += 4;
    return n;
}

/* Length of the no-op instruction at p (90, 0f 1f /0, with 66 prefixes), or 0. */
static int nop_len(uintptr_t p)
{
    int pre = 0;
    while (pre < 4 && rd8(p + (uintptr_t)pre) == 0x66)
        pre++;
    uint8_t op = rd8(p + (uintptr_t)pre);
    if (op == 0x90)
        return pre + 1;
    if (op == 0x0f && rd8(p + (uintptr_t)pre + 1) == 0x1f)
        return pre + 2 + modrm_len(p + (uintptr_t)pre + 2);
    return 0;
}

static inline int32_t rd32(uintptr_t a)
{
    return *(const volatile int32_t *)a;
}

/* Decodes the frame setup HotSpot emits at the start of compiled code and of stubs, from
 * `from` up to pc: stack bang, pushes (rbp and others), mov rbp, rsp, sub rsp, saving rbp into
 * the frame, no-ops. Returns 1 when the decoding reaches pc exactly, with *d the bytes pushed
 * or allocated below the return address and *rbp_slot the distance below it of the rbp saved
 * by a push whose frame pointer rbp now is (0: rbp still holds the caller's); 0 otherwise, with
 * *d what the decoded part set up. */
static int decode_prologue(uintptr_t from, uintptr_t pc, intptr_t *d, intptr_t *rbp_slot)
{
    uintptr_t p = from;
    intptr_t pushed_rbp = 0;
    *d = 0;
    *rbp_slot = 0;
    for (int steps = 0; p < pc && steps < 32; steps++) {
        int n = nop_len(p);
        uint8_t b0 = rd8(p), b1 = rd8(p + 1), b2 = rd8(p + 2);
        if (n) {
            p += (uintptr_t)n;
        } else if (b0 == 0x89 && b1 == 0x84 && b2 == 0x24) {
            p += 7; /* mov [rsp - bang], eax: the stack bang */
        } else if (b0 == 0x55) {
            *d += 8; /* push rbp */
            pushed_rbp = *d;
            p += 1;
        } else if (b0 >= 0x50 && b0 <= 0x57) {
            *d += 8; /* push another register */
            p += 1;
        } else if (b0 == 0x41 && b1 >= 0x50 && b1 <= 0x57) {
            *d += 8; /* push r8..r15 */
            p += 2;
        } else if (b0 == 0x48 && ((b1 == 0x8b && b2 == 0xec) || (b1 == 0x89 && b2 == 0xe5))) {
            *rbp_slot = pushed_rbp; /* mov rbp, rsp: rbp is now this frame's */
            p += 3;
        } else if (b0 == 0x48 && b1 == 0x83 && b2 == 0xec) {
            *d += rd8(p + 3); /* sub rsp, imm8 */
            p += 4;
        } else if (b0 == 0x48 && b1 == 0x81 && b2 == 0xec) {
            *d += rd32(p + 3); /* sub rsp, imm32 */
            p += 7;
        } else if (b0 == 0x48 && b1 == 0x89 && b2 == 0x6c && rd8(p + 3) == 0x24) {
            p += 5; /* mov [rsp + imm8], rbp */
        } else if (b0 == 0x48 && b1 == 0x89 && b2 == 0xac && rd8(p + 3) == 0x24) {
            p += 8; /* mov [rsp + imm32], rbp */
        } else {
            break;
        }
    }
    if (*d < 0 || *d > 1 << 20)
        return 0;
    return p == pc;
}

/* The caller of code whose frame is not built yet at pc, decoding its setup from `from`.
 * *built is set when the decoded setup is a whole frame of frame_size words (pc is past it, in
 * code not decoded, such as an entry barrier). Returns 1 or 0. */
static int unwind_prologue(uintptr_t from, int frame_size, const struct regs *r,
                           struct regs *c, int *built)
{
    intptr_t d, rbp_slot;
    *built = 0;
    if (!decode_prologue(from, r->pc, &d, &rbp_slot)) {
        if (frame_size > 0 && d + 8 == (intptr_t)frame_size * 8 && rbp_slot == 0)
            *built = 1;
        return 0;
    }
    c->pc = rd(r->sp + (uintptr_t)d);
    c->sp = r->sp + (uintptr_t)d + 8;
    c->fp = rbp_slot ? rd(r->sp + (uintptr_t)(d - rbp_slot)) : r->fp;
    return 1;
}

/* The caller of compiled code in its epilogue, decoding from pc to the ret: add rsp, pop rbp,
 * the return safepoint poll (cmp rsp, [r15 + poll]; ja), vzeroupper, no-ops. Returns 1 or 0. */
static int unwind_epilogue(const struct regs *r, struct regs *c)
{
    uintptr_t p = r->pc;
    intptr_t d = 0;
    uintptr_t fp = r->fp;
    int popped = 0;
    for (int steps = 0; steps < 16; steps++) {
        int n = nop_len(p);
        uint8_t b0 = rd8(p), b1 = rd8(p + 1), b2 = rd8(p + 2);
        if (n) {
            p += (uintptr_t)n;
        } else if (b0 == 0x48 && b1 == 0x83 && b2 == 0xc4 && !popped) {
            d += rd8(p + 3); /* add rsp, imm8 */
            p += 4;
        } else if (b0 == 0x48 && b1 == 0x81 && b2 == 0xc4 && !popped) {
            d += rd32(p + 3); /* add rsp, imm32 */
            p += 7;
        } else if (b0 == 0x5d && !popped) {
            fp = rd(r->sp + (uintptr_t)d); /* pop rbp */
            d += 8;
            popped = 1;
            p += 1;
        } else if (b0 == 0x49 && b1 == 0x3b && (b2 == 0xa7 || b2 == 0x67)) {
            p += b2 == 0xa7 ? 7 : 4; /* cmp rsp, [r15 + poll word] */
        } else if (b0 == 0x0f && b1 == 0x87) {
            p += 6; /* ja to the poll's slow path */
        } else if (b0 == 0x77) {
            p += 2;
        } else if (b0 == 0xc5 && b1 == 0xf8 && b2 == 0x77) {
            p += 3; /* vzeroupper */
        } else if (b0 == 0xc3) {
            if (d < 0 || d > 1 << 20)
                return 0;
            c->pc = rd(r->sp + (uintptr_t)d);
            c->sp = r->sp + (uintptr_t)d + 8;
            c->fp = fp;
            return 1;
        } else {
            return 0;
        }
    }
    return 0;
}

/* The caller of compiled code at pc where AGCT gave up: in the unverified entry (inline cache
 * check: nothing pushed yet), the prologue, the epilogue, or elsewhere once its frame is built
 * (from its frame size). Returns 1 with the caller's registers in *c, or 0. */
static int unwind_nmethod(const struct codecache_thread *th, const struct codecache_blob *b,
                          const struct regs *r, struct regs *c)
{
    uintptr_t sp = r->sp;
    if (sp < th->stack_lo || sp >= th->stack_hi || (sp & 7) || !b->vep)
        return 0;
    int built = 0;
    if (r->pc < b->vep) {
        c->pc = rd(sp);
        c->sp = sp + 8;
        c->fp = r->fp;
        return caller_ok(th, sp, c);
    }
    if (b->frame_complete < 0 || r->pc < b->code_begin + (uintptr_t)b->frame_complete) {
        if (unwind_prologue(b->vep, b->frame_size, r, c, &built))
            return caller_ok(th, sp, c);
        if (!built)
            return 0;
    } else if (unwind_epilogue(r, c) && caller_ok(th, sp, c)) {
        return 1;
    }
    if (b->frame_size <= 0)
        return 0;
    uintptr_t nsp = sp + (uintptr_t)b->frame_size * sizeof(uintptr_t);
    if (nsp > th->stack_hi)
        return 0;
    c->pc = rd(nsp - 8);
    c->fp = rd(nsp - 16);
    c->sp = nsp;
    return caller_ok(th, sp, c);
}

/* The interpreter building a method's frame (generate_fixed_frame: push the return address,
 * enter, then sender sp, last sp, Method*, ...), where AGCT finds the frame invalid: rbx holds
 * the Method* being entered, the frame pointer is set once the frame's first words are pushed,
 * and the caller is known from the frame (return address, saved rbp, sender sp). The Method*
 * slot (fp - 3 words), once pushed, must hold rbx's Method*. Returns the Method* or 0. */
static uintptr_t unwind_interpreter(const struct codecache_thread *th, const struct regs *r,
                                    uintptr_t rbx, struct regs *c)
{
    uintptr_t fp = r->fp;
    if (fp < r->sp + 8 || fp >= th->stack_hi - 16 || (fp & 7) || fp - r->sp > 4096)
        return 0;
    if (fp >= r->sp + 24 && rd(fp - 24) != rbx)
        return 0;
    c->pc = rd(fp + 8);
    c->fp = rd(fp);
    c->sp = rd(fp - 8);
    if (!rbx || c->sp < fp + 16 || !caller_ok(th, fp, c))
        return 0;
    return rbx;
}

/* The one frame at uc that AGCT cannot walk (a stub's, compiled code's entry, prologue or
 * epilogue, the interpreter building a frame), unwound: *lead is that frame and *c its
 * caller's registers. `found`: the blob holding uc's pc when the caller has it, else NULL.
 * Returns 1, or 0 when it cannot be unwound exactly. */
static int unwind_leaf(const struct codecache_thread *th, const ucontext_t *uc,
                       const struct codecache_blob *found, struct sample_frame *lead,
                       struct regs *c)
{
    struct codecache_blob b;
    const greg_t *gr = uc->uc_mcontext.gregs;
    struct regs r = {(uintptr_t)gr[REG_RIP], (uintptr_t)gr[REG_RSP], (uintptr_t)gr[REG_RBP]};
    if (found)
        b = *found;
    else if (!codecache_find_sigsafe(r.pc, &b))
        return 0;
    if (b.kind == CODECACHE_STUB) {
        uintptr_t stub_start = 0;
        const char *name = stub_name(&b, r.pc, &stub_start);
        if (!unwind_stub(th, &b, stub_start, &r, c))
            return 0;
        lead->lineno = SAMPLE_FRAME_PACK(SAMPLE_FT_STUB, -1);
        lead->method_id = (jmethodID)(uintptr_t)name;
    } else if (b.kind == CODECACHE_NMETHOD) {
        jmethodID id = codecache_jmethod_sigsafe(b.method);
        if (!id || !unwind_nmethod(th, &b, &r, c))
            return 0;
        /* the method itself, whose frame is being built or torn down: no bytecode index */
        lead->method_id = id;
        lead->lineno = b.level == 0 ? -3
                                    : SAMPLE_FRAME_PACK(b.level <= 3 ? SAMPLE_FT_C1
                                                                     : SAMPLE_FT_COMPILED, -1);
    } else {
        uintptr_t m = unwind_interpreter(th, &r, (uintptr_t)gr[REG_RBX], c);
        jmethodID id = m ? codecache_jmethod_sigsafe(m) : NULL;
        if (!id)
            return 0;
        lead->method_id = id;
        lead->lineno = SAMPLE_FRAME_PACK(SAMPLE_FT_INTERPRETED, 0);
    }
    return 1;
}

static uintptr_t leaf_return_pc(const struct codecache_blob *b, uintptr_t ret);

/* AGCT failed at uc (unknown_Java, not_walkable_Java): unwinds the one frame it could not
 * (unwind_leaf) and walks from its caller. Returns the frame count, that frame first, or 0;
 * *start is set to the caller's registers, where AGCT's frames begin. */
static int recover(struct crashguard *g, JNIEnv *env, const ucontext_t *uc,
                   struct sample_frame *frames, int depth, struct regs *start)
{
    struct codecache_thread th;
    struct regs c;
    struct sample_frame lead;
    if (depth < 2 || !codecache_thread_sigsafe(env, &th) ||
        !unwind_leaf(&th, uc, NULL, &lead, &c))
        return 0;
    ucontext_t cu = *uc;
    /* a compiled caller: AGCT looks up the debug info at the first PcDesc after pc (and then
     * resets the pc to that PcDesc's), so it is given one byte before the PcDesc that
     * describes the call site (leaf_return_pc: the one at the return address itself when the
     * call has one) */
    struct codecache_blob cb;
    int compiled = codecache_find_sigsafe(c.pc, &cb) && cb.kind == CODECACHE_NMETHOD;
    cu.uc_mcontext.gregs[REG_RIP] = (greg_t)(compiled ? leaf_return_pc(&cb, c.pc) : c.pc);
    cu.uc_mcontext.gregs[REG_RSP] = (greg_t)c.sp;
    cu.uc_mcontext.gregs[REG_RBP] = (greg_t)c.fp;
    int m = call_agct(g, env, &cu, frames + 1, depth - 1);
    if (m <= 0)
        return 0;
    frames[0] = lead;
    *start = c;
    return m + 1;
}

/* Calls AGCT with the thread's last Java frame anchor set to (sp, pc, fp) and puts the
 * anchor back afterwards, also when AGCT faults. The anchor is JavaFrameAnchor's three words
 * (_last_Java_sp, _last_Java_pc, _last_Java_fp) as VMStructs places them. Only for a thread in
 * the VM or in Java code (anchor_writable): it runs nothing else meanwhile (we are its signal
 * handler), and no other thread walks it (it is not at a safepoint). */
static int agct_with_anchor(struct crashguard *g, JNIEnv *env, const struct codecache_thread *th,
                            uintptr_t sp, uintptr_t pc, uintptr_t fp, struct sample_frame *frames,
                            int depth)
{
    const struct codecache_layout *l = codecache_layout_sigsafe();
    volatile uintptr_t *a = (volatile uintptr_t *)(th->jt + (uintptr_t)l->jt_anchor);
    volatile uintptr_t *asp = a + l->anchor_sp / 8, *apc = a + l->anchor_pc / 8,
                       *afp = a + l->anchor_fp / 8;
    if (l->anchor_sp != 0 || l->anchor_pc != 8 || l->anchor_fp != 16)
        return 0; /* the three words in the order the restore below assumes */
    g->restore_words_value[0] = th->last_sp;
    g->restore_words_value[1] = th->last_pc;
    g->restore_words_value[2] = th->last_fp;
    g->restore_nwords = 3;
    g->restore_words = a;
    /* HotSpot publishes an anchor with sp last (and clears sp first): a walker of this
     * thread's stack would then see either none or a whole one */
    *asp = 0;
    *afp = fp;
    *apc = pc;
    *asp = sp;
    int n = call_agct(g, env, NULL, frames, depth);
    *asp = 0;
    *afp = th->last_fp;
    *apc = th->last_pc;
    *asp = th->last_sp;
    g->restore_words = NULL;
    return n;
}

/* The bytecode index an interpreted frame at fp is at (its bcp slot, 8 words below fp on
 * x86_64), or -1 when the bcp is not inside the method's bytecodes. */
static int32_t interpreted_bci(uintptr_t fp, uintptr_t method)
{
    const struct codecache_layout *l = codecache_layout_sigsafe();
    if (l->method_const < 0 || l->constmethod_size <= 0 || l->constmethod_code_size < 0)
        return -1;
    uintptr_t cm = rd(method + (uintptr_t)l->method_const);
    uintptr_t codes = cm + (uintptr_t)l->constmethod_size;
    uintptr_t size = *(const volatile uint16_t *)(cm + (uintptr_t)l->constmethod_code_size);
    uintptr_t bcp = rd(fp - 8 * sizeof(uintptr_t));
    return bcp >= codes && bcp < codes + size ? (int32_t)(bcp - codes) : -1;
}

/* Whether the anchor of a thread in state `state` may be changed for a walk: HotSpot lets
 * other threads walk a thread's stack (safepoint operations, handshakes run on its behalf,
 * JFR) only while it is in native code or blocked (SafepointSynchronize's safepoint_safe_with),
 * never in the VM, in Java code, or in the transitions out of them (_thread_in_vm_trans,
 * _thread_in_Java_trans: the thread checks for a safepoint after storing that state, and waits
 * for one as _thread_blocked). Not blocked threads, whose anchor a safepoint or a handshake may
 * be reading at this moment: for them AGCT's own walk from the anchor is all there is. */
static int anchor_writable(int state)
{
    return state == 6 /* _thread_in_vm */ || state == 7 /* _thread_in_vm_trans */ ||
           state == 8 /* _thread_in_Java */ || state == 9 /* _thread_in_Java_trans */;
}

/* AGCT could not walk from the last Java frame anchor of a thread in the VM:
 * - unknown_not_Java: the anchor has an sp but no pc, as the interpreter leaves it when it
 *   calls into the VM. HotSpot makes such an anchor walkable itself when it needs to, taking
 *   the return address below the sp as the pc (JavaFrameAnchor::make_walkable); so does this.
 * - the anchor's frame is interpreted and AGCT finds it invalid (it checks more than the
 *   frame's Method* and bcp, in states where the interpreter is between bytecodes): the frame
 *   is read here (Method* and bcp slots, the jmethodID pointing back at the Method*) and AGCT
 *   walks from its sender, given as the anchor.
 * - the anchor is inside a runtime stub (C1's Runtime1 stubs, which HotSpot says are never
 *   frame-complete, C2's allocation stubs), and AGCT will not step out of it; but the anchor's
 *   pc is the return address of the stub's call into the VM, so the frame is whole: the caller
 *   comes from the stub's frame size, and the stub is kept as the leaf frame.
 * A thread in Java code at a pc outside it (a call into the VM or a library that keeps the
 * thread's state, and set an anchor) is treated alike: AGCT found no Java frame at its pc,
 * and no other thread walks a thread that runs Java code either (it is not at a safepoint).
 * Returns the frame count or 0; *start is set to the registers of the frame where AGCT's
 * frames begin, frames[*first]. */
static int walk_anchor(struct crashguard *g, JNIEnv *env, struct sample_frame *frames, int depth,
                       struct regs *start, int *first)
{
    struct codecache_thread th;
    struct codecache_blob b;
    if (depth < 2 || !codecache_thread_sigsafe(env, &th) ||
        !anchor_writable(th.state) ||
        !th.last_sp || th.last_sp < th.stack_lo + 8 || th.last_sp >= th.stack_hi ||
        (th.last_sp & 7))
        return 0;
    uintptr_t pc = th.last_pc ? th.last_pc : rd(th.last_sp - 8);
    if (!codecache_find_sigsafe(pc, &b))
        return 0;
    if (!th.last_pc) {
        int n = agct_with_anchor(g, env, &th, th.last_sp, pc, th.last_fp, frames, depth);
        if (n > 0) {
            start->pc = pc;
            start->sp = th.last_sp;
            start->fp = th.last_fp;
            *first = 0;
            return n;
        }
    }
    struct regs c;
    struct sample_frame lead;
    uintptr_t fp = th.last_fp;
    if (b.kind == CODECACHE_INTERPRETER) {
        if (fp < th.last_sp || fp >= th.stack_hi - 16 || (fp & 7))
            return 0;
        uintptr_t m = rd(fp - 24);
        jmethodID id = codecache_jmethod_sigsafe(m);
        c.pc = rd(fp + 8);
        c.fp = rd(fp);
        c.sp = rd(fp - 8);
        if (!id || c.sp < fp + 16 || !caller_ok(&th, fp, &c))
            return 0;
        lead.method_id = id;
        lead.lineno = SAMPLE_FRAME_PACK(SAMPLE_FT_INTERPRETED, interpreted_bci(fp, m));
    } else if (b.kind == CODECACHE_STUB && b.frame_size > 0) {
        uintptr_t nsp = th.last_sp + (uintptr_t)b.frame_size * sizeof(uintptr_t);
        if (nsp > th.stack_hi)
            return 0;
        c.pc = rd(nsp - 8);
        c.sp = nsp;
        c.fp = rd(nsp - 16);
        if (!caller_ok(&th, th.last_sp, &c))
            return 0;
        lead.lineno = SAMPLE_FRAME_PACK(SAMPLE_FT_STUB, -1);
        lead.method_id = (jmethodID)(uintptr_t)stub_name(&b, pc, NULL);
    } else {
        return 0;
    }
    int n = agct_with_anchor(g, env, &th, c.sp, c.pc, c.fp, frames + 1, depth - 1);
    if (n <= 0)
        return 0;
    frames[0] = lead;
    *start = c;
    *first = 1;
    return n + 1;
}

/* The Method* a jmethodID stands for (a jmethodID points at a slot holding it). */
static uintptr_t method_of(jmethodID id)
{
    return id && !((uintptr_t)id & 7) ? rd((uintptr_t)id) : 0;
}

static void set_type(struct sample_frame *f, int type)
{
    if (f->lineno >= -1) /* a bci, or -1 for none; native methods' -3 keep type 0 */
        f->lineno = SAMPLE_FRAME_PACK(type, f->lineno);
}

/* Types AGCT's frames frames[first..n) by walking the physical frames alongside, from r (the
 * frame AGCT started from): an interpreted frame's Method* slot must match its AGCT frame; in a
 * compiled frame, AGCT's frames up to the first whose Method* is the nmethod's own are inlined
 * into it, that one is the compiled frame (C1 or C2/JVMCI by tier). Senders come from the
 * frame size (compiled), the frame (interpreted: return address, saved rbp, sender sp) and,
 * across a call from the VM into Java, the call stub's JavaCallWrapper anchor. Where anything
 * does not match or cannot be read, the rest keep type 0: never a guess. */
static void type_frames(const struct codecache_thread *th, struct regs r,
                        struct sample_frame *frames, int first, int n)
{
    const struct codecache_layout *l = codecache_layout_sigsafe();
    int i = first;
    for (int steps = 0; i < n && steps < n + 64; steps++) {
        struct codecache_blob b;
        if (r.sp < th->stack_lo || r.sp >= th->stack_hi || !codecache_find_sigsafe(r.pc, &b))
            return;
        struct regs c;
        if (b.kind == CODECACHE_INTERPRETER) {
            if (r.fp < r.sp || r.fp >= th->stack_hi - 16 || (r.fp & 7) ||
                method_of(frames[i].method_id) != rd(r.fp - 24))
                return;
            set_type(&frames[i++], SAMPLE_FT_INTERPRETED);
            c.pc = rd(r.fp + 8);
            c.fp = rd(r.fp);
            c.sp = rd(r.fp - 8);
        } else if (b.kind == CODECACHE_NMETHOD) {
            int j = i;
            while (j < n && method_of(frames[j].method_id) != b.method)
                j++;
            if (j == n || b.frame_size <= 0 || b.frame_complete < 0 ||
                r.pc < b.code_begin + (uintptr_t)b.frame_complete)
                return;
            if (b.level > 0) {
                for (; i < j; i++)
                    set_type(&frames[i], SAMPLE_FT_INLINED);
                set_type(&frames[i], b.level <= 3 ? SAMPLE_FT_C1 : SAMPLE_FT_COMPILED);
            } else if (i != j) {
                return; /* a native method's wrapper inlines nothing */
            }
            i++;
            c.sp = r.sp + (uintptr_t)b.frame_size * sizeof(uintptr_t);
            if (c.sp > th->stack_hi)
                return;
            c.pc = rd(c.sp - 8);
            c.fp = rd(c.sp - 16);
        } else if (r.pc == l->call_stub_return && l->call_wrapper_anchor >= 0) {
            /* Java called from the VM: the previous Java frames are where the call stub's
             * JavaCallWrapper (in the entry frame, below its rbp) says the thread left them */
            uintptr_t w = rd(r.fp + (uintptr_t)((intptr_t)l->entry_frame_wrapper * 8));
            if (!w)
                return;
            uintptr_t a = w + (uintptr_t)l->call_wrapper_anchor;
            c.sp = rd(a + (uintptr_t)l->anchor_sp);
            c.fp = rd(a + (uintptr_t)l->anchor_fp);
            c.pc = rd(a + (uintptr_t)l->anchor_pc);
            if (!c.sp || c.sp < th->stack_lo + 8 || c.sp >= th->stack_hi)
                return;
            if (!c.pc)
                c.pc = rd(c.sp - 8);
            if (c.sp <= r.sp)
                return;
            r = c;
            continue;
        } else {
            return;
        }
        if (c.sp <= r.sp)
            return;
        r = c;
    }
}

/* One int of HotSpot's compressed debug stream at *p (CompressedReadStream::read_int: a byte
 * below 192 ends a number, up to five bytes of 6 more bits each; from JDK 20 every byte is
 * biased by one, UNSIGNED5), advancing *p. */
static uint32_t read_stream_int(uintptr_t *p, uint32_t base)
{
    uint32_t c = rd8((*p)++);
    uint32_t v = c - base;
    for (int shift = 6; c >= 192 && shift <= 24; shift += 6) {
        c = rd8((*p)++);
        v += (c - base) << shift;
    }
    return v;
}

/* An nmethod's debug information: its PcDescs (count of them, size bytes each, sorted by pc
 * offset), its scopes stream and its metadata (the Method*s the scopes index). */
struct pcdescs {
    uintptr_t pcs, scopes, meta;
    uint32_t count, size;
};

/* Reads nmethod b's debug information into t. Returns 0 when its layout is unknown or a value
 * is out of bounds. */
static int pcdescs_of(const struct codecache_blob *b, struct pcdescs *t)
{
    const struct codecache_layout *l = codecache_layout_sigsafe();
    uintptr_t nm = b->blob;
    if (l->nm_pcs < 0)
        return 0;
    uintptr_t base = l->nm_immutable >= 0 ? rd(nm + (uintptr_t)l->nm_immutable) : nm;
    int32_t lo_off = rd32(nm + (uintptr_t)l->nm_pcs), hi_off = rd32(nm + (uintptr_t)l->nm_pcs + 4);
    t->scopes = l->nm_scopes_begin >= 0
                    ? rd(nm + (uintptr_t)l->nm_scopes_begin)
                    : base + (uintptr_t)(int64_t)rd32(nm + (uintptr_t)l->nm_scopes_offset);
    if (l->nm_metadata >= 0 && l->nm_metadata_bytes == 4)
        t->meta = nm + (uintptr_t)(int64_t)rd32(nm + (uintptr_t)l->nm_metadata);
    else if (l->nm_metadata >= 0)
        t->meta = nm + (uintptr_t)(int64_t)rd32(nm + (uintptr_t)l->blob_data_offset) +
                  *(const volatile uint16_t *)(nm + (uintptr_t)l->nm_metadata);
    else
        t->meta = rd(nm + (uintptr_t)l->blob_mutable_data) +
                  (uintptr_t)(int64_t)rd32(nm + (uintptr_t)l->blob_relocation_size);
    t->size = (uint32_t)l->pcdesc_size;
    if (!base || !t->scopes || !t->meta || lo_off < 0 || hi_off <= lo_off ||
        (uint32_t)(hi_off - lo_off) % t->size || (uint32_t)(hi_off - lo_off) / t->size > 1u << 20)
        return 0;
    t->pcs = base + (uintptr_t)lo_off;
    t->count = (uint32_t)(hi_off - lo_off) / t->size;
    return 1;
}

static int32_t pcdesc_offset(const struct pcdescs *t, uint32_t i)
{
    return rd32(t->pcs + (uintptr_t)i * t->size + (uintptr_t)codecache_layout_sigsafe()->pcdesc_pc);
}

static uint32_t pcdesc_scope(const struct pcdescs *t, uint32_t i)
{
    return (uint32_t)rd32(t->pcs + (uintptr_t)i * t->size +
                          (uintptr_t)codecache_layout_sigsafe()->pcdesc_scope);
}

/* The scope at offset scope of t's scopes stream (scope > 0): its sender's offset (0: none),
 * its Method* (0 when the index is out of bounds) and its bci. */
static uint32_t scope_read(const struct pcdescs *t, uint32_t scope, uintptr_t *method,
                           int32_t *bci)
{
    uint32_t base = (uint32_t)codecache_layout_sigsafe()->stream_base;
    uintptr_t p = t->scopes + scope;
    uint32_t sender = read_stream_int(&p, base);
    uint32_t index = read_stream_int(&p, base);
    *bci = (int32_t)read_stream_int(&p, base) - 1;
    *method = index > 0 && index < 1u << 20 ? rd(t->meta + ((uintptr_t)index - 1) * 8) : 0;
    return sender;
}

/* The (Method*, bci) pairs of a PcDesc's scopes, innermost first. */
#define CHAIN_MAX 32
struct chain {
    uintptr_t method[CHAIN_MAX];
    int32_t bci[CHAIN_MAX];
};

/* Reads PcDesc i's scopes into c. Returns how many, or -1 when there are none, more than
 * CHAIN_MAX, or one is unreadable. */
static int scope_chain(const struct pcdescs *t, uint32_t i, struct chain *c)
{
    uint32_t scope = pcdesc_scope(t, i);
    int n = 0;
    for (; scope > 0 && scope < 1u << 30; n++) {
        if (n == CHAIN_MAX)
            return -1;
        scope = scope_read(t, scope, &c->method[n], &c->bci[n]);
        if (!c->method[n])
            return -1;
    }
    return n > 0 ? n : -1;
}

/* Whether chain a (n frames) extends chain b (m < n frames) inward: the same outer frames,
 * at the same bcis, and a's frame of b's innermost method in its place (at any bci). */
static int chain_extends(const struct chain *a, int n, const struct chain *b, int m)
{
    if (m <= 0 || n <= m)
        return 0;
    for (int k = 1; k < m; k++)
        if (a->method[n - k] != b->method[m - k] || a->bci[n - k] != b->bci[m - k])
            return 0;
    return a->method[n - m] == b->method[0];
}

/* The index of the first PcDesc at or after offset want, or t->count. */
static uint32_t pcdesc_from(const struct pcdescs *t, int32_t want)
{
    uint32_t lo = 0, hi = t->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pcdesc_offset(t, mid) < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The pc to look the debug information of nmethod b's frame up at, one byte before the
 * PcDesc chosen (the first at or after it is taken), when ret is the return address of a call
 * out of b that recovery unwound. A call with debug information has a PcDesc at exactly its
 * return address: that one. A leaf call (into an arraycopy stub, say) may have none, and then
 * neither neighbour need describe it: the PcDescs record the end of the code they describe,
 * and C2 schedules the call's argument set-up among its callers' code and lays a slow path's
 * block out of line, its call followed by a jump back, so that the next PcDesc may be another
 * call site's. What a leaf call serves is an intrinsic's invoke, the innermost of the scopes
 * around it; measured on StringBuilder.delete's arraycopy (JDK 17 and 25, AVX2 and AVX-512
 * stubs), where the recorded scopes around the call were shift's (its bounds checks),
 * AbstractStringBuilder.delete's (an address) and the loop's next call site's:
 * - the PcDesc before ret, unless it has no scope or lies before the frame is complete
 *   (then the next one);
 * - the next one instead where its scopes extend those inward (the same outer frames, at the
 *   same bcis, and more inlined ones: the call's scope, the one before its caller's code);
 * - else an earlier one, within LEAF_BACK bytes, while each extends the last chosen inward.
 * A sibling (the loop's next call site) is never taken over the one before. Returns ret - 1
 * (the next one) when nothing else is known. */
#define LEAF_BACK 128
#define LEAF_STEPS 4
static uintptr_t leaf_return_pc(const struct codecache_blob *b, uintptr_t ret)
{
    struct pcdescs t;
    if (ret <= b->code_begin || ret >= b->code_end || !pcdescs_of(b, &t))
        return ret - 1;
    int32_t want = (int32_t)(ret - b->code_begin);
    uint32_t i = pcdesc_from(&t, want);
    /* none after it: the call is in the stubs C2 lays out after the code (an entry barrier's,
     * a safepoint poll's), whose caller no PcDesc describes */
    if (i >= t.count || pcdesc_offset(&t, i) == want || i == 0)
        return ret - 1;
    int32_t at = pcdesc_offset(&t, i - 1);
    struct chain best, other;
    int nb = at > 0 && at - 1 >= b->frame_complete ? scope_chain(&t, i - 1, &best) : -1;
    if (nb < 0)
        return ret - 1;
    int no = scope_chain(&t, i, &other);
    if (no > 0 && chain_extends(&other, no, &best, nb))
        return ret - 1;
    for (uint32_t j = i - 1, steps = 0; j > 0 && steps < LEAF_STEPS; j--, steps++) {
        int32_t off = pcdesc_offset(&t, j - 1);
        if (off <= 0 || off - 1 < b->frame_complete || off < want - LEAF_BACK)
            break;
        no = scope_chain(&t, j - 1, &other);
        if (no < 0 || !chain_extends(&other, no, &best, nb))
            break;
        best = other;
        nb = no;
        at = off;
    }
    return b->code_begin + (uintptr_t)at - 1;
}

/* The Java frames of the compiled frame of nmethod b at return address pc, from its debug
 * information (what AGCT's vframeStream reads): the PcDesc recorded at exactly that pc (a
 * call's return address has one), then its chain of scopes, innermost first, each a Method*
 * (an index into the nmethod's metadata) and a bci. Every Method* must have a jmethodID that
 * points back at it, and the outermost must be the nmethod's own. With `near`, pc is where a
 * signal stopped the code (or leaf_return_pc's), and the PcDesc is the first one after it, as
 * AGCT takes it for the frame it starts from (PcDescs record the end of the code they
 * describe). Returns the frames written to frames[0..room), typed inlined then C1 or compiled,
 * or -1. */
static int compiled_frames(const struct codecache_blob *b, uintptr_t pc, int near,
                           struct sample_frame *frames, int room)
{
    struct pcdescs t;
    if (pc <= b->code_begin || pc >= b->code_end || !pcdescs_of(b, &t))
        return -1;
    int32_t want = (int32_t)(pc - b->code_begin) + (near ? 1 : 0);
    uint32_t i = pcdesc_from(&t, want), scope = 0;
    if (i < t.count && (near || pcdesc_offset(&t, i) == want))
        scope = pcdesc_scope(&t, i);
    int n = 0;
    uintptr_t method = 0;
    /* scope 0 is DebugInformationRecorder::serialized_null: no (more) scopes */
    for (; scope > 0 && scope < 1u << 30 && n < room && n < 256; n++) {
        int32_t bci;
        uint32_t sender = scope_read(&t, scope, &method, &bci);
        jmethodID id = codecache_jmethod_sigsafe(method);
        if (!id || bci < -1 || bci > 65535)
            return -1;
        frames[n].method_id = id;
        frames[n].lineno = SAMPLE_FRAME_PACK(SAMPLE_FT_INLINED, bci);
        scope = sender;
    }
    if (n == room && scope > 0)
        return n; /* the stack is cut at depth inside this frame's inlined frames */
    if (n == 0 || scope > 0 || method != b->method)
        return -1;
    frames[n - 1].lineno = SAMPLE_FRAME_PACK(b->level <= 3 ? SAMPLE_FT_C1 : SAMPLE_FT_COMPILED,
                                             sample_frame_bci(frames[n - 1].lineno));
    return n;
}

/* Walks the Java frames from the physical frame r to the bottom of the stack by HotSpot's
 * structures alone, as AGCT's vframeStream would: interpreted frames (Method* and bcp slots,
 * the sender from the frame), compiled frames (their debug information, the sender from the
 * frame size), native method wrappers, and calls from the VM into Java (the call stub's
 * JavaCallWrapper says where the thread left the Java frames before; an empty one is the
 * bottom). Anything else -- a deoptimization, an adapter, a continuation, a value out of
 * bounds -- ends the walk without a result: never a guess. `after`: r's pc is the return
 * address of a call out of a frame recovery unwound, maybe a leaf call (into an arraycopy
 * stub, say) that records no PcDesc: a compiled first frame takes the PcDesc leaf_return_pc
 * picks, as recover() has AGCT take it. Returns the frames written to
 * frames[0..depth) (depth reached: the stack is cut there, as AGCT cuts it), or 0. */
static int walk_frames(const struct codecache_thread *th, struct regs r,
                       struct sample_frame *frames, int depth, int after)
{
    const struct codecache_layout *l = codecache_layout_sigsafe();
    int n = 0;
    if (l->nm_pcs < 0)
        return 0; /* the debug information's layout is unknown: walk_frames is off */
    for (int steps = 0; n < depth; steps++) {
        struct codecache_blob b;
        struct regs c;
        int fs;
        if (steps > depth + 64 || r.sp < th->stack_lo || r.sp >= th->stack_hi || (r.sp & 7))
            return 0;
        int at = steps == 0 && after;
        /* the interpreter's and the call stub's pcs are never in the frame table (it holds
         * compiled frames): a lookup would only bring in a cold line of it, and the call stub's
         * return address is known without a code-heap search */
        int interp = r.pc >= l->interp_lo && r.pc < l->interp_hi;
        int entry = r.pc == l->call_stub_return && l->call_wrapper_anchor >= 0;
        int k = interp || entry
                    ? 0
                    : framecache_lookup_sigsafe(r.pc - (uintptr_t)at, at ? 2 : 0, frames + n,
                                                depth - n, &fs);
        if (entry) {
            uintptr_t w = rd(r.fp + (uintptr_t)((intptr_t)l->entry_frame_wrapper * 8));
            if (!w)
                return 0;
            uintptr_t a = w + (uintptr_t)l->call_wrapper_anchor;
            c.sp = rd(a + (uintptr_t)l->anchor_sp);
            if (!c.sp)
                return n; /* the first call into Java on this thread: the bottom */
            c.fp = rd(a + (uintptr_t)l->anchor_fp);
            c.pc = rd(a + (uintptr_t)l->anchor_pc);
            if (c.sp < th->stack_lo + 8 || c.sp >= th->stack_hi)
                return 0;
            if (!c.pc)
                c.pc = rd(c.sp - 8);
        } else if (k > 0) {
            n += k;
            c.sp = r.sp + (uintptr_t)fs * sizeof(uintptr_t);
            if (c.sp > th->stack_hi)
                return 0;
            c.pc = rd(c.sp - 8);
            c.fp = rd(c.sp - 16);
        } else if (!codecache_find_sigsafe(r.pc, &b)) {
            return 0;
        } else if (b.kind == CODECACHE_INTERPRETER) {
            if (r.fp < r.sp || r.fp >= th->stack_hi - 16 || (r.fp & 7))
                return 0;
            uintptr_t m = rd(r.fp - 24);
            jmethodID id = codecache_jmethod_sigsafe(m);
            if (!id)
                return 0;
            /* a native method run by the interpreter's native entry: bci -3, as AGCT says */
            int native = *(const volatile uint16_t *)(m + (uintptr_t)l->method_access) & 0x0100;
            frames[n].method_id = id;
            frames[n++].lineno =
                native ? -3 : SAMPLE_FRAME_PACK(SAMPLE_FT_INTERPRETED, interpreted_bci(r.fp, m));
            c.pc = rd(r.fp + 8);
            c.fp = rd(r.fp);
            c.sp = rd(r.fp - 8);
        } else if (b.kind == CODECACHE_NMETHOD) {
            if (b.frame_size <= 0 || b.frame_complete < 0 ||
                r.pc < b.code_begin + (uintptr_t)b.frame_complete)
                return 0;
            if (b.level == 0) {
                /* a native method's wrapper: the method alone, as AGCT gives it (bci -3) */
                jmethodID id = codecache_jmethod_sigsafe(b.method);
                if (!id)
                    return 0;
                frames[n].method_id = id;
                frames[n].lineno = -3;
                k = 1;
            } else {
                k = compiled_frames(&b, at ? leaf_return_pc(&b, r.pc) : r.pc, at, frames + n,
                                    depth - n);
                if (k <= 0)
                    return 0;
            }
            if (k < depth - n) /* whole, not cut at depth */
                framecache_store_sigsafe(r.pc - (uintptr_t)at, at ? 2 : 0, b.blob, b.frame_size,
                                         frames + n, k);
            n += k;
            c.sp = r.sp + (uintptr_t)b.frame_size * sizeof(uintptr_t);
            if (c.sp > th->stack_hi)
                return 0;
            c.pc = rd(c.sp - 8);
            c.fp = rd(c.sp - 16);
        } else {
            return 0;
        }
        if (c.sp <= r.sp)
            return 0;
        r = c;
    }
    return n;
}

/* AGCT gave up at the anchor of a thread whose anchor may not be changed (blocked: a
 * safepoint or a handshake may be walking the stack from it right now), typically inside a
 * runtime stub AGCT never walks out of (C2's _complete_monitor_locking_Java while the thread
 * waits for a contended monitor in ObjectMonitor::EnterI). The anchor is only read: the stub
 * is unwound by its frame size as walk_anchor does, and the Java frames are read by
 * walk_frames. Returns the frame count, the stub first when there is one, or 0. */
static int walk_blocked(const struct codecache_thread *th, struct sample_frame *frames, int depth)
{
    struct codecache_blob b;
    if (depth < 2 || !th->last_sp || th->last_sp < th->stack_lo + 8 ||
        th->last_sp >= th->stack_hi || (th->last_sp & 7))
        return 0;
    struct regs r = {th->last_pc ? th->last_pc : rd(th->last_sp - 8), th->last_sp, th->last_fp};
    if (!codecache_find_sigsafe(r.pc, &b))
        return 0;
    if (b.kind != CODECACHE_STUB)
        return walk_frames(th, r, frames, depth, 0);
    struct regs c;
    if (b.frame_size <= 0)
        return 0;
    c.sp = r.sp + (uintptr_t)b.frame_size * sizeof(uintptr_t);
    if (c.sp > th->stack_hi)
        return 0;
    c.pc = rd(c.sp - 8);
    c.fp = rd(c.sp - 16);
    if (!caller_ok(th, r.sp, &c))
        return 0;
    int n = walk_frames(th, c, frames + 1, depth - 1, 0);
    if (n <= 0)
        return 0;
    frames[0].lineno = SAMPLE_FRAME_PACK(SAMPLE_FT_STUB, -1);
    frames[0].method_id = (jmethodID)(uintptr_t)stub_name(&b, r.pc, NULL);
    return n + 1;
}

/* Whether the interpreted frame at r, where a signal stopped a thread running Java code, is
 * one AGCT starts from (frame::is_interpreted_frame_valid): fp above sp by at least the
 * frame's fixed part (nine words down to its initial expression stack), not absurdly far, a
 * Method* with a jmethodID pointing back at it, a bcp inside its bytecodes (a native method
 * run by the interpreter has none). A frame being built or torn down fails one of them, or
 * is its caller's whole frame, which AGCT takes for the top as well. */
static int interpreted_top_ok(const struct codecache_thread *th, const struct regs *r)
{
    const struct codecache_layout *l = codecache_layout_sigsafe();
    uintptr_t fp = r->fp, sp = r->sp;
    if ((fp & 7) || fp <= sp || fp - 9 * sizeof(uintptr_t) < sp || fp >= th->stack_hi - 16 ||
        fp - sp > (1024 + 65536) * sizeof(uintptr_t))
        return 0;
    uintptr_t m = rd(fp - 24);
    if (!codecache_jmethod_sigsafe(m))
        return 0;
    int native = *(const volatile uint16_t *)(m + (uintptr_t)l->method_access) & 0x0100;
    return native || interpreted_bci(fp, m) >= 0;
}

/* A thread running Java code stopped where AGCT gives up and recover() unwinds one frame to
 * call AGCT again from its caller (unwind_leaf: a stub, compiled code's entry or prologue, the
 * interpreter building a frame): the same, the caller's frames read by walk_frames. b holds
 * uc's pc. Returns the frame count, that frame first, or 0. */
static int walk_leaf(const struct codecache_thread *th, const ucontext_t *uc,
                     const struct codecache_blob *b, struct sample_frame *frames, int depth)
{
    struct sample_frame lead;
    struct regs c;
    if (depth < 2 || !unwind_leaf(th, uc, b, &lead, &c))
        return 0;
    int n = walk_frames(th, c, frames + 1, depth - 1, 1);
    if (n <= 0)
        return 0;
    frames[0] = lead;
    return n + 1;
}

/* The whole Java stack by HotSpot's structures alone (walk_frames), where the result is what
 * AGCT would give (recovery included), so that AGCT need not run: AGCT costs about 1,500
 * cycles a frame here (it checks and looks up more than a walk needs, in cold memory), the
 * walk with its caches (framecache.h, the jmethodID memo) a third to a half of that. It starts from:
 * - a thread out of Java code (native, VM, blocked) with a whole frame anchor: the anchor's
 *   pc is a return address, and its frame is read as AGCT reads its known-valid frames;
 * - a thread in Java code (no frame anchor: AGCT prefers a walkable one) stopped
 *   - in a compiled method's body: its frames from the first PcDesc after the pc, as AGCT's
 *     is_decipherable_compiled_frame takes them, the caller from the frame size;
 *   - in the interpreter, in a frame AGCT accepts (interpreted_top_ok);
 *   - where AGCT gives up and recovery unwinds one frame (a stub, compiled code's entry or
 *     prologue, the interpreter building a frame): that frame, then walk_frames (walk_leaf).
 * Not in an epilogue, where AGCT's answer (the caller its frame size says) is kept, nor a
 * native method's wrapper. Anything the walk cannot read exactly (a deoptimized frame, an
 * adapter, a PcDesc missing, a jmethodID not made yet) ends it without a result, and AGCT
 * walks. walk=check compares the two on every sample. Returns the frame count, or 0. */
static int walk_own(const struct codecache_thread *th, const ucontext_t *uc,
                    struct sample_frame *frames, int depth)
{
    if (th->state != 8 && th->state != 9) {
        if (!th->last_sp || !th->last_pc || (th->last_sp & 7) || th->last_sp < th->stack_lo + 8 ||
            th->last_sp >= th->stack_hi)
            return 0;
        struct regs r = {th->last_pc, th->last_sp, th->last_fp};
        return walk_frames(th, r, frames, depth, 0);
    }
    if (!uc || th->last_sp)
        return 0;
    const greg_t *gr = uc->uc_mcontext.gregs;
    struct regs r = {(uintptr_t)gr[REG_RIP], (uintptr_t)gr[REG_RSP], (uintptr_t)gr[REG_RBP]}, c;
    struct codecache_blob b;
    int fs;
    if (r.sp < th->stack_lo || r.sp >= th->stack_hi || (r.sp & 7))
        return 0;
    /* cached: a pc whose frame passed every check below when it was decoded */
    int n = framecache_lookup_sigsafe(r.pc, 1, frames, depth, &fs);
    if (n <= 0) {
        if (!codecache_find_sigsafe(r.pc, &b))
            return 0;
        if (b.kind == CODECACHE_INTERPRETER && interpreted_top_ok(th, &r))
            return walk_frames(th, r, frames, depth, 0);
        if (b.kind == CODECACHE_NMETHOD && b.level == 0)
            return 0; /* a native method's wrapper: AGCT reads it */
        if (b.kind != CODECACHE_NMETHOD || b.frame_size <= 0 || b.frame_complete < 0 ||
            !b.vep || r.pc < b.vep || r.pc < b.code_begin + (uintptr_t)b.frame_complete)
            return walk_leaf(th, uc, &b, frames, depth);
        if (unwind_epilogue(&r, &c))
            return 0; /* AGCT's caller of an epilogue is what its frame size says */
        n = compiled_frames(&b, r.pc, 1, frames, depth);
        if (n <= 0)
            return 0;
        fs = b.frame_size;
        if (n < depth)
            framecache_store_sigsafe(r.pc, 1, b.blob, fs, frames, n);
    }
    if (n == depth)
        return n;
    c.sp = r.sp + (uintptr_t)fs * sizeof(uintptr_t);
    if (c.sp > th->stack_hi)
        return 0;
    c.pc = rd(c.sp - 8);
    c.fp = rd(c.sp - 16);
    if (c.sp <= r.sp)
        return 0;
    int m = walk_frames(th, c, frames + n, depth - n, 0);
    return m > 0 ? n + m : 0;
}

/* A fingerprint of frames[0..n): methods and bytecode indexes, not types (AGCT's frames are
 * typed only where the walk alongside them could). */
static uint64_t frames_hash(const struct sample_frame *frames, int n)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ (uint64_t)n;
    for (int i = 0; i < n; i++) {
        h ^= (uint64_t)(uintptr_t)frames[i].method_id;
        h *= 0xff51afd7ed558ccdu;
        h ^= (uint64_t)(uint32_t)sample_frame_bci(frames[i].lineno);
        h *= 0xc4ceb9fe1a85ec53u;
        h ^= h >> 29;
    }
    return h;
}

/* Where AGCT started walking the thread interrupted at uc: the context itself when the
 * thread runs Java code, else its last Java frame anchor. 0 when unknown. */
static int agct_start(const struct codecache_thread *th, const ucontext_t *uc, struct regs *r)
{
    if (th->state == 8 || th->state == 9) { /* _thread_in_Java(_trans) */
        if (!uc)
            return 0;
        const greg_t *gr = uc->uc_mcontext.gregs;
        r->pc = (uintptr_t)gr[REG_RIP];
        r->sp = (uintptr_t)gr[REG_RSP];
        r->fp = (uintptr_t)gr[REG_RBP];
        return th->last_sp == 0;
    }
    if (!th->last_sp || th->last_sp < th->stack_lo + 8 || th->last_sp >= th->stack_hi)
        return 0;
    r->sp = th->last_sp;
    r->fp = th->last_fp;
    r->pc = th->last_pc ? th->last_pc : rd(th->last_sp - 8);
    return 1;
}

int stackwalk_java_sigsafe(JNIEnv *env, void *uc, struct sample_frame *frames, int depth,
                           int *recovered)
{
    struct crashguard g;
    *recovered = 0;
    if (sigsetjmp(g.jb, 0) != 0)
        return SAMPLE_ERR_WALK_FAULT; /* the guard is left and AGCT's flag restored */
    crashguard_enter(&g);
    if (fault_every) {
        unsigned k = atomic_fetch_add_explicit(&walks, 1, memory_order_relaxed) + 1;
        if (k % fault_every == 0)
            forced_fault(&g, env, k);
    }
    struct codecache_thread th;
    struct regs start;
    int have_start = 0, first = 0;
    int vm = mode != STACKWALK_AGCT && codecache_thread_sigsafe(env, &th);
    int own = 0;
    uint64_t own_hash = 0;
    if (vm && (own = walk_own(&th, uc, frames, depth)) > 0) {
        if (mode == STACKWALK_VM) {
            crashguard_leave(&g);
            counters_add_sigsafe(FPL_CTR_OWN_WALKS, 1);
            return own;
        }
        own_hash = frames_hash(frames, own); /* walk=check: AGCT's frames are the sample's */
    }
    if (vm)
        have_start = agct_start(&th, uc, &start);
    int n = call_agct(&g, env, uc, frames, depth);
    if ((n == -3 || n == -4) && vm) {
        int m = walk_anchor(&g, env, frames, depth, &start, &first);
        if (m > 0) {
            n = m;
            *recovered = 1;
            have_start = 1;
        } else if (!anchor_writable(th.state) && (m = walk_blocked(&th, frames, depth)) > 0) {
            n = m;
            *recovered = 1;
            have_start = 0; /* typed as it was read */
        }
    }
    if ((n == -5 || n == -6) && vm && uc) {
        int m = recover(&g, env, uc, frames, depth, &start);
        if (m > 0) {
            n = m;
            *recovered = 1;
            have_start = 1;
            first = 1;
        } else if (th.last_sp &&
                   !codecache_contains_sigsafe((uintptr_t)((ucontext_t *)uc)
                                                   ->uc_mcontext.gregs[REG_RIP])) {
            m = walk_anchor(&g, env, frames, depth, &start, &first);
            if (m > 0) {
                n = m;
                *recovered = 1;
                have_start = 1;
            }
        }
    }
    if (n > 0 && have_start)
        type_frames(&th, start, frames, first, n);
    crashguard_leave(&g);
    if (own > 0) {
        counters_add_sigsafe(FPL_CTR_WALK_CHECKED, 1);
        if (n != own || frames_hash(frames, n) != own_hash)
            counters_add_sigsafe(FPL_CTR_WALK_DIFFERED, 1);
    }
    return n;
}

int stackwalk_java_from_sigsafe(JNIEnv *env, void *uc, uintptr_t pc, uintptr_t sp, uintptr_t fp,
                                struct sample_frame *frames, int depth, int *recovered)
{
    struct crashguard g;
    volatile int compiled = 0;
    *recovered = 0;
    if (!uc)
        return -5;
    if (sigsetjmp(g.jb, 0) != 0)
        return SAMPLE_ERR_WALK_FAULT;
    crashguard_enter(&g);
    struct codecache_blob b;
    compiled = codecache_find_sigsafe(pc, &b) && b.kind == CODECACHE_NMETHOD;
    crashguard_leave(&g);
    ucontext_t cu = *(const ucontext_t *)uc;
    /* pc is a return address: into compiled code, one byte back (see recover) */
    cu.uc_mcontext.gregs[REG_RIP] = (greg_t)(compiled ? pc - 1 : pc);
    cu.uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
    cu.uc_mcontext.gregs[REG_RBP] = (greg_t)fp;
    return stackwalk_java_sigsafe(env, &cu, frames, depth, recovered);
}
