/* test_walkcache: framecache.c and codecache.c's jmethodID memo on fake HotSpot structures
 * (see walkcache.cmake). */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "codecache.h"
#include "framecache.h"
#include "harness.h"

/* A fake nmethod: compile id at 8, Method* at 16. */
struct fake_nm {
    uint64_t pad;
    int32_t compile_id;
    int32_t pad2;
    uintptr_t method;
};

/* The Method* -> jmethodID chain: Method (ConstMethod* at 8), ConstMethod (ConstantPool* at 8,
 * idnum u2 at 16), ConstantPool (InstanceKlass* at 8), InstanceKlass (jmethodID array at 8:
 * [0] its length, then one jmethodID per idnum), a jmethodID a word holding the Method*. */
struct fake_method {
    uint64_t vtbl;
    uintptr_t cm;
};
struct fake_cm {
    uint64_t pad;
    uintptr_t cp;
    uint16_t idnum;
};
struct fake_cp {
    uint64_t pad;
    uintptr_t ik;
};
struct fake_ik {
    uint64_t pad;
    uintptr_t ids;
};

static void set_layout(int with_compile_id)
{
    struct codecache_layout l;
    memset(&l, 0xff, sizeof(l)); /* every offset unknown (-1) */
    l.nm_compile_id = with_compile_id ? 8 : -1;
    l.nm_method = 16;
    l.method_const = 8;
    l.cm_constants = 8;
    l.cm_idnum = 16;
    l.cp_holder = 8;
    l.ik_jmethod_ids = 8;
    l.interp_lo = l.interp_hi = 0;
    codecache_set_layout(&l);
}

static void fill(struct sample_frame *f, int n, uintptr_t pc)
{
    for (int i = 0; i < n; i++) {
        f[i].method_id = (jmethodID)(pc * 16 + (uintptr_t)i * 8);
        f[i].lineno = SAMPLE_FRAME_PACK(i == n - 1 ? SAMPLE_FT_COMPILED : SAMPLE_FT_INLINED,
                                        (int)(pc % 1000) + i);
    }
}

static int same(const struct sample_frame *a, const struct sample_frame *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i].method_id != b[i].method_id || a[i].lineno != b[i].lineno)
            return 0;
    return 1;
}

static void test_frames(void)
{
    static struct fake_nm nm = {0, 7, 0, 0x5000};
    struct sample_frame in[FRAMECACHE_FRAMES], out[FRAMECACHE_FRAMES];
    int fs = 0;
    uintptr_t pc = 0x7f0000001234;
    set_layout(1);
    CHECK_EQ_U(framecache_lookup_sigsafe(pc, 0, out, 8, &fs), 0); /* empty */
    fill(in, 3, pc);
    framecache_store_sigsafe(pc, 0, (uintptr_t)&nm, 12, in, 3);
    CHECK_EQ_U(framecache_lookup_sigsafe(pc, 0, out, 8, &fs), 3);
    CHECK(same(in, out, 3));
    CHECK_EQ_U(fs, 12);
    /* the key is the pc and how it was reached: a signal's pc is not a return address */
    CHECK_EQ_U(framecache_lookup_sigsafe(pc, 1, out, 8, &fs), 0);
    CHECK_EQ_U(framecache_lookup_sigsafe(pc + 1, 0, out, 8, &fs), 0);
    /* room for two: the first two, as a decode cut at the stack's depth would give */
    memset(out, 0, sizeof(out));
    CHECK_EQ_U(framecache_lookup_sigsafe(pc, 0, out, 2, &fs), 2);
    CHECK(same(in, out, 2));
    CHECK(out[2].method_id == NULL);
    /* the nmethod freed and another compiled at the same address: a new compile id */
    nm.compile_id = 8;
    CHECK_EQ_U(framecache_lookup_sigsafe(pc, 0, out, 8, &fs), 0);
    nm.compile_id = 7;
    CHECK_EQ_U(framecache_lookup_sigsafe(pc, 0, out, 8, &fs), 3);
    nm.method = 0x6000; /* same id, another Method*: never taken for the old one */
    CHECK_EQ_U(framecache_lookup_sigsafe(pc, 0, out, 8, &fs), 0);
    nm.method = 0x5000;
    /* more frames than an entry holds, or none: not kept */
    struct sample_frame big[FRAMECACHE_FRAMES + 1];
    fill(big, FRAMECACHE_FRAMES + 1, pc + 64);
    framecache_store_sigsafe(pc + 64, 0, (uintptr_t)&nm, 4, big, FRAMECACHE_FRAMES + 1);
    CHECK_EQ_U(framecache_lookup_sigsafe(pc + 64, 0, out, 8, &fs), 0);
    framecache_store_sigsafe(pc + 64, 0, (uintptr_t)&nm, 4, big, FRAMECACHE_FRAMES);
    CHECK_EQ_U(framecache_lookup_sigsafe(pc + 64, 0, out, 8, &fs), FRAMECACHE_FRAMES);
    /* many pcs sharing the table's slots: a lookup gives a pc's own frames or nothing */
    int wrong = 0, hits = 0;
    for (uintptr_t k = 0; k < 4 * FRAMECACHE_SLOTS; k++) {
        uintptr_t p = 0x7f0000100000 + k * 37;
        fill(in, 1 + (int)(k % FRAMECACHE_FRAMES), p);
        framecache_store_sigsafe(p, (int)(k & 1), (uintptr_t)&nm, 4, in,
                                 1 + (int)(k % FRAMECACHE_FRAMES));
    }
    for (uintptr_t k = 0; k < 4 * FRAMECACHE_SLOTS; k++) {
        uintptr_t p = 0x7f0000100000 + k * 37;
        int n = framecache_lookup_sigsafe(p, (int)(k & 1), out, 8, &fs);
        fill(in, 1 + (int)(k % FRAMECACHE_FRAMES), p);
        if (n) {
            hits++;
            if (n != 1 + (int)(k % FRAMECACHE_FRAMES) || !same(in, out, n))
                wrong++;
        }
    }
    CHECK_EQ_U(wrong, 0);
    CHECK(hits > FRAMECACHE_SLOTS / 4);           /* the table is used... */
    CHECK(hits <= FRAMECACHE_SLOTS);              /* ...and bounded: one pc a slot */
    /* a JDK whose VMStructs has no compile id: nothing is cached */
    set_layout(0);
    fill(in, 2, pc + 128);
    framecache_store_sigsafe(pc + 128, 0, (uintptr_t)&nm, 4, in, 2);
    CHECK_EQ_U(framecache_lookup_sigsafe(pc + 128, 0, out, 8, &fs), 0);
}

static void test_jmemo(void)
{
    static struct fake_method m = {0, 0};
    static struct fake_cm cm = {0, 0, 2};
    static struct fake_cp cp = {0, 0};
    static struct fake_ik ik = {0, 0};
    static uintptr_t ids[4];
    static uintptr_t id; /* the jmethodID: a word holding the Method* */
    static struct fake_cm cm2 = {0, 0, 2};
    set_layout(1);
    m.cm = (uintptr_t)&cm;
    cm.cp = (uintptr_t)&cp;
    cm2.cp = (uintptr_t)&cp;
    cp.ik = (uintptr_t)&ik;
    ik.ids = (uintptr_t)ids;
    ids[0] = 3;
    ids[3] = (uintptr_t)&id; /* idnum 2 */
    id = (uintptr_t)&m;
    CHECK(codecache_jmethod_sigsafe((uintptr_t)&m) == (jmethodID)&id);
    /* memoized: found again with the chain broken above the ConstMethod... */
    cm.cp = 0;
    CHECK(codecache_jmethod_sigsafe((uintptr_t)&m) == (jmethodID)&id);
    /* ...but not once the jmethodID no longer points at the Method* (its class unloaded) */
    id = 0;
    CHECK(codecache_jmethod_sigsafe((uintptr_t)&m) == NULL);
    /* nor for a new Method* at the same address (another ConstMethod) whose id slot is gone */
    id = (uintptr_t)&m;
    cm.cp = (uintptr_t)&cp;
    CHECK(codecache_jmethod_sigsafe((uintptr_t)&m) == (jmethodID)&id);
    m.cm = (uintptr_t)&cm2;
    ids[3] = 0;
    CHECK(codecache_jmethod_sigsafe((uintptr_t)&m) == NULL);
    ids[3] = (uintptr_t)&id;
    CHECK(codecache_jmethod_sigsafe((uintptr_t)&m) == (jmethodID)&id);
}

/* Threads storing and looking up overlapping pcs at once: every hit is the pc's own frames. */
#define THREADS 4
#define ROUNDS 200000

static struct fake_nm shared_nm = {0, 42, 0, 0x7000};
static _Atomic int torn;

static void *hammer(void *arg)
{
    uintptr_t seed = (uintptr_t)arg * 2654435761u + 1;
    struct sample_frame in[FRAMECACHE_FRAMES], out[FRAMECACHE_FRAMES];
    int fs;
    for (int r = 0; r < ROUNDS; r++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        uintptr_t p = 0x7f0000200000 + ((seed >> 33) % 20000) * 16;
        int n = 1 + (int)((p >> 4) % FRAMECACHE_FRAMES);
        if (r & 1) {
            fill(in, n, p);
            framecache_store_sigsafe(p, 0, (uintptr_t)&shared_nm, (int)(p % 97), in, n);
        } else {
            int k = framecache_lookup_sigsafe(p, 0, out, FRAMECACHE_FRAMES, &fs);
            fill(in, n, p);
            if (k && (k != n || !same(in, out, k) || fs != (int)(p % 97)))
                torn++;
        }
    }
    return NULL;
}

static void test_threads(void)
{
    pthread_t t[THREADS];
    set_layout(1);
    for (uintptr_t i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, hammer, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ_U(torn, 0);
}

int main(void)
{
    test_frames();
    test_jmemo();
    test_threads();
    return harness_result("test_walkcache");
}
