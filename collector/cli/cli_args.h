/* cli_args.h: what the commands share to read their arguments: the command table entry with
 * its help text, option matching, and durations. CLI main thread.
 *
 * Help texts follow one shape, so `flyprof help CMD` and `flyprof CMD --help` read alike:
 *
 *   usage: flyprof CMD ARGS...
 *
 *   What the command does, in a sentence or two.
 *
 *   options:
 *     -x VALUE        what it does (default)
 *
 *   example:
 *     flyprof CMD ...
 */
#ifndef CLI_ARGS_H
#define CLI_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cli_cmd {
    const char *name;
    const char *summary; /* one line for `flyprof help` */
    const char *help;    /* the whole help text (above), ending in a newline */
    /* runs the command: argv[0] is its name; returns the exit code */
    int (*run)(int argc, char **argv);
};

/* 1 for -h and --help. */
int cli_args_is_help(const char *a);

/* Prints c's help to f. */
void cli_args_help(const struct cli_cmd *c, FILE *f);

/* Matches "--name VALUE", "--name=VALUE" or "-n VALUE" (shrt may be NULL) at argv[*i];
 * advances *i over a separate value. Returns 1 on a match (with *val set), 0 if no match, -1
 * if the value is missing. */
int cli_args_value(int argc, char **argv, int *i, const char *lng, const char *shrt,
                   const char **val);

/* A duration for -d: a number of seconds (30, 2.5) or a number with a unit ns, us, ms, s, min
 * or h (500ms, 5s, 2min): fpl_optval_duration. Stores it in *ns. Returns 0, or -EINVAL when
 * malformed, not above 0 or above max_ns. */
int cli_args_duration(const char *s, uint64_t max_ns, uint64_t *ns);

/* An interval, resolution or threshold s given to option opt of cmd (-i, --wall, -t): a
 * number and a unit (fpl_optval_time), within [lo, hi] ns. A bare number is refused with the
 * ways to write it that fit (the nearest to typical first); what names the value in other
 * messages ("interval", "threshold"). Every message quotes s as given. Returns 0 with *ns
 * set, or CLI_EXIT_USAGE after printing what is wrong. */
int cli_args_time(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi,
                  uint64_t typical, const char *what, uint64_t *ns);

/* The sampling intervals of record, attach and start, from -e EVENTS, -i TIME and --wall TIME
 * (each NULL when not given): cpu on when EVENTS names it (or is not given and --wall is not
 * either); wall on when EVENTS names it or --wall is given. -i is the cpu interval, or the
 * wall one when only wall is on; --wall the wall interval. Unset intervals take the agent's
 * defaults (CLI_ARGS_CPU_NS, CLI_ARGS_WALL_NS). *cpu_ns / *wall_ns get 0 for a mode that is
 * off. Returns 0, or CLI_EXIT_USAGE after printing what is wrong. */
int cli_args_modes(const char *cmd, const char *events, const char *interval, const char *wall,
                   uint64_t *cpu_ns, uint64_t *wall_ns);

/* -e EVENTS: a comma-separated list of cpu, wall, alloc, lock and live, each at most once. The
 * CLI_ARGS_EV_* bits it names, or 0 when it names something else (or nothing). */
#define CLI_ARGS_EV_CPU 1u
#define CLI_ARGS_EV_WALL 2u
#define CLI_ARGS_EV_ALLOC 4u
#define CLI_ARGS_EV_LOCK 8u
#define CLI_ARGS_EV_LIVE 16u /* the live-heap view, with alloc (which it implies) */
unsigned cli_args_event_bits(const char *events);

/* The agent's default intervals (agent/options.h), for what the CLI says and passes on. */
#define CLI_ARGS_CPU_NS 10000000ull  /* 10 ms */
#define CLI_ARGS_WALL_NS 50000000ull /* 50 ms */

/* "cpu every 5ms, wall every 50ms" into buf; with -i given for both modes and no --wall
 * (explain set), a note that -i went to cpu only. */
const char *cli_args_modes_str(uint64_t cpu_ns, uint64_t wall_ns, int explain, char *buf,
                               size_t cap);

/* cli_args_modes_str, then ", allocations" and ", lock waits" for the CLI_ARGS_EV_ALLOC and
 * _LOCK bits of ev (alone when cpu and wall are off). */
const char *cli_args_modes_str_ev(uint64_t cpu_ns, uint64_t wall_ns, unsigned ev, int explain,
                                  char *buf, size_t cap);

/* The duration forms, for messages. */
#define CLI_ARGS_DURATION_HINT "seconds (30, 2.5) or a time with a unit (500ms, 5s, 2min)"

#endif
