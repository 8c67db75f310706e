/* torture_blocker.c: the JNI library of the torture test (libflyprof_torture.so): a native
 * method that runs with every signal blocked, as a JNI library's worker thread may. To the
 * JVM the thread is RUNNABLE (in native) all along, so a wall-clock sampler keeps choosing it,
 * and a signal sent to it stays queued until the mask is lifted.
 *
 * dev.flyprof.workload.TortureBlocker.blockAndSpin(long ns): blocks all signals, spins until
 * ns have passed or the Java side clears the flag (stop), restores the mask, returns the
 * number of spin rounds. */
#include <jni.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

/* exported to the JVM (System.load binds them by name); declared for -Wmissing-prototypes */
JNIEXPORT jlong JNICALL Java_dev_flyprof_workload_TortureBlocker_blockAndSpin(JNIEnv *env,
                                                                            jclass cls,
                                                                            jlong ns);
JNIEXPORT void JNICALL Java_dev_flyprof_workload_TortureBlocker_stop(JNIEnv *env, jclass cls);

static volatile int stop_flag;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

JNIEXPORT jlong JNICALL Java_dev_flyprof_workload_TortureBlocker_blockAndSpin(JNIEnv *env,
                                                                            jclass cls,
                                                                            jlong ns)
{
    (void)env;
    (void)cls;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    uint64_t end = now_ns() + (uint64_t)ns;
    jlong rounds = 0;
    volatile uint64_t x = 1;
    while (!stop_flag && now_ns() < end) {
        for (int i = 0; i < 100000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
        rounds++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rounds;
}

JNIEXPORT void JNICALL Java_dev_flyprof_workload_TortureBlocker_stop(JNIEnv *env, jclass cls)
{
    (void)env;
    (void)cls;
    stop_flag = 1;
}
