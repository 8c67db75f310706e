/* cmd_push.h: `flyprof push`. CLI main thread. */
#ifndef CMD_PUSH_H
#define CMD_PUSH_H

#include "cli_args.h"

extern const struct cli_cmd cmd_push;

#endif
