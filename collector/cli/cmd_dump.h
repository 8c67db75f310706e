/* cmd_dump.h: `flyprof dump`. CLI main thread. */
#ifndef CMD_DUMP_H
#define CMD_DUMP_H

#include "cli_args.h"

extern const struct cli_cmd cmd_dump;

#endif
