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
    uint64_t value; /* ELF virtual address */
    uint32_t size;
    uint32_t name; /* offset into the module's string table */
};

struct mod {
    uintptr_t base;   /* dlpi_addr: pc - base = ELF virtual address */
    uintptr_t lo, hi; /* its PT_LOAD segments [lo, hi) */
    char path[PATH_MAX];
    const char *lib;                   /* basename of path */
    const unsigned char *eh_frame_hdr; /* in memory, NULL when absent */
    uint32_t serial;
    int loaded; /* symbols read (or given up) */
    void *map;  /* the file, mapped read-only */
    size_t maplen;
    const char *strtab; /* inside map (or inside the vDSO image) */
    size_t strsz;
    struct sym *syms; /* functions sorted by value (bigmem.h) */
    uint32_t nsyms;
    size_t syms_bytes;
    int alive; /* in the latest loader scan */
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

/* The section headers of the 64-bit ELF image at data[0..len), or NULL when it is not one or
 * they lie outside it; *n: how many. */
static const Elf64_Shdr *elf_sections(const unsigned char *data, size_t len, unsigned *n)
{
    if (len < sizeof(Elf64_Ehdr) || memcmp(data, ELFMAG, SELFMAG) != 0 ||
        data[EI_CLASS] != ELFCLASS64)
        return NULL;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
    if (eh->e_shoff == 0 || eh->e_shoff % 8 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_shoff > len || (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > len - eh->e_shoff)
        return NULL;
    *n = eh->e_shnum;
    return (const Elf64_Shdr *)(data + eh->e_shoff);
}

/* The first symbol table of type want (SHT_SYMTAB or SHT_DYNSYM) whose symbols and strings lie
 * inside the image and are stored plainly (not SHF_COMPRESSED), or NULL. */
static const Elf64_Shdr *find_table(const unsigned char *data, size_t len, uint32_t want)
{
    unsigned n;
    const Elf64_Shdr *sh = elf_sections(data, len, &n);
    for (unsigned i = 0; sh && i < n; i++) {
        const Elf64_Shdr *t = &sh[i], *str = &sh[t->sh_link < n ? t->sh_link : 0];
        if (t->sh_type == want && t->sh_entsize == sizeof(Elf64_Sym) && t->sh_link < n &&
            t->sh_offset % 8 == 0 && str->sh_type == SHT_STRTAB &&
            !((t->sh_flags | str->sh_flags) & SHF_COMPRESSED) && t->sh_offset <= len &&
            t->sh_size <= len - t->sh_offset && str->sh_offset <= len &&
            str->sh_size <= len - str->sh_offset && str->sh_size > 0)
            return t;
    }
    return NULL;
}

/* Reads the functions of the ELF image at data[0..len) from its .symtab, else (unless
 * symtab_only) its .dynsym. Returns 0 or -1 when the image has no such table. */
static int read_symtab(struct symbols *s, struct mod *m, const unsigned char *data, size_t len,
                       int symtab_only)
{
    const Elf64_Shdr *tab = find_table(data, len, SHT_SYMTAB);
    if (!tab && !symtab_only)
        tab = find_table(data, len, SHT_DYNSYM);
    if (!tab)
        return -1;
    unsigned nsh;
    const Elf64_Shdr *str = &elf_sections(data, len, &nsh)[tab->sh_link];
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

/* Maps the regular file at path read-only: 0, or -1 when it cannot be opened or is empty. */
static int map_file(const char *path, void **map, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size > 0 && S_ISREG(st.st_mode))
        p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return -1;
    *map = p;
    *len = (size_t)st.st_size;
    return 0;
}

/* The GNU build id of the ELF image (its NT_GNU_BUILD_ID note), or NULL; *n: its bytes. */
static const unsigned char *build_id(const unsigned char *data, size_t len, size_t *n)
{
    unsigned nsh;
    const Elf64_Shdr *sh = elf_sections(data, len, &nsh);
    for (unsigned i = 0; sh && i < nsh; i++) {
        if (sh[i].sh_type != SHT_NOTE || sh[i].sh_offset % 4 || sh[i].sh_offset > len ||
            sh[i].sh_size > len - sh[i].sh_offset)
            continue;
        const unsigned char *p = data + sh[i].sh_offset, *end = p + sh[i].sh_size;
        while ((size_t)(end - p) >= sizeof(Elf64_Nhdr)) {
            Elf64_Nhdr nh;
            memcpy(&nh, p, sizeof(nh));
            size_t namesz = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
            size_t descsz = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
            const unsigned char *name = p + sizeof(nh);
            if (namesz > (size_t)(end - name) || descsz > (size_t)(end - name) - namesz)
                break;
            const unsigned char *desc = name + namesz;
            if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
                nh.n_descsz > 0) {
                *n = nh.n_descsz;
                return desc;
            }
            p = desc + descsz;
        }
    }
    return NULL;
}

/* The file name in the image's .gnu_debuglink section and the CRC-32 of that file, or NULL. */
static const char *debuglink(const unsigned char *data, size_t len, uint32_t *crc)
{
    unsigned nsh;
    const Elf64_Shdr *sh = elf_sections(data, len, &nsh);
    if (!sh)
        return NULL;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
    if (eh->e_shstrndx >= nsh)
        return NULL;
    const Elf64_Shdr *names = &sh[eh->e_shstrndx];
    if (names->sh_offset > len || names->sh_size > len - names->sh_offset)
        return NULL;
    const char *nm = (const char *)data + names->sh_offset;
    for (unsigned i = 0; i < nsh; i++) {
        if (sh[i].sh_name >= names->sh_size || sh[i].sh_type != SHT_PROGBITS ||
            names->sh_size - sh[i].sh_name < sizeof(".gnu_debuglink") ||
            memcmp(nm + sh[i].sh_name, ".gnu_debuglink", sizeof(".gnu_debuglink")) != 0 ||
            sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset)
            continue;
        const char *link = (const char *)data + sh[i].sh_offset;
        size_t n = strnlen(link, sh[i].sh_size);
        size_t at = (n + 4) & ~(size_t)3; /* the name, its NUL, padding to 4, then the CRC */
        if (n == 0 || at + 4 > sh[i].sh_size || memchr(link, '/', n))
            return NULL;
        memcpy(crc, link + at, 4);
        return link;
    }
    return NULL;
}

/* The CRC-32 (the zlib/IEEE one, as .gnu_debuglink holds) of data[0..len). */
static uint32_t crc32_of(const unsigned char *data, size_t len)
{
    uint32_t table[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < len; i++)
        c = table[(c ^ data[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

/* Whether the debug file at path belongs to the module whose image is data[0..len): the same
 * build id when the module has one, else the CRC its .gnu_debuglink names. On success the file
 * stays mapped in *map, *maplen. */
static int debug_file_matches(const char *path, const unsigned char *id, size_t idlen,
                              const uint32_t *crc, void **map, size_t *maplen)
{
    void *p;
    size_t n;
    if (map_file(path, &p, &n) != 0)
        return 0;
    size_t dn = 0;
    const unsigned char *did = build_id(p, n, &dn);
    int ok =
        find_table(p, n, SHT_SYMTAB) != NULL &&
        (id ? did && dn == idlen && memcmp(did, id, idlen) == 0 : crc && crc32_of(p, n) == *crc);
    if (!ok) {
        munmap(p, n);
        return 0;
    }
    *map = p;
    *maplen = n;
    return 1;
}

/* Finds and maps the separate debug file of a module whose file (data[0..len), at path) has no
 * .symtab, where gdb and perf look: /usr/lib/debug/.build-id/ab/cdef.debug by its build id,
 * then by its .gnu_debuglink name in /usr/lib/debug/DIR, DIR/.debug and DIR. Returns 0 with
 * the file in *map, *maplen, or -1. Distributions ship such files in -dbg packages (Debian's
 * libc6-dbg holds libc's and libm's local functions, which .dynsym lacks). */
static int find_debug_file(const char *path, const unsigned char *data, size_t len, void **map,
                           size_t *maplen)
{
    char file[PATH_MAX];
    size_t idlen = 0;
    const unsigned char *id = build_id(data, len, &idlen);
    if (id && idlen >= 2 && idlen <= 64) {
        char hex[129];
        for (size_t i = 0; i < idlen; i++)
            snprintf(hex + 2 * i, 3, "%02x", id[i]);
        int w =
            snprintf(file, sizeof(file), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
        if (w > 0 && (size_t)w < sizeof(file) &&
            debug_file_matches(file, id, idlen, NULL, map, maplen))
            return 0;
    }
    uint32_t crc = 0;
    const char *link = debuglink(data, len, &crc);
    const char *slash = strrchr(path, '/');
    if (!link || !slash)
        return -1;
    int dirlen = (int)(slash - path);
    static const char *const pre[] = {"/usr/lib/debug", "", ""}, *const mid[] = {"/", "/.debug/",
                                                                                 "/"};
    for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++) {
        int w = snprintf(file, sizeof(file), "%s%.*s%s%s", pre[i], dirlen, path, mid[i], link);
        if (w > 0 && (size_t)w < sizeof(file) && strcmp(file, path) != 0 &&
            debug_file_matches(file, id, idlen, &crc, map, maplen))
            return 0;
    }
    return -1;
}

/* Reads module m's symbols: from its file's .symtab, else from a separate debug file's, else
 * from its file's .dynsym; for the vDSO (no file), from its image in memory. */
static void load_mod(struct symbols *s, struct mod *m)
{
    m->loaded = 1;
    void *p, *dbg;
    size_t n, dbglen;
    if (m->path[0] == '/' && map_file(m->path, &p, &n) == 0) {
        if (!find_table(p, n, SHT_SYMTAB) && find_debug_file(m->path, p, n, &dbg, &dbglen) == 0) {
            if (read_symtab(s, m, dbg, dbglen, 1) == 0) {
                munmap(p, n);
                m->map = dbg;
                m->maplen = dbglen;
                return;
            }
            munmap(dbg, dbglen);
        }
        m->map = p;
        m->maplen = n;
        if (read_symtab(s, m, p, n, 0) != 0)
            mod_unload(m);
        return;
    }
    if (strncmp(m->lib, "linux-vdso", 10) == 0 || strncmp(m->lib, "linux-gate", 10) == 0) {
        /* The kernel maps the whole vDSO image, section headers included, at its base; they lie
         * past its PT_LOAD (0x1522 bytes of a 0x2000-byte image on 6.x kernels), but within its
         * last page. */
        long pg = sysconf(_SC_PAGESIZE);
        uintptr_t end = pg > 0 ? (m->hi + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1) : m->hi;
        read_symtab(s, m, (const unsigned char *)m->lo, end - m->lo, 0);
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
    char last[256]; /* the last source name: constructors and destructors repeat it */
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
        case 'I':
        case 'N':
        case 'X':
        case 'F':
        case 'J':
        case 'Z':
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

/* The length of a C name without the suffixes GCC and LLVM give the parts and clones of a
 * function (`_int_malloc.part.0`, `memcpy.cold`, `f.isra.0.constprop.1`), so that they are the
 * function's frame; other dots stay. */
static size_t c_name_len(const char *name)
{
    static const char *const words[] = {"cold",  "part",       "isra", "constprop",  "lto_priv",
                                        "clone", "localalias", "llvm", "specialized"};
    const char *dot = strchr(name, '.');
    if (!dot || dot == name)
        return strlen(name);
    for (const char *p = dot; *p;) {
        const char *w = p + 1, *e = w;
        while (*e && *e != '.')
            e++;
        int ok = e > w && strspn(w, "0123456789") >= (size_t)(e - w); /* a number */
        for (size_t i = 0; !ok && i < sizeof(words) / sizeof(words[0]); i++)
            ok = strlen(words[i]) == (size_t)(e - w) && strncmp(w, words[i], e - w) == 0;
        if (!ok || (p == dot && w[0] >= '0' && w[0] <= '9'))
            return strlen(name); /* not a clone's suffix (and none starts with a number) */
        p = e;
    }
    return (size_t)(dot - name);
}

int symbols_demangle(const char *mangled, char *out, size_t outlen, int use_cxa)
{
    if (!outlen)
        return 0;
    /* without a symbol version (`sem_post@GLIBC_2.2.5`, `@@GLIBCXX_3.4`): .symtab names the
     * versions of a function so, where .dynsym keeps them apart from the name */
    char base[NAME_MAX_LEN];
    size_t at = strcspn(mangled, "@");
    snprintf(base, sizeof(base), "%.*s", (int)(at ? at : strlen(mangled)), mangled);
    /* a mangled name, possibly with a ".cold" / ".isra.0" / ".constprop.1" suffix */
    if (strncmp(base, "_Z", 2) != 0) {
        snprintf(out, outlen, "%.*s", (int)c_name_len(base), base);
        return 0;
    }
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
    snprintf(out, outlen, "%s", base); /* as is, but without its version and suffixes */
    return 0;
}
