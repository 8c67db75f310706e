/* golden_log.h: a small hand-built log whose every figure is known, shared by the profile,
 * summary and CLI tests. See golden_log.c for its content. */
#ifndef GOLDEN_LOG_H
#define GOLDEN_LOG_H

#include "fplgen.h"

/* Writes the golden log into an initialized generator (two chunks, END included unless
 * with_end is 0). Returns 0 or -errno. */
int golden_log_build(struct fplgen *g, int with_end);

/* The expected folded output: CPU samples (the default kind), without and with --threads,
 * and wall samples. */
extern const char GOLDEN_CPU[];
extern const char GOLDEN_CPU_THREADS[];
extern const char GOLDEN_WALL[];        /* without state frames (out_collapsed_opts.states 0) */
extern const char GOLDEN_WALL_STATES[]; /* with them: what `flyprof convert --kind wall` writes */

#define GOLDEN_CPU_SAMPLES 14
#define GOLDEN_CPU_WEIGHT 15
#define GOLDEN_WALL_SAMPLES 7
/* wall weights upscaled by their ticks, in quarters: 8.75 (sleeping) + 5.75 (running) */
#define GOLDEN_WALL_SLEEP_X4 35
#define GOLDEN_WALL_RUN_X4 23
#define GOLDEN_WALL_TICKS 2
#define GOLDEN_TPS 2000000000ull /* 2 GHz */
#define GOLDEN_ANCHOR_TICKS 1000000ull
#define GOLDEN_REAL_NS 1700000000000000000ull /* 2023-11-14T22:13:20Z */

#endif
