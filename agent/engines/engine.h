/* engine.h: the one interface of flyprof's samplers. An engine is a `struct engine`: the CPU
 * engines (cputimer, perf, itimer), the wall-clock sampler, the hiccup probes, the JVMTI-event
 * engines (evsample, alloc, lock) and the live-heap view. control.c knows them only through
 * the table (engines.h): it probes, starts, stops, arms threads and names them by looping over
 * it, with no engine named. Adding an engine is its own file with its `struct engine`, an
 * entry in engines.c's table, and its options (options.c); a CPU engine also takes a value of
 * enum fpl_engine (the log's HEADER) and its proof in handler.c that a signal is its own.
 *
 * Order: engines start in the table's order and stop in the reverse order, so an engine that
 * others need (evsample, for alloc and lock) comes before them, and one that must stop after
 * it (live, which reads what evsample's callbacks left) comes before it too.
 *
 * Lifecycle, control context (serialized by control.c): probe, before anything is installed
 * (control_prepare, control_start); then, with the signals the session's engines need
 * installed (their `signals` bits) and the handlers active, start -- ENGINE_EARLY ones before
 * the writer's thread, the rest after it; stop, from control_stop or from the writer when
 * duration= ends, and from the writer when the engine's signal was taken over by another
 * library (signals_check). ENGINE_LATE engines stop only once the handlers are deactivated
 * (a handler run reads their perf fds). None of it runs in a signal handler: the handler's side
 * of each engine (is this signal ours, what weight) is in handler.c, signal-safe. */
#ifndef ENGINE_H
#define ENGINE_H

#include <jvmti.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "fpl_format.h"
#include "options.h"
#include "ring.h"

/* What a per-thread CPU engine keeps for one thread. */
union engine_thread {
    timer_t timer;      /* cputimer: the thread's CPU-time timer */
    int fd;             /* perf: the thread's event */
};

struct threads_entry;
struct writer_service;

/* What a session hands its engines. */
struct engine_session {
    jvmtiEnv *jvmti;
    JNIEnv *jni;                /* the calling thread's at start; NULL at stop (any thread) */
    struct ring *ring;          /* where samples go */
    const struct options *o;    /* the session's options */
    /* what ThreadStart does for the session (threads_on_start's on_start), for an engine
     * that registers a thread on the spot (evsample: a thread running since before an
     * attach) */
    void (*on_thread_start)(struct threads_entry *e);
};

#define ENGINE_EARLY 1  /* started before the writer's thread (whose creation may wait out a
                         * safepoint: its samples wait in the ring meanwhile) */
#define ENGINE_LATE 2   /* stopped after the handlers are deactivated */

/* start's return when the engine could not start but the session goes on without it (err
 * says why, and control.c says it on stderr) */
#define ENGINE_SKIPPED 1

struct engine {
    const char *name;   /* for messages and status (the engine= value of a CPU engine) */
    int id;             /* enum fpl_engine for a CPU engine, else FPL_ENGINE_NONE */
    unsigned flags;     /* ENGINE_EARLY, ENGINE_LATE */
    unsigned signals;   /* the signals_install bits it needs (signals.h), 0: none */
    const char *what;   /* what the user loses when it stops for a lost signal */
    /* Whether the session's options ask for it. */
    int (*enabled)(const struct options *o);
    /* NULL, or 0 when it can run here and now, else -errno with err filled. */
    int (*probe)(const struct options *o, char *err, size_t errlen);
    /* NULL (nothing to start), or 0 (started; a warning may be in err, said on stderr),
     * ENGINE_SKIPPED, or -errno with err filled (the session fails). */
    int (*start)(const struct engine_session *s, char *err, size_t errlen);
    /* NULL, or stops it: 0, or -ETIMEDOUT when something of it did not stop in time (stuck
     * says what, once). Idempotent. */
    int (*stop)(const struct engine_session *s);
    const char *stuck;
    /* NULL, or 1 while something of it still runs after a stop that timed out and may still
     * send its signal: that signal's handler stays installed, inert (signals_uninstall). */
    int (*lingering)(void);
    /* NULL, or the engine's per-thread work for a Java thread that starts (ThreadStart, or
     * adopted at attach) / ends (ThreadEnd): under the thread registry's lock, for the
     * engines of the running or last session. tid: the kernel's; slot: the registry's. */
    void (*thread_start)(int tid, uint32_t slot);
    void (*thread_end)(int tid, uint32_t slot);
    /* NULL, or what the writer runs for it while its session runs (writer.h): its records */
    const struct writer_service *service;
    /* A per-thread CPU engine (NULL for the others): a sampler on thread tid at the session's
     * interval, 0 or -errno (-ESRCH, -ENOENT: the thread is gone, not an error); and its
     * removal. Under tasks.c's lock (tasks.h). */
    int (*arm)(int tid, union engine_thread *out);
    void (*disarm)(union engine_thread *t);
};

/* Whether o asks for CPU samples from the CPU engine of id (the choice engine_of makes). */
static inline int engine_cpu_enabled(const struct options *o, int id)
{
    int chosen = o->engine == FPL_ENGINE_PERF || o->engine == FPL_ENGINE_ITIMER
                     ? o->engine
                     : FPL_ENGINE_CPUTIMER;
    return o->cpu_interval_ns && chosen == id;
}

#endif
