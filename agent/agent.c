/* agent.c: the JVMTI entry points: Agent_OnLoad (-agentpath), Agent_OnAttach (dynamic
 * attach), capabilities and event callbacks. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include <jvmti.h>

#include "alloc.h"
#include "control.h"
#include "gcevents.h"
#include "lock.h"
#include "methods.h"
#include "natives.h"
#include "options.h"
#include "saferead.h"
#include "signals.h"
#include "stubnames.h"
#include "vmstructs.h"
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
    /* stubs generated before the event was on are posted now (duplicates are harmless) */
    (*env)->GenerateEvents(env, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
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

/* Empty, yet enabled: AsyncGetCallTrace refuses to walk (ticks_no_class_load, -1) unless some
 * JVMTI environment has the ClassLoad event on (forte.cpp checks should_post_class_load). */
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

/* Stub names for the stack walker: a stub frame is named as HotSpot names the stub. */
static void JNICALL on_dynamic_code(jvmtiEnv *env, const char *name, const void *address,
                                    jint length)
{
    (void)env;
    stubnames_on_dynamic_code(name, address, length);
}

/* Gets the JVMTI environment, capabilities and callbacks. Returns 0 or -EINVAL. */
static int setup_jvmti(JavaVM *vm, int live)
{
    if (jvmti)
        return 0;
    /* how JVM memory is read without faults: chosen (and said, when it is not the first way)
     * now, before any thread reads it */
    saferead_init();
    if ((*vm)->GetEnv(vm, (void **)&jvmti, JVMTI_VERSION_1_2) != JNI_OK) {
        say("cannot get a JVMTI environment (JVMTI 1.2 required)");
        return -EINVAL;
    }
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_compiled_method_load_events = 1;
    caps.can_get_source_file_name = 1;
    caps.can_get_line_numbers = 1;
    /* hiccup mode stamps GC pauses; HotSpot grants this in the live phase too */
    caps.can_generate_garbage_collection_events = 1;
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
    cb.DynamicCodeGenerated = on_dynamic_code;
    cb.GarbageCollectionStart = gcevents_on_start; /* enabled by hiccup mode */
    cb.GarbageCollectionFinish = gcevents_on_finish;
    /* alloc and lock profiling: enabled (and their capabilities added) only by a session
     * that asks for them */
    cb.SampledObjectAlloc = alloc_on_sampled;
    cb.MonitorContendedEnter = lock_on_contended_enter;
    cb.MonitorContendedEntered = lock_on_contended_entered;
    (*jvmti)->SetEventCallbacks(jvmti, &cb, sizeof(cb));
    jvmtiEvent events[] = {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH,
                           JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END,
                           JVMTI_EVENT_CLASS_LOAD, JVMTI_EVENT_CLASS_PREPARE,
                           JVMTI_EVENT_DYNAMIC_CODE_GENERATED};
    for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE, events[i], NULL);
    /* debug information at every pc of compiled code: set directly when libjvm's symbol
     * table says where the flag is, else through CompiledMethodLoad events (vmstructs.h) */
    if (vmstructs_debug_nonsafepoints() != 0)
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
                                           JVMTI_EVENT_COMPILED_METHOD_LOAD, NULL);
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
    if (pending.idle)
        return JNI_OK; /* loaded for the Java API or a later `flyprof start` */
    if (control_prepare(&pending, err, sizeof(err)) != 0) {
        say(err);
        return JNI_ERR;
    }
    start_at_init = 1;
    return JNI_OK;
}

/* Writes an attach action's result where the CLI asked (reply=PATH, a file it created):
 * the status code, then one line of text. Without reply= the message goes to stderr. */
static void reply(const struct options *o, int code, const char *msg)
{
    if (!o->reply[0]) {
        if (code != 0 || msg[0])
            say(msg);
        return;
    }
    int fd = open(o->reply, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        say(msg);
        return;
    }
    char buf[2048];
    int n = snprintf(buf, sizeof(buf), "%d\n%s\n", code, msg);
    if (n > 0 && write(fd, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1) < 0)
        say(msg);
    close(fd);
}

EXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved)
{
    (void)reserved;
    char msg[1280]; /* a stop reply: the output (up to 900 bytes) and a warning */
    struct options o;
    if (options_parse(options, &o, msg, sizeof(msg)) != 0) {
        /* the reply path is unknown when parsing failed: look for it by hand */
        struct options r;
        memset(&r, 0, sizeof(r));
        const char *p = options ? strstr(options, "reply=") : NULL;
        if (p && (p == options || p[-1] == ',')) {
            size_t len = strcspn(p + 6, ",");
            if (len < sizeof(r.reply)) {
                memcpy(r.reply, p + 6, len);
                r.reply[len] = 0;
            }
        }
        reply(&r, EINVAL, msg);
        return JNI_ERR;
    }
    int first = jvmti == NULL;
    if (setup_jvmti(vm, 1) != 0) {
        reply(&o, ENOTSUP, "the JVM refused the JVMTI environment or capabilities flyprof needs");
        return JNI_ERR;
    }
    JNIEnv *jni = NULL;
    if ((*vm)->GetEnv(vm, (void **)&jni, JNI_VERSION_1_6) != JNI_OK) {
        reply(&o, ENOTSUP, "cannot get a JNIEnv in Agent_OnAttach");
        return JNI_ERR;
    }
    if (first) {
        /* threads running now had no ThreadStart: adopt them once, later ones arrive
         * through events (jmethodIDs are made when profiling starts: methods.h) */
        natives_bind_loaded(jvmti, jni);
        (*jvmti)->GenerateEvents(jvmti, JVMTI_EVENT_DYNAMIC_CODE_GENERATED);
        char err[512];
        if (threads_adopt_existing(jvmti, jni, control_thread_start, control_thread_end, err,
                                   sizeof(err)) < 0)
            say(err);
    }
    int rc = 0;
    msg[0] = 0;
    switch (o.action) {
    case OPTIONS_START:
        if (o.idle) {
            /* loaded (and its events set up) for a later start */
            control_status(msg, sizeof(msg));
            break;
        }
        rc = control_start(jni, &o, msg, sizeof(msg));
        if (rc == 0)
            control_status(msg, sizeof(msg));
        break;
    case OPTIONS_STOP:
        rc = control_stop_to(o.file_given ? o.file : NULL, msg, sizeof(msg));
        if (rc == 0) {
            /* a second line: a CLI that reads only the first still finds the output there */
            char lost[256];
            int lossy = control_write_losses(lost, sizeof(lost));
            snprintf(msg, sizeof(msg), "stopped, output %.900s%s%s", control_output(),
                     lossy ? "\nwarning: " : "", lost);
        }
        break;
    case OPTIONS_DUMP:
        if (!o.file_given) {
            snprintf(msg, sizeof(msg), "dump needs file=PATH");
            rc = -EINVAL;
        } else {
            rc = control_dump(o.file, msg, sizeof(msg));
            if (rc == 0)
                snprintf(msg, sizeof(msg), "dumped to %.900s", o.file);
        }
        break;
    case OPTIONS_STATUS:
        control_status(msg, sizeof(msg));
        break;
    }
    reply(&o, rc < 0 ? -rc : rc, msg);
    return rc == 0 ? JNI_OK : JNI_ERR;
}

EXPORT void JNICALL Agent_OnUnload(JavaVM *vm)
{
    (void)vm;
    /* VMDeath stopped any session and gave the signals back; this covers a JVM that unloads
     * agents without a VMDeath first (a handler kept for a stuck sender stays: handler.h) */
    signals_uninstall(signals_kept());
}
