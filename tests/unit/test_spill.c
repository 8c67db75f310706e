/* test_spill: spill.c's records come back exactly and in order. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "harness.h"
#include "spill.h"

/* A deterministic generator (xorshift64*). */
static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* Record i of the sequence a seed gives: times that go back as well as forward and jump by
 * the whole range, cells up to UINT32_MAX, weights whole and fractional, up to 2^96 - 1. */
static struct spill_rec rec_of(uint64_t *s, uint64_t *t)
{
    struct spill_rec r;
    uint64_t x = rnd(s);
    switch (x % 8) {
    case 0:
        *t = rnd(s); /* anywhere */
        break;
    case 1:
        *t -= x % 100000; /* a late wall sample */
        break;
    default:
        *t += x % 5000000;
    }
    r.ticks = *t;
    r.cell = x % 16 == 3 ? UINT32_MAX : (uint32_t)(rnd(s) % 2000000);
    uint64_t y = rnd(s);
    if (y % 4 == 0)
        r.fp = ((unsigned __int128)rnd(s) << 32) | (uint32_t)rnd(s); /* big, fractional */
    else if (y % 4 == 1)
        r.fp = (unsigned __int128)(y % 7 + 1) << 32 | (uint32_t)(y >> 3); /* upscaled wall */
    else
        r.fp = (unsigned __int128)1 << 32; /* one CPU sample */
    return r;
}

static void test_round_trip(uint64_t n)
{
    struct spill *sp = NULL;
    CHECK(spill_new(NULL, &sp) == 0);
    if (!sp)
        return;
    uint64_t seed = 42 + n, t = 1000000000000000ull;
    for (uint64_t i = 0; i < n; i++) {
        struct spill_rec r = rec_of(&seed, &t);
        if (spill_add(sp, r.cell, r.ticks, r.fp) != 0) {
            CHECK(!"spill_add failed");
            break;
        }
    }
    CHECK_EQ_U(spill_count(sp), n);
    CHECK(spill_error(sp, NULL) == 0);
    /* twice: a rewind after reading starts again */
    for (int pass = 0; pass < 2; pass++) {
        CHECK(spill_rewind(sp) == 0);
        seed = 42 + n;
        t = 1000000000000000ull;
        uint64_t got = 0, bad = 0;
        struct spill_rec r;
        int rc;
        while ((rc = spill_next(sp, &r)) == 1) {
            struct spill_rec want = rec_of(&seed, &t);
            bad += r.cell != want.cell || r.ticks != want.ticks || r.fp != want.fp;
            got++;
        }
        CHECK(rc == 0);
        CHECK_EQ_U(got, n);
        CHECK_EQ_U(bad, 0);
        CHECK(spill_next(sp, &r) == 0); /* stays at the end */
    }
    spill_free(sp);
}

/* Weights beyond 2^96 (more samples than a 64-bit count) saturate instead of wrapping. */
static void test_saturates(void)
{
    struct spill *sp = NULL;
    CHECK(spill_new(NULL, &sp) == 0);
    if (!sp)
        return;
    unsigned __int128 huge = ~(unsigned __int128)0;
    CHECK(spill_add(sp, 7, 5, huge) == 0);
    CHECK(spill_rewind(sp) == 0);
    struct spill_rec r;
    CHECK(spill_next(sp, &r) == 1);
    CHECK_EQ_U((uint64_t)(r.fp >> 32), UINT64_MAX);
    CHECK_EQ_U((uint32_t)r.fp, UINT32_MAX);
    CHECK_EQ_U(r.cell, 7);
    spill_free(sp);
}

/* A directory that cannot take the file is an error the caller sees (it falls back to the
 * timeline). */
static void test_errors(void)
{
    struct spill *sp = NULL;
    CHECK(spill_new("/nonexistent/flyprof-test-dir", &sp) == -ENOENT);
    CHECK(sp == NULL);
    char longdir[5000];
    memset(longdir, 'a', sizeof(longdir) - 1);
    longdir[sizeof(longdir) - 1] = '\0';
    CHECK(spill_new(longdir, &sp) == -ENAMETOOLONG);
    spill_free(NULL);
}

/* A file that stops growing (a full disk; here a file size limit) fails the append that
 * flushes, every later call, and the rewind, with the bytes written until then. */
static void test_full(void)
{
    struct spill *sp = NULL;
    CHECK(spill_new(NULL, &sp) == 0);
    if (!sp)
        return;
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 1u << 20;
    signal(SIGXFSZ, SIG_IGN); /* the write fails with EFBIG instead of killing the test */
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    int rc = 0;
    uint64_t i;
    for (i = 0; i < 2000000 && rc == 0; i++)
        rc = spill_add(sp, (uint32_t)i, i * 1000003, (unsigned __int128)3 << 32 | 5);
    setrlimit(RLIMIT_FSIZE, &old);
    uint64_t written = 0;
    CHECK(rc == -EFBIG);
    CHECK(spill_error(sp, &written) == -EFBIG);
    CHECK(written > 0 && written <= (1u << 20));
    CHECK(spill_add(sp, 1, 2, 3) == -EFBIG);
    CHECK(spill_rewind(sp) == -EFBIG);
    spill_free(sp);
}

int main(void)
{
    test_round_trip(0);
    test_round_trip(1);
    test_round_trip(300000); /* ~3 MB: flushes and refills of the 1 MiB buffer */
    test_saturates();
    test_errors();
    test_full();
    return harness_result("test_spill");
}
