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

/* The TIME grammar for messages. */
#define FPL_OPTVAL_TIME_HINT "a TIME such as 10ms (units ns, us, ms, s; a bare number is ns)"

/* Parses TIME from s[0..n) (need not be NUL-terminated): decimal digits, then an optional unit
 * ns, us, ms or s (no unit: ns), nothing else (no sign, space or fraction). Stores the
 * nanoseconds in *ns; no range check (0 is accepted). Returns 0, -EINVAL when malformed (or s
 * or ns NULL), or -ERANGE when the value does not fit in 64 bits of nanoseconds. */
int fpl_optval_time(const char *s, size_t n, uint64_t *ns);

/* Formats ns as a TIME fpl_optval_time reads back exactly, with the largest unit that divides
 * it: "10ms", "1s", "250us", "1500ns" ("0ns" for 0). Returns buf. */
const char *fpl_optval_time_str(uint64_t ns, char *buf, size_t cap);

/* Expands the file template tmpl into out[0..outlen): %p -> pid (decimal), %t -> start_sec as
 * local time YYYYmmdd-HHMMSS, %% -> %; any other '%' is kept literally. Returns 0, -EINVAL
 * when tmpl or out is NULL or start_sec has no local time, or -ENAMETOOLONG when the result
 * and its NUL do not fit in outlen. On error out is "" (when outlen > 0). */
int fpl_optval_expand_file(const char *tmpl, int pid, long start_sec, char *out, size_t outlen);

#endif
