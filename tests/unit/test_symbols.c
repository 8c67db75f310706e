/* test_symbols: the writer's naming of native pcs (agent/symbols.c): the demangler, with and
 * without libstdc++'s __cxa_demangle, and lookups of functions of this very process. */
#include <dlfcn.h>
#include <stdint.h>
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

int main(void)
{
    test_own();
    test_lookup();
    test_cxa(); /* last: it loads libstdc++ into the process */
    return harness_result("test_symbols");
}
