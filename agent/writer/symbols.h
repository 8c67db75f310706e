/* symbols.h: names native code addresses (the pcs of SAMPLE_FT_NATIVE frames), in the writer,
 * never in a signal handler.
 *
 * The modules are the loader's (dl_iterate_phdr: shared libraries, the executable, the vDSO).
 * A module's symbols are read once, when a pc in it is first named: its ELF file is mapped
 * read-only and its .symtab (Debian's libjvm.so keeps one: ~58k functions on JDK 17), else the
 * .symtab of its separate debug file (found by build id under /usr/lib/debug/.build-id, or by its
 * .gnu_debuglink name, as gdb and perf find them: Debian's libc6-dbg names libc's and libm's
 * local functions such as `__memmove_avx_unaligned_erms`), else its .dynsym, is indexed as a
 * sorted array of functions (16 bytes each; the names stay in the
 * mapped file, so only the string pages a lookup touches become resident). C++ names are
 * demangled (__cxa_demangle when libstdc++ is in the process, found with dlsym, else a small
 * demangler of our own) and shortened to the qualified function name, without parameters or
 * return type: `ZPageAllocator::alloc_page_stall`.
 *
 * A pc in a module without a symbol for it is named by the start of its function from the
 * module's .eh_frame_hdr, `[libz.so.1]+0x3f20`, so that the pcs of one stripped function are
 * still one frame; a pc outside every module is `[unknown]`. Everything is freed by
 * symbols_free. Single thread (the writer).
 */
#ifndef SYMBOLS_H
#define SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct symbols;

/* What symbols_lookup found for a pc. The strings live until the next call on the same
 * struct symbols. Two pcs of one function have the same (module, function). */
struct symbols_name {
    const char *lib;        /* the module's file name without directories; "" when none */
    const char *name;       /* the function, or `[lib]+0xOFF`, or `[unknown]` */
    uint32_t module;        /* 1.. per module seen; 0: outside every module */
    uint64_t function;      /* the function's start, relative to the module's base */
};

/* A new, empty symbol cache, or NULL when out of memory. */
struct symbols *symbols_new(void);

/* Frees everything of s (NULL: nothing). */
void symbols_free(struct symbols *s);

/* Names pc. For a return address (every native frame but a stack's leaf) pass the pc of the
 * call: the return address minus 1. */
void symbols_lookup(struct symbols *s, uintptr_t pc, struct symbols_name *out);

/* Bytes of memory s holds (tables and names; mapped files not counted). */
size_t symbols_bytes(const struct symbols *s);

/* Demangles an Itanium C++ name into out[0..outlen) as a qualified name without parameters,
 * return type or clone suffixes (`_ZN14ZPageAllocator16alloc_page_stallEP15ZPageAllocation` ->
 * `ZPageAllocator::alloc_page_stall`). A name that is not mangled is copied. use_cxa: 1 to use
 * __cxa_demangle when the process has it, 0 to use only our own demangler. A name loses its
 * symbol version (`sem_post@GLIBC_2.2.5` -> `sem_post`); a C name is copied without the
 * suffixes of a function's parts and clones (`_int_malloc.part.0` -> `_int_malloc`,
 * `memcpy.cold` -> `memcpy`). Returns 1 when the name was demangled, 0 when copied. */
int symbols_demangle(const char *mangled, char *out, size_t outlen, int use_cxa);

#endif
