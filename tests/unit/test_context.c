/* test_context: agent/sigsafe/context.c, the trace context table the signal handlers read.
 * Every pair the writer stores is (k, ~k), so a torn read (a span of one set with the root of
 * another) shows as root != ~span. Checked three ways:
 *  - a signal handler interrupting the thread while it sets contexts in a tight loop (a
 *    per-thread CPU timer): every read succeeds (the handler never loses the context on its
 *    own thread) and none is torn, and what it reads is the pair of a set that happened;
 *  - readers on other threads while one thread sets: reads may give up (counted), never tear;
 *  - slot bounds, clear, and the first read of a fresh slot (none). */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "context.h"
#include "harness.h"

#define SLOT 7
#define OTHER 8
#define ROUNDS 20000000000ull /* a bound only: the loop ends after 200 reads */

static volatile sig_atomic_t handler_reads, handler_fails, handler_torn, handler_future;
static volatile uint64_t last_set; /* k of the last set that returned, seen by the handler */

static void on_prof(int sig)
{
    (void)sig;
    uint64_t span, root;
    uint64_t done = last_set;
    if (!context_read_sigsafe(SLOT, &span, &root)) {
        handler_fails++;
        return;
    }
    handler_reads++;
    if (span && root != ~span)
        handler_torn++;
    /* the set in flight (done + 1) or the last one that returned: nothing older, nothing
     * newer */
    if (span && span != done && span != done + 1)
        handler_future++;
}

static void test_handler_same_thread(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_prof;
    sigaction(SIGPROF, &sa, NULL);
    timer_t t;
    struct sigevent sev;
    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_SIGNAL;
    sev.sigev_signo = SIGPROF;
    CHECK(timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t) == 0);
    struct itimerspec its = {{0, 100000}, {0, 100000}}; /* 100 us of CPU: tick-limited */
    timer_settime(t, 0, &its, NULL);
    for (uint64_t k = 1; k <= ROUNDS && handler_reads < 200; k++) {
        context_set(SLOT, k, ~k);
        last_set = k;
    }
    timer_delete(t);
    signal(SIGPROF, SIG_IGN);
    printf("handler: %d reads, %d failed, %d torn, %d out of order\n", (int)handler_reads,
           (int)handler_fails, (int)handler_torn, (int)handler_future);
    CHECK(handler_reads >= 200);
    CHECK_EQ_U(handler_fails, 0);
    CHECK_EQ_U(handler_torn, 0);
    CHECK_EQ_U(handler_future, 0);
}

static atomic_int stop;
static _Atomic uint64_t reads, fails, torn;

static void *reader(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        uint64_t span, root;
        if (!context_read_sigsafe(OTHER, &span, &root)) {
            atomic_fetch_add(&fails, 1);
            continue;
        }
        atomic_fetch_add(&reads, 1);
        if (span && root != ~span)
            atomic_fetch_add(&torn, 1);
    }
    return NULL;
}

static void test_other_threads(void)
{
    pthread_t r[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&r[i], NULL, reader, NULL);
    for (uint64_t k = 1; k <= 2000000 || atomic_load(&reads) < 1000; k++) {
        context_set(OTHER, k, ~k);
        if (k > 200000000)
            break;
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < 2; i++)
        pthread_join(r[i], NULL);
    printf("other threads: %llu reads, %llu gave up, %llu torn\n",
           (unsigned long long)atomic_load(&reads), (unsigned long long)atomic_load(&fails),
           (unsigned long long)atomic_load(&torn));
    CHECK(atomic_load(&reads) >= 1000);
    CHECK_EQ_U(atomic_load(&torn), 0);
}

static void test_basics(void)
{
    uint64_t span = 1, root = 1;
    CHECK(context_read_sigsafe(3, &span, &root) == 1);
    CHECK(span == 0 && root == 0);
    context_set(3, 42, 40);
    CHECK(context_read_sigsafe(3, &span, &root) == 1);
    CHECK(span == 42 && root == 40);
    context_set(3, 43, 40);
    context_read_sigsafe(3, &span, &root);
    CHECK(span == 43 && root == 40);
    context_clear(3);
    context_read_sigsafe(3, &span, &root);
    CHECK(span == 0 && root == 0);
    span = root = 5;
    CHECK(context_read_sigsafe(UINT32_MAX, &span, &root) == 0); /* slot1 0 - 1: no slot */
    CHECK(span == 0 && root == 0);
    context_set(UINT32_MAX, 1, 1); /* ignored, not a crash */
}

int main(void)
{
    test_basics();
    test_handler_same_thread();
    test_other_threads();
    return harness_result("test_context");
}
