/* cmd_record.h: `flyprof record`. CLI main thread. */
#ifndef CMD_RECORD_H
#define CMD_RECORD_H

#include "cli_args.h"

extern const struct cli_cmd cmd_record;

#endif
