/* agent.c: the JVMTI entry points: Agent_OnLoad (-agentpath), Agent_OnAttach (dynamic
 * attach), capabilities and event callbacks. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jvmti.h>

#include "control.h"
#include "methods.h"
#include "natives.h"
#include "options.h"
#include "threads.h"

#define EXPORT __attribute__((visibility("default")))

static jvmtiEnv *jvmti;
static struct options pending;      /* -agentpath options, started at VMInit */
static int start_at_init;

/* The agent's one place to tell the user something: stderr of the JVM, prefixed. */
static void say(const char *msg)
{
    fprintf(stderr, "flyprof: %s\n", msg);
    fflush(stderr);
}

static void JNICALL on_vm_init(jvmtiEnv *env, JNIEnv *jni, jthread thread)
{
    (void)thread;
    /* classes loaded before now have no jmethodIDs: AGCT cannot name their frames */
    methods_preload(env, jni);
    if (start_at_init) {
        char err[512];
        if (control_start(jni, &pending, err, sizeof(err)) != 0)
            say(err);
    }
}

static void JNICALL on_vm_death(jvmtiEnv *env, JNIEnv *jni)
{
    (void)env;
    (void)jni;
    char err[256];
    if (control_running())
        control_stop(err, sizeof(err));
}

static void JNICALL on_thread_start(jvmtiEnv *env, JNIEnv *jni, jthread thread)
{
    threads_on_start(env, jni, thread, control_thread_start);
}

static void JNICALL on_thread_end(jvmtiEnv *env, JNIEnv *jni, jthread thread)
{
    threads_on_end(env, jni, thread, control_thread_end);
}

static void JNICALL on_class_load(jvmtiEnv *env, JNIEnv *jni, jthread thread, jclass klass)
{
    (void)env;
    (void)jni;
    (void)thread;
    (void)klass;
}

static void JNICALL on_class_prepare(jvmtiEnv *env, JNIEnv *jni, jthread thread, jclass klass)
{
    (void)thread;
    methods_on_class_prepare(env, jni, klass);
    natives_on_class_prepare(env, jni, klass);
}

/* Enabling this event is what matters: HotSpot then records debug information at
 * non-safepoints, so AGCT attributes inlined frames correctly (FACTS.md). */
static void JNICALL on_compiled_method_load(jvmtiEnv *env, jmethodID method, jint code_size,
                                            const void *code_addr, jint map_length,
                                            const jvmtiAddrLocationMap *map,
                                            const void *compile_info)
{
    (void)env;
    (void)method;
    (void)code_size;
    (void)code_addr;
    (void)map_length;
    (void)map;
    (void)compile_info;
}

/* Gets the JVMTI environment, capabilities and callbacks. Returns 0 or -EINVAL. */
static int setup_jvmti(JavaVM *vm, int live)
{
    if (jvmti)
        return 0;
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        say("cannot get a JVMTI environment (JVMTI 1.2 required)");
        return -EINVAL;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_compiled_method_load_events = 1;
    caps.can_get_source_file_name = 1;
    caps.can_get_line_numbers = 1;
    if ((*jvmti)->AddCapabilities(jvmti, &caps) != JVMTI_ERROR_NONE) {
        say("the JVM refused the JVMTI capabilities flyprof needs");
        return -EINVAL;
    }
    jvmtiEventCallbacks cb;
    memset(&cb, 0, sizeof(cb));
    cb.VMInit = on_vm_init;
    cb.VMDeath = on_vm_death;
    cb.ThreadStart = on_thread_start;
    cb.ThreadEnd = on_thread_end;
    cb.ClassLoad = on_class_load;
    cb.ClassPrepare = on_class_prepare;
    cb.CompiledMethodLoad = on_compiled_method_load;
    (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof(cb));
    jvmtiEvent events[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH,
                           JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END,
                           JVMTI_EVENT_CLASS_LOAD, JVMTI_EVENT_CLASS_PREPARE,
                           JVMTI_EVENT_COMPILED_METHOD_LOAD};
    for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL);
    control_init(jvmti);
    (void)live;
    return 0;
}

EXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    char err[512];
    if (options_parse(options, &pending, err, sizeof(err)) != 0) {
        say(err);
        return JNI_ERR;
    }
    if (pending.action != OPTIONS_START) {
        say("with -agentpath the only action is start; stop, dump and status act on a running "
            "JVM (flyprof stop|dump|status PID)");
        return JNI_ERR;
    }
    if (setup_jvmti(vm, 0) != 0)
        return JNI_ERR;
    if (control_prepare(&pending, err, sizeof(err)) != 0) {
        say(err);
        return JNI_ERR;
    }
    start_at_init = 1;
    return JNI_OK;
}

EXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    char err[512];
    struct options o;
    if (options_parse(options, &o, err, sizeof(err)) != 0) {
        say(err);
        return JNI_ERR;
    }
    if (setup_jvmti(vm, 1) != 0)
        return JNI_ERR;
    JNIEnv *jni = NULL;
    if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK) {
        say("cannot get a JNIEnv in Agent_OnAttach");
        return JNI_ERR;
    }
    int rc = 0;
    switch (o.action) {
    case OPTIONS_START:
        methods_preload(jvmti, jni);
        natives_bind_loaded(jvmti, jni);
        rc = control_start(jni, &o, err, sizeof(err));
        break;
    case OPTIONS_STOP:
        rc = control_stop(err, sizeof(err));
        break;
    case OPTIONS_STATUS:
    case OPTIONS_DUMP:
        control_status(err, sizeof(err));
        say(err);
        break;
    }
    if (rc != 0) {
        say(err);
        return JNI_ERR;
    }
    return JNI_OK;
}

EXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
    (void)vm;
}
