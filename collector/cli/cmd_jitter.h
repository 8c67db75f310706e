/* cmd_jitter.h: `flyprof jitter`: the standalone jitter test (no JVM): how long this machine
 * keeps a spinning thread from running, per CPU. Prints, returns the exit code. CLI main
 * thread. */
#ifndef CMD_JITTER_H
#define CMD_JITTER_H

/* Its part of `flyprof --help`. */
#define CMD_JITTER_USAGE                                                                           \
    "  flyprof jitter [-c CPUS] [-d DURATION] [-r REPORT] [-t THRESHOLD] [--hlog F] [--csv F]\n"   \
    "                 [--influx URL] [--outliers F] [--bins N] [--knee T] [--min T] [--sum]\n"     \
    "      measure this machine's jitter: one thread per CPU spinning on the TSC (no JVM)\n"

/* The help of `flyprof jitter --help`. */
extern const char cmd_jitter_help[];

/* Runs `flyprof jitter` with argv[0] = "jitter". */
int cmd_jitter_run(int argc, char **argv);

#endif
