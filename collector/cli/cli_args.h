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
 * or h (500ms, 5s, 2min). Stores it in *ns. Returns 0, or -EINVAL when malformed, not above 0
 * or above max_ns. */
int cli_args_duration(const char *s, uint64_t max_ns, uint64_t *ns);

/* The duration forms, for messages. */
#define CLI_ARGS_DURATION_HINT "seconds (30, 2.5) or a time with a unit (500ms, 5s, 2min)"

#endif
