/* options.h: the agent's option string (DESIGN "User-facing contract"), parsed into a struct.
 * Pure: no JVM, no I/O, no globals. Any thread; not async-signal-safe.
 *
 * Grammar: items separated by ',', each `key` or `key=value`. The value is everything after
 * the first '=' up to the next ',' (so `file=a=b` names the path "a=b", and no value can
 * contain a comma). Keys are case-sensitive and nothing is trimmed: " cpu" is an unknown key.
 * An empty item (",cpu", "cpu,,wall", ",") is an error; one trailing comma ("cpu,") is
 * tolerated so that scripts may append items blindly. Each key may appear once.
 *
 *   start | stop | dump | status   the action, at most one; default start
 *   cpu[=TIME]                     CPU sampling; default 10ms
 *   wall[=TIME]                    wall-clock sampling; default 50ms
 *   engine=cputimer|itimer|perf    CPU sampling engine; default cputimer (kept, unused, when
 *                                  only wall is on)
 *   wallthreads=N                  1..OPTIONS_MAX_WALL_THREADS, default 16
 *   filter                         wall samples only threads marked through the Java API
 *   depth=N                        1..OPTIONS_MAX_DEPTH, default 2048
 *   walk=vm|agct                   stack walker: vm (default) completes AsyncGetCallTrace's
 *                                  walks from HotSpot's structures; agct is AGCT alone
 *   file=PATH                      non-empty, < OPTIONS_FILE_MAX bytes, no ','; %p and %t are
 *                                  expanded later by options_expand_file
 *   log=PATH                       keep the raw .fpl log there too when file= names a
 *                                  rendered format (same rules as file=)
 *   threads                        one stack root per thread in rendered outputs
 *   alloc[=BYTES]                  allocation profiling: a sample every BYTES allocated on
 *                                  average (0..2147483647; default 512k); BYTES is a number
 *                                  and an optional unit k, m, g (binary: 512k = 524288)
 *   live                           with alloc (implied): at the end, which sampled objects are
 *                                  still reachable (LIVE samples)
 *   lock[=TIME]                    lock profiling: contended waits of TIME or longer (0ns..1s,
 *                                  default 10us)
 *   hiccup[=TIME]                  hiccup probes waking every TIME (100us..1s, default 1ms)
 *   stall=TIME                     a probe this late is a stall (default 5ms); implies hiccup
 *   duration=TIME                  1ns..OPTIONS_MAX_DURATION_NS; a bare number is seconds
 *   loop=TIME                      close the output every TIME and go on in the next file
 *                                  (OPTIONS_MIN_LOOP_NS..OPTIONS_MAX_DURATION_NS; a bare number
 *                                  is seconds); file= may name %n, the file's number
 *   keep=N                         with loop=: keep the newest N files (1..OPTIONS_MAX_KEEP),
 *                                  deleting older ones; default all
 *   events=N                       per-thread buffer of dev.flyprof.Events: N x 16 bytes (N
 *                                  events without a string); 0 (off) or
 *                                  OPTIONS_MIN_EVENTS..OPTIONS_MAX_EVENTS, default
 *                                  OPTIONS_DEFAULT_EVENTS
 *   eventwait=TIME                 how long an Events.log call waits for the writer to drain
 *                                  its thread's full buffer before it drops the event:
 *                                  0ns..OPTIONS_MAX_EVENT_WAIT_NS (0: never wait), default
 *                                  OPTIONS_DEFAULT_EVENT_WAIT_NS
 *   cstack=auto|off                native (C/C++, JVM) frames below and instead of Java
 *                                  frames; default auto (on), off: Java frames only
 *   _faultevery=N                  test-only, not listed to users: every N-th stack walk
 *                                  faults on purpose inside the crash guard
 *   idle                           load without profiling (-agentpath: profiling starts later
 *                                  through the Java API or `flyprof start`); no other option
 *                                  but an action start may come with it
 * Internal keys, set by the flyprof CLI and never shown (options.shown, error messages):
 *   reply=PATH                     where an attach action's result goes
 *   safety=TIME                    stop after TIME unless duration= is given: attach -d's
 *                                  margin for a CLI that dies before it sends stop
 * None of cpu, wall, alloc, lock named: CPU sampling on at 10ms. Only others than cpu named
 * (wall, alloc, lock): CPU sampling off.
 * cpu and wall intervals lie in [OPTIONS_MIN_INTERVAL_NS, OPTIONS_MAX_INTERVAL_NS].
 * TIME: fpl_optval.h's grammar: a decimal number (2.5) and a unit ns, us, ms, s, min or h. A
 * bare number is seconds in duration= (and safety=), as the CLI's -d reads it, and refused in
 * every other TIME (cpu=, wall=, hiccup=, stall=) with a message offering it with a unit.
 */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "fpl_optval.h"

#define OPTIONS_FILE_MAX 1024
#define OPTIONS_DEFAULT_CPU_NS 10000000ull  /* 10 ms */
#define OPTIONS_DEFAULT_WALL_NS 50000000ull /* 50 ms */
#define OPTIONS_DEFAULT_WALL_THREADS 16
#define OPTIONS_MAX_WALL_THREADS 1024
#define OPTIONS_DEFAULT_DEPTH 2048
#define OPTIONS_MAX_DEPTH 8192
#define OPTIONS_DEFAULT_FILE "flyprof-%p.fpl"
#define OPTIONS_MIN_LOOP_NS 1000000000ull /* 1 s */
#define OPTIONS_MAX_KEEP 1000000
/* Below 100us the signal handlers would dominate the profiled program (the CLI checks -i
 * against the same bounds). */
#define OPTIONS_MIN_INTERVAL_NS FPL_OPTVAL_MIN_INTERVAL_NS          /* 100 us */
#define OPTIONS_MAX_INTERVAL_NS FPL_OPTVAL_MAX_INTERVAL_NS          /* 1 day */
#define OPTIONS_MAX_DURATION_NS (365ull * 86400ull * 1000000000ull) /* 365 days */
#define OPTIONS_DEFAULT_EVENTS 32768u    /* 512 KiB per thread that logs events */
#define OPTIONS_MIN_EVENTS 64u
#define OPTIONS_MAX_EVENTS (1u << 24)    /* 256 MiB per thread */
#define OPTIONS_DEFAULT_EVENT_WAIT_NS 1000000000ull /* 1 s: see agent/writer/events.h */
#define OPTIONS_MAX_EVENT_WAIT_NS 10000000000ull    /* 10 s */

enum options_cstack {
    OPTIONS_CSTACK_OFF = 0,
    OPTIONS_CSTACK_AUTO = 1,
};
#define OPTIONS_DEFAULT_HICCUP_NS 1000000ull                         /* 1 ms */
#define OPTIONS_MAX_HICCUP_NS 1000000000ull                          /* 1 s */
#define OPTIONS_DEFAULT_STALL_NS 5000000ull                          /* 5 ms */
#define OPTIONS_DEFAULT_ALLOC_BYTES (512ull * 1024ull)
#define OPTIONS_MAX_ALLOC_BYTES 2147483647ull   /* JVMTI SetHeapSamplingInterval takes a jint */
#define OPTIONS_DEFAULT_LOCK_NS 10000ull        /* 10 us */
#define OPTIONS_MAX_LOCK_NS 1000000000ull       /* 1 s */

enum options_action {
    OPTIONS_START = 0,
    OPTIONS_STOP,
    OPTIONS_DUMP,
    OPTIONS_STATUS,
};

struct options {
    enum options_action action;  /* default OPTIONS_START */
    uint64_t cpu_interval_ns;    /* 0: CPU sampling off */
    uint64_t wall_interval_ns;   /* 0: wall-clock sampling off */
    int engine;                  /* enum fpl_engine; default FPL_ENGINE_CPUTIMER */
    unsigned wall_threads;       /* default 16 */
    int filter;                  /* wall samples only filtered threads */
    unsigned depth;              /* max Java frames, 1..OPTIONS_MAX_DEPTH, default 2048 */
    char file[OPTIONS_FILE_MAX]; /* output path template, default OPTIONS_DEFAULT_FILE */
    int file_given;              /* file= appeared */
    int threads;                 /* per-thread roots in rendered outputs */
    uint64_t duration_ns;        /* 0: until stop or VM exit */
    uint64_t loop_ns;            /* loop=: a new output file every loop_ns; 0: one file */
    unsigned keep;               /* keep=: files of loop= kept; 0: all */
    uint32_t events;             /* event buffer per thread in 16-byte units; 0: events off */
    uint64_t event_wait_ns;      /* the longest an event waits for room in a full buffer */
    int cstack;                  /* enum options_cstack; default OPTIONS_CSTACK_AUTO */
    uint64_t hiccup_ns;          /* hiccup probes' resolution; 0: hiccup mode off */
    uint64_t stall_ns;           /* stall threshold (set when hiccup_ns is) */
    int alloc;                   /* allocation profiling on */
    uint64_t alloc_bytes;        /* its mean sampling interval, bytes (0: every allocation) */
    int live;                    /* the live-heap view of the allocation samples (implies alloc) */
    int lock;                    /* lock profiling on */
    uint64_t lock_ns;            /* its threshold: waits this long or longer */
    char raw[OPTIONS_FILE_MAX];  /* the option string as given (cut to OPTIONS_FILE_MAX - 1
                                  * bytes), for the log; "" when parsed from NULL */
    char log[OPTIONS_FILE_MAX];   /* log=PATH: keep the raw .fpl log there when file= names a
                                   * rendered format; "" when absent */
    char reply[OPTIONS_FILE_MAX]; /* internal reply=PATH: where the attach CLI reads an
                                   * action's result; "" when absent */
    int walk_agct;                /* walk=agct (1): AsyncGetCallTrace alone, no recovery;
                                   * walk=check (2): both walkers, compared */
    unsigned fault_every;         /* test-only _faultevery=N: every N-th walk faults on
                                   * purpose inside the crash guard; 0: never */
    uint64_t safety_ns;           /* internal safety=TIME (duration_ns holds the stop in force) */
    int idle;                     /* load without profiling */
    /* what the user asked for, for the log's HEADER and outputs: the items of the option
     * string except actions and internal keys, comma-separated (items that do not fit whole
     * in the buffer are left out, shown_full set) */
    char shown[OPTIONS_FILE_MAX];
    int shown_full;
};

/* Fills *o with the defaults (CPU sampling at 10ms, action start, raw ""). */
void options_defaults(struct options *o);

/* Parses `s` (NULL or "" means defaults; grammar above) into *o. Returns 0 with *o filled, or
 * -EINVAL with *o untouched and a one-line message in err[0..errlen) that names the offending
 * key or value and says what is accepted. Offending text is quoted with non-printable bytes
 * as \xNN and cut after 64 bytes. err may be NULL or errlen 0; otherwise err is always
 * NUL-terminated ("" on success). */
int options_parse(const char *s, struct options *o, char *err, size_t errlen);

/* Parses an interval TIME: a number and a unit ns|us|ms|s|min|h into *ns, rounded to the
 * nearest ns; no range check (0 is accepted). Returns 0, -EDOM for a number without a unit,
 * -EINVAL when malformed (or s/ns NULL), or -ERANGE when the value does not fit in 64 bits of
 * nanoseconds. The grammar is fpl_optval_time's, shared with the CLI. */
int options_parse_time(const char *s, uint64_t *ns);

/* Expands the path template tmpl into out[0..outlen): %p -> pid (decimal), %t -> start_sec as
 * local time YYYYmmdd-HHMMSS, %% -> %; any other '%' is kept literally. Returns 0, -EINVAL
 * when tmpl or out is NULL or start_sec has no local time, or -ENAMETOOLONG when the result
 * and its NUL do not fit in outlen. On error out is "" (when outlen > 0). This is
 * fpl_optval_expand_file, shared with the CLI, which finds the files the agent named. */
int options_expand_file(const char *tmpl, int pid, long start_sec, char *out, size_t outlen);

/* options_expand_file, and %n -> seq (six digits or more); fpl_optval_expand_file_seq. */
int options_expand_file_seq(const char *tmpl, int pid, long start_sec, long seq, char *out,
                            size_t outlen);

#endif
