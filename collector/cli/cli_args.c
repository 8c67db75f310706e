/* cli_args.c: argument helpers shared by the commands (see cli_args.h). */
#include "cli_args.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
