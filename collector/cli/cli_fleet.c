/* cli_fleet.c: the fleet's selection in the CLI (cli_fleet.h). */
#include "cli_fleet.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cli_args.h"
#include "cli_msg.h"
#include "profile.h"

#define ERR_MAX 1024

int cli_fleet_init(struct cli_fleet *f, int argc)
{
    memset(f, 0, sizeof(*f));
    f->labels = calloc((size_t)argc + 1, sizeof(*f->labels));
    if (!f->labels) {
        cli_msg_error("out of memory");
        return -1;
    }
    f->cap = (size_t)argc + 1;
    f->sel.labels = f->labels;
    return 0;
}

void cli_fleet_destroy(struct cli_fleet *f)
{
    free(f->labels);
    f->labels = NULL;
}

int cli_fleet_option(const char *cmd, int argc, char **argv, int *i, struct cli_fleet *f)
{
    static const char *const opts[] = {"--db", "--service", "--host", "--label"};
    for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
        const char *v = NULL;
        int m = cli_args_value(argc, argv, i, opts[k], NULL, &v);
        if (m == 0)
            continue;
        if (m < 0 || !*v)
            return -cli_msg_usage(cmd, "%s: %s needs a value", cmd, opts[k]);
        if (k == 0)
            f->db = v;
        else if (k == 1)
            f->sel.service = v;
        else if (k == 2)
            f->sel.host = v;
        else if (f->sel.nlabels < f->cap)
            f->labels[f->sel.nlabels++] = v;
        return 1;
    }
    return 0;
}

int cli_fleet_time(const char *cmd, const char *opt, const char *v, int64_t *s)
{
    struct profile_time t;
    char err[ERR_MAX], *end;
    errno = 0;
    double hours = strtod(v, &end);
    if (end != v && strcmp(end, "h") == 0 && !errno && hours >= 0 && hours < 1e6) {
        t.kind = PROFILE_TIME_REL; /* hours: the fleet's windows are long */
        t.ns = (uint64_t)(hours * 3600e9);
    } else if (profile_time_parse(v, &t, err, sizeof(err)) != 0) {
        return cli_msg_usage(cmd, "%s: %s %s (with --db: or hours before now, 2h)", cmd, opt,
                             err);
    }
    time_t now = time(NULL);
    if (t.kind == PROFILE_TIME_REL) {
        *s = (int64_t)now - (int64_t)(t.ns / 1000000000ull); /* the fleet has no start */
        if (*s <= 0)
            return cli_msg_usage(cmd, "%s: %s '%s' is before 1970", cmd, opt, v);
    } else if (t.kind == PROFILE_TIME_CLOCK) {
        struct tm tm;
        localtime_r(&now, &tm);
        tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
        tm.tm_isdst = -1;
        *s = (int64_t)mktime(&tm) + (int64_t)(t.ns / 1000000000ull);
    } else {
        *s = (int64_t)(t.ns / 1000000000ull);
    }
    return 0;
}

int cli_fleet_open(const char *cmd, struct cli_fleet *f, const char *from, const char *to,
                   char *path, size_t pathlen)
{
    struct chttp_url u;
    char err[ERR_MAX];
    int rc;
    if (!f->sel.service)
        return -cli_msg_usage(cmd, "%s: --db needs --service NAME", cmd);
    if (chttp_url_parse(f->db, &u, err, sizeof(err)) != 0)
        return -cli_msg_usage(cmd, "%s: %s", cmd, err);
    f->sel.from_s = f->sel.to_s = 0;
    if ((from && (rc = cli_fleet_time(cmd, "--from", from, &f->sel.from_s)) != 0) ||
        (to && (rc = cli_fleet_time(cmd, "--to", to, &f->sel.to_s)) != 0))
        return -rc;
    int fd = memfd_create("flyprof-fleet", MFD_CLOEXEC);
    if (fd < 0) {
        cli_msg_error("cannot make a memory file for the fleet's profile: %s", strerror(errno));
        return -CLI_EXIT_FAIL;
    }
    uint64_t rows = 0;
    if (fleetlog_write(&u, &f->sel, fd, &rows, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        close(fd);
        return -CLI_EXIT_FAIL;
    }
    snprintf(path, pathlen, "/proc/self/fd/%d", fd);
    return fd;
}
