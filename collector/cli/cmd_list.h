/* cmd_list.h: `flyprof list`. CLI main thread. */
#ifndef CMD_LIST_H
#define CMD_LIST_H

#include "cli_args.h"

extern const struct cli_cmd cmd_list;

#endif
