/* control.c: profiling sessions. Runs on JVMTI callbacks, attach and Java API threads;
 * serialized by `lock`. */
#include "control.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cfitab.h"
#include "counters.h"
#include "crashguard.h"
#include "engines.h"
#include "fpl_format.h"
#include "handler.h"
#include "loopfiles.h"
#include "methods.h"
#include "nativewalk.h"
#include "profile.h"
#include "render.h"
#include "render_file.h"
#include "ring.h"
#include "saferead.h"
#include "signals.h"
#include "stackwalk.h"
#include "tasks.h"
#include "threads.h"
#include "tsc.h"
#include "vmstructs.h"
#include "writer.h"

/* How long stop waits for what it stops. Longer than any healthy run takes (a handler run
 * takes microseconds, a sampler tick milliseconds); what is still running after that is
 * stuck (a thread stopped inside the handler, a JVMTI walk that never returns) and is left
 * behind, said once on stderr: the JVM's exit must not hang on the agent (the engines bound
 * their own waits: engine.h). */
#define HANDLER_WAIT_NS (2ull * 1000000000ull)

/* 8 MiB: at 1 ms on 100 busy threads the writer drains ~1 MB per 10 ms cycle; the bench
 * showed 16 MiB only adding resident memory */
#define RING_BYTES (8u << 20)
/* the most a render at stop may take inside the JVM (render_budget) */
#define RENDER_BUDGET_MAX (256ull << 20)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static jvmtiEnv *jvmti;
static struct ring ring;
static int ring_ready;
static struct writer_session session;
static int prepared_fd = -1;
static char path[OPTIONS_FILE_MAX + 64];      /* the output the user named (expanded) */
static char log_path[OPTIONS_FILE_MAX + 64];  /* where the writer writes the .fpl log */
static int render_at_stop;                    /* path is a rendered format, not the log */
static int keep_log;                          /* log= given: keep the raw log */
/* `stop file=` (flyprof stop PID -o FILE): where the output goes instead of path. Set by
 * control_stop_to and read by finish_output on the writer thread, under finish_mu; finished
 * says finish_output has taken it (the session ended, maybe by duration=, and a stop that
 * comes later has nothing left to redirect). finish_rc / finish_err: its result. */
static pthread_mutex_t finish_mu = PTHREAD_MUTEX_INITIALIZER;
/* loop=: the names of the logs (the writer's rotations and the stop change path and log_path
 * under finish_mu) */
static struct loopfiles loop_files;
static char stop_path[OPTIONS_FILE_MAX + 64];
static int finished;
static int finish_rc;
static char finish_err[600];
/* 1 while engines[i] runs; exchanged so control_stop and the writer (duration over, a lost
 * signal) can both stop it: whoever takes the 1 stops it */
static atomic_int engine_on[ENGINES_MAX];
/* the engines (bit i: engines[i]) of the running or last session: whose thread hooks run */
static _Atomic unsigned engines_chosen;
static atomic_int said_stuck[ENGINES_MAX]; /* engine i's stuck message was said (say_once) */
/* serializes stop_sampling and check_handlers' engine stops (control threads, the writer) */
static pthread_mutex_t stop_mu = PTHREAD_MUTEX_INITIALIZER;

void control_init(jvmtiEnv *env)
{
    jvmti = env;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The rendered formats the agent can write at stop besides its own .fpl log. */
static int is_rendered(const char *p)
{
    static const char *const ext[] = {".html", ".collapsed", ".folded", ".pb.gz", ".jfr", ".txt"};
    size_t n = strlen(p);
    for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
        size_t e = strlen(ext[i]);
        if (n > e && strcmp(p + n - e, ext[i]) == 0)
            return 1;
    }
    return 0;
}

static int is_log(const char *p)
{
    size_t n = strlen(p);
    return n > 4 && strcmp(p + n - 4, ".fpl") == 0;
}

/* Opens (creating or truncating) a file for writing; -errno with err filled. */
static int create(const char *what, const char *p, char *err, size_t errlen)
{
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int rc = -errno;
        snprintf(err, errlen, "cannot open %s '%s': %s", what, p, strerror(-rc));
        return rc;
    }
    return fd;
}

static int open_expanded(const struct options *o, int pid, long now, char *err, size_t errlen);

/* Works out the output (file=) and the log the writer writes (the output itself for .fpl,
 * else log= or OUTPUT.fpl next to the output, rendered at stop) and opens the log. The output
 * is created and removed again at once: an unwritable path fails at start, not at exit, and
 * a JVM killed before the render leaves no empty (or older) page, only the log that
 * say_log_path names. */
static int open_output(const struct options *o, char *err, size_t errlen)
{
    int pid = (int)getpid();
    long now = (long)time(NULL);
    int rc;
    if (o->loop_ns) {
        /* loop=: the first log is number 1; its log= path is expanded with it */
        rc = loopfiles_init(&loop_files, o->file, o->log, pid, o->keep);
        if (rc == 0)
            rc = loopfiles_next(&loop_files, now, path, sizeof(path), log_path, sizeof(log_path));
        if (rc == -ENOMEM) {
            snprintf(err, errlen, "keep=%u: out of memory", o->keep);
            return rc;
        }
    } else {
        rc = options_expand_file(o->file, pid, now, path, sizeof(path));
    }
    if (rc != 0) {
        snprintf(err, errlen, "file=%s: the expanded path is too long", o->file);
        return rc;
    }
    return open_expanded(o, pid, now, err, errlen);
}

/* open_output's second half, for the paths expanded into path (and, with loop=, log_path):
 * picks the log, tries the output, opens the log. Also each new log of loop=. */
static int open_expanded(const struct options *o, int pid, long now, char *err, size_t errlen)
{
    render_at_stop = 0;
    keep_log = 0;
    if (is_log(path)) {
        snprintf(log_path, sizeof(log_path), "%s", path);
    } else if (is_rendered(path)) {
        struct stat st;
        int fd = create("output file", path, err, errlen);
        if (fd < 0)
            return fd;
        close(fd);
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
            unlink(path);
        render_at_stop = 1;
        if (o->log[0]) {
            if (!o->loop_ns &&
                options_expand_file(o->log, pid, now, log_path, sizeof(log_path)) != 0) {
                snprintf(err, errlen, "log=%s: the expanded path is too long", o->log);
                return -ENAMETOOLONG;
            }
            keep_log = 1;
        } else if (snprintf(log_path, sizeof(log_path), "%s.fpl", path) >= (int)sizeof(log_path)) {
            snprintf(err, errlen, "file=%s: the path is too long", path);
            return -ENAMETOOLONG;
        }
    } else {
        snprintf(err, errlen,
                 "file=%s: unknown format; the extension picks it: .fpl (the log), .html, "
                 ".collapsed, .pb.gz, .jfr or .txt",
                 path);
        return -EINVAL;
    }
    return create("log file", log_path, err, errlen);
}

/* The memory a render inside the JVM may take: 256 MiB, or a quarter of the memory available
 * now when that is less. FLYPROF_RENDER_BUDGET (bytes) replaces it, for tests. */
static uint64_t render_budget(void)
{
    const char *env = getenv("FLYPROF_RENDER_BUDGET");
    if (env && *env)
        return strtoull(env, NULL, 10);
    uint64_t budget = RENDER_BUDGET_MAX;
    FILE *f = fopen("/proc/meminfo", "re");
    if (f) {
        char line[128];
        unsigned long long kib;
        while (fgets(line, sizeof(line), f)) {
            if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
                if (kib * 1024 / 4 < budget)
                    budget = kib * 1024 / 4;
                break;
            }
        }
        fclose(f);
    }
    return budget;
}

/* Renders the log at log_path into out with the session's options, unless the estimate of
 * the memory it needs is over render_budget: inside the JVM the profiler must not take what a
 * big render takes (the CLI does it outside). dump: the log is still being written, so the
 * advice is to dump a .fpl instead. */
static int render_log(const char *out, int dump, char *err, size_t errlen)
{
    struct render_opts ro;
    memset(&ro, 0, sizeof(ro));
    /* the default of `flyprof convert`, so both render a log alike: a page shows every kind
     * (out_html_default_kind), the other formats CPU when there is any */
    ro.kind = PROFILE_KIND_AUTO;
    ro.threads = session.opts.threads;
    ro.state = RENDER_STATE_ALL;
    uint64_t need = 0, budget = render_budget();
    int rc = render_file_estimate(log_path, &ro, out, NULL, &need, err, errlen);
    if (rc)
        return rc;
    if (need > budget) {
        int n = snprintf(err, errlen,
                         "not rendered inside the JVM: it would take about %llu MiB, more than "
                         "the %llu MiB flyprof allows itself there; ",
                         (unsigned long long)(need >> 20), (unsigned long long)(budget >> 20));
        if (n > 0 && (size_t)n < errlen && dump)
            snprintf(err + n, errlen - (size_t)n,
                     "dump to a .fpl file and convert that with 'flyprof convert'");
        else if (n > 0 && (size_t)n < errlen)
            snprintf(err + n, errlen - (size_t)n, "convert the log with 'flyprof convert %s -o %s'",
                     log_path, out);
        return -EFBIG;
    }
    struct profile *p = profile_new();
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    /* an HTML page has a timeline, a JFR file times its events: the samples' times are kept
     * (bounded, timeline.h). pprof's labels and JFR's flyprof.ContextSample events need the
     * cells of each request apart, as `flyprof convert` reads them (the estimate above counts
     * such cells) */
    int fmt = render_file_format(out, NULL, err, errlen);
    p->cells_by_context = fmt == RENDER_FILE_PPROF || fmt == RENDER_FILE_JFR;
    /* JFR: an event per allocation, per lock wait (bounded, profile.h) */
    if (fmt == RENDER_FILE_JFR)
        profile_want_kept(p, PROFILE_MAX_KEPT);
    if ((fmt == RENDER_FILE_HTML || fmt == RENDER_FILE_JFR) && (rc = profile_want_timeline(p)) != 0)
        snprintf(err, errlen, "out of memory");
    /* JFR: each sample at its own time, spilled beside the output (a directory the agent
     * writes to anyway); without that file, at the start of the timeline's bins */
    if (rc == 0 && fmt == RENDER_FILE_JFR) {
        char dir[PATH_MAX] = ".";
        const char *slash = strrchr(out, '/');
        size_t len = slash == out ? 1 : slash ? (size_t)(slash - out) : 0;
        if (len && len < sizeof(dir)) {
            memcpy(dir, out, len);
            dir[len] = '\0';
        }
        (void)profile_want_spill(p, len < sizeof(dir) ? dir : NULL,
                                 1u << FPL_KIND_CPU | 1u << FPL_KIND_WALL);
    }
    if (rc == 0)
        rc = profile_read_file(p, log_path, err, errlen);
    if (rc == 0)
        rc = render_file_write(p, &ro, out, NULL, err, errlen);
    profile_free(p);
    return rc;
}

static int copy_file(const char *src, const char *dst, char *err, size_t errlen);

/* Moves the log at src to dst: a rename, or a copy and an unlink across file systems. */
static int move_file(const char *src, const char *dst, char *err, size_t errlen)
{
    if (rename(src, dst) == 0)
        return 0;
    if (errno != EXDEV) {
        int rc = -errno;
        snprintf(err, errlen, "cannot move the log to '%s': %s", dst, strerror(-rc));
        return rc;
    }
    int rc = copy_file(src, dst, err, errlen);
    if (rc == 0)
        unlink(src);
    return rc;
}

/* Called by the writer once the log is complete and closed: puts the output where it belongs.
 * The output is file= (path), or stop's file= when it gave one; a log (.fpl) output is the log
 * itself, moved there if it was written elsewhere; a rendered output is rendered from the log,
 * and a temporary log is removed unless log= asked to keep it. */
static void finish_output(void)
{
    char out[sizeof(stop_path)], err[sizeof(finish_err) - 100];
    int rc = 0;
    pthread_mutex_lock(&finish_mu);
    finished = 1;
    snprintf(out, sizeof(out), "%s", stop_path[0] ? stop_path : path);
    pthread_mutex_unlock(&finish_mu);
    int redirected = strcmp(out, path) != 0;
    err[0] = 0;
    if (is_log(out)) {
        if (strcmp(out, log_path) != 0) {
            rc = keep_log ? copy_file(log_path, out, err, sizeof(err))
                          : move_file(log_path, out, err, sizeof(err));
            if (rc == 0 && !keep_log)
                snprintf(log_path, sizeof(log_path), "%s", out);
        }
    } else if ((rc = render_log(out, 0, err, sizeof(err))) != 0) {
        /* not rendered (or skipped: over the render budget): the log stays, the output made
         * empty at start goes, and the reason goes to stderr once and to stop's reply */
        struct stat st;
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
            unlink(out);
        char why[sizeof(err)];
        memcpy(why, err, sizeof(why));
        /* a render over the budget says it all (the command converting the log to out), as
         * given: wrapped, it was cut at 120 characters, in the middle of that command */
        int len = rc == -EFBIG ? (int)strlen(err)
                               : snprintf(err, sizeof(err),
                                          "cannot write %.100s: %.200s (the raw log stays at "
                                          "%.100s)",
                                          out, why, log_path);
        (void)len; /* cut short at worst: the parts are bounded to fit */
        fprintf(stderr, "flyprof: cannot write %s: %s (the raw log stays at %s)\n", out, why,
                log_path);
    } else if (render_at_stop && !keep_log) {
        unlink(log_path);
    }
    pthread_mutex_lock(&finish_mu);
    if (rc == 0 && redirected)
        snprintf(path, sizeof(path), "%s", out); /* status names the output where it is */
    if (session.opts.loop_ns && !redirected)
        loopfiles_prune(&loop_files); /* the last log of loop= counts in keep= too */
    finish_rc = rc;
    snprintf(finish_err, sizeof(finish_err), "%s", err);
    pthread_mutex_unlock(&finish_mu);
}

/* loop=, on the writer thread: the log at log_path is complete and closed. Puts its output in
 * place as finish_output does for the last one (a rendered format is rendered from it here,
 * on the writer, while samples wait in the ring), deletes the files keep= lets go, and opens
 * the next log, named for the seam. Returns its fd, or -errno (said on stderr). */
static int rotate_output(const struct tsc_anchor *seam)
{
    char err[600];
    int rc;
    if (render_at_stop) {
        if ((rc = render_log(path, 0, err, sizeof(err))) != 0) {
            struct stat st;
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
                unlink(path);
            fprintf(stderr, "flyprof: cannot write %s: %s (the raw log stays at %s)\n", path,
                    err, log_path);
        } else if (!keep_log) {
            unlink(log_path);
        }
    }
    loopfiles_prune(&loop_files);
    long start = (long)(seam->real_ns / 1000000000ull);
    pthread_mutex_lock(&finish_mu);
    rc = loopfiles_next(&loop_files, start, path, sizeof(path), log_path, sizeof(log_path));
    if (rc == 0)
        rc = open_expanded(&session.opts, (int)getpid(), start, err, sizeof(err));
    else
        snprintf(err, sizeof(err), "file=%.500s: the expanded path is too long",
                 session.opts.file);
    pthread_mutex_unlock(&finish_mu);
    if (rc < 0)
        fprintf(stderr, "flyprof: loop=: cannot begin the next log: %s; its samples are lost "
                        "until the next one\n", err);
    return rc;
}

/* A rendered output is written only when profiling stops: says on the JVM's stderr where
 * the log goes meanwhile, which is what is left should the JVM die first. */
static void say_log_path(void)
{
    if (!render_at_stop)
        return;
    fprintf(stderr,
            "flyprof: profiling into the log %s%s; %s is rendered from it when profiling "
            "stops (should the JVM die first: flyprof convert %s -o %s)\n",
            log_path, keep_log ? " (kept)" : "", path, log_path, path);
}

/* Whether the session of o asks for engines[i]. */
static int chosen(const struct options *o, size_t i)
{
    return engines[i]->enabled(o);
}

/* The signals the engines of o need (signals_install's flags). */
static unsigned signals_needed(const struct options *o)
{
    unsigned flags = 0;
    for (size_t i = 0; i < engines_count; i++)
        if (chosen(o, i))
            flags |= engines[i]->signals;
    return flags;
}

/* Probes each engine o asks for: 0, or the first refusal (-errno, err filled). */
static int check_modes(const struct options *o, char *err, size_t errlen)
{
    for (size_t i = 0; i < engines_count; i++) {
        int rc = chosen(o, i) && engines[i]->probe ? engines[i]->probe(o, err, errlen) : 0;
        if (rc != 0)
            return rc;
    }
    return 0;
}

int control_prepare(const struct options *o, char *err, size_t errlen)
{
    pthread_mutex_lock(&lock);
    int rc = check_modes(o, err, errlen);
    if (rc == 0 && prepared_fd < 0) {
        rc = open_output(o, err, errlen);
        if (rc >= 0) {
            prepared_fd = rc;
            rc = 0;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

static void get_property(const char *name, char *out, size_t len)
{
    char *v = NULL;
    out[0] = 0;
    if ((*jvmti)->GetSystemProperty(jvmti, name, &v) == JVMTI_ERROR_NONE && v) {
        snprintf(out, len, "%s", v);
        (*jvmti)->Deallocate(jvmti, (unsigned char *)v);
    }
}

/* Prepares the native walk (cstack=auto): libunwind, the module list, and the JVM's code
 * cache bounds, where native frames end and Java frames begin. Returns 0 or -errno. */
static int native_setup(void)
{
    int rc = cfitab_init();
    if (rc != 0)
        return rc;
    /* every session samples the JVM's own threads: have the writer build libjvm's and libc's
     * tables first thing, not when a walk first meets them */
    void *jvm_fn = dlsym(RTLD_DEFAULT, "JNI_CreateJavaVM");
    if (jvm_fn)
        cfitab_want((uintptr_t)jvm_fn);
    cfitab_want((uintptr_t)&memcpy);
    const uintptr_t *lo = (const uintptr_t *)vmstructs_static_address("CodeCache", "_low_bound");
    const uintptr_t *hi = (const uintptr_t *)vmstructs_static_address("CodeCache", "_high_bound");
    if (lo && hi && *lo && *hi > *lo)
        nativewalk_set_code_bounds(lo, hi);
    else
        nativewalk_set_code_bounds(NULL, NULL); /* the walk stops outside known modules */
    return 0;
}

/* The handlers' scratch buffers for this machine's configured CPUs. Test hooks (never in
 * production use): FLYPROF_TEST_CPUS=N counts N CPUs, FLYPROF_TEST_SCRATCH=N makes exactly N. */
static unsigned scratch_count(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_CONF);
    const char *v = getenv("FLYPROF_TEST_CPUS");
    if (v && atol(v) > 0)
        cpus = atol(v);
    v = getenv("FLYPROF_TEST_SCRATCH");
    if (v && v[0] >= '0' && v[0] <= '9')
        return (unsigned)atol(v);
    return handler_scratch_count(cpus);
}

/* Says msg on stderr, once per flag for the JVM's life (a stuck thread stays stuck). */
static void say_once(atomic_int *said, const char *msg)
{
    /* relaxed: only which caller prints is decided here */
    if (!atomic_exchange_explicit(said, 1, memory_order_relaxed)) {
        fprintf(stderr, "flyprof: %s\n", msg);
        fflush(stderr);
    }
}

static atomic_int said_handler, said_writer;

/* Says msg on the JVM's stderr. */
static void say(const char *msg)
{
    fprintf(stderr, "flyprof: %s\n", msg);
    fflush(stderr);
}

/* What the session hands its engines; jni is the calling thread's at start, NULL at stop. */
static struct engine_session engine_session(JNIEnv *jni)
{
    return (struct engine_session){.jvmti = jvmti, .jni = jni, .ring = &ring,
                                   .o = &session.opts, .on_thread_start = control_thread_start};
}

/* Stops engines[i] if it runs (whoever takes its flag stops it); says once when it did not
 * stop in time. Under stop_mu. */
static void stop_engine(size_t i)
{
    if (!atomic_exchange_explicit(&engine_on[i], 0, memory_order_acq_rel))
        return;
    const struct engine *e = engines[i];
    struct engine_session s = engine_session(NULL);
    if (e->stop && e->stop(&s) != 0 && e->stuck)
        say_once(&said_stuck[i], e->stuck);
}

/* 1 while the engine named name runs. Any thread. */
static int engine_running(const char *name)
{
    for (size_t i = 0; i < engines_count; i++)
        if (strcmp(engines[i]->name, name) == 0)
            return atomic_load_explicit(&engine_on[i], memory_order_acquire);
    return 0;
}

/* Gives the signals back once nothing of ours sends them, keeping (inert) the handlers of
 * engines that did not end when stopped (a wall sampler stuck in a JVM walk): they may still
 * send their signal when they resume, and the default action of a real-time signal ends the
 * JVM (signals.h). Control context, with the engines stopped and the handlers deactivated. */
static void give_back_signals(void)
{
    unsigned keep = 0;
    for (size_t i = 0; i < engines_count; i++)
        if (engines[i]->lingering && engines[i]->lingering())
            keep |= engines[i]->signals & (SIGNALS_CPU | SIGNALS_WALL);
    signals_uninstall(keep);
}

/* Stops the engines and waits, bounded, for the sampler thread and running handlers. Called
 * by control_stop and by the writer when the duration ends, at once possibly: stop_mu makes
 * the second caller wait for the first (each wait is bounded), so neither returns while the
 * other's teardown is unfinished. Idempotent. */
static void stop_sampling(void)
{
    pthread_mutex_lock(&stop_mu);
    /* in the reverse of the start order: the samplers first (the wall sampler, the probes,
     * the JVMTI events, and the callbacks still inside waited for, bounded), then the engines
     * the handlers read (ENGINE_LATE) once no handler runs */
    for (size_t i = engines_count; i-- > 0;)
        if (!(engines[i]->flags & ENGINE_LATE))
            stop_engine(i);
    /* handlers off first: from here on no handler run reads a perf fd or the ring, so the
     * engines may close their fds (perf_disarm also waits for a run using its fd) */
    if (handler_deactivate(HANDLER_WAIT_NS) != 0)
        say_once(&said_handler, "a signal handler run did not return within 2 s (a thread "
                                "stopped inside it?); stopped waiting for it; profiling cannot "
                                "start again until it returns");
    for (size_t i = engines_count; i-- > 0;)
        if (engines[i]->flags & ENGINE_LATE)
            stop_engine(i);
    /* the CPU engines sent their last signal (timers deleted, perf events closed or replaced
     * by /dev/null): give the signals back. A handler run still stuck inside returns through
     * our code, which stays loaded. A wall sampler that did not stop may still send its
     * signal when it resumes: its handler stays installed, inert, until it has ended (the
     * default action of a real-time signal ends the JVM). */
    give_back_signals();
    methods_stop(); /* no more frames to name: classes prepared from now on get no ids */
    pthread_mutex_unlock(&stop_mu);
}

/* Stops the engines whose signals another library's handler now receives (lost: the
 * signals_check bits). Under stop_mu. */
static void check_lost(unsigned lost)
{
    for (size_t i = 0; i < engines_count; i++) {
        const struct engine *e = engines[i];
        unsigned mine = e->signals & lost;
        if (!mine || !atomic_load_explicit(&engine_on[i], memory_order_acquire))
            continue;
        stop_engine(i);
        fprintf(stderr, "flyprof: another library replaced flyprof's handler of signal %d; %s "
                        "stopped (the log and `flyprof summary` say so)\n",
                signals_signo(mine), e->what ? e->what : e->name);
    }
}

/* Once a second: when another library replaced one of our handlers, stop the engine that
 * sends that signal (its signals would now land in the other library's handler, and we would
 * sample nothing), and say so once. The log has the counter. */
static uint64_t check_handlers(struct fpl_buf *chunk, JNIEnv *jni)
{
    (void)chunk, (void)jni;
    unsigned lost = signals_check();
    if (!lost)
        return UINT64_MAX;
    pthread_mutex_lock(&stop_mu);
    check_lost(lost);
    pthread_mutex_unlock(&stop_mu);
    return UINT64_MAX;
}

/* Undoes writer_prepare when sampling or the writer's thread could not start: no producer
 * runs any more (the handlers are deactivated); what they pushed is dropped, or the next
 * session's writer would log it. */
static void abandon_writer(JNIEnv *jni, int fd)
{
    writer_unprepare();
    threads_set_deferred_purge(jni, 0);
    uint32_t len;
    while (ring_peek(&ring, &len))
        ring_release(&ring);
    close(fd);
}

/* Writer services (writer_session.services), run by the writer after each drain. */

/* What must not wait for a long unwind-table build (libjvm's), run every 50 ms of it
 * (cfitab_set_yield): arm the threads that started meanwhile (GC workers start with the first
 * collections), which would otherwise run unsampled until it ended, and drain the event
 * buffers, which would otherwise fill and drop (85% of 1M events in int_events once), and
 * begin the next log of loop= when it is due. */
static void during_build(void)
{
    tasks_refresh();
    writer_yield();
}

/* Builds the unwind tables the handlers asked for (they wake the writer) and scans the
 * loader's new modules; frees replaced snapshots and unloaded modules once no handler runs. */
static uint64_t unwind_tables_service(struct fpl_buf *chunk, JNIEnv *jni)
{
    (void)chunk, (void)jni;
    cfitab_set_yield(during_build);
    cfitab_service();
    if (cfitab_replaced() && handler_inflight() == 0)
        cfitab_reclaim();
    return UINT64_MAX;
}

/* At the end: the unwind tables stay for the next session (libjvm's costs the writer ~0.7 s
 * of CPU to build); snapshots replaced during this one go, once no handler runs (one that
 * never returned, which stop_sampling stopped waiting for, may still read them). */
static void unwind_tables_end(struct fpl_buf *chunk, JNIEnv *jni)
{
    (void)chunk, (void)jni;
    if (cfitab_replaced() && handler_inflight() == 0)
        cfitab_reclaim();
}

/* A CPU sampler on the threads that appeared since (GC, JIT, native threads); while threads
 * come and go it wants to look again sooner than the writer's next period. */
static uint64_t samplers_service(struct fpl_buf *chunk, JNIEnv *jni)
{
    (void)chunk, (void)jni;
    return tasks_refresh();
}

/* Once a second: frees the registry entries of threads dead for a full period (the writer
 * has named their samples). */
static uint64_t threads_service(struct fpl_buf *chunk, JNIEnv *jni)
{
    (void)chunk;
    threads_purge(jni);
    return UINT64_MAX;
}

/* At the end every sample is named: dead threads' entries need not wait for the writer. */
static void threads_end(struct fpl_buf *chunk, JNIEnv *jni)
{
    (void)chunk;
    threads_set_deferred_purge(jni, 0);
}

/* The session's own services; the engines' (engine.h: service) come first */
static struct writer_service services[ENGINES_MAX + 8]; /* the running session's */
static const struct writer_service writer_services[] = {
    {"thread purge", threads_service, WRITER_PERIOD_NS, 0, threads_end},
    {"signal check", check_handlers, WRITER_PERIOD_NS, 0, NULL},
    {"unwind tables", unwind_tables_service, 0, 0, unwind_tables_end},
    {"samplers on new threads", samplers_service, 0, 0, NULL},
};

/* Installs the signal handlers the options need; err says why not. */
static int install_handlers(const struct options *o, char *err, size_t errlen)
{
    int rc = signals_install(signals_needed(o), handler_cpu_signal, handler_wall_signal);
    if (rc == -EBUSY)
        snprintf(err, errlen,
                 "engine=itimer needs SIGPROF (ITIMER_PROF sends no other signal), and SIGPROF "
                 "already has a handler that is not flyprof's (another profiler or agent?): "
                 "flyprof does not take it over. Use engine=cputimer or engine=perf, which "
                 "run on a signal of their own");
    else if (rc == -EAGAIN)
        snprintf(err, errlen,
                 "no free signal for flyprof: SIGPROF and SIGRTMIN+5 .. SIGRTMIN+12 all have "
                 "handlers of other libraries, which flyprof does not take over");
    else if (rc != 0)
        snprintf(err, errlen, "cannot set up the signal handler: %s", strerror(-rc));
    return rc;
}

/* Stops the writer (bounded): 0, or -ETIMEDOUT with err filled and said on stderr. */
static int stop_writer(char *err, size_t errlen)
{
    if (writer_stop() == 0)
        return 0;
    snprintf(err, errlen, "the writer thread made no progress for 10 s; stopped waiting for it: "
                          "the log %s may be incomplete", log_path);
    say_once(&said_writer, err);
    return -ETIMEDOUT;
}

/* The crash guard, what it must put back when a walk faults, then what the walker reads of
 * HotSpot's structures. Without those the walker uses plain AsyncGetCallTrace, said once. */
static int setup_walker(JNIEnv *jni, intptr_t env_off, const struct options *o, char *err,
                        size_t errlen)
{
    static int told;
    int rc = crashguard_install();
    if (rc != 0) {
        snprintf(err, errlen, "cannot install the stack walker's crash guard: %s", strerror(-rc));
        return rc;
    }
    vmstructs_guard_setup();
    int flag = env_off ? vmstructs_asgct_flag(jni, env_off) : -1;
    char why[256];
    int vm = vmstructs_walker_setup(env_off, why, sizeof(why)) == 0;
    if (!vm && !o->walk_agct && !told) {
        told = 1;
        fprintf(stderr, "flyprof: %s\n", why);
    }
    enum stackwalk_mode mode = !vm || o->walk_agct == 1 ? STACKWALK_AGCT
                               : o->walk_agct == 2      ? STACKWALK_CHECK
                                                        : STACKWALK_VM;
    rc = stackwalk_configure(mode, flag, env_off, o->fault_every);
    if (rc != 0)
        snprintf(err, errlen, "cannot set up the stack walker: %s", strerror(-rc));
    return rc;
}

/* Starts the engines o asks for whose ENGINE_EARLY flag is early (as given), in the table's
 * order. An engine that cannot run but lets the session go on (ENGINE_SKIPPED) is said on
 * stderr, naming what the JVM refused, and so is a warning of one that started. Returns 0,
 * or the first failure (-errno, err filled); the engines started before it keep running
 * (stop_sampling stops them). */
static int start_engines(JNIEnv *jni, const struct options *o, unsigned early, char *err,
                         size_t errlen)
{
    struct engine_session s = engine_session(jni);
    for (size_t i = 0; i < engines_count; i++) {
        const struct engine *e = engines[i];
        if ((e->flags & ENGINE_EARLY) != early || !chosen(o, i))
            continue;
        char msg[512];
        msg[0] = 0;
        int rc = e->start ? e->start(&s, msg, sizeof(msg)) : 0;
        if (rc < 0) {
            snprintf(err, errlen, "%s", msg[0] ? msg : strerror(-rc));
            return rc;
        }
        if (msg[0])
            say(msg);
        if (rc == 0)
            atomic_store_explicit(&engine_on[i], 1, memory_order_release);
    }
    return 0;
}

int control_start(JNIEnv *jni, const struct options *o, char *err, size_t errlen)
{
    int rc = 0, fd = -1;
    pthread_mutex_lock(&lock);
    if (writer_running()) {
        snprintf(err, errlen, "profiling is already running (output %s): stop it first", path);
        rc = -EBUSY;
        goto out;
    }
    if ((rc = check_modes(o, err, errlen)) != 0)
        goto out;
    if (stackwalk_init() != 0) {
        snprintf(err, errlen, "AsyncGetCallTrace not found: this JVM is not HotSpot");
        rc = -ENOENT;
        goto out;
    }
    /* FLYPROF_CLOCK=monotonic forces the fallback clock, so it can be tested on TSC machines */
    const char *clk = getenv("FLYPROF_CLOCK");
    tsc_init(20, clk && strcmp(clk, "monotonic") == 0);
    if (!ring_ready) {
        if ((rc = ring_init(&ring, RING_BYTES)) != 0) {
            snprintf(err, errlen, "cannot allocate the sample ring: %s", strerror(-rc));
            goto out;
        }
        ring_ready = 1;
    }
    /* a handler run of an earlier session that never returned may still write the ring and
     * the scratch buffers: they cannot be handed to a new session until it has */
    if (handler_deactivate(HANDLER_WAIT_NS) != 0) {
        snprintf(err, errlen, "a signal handler run of the previous session has not returned "
                              "(a thread stopped inside it?): profiling cannot start again "
                              "until it does");
        rc = -EBUSY;
        goto out;
    }
    intptr_t env_off = 0;
    if (threads_env_offset(jvmti, jni, &env_off) != 0)
        env_off = 0;
    {
        int64_t state_off = vmstructs_offset("JavaThread", "_thread_state");
        if (state_off > 0 && env_off)
            handler_set_native_probe(env_off, (intptr_t)state_off);
    }
    if ((rc = setup_walker(jni, env_off, o, err, errlen)) != 0)
        goto out;
    if ((rc = handler_init(&ring, o->depth, scratch_count())) != 0) {
        snprintf(err, errlen, "cannot set up the signal handler: %s", strerror(-rc));
        goto out;
    }
    if ((rc = install_handlers(o, err, errlen)) != 0)
        goto out;
    /* no handler runs yet: the native walk's switch and tables may change */
    /* native frames come only from the signal handlers' walks: a session of alloc and lock
     * alone (JVMTI walks, Java frames) does not have the writer build unwind tables, which
     * cost 0.4 s of its CPU at a start */
    handler_set_cstack(o->cstack == OPTIONS_CSTACK_AUTO && signals_needed(o) &&
                       native_setup() == 0);
    if (prepared_fd >= 0) {
        fd = prepared_fd;
        prepared_fd = -1;
    } else if ((fd = open_output(o, err, errlen)) < 0) {
        rc = fd;
        give_back_signals();
        goto out;
    }

    pthread_mutex_lock(&finish_mu);
    finished = 0;
    finish_rc = 0;
    stop_path[0] = 0;
    pthread_mutex_unlock(&finish_mu);
    memset(&session, 0, sizeof(session));
    session.jvmti = jvmti;
    session.ring = &ring;
    session.fd = fd;
    session.log_path = log_path;
    session.opts = *o;
    session.pid = (int)getpid();
    session.stop_sampling = stop_sampling;
    session.finish = finish_output;
    session.rotate_ns = o->loop_ns;
    session.rotate = rotate_output;
    {
        size_t n = 0;
        for (size_t i = 0; i < engines_count; i++)
            if (chosen(o, i) && engines[i]->service)
                services[n++] = *engines[i]->service;
        for (size_t i = 0; i < sizeof(writer_services) / sizeof(writer_services[0]); i++)
            services[n++] = writer_services[i];
        session.services = services;
        session.nservices = n;
    }
    get_property("java.vm.name", session.jvm_name, sizeof(session.jvm_name));
    get_property("java.vm.version", session.jvm_version, sizeof(session.jvm_version));
    get_property("sun.java.command", session.command, sizeof(session.command));
    /* jmethodIDs for the classes loaded while idle, before the first sample needs them; before
     * the log's start too: attached to a JVM with thousands of classes, the first preload
     * takes a few hundred ms (it learns their Methods' vtables), and a start stamped before
     * it opened the log with that long a window no sample could cover */
    methods_start(jvmti, jni);
    counters_reset();
    counters_add_sigsafe(FPL_CTR_CPU_SIGNO, (uint64_t)signals_cpu_signo());
    counters_add_sigsafe(FPL_CTR_SCRATCH_BUFFERS, handler_scratch_buffers());
    counters_add_sigsafe(FPL_CTR_SAFEREAD, (uint64_t)saferead_way());
    tsc_anchor(&session.start);
    if (o->duration_ns)
        session.deadline_mono_ns = mono_ns() + o->duration_ns;

    threads_set_deferred_purge(jni, 1); /* the writer names samples of threads that end */
    cfitab_set_deadline(session.deadline_mono_ns); /* read by the writer's table builds */
    if ((rc = writer_prepare(&session)) != 0) {
        threads_set_deferred_purge(jni, 0);
        methods_stop();
        give_back_signals();
        snprintf(err, errlen, "cannot start the writer: %s", strerror(-rc));
        close(fd);
        goto out;
    }
    /* sampling first, the writer's thread after: creating a Java thread waits while the JVM
     * is at a safepoint, and attached to a JVM in a long GC pause the log started up to
     * 0.5 s before its first sample (samples wait in the ring meanwhile) */
    unsigned mask = 0;
    for (size_t i = 0; i < engines_count; i++)
        if (chosen(o, i))
            mask |= 1u << i;
    /* release: ThreadStart hooks that see the mask see the session's options too */
    atomic_store_explicit(&engines_chosen, mask, memory_order_release);
    handler_activate();
    if ((rc = start_engines(jni, o, ENGINE_EARLY, err, errlen)) != 0) {
        stop_sampling();
        abandon_writer(jni, fd);
        goto out;
    }
    if ((rc = writer_start(&session, jni)) != 0) {
        stop_sampling();
        abandon_writer(jni, fd);
        snprintf(err, errlen, "cannot start the writer thread");
        goto out;
    }
    if ((rc = start_engines(jni, o, 0, err, errlen)) != 0) {
        stop_sampling();
        writer_stop();
        goto out;
    }
    say_log_path();
out:
    pthread_mutex_unlock(&lock);
    return rc;
}

int control_stop(char *err, size_t errlen)
{
    return control_stop_to(NULL, err, errlen);
}

int control_stop_to(const char *file, char *err, size_t errlen)
{
    pthread_mutex_lock(&lock);
    int rc = 0;
    if (!writer_running()) {
        snprintf(err, errlen, "profiling is not running");
        rc = -ENOENT;
        goto out;
    }
    if (file) {
        if (!is_log(file) && !is_rendered(file)) {
            snprintf(err, errlen,
                     "stop: '%s': unknown format; use .fpl, .html, .collapsed, .pb.gz, .jfr or .txt",
                     file);
            rc = -EINVAL;
            goto out;
        }
        /* an output that cannot be written fails the stop, and profiling goes on */
        int fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            rc = -errno;
            snprintf(err, errlen, "stop: cannot open '%s': %s", file, strerror(-rc));
            goto out;
        }
        close(fd);
        pthread_mutex_lock(&finish_mu);
        if (!finished)
            snprintf(stop_path, sizeof(stop_path), "%s", file);
        pthread_mutex_unlock(&finish_mu);
    }
    stop_sampling();
    rc = stop_writer(err, errlen);
    if (rc == 0) {
        /* the writer finished: finish_output ran and left its result */
        pthread_mutex_lock(&finish_mu);
        rc = finish_rc;
        if (rc) /* profiling stopped, but the output asked for is not there: say why */
            snprintf(err, errlen, "stopped, but %s", finish_err);
        pthread_mutex_unlock(&finish_mu);
    }
out:
    pthread_mutex_unlock(&lock);
    return rc;
}

const char *control_output(void)
{
    return path;
}

/* Copies the log file at src (as far as written) to dst. */
static int copy_file(const char *src, const char *dst, char *err, size_t errlen)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        int rc = -errno;
        snprintf(err, errlen, "cannot read the log '%s': %s", src, strerror(-rc));
        return rc;
    }
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) {
        int rc = -errno;
        close(in);
        snprintf(err, errlen, "cannot write '%s': %s", dst, strerror(-rc));
        return rc;
    }
    char buf[65536];
    int rc = 0;
    for (;;) {
        ssize_t n = read(in, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -errno : 0;
            break;
        }
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                rc = -errno;
                break;
            }
            off += w;
        }
        if (rc)
            break;
    }
    close(in);
    if (close(out) != 0 && !rc)
        rc = -errno;
    if (rc)
        snprintf(err, errlen, "cannot copy the log to '%s': %s", dst, strerror(-rc));
    return rc;
}

int control_dump(const char *file, char *err, size_t errlen)
{
    pthread_mutex_lock(&lock);
    int rc;
    if (!writer_running()) {
        snprintf(err, errlen, "profiling is not running: nothing to dump");
        rc = -ENOENT;
    } else if (!is_log(file) && !is_rendered(file)) {
        snprintf(err, errlen,
                 "dump %s: unknown format; use .fpl, .html, .collapsed, .pb.gz, .jfr or .txt", file);
        rc = -EINVAL;
    } else if ((rc = writer_sync()) != 0) {
        snprintf(err, errlen, rc == -ETIMEDOUT ? "the writer thread made no progress for 10 s: "
                                                 "nothing dumped"
                                               : "profiling stopped during the dump");
    } else if (is_log(file)) {
        /* the copy is a complete prefix of the log: every chunk in it verifies, and a reader
         * takes the missing END as "still running" */
        rc = copy_file(log_path, file, err, errlen);
    } else {
        rc = render_log(file, 1, err, errlen);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void control_status(char *buf, size_t len)
{
    pthread_mutex_lock(&lock);
    int on = writer_running();
    const struct options *o = &session.opts;
    /* alloc: the interval in bytes; lock: the threshold in ns; "off" when not running (or the
     * JVM refused it) */
    char alloc_s[24], lock_s[24];
    snprintf(alloc_s, sizeof(alloc_s), "%llu", (unsigned long long)o->alloc_bytes);
    snprintf(lock_s, sizeof(lock_s), "%llu", (unsigned long long)o->lock_ns);
    /* key=value fields the attach CLI parses; file last, it may contain spaces */
    snprintf(buf, len,
             "running=%d cpu=%llu engine=%s wall=%llu wallthreads=%u filter=%d hiccup=%llu "
             "alloc=%s lock=%s "
             "samples=%llu drops=%llu threads=%d lost_chunks=%llu lost_samples=%llu "
             "write_errno=%llu idclasses=%llu file=%s",
             on, on ? (unsigned long long)o->cpu_interval_ns : 0ull,
             on && o->cpu_interval_ns ? engine_of(o->engine)->name : "none",
             on ? (unsigned long long)o->wall_interval_ns : 0ull, on ? o->wall_threads : 0,
             on ? o->filter : 0, on ? (unsigned long long)o->hiccup_ns : 0ull,
             on && engine_running("alloc") ? alloc_s : "off",
             on && engine_running("lock") ? lock_s : "off",
             (unsigned long long)writer_samples_written(),
             (unsigned long long)(ring_ready ? ring_drops(&ring) : 0), threads_count_live(),
             (unsigned long long)counters_get(FPL_CTR_WRITE_LOST_CHUNKS),
             (unsigned long long)counters_get(FPL_CTR_WRITE_LOST_SAMPLES),
             (unsigned long long)counters_get(FPL_CTR_WRITE_ERRNO),
             (unsigned long long)methods_classes(), path[0] ? path : "-");
    pthread_mutex_unlock(&lock);
}

int control_write_losses(char *buf, size_t len)
{
    unsigned long long chunks = counters_get(FPL_CTR_WRITE_LOST_CHUNKS);
    buf[0] = 0;
    if (!chunks)
        return 0;
    snprintf(buf, len,
             "%llu chunk%s of the log (%llu samples) could not be written (%s): the profile is "
             "incomplete",
             chunks, chunks == 1 ? "" : "s",
             (unsigned long long)counters_get(FPL_CTR_WRITE_LOST_SAMPLES),
             strerror((int)counters_get(FPL_CTR_WRITE_ERRNO)));
    return 1;
}

void control_thread_start(struct threads_entry *e)
{
    unsigned mask = atomic_load_explicit(&engines_chosen, memory_order_acquire);
    for (size_t i = 0; i < engines_count; i++)
        if ((mask >> i & 1) && engines[i]->thread_start)
            engines[i]->thread_start(e->tid, e->slot);
}

void control_thread_end(struct threads_entry *e)
{
    unsigned mask = atomic_load_explicit(&engines_chosen, memory_order_acquire);
    for (size_t i = 0; i < engines_count; i++)
        if ((mask >> i & 1) && engines[i]->thread_end)
            engines[i]->thread_end(e->tid, e->slot);
}

int control_running(void)
{
    return writer_running();
}
