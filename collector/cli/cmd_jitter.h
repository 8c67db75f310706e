/* cmd_jitter.h: `flyprof jitter`: the standalone jitter test (no JVM): how long this machine
 * keeps a spinning thread from running, per CPU. Prints, returns the exit code. CLI main
 * thread. */
#ifndef CMD_JITTER_H
#define CMD_JITTER_H

#include "cli_args.h"

extern const struct cli_cmd cmd_jitter;

/* The help of `flyprof jitter --help`. */
extern const char cmd_jitter_help[];

/* Runs `flyprof jitter` with argv[0] = "jitter". */
int cmd_jitter_run(int argc, char **argv);

#endif
