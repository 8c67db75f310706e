/* blocking.c: JNI natives of dev.flyprof.workload.NativeBlock, for the wall-clock tests
 * (tests/integration/test_wall_blocked.py): threads that block signals, and a thread blocked
 * in a native poll that counts how often a signal interrupted it. Test-only; loaded with
 * System.load, which binds them in JNI_OnLoad (RegisterNatives). */
#include <errno.h>
#include <jni.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static int64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Takes every real-time signal queued for this thread (they are blocked) and counts those a
 * thread of this process queued (SI_QUEUE, our pid): the wall signals that piled up. */
static jlong drain_queued(void)
{
    sigset_t rt;
    sigemptyset(&rt);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
        sigaddset(&rt, s);
    struct timespec zero = {0, 0};
    siginfo_t si;
    jlong n = 0;
    while (sigtimedwait(&rt, &si, &zero) > 0)
        n += si.si_code == SI_QUEUE && si.si_pid == getpid();
    return n;
}

/* Blocks every signal a thread can block without dying: the synchronous ones stay open (the
 * JVM turns its own faults into null checks and safepoint polls; blocked, they kill). */
static void block_all(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGTRAP);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

/* Blocks every signal, burns CPU for ns of wall time, counts the queued ones, restores the
 * mask. Returns the count. */
static jlong JNICALL spinBlocked(JNIEnv *env, jclass c, jlong ns)
{
    (void)env;
    (void)c;
    sigset_t old;
    block_all(&old);
    int64_t end = now_ns(CLOCK_MONOTONIC) + ns;
    volatile uint64_t x = 1;
    while (now_ns(CLOCK_MONOTONIC) < end)
        for (int i = 0; i < 100000; i++)
            x = x * 6364136223846793005ull + 1442695040888963407ull;
    jlong n = drain_queued();
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return n;
}

/* Blocks every signal, sleeps ns of wall time, counts the queued ones, restores the mask. */
static jlong JNICALL sleepBlocked(JNIEnv *env, jclass c, jlong ns)
{
    (void)env;
    (void)c;
    sigset_t old;
    block_all(&old);
    int64_t end = now_ns(CLOCK_MONOTONIC) + ns;
    for (int64_t left; (left = end - now_ns(CLOCK_MONOTONIC)) > 0;) {
        struct timespec ts = {(time_t)(left / 1000000000), (long)(left % 1000000000)};
        nanosleep(&ts, NULL);
    }
    jlong n = drain_queued();
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return n;
}

/* Blocks every signal and returns, so the caller runs Java code with signals blocked. */
static void JNICALL blockSignals(JNIEnv *env, jclass c)
{
    (void)env;
    (void)c;
    block_all(NULL);
}

/* Counts the queued signals of this process's threads, then unblocks every signal. */
static jlong JNICALL drainAndUnblock(JNIEnv *env, jclass c)
{
    (void)env;
    (void)c;
    jlong n = drain_queued();
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_UNBLOCK, &all, NULL);
    return n;
}

/* Waits in poll() on a pipe nobody writes to, until ns of wall time have passed, as an event
 * loop waits for work; counts the returns with EINTR (a signal handler ran). */
static jlong JNICALL pollCountEintr(JNIEnv *env, jclass c, jlong ns)
{
    (void)env;
    (void)c;
    int p[2];
    if (pipe(p) != 0)
        return -1;
    struct pollfd pfd = {p[0], POLLIN, 0};
    int64_t end = now_ns(CLOCK_MONOTONIC) + ns;
    jlong eintr = 0;
    for (int64_t left; (left = end - now_ns(CLOCK_MONOTONIC)) > 0;) {
        int ms = (int)(left / 1000000) + 1;
        if (poll(&pfd, 1, ms) < 0 && errno == EINTR)
            eintr++;
    }
    close(p[0]);
    close(p[1]);
    return eintr;
}

EXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved)
{
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_6) != JNI_OK)
        return JNI_ERR;
    jclass c = (*env)->FindClass(env, "dev/flyprof/workload/NativeBlock");
    if (!c)
        return JNI_ERR;
    static const JNINativeMethod m[] = {
        {"spinBlocked", "(J)J", (void *)spinBlocked},
        {"sleepBlocked", "(J)J", (void *)sleepBlocked},
        {"blockSignals", "()V", (void *)blockSignals},
        {"drainAndUnblock", "()J", (void *)drainAndUnblock},
        {"pollCountEintr", "(J)J", (void *)pollCountEintr},
    };
    if ((*env)->RegisterNatives(env, c, m, sizeof(m) / sizeof(m[0])) != 0)
        return JNI_ERR;
    return JNI_VERSION_1_6;
}
