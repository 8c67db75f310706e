/* lock.c: contended monitor and j.u.c lock waits; see lock.h. */
#include "lock.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "classnames.h"
#include "counters.h"
#include "evsample.h"
#include "fpl_format.h"
#include "threads.h"
#include "tsc.h"
#include "vmstructs.h"

typedef void(JNICALL *park_fn)(JNIEnv *, jobject, jboolean, jlong);

static jvmtiEnv *env;
static _Atomic uint64_t threshold_ns;
static atomic_uint session; /* bumped at each start: a wait begun before it is not counted */
static atomic_int monitors_on;
/* the park hook: orig is HotSpot's Unsafe_Park, set once and never changed (the hook calls
 * it even after a stop); park_on says whether the hook times parks */
static park_fn orig_park;
static atomic_int park_on;
static int park_bound;      /* Unsafe.park is bound to park_hook (control context only) */
static jclass unsafe_class; /* global refs, made at the first start, kept */
static jclass aqs_class, aqls_class;
static jclass latch_class;     /* CountDownLatch$Sync: an AQS, but a latch is no lock */
static jfieldID blocker_field; /* Thread.parkBlocker */

/* the calling thread's contended monitor wait: when it began, and in which session */
static __thread uint64_t enter_ticks __attribute__((tls_model("initial-exec")));
static __thread unsigned enter_session __attribute__((tls_model("initial-exec")));

int lock_capability(jvmtiEnv *jvmti)
{
    jvmtiCapabilities caps;
    memset(&caps, 0, sizeof(caps));
    caps.can_generate_monitor_events = 1;
    return (*jvmti)->AddCapabilities(jvmti, &caps) == JVMTI_ERROR_NONE ? 0 : -ENOTSUP;
}

/* Pushes a lock sample of a wait from t0 to t1 on the class named name, when long enough. */
static void record(JNIEnv *jni, int state, uint64_t t0, uint64_t t1, const char *name)
{
    uint64_t ns = t1 > t0 ? tsc_ticks_to_ns_sigsafe(t1 - t0) : 0;
    if (ns < atomic_load_explicit(&threshold_ns, memory_order_relaxed)) {
        counters_add_sigsafe(FPL_CTR_LOCK_SHORT, 1);
        return;
    }
    if (evsample_push(jni, FPL_KIND_LOCK, state, ns, name, t0, 0, 0))
        counters_add_sigsafe(FPL_CTR_LOCK_SAMPLES, 1);
}

void JNICALL lock_on_contended_enter(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object)
{
    (void)jvmti;
    (void)jni;
    (void)thread;
    (void)object;
    enter_ticks = tsc_read_sigsafe();
    enter_session = atomic_load_explicit(&session, memory_order_relaxed);
}

void JNICALL lock_on_contended_entered(jvmtiEnv *jvmti, JNIEnv *jni, jthread thread, jobject object)
{
    (void)thread;
    uint64_t t0 = enter_ticks, t1 = tsc_read_sigsafe();
    enter_ticks = 0;
    if (!t0 || enter_session != atomic_load_explicit(&session, memory_order_relaxed))
        return;
    if (!evsample_enter())
        return;
    const char *name = CLASSNAMES_UNKNOWN;
    uint64_t ns = t1 > t0 ? tsc_ticks_to_ns_sigsafe(t1 - t0) : 0;
    if (ns >= atomic_load_explicit(&threshold_ns, memory_order_relaxed)) {
        jclass k = (*jni)->GetObjectClass(jni, object);
        name = classnames_of(jvmti, k);
        if (k)
            (*jni)->DeleteLocalRef(jni, k);
    }
    record(jni, FPL_STATE_BLOCKED, t0, t1, name);
    evsample_leave();
}

/* The lock a thread is about to park for: its parkBlocker when that is an
 * AbstractQueuedSynchronizer or AbstractQueuedLongSynchronizer (a local ref), else NULL. A
 * CountDownLatch's Sync is one too, but waiting for a latch is waiting for an event, not for a
 * lock another thread holds: left out. */
static jobject parked_lock(JNIEnv *jni)
{
    jthread t = NULL;
    if ((*env)->GetCurrentThread(env, &t) != JVMTI_ERROR_NONE || !t)
        return NULL;
    jobject b = (*jni)->GetObjectField(jni, t, blocker_field);
    (*jni)->DeleteLocalRef(jni, t);
    if (!b)
        return NULL;
    if (((*jni)->IsInstanceOf(jni, b, aqs_class) ||
         (aqls_class && (*jni)->IsInstanceOf(jni, b, aqls_class))) &&
        !(latch_class && (*jni)->IsInstanceOf(jni, b, latch_class)))
        return b;
    (*jni)->DeleteLocalRef(jni, b);
    return NULL;
}

/* Unsafe.park's native entry while lock profiling runs (and after, for threads inside). */
static void JNICALL park_hook(JNIEnv *jni, jobject unsafe, jboolean absolute, jlong time)
{
    jobject lk = atomic_load_explicit(&park_on, memory_order_relaxed) ? parked_lock(jni) : NULL;
    if (!lk) {
        orig_park(jni, unsafe, absolute, time);
        return;
    }
    unsigned s = atomic_load_explicit(&session, memory_order_relaxed);
    uint64_t t0 = tsc_read_sigsafe();
    orig_park(jni, unsafe, absolute, time);
    uint64_t t1 = tsc_read_sigsafe();
    if (!(*jni)->ExceptionCheck(jni) && s == atomic_load_explicit(&session, memory_order_relaxed) &&
        evsample_enter()) {
        uint64_t ns = t1 > t0 ? tsc_ticks_to_ns_sigsafe(t1 - t0) : 0;
        const char *name = CLASSNAMES_UNKNOWN;
        if (ns >= atomic_load_explicit(&threshold_ns, memory_order_relaxed)) {
            jclass k = (*jni)->GetObjectClass(jni, lk);
            name = classnames_of(env, k);
            if (k)
                (*jni)->DeleteLocalRef(jni, k);
        }
        record(jni, FPL_STATE_PARKED, t0, t1, name);
        evsample_leave();
    }
    (*jni)->DeleteLocalRef(jni, lk);
}

/* A global ref to class name, or NULL (exception cleared). */
static jclass global_class(JNIEnv *jni, const char *name)
{
    jclass c = (*jni)->FindClass(jni, name);
    if (!c) {
        (*jni)->ExceptionClear(jni);
        return NULL;
    }
    jclass g = (*jni)->NewGlobalRef(jni, c);
    (*jni)->DeleteLocalRef(jni, c);
    return g;
}

/* HotSpot logs "[warning][jni,resolve] Re-registering of platform native method" on the
 * JVM's stdout when RegisterNatives rebinds a native of a boot class and the Java method that
 * called it (two frames up: the native's caller) is not of the boot loader too; from an agent
 * thread there is no Java caller at all. So the binding is done from a class of our own
 * defined in the boot loader: its static bind(long) calls its native bind0(long), whose C side
 * calls RegisterNatives. The class file, written for this (class version 52):
 *
 *   public final class dev.flyprof.agent.ParkBinder {
 *       public static void bind(long fn) { bind0(fn); }  // lload_0; invokestatic #9; return
 *       private static native void bind0(long fn);
 *   }
 *
 * constant pool: #1 Class #2, #2 "dev/flyprof/agent/ParkBinder", #3 Class #4,
 * #4 "java/lang/Object", #5 "bind", #6 "(J)V", #7 "bind0", #8 "Code", #9 Methodref #1.#10,
 * #10 NameAndType #7:#6. */
static const unsigned char binder_bytes[] = {
    0xca, 0xfe, 0xba, 0xbe, 0x00, 0x00, 0x00, 0x34, 0x00, 0x0b, 0x07, 0x00, 0x02, 0x01, 0x00, 0x1c,
    0x64, 0x65, 0x76, 0x2f, 0x66, 0x6c, 0x79, 0x70, 0x72, 0x6f, 0x66, 0x2f, 0x61, 0x67, 0x65, 0x6e,
    0x74, 0x2f, 0x50, 0x61, 0x72, 0x6b, 0x42, 0x69, 0x6e, 0x64, 0x65, 0x72, 0x07, 0x00, 0x04, 0x01,
    0x00, 0x10, 0x6a, 0x61, 0x76, 0x61, 0x2f, 0x6c, 0x61, 0x6e, 0x67, 0x2f, 0x4f, 0x62, 0x6a, 0x65,
    0x63, 0x74, 0x01, 0x00, 0x04, 0x62, 0x69, 0x6e, 0x64, 0x01, 0x00, 0x04, 0x28, 0x4a, 0x29, 0x56,
    0x01, 0x00, 0x05, 0x62, 0x69, 0x6e, 0x64, 0x30, 0x01, 0x00, 0x04, 0x43, 0x6f, 0x64, 0x65, 0x0a,
    0x00, 0x01, 0x00, 0x0a, 0x0c, 0x00, 0x07, 0x00, 0x06, 0x00, 0x31, 0x00, 0x01, 0x00, 0x03, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x09, 0x00, 0x05, 0x00, 0x06, 0x00, 0x01, 0x00, 0x08, 0x00,
    0x00, 0x00, 0x11, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00, 0x05, 0x1e, 0xb8, 0x00, 0x09, 0xb1,
    0x00, 0x00, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x07, 0x00, 0x06, 0x00, 0x00, 0x00, 0x00,
};
static jclass binder; /* global ref, defined at the first start, kept */
static jmethodID binder_bind;
static int binder_rc; /* bind0's RegisterNatives result (control context only) */

static void JNICALL binder_bind0(JNIEnv *jni, jclass cls, jlong fn)
{
    (void)cls;
    JNINativeMethod m = {"park", "(ZJ)V", (void *)(intptr_t)fn};
    binder_rc = (*jni)->RegisterNatives(jni, unsafe_class, &m, 1);
    if (binder_rc != 0)
        (*jni)->ExceptionClear(jni);
}

/* Defines ParkBinder in the boot loader, once. Returns 0 or -1 (exception cleared). */
static int binder_setup(JNIEnv *jni)
{
    if (binder)
        return 0;
    jclass c = (*jni)->DefineClass(jni, "dev/flyprof/agent/ParkBinder", NULL,
                                   (const jbyte *)binder_bytes, (jsize)sizeof(binder_bytes));
    if (!c) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    JNINativeMethod m = {"bind0", "(J)V", (void *)binder_bind0};
    jmethodID bind = NULL;
    if ((*jni)->RegisterNatives(jni, c, &m, 1) == 0)
        bind = (*jni)->GetStaticMethodID(jni, c, "bind", "(J)V");
    if (!bind) {
        (*jni)->ExceptionClear(jni);
        (*jni)->DeleteLocalRef(jni, c);
        return -1;
    }
    binder = (*jni)->NewGlobalRef(jni, c);
    binder_bind = bind;
    (*jni)->DeleteLocalRef(jni, c);
    return binder ? 0 : -1;
}

/* Binds Unsafe.park to fn, through ParkBinder when it could be defined (no warning), else
 * directly (HotSpot then logs its warning). Returns 0 or -1. */
static int bind_park(JNIEnv *jni, void *fn)
{
    if (binder_setup(jni) == 0) {
        binder_rc = -1;
        (*jni)->CallStaticVoidMethod(jni, binder, binder_bind, (jlong)(intptr_t)fn);
        if ((*jni)->ExceptionCheck(jni)) {
            (*jni)->ExceptionClear(jni);
            return -1;
        }
        return binder_rc == 0 ? 0 : -1;
    }
    JNINativeMethod m = {"park", "(ZJ)V", fn};
    if ((*jni)->RegisterNatives(jni, unsafe_class, &m, 1) != 0) {
        (*jni)->ExceptionClear(jni);
        return -1;
    }
    return 0;
}

/* Finds what the park hook needs, once. Returns 0 or -ENOENT with err filled. */
static int park_setup(JNIEnv *jni, char *err, size_t errlen)
{
    if (orig_park && unsafe_class && aqs_class && blocker_field)
        return 0;
    if (!orig_park) {
        const void *anchor = dlsym(RTLD_DEFAULT, "AsyncGetCallTrace");
        orig_park = anchor ? (park_fn)vmstructs_local_symbol(anchor, "Unsafe_Park") : NULL;
    }
    if (!unsafe_class)
        unsafe_class = global_class(jni, "jdk/internal/misc/Unsafe");
    if (!aqs_class)
        aqs_class = global_class(jni, "java/util/concurrent/locks/AbstractQueuedSynchronizer");
    if (!aqls_class)
        aqls_class = global_class(jni, "java/util/concurrent/locks/AbstractQueuedLongSynchronizer");
    if (!latch_class)
        latch_class = global_class(jni, "java/util/concurrent/CountDownLatch$Sync");
    if (!blocker_field) {
        jclass t = (*jni)->FindClass(jni, "java/lang/Thread");
        blocker_field = t ? (*jni)->GetFieldID(jni, t, "parkBlocker", "Ljava/lang/Object;") : NULL;
        if (!blocker_field)
            (*jni)->ExceptionClear(jni);
        if (t)
            (*jni)->DeleteLocalRef(jni, t);
    }
    if (orig_park && unsafe_class && aqs_class && blocker_field)
        return 0;
    snprintf(err, errlen,
             "lock: java.util.concurrent locks are not profiled (%s not found); "
             "synchronized is",
             !orig_park      ? "Unsafe_Park in libjvm's symbol table"
             : !unsafe_class ? "jdk.internal.misc.Unsafe"
             : !aqs_class    ? "AbstractQueuedSynchronizer"
                             : "Thread.parkBlocker");
    return -ENOENT;
}

int lock_start(jvmtiEnv *jvmti, JNIEnv *jni, uint64_t threshold, char *err, size_t errlen)
{
    env = jvmti;
    atomic_store_explicit(&threshold_ns, threshold, memory_order_relaxed);
    atomic_fetch_add_explicit(&session, 1, memory_order_relaxed);
    err[0] = 0;
    jvmtiError e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
                                                      JVMTI_EVENT_MONITOR_CONTENDED_ENTER, NULL);
    if (e == JVMTI_ERROR_NONE)
        e = (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_ENABLE,
                                               JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
    if (e != JVMTI_ERROR_NONE) {
        (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE,
                                           JVMTI_EVENT_MONITOR_CONTENDED_ENTER, NULL);
        snprintf(err, errlen,
                 "cannot profile locks: enabling MonitorContendedEnter failed "
                 "(JVMTI error %d)",
                 (int)e);
        return -ENOTSUP;
    }
    atomic_store_explicit(&monitors_on, 1, memory_order_release);
    if (park_setup(jni, err, errlen) == 0) {
        atomic_store_explicit(&park_on, 1, memory_order_release);
        if (!park_bound && bind_park(jni, (void *)park_hook) == 0)
            park_bound = 1;
        if (!park_bound) {
            atomic_store_explicit(&park_on, 0, memory_order_release);
            snprintf(err, errlen,
                     "lock: java.util.concurrent locks are not profiled "
                     "(RegisterNatives refused Unsafe.park); synchronized is");
        }
    }
    return 0;
}

void lock_stop(jvmtiEnv *jvmti, JNIEnv *jni)
{
    atomic_store_explicit(&park_on, 0, memory_order_release);
    if (park_bound && !jni)
        jni = threads_current_jni();
    if (park_bound && jni && bind_park(jni, (void *)orig_park) == 0)
        park_bound = 0;
    if (!atomic_exchange_explicit(&monitors_on, 0, memory_order_acq_rel))
        return;
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED,
                                       NULL);
    (*jvmti)->SetEventNotificationMode(jvmti, JVMTI_DISABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTER,
                                       NULL);
}

static int lock_enabled(const struct options *o)
{
    return o->lock;
}

static int lock_engine_start(const struct engine_session *s, char *err, size_t errlen)
{
    if (lock_capability(s->jvmti) != 0) {
        snprintf(err, errlen, "cannot profile locks: the JVM refused the JVMTI capability "
                              "can_generate_monitor_events; profiling the rest");
        return ENGINE_SKIPPED;
    }
    /* a warning (the park hook could not be installed) comes back in err with 0 */
    return lock_start(s->jvmti, s->jni, s->o->lock_ns, err, errlen) == 0 ? 0 : ENGINE_SKIPPED;
}

static int lock_engine_stop(const struct engine_session *s)
{
    lock_stop(s->jvmti, NULL);
    return 0;
}

const struct engine lock_engine = {
    .name = "lock",
    .id = FPL_ENGINE_NONE,
    .enabled = lock_enabled,
    .start = lock_engine_start,
    .stop = lock_engine_stop,
};
