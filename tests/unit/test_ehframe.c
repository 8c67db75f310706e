/* test_ehframe: agent/writer/ehframe.c's rules against libunwind's own CFI interpreter, on
 * every FDE of real modules (this program, libc, libm, libunwind, the loader, and the JDK's
 * libjvm, loaded without starting a JVM): for each row ehframe.c makes, the caller's pc, sp and
 * rbp that agent/sigsafe/nativewalk.c's step computes from a made-up stack must equal what
 * unw_apply_reg_state computes with the register state libunwind made for the same pc. The
 * FDEs ehframe.c hands to libunwind must stay few (they cost a loader lookup each), and a
 * damaged FDE is refused, never read past its end. */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <libunwind.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "ehframe.h"
#include "harness.h"
#include "nativewalk.h"

/* libunwind's rows of one FDE */
#define MAXU 4096
struct urow {
    uintptr_t start, end;
    unsigned char state[512];
    size_t size;
};
static struct urow urows[MAXU];
static int nurows;

static int on_state(void *token, void *rs, size_t size, unw_word_t start, unw_word_t end)
{
    (void)token;
    if (nurows < MAXU && size <= sizeof(urows[0].state)) {
        urows[nurows].start = start;
        urows[nurows].end = end;
        memcpy(urows[nurows].state, rs, size);
        urows[nurows].size = size;
        nurows++;
    }
    return 0;
}

static void unw_rows(uintptr_t ip)
{
    nurows = 0;
    ucontext_t uc;
    memset(&uc, 0, sizeof(uc));
    uc.uc_mcontext.gregs[REG_RIP] = (greg_t)ip;
    uc.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)&uc;
    unw_cursor_t c;
    if (unw_init_local2(&c, &uc, UNW_INIT_SIGNAL_FRAME) == 0)
        unw_reg_states_iterate(&c, on_state, NULL);
}

/* a made-up stack, as large as a thread's: word i holds a value no address is */
#define STACK_WORDS (1u << 20)
static uintptr_t stack[STACK_WORDS];

struct totals {
    long fdes, ours, handed, refused, rows, compared, differ, ends;
};

/* Compares one row's step at pc with libunwind's. */
static void compare(const struct cfitab_rule *r, uintptr_t pc, struct totals *t, const char *mod)
{
    const struct urow *u = NULL;
    for (int i = 0; i < nurows; i++)
        if (pc >= urows[i].start && pc < urows[i].end)
            u = &urows[i];
    if (!u)
        return; /* libunwind made no row here (an empty FDE tail): nothing to compare */
    uintptr_t sp = (uintptr_t)&stack[STACK_WORDS / 2], fp = (uintptr_t)&stack[STACK_WORDS / 2 + 76];
    uintptr_t npc = 0, nsp = 0, nfp = 0;
    int ok = nativewalk_rule_step_sigsafe(r, pc, sp, fp, (uintptr_t)stack,
                                          (uintptr_t)(stack + STACK_WORDS), &npc, &nsp, &nfp);
    ucontext_t uc;
    memset(&uc, 0, sizeof(uc));
    uc.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
    uc.uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
    uc.uc_mcontext.gregs[REG_RBP] = (greg_t)fp;
    unw_cursor_t c;
    unw_word_t a = 0, b = 0, d = 0;
    int uok = unw_init_local2(&c, &uc, UNW_INIT_SIGNAL_FRAME) == 0 &&
              unw_apply_reg_state(&c, (void *)u->state) > 0 &&
              unw_get_reg(&c, UNW_REG_IP, &a) == 0 && unw_get_reg(&c, UNW_REG_SP, &b) == 0;
    if (uok && unw_get_reg(&c, UNW_X86_64_RBP, &d) != 0)
        d = 0;
    t->compared++;
    if (r->kind == CFITAB_RULE_END) {
        t->ends++;
        if (uok && a != 0) {
            t->differ++;
            if (t->differ <= 10)
                printf("test_ehframe: %s pc %#lx: ours ends the walk, libunwind goes on\n", mod,
                       (unsigned long)pc);
        }
        return;
    }
    if (!ok || !uok || a != npc || b != nsp || d != nfp) {
        t->differ++;
        if (t->differ <= 10)
            printf("test_ehframe: %s pc %#lx kind %d cfa r%d%+d ra %+d fp %+d: ours %d "
                   "(%#lx %#lx %#lx), libunwind %d (%#lx %#lx %#lx)\n", mod, (unsigned long)pc,
                   r->kind, r->cfa_reg, r->cfa_off, r->ra_off, r->fp_off, ok,
                   (unsigned long)npc, (unsigned long)nsp, (unsigned long)nfp, uok,
                   (unsigned long)a, (unsigned long)b, (unsigned long)d);
    }
}

static struct ehframe_row rows[EHFRAME_MAX_ROWS];

/* Every FDE of a module, from its .eh_frame_hdr search table. */
static int each_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct totals *all = arg;
    const char *name = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "(main)";
    if (strstr(name, "linux-vdso"))
        return 0;
    const unsigned char *h = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
            h = (const unsigned char *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    /* version 1, table of datarel sdata4 pairs (what the linkers write) */
    if (!h || h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b)
        return 0;
    uint32_t count;
    memcpy(&count, h + 8, 4);
    struct totals t = {0};
    for (uint32_t i = 0; i < count; i++) {
        int32_t ipo, fdeo;
        memcpy(&ipo, h + 12 + 8 * (size_t)i, 4);
        memcpy(&fdeo, h + 16 + 8 * (size_t)i, 4);
        uintptr_t ip = (uintptr_t)h + (intptr_t)ipo, fde = (uintptr_t)h + (intptr_t)fdeo;
        t.fdes++;
        int n = 0;
        int rc = ehframe_fde_rows((const unsigned char *)fde, ip, rows, &n);
        if (rc == 1) {
            t.handed++;
            continue;
        }
        if (rc != 0) {
            t.refused++;
            continue;
        }
        t.ours++;
        unw_rows(ip);
        for (int k = 0; k < n; k++) {
            t.rows++;
            compare(&rows[k].rule, rows[k].start, &t, name);
            if (rows[k].end - rows[k].start > 1)
                compare(&rows[k].rule, rows[k].end - 1, &t, name);
        }
    }
    printf("test_ehframe: %s: %ld FDEs, %ld read (%ld rows, %ld steps compared, %ld differ, "
           "%ld outermost), %ld handed to libunwind, %ld refused\n", name, t.fdes, t.ours,
           t.rows, t.compared, t.differ, t.ends, t.handed, t.refused);
    all->fdes += t.fdes;
    all->ours += t.ours;
    all->handed += t.handed;
    all->refused += t.refused;
    all->rows += t.rows;
    all->compared += t.compared;
    all->differ += t.differ;
    return 0;
}

/* A damaged FDE (cut short, a CIE pointer off into nowhere of the FDE's own bytes, an unknown
 * instruction) is refused, never read past its end. */
static void test_damaged(void)
{
    /* a CIE: version 1, "zR", code align 1, data align -8, ra 16, pcrel|sdata4; then
     * def_cfa rsp+8, offset ra at cfa-8; an FDE for 16 bytes at FDE_PC with one advance and a
     * def_cfa_offset 16 */
    static unsigned char buf[64] __attribute__((aligned(8))) = {
        /* CIE at 0: length 20 */
        20, 0, 0, 0, 0, 0, 0, 0, 1, 'z', 'R', 0, 1, 0x78, 16, 1, 0x1b, 0x0c, 7, 8, 0x90, 1, 0, 0,
        /* FDE at 24: length 24, CIE pointer 28 (from offset 28 back to 0) */
        24, 0, 0, 0, 28, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0x41, 0x0e, 16, 0, 0, 0, 0,
    };
    /* pc_begin is pcrel from its own field (offset 32): point it at buf + 0x1000 */
    int32_t rel = 0x1000 - 32;
    memcpy(buf + 32, &rel, 4);
    uintptr_t pc = (uintptr_t)buf + 0x1000;
    struct ehframe_row r[EHFRAME_MAX_ROWS];
    int n = -1;
    int rc = ehframe_fde_rows(buf + 24, pc, r, &n);
    CHECK(rc == 0 && n == 2);
    if (rc == 0 && n == 2) {
        CHECK(r[0].start == pc && r[0].end == pc + 1 && r[0].rule.cfa_off == 8);
        CHECK(r[1].start == pc + 1 && r[1].end == pc + 16 && r[1].rule.cfa_off == 16 &&
              r[1].rule.ra_off == -8 && r[1].rule.kind == CFITAB_RULE_STD);
    }
    CHECK(ehframe_fde_rows(buf + 24, pc + 4, r, &n) == -EINVAL); /* another function's */
    unsigned char bad[64];
    memcpy(bad, buf, sizeof(bad));
    bad[24] = 6; /* the FDE cut before its range */
    CHECK(ehframe_fde_rows(bad + 24, pc + (uintptr_t)(bad - buf), r, &n) == -EINVAL);
    memcpy(bad, buf, sizeof(bad));
    bad[41] = 0x3f; /* not an instruction */
    CHECK(ehframe_fde_rows(bad + 24, pc + (uintptr_t)(bad - buf), r, &n) == -EINVAL);
    memcpy(bad, buf, sizeof(bad));
    bad[41] = 0x0f; /* a CFA expression running past the FDE */
    bad[42] = 40;
    CHECK(ehframe_fde_rows(bad + 24, pc + (uintptr_t)(bad - buf), r, &n) == -EINVAL);
    memcpy(bad, buf, sizeof(bad));
    bad[8] = 2; /* a CIE version nobody writes */
    CHECK(ehframe_fde_rows(bad + 24, pc + (uintptr_t)(bad - buf), r, &n) == -EINVAL);
    memcpy(bad, buf, sizeof(bad));
    bad[41] = 0x0b; /* restore_state with nothing remembered */
    CHECK(ehframe_fde_rows(bad + 24, pc + (uintptr_t)(bad - buf), r, &n) == -EINVAL);
}

int main(void)
{
    for (size_t i = 0; i < sizeof(stack) / sizeof(stack[0]); i++)
        stack[i] = 0x5a000000u + i * 8;
    /* FLYPROF_TEST_LIBJVM: another JDK's, by hand */
    const char *libjvm = getenv("FLYPROF_TEST_LIBJVM") ? getenv("FLYPROF_TEST_LIBJVM") : LIBJVM;
    void *jvm = dlopen(libjvm, RTLD_NOW | RTLD_LOCAL);
    if (!jvm)
        printf("test_ehframe: %s not loaded (%s)\n", libjvm, dlerror());
    CHECK(jvm != NULL);
    struct totals all = {0};
    dl_iterate_phdr(each_module, &all);
    printf("test_ehframe: in all %ld FDEs, %ld read, %ld handed to libunwind, %ld refused; "
           "%ld steps compared, %ld differ\n", all.fdes, all.ours, all.handed, all.refused,
           all.compared, all.differ);
    CHECK(all.fdes > 40000); /* libjvm alone has tens of thousands */
    CHECK(all.compared > 100000);
    CHECK_EQ_U(all.differ, 0);
    /* the FDEs left to libunwind are rare: each costs the writer a loader lookup */
    CHECK(all.handed * 200 < all.fdes);
    CHECK_EQ_U(all.refused, 0);
    test_damaged();
    return harness_result("test_ehframe");
}
