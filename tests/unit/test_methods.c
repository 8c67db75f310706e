/* test_methods: methods_stale (agent/writer/methods.c), the check that keeps stale jmethodIDs away
 * from JVMTI, against fake HotSpot metadata laid out as VMStructs describes it (the offsets
 * come from a test double of vmstructs.c). A jmethodID is stale when its Method* slot is
 * cleared (NULL, as unloading does) or freed (JNIMethodBlock::_free_method, 55); when the
 * Method does not start with a Method vtable pointer learned from a live class
 * (ClassPrepare); when its class's ClassLoaderData is not on ClassLoaderDataGraph's list
 * (unloaded, the memory still readable: what builds without JDK-8268364 leave behind); or
 * when the metadata is unmapped, which must not crash. A live method is not stale, also when
 * its loader joined the list after the list was last read. ClassPrepare creates jmethodIDs
 * (GetClassMethods) only between methods_start and methods_stop: not while the agent idles. */
#include <jvmti.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "counters.h"
#include "harness.h"
#include "methods.h"
#include "vmstructs.h"

/* ---- the layout (test double of vmstructs.c) -------------------------------------------- */

enum { OFF_CONST_METHOD = 8, OFF_CONSTANTS = 8, OFF_POOL_HOLDER = 24, OFF_KLASS_CLD = 152,
       OFF_CLD_NEXT = 112 };

struct counters counters;       /* counters.c's, which is not linked (saferead records its way) */

static uintptr_t cldg_head;     /* ClassLoaderDataGraph::_head */

int64_t vmstructs_offset(const char *type, const char *field)
{
    static const struct {
        const char *type, *field;
        int64_t off;
    } t[] = {
        {"Method", "_constMethod", OFF_CONST_METHOD},
        {"ConstMethod", "_constants", OFF_CONSTANTS},
        {"ConstantPool", "_pool_holder", OFF_POOL_HOLDER},
        {"Klass", "_class_loader_data", OFF_KLASS_CLD},
        {"ClassLoaderData", "_next", OFF_CLD_NEXT},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (!strcmp(type, t[i].type) && !strcmp(field, t[i].field))
            return t[i].off;
    return -1;
}

uintptr_t vmstructs_static_address(const char *type, const char *field)
{
    if (!strcmp(type, "ClassLoaderDataGraph") && !strcmp(field, "_head"))
        return (uintptr_t)&cldg_head;
    return 0;
}

/* ---- fake metadata ---------------------------------------------------------------------- */

struct fake_cld {
    char pad[OFF_CLD_NEXT];
    uintptr_t next;
};
struct fake_klass {
    char pad[OFF_KLASS_CLD];
    uintptr_t cld;
};
struct fake_cp {
    char pad[OFF_POOL_HOLDER];
    uintptr_t holder;
};
struct fake_cm {
    char pad[OFF_CONSTANTS];
    uintptr_t constants;
};
struct fake_method {
    uintptr_t vptr;
    uintptr_t const_method;     /* at OFF_CONST_METHOD */
};

/* A class with one method: metadata chained as HotSpot's is, in loader cld. */
struct fake_class {
    struct fake_method m;
    struct fake_cm cm;
    struct fake_cp cp;
    struct fake_klass k;
    uintptr_t slot;             /* the jmethodID points here: it holds the Method* */
};

static const char vtable[2][16];  /* two Method vtables: libjvm's and the CDS archive's */

static void make_class(struct fake_class *c, struct fake_cld *cld, int vt)
{
    memset(c, 0, sizeof(*c));
    c->m.vptr = (uintptr_t)vtable[vt];
    c->m.const_method = (uintptr_t)&c->cm;
    c->cm.constants = (uintptr_t)&c->cp;
    c->cp.holder = (uintptr_t)&c->k;
    c->k.cld = (uintptr_t)cld;
    c->slot = (uintptr_t)&c->m;
}

static jmethodID id_of(struct fake_class *c)
{
    return (jmethodID)&c->slot;
}

/* ---- a fake JVMTI for ClassPrepare: GetClassMethods hands out the class's jmethodID ----- */

static jmethodID prepared_id;
static int get_class_methods_calls;

static jvmtiError JNICALL get_class_methods(jvmtiEnv *env, jclass klass, jint *n,
                                            jmethodID **methods)
{
    (void)env;
    (void)klass;
    get_class_methods_calls++;
    static jmethodID one[1];
    one[0] = prepared_id;
    *n = 1;
    *methods = one;
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL deallocate(jvmtiEnv *env, unsigned char *mem)
{
    (void)env;
    (void)mem;
    return JVMTI_ERROR_NONE;
}

/* no class loaded: methods_start's preload visits none */
static jvmtiError JNICALL get_loaded_classes(jvmtiEnv *env, jint *n, jclass **classes)
{
    (void)env;
    static jclass none[1];
    *n = 0;
    *classes = none;
    return JVMTI_ERROR_NONE;
}

static struct jvmtiInterface_1_ jvmti_fns;
static jvmtiEnv fake_jvmti;

static void prepare(struct fake_class *c)
{
    prepared_id = id_of(c);
    methods_on_class_prepare(&fake_jvmti, NULL, NULL);
}

int main(void)
{
    jvmti_fns.GetClassMethods = get_class_methods;
    jvmti_fns.GetLoadedClasses = get_loaded_classes;
    jvmti_fns.Deallocate = deallocate;
    fake_jvmti = &jvmti_fns;

    static struct fake_cld boot, app, dead;
    static struct fake_class a, b, c, d;
    boot.next = (uintptr_t)&app;
    app.next = 0;
    cldg_head = (uintptr_t)&boot;
    make_class(&a, &boot, 0);
    make_class(&b, &app, 1);
    make_class(&c, &dead, 0); /* its loader is not on the list: unloaded */

    CHECK(methods_stale(NULL));
    /* idle: classes prepared get no jmethodIDs (HotSpot never frees them) */
    prepare(&a);
    CHECK(get_class_methods_calls == 0 && methods_classes() == 0);
    /* profiling: classes prepared get them, and their vtables are learned */
    CHECK(methods_start(&fake_jvmti, NULL) == 0);
    prepare(&a);
    prepare(&b);
    CHECK(get_class_methods_calls == 2 && methods_classes() == 2);
    CHECK(!methods_stale(id_of(&a)));
    CHECK(!methods_stale(id_of(&b)));
    CHECK(methods_stale(id_of(&c)));

    /* cleared at unloading, freed, or not a pointer */
    make_class(&d, &app, 0);
    CHECK(!methods_stale(id_of(&d)));
    d.slot = 0;
    CHECK(methods_stale(id_of(&d)));
    d.slot = 55;
    CHECK(methods_stale(id_of(&d)));
    d.slot = (uintptr_t)&d.m + 3;
    CHECK(methods_stale(id_of(&d)));

    /* not a Method any more (its memory reused) */
    make_class(&d, &app, 0);
    d.m.vptr = (uintptr_t)&d; /* any other word */
    CHECK(methods_stale(id_of(&d)));

    /* a loader that joins the list later: live once it is on it */
    static struct fake_cld late;
    static struct fake_class e;
    make_class(&e, &late, 0);
    CHECK(methods_stale(id_of(&e)));
    late.next = cldg_head;
    cldg_head = (uintptr_t)&late;
    CHECK(!methods_stale(id_of(&e)));
    /* and unloaded again: off the list (the set is rebuilt at most every 100 ms) */
    cldg_head = late.next;
    struct timespec pause = {0, 150000000};
    nanosleep(&pause, NULL);
    CHECK(methods_stale(id_of(&e)));
    CHECK(!methods_stale(id_of(&a)));

    /* metadata that is no longer mapped: stale, and no crash */
    struct fake_class *u = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(u != MAP_FAILED);
    if (u != MAP_FAILED) {
        make_class(u, &app, 0);
        static uintptr_t slot;
        slot = u->slot;
        CHECK(!methods_stale((jmethodID)&slot));
        munmap(u, 4096);
        CHECK(methods_stale((jmethodID)&slot));
        /* a Method whose ConstMethod is unmapped */
        static struct fake_class v;
        make_class(&v, &app, 0);
        v.m.const_method = (uintptr_t)u;
        CHECK(methods_stale(id_of(&v)));
    }

    /* stopped: idle again */
    methods_stop();
    prepare(&a);
    CHECK(get_class_methods_calls == 2 && methods_classes() == 2);
    return harness_result("test_methods");
}
