/* options.h: the agent's option string (DESIGN "User-facing contract"), parsed into a struct.
 * Pure: no JVM, no I/O, no globals. Any thread.
 */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#define OPTIONS_FILE_MAX 1024
#define OPTIONS_DEFAULT_CPU_NS 10000000ull      /* 10 ms */
#define OPTIONS_DEFAULT_WALL_NS 50000000ull     /* 50 ms */
#define OPTIONS_DEFAULT_WALL_THREADS 16
#define OPTIONS_DEFAULT_DEPTH 2048
#define OPTIONS_MAX_DEPTH 8192
#define OPTIONS_DEFAULT_FILE "flyprof-%p.fpl"

enum options_action {
    OPTIONS_START = 0,
    OPTIONS_STOP,
    OPTIONS_DUMP,
    OPTIONS_STATUS,
};

struct options {
    enum options_action action;     /* default OPTIONS_START */
    uint64_t cpu_interval_ns;       /* 0: CPU sampling off */
    uint64_t wall_interval_ns;      /* 0: wall-clock sampling off */
    int engine;                     /* enum fpl_engine; default FPL_ENGINE_CPUTIMER */
    unsigned wall_threads;          /* default 16 */
    int filter;                     /* wall samples only filtered threads */
    unsigned depth;                 /* max Java frames, 1..OPTIONS_MAX_DEPTH, default 2048 */
    char file[OPTIONS_FILE_MAX];    /* output path template, default OPTIONS_DEFAULT_FILE */
    int file_given;                 /* file= appeared */
    int threads;                    /* per-thread roots in rendered outputs */
    uint64_t duration_ns;           /* 0: until stop or VM exit */
    char raw[OPTIONS_FILE_MAX];     /* the option string as given (truncated), for the log */
};

/* Fills *o with the defaults. */
void options_defaults(struct options *o);

/* Parses `s` (NULL or "" means defaults) into *o. Returns 0, or -EINVAL with a message in
 * err[0..errlen) that names the offending key or value and says what is accepted. When neither
 * `cpu` nor `wall` is named, CPU sampling is on at the default interval. */
int options_parse(const char *s, struct options *o, char *err, size_t errlen);

/* Parses TIME: digits with an optional unit ns|us|ms|s (no unit: ns). Returns 0 or -EINVAL. */
int options_parse_time(const char *s, uint64_t *ns);

/* Expands %p (pid) and %t (start time, YYYYmmdd-HHMMSS, local) of o->file into out.
 * Returns 0, or -ENAMETOOLONG when out is too small. */
int options_expand_file(const char *tmpl, int pid, long start_sec, char *out, size_t outlen);

#endif
