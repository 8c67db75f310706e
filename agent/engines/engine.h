/* engine.h: the one interface of the CPU engines (cputimer, perf, itimer). control.c starts,
 * stops and names the engine a session asked for through it, and tasks.c arms every thread
 * with a per-thread engine's arm and disarm, without knowing which engine it is: a new CPU
 * engine is its own file, an entry in engine.c's table, a value of enum fpl_engine (the
 * log's HEADER) and its name in options.c.
 *
 * Lifecycle, control context: probe (before anything is installed), then, with the handlers
 * installed (handler mask: which ones) and active, start; stop once the handlers are
 * deactivated. arm and disarm run under tasks.c's lock, from control, JVMTI callbacks and
 * the writer. None of it runs in a signal handler: the handler's side of each engine (is
 * this signal ours, what weight) is in handler.c. */
#ifndef ENGINE_H
#define ENGINE_H

#include <stdint.h>
#include <time.h>

/* What a per-thread engine keeps for one thread. */
union engine_thread {
    timer_t timer;      /* cputimer: the thread's CPU-time timer */
    int fd;             /* perf: the thread's event */
};

struct cpu_engine {
    const char *name;   /* the engine= value; what status and the log's readers show */
    int id;             /* enum fpl_engine */
    unsigned handler;   /* signals_install's bits it needs: SIGNALS_CPU (| SIGNALS_SIGPROF) */
    /* NULL, or 0 when the engine can run here, else -errno; unavailable says what failed and
     * what to do (NULL: "cannot run here") */
    int (*probe)(void);
    const char *unavailable;
    /* Starts sampling every interval_ns of CPU: 0 or -errno; -EBUSY means busy (what the
     * user should know then) */
    int (*start)(uint64_t interval_ns);
    const char *busy;
    void (*stop)(void);
    /* per-thread engines (NULL for a process-wide one): a sampler on thread tid, 0 or -errno
     * (-ESRCH, -ENOENT: the thread is gone, not an error); and its removal */
    int (*arm)(int tid, union engine_thread *out);
    void (*disarm)(union engine_thread *t);
};

extern const struct cpu_engine cputimer_engine, perf_engine, itimer_engine;

/* The engine of enum fpl_engine id; cputimer's for an unknown id (the default engine). */
const struct cpu_engine *engine_of(int id);

#endif
