/* ehframe.c: x86-64 .eh_frame FDEs reduced to struct cfitab_rule rows (see ehframe.h).
 * The encoding is DWARF 4's call frame information (section 6.4) with the LSB's .eh_frame
 * changes (CIE id 0, CIE pointer relative to its field, augmentation "z..."). Writer thread. */
#include "ehframe.h"

#include <errno.h>
#include <string.h>

/* DWARF pointer encodings (LSB 5.0, "DWARF Exception Header Encoding") */
#define PE_ABSPTR 0x00
#define PE_ULEB128 0x01
#define PE_UDATA2 0x02
#define PE_UDATA4 0x03
#define PE_UDATA8 0x04
#define PE_SLEB128 0x09
#define PE_SDATA2 0x0a
#define PE_SDATA4 0x0b
#define PE_SDATA8 0x0c
#define PE_PCREL 0x10
#define PE_INDIRECT 0x80
#define PE_OMIT 0xff

#define REG_RA 16               /* x86-64's DWARF number of the return address (rip) */
#define MAX_REMEMBER 16         /* DW_CFA_remember_state nesting kept */
#define MAX_LEN (1u << 24)      /* an FDE or CIE longer than this is not believed */

/* The state of the registers the walker uses, as the instructions so far left it. */
enum { R_SAME, R_OFFSET, R_UNDEF, R_OTHER };
struct regs {
    int cfa_reg;                /* DWARF register number; -1: a CFA expression */
    int64_t cfa_off;
    int plt_at;                 /* a recognized PLT expression: its threshold, else 0 */
    int fp, ra;                 /* R_* */
    int64_t fp_off, ra_off;
};

struct cursor {
    const unsigned char *p, *end;
    int bad;
};

static uint64_t uleb(struct cursor *c)
{
    uint64_t v = 0;
    for (int shift = 0; c->p < c->end && shift < 64; shift += 7) {
        unsigned char b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    c->bad = 1;
    return 0;
}

static int64_t sleb(struct cursor *c)
{
    uint64_t v = 0;
    int shift = 0;
    while (c->p < c->end && shift < 64) {
        unsigned char b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) {
            if (shift < 64 && (b & 0x40))
                v |= ~(uint64_t)0 << shift;
            return (int64_t)v;
        }
    }
    c->bad = 1;
    return 0;
}

static uint64_t fixed(struct cursor *c, int n)
{
    if (c->end - c->p < n) {
        c->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    memcpy(&v, c->p, (size_t)n); /* little-endian */
    c->p += n;
    return v;
}

/* A pointer of encoding enc; rel: 0 for a range (no application, no indirection). */
static uintptr_t pointer(struct cursor *c, int enc, int rel)
{
    const unsigned char *at = c->p;
    uint64_t v;
    switch (enc & 0x0f) {
    case PE_ABSPTR: v = fixed(c, 8); break;
    case PE_ULEB128: v = uleb(c); break;
    case PE_UDATA2: v = fixed(c, 2); break;
    case PE_UDATA4: v = fixed(c, 4); break;
    case PE_UDATA8: v = fixed(c, 8); break;
    case PE_SLEB128: v = (uint64_t)sleb(c); break;
    case PE_SDATA2: v = (uint64_t)(int64_t)(int16_t)fixed(c, 2); break;
    case PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)fixed(c, 4); break;
    case PE_SDATA8: v = fixed(c, 8); break;
    default: c->bad = 1; return 0;
    }
    if (!rel)
        return (uintptr_t)v;
    switch (enc & 0x70) {
    case 0: break;
    case PE_PCREL: v += (uintptr_t)at; break;
    default: c->bad = 1; return 0; /* textrel, datarel, funcrel: not in x86-64 .eh_frame */
    }
    if (enc & PE_INDIRECT)
        c->bad = 1; /* only personality routines are indirect, and those are skipped */
    return (uintptr_t)v;
}

/* What a CIE says. */
struct cie {
    uint64_t code_align;
    int64_t data_align;
    int fde_enc;
    int has_z;
    const unsigned char *insns, *insns_end;
};

/* Reads the length of the entry at p into *body (just past the length) and *end. */
static int entry(const unsigned char *p, const unsigned char **body, const unsigned char **end)
{
    uint32_t len;
    memcpy(&len, p, 4);
    if (len == 0 || len == 0xffffffffu || len > MAX_LEN) /* terminator, 64-bit DWARF: not here */
        return -EINVAL;
    *body = p + 4;
    *end = p + 4 + len;
    return 0;
}

static int read_cie(const unsigned char *p, struct cie *cie)
{
    const unsigned char *body, *end;
    if (entry(p, &body, &end) != 0)
        return -EINVAL;
    struct cursor c = {body, end, 0};
    if (fixed(&c, 4) != 0)
        return -EINVAL; /* a CIE's id is 0 in .eh_frame */
    int version = (int)fixed(&c, 1);
    if (version != 1 && version != 3 && version != 4)
        return -EINVAL;
    const char *aug = (const char *)c.p;
    size_t auglen = strnlen(aug, (size_t)(c.end - c.p));
    if (c.p + auglen >= c.end)
        return -EINVAL;
    c.p += auglen + 1;
    if (version == 4) {
        fixed(&c, 1); /* address size */
        fixed(&c, 1); /* segment selector size */
    }
    cie->code_align = uleb(&c);
    cie->data_align = sleb(&c);
    if (version == 1)
        fixed(&c, 1);
    else
        uleb(&c); /* the return address register: 16 on x86-64 */
    cie->fde_enc = PE_ABSPTR;
    cie->has_z = aug[0] == 'z';
    if (cie->has_z) {
        uint64_t n = uleb(&c);
        if (c.bad || n > (uint64_t)(c.end - c.p))
            return -EINVAL;
        const unsigned char *data_end = c.p + n;
        for (size_t i = 1; i < auglen; i++) {
            switch (aug[i]) {
            case 'R': cie->fde_enc = (int)fixed(&c, 1); break;
            case 'L': fixed(&c, 1); break; /* the LSDA's encoding: the FDE's data is skipped */
            case 'P': {
                int enc = (int)fixed(&c, 1);
                pointer(&c, enc & ~PE_INDIRECT, 0); /* the personality routine: not needed */
                break;
            }
            case 'S': break; /* a signal frame: the rules say all */
            case 'B': break; /* AArch64's, harmless */
            default: i = auglen; break; /* unknown: the data length lets us skip the rest */
            }
        }
        c.p = data_end;
    } else if (auglen) {
        return -EINVAL; /* "eh" and other old augmentations without a length */
    }
    if (c.bad || c.p > c.end)
        return -EINVAL;
    cie->insns = c.p;
    cie->insns_end = end;
    return 0;
}

/* Recognizes the CFA expression of a lazy-binding PLT entry, GNU ld's
 *   DW_OP_breg7 (rsp) K; DW_OP_breg16 (rip) 0; DW_OP_lit15; DW_OP_and; DW_OP_litN; DW_OP_ge;
 *   DW_OP_lit3; DW_OP_shl; DW_OP_plus
 * (CFA = rsp + K, + 8 once the entry's push, at byte N of each 16, has run). Returns N, or 0. */
static int plt_expression(const unsigned char *e, uint64_t len, int64_t *k)
{
    struct cursor c = {e, e + len, 0};
    if (fixed(&c, 1) != 0x77)
        return 0;
    *k = sleb(&c);
    if (fixed(&c, 1) != 0x80 || sleb(&c) != 0 || fixed(&c, 1) != 0x3f || fixed(&c, 1) != 0x1a)
        return 0;
    int n = (int)fixed(&c, 1) - 0x30;
    if (n <= 0 || n > 15 || fixed(&c, 1) != 0x2a || fixed(&c, 1) != 0x33 ||
        fixed(&c, 1) != 0x24 || fixed(&c, 1) != 0x22 || c.bad || c.p != c.end)
        return 0;
    return n;
}

struct interp {
    const struct cie *cie;
    struct regs cur, initial;
    struct regs stack[MAX_REMEMBER];
    int depth;
    uintptr_t loc, end;
    struct ehframe_row *rows;
    int nrows;
    int complex;                /* a rule that struct cfitab_rule cannot say */
    int overflow;
};

/* Sets register reg's rule; only rbp's and the return address's are kept. */
static void set_reg(struct interp *in, uint64_t reg, int how, int64_t off)
{
    if (reg == CFITAB_REG_RBP) {
        in->cur.fp = how;
        in->cur.fp_off = off;
    } else if (reg == REG_RA) {
        in->cur.ra = how;
        in->cur.ra_off = off;
    } else if (reg == CFITAB_REG_RSP && how != R_SAME) {
        in->complex = 1; /* rsp restored from memory: not the CFA */
    }
}

static void restore_reg(struct interp *in, uint64_t reg)
{
    if (reg == CFITAB_REG_RBP) {
        in->cur.fp = in->initial.fp;
        in->cur.fp_off = in->initial.fp_off;
    } else if (reg == REG_RA) {
        in->cur.ra = in->initial.ra;
        in->cur.ra_off = in->initial.ra_off;
    }
}

/* The rule of the current state, or -1 when it cannot be said as one. */
static int make_rule(const struct regs *r, struct cfitab_rule *out)
{
    memset(out, 0, sizeof(*out));
    if (r->ra == R_UNDEF) {
        out->kind = CFITAB_RULE_END;
        return 0;
    }
    if (r->ra != R_OFFSET || r->ra_off < INT32_MIN || r->ra_off > INT32_MAX)
        return -1;
    if (r->cfa_reg == -1) {
        if (!r->plt_at)
            return -1;
        out->kind = CFITAB_RULE_PLT;
        out->cfa_reg = CFITAB_REG_RSP;
        out->plt_at = (uint8_t)r->plt_at;
    } else if (r->cfa_reg == CFITAB_REG_RSP || r->cfa_reg == CFITAB_REG_RBP) {
        out->kind = CFITAB_RULE_STD;
        out->cfa_reg = (uint8_t)r->cfa_reg;
    } else {
        return -1;
    }
    if (r->cfa_off < INT32_MIN || r->cfa_off > INT32_MAX)
        return -1;
    out->cfa_off = (int32_t)r->cfa_off;
    out->ra_off = (int32_t)r->ra_off;
    if (r->fp == R_OFFSET) {
        if (r->fp_off == 0 || r->fp_off < INT32_MIN || r->fp_off > INT32_MAX)
            return -1;
        out->fp_off = (int32_t)r->fp_off;
    } else if (r->fp != R_SAME) {
        return -1;
    }
    return 0;
}

/* Closes the row [in->loc, to) with the current state. */
static void emit(struct interp *in, uintptr_t to)
{
    if (to <= in->loc || in->complex)
        return;
    struct cfitab_rule rule;
    if (make_rule(&in->cur, &rule) != 0) {
        in->complex = 1;
        return;
    }
    if (in->nrows && in->rows[in->nrows - 1].end == in->loc &&
        memcmp(&in->rows[in->nrows - 1].rule, &rule, sizeof(rule)) == 0) {
        in->rows[in->nrows - 1].end = to;
        return;
    }
    if (in->nrows == EHFRAME_MAX_ROWS) {
        in->overflow = 1;
        return;
    }
    in->rows[in->nrows++] = (struct ehframe_row){in->loc, to, rule};
}

static void advance(struct interp *in, uint64_t delta)
{
    /* past the FDE's end (a damaged delta, however large): its end */
    uint64_t room = in->end - in->loc, align = in->cie->code_align;
    uintptr_t to = align && delta <= room / align ? in->loc + (uintptr_t)(delta * align)
                                                  : in->end;
    emit(in, to);
    in->loc = to;
}

/* Runs the instructions [p, end); fde_enc: the encoding of DW_CFA_set_loc's operand. */
static int run(struct interp *in, const unsigned char *p, const unsigned char *end)
{
    struct cursor c = {p, end, 0};
    const struct cie *cie = in->cie;
    while (c.p < c.end && !c.bad && !in->complex && !in->overflow) {
        unsigned char op = *c.p++;
        uint64_t reg;
        switch (op >> 6) {
        case 1: advance(in, op & 0x3f); continue;
        case 2: set_reg(in, op & 0x3f, R_OFFSET, (int64_t)uleb(&c) * cie->data_align); continue;
        case 3: restore_reg(in, op & 0x3f); continue;
        default: break;
        }
        switch (op) {
        case 0x00: break; /* nop */
        case 0x01: { /* set_loc */
            uintptr_t to = pointer(&c, cie->fde_enc, 1);
            if (to < in->loc)
                return -EINVAL;
            if (to > in->end)
                to = in->end;
            emit(in, to);
            in->loc = to;
            break;
        }
        case 0x02: advance(in, fixed(&c, 1)); break;
        case 0x03: advance(in, fixed(&c, 2)); break;
        case 0x04: advance(in, fixed(&c, 4)); break;
        case 0x05: /* offset_extended */
            reg = uleb(&c);
            set_reg(in, reg, R_OFFSET, (int64_t)uleb(&c) * cie->data_align);
            break;
        case 0x06: restore_reg(in, uleb(&c)); break;
        case 0x07: set_reg(in, uleb(&c), R_UNDEF, 0); break;
        case 0x08: set_reg(in, uleb(&c), R_SAME, 0); break;
        case 0x09: /* register: reg kept in another register */
            reg = uleb(&c);
            uleb(&c);
            set_reg(in, reg, R_OTHER, 0);
            break;
        case 0x0a: /* remember_state */
            if (in->depth == MAX_REMEMBER)
                return -EINVAL;
            in->stack[in->depth++] = in->cur;
            break;
        case 0x0b: { /* restore_state: the CFA rule is restored too (as GCC and libunwind do) */
            if (in->depth == 0)
                return -EINVAL;
            in->cur = in->stack[--in->depth];
            break;
        }
        case 0x0c: /* def_cfa */
            in->cur.cfa_reg = (int)uleb(&c);
            in->cur.cfa_off = (int64_t)uleb(&c);
            in->cur.plt_at = 0;
            break;
        case 0x0d: /* def_cfa_register */
            in->cur.cfa_reg = (int)uleb(&c);
            in->cur.plt_at = 0;
            break;
        case 0x0e: in->cur.cfa_off = (int64_t)uleb(&c); break;
        case 0x0f: { /* def_cfa_expression */
            uint64_t n = uleb(&c);
            if (c.bad || n > (uint64_t)(c.end - c.p))
                return -EINVAL;
            int64_t k = 0;
            int at = plt_expression(c.p, n, &k);
            in->cur.cfa_reg = -1;
            in->cur.plt_at = at;
            in->cur.cfa_off = k;
            c.p += n;
            break;
        }
        case 0x10: /* expression */
        case 0x16: { /* val_expression */
            reg = uleb(&c);
            uint64_t n = uleb(&c);
            if (c.bad || n > (uint64_t)(c.end - c.p))
                return -EINVAL;
            c.p += n;
            set_reg(in, reg, R_OTHER, 0);
            break;
        }
        case 0x11: /* offset_extended_sf */
            reg = uleb(&c);
            set_reg(in, reg, R_OFFSET, sleb(&c) * cie->data_align);
            break;
        case 0x12: /* def_cfa_sf */
            in->cur.cfa_reg = (int)uleb(&c);
            in->cur.cfa_off = sleb(&c) * cie->data_align;
            in->cur.plt_at = 0;
            break;
        case 0x13: in->cur.cfa_off = sleb(&c) * cie->data_align; break;
        case 0x14: /* val_offset */
            reg = uleb(&c);
            uleb(&c);
            set_reg(in, reg, R_OTHER, 0);
            break;
        case 0x15: /* val_offset_sf */
            reg = uleb(&c);
            sleb(&c);
            set_reg(in, reg, R_OTHER, 0);
            break;
        case 0x2e: uleb(&c); break; /* GNU_args_size: the CFA rule already accounts for it */
        case 0x2f: /* GNU_negative_offset_extended */
            reg = uleb(&c);
            set_reg(in, reg, R_OFFSET, -(int64_t)uleb(&c) * cie->data_align);
            break;
        default:
            return -EINVAL;
        }
    }
    return c.bad ? -EINVAL : 0;
}

int ehframe_fde_rows(const unsigned char *fde, uintptr_t pc, struct ehframe_row *rows,
                     int *nrows)
{
    *nrows = 0;
    const unsigned char *body, *end;
    if (entry(fde, &body, &end) != 0)
        return -EINVAL;
    struct cursor c = {body, end, 0};
    uint32_t cie_ptr = (uint32_t)fixed(&c, 4);
    if (cie_ptr == 0 || cie_ptr > (uintptr_t)body)
        return -EINVAL; /* 0: a CIE, not an FDE */
    struct cie cie;
    if (read_cie(body - cie_ptr, &cie) != 0)
        return -EINVAL;
    uintptr_t begin = pointer(&c, cie.fde_enc, 1);
    uintptr_t range = pointer(&c, cie.fde_enc, 0);
    if (cie.has_z) {
        uint64_t n = uleb(&c);
        if (c.bad || n > (uint64_t)(c.end - c.p))
            return -EINVAL;
        c.p += n;
    }
    if (c.bad || begin != pc || range == 0 || begin + range < begin)
        return -EINVAL;
    struct interp in;
    memset(&in, 0, sizeof(in));
    in.cie = &cie;
    in.cur = (struct regs){.cfa_reg = CFITAB_REG_RSP, .cfa_off = 8, .fp = R_SAME,
                           .ra = R_SAME};
    in.loc = begin;
    in.end = begin + range;
    in.rows = rows;
    if (run(&in, cie.insns, cie.insns_end) != 0)
        return -EINVAL;
    if (in.loc != begin)
        return -EINVAL; /* a CIE does not advance */
    in.initial = in.cur;
    in.depth = 0;
    if (run(&in, c.p, c.end) != 0)
        return -EINVAL;
    emit(&in, in.end);
    if (in.overflow)
        return -E2BIG;
    *nrows = in.nrows;
    return in.complex ? 1 : 0;
}
