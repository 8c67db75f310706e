/* nolock_control: the negative controls of test_native_nolock.py. Run under nolock_shim, it
 * takes SIGPROF samples of itself with a handler that does one thing, chosen by argv[1]:
 *   clean     nothing forbidden (the shim must count handlers, and no forbidden call)
 *   malloc    malloc and free (the shim must count them)
 *   unw_step  a libunwind walk with unw_step from the signal context, the call flyprof's
 *             handler avoids: on a pc libunwind has not cached it looks the FDE up with
 *             dl_iterate_phdr and allocates from a mutex-guarded pool (the shim must see it)
 * Test code. */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static int mode;
static volatile unsigned long sink;

static void handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)si;
    if (mode == 1) {
        void *p = malloc(64);
        sink += (unsigned long)p;
        free(p);
    } else if (mode == 2) {
        unw_cursor_t c;
        if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) == 0)
            for (int i = 0; i < 16 && unw_step(&c) > 0; i++)
                sink++;
    }
}

/* a few different functions, so that the walks meet uncached pcs */
__attribute__((noinline)) static unsigned long spin_a(unsigned long x)
{
    for (int i = 0; i < 100000; i++)
        x = x * 6364136223846793005ul + 1;
    return x;
}

__attribute__((noinline)) static unsigned long spin_b(unsigned long x)
{
    for (int i = 0; i < 100000; i++)
        x ^= x << 7, x ^= x >> 9;
    return x + spin_a(x);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: nolock_control clean|malloc|unw_step\n");
        return 2;
    }
    mode = strcmp(argv[1], "malloc") == 0 ? 1 : strcmp(argv[1], "unw_step") == 0 ? 2 : 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL) != 0)
        return 1;
    struct itimerval it = {{0, 1000}, {0, 1000}};
    setitimer(ITIMER_PROF, &it, NULL);
    unsigned long x = 1;
    for (int i = 0; i < 3000; i++)
        x = spin_b(x);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    sink += x;
    printf("result mode=%s sink=%lu\n", argv[1], sink);
    return 0;
}
