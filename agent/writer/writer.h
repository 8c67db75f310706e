/* writer.h: the writer thread: the ring's single consumer. It resolves jmethodIDs and thread
 * names (cached, once each), dedups stacks, and streams the .fpl log in checked chunks. It is
 * a JVMTI agent thread (RunAgentThread), so JVMTI accepts its calls. Its CPU is sampled like
 * every thread's (tasks.c), with native stacks under its name "flyprof writer": the profile
 * shows what the profiler costs. A chunk the file system refuses (full, a quota, an I/O error)
 * is dropped, counted (FPL_CTR_WRITE_LOST_*) and said once on stderr; the next chunks are
 * written as usual. */
#ifndef WRITER_H
#define WRITER_H

#include <jvmti.h>
#include <stdint.h>

#include "options.h"
#include "ring.h"
#include "tsc.h"
#include "writer_service.h"


/* What a profiling session hands the writer. Owned by the caller; must outlive the writer. */
struct writer_session {
    jvmtiEnv *jvmti;
    struct ring *ring;
    int fd;                         /* the log, open for writing; the writer closes it */
    const char *log_path;           /* its path, for messages (may be NULL) */
    struct options opts;
    int pid;
    char jvm_name[128];
    char jvm_version[128];
    char command[1024];
    struct tsc_anchor start;        /* taken when sampling started */
    uint64_t deadline_mono_ns;      /* 0: no duration */
    /* Called by the writer when the duration ends: stop the engines and deactivate the
     * handler, so the ring gets no more samples. */
    void (*stop_sampling)(void);
    /* Called by the writer after the log is complete and closed (may be NULL): renders the
     * output when file= names a rendered format. */
    void (*finish)(void);
    /* loop=: every rotate_ns (0: never) the writer ends the log at a seam (the time of *seam)
     * and calls rotate, on its own thread: the log it closed is complete; rotate returns the fd
     * of the next log, opened for writing, or -errno (its chunks are then lost, counted).
     * start becomes *seam: each log's HEADER gives its own start. */
    uint64_t rotate_ns;
    int (*rotate)(const struct tsc_anchor *seam);
    /* Housekeeping of other modules, run in this order (above) */
    const struct writer_service *services;
    size_t nservices;
};

/* Readies the writer for session s before sampling starts (the ring's wakeup, the events):
 * no JNI, so it never waits for the JVM. Returns 0 or -errno (-EINVAL: a service with a
 * period the writer does not keep); writer_running() is 1 from
 * here on. Control context, while no producer runs. */
int writer_prepare(struct writer_session *s);

/* Undoes writer_prepare (the thread was not started). Control context. */
void writer_unprepare(void);

/* Starts the writer thread for session s, after writer_prepare; sampling may already run (its
 * records wait in the ring). Live phase, a thread with a JNIEnv: creating a Java thread waits
 * while the JVM is at a safepoint (a GC pause: a few ms, seconds on a loaded machine), which
 * is why sampling starts first. Returns 0, or -EINVAL (JNI or JVMTI refused; writer_prepare
 * is undone then). */
int writer_start(struct writer_session *s, JNIEnv *jni);

/* Asks the writer to drain everything, write the end of the log, close it and exit; waits
 * until it has, or until it looks stuck: no progress for 10 s while it writes the log, or
 * 60 s in finish() (the render). Returns 0, or -ETIMEDOUT when it stopped waiting (the writer
 * may still finish later; writer_running() says when). Sampling must already be off (or the
 * writer turns it off itself when the duration ended). Any thread but the writer; safe if
 * the writer is not running. */
int writer_stop(void);

/* Waits until everything sampled before the call is written to the log file (drained,
 * chunk flushed), with writer_stop's bound. Returns 0, -ENOENT when no writer runs, or
 * -ETIMEDOUT. Any thread but the writer. */
int writer_sync(void);

/* Asks the writer to run its loop soon (an event buffer filling, a thread that ended and is
 * to be looked at again, an endpoint name queued). Never blocks: one atomic
 * exchange, and a condition signal when no request is pending. The request is checked under
 * the writer's mutex before it sleeps; one that lands between that check and the sleep waits
 * for the idle timeout. Any thread but a signal handler. */
void writer_wake(void);

/* The writer's work that must not wait for a long unwind-table build (libjvm's: ~0.7 s of the
 * writer's CPU at the first start, seconds on a loaded machine), which calls it every 50 ms:
 * drains the event buffers of dev.flyprof.Events into the log (else the threads that log
 * events fill their buffers and drop), and begins the next log of loop= when it is due (else
 * the first log of loop=2s ran 5.7 s once). Writer thread only, outside a drain (from the
 * services it runs). */
void writer_yield(void);

/* 1 while a writer is running (not yet finished). Any thread. */
int writer_running(void);

/* Samples written into the log by the current or last writer (those of the chunk being built
 * included; those of chunks it could not write, FPL_CTR_WRITE_LOST_SAMPLES, not). Any
 * thread. */
uint64_t writer_samples_written(void);

/* Bytes written into the log by the current or last writer. Any thread. */
uint64_t writer_bytes_written(void);

#endif
