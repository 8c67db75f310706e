/* handler.h: the CPU-sample signal handler and what it needs preallocated. */
#ifndef HANDLER_H
#define HANDLER_H

#include <signal.h>
#include <stdint.h>

#include "ring.h"

/* sigev_value / si_value cookie of the signals flyprof's own timers send */
#define HANDLER_COOKIE 0x666c7970

/* The wall-clock signal is chosen by handler_install: not SIGPROF, which the CPU engines use
 * at the same time; a real-time signal, because those queue (a thread waiting for a CPU must
 * not lose a tick's signal by merging it with the next, as a standard signal would); and one
 * nobody else handles: the first of SIGRTMIN+5 .. SIGRTMIN+12 whose disposition is still the
 * default (on JDK 17 SIGRTMAX-2 looked free but our handler never ran). Its si_value carries
 * HANDLER_WALL_COOKIE in the low 16 bits. */
int handler_wall_signo(void);

#define HANDLER_WALL_COOKIE 0x5a17

/* The si_value the sampler sends with a wall signal: cookie, thread state, tick id. */
uint64_t handler_wall_value(int state, uint32_t tick);

/* Preallocates the scratch stack buffers for depth frames and binds the ring. Only while no
 * handler can run (profiling off). Returns 0 or -errno. */
int handler_init(struct ring *ring, unsigned depth);

/* Native frames (cstack=auto) on or off. Only while no handler runs. */
void handler_set_cstack(int on);

/* Installs the handlers for SIGPROF (CPU) and the wall signal (idempotent). Returns 0
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
