/* stackbounds.c: the calling thread's stack bounds, for the stack walker's bounds checks.
 * Setup code (ThreadStart), kept out of tls.c because pthread_getattr_np is not
 * async-signal-safe. */
#include <pthread.h>

#include "stackbounds.h"
#include "tls.h"

void stackbounds_init_current(void)
{
    pthread_attr_t a;
    void *addr = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return;
    if (pthread_attr_getstack(&a, &addr, &size) == 0 && addr && size)
        tls_set_stack((uintptr_t)addr, (uintptr_t)addr + size);
    pthread_attr_destroy(&a);
}
