/* harness.h: a tiny test harness. CHECK records a failure and goes on; the test's main
 * returns harness_result(), which prints "N passed, N failed" and is non-zero on failure. */
#ifndef HARNESS_H
#define HARNESS_H

#include <stdio.h>

static int harness_pass, harness_fail;

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (cond) {                                                                            \
            harness_pass++;                                                                    \
        } else {                                                                               \
            harness_fail++;                                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);           \
        }                                                                                      \
    } while (0)

#define CHECK_EQ_U(a, b)                                                                       \
    do {                                                                                       \
        unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b);         \
        if (_a == _b) {                                                                        \
            harness_pass++;                                                                    \
        } else {                                                                               \
            harness_fail++;                                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu != %llu)\n", __FILE__,        \
                    __LINE__, #a, #b, _a, _b);                                                 \
        }                                                                                      \
    } while (0)

static inline int harness_result(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, harness_pass, harness_fail);
    return harness_fail ? 1 : 0;
}

#endif
