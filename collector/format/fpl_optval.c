/* fpl_optval.c: TIME values and file templates of agent options (see fpl_optval.h). */
#include "fpl_optval.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const struct {
    const char *unit;
    uint64_t mul;
} units[] = {
    {"", 1}, {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000},
};

int fpl_optval_time(const char *s, size_t n, uint64_t *ns)
{
    uint64_t v = 0;
    size_t len = 0, i;
    int range = 0;

    if (!s || !ns)
        return -EINVAL;
    /* the scan goes on past an overflow so that trailing garbage still makes it -EINVAL */
    for (; len < n && s[len] >= '0' && s[len] <= '9'; len++) {
        unsigned d = (unsigned)(s[len] - '0');
        if (v > (UINT64_MAX - d) / 10)
            range = 1;
        else
            v = v * 10 + d;
    }
    if (len == 0)
        return -EINVAL;
    for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (strlen(units[i].unit) == n - len && memcmp(units[i].unit, s + len, n - len) == 0)
            break;
    }
    if (i == sizeof(units) / sizeof(units[0]))
        return -EINVAL;
    if (range || v > UINT64_MAX / units[i].mul)
        return -ERANGE;
    *ns = v * units[i].mul;
    return 0;
}

const char *fpl_optval_time_str(uint64_t ns, char *buf, size_t cap)
{
    size_t i = sizeof(units) / sizeof(units[0]) - 1;
    while (i > 1 && (ns == 0 || ns % units[i].mul != 0))
        i--;
    snprintf(buf, cap, "%" PRIu64 "%s", ns / units[i].mul, units[i].unit);
    return buf;
}

int fpl_optval_expand_file(const char *tmpl, int pid, long start_sec, char *out, size_t outlen)
{
    char pidbuf[16], stamp[32];
    int have_stamp = 0;
    size_t j = 0;
    const char *p;

    if (!tmpl || !out)
        return -EINVAL;
    if (outlen == 0)
        return -ENAMETOOLONG;
    for (p = tmpl; *p; p++) {
        const char *piece = p;
        size_t n = 1;

        if (p[0] == '%' && p[1] == 'p') {
            snprintf(pidbuf, sizeof(pidbuf), "%d", pid);
            piece = pidbuf;
            n = strlen(pidbuf);
            p++;
        } else if (p[0] == '%' && p[1] == 't') {
            if (!have_stamp) {
                time_t t = (time_t)start_sec;
                struct tm tm;
                if (!localtime_r(&t, &tm) ||
                    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm) == 0) {
                    out[0] = '\0';
                    return -EINVAL;
                }
                have_stamp = 1;
            }
            piece = stamp;
            n = strlen(stamp);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            p++; /* piece is the first '%' */
        }
        /* j < outlen holds; keep room for the NUL */
        if (n >= outlen - j) {
            out[0] = '\0';
            return -ENAMETOOLONG;
        }
        memcpy(out + j, piece, n);
        j += n;
    }
    out[j] = '\0';
    return 0;
}
