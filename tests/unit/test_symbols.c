/* test_symbols: the writer's naming of native pcs (agent/writer/symbols.c): the demangler, with and
 * without libstdc++'s __cxa_demangle, and lookups of functions of this very process, of the
 * vDSO, of libc, and of stripped libraries whose symbols are in separate debug files. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "harness.h"
#include "symbols.h"

static int same(const char *mangled, int use_cxa, const char *want)
{
    char out[512];
    symbols_demangle(mangled, out, sizeof(out), use_cxa);
    if (strcmp(out, want) != 0) {
        fprintf(stderr, "demangle(%s, cxa=%d) = '%s', want '%s'\n", mangled, use_cxa, out, want);
        return 0;
    }
    return 1;
}

/* Names both demanglers agree on. */
static void test_common(int cxa)
{
    CHECK(same("_ZN14ZPageAllocator16alloc_page_stallEP15ZPageAllocation", cxa,
               "ZPageAllocator::alloc_page_stall"));
    CHECK(same("_ZN13ObjectMonitor5enterEP10JavaThread", cxa, "ObjectMonitor::enter"));
    CHECK(same("_ZN6ThreadC2Ev", cxa, "Thread::Thread"));
    CHECK(same("_ZN6ThreadD1Ev", cxa, "Thread::~Thread"));
    CHECK(same("_ZNK6Symbol11as_C_stringEv", cxa, "Symbol::as_C_string"));
    CHECK(same("_ZL11some_staticv", cxa, "some_static"));
    CHECK(same("_Z3fooi", cxa, "foo"));
    CHECK(same("_ZN3Foo3barEi.cold", cxa, "Foo::bar"));
    CHECK(same("_ZN3Foo3barEi.isra.0", cxa, "Foo::bar"));
    CHECK(same("_ZN12_GLOBAL__N_13fooEv", cxa, "(anonymous namespace)::foo"));
    CHECK(same("_ZN2os5Linux12thread_startEP6Thread", cxa, "os::Linux::thread_start"));
    /* not mangled: as is */
    CHECK(same("deflate", cxa, "deflate"));
    CHECK(same("Java_java_util_zip_Deflater_deflateBytesBytes", cxa,
               "Java_java_util_zip_Deflater_deflateBytesBytes"));
    CHECK(same("_Zbroken", cxa, "_Zbroken"));
    /* C names: the parts and clones of a function are the function; other dots stay */
    CHECK(same("_int_malloc.part.0", cxa, "_int_malloc"));
    CHECK(same("memcpy.cold", cxa, "memcpy"));
    CHECK(same("tr_tunables_init.isra.0.constprop.1", cxa, "tr_tunables_init"));
    CHECK(same("foo.lto_priv.0", cxa, "foo"));
    CHECK(same("memcpy@GLIBC_2.2.5", cxa, "memcpy"));
    CHECK(same("sem_post@@GLIBC_2.34", cxa, "sem_post"));
    CHECK(same("_ZN6ThreadD1Ev@@GLIBCXX_3.4", cxa, "Thread::~Thread"));
    CHECK(same("foo.1", cxa, "foo.1"));
    CHECK(same("foo.bar", cxa, "foo.bar"));
    CHECK(same("foo.part", cxa, "foo"));
    CHECK(same(".hidden", cxa, ".hidden"));
    CHECK(same("foo.", cxa, "foo."));
    CHECK(same("@odd", cxa, "@odd"));
    char small[8];
    symbols_demangle("_ZN14ZPageAllocator16alloc_page_stallEP15ZPageAllocation", small,
                     sizeof(small), cxa);
    CHECK(strlen(small) < sizeof(small));
}

static void test_own(void)
{
    test_common(0);
    /* templates: our own demangler keeps their place, not their arguments */
    CHECK(same("_ZN21OopOopIterateDispatchI14G1CMOopClosureE5Table15oop_oop_iterateI13"
               "InstanceKlass9narrowOopEEvPS0_P7oopDescP5Klass",
               0, "OopOopIterateDispatch<...>::Table::oop_oop_iterate<...>"));
    CHECK(same("_ZNSt6vectorIiSaIiEE9push_backERKi", 0, "std::vector<...>::push_back"));
    CHECK(same("_ZN6AccessILm0EE4loadEv", 0, "Access<...>::load"));
    /* what it does not know stays mangled (operators) */
    CHECK(same("_ZN3FooixEi", 0, "_ZN3FooixEi"));
}

static void test_cxa(void)
{
    if (!dlopen("libstdc++.so.6", RTLD_NOW | RTLD_GLOBAL)) {
        printf("test_symbols: no libstdc++.so.6, __cxa_demangle not tested\n");
        return;
    }
    CHECK(dlsym(RTLD_DEFAULT, "__cxa_demangle") != NULL);
    test_common(1);
    CHECK(same("_ZN21OopOopIterateDispatchI14G1CMOopClosureE5Table15oop_oop_iterateI13"
               "InstanceKlass9narrowOopEEvPS0_P7oopDescP5Klass",
               1, "OopOopIterateDispatch<G1CMOopClosure>::Table::oop_oop_iterate<InstanceKlass, "
                  "narrowOop>"));
    CHECK(same("_ZN3FooixEi", 1, "Foo::operator[]"));
    CHECK(same("_ZN3FooclEv", 1, "Foo::operator()"));
    CHECK(same("_ZNSt6vectorIiSaIiEE9push_backERKi", 1, "std::vector<int, std::allocator<int> "
                                                       ">::push_back"));
}

/* A function of this executable, found in its .symtab (it is static: not in .dynsym). */
__attribute__((noinline)) static int local_marker(int x)
{
    return x * 3 + 1;
}

static void test_lookup(void)
{
    struct symbols *s = symbols_new();
    CHECK(s != NULL);
    if (!s)
        return;
    struct symbols_name a, b;
    uintptr_t f = (uintptr_t)local_marker;
    symbols_lookup(s, f, &a);
    CHECK(strcmp(a.name, "local_marker") == 0);
    CHECK(strcmp(a.lib, "test_symbols") == 0 || strcmp(a.lib, "test_symbols-asan") == 0);
    uint32_t mod = a.module;
    uint64_t fn = a.function;
    CHECK(mod != 0);
    symbols_lookup(s, f + 3, &b); /* inside it: the same function */
    CHECK(strcmp(b.name, "local_marker") == 0);
    CHECK(b.module == mod && b.function == fn);

    /* a libc function (libc keeps only .dynsym on Debian); libc's own, not a sanitizer's
     * interceptor of the same name */
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    void *q = libc ? dlsym(libc, "qsort") : NULL;
    CHECK(q != NULL);
    symbols_lookup(s, (uintptr_t)q, &a);
    CHECK(strcmp(a.name, "qsort") == 0);
    CHECK(strncmp(a.lib, "libc.so", 7) == 0);
    CHECK(a.module != mod);

    /* executable memory of no module */
    void *anon = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(anon != MAP_FAILED);
    symbols_lookup(s, (uintptr_t)anon + 16, &a);
    CHECK(strcmp(a.name, "[unknown]") == 0);
    CHECK(a.module == 0 && a.lib[0] == 0);
    munmap(anon, 4096);
    CHECK(symbols_bytes(s) > 0);
    symbols_free(s);
    symbols_free(NULL);
    CHECK(local_marker(1) == 4);
}

/* The vDSO has no file: its symbols are read from its image in memory, whose section headers
 * lie past its PT_LOAD segment. */
static void test_vdso(void)
{
    void *vdso = dlopen("linux-vdso.so.1", RTLD_NOW | RTLD_NOLOAD);
    void *f = vdso ? dlsym(vdso, "__vdso_clock_gettime") : NULL;
    if (!f) {
        printf("test_symbols: no vDSO clock_gettime here, not tested\n");
        return;
    }
    struct symbols *s = symbols_new();
    struct symbols_name a;
    symbols_lookup(s, (uintptr_t)f + 4, &a);
    CHECK(strcmp(a.lib, "linux-vdso.so.1") == 0);
    if (strcmp(a.name, "clock_gettime") != 0)
        fprintf(stderr, "vDSO clock_gettime named '%s'\n", a.name);
    CHECK(strcmp(a.name, "clock_gettime") == 0); /* the plain alias, not __vdso_ */
    symbols_free(s);
}

/* libc's memcpy is an IFUNC: dlsym gives the implementation this CPU runs, a local function
 * (`__memmove_avx_unaligned_erms` and kin) that libc's .dynsym lacks. With libc6-dbg installed
 * (scripts/test installs it) its debug file, found by build id, names it. */
static void test_libc_debug(void)
{
    if (access("/usr/lib/debug/.build-id", F_OK) != 0) {
        printf("test_symbols: no /usr/lib/debug/.build-id (libc6-dbg), libc's local functions "
               "not tested\n");
        return;
    }
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    void *f = libc ? dlsym(libc, "memcpy") : NULL;
    CHECK(f != NULL);
    if (!f)
        return;
    struct symbols *s = symbols_new();
    struct symbols_name a;
    symbols_lookup(s, (uintptr_t)f + 8, &a);
    if (strncmp(a.name, "__mem", 5) != 0)
        fprintf(stderr, "libc memcpy's implementation named '%s'\n", a.name);
    CHECK(strncmp(a.name, "__mem", 5) == 0);
    CHECK(strncmp(a.lib, "libc.so", 7) == 0);
    symbols_free(s);
}

/* Looks up the static function of the copy `variant` of symdbg_lib.c in dir: named from its
 * debug file when want_named, else by module and offset (and its exported function still from
 * its .dynsym). */
static void check_symdbg(struct symbols *s, const char *dir, const char *variant, int want_named)
{
    char path[4096], want[128];
    snprintf(path, sizeof(path), "%s/libsymdbg_%s.so", dir, variant);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return;
    }
    void *(*addr)(void) = (void *(*)(void))dlsym(h, "symdbg_local_addr");
    int (*call)(int) = (int (*)(int))dlsym(h, "symdbg_call");
    CHECK(addr && call);
    if (!addr || !call)
        return;
    CHECK(call(1) == (int)strlen(variant) + 1);
    struct symbols_name a;
    symbols_lookup(s, (uintptr_t)addr(), &a);
    snprintf(want, sizeof(want), "symdbg_local_%s", variant);
    if (want_named ? strcmp(a.name, want) != 0 : a.name[0] != '[')
        fprintf(stderr, "%s: its static function named '%s'\n", variant, a.name);
    if (want_named) {
        CHECK(strcmp(a.name, want) == 0);
    } else {
        snprintf(want, sizeof(want), "[libsymdbg_%s.so]+0x", variant);
        CHECK(strncmp(a.name, want, strlen(want)) == 0);
    }
    symbols_lookup(s, (uintptr_t)call, &a);
    CHECK(strcmp(a.name, "symdbg_call") == 0);
}

static void test_debug_files(void)
{
    const char *dir = getenv("FLYPROF_SYMDBG_DIR");
    CHECK(dir != NULL); /* set by ctest: the stripped libraries are part of the build */
    if (!dir)
        return;
    struct symbols *s = symbols_new();
    check_symdbg(s, dir, "id", 1);
    check_symdbg(s, dir, "noid", 1);
    check_symdbg(s, dir, "wrongid", 0);
    check_symdbg(s, dir, "wrongcrc", 0);
    symbols_free(s);
}

int main(void)
{
    test_own();
    test_lookup();
    test_vdso();
    test_libc_debug();
    test_debug_files();
    test_cxa(); /* last: it loads libstdc++ into the process */
    return harness_result("test_symbols");
}
