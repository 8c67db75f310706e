/* stackbounds.h: records the calling thread's stack bounds in TLS (tls_set_stack) for the
 * stack walker's bounds checks. Not async-signal-safe (pthread_getattr_np); ThreadStart. */
#ifndef STACKBOUNDS_H
#define STACKBOUNDS_H

void stackbounds_init_current(void);

#endif
