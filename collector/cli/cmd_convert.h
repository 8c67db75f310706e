/* cmd_convert.h: `flyprof convert`. CLI main thread. */
#ifndef CMD_CONVERT_H
#define CMD_CONVERT_H

#include "cli_args.h"

extern const struct cli_cmd cmd_convert;

#endif
