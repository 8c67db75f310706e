/* cli_fleet.h: the fleet's selection in the commands that read ClickHouse (convert, diff,
 * summary --db): --db URL, --service S, --host H, --label K=V and --from/--to as bounds of
 * ClickHouse's WHERE; and the selection's profile written as a log into a memory file
 * (fleetlog.h), which the command then reads as any log. Prints its errors (CLI side). */
#ifndef CLI_FLEET_H
#define CLI_FLEET_H

#include <stddef.h>

#include "fleetlog.h"

struct cli_fleet {
    const char *db;        /* --db URL; NULL: the command reads logs */
    struct fleet_sel sel;  /* service, host, labels; the bounds are set by cli_fleet_open */
    const char **labels;   /* room for every argument */
    size_t cap;
};

#define CLI_FLEET_HELP                                                                        \
    "  --db URL --service S  the fleet's profile in ClickHouse (flyprof push); --host H,\n"    \
    "                        --label K=V narrow it; --from/--to also take 2h: that long ago\n"

/* Makes room for argc labels. Returns 0, or -1 (said). */
int cli_fleet_init(struct cli_fleet *f, int argc);

void cli_fleet_destroy(struct cli_fleet *f);

/* Takes argv[*i] (and its value) if it is --db, --service, --host or --label of cmd. Returns
 * 1 when taken, 0 when not, or an exit code (a usage error, said) below 0 as -code. */
int cli_fleet_option(const char *cmd, int argc, char **argv, int *i, struct cli_fleet *f);

/* A --from/--to bound for ClickHouse into *s (seconds since the epoch): a clock time is
 * today's, a relative time is before now. Returns 0, or a usage exit code (said). */
int cli_fleet_time(const char *cmd, const char *opt, const char *v, int64_t *s);

/* Writes the selection, bounded by from and to (NULL: none), as a log into a memory file
 * whose name ("/proc/self/fd/N") goes into path. Returns the file's descriptor (the caller
 * closes it), or -code with an exit code (said). */
int cli_fleet_open(const char *cmd, struct cli_fleet *f, const char *from, const char *to,
                   char *path, size_t pathlen);

#endif
