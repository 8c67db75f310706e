/* detached_worker.c: the JNI library of the detached test (libflyprof_detached.so): a native
 * thread that attaches to the JVM, calls into Java, detaches, and goes on burning CPU in C --
 * as a JNI library's worker thread that calls back into Java now and then does.
 *
 * dev.flyprof.workload.Detached.runWorker(long javaNs, long nativeNs): starts the thread
 * "detach-worker", which spins in Detached.spinJava for javaNs of its CPU, detaches, then spins
 * in detached_spin for nativeNs of its CPU; joins it; returns the CPU it spent in C. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <jni.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

JNIEXPORT jlong JNICALL Java_dev_flyprof_workload_Detached_runWorker(JNIEnv *env, jclass cls,
                                                                     jlong java_ns,
                                                                     jlong native_ns);

struct work {
    JavaVM *vm;
    jlong java_ns, native_ns;
    jlong spent_ns; /* CPU in C after the detach */
    int ok;
};

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* the frame the test looks for: noinline, so it stays a frame of its own */
__attribute__((noinline)) uint64_t detached_spin(uint64_t ns);

__attribute__((noinline)) uint64_t detached_spin(uint64_t ns)
{
    uint64_t end = thread_cpu_ns() + ns;
    volatile uint64_t x = 1;
    while (thread_cpu_ns() < end)
        for (int i = 0; i < 100000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

static void *worker(void *arg)
{
    struct work *w = arg;
    pthread_setname_np(pthread_self(), "detach-worker");
    JNIEnv *env;
    JavaVMAttachArgs aa = {JNI_VERSION_1_8, "detach-worker", NULL};
    if ((*w->vm)->AttachCurrentThread(w->vm, (void **)&env, &aa) != JNI_OK)
        return NULL;
    jclass cls = (*env)->FindClass(env, "dev/flyprof/workload/Detached");
    jmethodID mid = cls ? (*env)->GetStaticMethodID(env, cls, "spinJava", "(J)V") : NULL;
    if (mid) {
        (*env)->CallStaticVoidMethod(env, cls, mid, w->java_ns);
        w->ok = !(*env)->ExceptionCheck(env);
    }
    (*env)->ExceptionClear(env);
    (*w->vm)->DetachCurrentThread(w->vm);
    uint64_t t0 = thread_cpu_ns();
    detached_spin((uint64_t)w->native_ns);
    w->spent_ns = (jlong)(thread_cpu_ns() - t0);
    return NULL;
}

JNIEXPORT jlong JNICALL Java_dev_flyprof_workload_Detached_runWorker(JNIEnv *env, jclass cls,
                                                                     jlong java_ns,
                                                                     jlong native_ns)
{
    (void)cls;
    struct work w = {NULL, java_ns, native_ns, 0, 0};
    if ((*env)->GetJavaVM(env, &w.vm) != JNI_OK)
        return -1;
    pthread_t th;
    if (pthread_create(&th, NULL, worker, &w) != 0)
        return -1;
    pthread_join(th, NULL);
    return w.ok ? w.spent_ns : -1;
}
