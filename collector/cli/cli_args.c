/* cli_args.c: argument helpers shared by the commands (see cli_args.h). */
#include "cli_args.h"

#include <errno.h>
#include <math.h>
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
    static const struct {
        const char *unit;
        double ns;
    } units[] = {{"", 1e9}, {"s", 1e9},    {"ms", 1e6},      {"us", 1e3},
                 {"ns", 1}, {"min", 6e10}, {"h", 3600 * 1e9}};
    char *end;
    /* digits and an optional fraction only: strtod alone would take hex, inf or a sign */
    size_t d = strspn(s, "0123456789");
    if (d == 0 && !(s[0] == '.' && s[1] >= '0' && s[1] <= '9'))
        return -EINVAL;
    if (s[d] == '.')
        d += 1 + strspn(s + d + 1, "0123456789");
    double v = strtod(s, &end);
    if (end != s + d)
        return -EINVAL;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strcmp(end, units[i].unit) != 0)
            continue;
        double t = v * units[i].ns;
        if (!(t >= 1) || t > (double)max_ns)
            return -EINVAL;
        *ns = (uint64_t)llround(t);
        return 0;
    }
    return -EINVAL;
}

int cli_args_modes(const char *cmd, const char *events, const char *interval, const char *wall,
                   uint64_t *cpu_ns, uint64_t *wall_ns)
{
    int cpu = 1, wl = wall != NULL;
    uint64_t iv = 0, wv = 0;
    if (events) {
        if (!strcmp(events, "cpu"))
            cpu = 1;
        else if (!strcmp(events, "wall"))
            cpu = 0, wl = 1;
        else if (!strcmp(events, "cpu,wall") || !strcmp(events, "wall,cpu"))
            cpu = 1, wl = 1;
        else
            return cli_msg_usage(cmd, "%s: unknown event '%s': use cpu, wall or cpu,wall", cmd,
                                 events);
        if (wall && !strstr(events, "wall"))
            return cli_msg_usage(cmd,
                                 "%s: --wall sets the wall-clock interval, but -e %s leaves "
                                 "wall-clock sampling off: use -e cpu,wall",
                                 cmd, events);
    }
    if (interval && fpl_optval_time(interval, strlen(interval), &iv) != 0)
        return cli_msg_usage(cmd, "%s: bad interval '%s': use " FPL_OPTVAL_TIME_HINT, cmd,
                             interval);
    if (wall && fpl_optval_time(wall, strlen(wall), &wv) != 0)
        return cli_msg_usage(cmd, "%s: bad --wall interval '%s': use " FPL_OPTVAL_TIME_HINT, cmd,
                             wall);
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
