/* sleepfloor.c: the floor under hiccup mode's cost (tests/bench/hiccup_bench.py): what the
 * kernel charges threads that do nothing but sleep RESOLUTION at a time, as hiccup mode's
 * probe thread does, without its TSC reads, JNI call, schedstat reads or histograms.
 *
 *   sleepfloor THREADS RESOLUTION_US SECONDS [RESIDENT_MB]
 *
 * With RESIDENT_MB, the process first writes that many MB of memory of its own, so that it is
 * as big as the process it stands beside: on the project's VMs a wake-up of a thread of a
 * process with 600 MB resident costs about twice what one of a tiny process costs (the
 * context switch, not the thread's work).
 *
 * Each thread loops on clock_nanosleep(RESOLUTION) for SECONDS, then prints its time on a CPU
 * (from /proc/self/task/TID/schedstat, as the benchmark reads the probes') and its wake-ups:
 *   thread K cpu_ns N wakeups N
 * Exits 2 on bad arguments, 1 when a thread cannot read its schedstat or the memory cannot be
 * had.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long resolution_ns;
static double seconds;

struct result {
    uint64_t cpu_ns, wakeups;
    int ok;
};

static int schedstat_ns(uint64_t *ns)
{
    char path[64];
    unsigned long long v;
    snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", gettid());
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int n = fscanf(f, "%llu", &v);
    fclose(f);
    *ns = v;
    return n == 1 ? 0 : -1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *sleeper(void *arg)
{
    struct result *r = arg;
    uint64_t a, b;
    struct timespec d = {resolution_ns / 1000000000L, resolution_ns % 1000000000L};
    if (schedstat_ns(&a))
        return NULL;
    double end = now_s() + seconds;
    while (now_s() < end) {
        clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);
        r->wakeups++;
    }
    if (schedstat_ns(&b))
        return NULL;
    r->cpu_ns = b - a;
    r->ok = 1;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: sleepfloor THREADS RESOLUTION_US SECONDS [RESIDENT_MB]\n");
        return 2;
    }
    int n = atoi(argv[1]);
    resolution_ns = atol(argv[2]) * 1000L;
    seconds = atof(argv[3]);
    long mb = argc == 5 ? atol(argv[4]) : 0;
    if (n < 1 || n > 64 || resolution_ns <= 0 || !(seconds > 0) || mb < 0 || mb > 65536) {
        fprintf(stderr, "sleepfloor: bad arguments (1-64 threads, a resolution and seconds > 0, "
                        "0-65536 MB)\n");
        return 2;
    }
    if (mb) {
        size_t len = (size_t)mb << 20;
        void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            fprintf(stderr, "sleepfloor: cannot map %ld MB\n", mb);
            return 1;
        }
        memset(m, 1, len);
    }
    pthread_t th[64];
    struct result res[64] = {{0}};
    for (int i = 0; i < n; i++) {
        if (pthread_create(&th[i], NULL, sleeper, &res[i]) != 0) {
            fprintf(stderr, "sleepfloor: cannot start thread %d\n", i);
            return 1;
        }
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        if (!res[i].ok)
            rc = 1;
        printf("thread %d cpu_ns %llu wakeups %llu\n", i, (unsigned long long)res[i].cpu_ns,
               (unsigned long long)res[i].wakeups);
    }
    return rc;
}
