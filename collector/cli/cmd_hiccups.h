/* cmd_hiccups.h: `flyprof hiccups IN.fpl`: the hiccups a log's hiccup mode recorded, each
 * stall with its cause, and their export. Prints, returns the exit code. CLI main thread. */
#ifndef CMD_HICCUPS_H
#define CMD_HICCUPS_H

/* Its part of `flyprof --help`. */
#define CMD_HICCUPS_USAGE                                                                          \
    "  flyprof hiccups IN.fpl [--top N] [--stalls F] [--hlog F] [--csv F] [--influx URL]\n"      \
    "      the hiccups of a log recorded with the agent option hiccup: delays, stalls and\n"   \
    "      their causes (gc, safepoint, os/cpu, unknown); exports one point per probe and\n"   \
    "      second\n"

/* The help of `flyprof hiccups --help`. */
extern const char cmd_hiccups_help[];

/* Runs `flyprof hiccups` with argv[0] = "hiccups". */
int cmd_hiccups_run(int argc, char **argv);

#endif
