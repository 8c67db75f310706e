/* testhook.c: test-only faults (see testhook.h).
 * ASYNC-SIGNAL-SAFE: testhook_armed_sigsafe and testhook_hang_sigsafe run in signal handlers;
 * testhook_arm runs in ThreadStart. */
#include "testhook.h"

#include <time.h>

/* initial-exec: read by the handler on this thread, never lazily allocated */
static __thread int armed __attribute__((tls_model("initial-exec")));

void testhook_arm(int on)
{
    armed = on;
}

int testhook_armed_sigsafe(void)
{
    return armed;
}

void testhook_hang_sigsafe(void)
{
    for (;;) {
        struct timespec ts = {3600, 0};
        nanosleep(&ts, NULL);
    }
}
