/* cmd_attach.h: `flyprof attach`. CLI main thread. */
#ifndef CMD_ATTACH_H
#define CMD_ATTACH_H

#include "cli_args.h"

extern const struct cli_cmd cmd_attach;

#endif
