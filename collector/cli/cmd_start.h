/* cmd_start.h: `flyprof start`. CLI main thread. */
#ifndef CMD_START_H
#define CMD_START_H

#include "cli_args.h"

extern const struct cli_cmd cmd_start;

#endif
