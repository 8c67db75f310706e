/* threads.c: the Java thread registry. Takes the registry mutex; runs in JVMTI callbacks,
 * the engines' start/stop and the writer, never in a signal handler. */
#include "threads.h"

#include "tls.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define BUCKETS 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct threads_entry *table[BUCKETS];
static int live_count;
static uint64_t purge_gen; /* under lock: purges so far */

static struct threads_entry **slot_of(int tid)
{
    struct threads_entry **p = &table[(unsigned)tid % BUCKETS];
    while (*p && (*p)->tid != tid)
        p = &(*p)->next;
    return p;
}

/* Reads a thread's name through JVMTI into buf; "" on failure. */
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
    /* GetThreadInfo returns local refs; the writer is a long-running native frame, so
     * they must be freed here or they pile up */
    if (info.thread_group)
        (*jni)->DeleteLocalRef(jni, info.thread_group);
    if (info.context_class_loader)
        (*jni)->DeleteLocalRef(jni, info.context_class_loader);
}

void threads_on_start(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread,
                      void (*on_start)(struct threads_entry *))
{
    int tid = tls_tid_sigsafe();
    char name[THREADS_NAME_MAX];
    read_name(jvmti, jni, thread, name, sizeof(name));

    pthread_mutex_lock(&lock);
    struct threads_entry **p = slot_of(tid);
    struct threads_entry *e = *p;
    if (e && !e->alive) {
        /* tid reused by a new thread before the dead entry was purged: replace it */
        *p = e->next;
        if (e->gref)
            (*jni)->DeleteGlobalRef(jni, e->gref);
        free(e);
        e = NULL;
        p = slot_of(tid);
    }
    if (!e) {
        e = calloc(1, sizeof(*e));
        if (!e) {
            pthread_mutex_unlock(&lock);
            return;
        }
        e->tid = tid;
        e->perf_fd = -1;
        e->alive = 1;
        e->gref = (*jni)->NewGlobalRef(jni, thread);
        e->next = NULL;
        *p = e;
        live_count++;
    }
    memcpy(e->name, name, sizeof(name));
    e->is_agent = strncmp(name, "flyprof", 7) == 0;
    if (!e->is_agent) {
        /* publish the env only after setup: the handler on this thread reads it */
        tls_set_env(jni);
    }
    if (on_start && !e->is_agent)
        on_start(e);
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
    struct threads_entry *e = *slot_of(tid);
    if (e && e->alive) {
        if (name[0])
            memcpy(e->name, name, sizeof(name));
        if (on_end)
            on_end(e);
        e->alive = 0;
        e->dead_gen = purge_gen;
        live_count--;
    }
    pthread_mutex_unlock(&lock);
}

void threads_foreach_live(void (*fn)(struct threads_entry *, void *), void *arg)
{
    pthread_mutex_lock(&lock);
    for (int b = 0; b < BUCKETS; b++)
        for (struct threads_entry *e = table[b]; e; e = e->next)
            if (e->alive && !e->is_agent)
                fn(e, arg);
    pthread_mutex_unlock(&lock);
}

int threads_name(int tid, char *buf, size_t len)
{
    pthread_mutex_lock(&lock);
    struct threads_entry *e = *slot_of(tid);
    if (e) {
        strncpy(buf, e->name, len - 1);
        buf[len - 1] = 0;
    }
    pthread_mutex_unlock(&lock);
    return e != NULL;
}

int threads_refresh_name(jvmtiEnv *jvmti, JNIEnv *jni, int tid)
{
    jobject local = NULL;
    pthread_mutex_lock(&lock);
    struct threads_entry *e = *slot_of(tid);
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
    e = *slot_of(tid);
    if (e && e->alive && strcmp(e->name, name) != 0) {
        memcpy(e->name, name, sizeof(name));
        changed = 1;
    }
    pthread_mutex_unlock(&lock);
    return changed;
}

void threads_purge(JNIEnv *jni)
{
    pthread_mutex_lock(&lock);
    uint64_t gen = purge_gen++;
    for (int b = 0; b < BUCKETS; b++) {
        struct threads_entry **p = &table[b];
        while (*p) {
            struct threads_entry *e = *p;
            if (!e->alive && e->dead_gen + 1 < gen) {
                *p = e->next;
                if (e->gref && jni)
                    (*jni)->DeleteGlobalRef(jni, e->gref);
                free(e);
            } else {
                p = &e->next;
            }
        }
    }
    pthread_mutex_unlock(&lock);
}

int threads_count_live(void)
{
    pthread_mutex_lock(&lock);
    int n = live_count;
    pthread_mutex_unlock(&lock);
    return n;
}
