/* names.c: generated class names without their run-to-run parts (see names.h). */
#include "names.h"

#include <string.h>

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_sep(char c)
{
    return c == '.' || c == '/';
}

/* Removes s[at..at+n). */
static void cut(char *s, size_t at, size_t n)
{
    memmove(s + at, s + at + n, strlen(s + at + n) + 1);
}

/* A hidden class's address suffix: ".0x<hex>" or "/0x<hex>" ending the name (no Java
 * identifier starts with a digit, so no real package or class looks like this). */
static void drop_address(char *s)
{
    size_t n = strlen(s);
    for (size_t i = n; i-- > 0;) {
        if (!is_sep(s[i]))
            continue;
        const char *t = s + i + 1;
        size_t k = 2;
        if (t[0] == '0' && t[1] == 'x' && is_hex(t[2])) {
            while (is_hex(t[k]))
                k++;
            if (!t[k])
                s[i] = 0;
        }
        return;
    }
}

/* "$$Lambda$5" -> "$$Lambda", and JDK 8's "$$Lambda$1/1831932724" -> "$$Lambda". */
static void drop_lambda_counter(char *s)
{
    static const char mark[] = "$$Lambda";
    for (char *p = strstr(s, mark); p; p = strstr(p + 1, mark)) {
        size_t at = (size_t)(p - s) + sizeof(mark) - 1, k = 1;
        if (s[at] == '$' && is_digit(s[at + 1])) {
            while (is_digit(s[at + k]))
                k++;
            cut(s, at, k);
        }
        k = 1;
        if (is_sep(s[at]) && is_digit(s[at + 1])) {
            while (is_digit(s[at + k]))
                k++;
            if (!s[at + k])
                s[at] = 0;
        }
    }
}

/* The counter after a generated simple name: "$Proxy12" -> "$Proxy",
 * "GeneratedMethodAccessor12" -> "GeneratedMethodAccessor". The name must start a simple name
 * (after a separator or a '$', or at the start) and the digits end it. */
static void drop_counters(char *s)
{
    static const char *const marks[] = {"$Proxy", "GeneratedMethodAccessor",
                                        "GeneratedConstructorAccessor",
                                        "GeneratedSerializationConstructorAccessor"};
    for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
        size_t len = strlen(marks[m]);
        for (char *p = strstr(s, marks[m]); p; p = strstr(p + 1, marks[m])) {
            if (p != s && marks[m][0] != '$' && !is_sep(p[-1]) && p[-1] != '$')
                continue;
            size_t at = (size_t)(p - s) + len, k = 0;
            while (is_digit(s[at + k]))
                k++;
            if (k && (!s[at + k] || is_sep(s[at + k]) || s[at + k] == '$'))
                cut(s, at, k);
        }
    }
}

/* "jdk.proxy2.$Proxy15": the module of dynamic proxies is numbered too. */
static void drop_proxy_module(char *s)
{
    static const char mark[] = "jdk.proxy";
    if (strncmp(s, mark, sizeof(mark) - 1) != 0)
        return;
    size_t at = sizeof(mark) - 1, k = 0;
    while (is_digit(s[at + k]))
        k++;
    if (k && is_sep(s[at + k]))
        cut(s, at, k);
}

size_t names_class(char *s)
{
    drop_address(s);
    drop_lambda_counter(s);
    drop_counters(s);
    drop_proxy_module(s);
    return strlen(s);
}
