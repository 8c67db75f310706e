/* symbols.c: native code addresses to function names (see symbols.h). Writer thread. */
#include "symbols.h"

#include "bigmem.h"

#include <ctype.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define NAME_MAX_LEN 1024

struct sym {
    uint64_t value;     /* ELF virtual address */
    uint32_t size;
    uint32_t name;      /* offset into the module's string table */
};

struct mod {
    uintptr_t base;                     /* dlpi_addr: pc - base = ELF virtual address */
    uintptr_t lo, hi;                   /* its PT_LOAD segments [lo, hi) */
    char path[PATH_MAX];
    const char *lib;                    /* basename of path */
    const unsigned char *eh_frame_hdr;  /* in memory, NULL when absent */
    uint32_t serial;
    int loaded;                         /* symbols read (or given up) */
    void *map;                          /* the file, mapped read-only */
    size_t maplen;
    const char *strtab;                 /* inside map (or inside the vDSO image) */
    size_t strsz;
    struct sym *syms;                   /* functions sorted by value (bigmem.h) */
    uint32_t nsyms;
    size_t syms_bytes;
    int alive;                          /* in the latest loader scan */
};

struct symbols {
    struct mod **mods;
    size_t nmods, capmods;
    uint32_t next_serial;
    size_t bytes;
    char name[NAME_MAX_LEN];
};

struct symbols *symbols_new(void)
{
    return calloc(1, sizeof(struct symbols));
}

static void mod_unload(struct mod *m)
{
    if (m->map)
        munmap(m->map, m->maplen);
    bigmem_free(m->syms, m->syms_bytes);
    m->map = NULL;
    m->syms = NULL;
    m->nsyms = 0;
    m->syms_bytes = 0;
}

void symbols_free(struct symbols *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nmods; i++) {
        mod_unload(s->mods[i]);
        free(s->mods[i]);
    }
    free(s->mods);
    free(s);
}

size_t symbols_bytes(const struct symbols *s)
{
    return s ? s->bytes + s->capmods * sizeof(*s->mods) : 0;
}

/* ---- modules ---------------------------------------------------------------------------- */

/* dl_iterate_phdr callback: adds each module not known yet, marks each seen alive. */
static int scan_one(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct symbols *s = arg;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    const unsigned char *hdr = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
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
    for (size_t i = 0; i < s->nmods; i++) {
        struct mod *m = s->mods[i];
        if (m->base == info->dlpi_addr && m->lo == lo && m->hi == hi) {
            m->alive = 1;
            return 0;
        }
    }
    if (s->nmods == s->capmods) {
        size_t cap = s->capmods ? s->capmods * 2 : 64;
        struct mod **p = realloc(s->mods, cap * sizeof(*p));
        if (!p)
            return 0;
        s->mods = p;
        s->capmods = cap;
    }
    struct mod *m = calloc(1, sizeof(*m));
    if (!m)
        return 0;
    m->base = info->dlpi_addr;
    m->lo = lo;
    m->hi = hi;
    m->eh_frame_hdr = hdr;
    m->alive = 1;
    m->serial = ++s->next_serial;
    const char *name = info->dlpi_name;
    if (!name || !name[0]) {
        /* the main program */
        ssize_t n = readlink("/proc/self/exe", m->path, sizeof(m->path) - 1);
        m->path[n > 0 ? n : 0] = 0;
    } else {
        snprintf(m->path, sizeof(m->path), "%s", name);
    }
    const char *slash = strrchr(m->path, '/');
    m->lib = slash ? slash + 1 : m->path;
    s->mods[s->nmods++] = m;
    s->bytes += sizeof(*m);
    return 0;
}

static void rescan(struct symbols *s)
{
    for (size_t i = 0; i < s->nmods; i++)
        s->mods[i]->alive = 0;
    dl_iterate_phdr(scan_one, s);
}

static struct mod *find_mod(struct symbols *s, uintptr_t pc)
{
    for (size_t i = 0; i < s->nmods; i++) {
        struct mod *m = s->mods[i];
        if (m->alive && pc >= m->lo && pc < m->hi)
            return m;
    }
    return NULL;
}

/* ---- ELF symbol tables ------------------------------------------------------------------ */

/* Sorts a[0..n) by value, in place: a heap sort, because glibc's qsort takes a malloc'ed
 * buffer as large as the array (see bigmem.h for why the writer avoids that). */
static void sort_syms(struct sym *a, size_t n)
{
    if (n < 2)
        return;
    /* heapify: sift down every parent, last first */
    for (size_t start = n / 2; start-- > 0;) {
        for (size_t r = start;;) {
            size_t c = 2 * r + 1;
            if (c >= n)
                break;
            if (c + 1 < n && a[c + 1].value > a[c].value)
                c++;
            if (a[r].value >= a[c].value)
                break;
            struct sym t = a[r];
            a[r] = a[c];
            a[c] = t;
            r = c;
        }
    }
    for (size_t end = n - 1; end > 0; end--) {
        struct sym t = a[0];
        a[0] = a[end];
        a[end] = t;
        for (size_t r = 0;;) {
            size_t c = 2 * r + 1;
            if (c >= end)
                break;
            if (c + 1 < end && a[c + 1].value > a[c].value)
                c++;
            if (a[r].value >= a[c].value)
                break;
            t = a[r];
            a[r] = a[c];
            a[c] = t;
            r = c;
        }
    }
}

/* How much a name should be preferred among aliases at one address: a plain name over one
 * with a reserved prefix (`read` over `__read`, `__libc_read`), a global over a local. */
static int alias_rank(const char *name, unsigned bind)
{
    int r = 0;
    if (name[0] == '_' && name[1] == '_')
        r += 4;
    else if (name[0] == '_' && name[1] != 'Z')
        r += 2;
    if (bind == STB_LOCAL)
        r += 1;
    return r;
}

/* Reads the functions of the ELF image at data[0..len) from its .symtab, else its .dynsym.
 * Returns 0 or -1 when the image or its tables are malformed. */
static int read_symtab(struct symbols *s, struct mod *m, const unsigned char *data, size_t len)
{
    if (len < sizeof(Elf64_Ehdr) || memcmp(data, ELFMAG, SELFMAG) != 0 ||
        data[EI_CLASS] != ELFCLASS64)
        return -1;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
    if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > len ||
        (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > len - eh->e_shoff)
        return -1;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(data + eh->e_shoff);
    const Elf64_Shdr *tab = NULL;
    for (int pass = 0; pass < 2 && !tab; pass++) {
        uint32_t want = pass == 0 ? SHT_SYMTAB : SHT_DYNSYM;
        for (unsigned i = 0; i < eh->e_shnum; i++)
            if (sh[i].sh_type == want && sh[i].sh_entsize == sizeof(Elf64_Sym) &&
                sh[i].sh_link < eh->e_shnum) {
                tab = &sh[i];
                break;
            }
    }
    if (!tab)
        return -1;
    const Elf64_Shdr *str = &sh[tab->sh_link];
    if (tab->sh_offset > len || tab->sh_size > len - tab->sh_offset || str->sh_offset > len ||
        str->sh_size > len - str->sh_offset || str->sh_size == 0)
        return -1;
    const Elf64_Sym *sy = (const Elf64_Sym *)(data + tab->sh_offset);
    size_t n = tab->sh_size / sizeof(Elf64_Sym);
    const char *strtab = (const char *)(data + str->sh_offset);
    size_t strsz = str->sh_size;
    size_t out_bytes = (n ? n : 1) * sizeof(struct sym);
    struct sym *out = bigmem_alloc(out_bytes);
    if (!out)
        return -1;
    uint32_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned type = ELF64_ST_TYPE(sy[i].st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sy[i].st_shndx == SHN_UNDEF ||
            sy[i].st_value == 0 || sy[i].st_name == 0 || sy[i].st_name >= strsz ||
            !memchr(strtab + sy[i].st_name, 0, strsz - sy[i].st_name))
            continue;
        out[k].value = sy[i].st_value;
        out[k].size = sy[i].st_size > UINT32_MAX ? UINT32_MAX : (uint32_t)sy[i].st_size;
        out[k].name = sy[i].st_name;
        k++;
    }
    sort_syms(out, k);
    /* one entry per address: the preferred alias, the largest size */
    uint32_t j = 0;
    for (uint32_t i = 0; i < k; i++) {
        if (j && out[j - 1].value == out[i].value) {
            struct sym *p = &out[j - 1];
            /* the binding is not kept: rank by name only */
            if (alias_rank(strtab + out[i].name, STB_GLOBAL) <
                alias_rank(strtab + p->name, STB_GLOBAL))
                p->name = out[i].name;
            if (out[i].size > p->size)
                p->size = out[i].size;
            continue;
        }
        out[j++] = out[i];
    }
    struct sym *shrunk = bigmem_resize(out, out_bytes, (j ? j : 1) * sizeof(*out));
    m->syms = shrunk ? shrunk : out;
    m->syms_bytes = shrunk ? (j ? j : 1) * sizeof(*out) : out_bytes;
    m->nsyms = j;
    m->strtab = strtab;
    m->strsz = strsz;
    s->bytes += (size_t)j * sizeof(*out);
    return 0;
}

/* Reads module m's symbols: its file, mapped, or for the vDSO (no file) its image in memory. */
static void load_mod(struct symbols *s, struct mod *m)
{
    m->loaded = 1;
    int fd = m->path[0] == '/' ? open(m->path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        struct stat st;
        if (fstat(fd, &st) == 0 && st.st_size > 0 && S_ISREG(st.st_mode)) {
            void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (p != MAP_FAILED) {
                m->map = p;
                m->maplen = (size_t)st.st_size;
                if (read_symtab(s, m, p, m->maplen) != 0)
                    mod_unload(m);
            }
        }
        close(fd);
        return;
    }
    if (strncmp(m->lib, "linux-vdso", 10) == 0 || strncmp(m->lib, "linux-gate", 10) == 0) {
        /* the kernel maps the whole vDSO image, section headers included, at its base */
        read_symtab(s, m, (const unsigned char *)m->lo, m->hi - m->lo);
    }
}

/* The function holding ELF address a, or NULL. */
static const struct sym *find_sym(const struct mod *m, uint64_t a)
{
    uint32_t lo = 0, hi = m->nsyms;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->syms[mid].value <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const struct sym *y = &m->syms[lo - 1];
    /* a size of 0 (some assembler functions) says nothing: take the nearest symbol below */
    if (y->size && a - y->value >= y->size)
        return NULL;
    return y;
}

/* The start of the function holding pc from the module's .eh_frame_hdr search table, or 0. */
static uintptr_t fde_start(const struct mod *m, uintptr_t pc)
{
    const unsigned char *h = m->eh_frame_hdr;
    /* version 1, a 4-byte fde_count, a table of datarel sdata4 pairs (what linkers write) */
    if (!h || h[0] != 1 || (h[2] & 0x0f) != 0x03 || h[3] != 0x3b || (h[1] & 0x0f) != 0x0b)
        return 0;
    uint32_t count;
    memcpy(&count, h + 8, sizeof(count));
    const unsigned char *tab = h + 12;
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int32_t v;
        memcpy(&v, tab + 8 * (size_t)mid, sizeof(v));
        if ((uintptr_t)h + (intptr_t)v <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    int32_t v;
    memcpy(&v, tab + 8 * (size_t)(lo - 1), sizeof(v));
    return (uintptr_t)h + (intptr_t)v;
}

void symbols_lookup(struct symbols *s, uintptr_t pc, struct symbols_name *out)
{
    struct mod *m = find_mod(s, pc);
    if (!m) {
        rescan(s); /* a module loaded since the last scan? */
        m = find_mod(s, pc);
    }
    if (!m) {
        out->lib = "";
        out->name = "[unknown]";
        out->module = 0;
        out->function = 0;
        return;
    }
    if (!m->loaded)
        load_mod(s, m);
    out->lib = m->lib;
    out->module = m->serial;
    const struct sym *y = m->nsyms ? find_sym(m, pc - m->base) : NULL;
    if (y) {
        symbols_demangle(m->strtab + y->name, s->name, sizeof(s->name), 1);
        out->name = s->name;
        out->function = y->value;
        return;
    }
    uintptr_t start = fde_start(m, pc);
    if (!start || start > pc)
        start = pc; /* no unwind table either: the pc itself */
    snprintf(s->name, sizeof(s->name), "[%s]+0x%lx", m->lib, (unsigned long)(start - m->base));
    out->name = s->name;
    out->function = start - m->base;
}

/* ---- demangling ------------------------------------------------------------------------- */

/* Shortens __cxa_demangle's output in place to the qualified name: drops " [clone ...]"
 * suffixes, the parameter list with its qualifiers, and a leading return type. */
static void shorten(char *d)
{
    char *clone = strstr(d, " [clone");
    if (clone)
        *clone = 0;
    size_t n = strlen(d);
    /* the outermost parameter list: the '(' matching the last ')' */
    if (n && (d[n - 1] == ')' || strchr(d, ')'))) {
        char *end = strrchr(d, ')');
        int depth = 0;
        for (char *p = end; p >= d; p--) {
            if (*p == ')')
                depth++;
            else if (*p == '(' && --depth == 0) {
                /* "(anonymous namespace)" is part of a name, not parameters */
                if (strncmp(p, "(anonymous namespace)", 21) != 0)
                    *p = 0;
                break;
            }
        }
    }
    /* a return type (template functions): the part after the last space at depth 0 */
    int depth = 0;
    char *start = d;
    for (char *p = d; *p; p++) {
        if (*p == '<' || *p == '(')
            depth++;
        else if ((*p == '>' || *p == ')') && depth > 0)
            depth--;
        else if (*p == ' ' && depth == 0 && strncmp(p + 1, "namespace)", 10) != 0 &&
                 !(p >= d + 8 && strncmp(p - 8, "operator", 8) == 0))
            start = p + 1;
    }
    if (start != d)
        memmove(d, start, strlen(start) + 1);
}

struct dm {
    const char *p;
    char *out;
    size_t len, cap;
    int bad;
    char last[256];         /* the last source name: constructors and destructors repeat it */
};

static void dm_put(struct dm *d, const char *s, size_t n)
{
    if (d->len + n + 1 > d->cap) {
        d->bad = 1;
        return;
    }
    memcpy(d->out + d->len, s, n);
    d->len += n;
    d->out[d->len] = 0;
}

/* <number>: returns -1 when there is none */
static long dm_number(struct dm *d)
{
    if (!isdigit((unsigned char)*d->p))
        return -1;
    long v = 0;
    while (isdigit((unsigned char)*d->p) && v < 100000)
        v = v * 10 + (*d->p++ - '0');
    return v;
}

/* <source-name> ::= <length> <identifier>, plus ABI tags (B <source-name>) after it */
static int dm_source_name(struct dm *d, int emit)
{
    long n = dm_number(d);
    if (n <= 0 || (long)strnlen(d->p, (size_t)n) < n)
        return -1;
    if (emit) {
        if (n >= 10 && strncmp(d->p, "_GLOBAL__N", 10) == 0)
            dm_put(d, "(anonymous namespace)", 21);
        else
            dm_put(d, d->p, (size_t)n);
    }
    size_t keep = (size_t)n < sizeof(d->last) ? (size_t)n : sizeof(d->last) - 1;
    memcpy(d->last, d->p, keep);
    d->last[keep] = 0;
    d->p += n;
    while (*d->p == 'B') {
        d->p++;
        long t = dm_number(d);
        if (t <= 0 || (long)strnlen(d->p, (size_t)t) < t)
            return -1;
        d->p += t;
    }
    return 0;
}

/* Skips template arguments after their 'I' up to and including the matching 'E', without
 * interpreting them: source names are skipped by their length, literals (L ... E) by their
 * digits, other openers counted against closers. */
static int dm_skip_args(struct dm *d)
{
    int depth = 1;
    while (*d->p && depth > 0) {
        char c = *d->p;
        if (isdigit((unsigned char)c)) {
            if (dm_source_name(d, 0) != 0)
                return -1;
            continue;
        }
        d->p++;
        switch (c) {
        case 'I': case 'N': case 'X': case 'F': case 'J': case 'Z':
            depth++;
            break;
        case 'E':
            depth--;
            break;
        case 'L':
            if (d->p[0] == '_' && d->p[1] == 'Z') {
                d->p += 2;
                depth++;
            } else if (*d->p) {
                /* a literal: a builtin type, then a value, then E */
                if (isdigit((unsigned char)*d->p))
                    return -1;
                d->p++;
                while (*d->p && *d->p != 'E')
                    d->p++;
                if (*d->p != 'E')
                    return -1;
                d->p++;
            }
            break;
        case 'S':
        case 'T':
            if (c == 'S' && islower((unsigned char)*d->p)) {
                d->p++;
                break;
            }
            while (*d->p && *d->p != '_')
                d->p++;
            if (*d->p != '_')
                return -1;
            d->p++;
            break;
        case 'D':
            if (*d->p == 't' || *d->p == 'T')
                depth++;
            if (*d->p)
                d->p++;
            break;
        case 'A':
            while (*d->p && *d->p != '_')
                d->p++;
            if (*d->p)
                d->p++;
            break;
        default:
            break;
        }
    }
    return depth == 0 ? 0 : -1;
}

/* One component of a nested name; emits it after a "::" unless first. */
static int dm_component(struct dm *d, int first)
{
    char c = *d->p;
    if (c == 'I') {
        d->p++;
        if (dm_skip_args(d) != 0)
            return -1;
        dm_put(d, "<...>", 5);
        return 0;
    }
    if (!first)
        dm_put(d, "::", 2);
    if (isdigit((unsigned char)c))
        return dm_source_name(d, 1);
    if (c == 'L') {
        d->p++;
        return dm_source_name(d, 1);
    }
    if (c == 'C' && d->p[1] >= '1' && d->p[1] <= '5') {
        d->p += 2;
        dm_put(d, d->last, strlen(d->last));
        return 0;
    }
    if (c == 'D' && d->p[1] >= '0' && d->p[1] <= '5') {
        d->p += 2;
        dm_put(d, "~", 1);
        dm_put(d, d->last, strlen(d->last));
        return 0;
    }
    if (c == 'S' && d->p[1] == 't') {
        d->p += 2;
        dm_put(d, "std", 3);
        return 0;
    }
    return -1; /* operators, substitutions, lambdas...: leave the name mangled */
}

/* Our own demangler for what C and C++ symbols mostly are: _Z [L] <source-name> [I...E] and
 * _Z N [r][V][K][R|O] <components> E, parameters ignored. */
static int own_demangle(const char *mangled, char *out, size_t outlen)
{
    struct dm d = {mangled + 2, out, 0, outlen, 0, {0}};
    if (outlen == 0)
        return -1;
    out[0] = 0;
    if (*d.p == 'L')
        d.p++;
    if (*d.p == 'N') {
        d.p++;
        while (*d.p == 'r' || *d.p == 'V' || *d.p == 'K' || *d.p == 'R' || *d.p == 'O')
            d.p++;
        int first = 1;
        while (*d.p && *d.p != 'E' && !d.bad) {
            if (dm_component(&d, first) != 0)
                return -1;
            first = 0;
        }
        if (*d.p != 'E' || first)
            return -1;
    } else {
        if (*d.p == 'S' && d.p[1] == 't') {
            d.p += 2;
            dm_put(&d, "std::", 5);
        }
        if (dm_source_name(&d, 1) != 0)
            return -1;
        if (*d.p == 'I') {
            d.p++;
            if (dm_skip_args(&d) != 0)
                return -1;
            dm_put(&d, "<...>", 5);
        }
    }
    return d.bad ? -1 : 0;
}

static char *(*cxa_fn(int use))(const char *, char *, size_t *, int *)
{
    static int looked;
    static char *(*fn)(const char *, char *, size_t *, int *);
    if (!use)
        return NULL;
    if (!looked) {
        looked = 1;
        *(void **)&fn = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    }
    return fn;
}

int symbols_demangle(const char *mangled, char *out, size_t outlen, int use_cxa)
{
    if (!outlen)
        return 0;
    /* a mangled name, possibly with a ".cold" / ".isra.0" / ".constprop.1" suffix */
    if (strncmp(mangled, "_Z", 2) != 0) {
        snprintf(out, outlen, "%s", mangled);
        return 0;
    }
    char base[NAME_MAX_LEN];
    snprintf(base, sizeof(base), "%s", mangled);
    char *dot = strchr(base, '.');
    if (dot)
        *dot = 0;
    char *(*fn)(const char *, char *, size_t *, int *) = cxa_fn(use_cxa);
    if (fn) {
        int status = -1;
        char *r = fn(base, NULL, NULL, &status);
        if (r && status == 0) {
            shorten(r);
            snprintf(out, outlen, "%s", r);
            free(r);
            return 1;
        }
        free(r);
    }
    if (own_demangle(base, out, outlen) == 0)
        return 1;
    snprintf(out, outlen, "%s", mangled);
    return 0;
}
