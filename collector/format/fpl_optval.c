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
    {"ns", 1},
    {"us", 1000},
    {"ms", 1000000},
    {"s", 1000000000},
    {"min", 60000000000ull},
    {"h", 3600000000000ull},
};
#define NUNITS (sizeof(units) / sizeof(units[0]))
#define UNIT_S 3 /* units[UNIT_S] is "s", what a bare duration counts */

/* Reads s[0..n): digits, an optional '.' and fraction (at least one digit in all), then a
 * unit. bare_mul is what a number without a unit counts (0: refused with -EDOM). The value is
 * rounded to the nearest ns, halves up. */
static int parse(const char *s, size_t n, uint64_t bare_mul, uint64_t *ns)
{
    uint64_t whole = 0, frac = 0, scale = 1, mul = 0;
    size_t i = 0, digits = 0, fdigits = 0, u;
    int range = 0;

    if (!s || !ns)
        return -EINVAL;
    /* the scan goes on past an overflow so that trailing garbage still makes it -EINVAL */
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (whole > (UINT64_MAX - d) / 10)
            range = 1;
        else
            whole = whole * 10 + d;
    }
    if (i < n && s[i] == '.') {
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++, fdigits++) {
            if (fdigits < 18) { /* further digits are below a ns of any unit */
                frac = frac * 10 + (uint64_t)(s[i] - '0');
                scale *= 10;
            }
        }
    }
    if (digits + fdigits == 0)
        return -EINVAL;
    if (i == n) {
        if (!bare_mul)
            return -EDOM;
        mul = bare_mul;
    } else {
        for (u = 0; u < NUNITS; u++) {
            if (strlen(units[u].unit) == n - i && memcmp(units[u].unit, s + i, n - i) == 0)
                break;
        }
        if (u == NUNITS)
            return -EINVAL;
        mul = units[u].mul;
    }
    unsigned __int128 v =
        (unsigned __int128)whole * mul + ((unsigned __int128)frac * mul + scale / 2) / scale;
    if (range || v > UINT64_MAX)
        return -ERANGE;
    *ns = (uint64_t)v;
    return 0;
}

int fpl_optval_time(const char *s, size_t n, uint64_t *ns)
{
    return parse(s, n, 0, ns);
}

int fpl_optval_duration(const char *s, size_t n, uint64_t *ns)
{
    return parse(s, n, units[UNIT_S].mul, ns);
}

/* How far apart a and b are by orders of magnitude, roughly: 10 per factor of ten, plus 0 to 8
 * for what is left below ten (a, b > 0). Enough to rank units by how near they land. */
static unsigned decades_apart(uint64_t a, uint64_t b)
{
    unsigned d = 0;
    uint64_t hi = a > b ? a : b, lo = a > b ? b : a;
    while (hi / 10 >= lo && d < 400) {
        hi /= 10;
        d += 10;
    }
    return d + (unsigned)((unsigned __int128)hi * 10 / lo - 10) / 10;
}

const char *fpl_optval_with_unit(const char *s, size_t n, uint64_t lo, uint64_t hi,
                                 uint64_t typical, const char *prefix, char *buf, size_t cap)
{
    static const char *const tried[] = {"ns", "us", "ms", "s"};
    char t[4][80];
    unsigned dist[4];
    size_t len = 0, ok = 0, order[4];

    if (!cap)
        return buf;
    buf[0] = '\0';
    if (n + 3 >= sizeof(t[0]) || !typical)
        return buf;
    for (size_t i = 0; i < sizeof(tried) / sizeof(tried[0]); i++) {
        uint64_t ns;
        snprintf(t[i], sizeof(t[i]), "%.*s%s", (int)n, s, tried[i]);
        if (fpl_optval_time(t[i], strlen(t[i]), &ns) != 0 || ns < lo || ns > hi || !ns)
            continue;
        dist[i] = decades_apart(ns, typical);
        /* insertion by distance; on a tie the smaller unit first */
        size_t k = ok++;
        while (k > 0 && dist[order[k - 1]] > dist[i]) {
            order[k] = order[k - 1];
            k--;
        }
        order[k] = i;
    }
    for (size_t k = 0; k < ok && k < 2; k++) {
        int w = snprintf(buf + len, cap - len, "%s%s%s", k ? " or " : "", prefix, t[order[k]]);
        if (w < 0 || (size_t)w >= cap - len) {
            buf[len] = '\0';
            break;
        }
        len += (size_t)w;
    }
    return buf;
}

const char *fpl_optval_time_str(uint64_t ns, char *buf, size_t cap)
{
    size_t i = UNIT_S;
    while (i > 0 && (ns == 0 || ns % units[i].mul != 0))
        i--;
    snprintf(buf, cap, "%" PRIu64 "%s", ns / units[i].mul, units[i].unit);
    return buf;
}

int fpl_optval_expand_file(const char *tmpl, int pid, long start_sec, char *out, size_t outlen)
{
    return fpl_optval_expand_file_seq(tmpl, pid, start_sec, -1, out, outlen);
}

int fpl_optval_expand_file_seq(const char *tmpl, int pid, long start_sec, long seq, char *out,
                               size_t outlen)
{
    char pidbuf[16], stamp[32], seqbuf[24];
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
        } else if (p[0] == '%' && p[1] == 'n' && seq >= 0) {
            snprintf(seqbuf, sizeof(seqbuf), "%06ld", seq);
            piece = seqbuf;
            n = strlen(seqbuf);
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
