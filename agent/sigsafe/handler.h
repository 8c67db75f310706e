/* handler.h: flyprof's signal handlers (the CPU engines' signal, the wall sampler's signal):
 * the sample they take (native and Java walk, into the ring), the perf engine's fds and the
 * itimer's weights, and what they need preallocated (scratch buffers). Which signals they
 * handle, their installation and chaining: signals.h. */
#ifndef HANDLER_H
#define HANDLER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "ring.h"

/* sigev_value / si_value cookie of the signals flyprof's own timers send */
#define HANDLER_COOKIE 0x666c7970

/* The two handlers, which signals_install installs (signals.h chooses their signals, saves
 * what was there before and chains to it). Each accepts only signals that are provably ours
 * (our timer cookie, our perf fds, our itimer while it runs, our pid with SI_QUEUE and the
 * wall cookie: HANDLER_WALL_COOKIE in the low 16 bits of si_value); any other is counted
 * (FPL_CTR_FOREIGN_SIGNALS) and passed on (signals_chain_sigsafe). A re-entry on a thread
 * (a foreign handler chaining to ours while ours runs) is counted in FPL_CTR_HANDLER_NESTED
 * and not walked. Signal handlers: async-signal-safe. */
void handler_cpu_signal(int sig, siginfo_t *si, void *uc);
void handler_wall_signal(int sig, siginfo_t *si, void *uc);

#define HANDLER_WALL_COOKIE 0x5a17

/* The si_value the sampler sends with a wall signal: cookie, thread state, tick id. */
uint64_t handler_wall_value(int state, uint32_t tick);

/* Wall-clock bookkeeping per registry slot, shared by the sampler and the wall handler.
 * At most one wall signal is outstanding per thread: the sampler claims the slot before it
 * sends and sends no other while the claim stands (a thread that blocks signals must not
 * collect one queued signal per tick: the queue limit is per user); the handler clears it.
 * Each tick that finds the claim standing adds one to the slot's missed count, which the
 * handler adds to the weight of the sample that signal brings.
 * wall_base is the thread's CPU time when its last wall stack was taken (by the handler, or
 * by the sampler through JVMTI): while the thread's CPU time stays there, it has not run and
 * its stack has not changed, so the sampler repeats that stack instead of signalling or
 * walking it. Sampler thread, except as noted. */

/* Claims slot for a wall signal of tick (check handler_wall_pending first). */
void handler_wall_claim(uint32_t slot, uint32_t tick);

/* The tick id of the wall signal outstanding on slot, 0: none. */
uint32_t handler_wall_pending(uint32_t slot);

/* Gives up a claim: the signal could not be sent, or it is known to be gone. Returns the
 * missed count, now the caller's (to weigh on the sample it takes instead). */
uint32_t handler_wall_unclaim(uint32_t slot);

/* Counts a tick that chose the slot's thread while its signal was still pending: not sent
 * again, the sample that signal brings weighs one more. */
void handler_wall_miss(uint32_t slot);

/* Adds n to the slot's missed count (ticks a new signal's sample must also weigh). */
void handler_wall_miss_n(uint32_t slot, uint32_t n);

/* The thread CPU time (ns) at the slot's last wall stack, 0: none known. */
uint64_t handler_wall_base(uint32_t slot);

/* Records that a wall stack of the slot's thread, pushed before this call, was taken when the
 * thread's CPU time was cpu_ns. */
void handler_wall_set_base(uint32_t slot, uint64_t cpu_ns);

/* Forgets the slot's state: a new thread took it (ThreadStart, adoption). Any thread. */
void handler_wall_reset(uint32_t slot);

/* Forgets every slot's state. At a session start, before the sampler runs. */
void handler_wall_reset_all(void);

/* Bounds of handler_scratch_count. */
#define HANDLER_SCRATCH_MIN 16
#define HANDLER_SCRATCH_MAX 4096

/* How many scratch buffers handlers need on a machine with cpus CPUs (configured, not only
 * online ones): four per CPU, at least HANDLER_SCRATCH_MIN. Any thread. */
unsigned handler_scratch_count(long cpus);

/* Preallocates count scratch stack buffers for depth frames and binds the ring. A handler run
 * that finds all count busy records a `[handler_busy]` sample (FPL_CTR_HANDLER_BUSY). Only
 * while no handler can run (profiling off). Returns 0 or -errno. */
int handler_init(struct ring *ring, unsigned depth, unsigned count);

/* The number of scratch buffers handler_init made (0: none yet). Any thread. */
unsigned handler_scratch_buffers(void);

/* Native frames (cstack=auto) on or off. Only while no handler runs. */
void handler_set_cstack(int on);

/* Allocates the table of our perf fds, once: one entry for each fd number below cap (the
 * kernel's own cap on fd numbers), mapped lazily. Returns 0 or -errno. Control context,
 * before the first handler_own_fd. */
int handler_perf_init(size_t cap);

/* Marks fd as a perf event of ours: the handler re-arms and samples only on signals from
 * owned fds. Mark before arming. Returns 0, or -ERANGE (no table, or an fd beyond it: nr_open
 * was raised after the table was made; the caller must not use that event). Control context
 * / JVMTI callbacks. */
int handler_own_fd(int fd);

/* Marks fd as no longer ours, then waits up to timeout_ns for handler runs still using it
 * (reading its count, re-arming it) to finish. Returns 0: no handler run touches fd from now
 * on, it may be closed; -ETIMEDOUT: a run that uses it has not finished (its thread is
 * stopped): the fd number must stay open (perf.c puts /dev/null on it), else the run, when it
 * resumes, would read or ioctl whatever file the application opens under that number. Not
 * from a signal handler. */
int handler_disown_fd(int fd, uint64_t timeout_ns);

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

/* Turns sampling off and waits up to timeout_ns until no handler is running any more, so the
 * ring and the scratch buffers are quiescent. Returns 0, or -ETIMEDOUT when a handler run is
 * still in progress (a thread stopped inside it): then the ring and the scratch buffers may
 * still be written by that run whenever it resumes, so they must stay allocated and must not
 * be reused until handler_inflight() is 0. Not from a signal handler. */
int handler_deactivate(uint64_t timeout_ns);

/* Handler runs in progress (0 when none). Any thread. */
int handler_inflight(void);

/* 1 while sampling is on. Any thread. */
int handler_active(void);

#endif
