/* cmd_hiccups.h: `flyprof hiccups IN.fpl`: the hiccups a log's hiccup mode recorded, each
 * stall with its cause, and their export. Prints, returns the exit code. CLI main thread. */
#ifndef CMD_HICCUPS_H
#define CMD_HICCUPS_H

#include "cli_args.h"

extern const struct cli_cmd cmd_hiccups;

/* The help of `flyprof hiccups --help`. */
extern const char cmd_hiccups_help[];

/* Runs `flyprof hiccups` with argv[0] = "hiccups". */
int cmd_hiccups_run(int argc, char **argv);

#endif
