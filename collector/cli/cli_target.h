/* cli_target.h: what the commands acting on a running JVM share (attach, start, stop, dump,
 * status): their arguments (PID and options), the target inspected, the agent staged and
 * started, one agent action run, and how paths and processes are named in messages. Prints its
 * errors (cli_msg); the functions that can fail return 0 or the exit code. CLI main thread.
 */
#ifndef CLI_TARGET_H
#define CLI_TARGET_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "attach.h"
#include "cli_args.h"

/* What a command accepts besides PID (cli_target_parse's allowed). */
enum {
    CLI_TARGET_D = 1,     /* -d DURATION */
    CLI_TARGET_MODE = 2,  /* -e, -i, --wall, --threads */
    CLI_TARGET_O = 4,     /* -o FILE */
    CLI_TARGET_EXTRA = 8, /* agent options */
};

#define CLI_TARGET_DEFAULT_NS 10000000000ull            /* attach -d: 10 s */
#define CLI_TARGET_MAX_NS (365ull * 86400 * 1000000000) /* the agent's duration= limit */

struct cli_target_args {
    const char *cmd;
    pid_t pid;
    uint64_t duration_ns; /* -d, or CLI_TARGET_DEFAULT_NS */
    int duration_given;
    const char *events;
    const char *interval;
    const char *wall; /* --wall TIME */
    const char *output;
    int threads;
    int extra_duration;         /* duration= among the agent options */
    int extra_modes;            /* cpu or wall among the agent options */
    int extra_alloc, extra_lock, extra_live; /* alloc[=], lock[=], live among agent options */
    char extra[ATTACH_ARG_MAX]; /* agent options, comma-separated, without file= */
    size_t extra_len;
};

/* Set by SIGINT / SIGTERM / SIGHUP once cli_target_catch_signals ran: attach stops profiling
 * early and still writes; the others finish the action they are in. */
extern volatile sig_atomic_t cli_target_interrupted;

/* Catches SIGINT, SIGTERM and SIGHUP (a second one leaves at once). */
void cli_target_catch_signals(void);

/* Parses "PID [options]" for the command c (argv[0]); allowed says which options it takes.
 * Returns 0, -1 after printing the help (the command then exits 0), or the exit code after
 * printing a usage error. */
int cli_target_parse(int argc, char **argv, unsigned allowed, const struct cli_cmd *c,
                     struct cli_target_args *a);

/* The output path made absolute in out (the JVM has another working directory); checks what
 * the agent cannot take. Returns 0 or the exit code (printed). */
int cli_target_absolute_output(const char *cmd, const char *path, char *out, size_t cap);

/* Inspects the target; returns 0 or the exit code (printed). */
int cli_target_inspect(pid_t pid, struct attach_target *t);

/* The target with flyprof loaded in it (inspected into *t); says why not, naming what could
 * not be done. Returns 0 or the exit code. */
int cli_target_loaded(const struct cli_target_args *a, struct attach_target *t, const char *what);

/* "process 123 (JDK 17, app.Main)" into buf. */
const char *cli_target_describe(const struct attach_target *t, char *buf, size_t cap);

/* Where the user finds a file the JVM wrote: through /proc/PID/root when it lives in another
 * mount namespace and is not the same file here. */
const char *cli_target_seen_from_here(const struct attach_target *t, const char *path, char *buf,
                                      size_t cap);

/* Runs one agent action (opts) and prints its failure. r may be NULL. Returns 0 or -errno. */
int cli_target_action(const struct attach_target *t, const char *lib, const char *opts,
                      struct attach_reply *r);

/* attach and start: inspects the target, stages the agent, starts profiling (stopping by
 * itself after duration_ms when not 0: the user's duration=, or with safety set attach's own
 * stop, which the agent keeps out of the log's options). On success *t, lib, file (the output as
 * the agent expanded it) and modes (what it samples how often, from its status: "cpu every
 * 10ms") are set. Returns 0 or the exit code (printed). */
int cli_target_start(const struct cli_target_args *a, uint64_t duration_ms, int safety,
                     struct attach_target *t, char *lib, size_t libcap, char *file, size_t filecap,
                     char *modes, size_t modescap);

/* The output path an agent's status reply names (the expanded file=), else fallback. */
void cli_target_reported_file(const struct attach_reply *r, const char *fallback, char *out,
                              size_t cap);

/* 1 when the process is gone (or a zombie: dead, not yet reaped). */
int cli_target_gone(pid_t pid);

#endif
