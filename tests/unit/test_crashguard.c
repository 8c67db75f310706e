/* test_crashguard: the crash guard (agent/sigsafe/crashguard.c) ends a walk that faults in the code a
 * walk runs, and hands every other fault to the handler that was installed before it -- also
 * one taken while a walk is armed, by another library's signal handler that interrupted the
 * walk (a second profiler's SIGPROF walker) and faulted in its own code.
 *
 * The "other profiler" here: a SIGSEGV handler installed before the guard's (it recovers its
 * own faults with siglongjmp and aborts on any other), a SIGUSR2 handler that reads an
 * unmapped page through a library of its own (libflyprof_cgforeign.so) while the guard is
 * armed, and the same read made directly while a guard is armed. Before the guard claimed
 * only faults in walked code, it took both: its count went up, the other handler never
 * recovered, and the interrupted walk jumped back to its own sigsetjmp. */
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "crashguard.h"
#include "harness.h"

int crashguard_foreign_read(const volatile int *p);

static sigjmp_buf foreign_jb;
static volatile sig_atomic_t foreign_armed;
static volatile sig_atomic_t foreign_faults;    /* faults the other library's handler got */
static volatile sig_atomic_t foreign_recovered; /* reads of its SIGUSR2 handler it ended */
static volatile sig_atomic_t foreign_completed; /* SIGUSR2 handler runs that returned */
static volatile int *bad;                       /* an unmapped page */

/* The other library's SIGSEGV handler: ends its own armed read, aborts on anything else (a
 * fault that reached it unexpected: the test would crash, which ctest reports). */
static void foreign_segv(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    if (!foreign_armed)
        abort();
    foreign_armed = 0;
    foreign_faults++;
    siglongjmp(foreign_jb, 1);
}

/* The other library's profiling signal handler: reads through its own code, faulting. */
static void foreign_prof(int sig)
{
    (void)sig;
    if (sigsetjmp(foreign_jb, 1) == 0) {
        foreign_armed = 1;
        crashguard_foreign_read(bad);
        foreign_armed = 0;
    } else {
        foreign_recovered++;
    }
    foreign_completed++;
}

/* A read in this program's own code: the module crashguard.c is in, walked code. */
static __attribute__((noinline)) int own_read(const volatile int *p)
{
    return *p;
}

int main(void)
{
    void *page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    bad = page;

    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = foreign_segv;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGSEGV, &sa, NULL) == 0);
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = foreign_prof;
    sigemptyset(&sa.sa_mask);
    CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
    CHECK(crashguard_install() == 0); /* after the other library's, as at an attach */

    /* 1. a fault in walked code while a guard is armed: the walk's, ended by the guard */
    struct crashguard g;
    volatile int ended = 0;
    if (sigsetjmp(g.jb, 0) == 0) {
        crashguard_enter(&g);
        own_read(bad);
        crashguard_leave(&g);
    } else {
        ended = 1;
    }
    CHECK(ended);
    CHECK_EQ_U(crashguard_faults(), 1);
    CHECK_EQ_U(foreign_faults, 0);

    /* 2. another library's handler interrupts an armed walk and faults in its own code: its
     * own handler gets the fault, its handler returns, and the walk goes on */
    volatile int walk_ended = 0, walk_done = 0;
    if (sigsetjmp(g.jb, 0) == 0) {
        crashguard_enter(&g);
        raise(SIGUSR2);
        walk_done = 1;
        crashguard_leave(&g);
    } else {
        walk_ended = 1;
    }
    CHECK(walk_done);
    CHECK(!walk_ended);
    CHECK_EQ_U(foreign_faults, 1);
    CHECK_EQ_U(foreign_recovered, 1);
    CHECK_EQ_U(foreign_completed, 1);
    CHECK_EQ_U(crashguard_faults(), 1);

    /* 3. the same read made on the walk's own level: not walked code, not the guard's */
    walk_ended = 0;
    if (sigsetjmp(g.jb, 0) == 0) {
        crashguard_enter(&g);
        if (sigsetjmp(foreign_jb, 1) == 0) {
            foreign_armed = 1;
            crashguard_foreign_read(bad);
        }
        foreign_armed = 0;
        crashguard_leave(&g);
    } else {
        walk_ended = 1;
    }
    CHECK(!walk_ended);
    CHECK_EQ_U(foreign_faults, 2);
    CHECK_EQ_U(crashguard_faults(), 1);

    /* 4. no guard armed: every fault is the other handler's */
    if (sigsetjmp(foreign_jb, 1) == 0) {
        foreign_armed = 1;
        own_read(bad);
    }
    foreign_armed = 0;
    CHECK_EQ_U(foreign_faults, 3);
    CHECK_EQ_U(crashguard_faults(), 1);
    return harness_result("test_crashguard");
}
