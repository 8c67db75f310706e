/* foreign_profiler.c: a second profiler in the JVM, as an async-profiler-based agent looks to
 * flyprof (libflyprof_foreign.so, loaded with -agentpath before flyprof; test_foreign_faults.py).
 *
 * Agent_OnLoad takes SIGPROF (so flyprof's CPU engine moves to a real-time signal) and puts
 * its own SIGSEGV handler over HotSpot's, chaining every fault it does not expect to it. A
 * thread of its own sends SIGPROF to the threads named in its options (`cpu-1,cpu-2`) every
 * 100 us, at random moments, so some signals land while such a thread runs flyprof's handler
 * with flyprof's crash guard armed. Each SIGPROF handler run reads an unmapped page in this
 * library's code, under its own sigsetjmp: its SIGSEGV handler must get that fault and jump
 * back. At exit it says on stderr how many reads it tried and how many its handler ended:
 * `foreign: attempts=N recovered=M`. A fault taken by someone else (flyprof's guard, before it
 * claimed only faults in the code its walks run) leaves recovered short, and leaves this
 * thread's handler marked busy, as a wedged profiler would be. */
#include <dirent.h>
#include <jvmti.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved);

#define MAX_TARGETS 16
#define MAX_NAMES 4

static struct sigaction prev_segv;
static volatile int *bad;
/* initial-exec, as every profiler's signal-handler TLS must be: in a library loaded with
 * dlopen (as -agentpath does) the default model reaches a variable through __tls_get_addr,
 * which allocates the thread's block with malloc at its first use, and a handler that
 * interrupted malloc then waits for ever for the arena lock its own thread holds (a JVM of
 * foreign_faults hung so: cpu-1 in on_prof -> __tls_get_addr -> malloc, interrupted in
 * sysmalloc; every other thread then waited for a safepoint it could not reach) */
static __thread sigjmp_buf jb __attribute__((tls_model("initial-exec")));
static __thread volatile sig_atomic_t armed __attribute__((tls_model("initial-exec")));
static atomic_ulong attempts, recovered, stolen;
static char names[MAX_NAMES][16];
static int nnames;

/* Faults this library's SIGPROF handler expects end its read; all others go to HotSpot. */
static void on_segv(int sig, siginfo_t *si, void *uc)
{
    if (armed) {
        armed = 0;
        siglongjmp(jb, 1);
    }
    if (prev_segv.sa_flags & SA_SIGINFO)
        prev_segv.sa_sigaction(sig, si, uc);
    else if (prev_segv.sa_handler != SIG_DFL && prev_segv.sa_handler != SIG_IGN)
        prev_segv.sa_handler(sig);
    else
        abort();
}

static void on_prof(int sig)
{
    (void)sig;
    if (armed) {
        /* a read of ours never came back: someone else took its fault */
        atomic_fetch_add(&stolen, 1);
        armed = 0;
        return;
    }
    atomic_fetch_add(&attempts, 1);
    if (sigsetjmp(jb, 1) == 0) { /* the mask too: the jump leaves SIGSEGV's handler */
        armed = 1;
        (void)*bad;
        armed = 0;
    } else {
        atomic_fetch_add(&recovered, 1);
    }
}

static int targets(pid_t *tids)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL && n < MAX_TARGETS) {
        char path[300], comm[32] = "";
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", de->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(comm, sizeof(comm), f))
            comm[strcspn(comm, "\n")] = 0;
        fclose(f);
        for (int i = 0; i < nnames; i++)
            if (strcmp(comm, names[i]) == 0)
                tids[n++] = atoi(de->d_name);
    }
    if (d)
        closedir(d);
    return n;
}

static void *sender(void *arg)
{
    (void)arg;
    /* the JVM's signals (SIGQUIT for attach among them) are for its own threads */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pid_t tids[MAX_TARGETS];
    int n = 0;
    uint64_t x = 88172645463325252ull;
    for (unsigned round = 0;; round++) {
        if (round % 500 == 0)
            n = targets(tids);
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (n > 0)
            syscall(SYS_tgkill, getpid(), tids[x % (uint64_t)n], SIGPROF);
        struct timespec ts = {0, 50000 + (long)(x % 100000)};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static void report(void)
{
    fprintf(stderr, "foreign: attempts=%lu recovered=%lu stolen=%lu\n", atomic_load(&attempts),
            atomic_load(&recovered), atomic_load(&stolen));
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *options, void *reserved)
{
    (void)vm, (void)reserved;
    for (char *p = options; p && *p && nnames < MAX_NAMES;) {
        size_t len = strcspn(p, ",");
        snprintf(names[nnames++], sizeof(names[0]), "%.*s", (int)len, p);
        p += len + (p[len] == ',');
    }
    void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        return JNI_ERR;
    bad = page;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGPROF); /* its own reads must not fault with SIGSEGV blocked */
    if (sigaction(SIGSEGV, &sa, &prev_segv) != 0)
        return JNI_ERR;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_prof;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL) != 0)
        return JNI_ERR;
    atexit(report);
    pthread_t t;
    if (pthread_create(&t, NULL, sender, NULL) != 0)
        return JNI_ERR;
    pthread_detach(t);
    return JNI_OK;
}
