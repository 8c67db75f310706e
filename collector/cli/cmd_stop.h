/* cmd_stop.h: `flyprof stop`. CLI main thread. */
#ifndef CMD_STOP_H
#define CMD_STOP_H

#include "cli_args.h"

extern const struct cli_cmd cmd_stop;

#endif
