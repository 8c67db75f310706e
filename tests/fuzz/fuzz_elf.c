/* fuzz_elf: the agent's ELF readers (agent/writer/symbols.c) on any image, and its own demangler on
 * any name. These run in the writer thread inside the profiled JVM, on files found through the
 * loader (libraries, their separate debug files, the vDSO): a bad file must cost its names,
 * never the JVM.
 *
 * Each input is read as an ELF image, as a mapped file is (page-aligned): its function table
 * (.symtab, else .dynsym), every function's name demangled, lookups at and inside and between
 * the functions, its build id and .gnu_debuglink with the CRC-32 of the image. The same bytes
 * are then a name for symbols_demangle (our own demangler and the version and clone-suffix
 * cutting; __cxa_demangle is the C++ runtime's, not ours to fuzz), into an output buffer of a
 * size taken from the input. symbols.c is included whole: its readers are static. */
#include "symbols.c"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_image(struct symbols *s, const unsigned char *img, size_t size)
{
    struct mod m;
    memset(&m, 0, sizeof(m));
    if (read_symtab(s, &m, img, size, 0) == 0) {
        for (uint32_t i = 0; i < m.nsyms && i < 512; i++) {
            const struct sym *y = &m.syms[i];
            if (i && y->value <= y[-1].value)
                __builtin_trap(); /* sorted, one entry per address */
            const struct sym *at = find_sym(&m, y->value);
            if (at != y)
                __builtin_trap(); /* a function's own start names it */
            symbols_demangle(m.strtab + at->name, s->name, sizeof(s->name), 0);
            find_sym(&m, y->value + y->size / 2);
            find_sym(&m, y->value - 1);
        }
        bigmem_free(m.syms, m.syms_bytes);
    }
    size_t idlen = 0;
    const unsigned char *id = build_id(img, size, &idlen);
    if (id && (id < img || id + idlen > img + size))
        __builtin_trap();
    uint32_t crc = 0;
    const char *link = debuglink(img, size, &crc);
    if (link && (strlen(link) == 0 || (const unsigned char *)link + strlen(link) >= img + size))
        __builtin_trap();
    (void)crc32_of(img, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (4u << 20))
        return 0;
    size_t cap = (size + 4095) & ~(size_t)4095;
    unsigned char *img = aligned_alloc(4096, cap ? cap : 4096);
    struct symbols *s = symbols_new();
    if (!img || !s) {
        free(img);
        symbols_free(s);
        return 0;
    }
    memcpy(img, data, size);
    read_image(s, img, size);

    char name[2 * NAME_MAX_LEN];
    size_t n = size < sizeof(name) - 1 ? size : sizeof(name) - 1;
    memcpy(name, data, n);
    name[n] = 0;
    size_t outlen = size ? 1 + data[size - 1] % 64 : 1; /* short buffers cut the output */
    char *out = malloc(outlen);
    if (out) {
        symbols_demangle(name, out, outlen, 0);
        if (!memchr(out, 0, outlen))
            __builtin_trap();
        free(out);
    }
    symbols_demangle(name, s->name, sizeof(s->name), 0);
    symbols_free(s);
    free(img);
    return 0;
}
