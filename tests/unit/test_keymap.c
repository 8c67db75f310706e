/* test_keymap: agent/writer/keymap.c, the writer's dictionaries. Lookups over growth; a cleared map
 * frees what it held and says so (keymap_bytes 0), stays usable; and the writer's bound
 * (keymap_bound) clears once when a burst overflows it, not again every period while the
 * working set afterwards is small. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "keymap.h"

/* A key of len bytes derived from i, so every (i, len) is distinct. */
static void make_key(uint8_t *k, uint32_t len, uint32_t i)
{
    for (uint32_t j = 0; j < len; j++)
        k[j] = (uint8_t)((i * 2654435761u) >> (8 * (j % 4))) ^ (uint8_t)j;
    if (len >= 4)
        memcpy(k, &i, 4);
}

static void test_lookup(void)
{
    struct keymap m;
    memset(&m, 0, sizeof(m));
    uint8_t k[64];
    uint32_t id = 0;
    CHECK(!keymap_get(&m, "x", 1, &id)); /* empty, never allocated */
    enum { N = 20000 };
    int bad = 0;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t len = 4 + i % 60;
        make_key(k, len, i);
        if (keymap_put(&m, k, len, i + 1) != 0)
            bad++;
    }
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(m.count, N);
    for (uint32_t i = 0; i < N; i++) {
        uint32_t len = 4 + i % 60;
        make_key(k, len, i);
        if (!keymap_get(&m, k, len, &id) || id != i + 1)
            bad++;
        /* the same bytes under another length are another key */
        if (keymap_get(&m, k, len - 1, &id) && id == i + 1)
            bad++;
    }
    CHECK_EQ_U(bad, 0);
    keymap_destroy(&m);
    CHECK_EQ_U(keymap_bytes(&m), 0);
    keymap_destroy(&m); /* twice: a no-op */
}

static void test_clear_frees(void)
{
    struct keymap m;
    memset(&m, 0, sizeof(m));
    uint8_t k[256];
    for (uint32_t i = 0; i < 50000; i++) {
        make_key(k, sizeof(k), i);
        keymap_put(&m, k, sizeof(k), i);
    }
    size_t full = keymap_bytes(&m);
    CHECK(full >= 50000u * sizeof(k));
    keymap_clear(&m);
    /* what a cleared map holds is what the bound measures: nothing */
    CHECK_EQ_U(keymap_bytes(&m), 0);
    CHECK_EQ_U(m.count, 0);
    uint32_t id = 0;
    make_key(k, sizeof(k), 7);
    CHECK(!keymap_get(&m, k, sizeof(k), &id));
    /* usable again, and small again */
    CHECK_EQ_U(keymap_put(&m, k, sizeof(k), 99), 0);
    CHECK(keymap_get(&m, k, sizeof(k), &id) && id == 99);
    CHECK(keymap_bytes(&m) < full / 16);
    keymap_destroy(&m);
}

/* The writer's pattern: once a period, the working set is looked up (added when absent, as a
 * name is resolved again after a clear) and the maps are bounded. A burst of distinct stacks
 * in period 0 overflows the bound; afterwards 100 stacks and 50 methods are all that is used.
 * Returns how many periods cleared the maps. */
static int periods_cleared(int periods, size_t bound)
{
    struct keymap stacks, methods;
    memset(&stacks, 0, sizeof(stacks));
    memset(&methods, 0, sizeof(methods));
    struct keymap *maps[] = {&stacks, &methods};
    uint8_t k[512];
    uint32_t id;
    int cleared = 0;
    for (int p = 0; p < periods; p++) {
        uint32_t n = p == 0 ? 20000 : 100;
        for (uint32_t i = 0; i < n; i++) {
            make_key(k, sizeof(k), i);
            if (!keymap_get(&stacks, k, sizeof(k), &id))
                keymap_put(&stacks, k, sizeof(k), i);
            uint64_t mid = i % 50;
            if (!keymap_get(&methods, &mid, sizeof(mid), &id))
                keymap_put(&methods, &mid, sizeof(mid), (uint32_t)mid);
        }
        cleared += keymap_bound(maps, 2, bound);
    }
    keymap_destroy(&stacks);
    keymap_destroy(&methods);
    return cleared;
}

static void test_bound(void)
{
    /* 20000 x 512 B keys: ~10 MB in period 0; the working set afterwards is ~0.2 MB */
    int c = periods_cleared(10, 4u << 20);
    printf("  burst then steady, 10 periods, bound 4 MB: cleared in %d periods\n", c);
    CHECK_EQ_U(c, 1);
    /* a working set that always fits is never cleared */
    struct keymap m;
    memset(&m, 0, sizeof(m));
    struct keymap *maps[] = {&m};
    keymap_put(&m, "abc", 3, 1);
    CHECK_EQ_U(keymap_bound(maps, 1, 1u << 20), 0);
    uint32_t id = 0;
    CHECK(keymap_get(&m, "abc", 3, &id) && id == 1);
    /* over the bound: cleared, then within it */
    CHECK_EQ_U(keymap_bound(maps, 1, 16), 1);
    CHECK(!keymap_get(&m, "abc", 3, &id));
    CHECK_EQ_U(keymap_bound(maps, 1, 16), 0);
    keymap_destroy(&m);
}

int main(void)
{
    test_lookup();
    test_clear_frees();
    test_bound();
    return harness_result("test_keymap");
}
