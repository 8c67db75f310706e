/* codecache.c: handler-side readers of HotSpot's code cache, code blobs and thread stacks.
 *
 * ASYNC-SIGNAL-SAFE: every *_sigsafe function runs in signal handlers, inside the walker's
 * crash guard. No locks, no allocation; JVM memory is read through volatile loads and every
 * value is range-checked before it is followed. codecache_set_layout and codecache_add_stub
 * are setup / JVMTI-callback code that only stores into memory of this file.
 */
#include "codecache.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

static struct codecache_layout lay;
/* release in codecache_set_layout, acquire in readers: the layout's fields are written before
 * a handler can see have_layout == 1 */
static _Atomic int have_layout;

void codecache_set_layout(const struct codecache_layout *l)
{
    lay = *l;
    atomic_store_explicit(&have_layout, 1, memory_order_release);
}

const struct codecache_layout *codecache_layout_sigsafe(void)
{
    return atomic_load_explicit(&have_layout, memory_order_acquire) ? &lay : NULL;
}

static inline uintptr_t rd_ptr(uintptr_t a)
{
    return *(const volatile uintptr_t *)a;
}

static inline int32_t rd_i32(uintptr_t a)
{
    return *(const volatile int32_t *)a;
}

static inline int16_t rd_i16(uintptr_t a)
{
    return *(const volatile int16_t *)a;
}

static inline uint8_t rd_u8(uintptr_t a)
{
    return *(const volatile uint8_t *)a;
}

int codecache_contains_sigsafe(uintptr_t pc)
{
    if (!atomic_load_explicit(&have_layout, memory_order_acquire))
        return 0;
    return pc >= *(const volatile uintptr_t *)lay.low_addr &&
           pc < *(const volatile uintptr_t *)lay.high_addr;
}

/* The NUL-terminated string at p if it lies whole inside libjvm's image (HotSpot names its
 * blobs with string literals), else NULL: a stale blob must not hand the writer a pointer to
 * memory that may go away. */
static const char *valid_name(uintptr_t p)
{
    for (int i = 0; i < lay.jvm_nseg; i++) {
        uintptr_t lo = lay.jvm_seg[i][0], hi = lay.jvm_seg[i][1];
        if (p < lo || p >= hi)
            continue;
        for (uintptr_t q = p; q < hi && q - p < 256; q++)
            if (rd_u8(q) == 0)
                return q > p ? (const char *)p : NULL;
        return NULL;
    }
    return NULL;
}

static int name_is(const char *s, const char *lit)
{
    for (; *lit; s++, lit++)
        if (*s != *lit)
            return 0;
    return *s == 0;
}

/* Fills *b from the blob at `blob`, checking that its code holds pc. */
static int describe(uintptr_t blob, uintptr_t pc, struct codecache_blob *b)
{
    int32_t size = rd_i32(blob + (uintptr_t)lay.blob_size);
    if (size <= 0 || pc >= blob + (uintptr_t)size)
        return 0;
    uintptr_t cb, ce;
    if (lay.blob_code_begin >= 0) {
        cb = rd_ptr(blob + (uintptr_t)lay.blob_code_begin);
        ce = rd_ptr(blob + (uintptr_t)lay.blob_code_end);
    } else {
        cb = blob + (uintptr_t)(uint32_t)rd_i32(blob + (uintptr_t)lay.blob_code_offset);
        ce = blob + (uintptr_t)(uint32_t)rd_i32(blob + (uintptr_t)lay.blob_data_offset);
    }
    if (pc < cb || pc >= ce || cb < blob || ce > blob + (uintptr_t)size)
        return 0;
    b->blob = blob;
    b->code_begin = cb;
    b->code_end = ce;
    b->name = valid_name(rd_ptr(blob + (uintptr_t)lay.blob_name));
    b->frame_size = rd_i32(blob + (uintptr_t)lay.blob_frame_size);
    if (b->frame_size < 0 || b->frame_size > 1 << 16)
        b->frame_size = 0;
    b->frame_complete = lay.blob_frame_complete_bytes == 2
                            ? rd_i16(blob + (uintptr_t)lay.blob_frame_complete)
                            : rd_i32(blob + (uintptr_t)lay.blob_frame_complete);
    b->method = 0;
    b->level = 0;
    b->vep = 0;
    int nm;
    if (pc >= lay.interp_lo && pc < lay.interp_hi) {
        b->kind = CODECACHE_INTERPRETER;
        return 1;
    }
    if (lay.blob_kind >= 0)
        nm = rd_u8(blob + (uintptr_t)lay.blob_kind) == lay.kind_nmethod;
    else
        nm = b->name && (name_is(b->name, "nmethod") || name_is(b->name, "native nmethod"));
    if (!nm) {
        b->kind = CODECACHE_STUB;
        return 1;
    }
    b->kind = CODECACHE_NMETHOD;
    b->method = rd_ptr(blob + (uintptr_t)lay.nm_method);
    b->vep = 0;
    if (lay.nm_vep >= 0)
        b->vep = rd_ptr(blob + (uintptr_t)lay.nm_vep);
    else if (lay.nm_vep_offset >= 0)
        b->vep = cb + *(const volatile uint16_t *)(blob + (uintptr_t)lay.nm_vep_offset);
    if (b->vep < cb || b->vep >= ce)
        b->vep = 0;
    b->level = lay.nm_level_bytes == 1 ? (int)(int8_t)rd_u8(blob + (uintptr_t)lay.nm_level)
                                       : rd_i32(blob + (uintptr_t)lay.nm_level);
    return 1;
}

/* The blob holding pc in one code heap whose committed memory [mlo, ..) holds pc: the
 * segment map gives, for each segment, how many segments back its block starts (0: here,
 * 0xff: free), so a few hops lead to the HeapBlock header before the CodeBlob. */
static int find_in_heap(uintptr_t heap, uintptr_t mlo, uintptr_t pc, struct codecache_blob *b)
{
    int32_t log2 = rd_i32(heap + (uintptr_t)lay.heap_log2_seg);
    if (log2 < 3 || log2 > 20)
        return 0;
    uintptr_t map = rd_ptr(heap + (uintptr_t)(lay.heap_segmap + lay.vs_low));
    uintptr_t map_hi = rd_ptr(heap + (uintptr_t)(lay.heap_segmap + lay.vs_high));
    uintptr_t idx = (pc - mlo) >> log2;
    if (!map || map + idx >= map_hi)
        return 0;
    uint8_t hop = rd_u8(map + idx);
    for (int steps = 0; hop != 0; steps++) {
        if (hop == 0xff || hop > idx || steps > 1 << 16)
            return 0;
        idx -= hop;
        hop = rd_u8(map + idx);
    }
    uintptr_t hb = mlo + (idx << log2);
    if (!rd_u8(hb + (uintptr_t)lay.hb_used))
        return 0;
    return describe(hb + (uintptr_t)lay.hb_size, pc, b);
}

int codecache_find_sigsafe(uintptr_t pc, struct codecache_blob *b)
{
    if (!codecache_contains_sigsafe(pc))
        return 0;
    if (pc >= lay.interp_lo && pc < lay.interp_hi) {
        /* the interpreter: one fixed blob, which its callers need not read */
        *b = (struct codecache_blob){.blob = lay.interp_lo, .code_begin = lay.interp_lo,
                                     .code_end = lay.interp_hi, .kind = CODECACHE_INTERPRETER};
        return 1;
    }
    uintptr_t ga = rd_ptr((uintptr_t)lay.heaps_addr);
    if (!ga)
        return 0;
    int32_t n = rd_i32(ga + (uintptr_t)lay.ga_len);
    uintptr_t data = rd_ptr(ga + (uintptr_t)lay.ga_data);
    if (n <= 0 || n > 16 || !data)
        return 0;
    for (int32_t i = 0; i < n; i++) {
        uintptr_t heap = rd_ptr(data + (uintptr_t)i * sizeof(uintptr_t));
        if (!heap)
            continue;
        uintptr_t mlo = rd_ptr(heap + (uintptr_t)(lay.heap_memory + lay.vs_low));
        uintptr_t mhi = rd_ptr(heap + (uintptr_t)(lay.heap_memory + lay.vs_high));
        if (pc >= mlo && pc < mhi)
            return find_in_heap(heap, mlo, pc, b);
    }
    return 0;
}

/* What codecache_jmethod_sigsafe found for a Method*, kept for the next walk: the chain from
 * a Method* to its jmethodID (ConstMethod, ConstantPool, InstanceKlass, the jmethodID array)
 * is five dependent loads, cache misses a millisecond after the last sample. An entry holds
 * while the jmethodID still points at the Method* and the Method* at the same ConstMethod: a
 * Method* freed with its class and its memory reused by another fails one of them (a freed
 * jmethodID is cleared; a slot reused for a new Method* at the same address comes with a new
 * ConstMethod). A sequence lock per entry, taken with a compare-and-swap, never waited for. */
#define JMEMO_SLOTS 2048

struct jmemo {
    _Atomic uint32_t seq; /* odd while written, 0 never written */
    _Atomic uintptr_t method, id, cm;
};

static struct jmemo jmemo[JMEMO_SLOTS];

static struct jmemo *jmemo_slot(uintptr_t method)
{
    return &jmemo[((uint64_t)method * 0x9e3779b97f4a7c15u) >> (64 - 11)];
}

_Static_assert(JMEMO_SLOTS == 1 << 11, "jmemo_slot takes the hash's top 11 bits");

static jmethodID jmemo_find(uintptr_t method)
{
    struct jmemo *e = jmemo_slot(method);
    /* acquire: pairs with the release that ended the entry's last write */
    uint32_t s1 = atomic_load_explicit(&e->seq, memory_order_acquire);
    if (!s1 || (s1 & 1) || atomic_load_explicit(&e->method, memory_order_acquire) != method)
        return NULL;
    /* acquires: these loads happen before the second seq load */
    uintptr_t id = atomic_load_explicit(&e->id, memory_order_acquire);
    uintptr_t cm = atomic_load_explicit(&e->cm, memory_order_acquire);
    if (atomic_load_explicit(&e->seq, memory_order_relaxed) != s1)
        return NULL;
    if (rd_ptr(id) != method || rd_ptr(method + (uintptr_t)lay.method_const) != cm)
        return NULL;
    return (jmethodID)id;
}

static void jmemo_keep(uintptr_t method, uintptr_t id, uintptr_t cm)
{
    struct jmemo *e = jmemo_slot(method);
    uint32_t s = atomic_load_explicit(&e->seq, memory_order_relaxed);
    if ((s & 1) || !atomic_compare_exchange_strong_explicit(&e->seq, &s, s + 1,
                                                            memory_order_relaxed,
                                                            memory_order_relaxed))
        return;
    /* releases: a reader that sees one of these sees the odd seq before it */
    atomic_store_explicit(&e->method, method, memory_order_release);
    atomic_store_explicit(&e->id, id, memory_order_release);
    atomic_store_explicit(&e->cm, cm, memory_order_release);
    /* release: the fields are complete before a reader can see the even seq */
    atomic_store_explicit(&e->seq, s + 2, memory_order_release);
}

jmethodID codecache_jmethod_sigsafe(uintptr_t method)
{
    if (!atomic_load_explicit(&have_layout, memory_order_acquire) || !method ||
        lay.ik_jmethod_ids < 0 || (method & 7))
        return NULL;
    jmethodID known = jmemo_find(method);
    if (known)
        return known;
    uintptr_t cm = rd_ptr(method + (uintptr_t)lay.method_const);
    if (!cm || (cm & 7))
        return NULL;
    uint16_t idnum = *(const volatile uint16_t *)(cm + (uintptr_t)lay.cm_idnum);
    uintptr_t cp = rd_ptr(cm + (uintptr_t)lay.cm_constants);
    uintptr_t ik = cp && !(cp & 7) ? rd_ptr(cp + (uintptr_t)lay.cp_holder) : 0;
    uintptr_t ids = ik && !(ik & 7) ? rd_ptr(ik + (uintptr_t)lay.ik_jmethod_ids) : 0;
    if (!ids || (ids & 7) || rd_ptr(ids) <= idnum)
        return NULL;
    uintptr_t id = rd_ptr(ids + ((uintptr_t)idnum + 1) * sizeof(uintptr_t));
    if (!id || (id & 7) || rd_ptr(id) != method)
        return NULL;
    jmemo_keep(method, id, cm);
    return (jmethodID)id;
}

int codecache_thread_sigsafe(JNIEnv *env, struct codecache_thread *t)
{
    if (!atomic_load_explicit(&have_layout, memory_order_acquire) || !env)
        return 0;
    uintptr_t jt = (uintptr_t)env - (uintptr_t)lay.env_offset;
    t->jt = jt;
    uintptr_t base = rd_ptr(jt + (uintptr_t)lay.jt_stack_base);
    uintptr_t size = rd_ptr(jt + (uintptr_t)lay.jt_stack_size);
    if (!base || size == 0 || size > base || size > (uintptr_t)1 << 34)
        return 0;
    t->stack_hi = base;
    t->stack_lo = base - size;
    uintptr_t a = jt + (uintptr_t)lay.jt_anchor;
    t->last_sp = rd_ptr(a + (uintptr_t)lay.anchor_sp);
    t->last_pc = rd_ptr(a + (uintptr_t)lay.anchor_pc);
    t->last_fp = rd_ptr(a + (uintptr_t)lay.anchor_fp);
    t->state = rd_i32(jt + (uintptr_t)lay.jt_state);
    return 1;
}

/* The stub-name table, sorted by start. A sequence lock: the (one) writer makes seq odd,
 * changes entries, makes it even again; a reader that saw an odd or changed seq discards what
 * it read. Entries are atomics so that a racing read is merely stale, never undefined. */
#define STUBS_CAP 8192

struct stub {
    _Atomic uintptr_t start;
    _Atomic uintptr_t end;
    _Atomic(const char *) name;
    _Atomic(const char *) qualified;
};

static struct stub stubs[STUBS_CAP];
static _Atomic uint32_t nstubs;
static _Atomic uint32_t seq;

static void stub_copy(struct stub *to, struct stub *from)
{
    atomic_store_explicit(&to->start, atomic_load_explicit(&from->start, memory_order_relaxed),
                          memory_order_release);
    atomic_store_explicit(&to->end, atomic_load_explicit(&from->end, memory_order_relaxed),
                          memory_order_release);
    atomic_store_explicit(&to->name, atomic_load_explicit(&from->name, memory_order_relaxed),
                          memory_order_release);
    atomic_store_explicit(&to->qualified,
                          atomic_load_explicit(&from->qualified, memory_order_relaxed),
                          memory_order_release);
}

int codecache_add_stub(uintptr_t start, uintptr_t end, const char *name, const char *qualified)
{
    if (!name || !qualified || end <= start)
        return -EINVAL;
    uint32_t n = atomic_load_explicit(&nstubs, memory_order_relaxed);
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (atomic_load_explicit(&stubs[mid].start, memory_order_relaxed) < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    int replace = lo < n && atomic_load_explicit(&stubs[lo].start, memory_order_relaxed) == start;
    if (!replace && n == STUBS_CAP)
        return -ENOSPC;
    uint32_t s = atomic_load_explicit(&seq, memory_order_relaxed);
    atomic_store_explicit(&seq, s + 1, memory_order_relaxed);
    /* the entries' stores are releases: a reader that sees one sees the odd seq before it
     * (pairs with the readers' acquire loads of the entries before their second seq load) */
    if (!replace) {
        for (uint32_t i = n; i > lo; i--)
            stub_copy(&stubs[i], &stubs[i - 1]);
    }
    atomic_store_explicit(&stubs[lo].start, start, memory_order_release);
    atomic_store_explicit(&stubs[lo].end, end, memory_order_release);
    atomic_store_explicit(&stubs[lo].name, name, memory_order_release);
    atomic_store_explicit(&stubs[lo].qualified, qualified, memory_order_release);
    if (!replace)
        atomic_store_explicit(&nstubs, n + 1, memory_order_relaxed);
    /* release: the entries are complete before a reader can see the even seq */
    atomic_store_explicit(&seq, s + 2, memory_order_release);
    return 0;
}

const char *codecache_stub_name_sigsafe(uintptr_t pc, uintptr_t *start, const char **qualified)
{
    /* acquire: pairs with the writer's final release store */
    uint32_t s1 = atomic_load_explicit(&seq, memory_order_acquire);
    if (s1 & 1)
        return NULL;
    uint32_t n = atomic_load_explicit(&nstubs, memory_order_relaxed);
    if (n > STUBS_CAP)
        n = STUBS_CAP;
    uint32_t lo = 0, hi = n;
    while (lo < hi) { /* the first entry starting after pc */
        uint32_t mid = lo + (hi - lo) / 2;
        if (atomic_load_explicit(&stubs[mid].start, memory_order_acquire) <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    const char *name = NULL, *qname = NULL;
    uintptr_t st = 0;
    if (lo > 0 && pc < atomic_load_explicit(&stubs[lo - 1].end, memory_order_acquire)) {
        name = atomic_load_explicit(&stubs[lo - 1].name, memory_order_acquire);
        qname = atomic_load_explicit(&stubs[lo - 1].qualified, memory_order_acquire);
        st = atomic_load_explicit(&stubs[lo - 1].start, memory_order_acquire);
    }
    /* the entry loads above are acquires: they happen before the second seq load */
    if (atomic_load_explicit(&seq, memory_order_relaxed) != s1)
        return NULL;
    if (name && start)
        *start = st;
    if (name && qualified)
        *qualified = qname;
    return name;
}
