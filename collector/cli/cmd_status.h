/* cmd_status.h: `flyprof status`. CLI main thread. */
#ifndef CMD_STATUS_H
#define CMD_STATUS_H

#include "cli_args.h"

extern const struct cli_cmd cmd_status;

#endif
