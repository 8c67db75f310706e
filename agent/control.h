/* control.h: start / stop / status of a profiling session, shared by -agentpath, attach and
 * the Java API. Serialized by a mutex; never called from signal handlers. */
#ifndef CONTROL_H
#define CONTROL_H

#include <jvmti.h>
#include <stddef.h>

#include "options.h"
#include "threads.h"

/* Binds the JVMTI environment. Agent_OnLoad / Agent_OnAttach. */
void control_init(jvmtiEnv *jvmti);

/* Checks what can be checked before the VM runs (output file writable, engine available)
 * and opens the output so VMInit cannot fail on it. Returns 0 or -errno with err filled. */
int control_prepare(const struct options *o, char *err, size_t errlen);

/* Starts profiling with o (live phase, a thread with a JNIEnv). Uses the output opened by
 * control_prepare when there is one. Returns 0 or -errno with err filled (e.g. -EBUSY when
 * profiling already runs). */
int control_start(JNIEnv *jni, const struct options *o, char *err, size_t errlen);

/* Stops profiling and completes the log and the output. Returns 0 or -errno with err filled
 * (-ENOENT: not running; an output that could not be written). */
int control_stop(char *err, size_t errlen);

/* As control_stop, with the output going to file instead of the one named at start (file
 * NULL: that one). A log (.fpl) is moved there (copied when log= asked to keep it); a rendered
 * format is rendered there; the output named at start is removed if it was still the empty
 * file made at start. file must name a known format and be writable, else nothing stops and
 * -EINVAL / -errno come back. */
int control_stop_to(const char *file, char *err, size_t errlen);

/* The output of the running or last session (file= expanded, or where stop put it). Control
 * threads, for messages. */
const char *control_output(void);

/* Writes the profile recorded so far to file without stopping. Returns 0 or -errno with err
 * filled (-ENOENT: not running). */
int control_dump(const char *file, char *err, size_t errlen);

/* A one-line status: running or not, modes, intervals, samples, drops, chunks and samples the
 * log lost to write errors (and the last errno), output file. */
void control_status(char *buf, size_t len);

/* Says in buf how many chunks (and samples) the log of the running or last session could not
 * write, and why: "3 chunks of the log (1234 samples) could not be written (No space left on
 * device): the profile is incomplete". Returns 1, or 0 with buf empty when none was lost. */
int control_write_losses(char *buf, size_t len);

/* Sets up / tears down the running engine's per-thread state for one thread (no-op when no
 * per-thread engine runs). Under the registry lock, from ThreadStart / ThreadEnd. */
void control_thread_start(struct threads_entry *e);
void control_thread_end(struct threads_entry *e);

/* 1 while a session runs. */
int control_running(void);

#endif
