/* natives.c: JNI natives of the Java API. They run on application threads, in JNI context. */
#include "natives.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "control.h"
#include "ctxlog.h"
#include "events.h"
#include "options.h"
#include "thread_filter.h"
#include "threads.h"
#include "tls.h"
#include "writer.h"

static jvmtiEnv *api_jvmti;

/* The current thread's slot + 1. A thread the registry has not seen (it ran before an attach)
 * is registered here, on the thread itself, which also gives its signal handler a JNIEnv. */
static uint32_t current_slot(JNIEnv *jni)
{
    uint32_t s = tls_slot();
    if (s || !api_jvmti)
        return s;
    jthread self = NULL;
    if ((*api_jvmti)->GetCurrentThread(api_jvmti, &self) != JVMTI_ERROR_NONE || !self)
        return 0;
    threads_on_start(api_jvmti, jni, self, control_thread_start);
    (*jni)->DeleteLocalRef(jni, self);
    return tls_slot();
}

static void JNICALL filter_add(JNIEnv *jni, jclass cls)
{
    (void)cls;
    uint32_t s = current_slot(jni);
    if (s)
        thread_filter_add(s - 1);
}

static void JNICALL filter_remove(JNIEnv *jni, jclass cls)
{
    (void)cls;
    uint32_t s = current_slot(jni);
    if (s)
        thread_filter_remove(s - 1);
}

static jboolean JNICALL filter_is_marked(JNIEnv *jni, jclass cls)
{
    (void)cls;
    uint32_t s = current_slot(jni);
    return s && thread_filter_has(s - 1) ? JNI_TRUE : JNI_FALSE;
}

static void JNICALL context_jni_set(JNIEnv *jni, jclass cls, jlong span, jlong root)
{
    (void)cls;
    uint32_t s = current_slot(jni);
    if (s)
        context_set(s - 1, (uint64_t)span, (uint64_t)root);
}

static void JNICALL context_jni_clear(JNIEnv *jni, jclass cls)
{
    (void)cls;
    uint32_t s = current_slot(jni);
    if (s)
        context_set(s - 1, 0, 0);
}

/* Context.endpoint: the name's first CTXLOG_NAME_CHARS UTF-16 units, as modified UTF-8 (at
 * most 3 bytes each, so nothing is cut inside a character). */
static void JNICALL context_jni_endpoint(JNIEnv *jni, jclass cls, jlong root, jstring name,
                                         jint len)
{
    (void)cls;
    char buf[3 * CTXLOG_NAME_CHARS + 1] = {0};
    if (!name)
        return;
    jint n = len < 0 ? 0 : len > CTXLOG_NAME_CHARS ? CTXLOG_NAME_CHARS : len;
    (*jni)->GetStringUTFRegion(jni, name, 0, n, buf);
    if ((*jni)->ExceptionCheck(jni)) {
        (*jni)->ExceptionClear(jni); /* the string changed length: nothing to name */
        return;
    }
    buf[sizeof(buf) - 1] = 0;
    ctxlog_endpoint((uint64_t)root, buf, strlen(buf), writer_wake);
}

static void throw_new(JNIEnv *jni, const char *cls, const char *msg)
{
    char full[600];
    snprintf(full, sizeof(full), "flyprof: %s", msg);
    jclass c = (*jni)->FindClass(jni, cls);
    if (c)
        (*jni)->ThrowNew(jni, c, full);
}

static void JNICALL api_start(JNIEnv *jni, jclass cls, jstring options)
{
    (void)cls;
    char err[512];
    const char *s = options ? (*jni)->GetStringUTFChars(jni, options, NULL) : NULL;
    struct options o;
    int rc = options_parse(s, &o, err, sizeof(err));
    if (s)
        (*jni)->ReleaseStringUTFChars(jni, options, s);
    if (rc != 0) {
        throw_new(jni, "java/lang/IllegalArgumentException", err);
        return;
    }
    if (o.action != OPTIONS_START) {
        throw_new(jni, "java/lang/IllegalArgumentException",
                  "Flyprof.start takes sampling options; use stop(), dump() or status() for "
                  "the other actions");
        return;
    }
    if (o.idle) {
        /* idle means "load, do not profile": in a start it would have started the default
         * profile, the opposite of what was asked */
        throw_new(jni, "java/lang/IllegalArgumentException",
                  "idle is a load option (-agentpath:...=idle): the agent is loaded already; "
                  "Flyprof.start starts profiling, with sampling options or none");
        return;
    }
    if (control_start(jni, &o, err, sizeof(err)) != 0)
        throw_new(jni, "java/lang/IllegalStateException", err);
}

static void JNICALL api_stop(JNIEnv *jni, jclass cls)
{
    (void)cls;
    char err[512];
    if (control_stop(err, sizeof(err)) != 0)
        throw_new(jni, "java/lang/IllegalStateException", err);
}

static void JNICALL api_dump(JNIEnv *jni, jclass cls, jstring file)
{
    (void)cls;
    char err[512];
    const char *s = file ? (*jni)->GetStringUTFChars(jni, file, NULL) : NULL;
    if (!s)
        return;
    int rc = control_dump(s, err, sizeof(err));
    (*jni)->ReleaseStringUTFChars(jni, file, s);
    if (rc != 0)
        throw_new(jni, "java/lang/IllegalStateException", err);
}

static jstring JNICALL api_status(JNIEnv *jni, jclass cls)
{
    (void)cls;
    char buf[1024];
    control_status(buf, sizeof(buf));
    return (*jni)->NewStringUTF(jni, buf);
}

static const JNINativeMethod filter_methods[] = {
    {"add0", "()V", (void *)filter_add},
    {"remove0", "()V", (void *)filter_remove},
    {"isMarked0", "()Z", (void *)filter_is_marked},
};

static const JNINativeMethod api_methods[] = {
    {"start0", "(Ljava/lang/String;)V", (void *)api_start},
    {"stop0", "()V", (void *)api_stop},
    {"dump0", "(Ljava/lang/String;)V", (void *)api_dump},
    {"status0", "()Ljava/lang/String;", (void *)api_status},
};

static const JNINativeMethod context_methods[] = {
    {"set0", "(JJ)V", (void *)context_jni_set},
    {"clear0", "()V", (void *)context_jni_clear},
    {"endpoint0", "(JLjava/lang/String;I)V", (void *)context_jni_endpoint},
};

static const JNINativeMethod events_methods[] = {
    {"log0", "(I)V", (void *)events_jni_log},
    {"log1", "(ILjava/lang/String;I)V", (void *)events_jni_log_str},
};

/* Registers the natives and sets the class's `bound` flag, which turns its calls on. */
static void bind(JNIEnv *jni, jclass klass, const JNINativeMethod *m, jint n)
{
    if ((*jni)->RegisterNatives(jni, klass, m, n) != 0) {
        (*jni)->ExceptionClear(jni);
        return;
    }
    jfieldID f = (*jni)->GetStaticFieldID(jni, klass, "bound", "Z");
    if (f)
        (*jni)->SetStaticBooleanField(jni, klass, f, JNI_TRUE);
    else
        (*jni)->ExceptionClear(jni);
}

static void bind_if_api(jvmtiEnv *jvmti, JNIEnv *jni, jclass klass)
{
    char *sig = NULL;
    if ((*jvmti)->GetClassSignature(jvmti, klass, &sig, NULL) != JVMTI_ERROR_NONE || !sig)
        return;
    if (strncmp(sig, "Ldev/flyprof/", 13) == 0) {
        if (strcmp(sig, "Ldev/flyprof/ThreadFilter;") == 0)
            bind(jni, klass, filter_methods, 3);
        else if (strcmp(sig, "Ldev/flyprof/Flyprof;") == 0)
            bind(jni, klass, api_methods, 4);
        else if (strcmp(sig, "Ldev/flyprof/Events;") == 0)
            bind(jni, klass, events_methods, 2);
        else if (strcmp(sig, "Ldev/flyprof/Context;") == 0)
            bind(jni, klass, context_methods, 3);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)sig);
}

void natives_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jclass klass)
{
    api_jvmti = jvmti;
    bind_if_api(jvmti, jni, klass);
}

void natives_bind_loaded(jvmtiEnv *jvmti, JNIEnv *jni)
{
    api_jvmti = jvmti;
    jint n = 0;
    jclass *classes = NULL;
    if ((*jvmti)->GetLoadedClasses(jvmti, &n, &classes) != JVMTI_ERROR_NONE)
        return;
    for (jint i = 0; i < n; i++) {
        bind_if_api(jvmti, jni, classes[i]);
        (*jni)->DeleteLocalRef(jni, classes[i]);
    }
    (*jvmti)->Deallocate(jvmti, (unsigned char *)classes);
}
