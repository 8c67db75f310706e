/* threads.c: the Java thread registry (see threads.h for its synchronization). Mutators run
 * in JVMTI callbacks and control paths, readers in the sampler and writer threads; never in a
 * signal handler. */
#include "threads.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <urcu/urcu-memb.h>

#include "counters.h"
#include "cpuclock.h"
#include "envtable.h"
#include "saferead.h"
#include "stackbounds.h"
#include "testhook.h"
#include "context.h"
#include "thread_filter.h"
#include "tls.h"
#include "vmstructs.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* RCU-published entries: written with rcu_assign_pointer under lock, read with
 * rcu_dereference in read sections (liburcu's own atomics: nothing else touches slots[]) */
static struct threads_entry *slots[THREADS_MAX];
static _Atomic uint64_t live[THREADS_WORDS];
static _Atomic uint32_t slots_used;     /* high-water mark, only grows */
static uint32_t free_slots[THREADS_MAX]; /* under lock: slots returned by purge */
static uint32_t nfree;
static int live_count;                  /* under lock */
static int dead_count;                  /* under lock: dead entries not yet purged */
static uint64_t purge_gen;              /* under lock */
static int deferred;                    /* under lock: a writer purges (it names samples) */
/* Adoption at attach (threads_adopt_existing). While `adopting`, ThreadStart and ThreadEnd
 * of threads the registry does not know mark their tid in `skip`, so that a thread that ends
 * while the adoption runs is never adopted (its ThreadEnd is over: nothing would remove its
 * entry). All under lock; tids are below 2^22, the kernel's largest pid_max. */
static int adopting;
static uint64_t skip[(1u << 22) / 64];
static int adopted_live;                /* under lock: live entries with `adopted` set */
static jfieldID eetop_field;            /* Thread.eetop (the JavaThread*; 0 once it ended) */
static void (*adopted_on_end)(struct threads_entry *);
#define PURGE_BATCH 64

/* Reads a thread's name through JVMTI into buf; "" on failure. Frees the local refs
 * GetThreadInfo returns: the writer is a long-running native frame where they would pile up. */
static void read_name(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, char *buf, size_t len)
{
    jvmtiThreadInfo info;
    buf[0] = 0;
    if ((*jvmti)->GetThreadInfo(jvmti, thread, &info) != JVMTI_ERROR_NONE)
        return;
    if (info.name) {
        strncpy(buf, info.name, len - 1);
        buf[len - 1] = 0;
        (*jvmti)->Deallocate(jvmti, (unsigned char *)info.name);
    }
    if (info.thread_group)
        (*jni)->DeleteLocalRef(jni, info.thread_group);
    if (info.context_class_loader)
        (*jni)->DeleteLocalRef(jni, info.context_class_loader);
}

/* java.lang.Thread's id: its `tid` field (what getId() and threadId() return, on 17 and 25),
 * read directly so that no Java code runs in a JVMTI callback; 0 when the field is not
 * there. The field id is looked up once; a race between two first callers finds the same. */
static int64_t read_java_id(JNIEnv *jni, jthread thread)
{
    static _Atomic(jfieldID) tid_field;
    static atomic_int missing;
    jfieldID f = atomic_load_explicit(&tid_field, memory_order_acquire);
    if (!f && !atomic_load_explicit(&missing, memory_order_relaxed)) {
        jclass c = (*jni)->FindClass(jni, "java/lang/Thread");
        f = c ? (*jni)->GetFieldID(jni, c, "tid", "J") : NULL;
        if ((*jni)->ExceptionCheck(jni))
            (*jni)->ExceptionClear(jni);
        if (c)
            (*jni)->DeleteLocalRef(jni, c);
        if (f)
            atomic_store_explicit(&tid_field, f, memory_order_release);
        else
            atomic_store_explicit(&missing, 1, memory_order_relaxed);
    }
    return f ? (int64_t)(*jni)->GetLongField(jni, thread, f) : 0;
}

static void set_live(uint32_t slot, int on)
{
    uint64_t bit = 1ull << (slot % 64);
    /* release: the entry published before the bit is visible to a reader that sees it */
    if (on)
        atomic_fetch_or_explicit(&live[slot / 64], bit, memory_order_release);
    else
        atomic_fetch_and_explicit(&live[slot / 64], ~bit, memory_order_release);
}

/* Frees dead entries (all of them when force, else those dead for a full period), in
 * batches until none is left. Called with lock held; drops it around each grace period. */
static void purge_locked(JNIEnv *jni, int force)
{
    uint64_t gen = purge_gen++;
    for (;;) {
        struct threads_entry *victims[256];
        uint32_t nv = 0;
        uint32_t used = atomic_load_explicit(&slots_used, memory_order_relaxed);
        for (uint32_t s = 0; s < used && nv < 256; s++) {
            struct threads_entry *e = slots[s];
            if (e && !e->alive && (force || e->dead_gen + 1 < gen)) {
                rcu_assign_pointer(slots[s], NULL);
                victims[nv++] = e;
            }
        }
        if (!nv)
            return;
        pthread_mutex_unlock(&lock);
        /* after this no reader can still hold any of the victims */
        urcu_memb_synchronize_rcu();
        for (uint32_t i = 0; i < nv; i++)
            if (victims[i]->gref && jni)
                (*jni)->DeleteGlobalRef(jni, victims[i]->gref);
        pthread_mutex_lock(&lock);
        for (uint32_t i = 0; i < nv; i++) {
            free_slots[nfree++] = victims[i]->slot;
            free(victims[i]);
        }
        dead_count -= (int)nv;
    }
}

static void skip_set(int tid)
{
    if (tid > 0 && tid < (1 << 22))
        skip[tid / 64] |= 1ull << (tid % 64);
}

static int skip_has(int tid)
{
    return tid <= 0 || tid >= (1 << 22) || ((skip[tid / 64] >> (tid % 64)) & 1);
}

/* Marks a live entry dead: no longer sampled or a candidate, its engine state torn down by
 * on_end, its envtable entry (if adopted) removed. name: its final name, or NULL. Under
 * lock. */
static void mark_dead(struct threads_entry *e, const char *name,
                      void (*on_end)(struct threads_entry *))
{
    set_live(e->slot, 0);
    thread_filter_clear(e->slot);
    context_clear(e->slot);
    if (name && name[0])
        memcpy(e->name, name, THREADS_NAME_MAX);
    if (on_end)
        on_end(e);
    if (e->adopted) {
        JNIEnv *env;
        uint32_t s1;
        if (envtable_find(e->tid, &env, &s1) && s1 == e->slot + 1)
            envtable_remove(e->tid);
        e->adopted = 0;
        adopted_live--;
    }
    e->alive = 0;
    e->dead_gen = purge_gen;
    if (!e->is_agent)
        live_count--;
    dead_count++;
}

/* On thread tid itself (env its JNIEnv), in ThreadStart or ThreadEnd, when it has no TLS slot:
 * returns the slot + 1 of its adopted entry, taking it out of the envtable, or 0. An envtable
 * entry of tid that is not this thread's (its env differs) is an adopted thread that ended
 * unseen and whose tid this thread now has: that entry is retired. Under lock. */
static uint32_t claim_adopted(int tid, JNIEnv *env)
{
    JNIEnv *aenv;
    uint32_t aslot1;
    if (!envtable_find(tid, &aenv, &aslot1))
        return 0;
    struct threads_entry *a = aslot1 && aslot1 <= THREADS_MAX ? slots[aslot1 - 1] : NULL;
    if (aenv != env) {
        if (a && a->alive && a->tid == tid && a->adopted)
            mark_dead(a, NULL, adopted_on_end);
        else
            envtable_remove(tid);
        return 0;
    }
    envtable_remove(tid);
    if (a && a->adopted) {
        a->adopted = 0; /* from now on its own TLS says who it is */
        adopted_live--;
    }
    return aslot1;
}

/* A free slot, or UINT32_MAX when all THREADS_MAX are taken. Under lock. */
static uint32_t take_slot(JNIEnv *jni)
{
    if (nfree == 0 && atomic_load_explicit(&slots_used, memory_order_relaxed) == THREADS_MAX &&
        dead_count > 0)
        purge_locked(jni, 1);
    if (nfree > 0)
        return free_slots[--nfree];
    uint32_t used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    if (used == THREADS_MAX)
        return UINT32_MAX;
    atomic_store_explicit(&slots_used, used + 1, memory_order_release);
    return used;
}

void threads_on_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                      void (*on_start)(struct threads_entry *))
{
    char name[THREADS_NAME_MAX];
    read_name(jvmti, jni, thread, name, sizeof(name));
    int64_t java_id = read_java_id(jni, thread);
    int tid = tls_tid_sigsafe();

    pthread_mutex_lock(&lock);
    uint32_t slot1 = tls_slot();
    if (!slot1 && (slot1 = claim_adopted(tid, jni)) != 0)
        tls_set_slot(slot1); /* adopted at attach and now reported by ThreadStart */
    if (adopting)
        skip_set(tid); /* registered here: the adoption must not add it again */
    struct threads_entry *e = slot1 ? slots[slot1 - 1] : NULL;
    if (e && (e->tid != tid || !e->alive))
        e = NULL; /* a stale TLS slot (the main thread after its ThreadEnd) */
    if (!e) {
        uint32_t slot = take_slot(jni);
        e = slot == UINT32_MAX ? NULL : calloc(1, sizeof(*e));
        if (!e) {
            if (slot != UINT32_MAX)
                free_slots[nfree++] = slot;
            pthread_mutex_unlock(&lock);
            return; /* not sampled: counted by no-env samples if its signals come */
        }
        e->tid = tid;
        e->slot = slot;
        e->alive = 1;
        e->gref = (*jni)->NewGlobalRef(jni, thread);
        memcpy(e->name, name, sizeof(name));
        e->java_id = java_id;
        e->is_agent = strncmp(name, "flyprof", 7) == 0;
        rcu_assign_pointer(slots[slot], e);
        if (!e->is_agent)
            live_count++;
        thread_filter_clear(slot); /* a reused slot must not inherit a membership */
        context_clear(slot);       /* nor a trace context */
        tls_set_slot(slot + 1);
    } else {
        memcpy(e->name, name, sizeof(name));
        e->java_id = java_id;
    }
    if (!e->is_agent) {
        const char *hang = getenv("FLYPROF_TEST_HANG_THREAD"); /* testhook.h */
        testhook_arm(hang && hang[0] && strcmp(name, hang) == 0);
        stackbounds_init_current();
        /* publish the env only after setup: the handler on this thread reads it */
        tls_set_env(jni);
        set_live(e->slot, 1);
        if (on_start)
            on_start(e);
    }
    pthread_mutex_unlock(&lock);
}

/* The counter that carries the CPU time of agent thread `name` (flyprof's own threads are
 * named "flyprof ..."), or -1 for the writer, which reports its own. */
static int agent_cpu_counter(const char *name)
{
    if (strcmp(name, "flyprof writer") == 0)
        return -1;
    if (strcmp(name, "flyprof wall sampler") == 0)
        return FPL_CTR_SAMPLER_CPU_NS;
    return FPL_CTR_AGENT_OTHER_CPU_NS;
}


void threads_agent_cpu(uint64_t *sampler_ns, uint64_t *other_ns)
{
    *sampler_ns = *other_ns = 0;
    pthread_mutex_lock(&lock);
    uint32_t used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    for (uint32_t s = 0; s < used; s++) {
        struct threads_entry *e = slots[s];
        if (!e || !e->alive || !e->is_agent)
            continue;
        int id = agent_cpu_counter(e->name);
        if (id == FPL_CTR_SAMPLER_CPU_NS)
            *sampler_ns += cpuclock_ns(e->tid);
        else if (id == FPL_CTR_AGENT_OTHER_CPU_NS)
            *other_ns += cpuclock_ns(e->tid);
    }
    pthread_mutex_unlock(&lock);
}

void threads_on_end(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                    void (*on_end)(struct threads_entry *))
{
    /* from here on a signal on this thread records a no-env sample instead of walking */
    tls_set_env(NULL);
    char name[THREADS_NAME_MAX];
    read_name(jvmti, jni, thread, name, sizeof(name));
    int tid = tls_tid_sigsafe();

    pthread_mutex_lock(&lock);
    uint32_t slot1 = tls_slot();
    if (!slot1)
        slot1 = claim_adopted(tid, jni); /* a thread adopted at attach */
    if (!slot1 && adopting)
        skip_set(tid); /* ending while the attach adopts: it must not be adopted */
    struct threads_entry *e = slot1 ? slots[slot1 - 1] : NULL;
    if (e && e->alive && e->tid == tid) {
        int ctr = e->is_agent ? agent_cpu_counter(e->name) : -1;
        if (ctr >= 0) {
            /* an agent thread's CPU is counted while it lives (threads_agent_cpu) and, once
             * it has ended, from here: its final figure, on itself */
            struct timespec ts;
            if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
                counters_add_sigsafe((unsigned)ctr, (uint64_t)ts.tv_sec * 1000000000ull +
                                                        (uint64_t)ts.tv_nsec);
        }
        mark_dead(e, name, on_end);
    }
    /* while no writer names samples (profiling stopped), nothing needs the dead entries:
     * free them in batches here, so their Thread objects do not stay reachable */
    if (!deferred && dead_count >= PURGE_BATCH)
        purge_locked(jni, 1);
    pthread_mutex_unlock(&lock);
}

void threads_set_deferred_purge(JNIEnv *jni, int on)
{
    pthread_mutex_lock(&lock);
    deferred = on;
    if (!on && dead_count > 0)
        purge_locked(jni, 1);
    pthread_mutex_unlock(&lock);
}

void threads_foreach_live(void (*fn)(struct threads_entry *, void *), void *arg)
{
    pthread_mutex_lock(&lock);
    uint32_t used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    for (uint32_t s = 0; s < used; s++) {
        struct threads_entry *e = slots[s];
        if (e && e->alive && !e->is_agent)
            fn(e, arg);
    }
    pthread_mutex_unlock(&lock);
}

void threads_reader_register(void)
{
    urcu_memb_register_thread();
}

void threads_reader_unregister(void)
{
    urcu_memb_unregister_thread();
}

void threads_read_lock(void)
{
    urcu_memb_read_lock();
}

void threads_read_unlock(void)
{
    urcu_memb_read_unlock();
}

struct threads_entry *threads_at(uint32_t slot)
{
    if (slot >= THREADS_MAX)
        return NULL;
    return rcu_dereference(slots[slot]);
}

uint64_t threads_live_word(uint32_t w)
{
    /* acquire: pairs with set_live's release, so the entry behind a set bit is published */
    return w < THREADS_WORDS ? atomic_load_explicit(&live[w], memory_order_acquire) : 0;
}

uint32_t threads_words_used(void)
{
    return (atomic_load_explicit(&slots_used, memory_order_acquire) + 63) / 64;
}

/* The entry of slot1 if it still belongs to tid. Under lock. */
static struct threads_entry *owned(uint32_t slot1, int tid)
{
    if (slot1 == 0 || slot1 > THREADS_MAX)
        return NULL;
    struct threads_entry *e = slots[slot1 - 1];
    return e && e->tid == tid ? e : NULL;
}

int threads_name(uint32_t slot1, int tid, char *buf, size_t len)
{
    pthread_mutex_lock(&lock);
    struct threads_entry *e = owned(slot1, tid);
    if (e) {
        strncpy(buf, e->name, len - 1);
        buf[len - 1] = 0;
    }
    pthread_mutex_unlock(&lock);
    return e != NULL;
}

int64_t threads_java_id(uint32_t slot1, int tid)
{
    pthread_mutex_lock(&lock);
    struct threads_entry *e = owned(slot1, tid);
    int64_t id = e ? e->java_id : 0;
    pthread_mutex_unlock(&lock);
    return id;
}

int threads_refresh_name(jvmtiEnv *jvmti, JNIEnv *jni, uint32_t slot1, int tid)
{
    jobject local = NULL;
    pthread_mutex_lock(&lock);
    struct threads_entry *e = owned(slot1, tid);
    if (e && e->alive && e->gref)
        local = (*jni)->NewLocalRef(jni, e->gref); /* keeps the object past a purge */
    pthread_mutex_unlock(&lock);
    if (!local)
        return 0;
    char name[THREADS_NAME_MAX];
    read_name(jvmti, jni, local, name, sizeof(name));
    (*jni)->DeleteLocalRef(jni, local);
    if (!name[0])
        return 0;
    int changed = 0;
    pthread_mutex_lock(&lock);
    e = owned(slot1, tid);
    if (e && e->alive && strcmp(e->name, name) != 0) {
        memcpy(e->name, name, sizeof(name));
        changed = 1;
    }
    pthread_mutex_unlock(&lock);
    return changed;
}

/* Retires adopted entries whose thread has ended although no ThreadEnd came (it was past
 * posting it when the events were enabled): HotSpot clears Thread.eetop when a thread ends.
 * Under lock. */
static void retire_ended_adopted(JNIEnv *jni)
{
    if (!adopted_live || !eetop_field || !jni)
        return;
    uint32_t used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    for (uint32_t s = 0; s < used && adopted_live; s++) {
        struct threads_entry *e = slots[s];
        if (e && e->alive && e->adopted && e->gref &&
            (*jni)->GetLongField(jni, e->gref, eetop_field) == 0)
            mark_dead(e, NULL, adopted_on_end);
    }
}

void threads_purge(JNIEnv *jni)
{
    pthread_mutex_lock(&lock);
    retire_ended_adopted(jni);
    purge_locked(jni, 0);
    pthread_mutex_unlock(&lock);
}

int threads_count_live(void)
{
    pthread_mutex_lock(&lock);
    int n = live_count;
    pthread_mutex_unlock(&lock);
    return n;
}

/* Registers a thread that is running but was never reported by ThreadStart (it started before
 * the attach): from another thread, so its JNIEnv goes into the envtable instead of TLS.
 * jt is its JavaThread* as read from Thread.eetop, tid its kernel tid. Returns 1 when
 * adopted, 0 when not (it ended meanwhile, or registered itself, or no room). */
static int adopt(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, intptr_t jt, int tid,
                 JNIEnv *env, void (*on_start)(struct threads_entry *))
{
    char name[THREADS_NAME_MAX];
    read_name(jvmti, jni, thread, name, sizeof(name));
    int64_t java_id = read_java_id(jni, thread);
    pthread_mutex_lock(&lock);
    /* Exact, because ThreadStart and ThreadEnd take this lock too: a thread whose ThreadEnd
     * (or ThreadStart) ran since the list was taken has its tid in skip; one that ended
     * otherwise has its eetop cleared. A thread past both checks either ends later, and its
     * ThreadEnd removes the entry, or ended with no ThreadEnd at all, and the writer's purge
     * retires it (retire_ended_adopted). */
    if (skip_has(tid) || (intptr_t)(*jni)->GetLongField(jni, thread, eetop_field) != jt) {
        pthread_mutex_unlock(&lock);
        return 0;
    }
    uint32_t slot = take_slot(jni);
    struct threads_entry *e = slot == UINT32_MAX ? NULL : calloc(1, sizeof(*e));
    if (!e || envtable_put(tid, env, slot + 1) != 0) {
        if (slot != UINT32_MAX)
            free_slots[nfree++] = slot;
        free(e);
        pthread_mutex_unlock(&lock);
        return 0;
    }
    skip_set(tid);
    e->tid = tid;
    e->slot = slot;
    e->alive = 1;
    e->adopted = 1;
    adopted_live++;
    e->gref = (*jni)->NewGlobalRef(jni, thread);
    memcpy(e->name, name, sizeof(name));
    e->java_id = java_id;
    e->is_agent = strncmp(name, "flyprof", 7) == 0;
    rcu_assign_pointer(slots[slot], e);
    if (!e->is_agent)
        live_count++;
    thread_filter_clear(slot);
    context_clear(slot);
    if (!e->is_agent) {
        set_live(slot, 1);
        if (on_start)
            on_start(e);
    }
    pthread_mutex_unlock(&lock);
    return 1;
}

/* The kernel tid of the thread whose JavaThread is at jt (JavaThread::_osthread ->
 * OSThread::_thread_id), or 0 when it cannot be read. Through saferead: the thread may have
 * ended since its Thread.eetop was read, and its JavaThread and OSThread been freed, their
 * memory perhaps unmapped; a plain load would fault on the Attach Listener, with no crash guard
 * installed yet. Such a thread is not adopted, as one seen ending. */
static int read_tid(intptr_t jt, int64_t os_off, int64_t tid_off)
{
    uintptr_t os = 0;
    int tid = 0;
    if (saferead(&os, (uintptr_t)jt + (uintptr_t)os_off, sizeof(os)) != 0 || !os ||
        saferead(&tid, os + (uintptr_t)tid_off, sizeof(tid)) != 0)
        return 0;
    return tid;
}

/* The pthread key under which HotSpot keeps each thread's Thread* (ThreadLocalStorage, what
 * its own signal handlers read), found as the key whose value on this thread is its own
 * JavaThread* jt. Returns 0, or -ENOENT. */
static int find_hotspot_key(intptr_t jt, pthread_key_t *key)
{
    for (unsigned k = 0; k < PTHREAD_KEYS_MAX; k++) {
        if ((intptr_t)pthread_getspecific((pthread_key_t)k) == jt) {
            *key = (pthread_key_t)k;
            return 0;
        }
    }
    return -ENOENT;
}

int threads_env_offset(jvmtiEnv *jvmti, JNIEnv *jni, intptr_t *off)
{
    jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
    jfieldID eetop = tc ? (*jni)->GetFieldID(jni, tc, "eetop", "J") : NULL;
    jthread self = NULL;
    if (!eetop || (*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE || !self) {
        (*jni)->ExceptionClear(jni);
        return -ENOTSUP;
    }
    intptr_t jt = (intptr_t)(*jni)->GetLongField(jni, self, eetop);
    (*jni)->DeleteLocalRef(jni, self);
    (*jni)->DeleteLocalRef(jni, tc);
    *off = (intptr_t)jni - jt;
    return jt && *off > 0 && *off <= 4096 ? 0 : -ENOTSUP;
}

int threads_adopt_existing(jvmtiEnv *jvmti, JNIEnv *jni,
                           void (*on_start)(struct threads_entry *),
                           void (*on_end)(struct threads_entry *), char *err, size_t errlen)
{
    /* Thread.eetop is the JavaThread*; its JNIEnv lives at a fixed offset inside it, which
     * the calling thread's own pair (eetop, jni) reveals. The OS tid comes from VMStructs:
     * JavaThread::_osthread -> OSThread::_thread_id. */
    int64_t os_off = vmstructs_offset("JavaThread", "_osthread");
    if (os_off < 0)
        os_off = vmstructs_offset("Thread", "_osthread");
    int64_t tid_off = vmstructs_offset("OSThread", "_thread_id");
    intptr_t env_off = 0;
    jclass tc = (*jni)->FindClass(jni, "java/lang/Thread");
    jfieldID eetop = tc ? (*jni)->GetFieldID(jni, tc, "eetop", "J") : NULL;
    jthread self = NULL;
    if (!eetop || os_off < 0 || tid_off < 0 ||
        (*jvmti)->GetCurrentThread(jvmti, &self) != JVMTI_ERROR_NONE) {
        (*jni)->ExceptionClear(jni);
        snprintf(err, errlen, "cannot find the JVM's thread structures (Thread.eetop, "
                              "VMStructs): threads started before the attach are not sampled");
        return -ENOTSUP;
    }
    if (threads_env_offset(jvmti, jni, &env_off) != 0) {
        snprintf(err, errlen, "unexpected JavaThread layout: threads started before the "
                              "attach are not sampled");
        return -ENOTSUP;
    }
    /* handlers check each entry against HotSpot's own idea of their thread */
    pthread_key_t key;
    if (find_hotspot_key((intptr_t)jni - env_off, &key) == 0)
        envtable_set_probe(key, env_off, (const void *)*jni);
    /* FLYPROF_TEST_ADOPT_DELAY_US: a test widens the window between reading the threads and
     * adopting them, where threads end */
    const char *delay = getenv("FLYPROF_TEST_ADOPT_DELAY_US");
    long delay_us = delay ? atol(delay) : 0;
    /* FLYPROF_TEST_ADOPT_UNMAPPED=NAME: a test has the JavaThread of the thread named NAME read
     * at an address where nothing is mapped (a page mapped and unmapped for the purpose), as
     * the JavaThread of a thread that ended after its eetop was read is once it is freed and
     * its memory given back */
    const char *unmapped_name = getenv("FLYPROF_TEST_ADOPT_UNMAPPED");
    intptr_t unmapped = 0;
    if (unmapped_name && unmapped_name[0]) {
        void *page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page != MAP_FAILED) {
            munmap(page, 4096);
            unmapped = (intptr_t)page;
        }
    }

    pthread_mutex_lock(&lock);
    eetop_field = eetop;
    adopted_on_end = on_end;
    /* the tids registered already; from now on ThreadStart and ThreadEnd add theirs */
    memset(skip, 0, sizeof(skip));
    uint32_t used = atomic_load_explicit(&slots_used, memory_order_relaxed);
    for (uint32_t s = 0; s < used; s++)
        if (slots[s] && slots[s]->alive)
            skip_set(slots[s]->tid);
    adopting = 1;
    pthread_mutex_unlock(&lock);

    jint n = 0;
    jthread *all = NULL;
    int adopted = 0;
    if ((*jvmti)->GetAllThreads(jvmti, &n, &all) != JVMTI_ERROR_NONE)
        n = 0;
    /* first each thread's JavaThread* and tid, then the adoptions (names, entries), which
     * take longer: threads end in between, and adopt() sees it */
    intptr_t *jts = n ? calloc((size_t)n, sizeof(*jts)) : NULL;
    int *tids = n ? calloc((size_t)n, sizeof(*tids)) : NULL;
    for (jint i = 0; i < n && jts && tids; i++) {
        intptr_t jt = (intptr_t)(*jni)->GetLongField(jni, all[i], eetop);
        if (jt && !(*jni)->IsSameObject(jni, all[i], self)) {
            intptr_t at = jt;
            if (unmapped) {
                char name[THREADS_NAME_MAX];
                read_name(jvmti, jni, all[i], name, sizeof(name));
                if (!strcmp(name, unmapped_name))
                    at = unmapped;
            }
            jts[i] = jt;
            tids[i] = read_tid(at, os_off, tid_off);
        }
    }
    if (delay_us > 0)
        usleep((useconds_t)delay_us);
    for (jint i = 0; i < n; i++) {
        if (jts && tids && jts[i] && tids[i] > 0)
            adopted += adopt(jvmti, jni, all[i], jts[i], tids[i],
                             (JNIEnv *)(jts[i] + env_off), on_start);
        (*jni)->DeleteLocalRef(jni, all[i]);
    }
    free(jts);
    free(tids);
    if (all)
        (*jvmti)->Deallocate(jvmti, (unsigned char *)all);
    (*jni)->DeleteLocalRef(jni, self);
    pthread_mutex_lock(&lock);
    adopting = 0;
    pthread_mutex_unlock(&lock);
    return adopted;
}

JNIEnv *threads_current_jni(void)
{
    typedef jint(JNICALL * get_vms_fn)(JavaVM **, jsize, jsize *);
    get_vms_fn get_vms = (get_vms_fn)dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs");
    JavaVM *vm = NULL;
    jsize n = 0;
    JNIEnv *jni = NULL;
    if (!get_vms || get_vms(&vm, 1, &n) != JNI_OK || n < 1 || !vm ||
        (*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK)
        return NULL;
    return jni;
}
