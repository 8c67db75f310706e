/* handler.h: the CPU-sample signal handler and what it needs preallocated. */
#ifndef HANDLER_H
#define HANDLER_H

#include <signal.h>
#include <stdint.h>

#include "ring.h"

/* sigev_value / si_value cookie of the signals flyprof's own timers send */
#define HANDLER_COOKIE 0x666c7970

/* The wall-clock signal: not SIGPROF, which the CPU engines use at the same time, and unused
 * by HotSpot. Its si_value carries HANDLER_WALL_COOKIE in the low 16 bits. */
#define HANDLER_WALL_SIGNAL SIGVTALRM
#define HANDLER_WALL_COOKIE 0x5a17

/* The si_value the sampler sends with a wall signal: cookie, thread state, tick id. */
uint64_t handler_wall_value(int state, uint32_t tick);

/* Preallocates the scratch stack buffers for depth frames and binds the ring. Only while no
 * handler can run (profiling off). Returns 0 or -errno. */
int handler_init(struct ring *ring, unsigned depth);

/* Installs the handlers for SIGPROF (CPU) and HANDLER_WALL_SIGNAL (idempotent). Returns 0
 * or -errno. */
int handler_install(void);

/* Marks fd as (on = 1) or no longer as (on = 0) a perf event of ours: the handler re-arms
 * and samples only on signals from owned fds. Mark before arming, unmark before closing. */
void handler_own_fd(int fd, int on);

/* The perf engine's sampling period in ns, for weighting its samples. Before arming. */
void handler_set_perf_period(uint64_t ns);

/* Lets the wall handler read its own thread's JVM state to tell "in native" from "running":
 * env_off = JNIEnv - JavaThread*, state_off = JavaThread::_thread_state (0: not known). Only
 * while no handler runs. */
void handler_set_native_probe(intptr_t env_off, intptr_t state_off);

/* The itimer engine's interval, for weighting its samples by process CPU time (0: off).
 * Before arming. */
void handler_set_itimer_period(uint64_t ns);

/* Turns sampling on: handlers from now on record. */
void handler_activate(void);

/* Turns sampling off and waits until no handler is running any more, so the ring and the
 * scratch buffers are quiescent when it returns. Not from a signal handler. */
void handler_deactivate(void);

/* 1 while sampling is on. Any thread. */
int handler_active(void);

#endif
