/* cmd_events.h: `flyprof events IN.fpl`: the events a program logged with dev.flyprof.Events,
 * per thread and in order, and the intervals between consecutive events. Prints (the listing
 * on stdout or into -o FILE, warnings and errors on stderr) and returns the exit code: 0
 * success, 1 failure, 2 usage error. CLI main thread.
 */
#ifndef CMD_EVENTS_H
#define CMD_EVENTS_H

#include "cli_args.h"

extern const struct cli_cmd cmd_events;

#endif
