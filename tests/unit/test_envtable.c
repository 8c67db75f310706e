/* test_envtable: agent/sigsafe/envtable.c, the tid -> JNIEnv table of threads adopted at attach.
 * Entries are found, replaced and removed by tid (with tombstones reused); and, once the
 * probe of HotSpot's thread-local is set up, a lookup hands out an entry's JNIEnv only on the
 * thread it belongs to: a thread that has another's tid (the kernel reused it after the
 * adopted thread ended) gets NULL, as does a thread HotSpot does not know or one that is not
 * a JavaThread. HotSpot is played by fake Thread objects under a pthread key. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "envtable.h"
#include "harness.h"

#define ENV_OFF 64

/* A fake JavaThread: its JNIEnv sits at ENV_OFF and points to the function table. */
struct fake_thread {
    char head[ENV_OFF];
    const void *functions;
    char tail[64];
};

static const char table[16];          /* plays the JNI function table */
static pthread_key_t key;

static JNIEnv *env_of(struct fake_thread *t)
{
    return (JNIEnv *)((char *)t + ENV_OFF);
}

struct probe_arg {
    struct fake_thread *self;   /* what HotSpot's key holds on the probing thread */
    int tid;
    JNIEnv *got;
    uint32_t slot1;
    JNIEnv *current;
};

static void *probe(void *p)
{
    struct probe_arg *a = p;
    pthread_setspecific(key, a->self);
    a->slot1 = 0;
    a->got = envtable_get_sigsafe(a->tid, &a->slot1);
    a->current = envtable_current_env_sigsafe();
    return NULL;
}

static void run_probe(struct probe_arg *a)
{
    pthread_t t;
    pthread_create(&t, NULL, probe, a);
    pthread_join(t, NULL);
}

static void test_table(void)
{
    JNIEnv *env;
    uint32_t slot1;
    /* many tids, some colliding in the hash, then removals and reinsertions */
    int bad = 0;
    for (int tid = 1; tid <= 5000; tid++)
        if (envtable_put(tid, (JNIEnv *)(uintptr_t)(tid * 16), (uint32_t)tid + 7) != 0)
            bad++;
    CHECK_EQ_U(bad, 0);
    for (int tid = 1; tid <= 5000; tid++)
        if (!envtable_find(tid, &env, &slot1) || env != (JNIEnv *)(uintptr_t)(tid * 16) ||
            slot1 != (uint32_t)tid + 7)
            bad++;
    CHECK_EQ_U(bad, 0);
    for (int tid = 1; tid <= 5000; tid += 2)
        envtable_remove(tid);
    for (int tid = 1; tid <= 5000; tid++)
        if (envtable_find(tid, &env, &slot1) != (tid % 2 == 0))
            bad++;
    CHECK_EQ_U(bad, 0);
    /* replacing keeps one entry per tid; removed tids come back */
    CHECK_EQ_U(envtable_put(2, (JNIEnv *)(uintptr_t)8, 99), 0);
    CHECK(envtable_find(2, &env, &slot1) && env == (JNIEnv *)(uintptr_t)8 && slot1 == 99);
    envtable_remove(2);
    CHECK(!envtable_find(2, &env, &slot1));
    CHECK_EQ_U(envtable_put(3, (JNIEnv *)(uintptr_t)48, 10), 0);
    CHECK(envtable_find(3, &env, &slot1) && slot1 == 10);
    CHECK(envtable_used_cells() <= 5000); /* 2500 live, tombstones only inside runs */
    for (int tid = 1; tid <= 5000; tid++)
        envtable_remove(tid);
    for (int tid = 1; tid <= 5000; tid++)
        if (envtable_find(tid, &env, &slot1))
            bad++;
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(envtable_used_cells(), 0); /* every tombstone cleared with its run */
    /* far more puts and removes than cells (attach after attach, threads ending) never fill
     * the table, nor leave tombstones for an absent tid's lookup to walk */
    unsigned most = 0;
    for (int round = 0; round < 20; round++) {
        for (int tid = 1; tid <= 10000; tid++)
            if (envtable_put(round * 10000 + tid, (JNIEnv *)(uintptr_t)16, 1) != 0)
                bad++;
        for (int tid = 1; tid <= 10000; tid += 2)
            envtable_remove(round * 10000 + tid);
        if (envtable_used_cells() > most)
            most = envtable_used_cells();
        for (int tid = 2; tid <= 10000; tid += 2)
            envtable_remove(round * 10000 + tid);
    }
    CHECK_EQ_U(bad, 0);
    CHECK(most <= 10000);
    CHECK_EQ_U(envtable_used_cells(), 0);
}

static void test_probe(void)
{
    static struct fake_thread a, b, gc;
    a.functions = table;
    b.functions = table;
    gc.functions = gc.tail; /* not the table */
    pthread_key_create(&key, NULL);

    /* without the probe an entry is taken on trust (an unknown JVM layout) */
    envtable_put(4242, env_of(&a), 5);
    struct probe_arg p = {&b, 4242, NULL, 0, NULL};
    run_probe(&p);
    CHECK(p.got == env_of(&a) && p.slot1 == 5);
    CHECK(p.current == NULL);

    envtable_set_probe(key, ENV_OFF, table);
    CHECK(envtable_probe_ready());
    /* the adopted thread itself */
    p = (struct probe_arg){&a, 4242, NULL, 0, NULL};
    run_probe(&p);
    CHECK(p.got == env_of(&a) && p.slot1 == 5);
    CHECK(p.current == env_of(&a));
    /* another Java thread that has its tid now: the dead thread's env is not handed out */
    p = (struct probe_arg){&b, 4242, NULL, 0, NULL};
    run_probe(&p);
    CHECK(p.got == NULL);
    CHECK(p.current == env_of(&b));
    /* a thread HotSpot does not know, and one of its non-Java threads */
    p = (struct probe_arg){NULL, 4242, NULL, 0, NULL};
    run_probe(&p);
    CHECK(p.got == NULL && p.current == NULL);
    p = (struct probe_arg){&gc, 4242, NULL, 0, NULL};
    run_probe(&p);
    CHECK(p.got == NULL && p.current == NULL);
    /* an absent tid */
    p = (struct probe_arg){&a, 4243, NULL, 0, NULL};
    run_probe(&p);
    CHECK(p.got == NULL);
    envtable_remove(4242);
}

int main(void)
{
    test_table();
    test_probe();
    return harness_result("test_envtable");
}
