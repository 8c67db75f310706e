/* methods.c: jmethodID preloading and resolution. JVMTI callbacks and the writer thread. */
#include "methods.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fpl_format.h"
#include "saferead.h"
#include "vmstructs.h"

/* How the writer tells a jmethodID of an unloaded class (methods_stale), from HotSpot's own
 * structures: a jmethodID points to a slot holding the Method*, which HotSpot clears (NULL)
 * when the class is unloaded, or sets to JNIMethodBlock::_free_method (55) when it frees the
 * slot; a live Method starts with one of the few C++ vtable pointers of class Method (the
 * CDS archive has its own copy), learned from methods known to be live; and the Method's
 * class (Method -> ConstMethod -> ConstantPool -> pool holder) belongs to a class loader whose
 * ClassLoaderData is still on ClassLoaderDataGraph's list (unloading takes it off before any
 * metadata is freed). Every read of metadata goes through peek(): unloaded metadata may be
 * unmapped. */
#define MAX_VPTRS 4
#define CLD_SET_MAX_AGE_NS 100000000ull   /* the live loaders list, rebuilt at most this often */
#define CLD_MAX 1048576u

static pthread_mutex_t learn_mu = PTHREAD_MUTEX_INITIALIZER;
/* vtable pointers of live Methods: written under learn_mu by callbacks, read by the writer;
 * nvptr is published with release after the slot it counts (-1: too many, check off) */
static _Atomic uintptr_t vptrs[MAX_VPTRS];
static atomic_int nvptr;

static struct {
    int state;                  /* 0: not looked up, 1: ready, -1: layout unknown */
    int64_t const_method, constants, pool_holder, klass_cld, cld_next;
    uintptr_t cldg_head;        /* &ClassLoaderDataGraph::_head */
} hs;                           /* writer thread only */

static struct {
    uintptr_t *slots;           /* open addressing, 0 empty */
    size_t cap;
    uint64_t built_ns;
} clds;                         /* writer thread only */

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Reads len bytes at addr of this process without faulting on unmapped memory: 0 or -1. */
static int peek(uintptr_t addr, void *out, size_t len)
{
    return saferead(out, addr, len) == 0 ? 0 : -1;
}

static int peek_ptr(uintptr_t addr, uintptr_t *out)
{
    return peek(addr, out, sizeof(*out));
}

/* Learns the vtable pointer of the Method behind a jmethodID of a live class. */
static void learn_vptr(jmethodID id)
{
    uintptr_t m, vp;
    if (!id || peek_ptr((uintptr_t)id, &m) != 0 || peek_ptr(m, &vp) != 0 || !vp)
        return;
    int n = atomic_load_explicit(&nvptr, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (atomic_load_explicit(&vptrs[i], memory_order_relaxed) == vp)
            return;
    pthread_mutex_lock(&learn_mu);
    n = atomic_load_explicit(&nvptr, memory_order_relaxed);
    int known = 0;
    for (int i = 0; i < n; i++)
        known |= atomic_load_explicit(&vptrs[i], memory_order_relaxed) == vp;
    if (!known && n >= 0) {
        if (n < MAX_VPTRS) {
            atomic_store_explicit(&vptrs[n], vp, memory_order_relaxed);
            /* release: a reader that sees the count sees the slot */
            atomic_store_explicit(&nvptr, n + 1, memory_order_release);
        } else {
            atomic_store_explicit(&nvptr, -1, memory_order_release); /* not a layout we know */
        }
    }
    pthread_mutex_unlock(&learn_mu);
}

/* Whether classes get jmethodIDs as they are prepared: set by methods_start, cleared by
 * methods_stop. seq_cst with the preload's GetLoadedClasses: a ClassPrepare that reads 0
 * happened for a class already loaded, which the preload that follows the store sees. */
static atomic_int active;
static _Atomic uint64_t nclasses; /* GetClassMethods calls (relaxed: a statistic) */

/* Whether a preload has visited every loaded class, learning their Methods' vtable pointers:
 * the set is the JVM's for its life (libjvm's Method vtable and the CDS archive's copy), so
 * later preloads only create ids, which keeps a session's start cheap (two fault-proof reads
 * a class made most of a preload's time). Classes prepared later are learned from as they
 * come. Only control_start preloads (under its lock). */
static int preloaded;

/* Creates klass's jmethodIDs; learn: also learns its Methods' vtable pointer. */
static void make_ids(jvmtiEnv *jvmti, jclass klass, int learn)
{
    jint n = 0;
    jmethodID *ids = NULL;
    atomic_fetch_add_explicit(&nclasses, 1, memory_order_relaxed);
    /* GetClassMethods creates the jmethodIDs as a side effect; the array itself is dropped */
    if ((*jvmti)->GetClassMethods(jvmti, klass, &n, &ids) == JVMTI_ERROR_NONE && ids) {
        if (n > 0 && learn)
            learn_vptr(ids[0]); /* the class is live: so is its Method */
        (*jvmti)->Deallocate(jvmti, (unsigned char *)ids);
    }
}

/* Looks up the layout methods_stale needs. Writer thread. */
static void hs_init(void)
{
    hs.const_method = vmstructs_offset("Method", "_constMethod");
    hs.constants = vmstructs_offset("ConstMethod", "_constants");
    hs.pool_holder = vmstructs_offset("ConstantPool", "_pool_holder");
    hs.klass_cld = vmstructs_offset("Klass", "_class_loader_data");
    hs.cld_next = vmstructs_offset("ClassLoaderData", "_next");
    hs.cldg_head = vmstructs_static_address("ClassLoaderDataGraph", "_head");
    hs.state = hs.const_method >= 0 && hs.constants >= 0 && hs.pool_holder >= 0 &&
                       hs.klass_cld >= 0 && hs.cld_next >= 0 && hs.cldg_head
                   ? 1
                   : -1;
}

static size_t cld_hash(uintptr_t p, size_t cap)
{
    return (size_t)((p >> 3) * 0x9e3779b97f4a7c15ull) & (cap - 1);
}

/* Rebuilds the set of live ClassLoaderData from ClassLoaderDataGraph's list. */
static void clds_build(void)
{
    size_t n = 0;
    if (clds.slots)
        memset(clds.slots, 0, clds.cap * sizeof(*clds.slots));
    uintptr_t p;
    if (peek_ptr(hs.cldg_head, &p) != 0)
        p = 0;
    for (; p && n < CLD_MAX; n++) {
        if ((n + 1) * 2 > clds.cap) {
            size_t cap = clds.cap ? clds.cap * 2 : 1024;
            uintptr_t *s = calloc(cap, sizeof(*s));
            if (!s)
                break;
            for (size_t i = 0; i < clds.cap; i++) {
                if (!clds.slots[i])
                    continue;
                size_t j = cld_hash(clds.slots[i], cap);
                while (s[j])
                    j = (j + 1) & (cap - 1);
                s[j] = clds.slots[i];
            }
            free(clds.slots);
            clds.slots = s;
            clds.cap = cap;
        }
        size_t j = cld_hash(p, clds.cap);
        while (clds.slots[j] && clds.slots[j] != p)
            j = (j + 1) & (clds.cap - 1);
        if (clds.slots[j] == p)
            break; /* a cycle: the list changed under the walk */
        clds.slots[j] = p;
        if (peek_ptr(p + (uintptr_t)hs.cld_next, &p) != 0)
            break;
    }
    clds.built_ns = mono_ns();
}

static int clds_has(uintptr_t p)
{
    if (!clds.cap || !p)
        return 0;
    for (size_t j = cld_hash(p, clds.cap); clds.slots[j]; j = (j + 1) & (clds.cap - 1))
        if (clds.slots[j] == p)
            return 1;
    return 0;
}

int methods_stale(jmethodID id)
{
    if (!id)
        return 1;
    /* nothing can be read without the risk of a fault (saferead.h, said on stderr): as when
     * the layout is unknown, valid as far as we can tell -- not every method `[unloaded]` */
    if (saferead_way() == SAFEREAD_NONE)
        return 0;
    if (!hs.state)
        hs_init();
    uintptr_t m;
    if (peek_ptr((uintptr_t)id, &m) != 0 || m < 4096 || (m & 7))
        return 1; /* cleared at unloading (NULL), freed (_free_method), or not a pointer */
    int nv = atomic_load_explicit(&nvptr, memory_order_acquire);
    if (nv > 0) {
        uintptr_t vp;
        int known = 0;
        if (peek_ptr(m, &vp) != 0)
            return 1;
        for (int i = 0; i < nv; i++)
            known |= atomic_load_explicit(&vptrs[i], memory_order_relaxed) == vp;
        if (!known)
            return 1; /* not a Method (any more) */
    }
    if (hs.state < 0)
        return 0; /* the layout is unknown: as far as we can tell, valid */
    uintptr_t cm, cp, holder, cld;
    if (peek_ptr(m + (uintptr_t)hs.const_method, &cm) != 0 ||
        peek_ptr(cm + (uintptr_t)hs.constants, &cp) != 0 ||
        peek_ptr(cp + (uintptr_t)hs.pool_holder, &holder) != 0 ||
        peek_ptr(holder + (uintptr_t)hs.klass_cld, &cld) != 0)
        return 1;
    if (!clds.built_ns || mono_ns() - clds.built_ns > CLD_SET_MAX_AGE_NS || !clds_has(cld))
        clds_build(); /* a loader newer than the set, or a set too old to trust */
    return !clds_has(cld);
}

int methods_start(jvmtiEnv *jvmti, JNIEnv *jni)
{
    atomic_store(&active, 1);
    jint n = 0;
    jclass *classes = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &classes) != JVMTI_ERROR_NONE)
        return 0;
    for (jint i = 0; i < n; i++) {
        make_ids(jvmti, classes[i], !preloaded);
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
    preloaded = 1;
    return (int)n;
}

void methods_stop(void)
{
    atomic_store(&active, 0);
}

void methods_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jclass klass)
{
    (void)jni;
    if (atomic_load(&active))
        make_ids(jvmti, klass, 1);
}

uint64_t methods_classes(void)
{
    return atomic_load_explicit(&nclasses, memory_order_relaxed);
}

/* "Ljava/util/Map$Entry;" -> "java.util.Map$Entry"; "[I" -> "int[]". */
static char *dotted_class(const char *sig)
{
    int dims = 0;
    while (sig[dims] == '[')
        dims++;
    const char *base = sig + dims;
    const char *prim = NULL;
    size_t blen;
    switch (*base) {
    case 'B': prim = "byte"; break;
    case 'C': prim = "char"; break;
    case 'D': prim = "double"; break;
    case 'F': prim = "float"; break;
    case 'I': prim = "int"; break;
    case 'J': prim = "long"; break;
    case 'S': prim = "short"; break;
    case 'Z': prim = "boolean"; break;
    case 'V': prim = "void"; break;
    default: break;
    }
    if (prim) {
        base = prim;
        blen = strlen(prim);
    } else if (*base == 'L') {
        base++;
        blen = strlen(base);
        if (blen && base[blen - 1] == ';')
            blen--;
    } else {
        blen = strlen(base);
    }
    char *out = malloc(blen + 2 * (size_t)dims + 1);
    if (!out)
        return NULL;
    for (size_t i = 0; i < blen; i++)
        out[i] = base[i] == '/' ? '.' : base[i];
    for (int d = 0; d < dims; d++)
        memcpy(out + blen + 2 * (size_t)d, "[]", 2);
    out[blen + 2 * (size_t)dims] = 0;
    return out;
}

static char *dup_jvmti(jvmtiEnv *jvmti, char *s)
{
    char *r = strdup(s ? s : "");
    if (s)
        (*jvmti)->Deallocate(jvmti, (unsigned char *)s);
    return r;
}

static int cmp_line(const void *a, const void *b)
{
    const struct methods_line *x = a, *y = b;
    return (x->bci > y->bci) - (x->bci < y->bci);
}

int methods_resolve(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID id, struct methods_info *out)
{
    memset(out, 0, sizeof(*out));
    out->kind = FPL_METHOD_JAVA;
    if (id && methods_stale(id)) {
        /* never handed to JVMTI: some JDK builds crash on a stale jmethodID */
        out->kind = FPL_METHOD_MARKER;
        out->klass = strdup("");
        out->name = strdup("[unloaded]");
        out->signature = strdup("");
        out->source = strdup("");
        return -ENOENT;
    }
    jclass klass = NULL;
    char *csig = NULL, *name = NULL, *msig = NULL, *src = NULL;
    if (!id || (*jvmti)->GetMethodDeclaringClass(jvmti, id, &klass) != JVMTI_ERROR_NONE ||
        (*jvmti)->GetMethodName(jvmti, id, &name, &msig, NULL) != JVMTI_ERROR_NONE) {
        if (klass)
            (*jni)->DeleteLocalRef(jni, klass);
        out->kind = FPL_METHOD_MARKER;
        out->klass = strdup("");
        out->name = strdup("[unknown_method]");
        out->signature = strdup("");
        out->source = strdup("");
        return -EINVAL;
    }
    if ((*jvmti)->GetClassSignature(jvmti, klass, &csig, NULL) == JVMTI_ERROR_NONE && csig) {
        out->klass = dotted_class(csig);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)csig);
    } else {
        out->klass = strdup("[unknown_class]");
    }
    if ((*jvmti)->GetSourceFileName(jvmti, klass, &src) != JVMTI_ERROR_NONE)
        src = NULL;
    out->source = dup_jvmti(jvmti, src);
    out->name = dup_jvmti(jvmti, name);
    out->signature = dup_jvmti(jvmti, msig);

    jboolean native = 0;
    if ((*jvmti)->IsMethodNative(jvmti, id, &native) == JVMTI_ERROR_NONE && native)
        out->kind = FPL_METHOD_NATIVE;

    jint n = 0;
    jvmtiLineNumberEntry *t = NULL;
    if (!native && (*jvmti)->GetLineNumberTable(jvmti, id, &n, &t) == JVMTI_ERROR_NONE && t) {
        out->lines = malloc(sizeof(*out->lines) * (size_t)(n ? n : 1));
        if (out->lines) {
            for (jint i = 0; i < n; i++) {
                out->lines[i].bci = (int)t[i].start_location;
                out->lines[i].line = t[i].line_number;
            }
            out->nlines = (int)n;
            qsort(out->lines, (size_t)n, sizeof(*out->lines), cmp_line);
        }
        (*jvmti)->Deallocate(jvmti, (unsigned char *)t);
    }
    /* klass is a local ref in the writer's long-lived native frame: free it */
    (*jni)->DeleteLocalRef(jni, klass);
    return 0;
}

void methods_info_destroy(struct methods_info *m)
{
    free(m->klass);
    free(m->name);
    free(m->signature);
    free(m->source);
    free(m->lines);
    memset(m, 0, sizeof(*m));
}
