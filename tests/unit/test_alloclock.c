/* test_alloclock.c: the pure parts of allocation and lock profiling: the upscaling of an
 * allocation sample (alloc_weight, FORMAT.md section 10) and the class names of the leaf
 * frames (classnames.c: signature to Java name, interning, the bound), with a fake JVMTI. The
 * samples themselves are tested on real JVMs (tests/integration/test_alloc.py, test_lock.py).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "classnames.h"
#include "evsample.h"
#include "harness.h"
#include "threads.h"
#include "tsc.h"

/* alloc.c's callback is not run here: its collaborators are stubs */
int evsample_enter(void)
{
    return 0;
}
void evsample_leave(void)
{
}
int evsample_push(JNIEnv *jni, int kind, int state, uint64_t weight, const char *class_name,
                  uint64_t ticks, uint64_t size, uint64_t id)
{
    (void)jni, (void)kind, (void)state, (void)weight, (void)class_name, (void)ticks, (void)size;
    (void)id;
    return 0;
}
uint64_t tsc_read_sigsafe(void)
{
    return 0;
}
void *ring_reserve(struct ring *r, uint32_t len)
{
    (void)r, (void)len;
    return NULL;
}
void ring_commit(struct ring *r, void *payload)
{
    (void)r, (void)payload;
}
JNIEnv *threads_current_jni(void)
{
    return NULL;
}
int evsample_idle(void)
{
    return 1;
}

static void test_weight(void)
{
    const uint64_t R = 512 * 1024;
    /* small objects stand for about R + s/2 bytes; large ones for themselves */
    CHECK_EQ_U(alloc_weight(16, R), (uint64_t)llround(16.0 / -expm1(-16.0 / R)));
    CHECK(alloc_weight(16, R) >= R && alloc_weight(16, R) <= R + 16);
    CHECK(alloc_weight(1016, R) >= R + 500 && alloc_weight(1016, R) <= R + 520);
    CHECK_EQ_U(alloc_weight(100u << 20, R), 100u << 20);
    /* interval 0 samples every object: each stands for itself */
    CHECK_EQ_U(alloc_weight(1016, 0), 1016);
    CHECK_EQ_U(alloc_weight(0, R), 0);
    /* the estimate is unbiased: E[weight x sampled] = size, for any size */
    for (uint64_t s = 8; s < (64u << 20); s *= 3) {
        double p = -expm1(-(double)s / (double)R);
        double w = (double)alloc_weight(s, R);
        CHECK(fabs(w * p - (double)s) <= 1.0);
    }
    /* no overflow: a huge array at a tiny interval */
    CHECK_EQ_U(alloc_weight(UINT64_C(1) << 40, 1), UINT64_C(1) << 40);
}

static void check_name(const char *sig, const char *want)
{
    char out[CLASSNAMES_LEN];
    classnames_from_signature(sig, out, sizeof(out));
    if (strcmp(out, want) != 0)
        fprintf(stderr, "%s -> %s, want %s\n", sig, out, want);
    CHECK(strcmp(out, want) == 0);
}

static void test_names(void)
{
    check_name("[B", "byte[]");
    check_name("[[J", "long[][]");
    check_name("[Z", "boolean[]");
    check_name("Ljava/lang/String;", "java.lang.String");
    check_name("[Ljava/lang/Object;", "java.lang.Object[]");
    check_name("[[Ljava/util/Map$Entry;", "java.util.Map$Entry[][]");
    check_name("Ldev/flyprof/workload/LockContention$Monitor;",
               "dev.flyprof.workload.LockContention$Monitor");
    /* cut to fit, never past the buffer */
    char small[8];
    classnames_from_signature("Ljava/lang/String;", small, sizeof(small));
    CHECK(strcmp(small, "java.la") == 0);
    classnames_from_signature("[[[I", small, 6);
    CHECK(strlen(small) < 6);
}

/* A fake JVMTI whose GetClassSignature answers "Lc/N;" for the jclass (intptr_t) N, and fails
 * for 0. */
static jvmtiError JNICALL fake_signature(jvmtiEnv *env, jclass k, char **sig, char **gen)
{
    (void)env;
    if (gen)
        *gen = NULL;
    if (!k)
        return JVMTI_ERROR_INVALID_CLASS;
    *sig = malloc(32);
    snprintf(*sig, 32, "Lc/%ld;", (long)(intptr_t)k);
    return JVMTI_ERROR_NONE;
}

static jvmtiError JNICALL fake_deallocate(jvmtiEnv *env, unsigned char *p)
{
    (void)env;
    free(p);
    return JVMTI_ERROR_NONE;
}

static void test_intern(void)
{
    static struct jvmtiInterface_1_ fns;
    fns.GetClassSignature = fake_signature;
    fns.Deallocate = fake_deallocate;
    const struct jvmtiInterface_1_ *tbl = &fns;
    jvmtiEnv *env = (jvmtiEnv *)&tbl;

    const char *a = classnames_of(env, (jclass)(intptr_t)1);
    const char *b = classnames_of(env, (jclass)(intptr_t)1);
    const char *c = classnames_of(env, (jclass)(intptr_t)2);
    CHECK(strcmp(a, "c.1") == 0);
    CHECK(a == b); /* one copy: the writer keys stacks by the pointer */
    CHECK(a != c && strcmp(c, "c.2") == 0);
    CHECK(strcmp(classnames_of(env, NULL), CLASSNAMES_UNKNOWN) == 0);
    CHECK(classnames_intern_signature("[B") == classnames_intern_signature("[B"));
    /* bounded: past CLASSNAMES_MAX names every new one is CLASSNAMES_FULL, old ones stay */
    int full = 0;
    for (intptr_t k = 3; k < CLASSNAMES_MAX + 10; k++)
        full += strcmp(classnames_of(env, (jclass)k), CLASSNAMES_FULL) == 0;
    CHECK(full >= 7 && full <= 12);
    CHECK(classnames_of(env, (jclass)(intptr_t)1) == a);
}

int main(void)
{
    test_weight();
    test_names();
    test_intern();
    return harness_result("test_alloclock");
}
