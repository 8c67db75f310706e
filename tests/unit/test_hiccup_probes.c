/* test_hiccup_probes: the hiccup probes' lifecycle across sessions (agent/engines/hiccup.c), with a
 * fake JVM: RunAgentThread starts a plain thread, and the Java probe's one JNI call per wakeup
 * (ExceptionCheck, a safepoint poll) can be made to block, as a long GC pause blocks it.
 *
 * - A stop that meets a Java probe blocked past its grace period (a safepoint longer than a
 *   second) returns anyway, leaving the probe behind;
 * - a start while that probe is still blocked is refused (-EBUSY): its state is the one the
 *   probe still writes;
 * - once the probe has ended, the next start succeeds, and so do later sessions. (Before
 *   hiccup.c re-checked the probes at start, every later start was refused for the life of
 *   the JVM.)
 * GC events and hsperfdata are stubbed: this is about the probe threads only.
 */
#include <errno.h>
#include <jvmti.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gcevents.h"
#include "harness.h"
#include "hiccup.h"
#include "perfdata.h"
#include "tsc.h"

#define RES_NS 1000000ull        /* 1 ms */
#define THRESHOLD_NS 10000000ull /* 10 ms */
#define BLOCK_MS 1500            /* past hiccup_stop's grace (a resolution + 1 s) */

static atomic_int block_next;   /* the Java probe's next ExceptionCheck blocks BLOCK_MS */
static atomic_int java_threads; /* Java probe threads running */

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static jboolean JNICALL exception_check(JNIEnv *env)
{
    (void)env;
    if (atomic_exchange(&block_next, 0))
        sleep_ms(BLOCK_MS);
    return JNI_FALSE;
}

static jclass JNICALL find_class(JNIEnv *env, const char *name)
{
    (void)env;
    (void)name;
    return (jclass)1;
}

static jmethodID JNICALL get_method_id(JNIEnv *env, jclass cls, const char *name,
                                       const char *sig)
{
    (void)env;
    (void)cls;
    (void)name;
    (void)sig;
    return (jmethodID)1;
}

static jstring JNICALL new_string_utf(JNIEnv *env, const char *s)
{
    (void)env;
    (void)s;
    return (jstring)1;
}

static jobject JNICALL new_object(JNIEnv *env, jclass cls, jmethodID ctor, ...)
{
    (void)env;
    (void)cls;
    (void)ctor;
    return (jobject)1;
}

static void JNICALL delete_local_ref(JNIEnv *env, jobject obj)
{
    (void)env;
    (void)obj;
}

static struct JNINativeInterface_ jni_fns;
static const struct JNINativeInterface_ *jni_env = &jni_fns;

struct agent_thread {
    jvmtiStartFunction fn;
    const void *arg;
};

static void *agent_thread_main(void *p)
{
    struct agent_thread *t = p;
    atomic_fetch_add(&java_threads, 1);
    t->fn(NULL, (JNIEnv *)&jni_env, (void *)t->arg);
    atomic_fetch_sub(&java_threads, 1);
    return NULL;
}

static struct agent_thread agent_threads[8];
static int nagent_threads;

static jvmtiError JNICALL run_agent_thread(jvmtiEnv *jvmti, jthread thread,
                                           jvmtiStartFunction fn, const void *arg, jint prio)
{
    (void)jvmti;
    (void)thread;
    (void)prio;
    if (nagent_threads == 8)
        return JVMTI_ERROR_OUT_OF_MEMORY;
    struct agent_thread *t = &agent_threads[nagent_threads++];
    t->fn = fn;
    t->arg = arg;
    pthread_t th;
    if (pthread_create(&th, NULL, agent_thread_main, t) != 0)
        return JVMTI_ERROR_OUT_OF_MEMORY;
    pthread_detach(th);
    return JVMTI_ERROR_NONE;
}

static struct jvmtiInterface_1_ jvmti_fns;
static const struct jvmtiInterface_1_ *jvmti_env = &jvmti_fns;

/* stubs: no hsperfdata, no GC events */
int perfdata_open(struct perfdata *p, const char *path)
{
    (void)p;
    (void)path;
    return -ENOENT;
}

uint64_t perfdata_ns(const struct perfdata *p, int64_t t)
{
    (void)p;
    return (uint64_t)t;
}

int gcevents_start(jvmtiEnv *jvmti, const struct perfdata *p)
{
    (void)jvmti;
    (void)p;
    return 0;
}

void gcevents_stop(jvmtiEnv *jvmti)
{
    (void)jvmti;
}

const struct gcevents_pause *gcevents_next(void)
{
    return NULL;
}

void gcevents_release(void)
{
}

uint64_t gcevents_dropped(void)
{
    return 0;
}

static int start(void)
{
    char err[256] = "";
    int rc = hiccup_start((jvmtiEnv *)&jvmti_env, (JNIEnv *)&jni_env, RES_NS, THRESHOLD_NS, err,
                          sizeof(err));
    if (rc && rc != -EBUSY)
        fprintf(stderr, "hiccup_start: %d %s\n", rc, err);
    return rc;
}

int main(void)
{
    jni_fns.ExceptionCheck = exception_check;
    jni_fns.FindClass = find_class;
    jni_fns.GetMethodID = get_method_id;
    jni_fns.NewStringUTF = new_string_utf;
    jni_fns.NewObject = new_object;
    jni_fns.DeleteLocalRef = delete_local_ref;
    jvmti_fns.RunAgentThread = run_agent_thread;
    tsc_init(20, 1);

    CHECK_EQ_U(start(), 0); /* session 1 */
    sleep_ms(50);
    atomic_store(&block_next, 1); /* a long safepoint from the probe's next wakeup on */
    sleep_ms(20);
    hiccup_stop(); /* gives up after its grace: the Java probe is still blocked */
    CHECK_EQ_U(atomic_load(&java_threads), 1);
    CHECK(start() == -EBUSY); /* its probe state is still in use */

    /* the probe ends when its safepoint does; then a session starts again */
    int rc = -EBUSY, tries = 0;
    while (rc == -EBUSY && tries++ < 100) {
        sleep_ms(50);
        rc = start();
    }
    if (rc == 0)
        printf("a start succeeded %d ms after the slow stop (the probe was blocked %d ms)\n",
               tries * 50, BLOCK_MS);
    else
        printf("no start succeeded in %d ms after the slow stop\n", tries * 50);
    CHECK_EQ_U(rc, 0); /* session 2 */
    sleep_ms(50);
    hiccup_stop();
    CHECK_EQ_U(start(), 0); /* session 3, after a normal stop */
    sleep_ms(50);
    hiccup_stop();
    for (int i = 0; i < 100 && atomic_load(&java_threads); i++)
        sleep_ms(10);
    CHECK_EQ_U(atomic_load(&java_threads), 0);
    return harness_result("test_hiccup_probes");
}
