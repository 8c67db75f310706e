/* cmd_diff.h: `flyprof diff`. CLI main thread. */
#ifndef CMD_DIFF_H
#define CMD_DIFF_H

#include "cli_args.h"

extern const struct cli_cmd cmd_diff;

#endif
