/* signals.h: the dispositions of flyprof's two signals -- which signal each one is, installing
 * and removing our handlers, checking that they are still ours, and passing on what is not
 * ours to the handler that was there before. The handlers themselves (what a signal of ours
 * samples) are handler.c's; this file only knows them as function pointers.
 *
 * - The CPU signal (cputimer, perf, itimer): SIGPROF when nobody else handles it; otherwise
 *   (another profiler took it) a free real-time signal of our own, which per-thread timers and
 *   perf events can deliver as well. ITIMER_PROF can only send SIGPROF: an engine that needs
 *   SIGNALS_SIGPROF is refused when SIGPROF is taken.
 * - The wall-clock signal: a real-time signal, because those queue (a thread waiting for a CPU
 *   must not lose a tick's signal by merging it with the next, as a standard signal would),
 *   nobody else handles: the first free one of SIGRTMIN+5 .. SIGRTMIN+12.
 * flyprof never replaces a handler that is not its own, and handles a signal only while a
 * session runs (signals_install at start, signals_uninstall at stop). The two signals block
 * each other while one is handled, so our handlers never nest on a thread.
 *
 * Contract: signals_install, signals_uninstall, signals_kept and signals_check run in control
 * context (or the writer, for signals_check), never in a signal handler, and are serialized
 * by their callers (control.c). signals_chain_sigsafe is the only function a signal handler
 * may call: it reads the saved disposition, which is written before our handler is installed
 * and never while it is (the sigaction system call orders the two). */
#ifndef SIGNALS_H
#define SIGNALS_H

#include <signal.h>

#define SIGNALS_CPU 1       /* the CPU signal, any number */
#define SIGNALS_WALL 2      /* the wall-clock signal */
#define SIGNALS_SIGPROF 4   /* with SIGNALS_CPU: the CPU signal must be SIGPROF (ITIMER_PROF) */

/* A handler (SA_SIGINFO). */
typedef void (*signals_fn)(int sig, siginfo_t *si, void *uc);

/* Installs cpu on the CPU signal and / or wall on the wall-clock signal, as flags asks,
 * choosing the signals as above; replaces the handlers of an earlier session. Returns 0,
 * -EBUSY (SIGNALS_SIGPROF: SIGPROF has another handler), -EAGAIN (no free signal) or
 * -errno. Control context, profiling off. */
int signals_install(unsigned flags, signals_fn cpu, signals_fn wall);

/* Puts back the dispositions our handlers replaced (where ours are still installed: a
 * handler someone installed over ours stays), discarding our signals still pending -- except
 * for the handlers in keep (SIGNALS_CPU / SIGNALS_WALL bits), which stay installed, inert
 * while profiling is off (they only pass on signals that are not ours): their senders may
 * still send (a wall sampler stuck in a JVM call that did not end when asked), and the
 * default action of SIGPROF and of the real-time signals ends the process. A kept handler is
 * removed by a later signals_uninstall that does not keep it, or reused by signals_install.
 * Idempotent. Control context, after the engines stopped and handler_deactivate. */
void signals_uninstall(unsigned keep);

/* The SIGNALS_CPU / SIGNALS_WALL bits of the handlers the last signals_uninstall kept. */
unsigned signals_kept(void);

/* Checks that our handlers are still installed. Returns the SIGNALS_CPU / SIGNALS_WALL bits
 * of those found replaced by someone else since the last check (each is reported once and
 * counted in FPL_CTR_HANDLER_LOST): their engines must stop, their signals now reach another
 * library's handler. Any thread but a signal handler (once a second from the writer). */
unsigned signals_check(void);

/* The CPU signal chosen by signals_install (0: none): the signal timers and perf events of
 * the CPU engines must send. */
int signals_cpu_signo(void);

/* The wall-clock signal chosen by signals_install (0: none). */
int signals_wall_signo(void);

/* The signal of the SIGNALS_CPU or SIGNALS_WALL bit in which (0: none). */
int signals_signo(unsigned which);

/* Passes a signal that is not ours (which: SIGNALS_CPU or SIGNALS_WALL, the handler that got
 * it) to the handler that was there before ours, if it was a handler: never to SIG_DFL (for
 * SIGPROF and the real-time signals that ends the process) nor SIG_IGN. Async-signal-safe. */
void signals_chain_sigsafe(unsigned which, int sig, siginfo_t *si, void *uc);

#endif
