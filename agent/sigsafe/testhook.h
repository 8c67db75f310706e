/* testhook.h: test-only faults the integration tests inject into a real JVM, armed by
 * environment variables the agent reads at setup (never in production use):
 *
 * - FLYPROF_TEST_HANG_THREAD=NAME: a CPU-sample handler run on the Java thread named NAME
 *   (its name at ThreadStart) while that thread is in native code never returns, as a thread
 *   stopped inside the handler (by a debugger, a freezer cgroup) would look to the agent. Only
 *   in native code, where the JVM itself never waits for the thread: the agent's own waits are
 *   what is tested. With engine=perf the run hangs while it holds its perf fd (between its
 *   check that the fd is ours and its read of the event's count): stop must not close that fd
 *   number for an application to reuse (perf.c).
 * - FLYPROF_TEST_SAMPLER_STALL=SECONDS: the wall-clock sampler's 50th tick sleeps that long
 *   after it chose its threads and before it signals them (wallclock.c), as a sampler stuck in
 *   a JVM call would: a stop stops waiting for it after 5 s, and the signals it sends when it
 *   resumes must find flyprof's inert handler, not the default action (the end of the JVM).
 * - FLYPROF_TEST_CPUS=N: the scratch buffers are sized for N CPUs; FLYPROF_TEST_SCRATCH=N:
 *   exactly N scratch buffers (control.c); with 0 every handler run finds them all busy.
 */
#ifndef TESTHOOK_H
#define TESTHOOK_H

/* Arms (on = 1) or disarms the hang hook for the calling thread. ThreadStart on the thread,
 * which compares its name with FLYPROF_TEST_HANG_THREAD (threads.c). */
void testhook_arm(int on);

/* 1 when the calling thread's hang hook is armed. Async-signal-safe. */
int testhook_armed_sigsafe(void);

/* Never returns: sleeps forever. Async-signal-safe (nanosleep only). */
void testhook_hang_sigsafe(void) __attribute__((noreturn));

#endif
