/* cli_args.c: argument helpers shared by the commands (see cli_args.h). */
#include "cli_args.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli_msg.h"
#include "fpl_optval.h"

int cli_args_is_help(const char *a)
{
    return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

void cli_args_help(const struct cli_cmd *c, FILE *f)
{
    fputs(c->help, f);
}

int cli_args_value(int argc, char **argv, int *i, const char *lng, const char *shrt,
                   const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(lng);
    if (strncmp(a, lng, n) == 0 && a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (strcmp(a, lng) != 0 && !(shrt && strcmp(a, shrt) == 0))
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *val = argv[++*i];
    return 1;
}

int cli_args_duration(const char *s, uint64_t max_ns, uint64_t *ns)
{
    uint64_t v;
    if (fpl_optval_duration(s, strlen(s), &v) != 0 || v < 1 || v > max_ns)
        return -EINVAL;
    *ns = v;
    return 0;
}

int cli_args_time(const char *cmd, const char *opt, const char *s, uint64_t lo, uint64_t hi,
                  uint64_t typical, const char *what, uint64_t *ns)
{
    char ex[200], prefix[40], a[32], b[32];
    int rc = fpl_optval_time(s, strlen(s), ns);
    if (rc == -EDOM) {
        snprintf(prefix, sizeof(prefix), "%s ", opt);
        fpl_optval_with_unit(s, strlen(s), lo, hi, typical, prefix, ex, sizeof(ex));
        return cli_msg_usage(cmd, "%s: %s %s: give a unit%s%s (units " FPL_OPTVAL_UNITS ")", cmd,
                             opt, s, ex[0] ? ", e.g. " : "", ex);
    }
    if (rc == -EINVAL)
        return cli_msg_usage(cmd,
                             "%s: bad %s '%s' for %s: use a number and a unit such as "
                             "10ms (units " FPL_OPTVAL_UNITS ")",
                             cmd, what, s, opt);
    if (rc == -ERANGE || *ns < lo || *ns > hi) {
        if (lo <= 1)
            return cli_msg_usage(cmd, "%s: bad %s '%s' for %s: it must be above 0 and at most %s",
                                 cmd, what, s, opt, fpl_optval_time_str(hi, b, sizeof(b)));
        return cli_msg_usage(cmd, "%s: bad %s '%s' for %s: it must be from %s to %s", cmd, what, s,
                             opt, fpl_optval_time_str(lo, a, sizeof(a)),
                             fpl_optval_time_str(hi, b, sizeof(b)));
    }
    return 0;
}

unsigned cli_args_event_bits(const char *events)
{
    unsigned bits = 0;
    static const char *const names[] = {"cpu", "wall", "alloc", "lock", "live"};
    for (const char *p = events; p && *p;) {
        size_t n = strcspn(p, ",");
        unsigned b = 0;
        for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (n == strlen(names[i]) && !strncmp(p, names[i], n))
                b = 1u << i;
        if (!b || (bits & b))
            return 0; /* unknown or repeated: cli_args_modes says which */
        bits |= b;
        p += n;
        if (*p == ',' && *++p == 0)
            return 0;
    }
    return bits;
}

int cli_args_modes(const char *cmd, const char *events, const char *interval, const char *wall,
                   uint64_t *cpu_ns, uint64_t *wall_ns)
{
    int cpu = 1, wl = wall != NULL;
    uint64_t iv = 0, wv = 0;
    if (events) {
        unsigned bits = cli_args_event_bits(events);
        if (!bits) {
            /* name the first item that is wrong */
            const char *p = events;
            size_t n = strcspn(p, ",");
            unsigned seen = 0, b = 0;
            static const char *const names[] = {"cpu", "wall", "alloc", "lock", "live"};
            for (; *p; p += n + (p[n] == ','), n = strcspn(p, ",")) {
                b = 0;
                for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                    if (n == strlen(names[i]) && !strncmp(p, names[i], n))
                        b = 1u << i;
                if (!b || (seen & b))
                    break;
                seen |= b;
            }
            if (*p && b)
                return cli_msg_usage(cmd, "%s: event '%.*s' is named twice in '%s'", cmd,
                                     (int)n, p, events);
            return cli_msg_usage(cmd,
                                 "%s: unknown event '%.*s': use cpu, wall, alloc, lock, live or a "
                                 "comma-separated list of them (cpu,wall or alloc,lock)",
                                 cmd, (int)(*p ? n : strlen(events)), *p ? p : events);
        }
        cpu = (bits & CLI_ARGS_EV_CPU) != 0;
        wl = (bits & CLI_ARGS_EV_WALL) != 0;
        if (wall && !wl)
            return cli_msg_usage(cmd,
                                 "%s: --wall sets the wall-clock interval, but -e %s leaves "
                                 "wall-clock sampling off: use -e %s,wall",
                                 cmd, events, events);
        if (interval && !cpu && !wl)
            return cli_msg_usage(cmd,
                                 "%s: -i sets the cpu or wall interval, but -e %s names neither "
                                 "(alloc= and lock= set their own: give them after --)",
                                 cmd, events);
    }
    int rc;
    if (interval &&
        (rc = cli_args_time(cmd, "-i", interval, FPL_OPTVAL_MIN_INTERVAL_NS,
                            FPL_OPTVAL_MAX_INTERVAL_NS, CLI_ARGS_CPU_NS, "interval", &iv)) != 0)
        return rc;
    if (wall &&
        (rc = cli_args_time(cmd, "--wall", wall, FPL_OPTVAL_MIN_INTERVAL_NS,
                            FPL_OPTVAL_MAX_INTERVAL_NS, CLI_ARGS_WALL_NS, "interval", &wv)) != 0)
        return rc;
    *cpu_ns = cpu ? (interval ? iv : CLI_ARGS_CPU_NS) : 0;
    *wall_ns = wl ? (wall ? wv : interval && !cpu ? iv : CLI_ARGS_WALL_NS) : 0;
    return 0;
}

const char *cli_args_modes_str(uint64_t cpu_ns, uint64_t wall_ns, int explain, char *buf,
                               size_t cap)
{
    char a[32], b[32];
    if (cpu_ns && wall_ns)
        snprintf(buf, cap, "cpu every %s, wall every %s%s",
                 fpl_optval_time_str(cpu_ns, a, sizeof(a)),
                 fpl_optval_time_str(wall_ns, b, sizeof(b)),
                 explain ? " (-i sets the cpu interval; --wall TIME sets the wall one)" : "");
    else if (cpu_ns)
        snprintf(buf, cap, "cpu every %s", fpl_optval_time_str(cpu_ns, a, sizeof(a)));
    else if (wall_ns)
        snprintf(buf, cap, "wall every %s", fpl_optval_time_str(wall_ns, b, sizeof(b)));
    else
        snprintf(buf, cap, "nothing");
    return buf;
}

const char *cli_args_modes_str_ev(uint64_t cpu_ns, uint64_t wall_ns, unsigned ev, int explain,
                                  char *buf, size_t cap)
{
    char m[160];
    cli_args_modes_str(cpu_ns, wall_ns, explain, m, sizeof(m));
    int none = !cpu_ns && !wall_ns;
    if (ev & CLI_ARGS_EV_LIVE)
        ev |= CLI_ARGS_EV_ALLOC;
    snprintf(buf, cap, "%s%s%s%s%s", none && (ev & (CLI_ARGS_EV_ALLOC | CLI_ARGS_EV_LOCK)) ? "" : m,
             (ev & CLI_ARGS_EV_ALLOC) && !none ? ", " : "",
             ev & CLI_ARGS_EV_LIVE    ? "allocations (and what stays live)"
             : ev & CLI_ARGS_EV_ALLOC ? "allocations"
                                      : "",
             (ev & CLI_ARGS_EV_LOCK) && (!none || (ev & CLI_ARGS_EV_ALLOC)) ? ", " : "",
             ev & CLI_ARGS_EV_LOCK ? "lock waits" : "");
    return buf;
}
