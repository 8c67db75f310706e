/* other_profiler.c: a stand-in for another profiler in the same JVM, for the signal-hygiene
 * tests (tests/integration/test_signal_hygiene.py). A JVMTI agent library (only Agent_OnLoad)
 * that installs its own SIGPROF handler and starts ITIMER_PROF, as async-profiler's itimer mode
 * or any setitimer-based profiler does, and counts the signals its handler receives by origin.
 *
 * Options (comma-separated key=value): interval_us=N (ITIMER_PROF period, default 10000),
 * out=PATH (required: where the counts go), trigger=1 (install only once PATH.go exists, to
 * come after a profiler that started first; default: at once, from Agent_OnLoad).
 *
 * A reporter thread rewrites PATH every 50 ms (through a temporary file and rename, so a reader
 * never sees half a line) with one line:
 *   installed=0|1 kernel=N timer=N other=N cpu_ns=N mono_ns=N
 * kernel: SI_KERNEL signals (its own ITIMER_PROF ticks); timer: SI_TIMER signals (a POSIX
 * timer's: another profiler's that now lands here); other: anything else; cpu_ns: the process
 * CPU time; mono_ns: CLOCK_MONOTONIC when written. It deliberately does not check whether
 * SIGPROF already has a handler: like the profilers in the field, it just takes it.
 */
#include <errno.h>
#include <jvmti.h> /* declares Agent_OnLoad */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static _Atomic unsigned long n_kernel, n_timer, n_other;
static atomic_int installed;
static long interval_us = 10000;
static char out_path[4096];
static int wait_trigger;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    int e = errno;
    /* relaxed: independent counts, read by the reporter */
    if (si->si_code == SI_KERNEL)
        atomic_fetch_add_explicit(&n_kernel, 1, memory_order_relaxed);
    else if (si->si_code == SI_TIMER)
        atomic_fetch_add_explicit(&n_timer, 1, memory_order_relaxed);
    else
        atomic_fetch_add_explicit(&n_other, 1, memory_order_relaxed);
    errno = e;
}

static unsigned long long ns_of(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval v;
    v.it_interval.tv_sec = interval_us / 1000000;
    v.it_interval.tv_usec = interval_us % 1000000;
    v.it_value = v.it_interval;
    setitimer(ITIMER_PROF, &v, NULL);
    atomic_store(&installed, 1);
}

static void report(void)
{
    char tmp[4200], line[256];
    snprintf(tmp, sizeof(tmp), "%s.tmp", out_path);
    int n = snprintf(line, sizeof(line),
                     "installed=%d kernel=%lu timer=%lu other=%lu cpu_ns=%llu mono_ns=%llu\n",
                     atomic_load(&installed), atomic_load(&n_kernel), atomic_load(&n_timer),
                     atomic_load(&n_other), ns_of(CLOCK_PROCESS_CPUTIME_ID),
                     ns_of(CLOCK_MONOTONIC));
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    fwrite(line, 1, (size_t)n, f);
    if (fclose(f) == 0)
        rename(tmp, out_path);
}

static void *reporter(void *arg)
{
    (void)arg;
    char go[4200];
    snprintf(go, sizeof(go), "%s.go", out_path);
    for (;;) {
        if (!atomic_load(&installed) && (!wait_trigger || access(go, F_OK) == 0))
            install();
        report();
        usleep(50000);
    }
    return NULL;
}

EXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)vm;
    (void)reserved;
    char *opts = strdup(options ? options : "");
    char *save = NULL;
    for (char *kv = strtok_r(opts, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        if (!strncmp(kv, "interval_us=", 12))
            interval_us = atol(kv + 12);
        else if (!strncmp(kv, "out=", 4))
            snprintf(out_path, sizeof(out_path), "%s", kv + 4);
        else if (!strcmp(kv, "trigger=1"))
            wait_trigger = 1;
    }
    free(opts);
    if (!out_path[0] || interval_us <= 0) {
        fprintf(stderr, "other_profiler: needs out=PATH and interval_us > 0\n");
        return JNI_ERR;
    }
    if (!wait_trigger)
        install();
    pthread_t t;
    if (pthread_create(&t, NULL, reporter, NULL) != 0)
        return JNI_ERR;
    pthread_detach(t);
    return JNI_OK;
}
