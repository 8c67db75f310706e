/* fpl_optval.h: the values of agent options that the agent and the flyprof CLI both read or
 * write, so that each is parsed and formatted in one place: TIME ("10ms"), and the output file
 * template ("flyprof-%p-%t.fpl"). The agent parses its option string with them (agent/options.c);
 * the CLI checks what it passes on before a JVM sees it, prints intervals back in a form the
 * agent takes, and finds the files the agent named. The log's HEADER carries the option string
 * as given, so these grammars are part of the contract between the two sides.
 *
 * Pure functions: no globals, no I/O. Any thread; not async-signal-safe.
 */
#ifndef FPL_OPTVAL_H
#define FPL_OPTVAL_H

#include <stddef.h>
#include <stdint.h>

/* TIME, in every agent option and every CLI option that takes one: a decimal number (digits,
 * optionally a '.' and a fraction: 2.5) and a unit: ns, us, ms, s, min or h, nothing else (no
 * sign, space or exponent). A number without a unit is a duration in seconds where the option
 * is a duration (the agent's duration=, the CLI's -d, --from/--to offsets), and refused
 * everywhere else (intervals, resolutions, thresholds: cpu=, wall=, hiccup=, stall=, -i, -r,
 * -t ...), with a message that names the option and offers the number with a unit. */
#define FPL_OPTVAL_UNITS "ns, us, ms, s, min, h"

/* The sampling intervals both sides accept (agent cpu= and wall=, the CLI's -i and --wall):
 * below 100us the signal handlers would dominate the profiled program. */
#define FPL_OPTVAL_MIN_INTERVAL_NS 100000ull                  /* 100 us */
#define FPL_OPTVAL_MAX_INTERVAL_NS (86400ull * 1000000000ull) /* 1 day */

/* Parses an interval, resolution or threshold TIME from s[0..n) (need not be NUL-terminated):
 * a unit is required. Stores the nanoseconds, rounded to the nearest, in *ns; no range check
 * (0 is accepted). Returns 0, -EDOM for a number without a unit, -EINVAL when malformed (or s
 * or ns NULL), or -ERANGE when the value does not fit in 64 bits of nanoseconds. */
int fpl_optval_time(const char *s, size_t n, uint64_t *ns);

/* As fpl_optval_time for a duration: a number without a unit is seconds (never -EDOM). */
int fpl_optval_duration(const char *s, size_t n, uint64_t *ns);

/* For a number given without a unit (s[0..n), as typed): up to two ways to write it with a
 * unit (ns, us, ms or s) that land within [lo, hi] ns and above 0, the nearest to typical ns
 * first, each after prefix ("cpu=" or "-i "), into buf: "cpu=5ms or cpu=5s". buf is "" when
 * none fits. Returns buf. */
const char *fpl_optval_with_unit(const char *s, size_t n, uint64_t lo, uint64_t hi,
                                 uint64_t typical, const char *prefix, char *buf, size_t cap);

/* Formats ns as a TIME fpl_optval_time reads back exactly, with the largest unit that divides
 * it: "10ms", "1s", "250us", "1500ns" ("0ns" for 0). Returns buf. */
const char *fpl_optval_time_str(uint64_t ns, char *buf, size_t cap);

/* Expands the file template tmpl into out[0..outlen): %p -> pid (decimal), %t -> start_sec as
 * local time YYYYmmdd-HHMMSS, %% -> %; any other '%' is kept literally. Returns 0, -EINVAL
 * when tmpl or out is NULL or start_sec has no local time, or -ENAMETOOLONG when the result
 * and its NUL do not fit in outlen. On error out is "" (when outlen > 0). */
int fpl_optval_expand_file(const char *tmpl, int pid, long start_sec, char *out, size_t outlen);

/* fpl_optval_expand_file, and %n -> seq as six digits or more (000001: file names of loop=
 * sort by number); seq < 0 keeps %n literally, as fpl_optval_expand_file does. */
int fpl_optval_expand_file_seq(const char *tmpl, int pid, long start_sec, long seq, char *out,
                               size_t outlen);

#endif
