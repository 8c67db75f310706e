/* cmd_summary.h: `flyprof summary`. CLI main thread. */
#ifndef CMD_SUMMARY_H
#define CMD_SUMMARY_H

#include "cli_args.h"

extern const struct cli_cmd cmd_summary;

#endif
