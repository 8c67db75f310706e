/* test_render_bounded.c: outputs in bounded memory.
 *
 * - Folded output, written line by line in sorted order without holding the text, is the
 *   same as the reference way (build every line's text, merge equal texts, sort bytewise): on
 *   names made to be prefixes of each other, where the byte order of whole lines differs from
 *   an order frame by frame ("a.b" sorts before "a;x" because '.' < ';'), and on names that
 *   differ as methods but are equal as text (they merge).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_format.h"
#include "fplgen.h"
#include "fplgen_profile.h"
#include "harness.h"
#include "out_collapsed.h"
#include "profile.h"
#include "render.h"

static uint64_t rng_state = 0x9d2c5680aa11ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static size_t rnd_below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* ---- folded output against a reference ---- */

/* Method names that are prefixes of each other and of text with bytes on both sides of ';'
 * (0x3b): '$' 0x24, '.' 0x2e, '0' 0x30, 'A' 0x41, '_' 0x5f, 'b' 0x62. Method 9 has the same
 * class and name as method 1 (another signature): the same frame text. */
static const char *const classes[] = {"a", "a", "a", "a", "a", "a", "a", "a.b", "a"};
static const char *const mnames[] = {"x", "x$1", "x.y", "x0", "xA", "x_", "xb", "x", "x"};
#define NMETHODS 9
static const char *const tnames[] = {"w", "w-1", "w.2", "w;3", "W", "w"};
#define NTHREADS 6

struct ref_line {
    char *text;
    uint64_t weight;
};

static int cmp_ref(const void *a, const void *b)
{
    return strcmp(((const struct ref_line *)a)->text, ((const struct ref_line *)b)->text);
}

/* The display name fplgen's method m gets: class.name, ';' cleaned to '_'. */
static void method_text(uint64_t m, char *buf, size_t len)
{
    snprintf(buf, len, "%s.%s", classes[m - 1], mnames[m - 1]);
}

/* The reference folded text of the generated cells. */
static char *reference(const uint64_t (*cells)[4], size_t ncells, uint64_t (*stacks)[6],
                       const size_t *depth, int threads, int reverse)
{
    struct ref_line *lines = calloc(ncells, sizeof(*lines));
    size_t n = 0, total = 0;
    for (size_t c = 0; c < ncells; c++) {
        /* cells[c] = {thread, stack, weight} */
        char text[512] = "", part[64];
        if (threads) {
            snprintf(text, sizeof(text), "%s", tnames[cells[c][0] - 1]);
            for (char *q = text; *q; q++)
                *q = *q == ';' ? '_' : *q;
        }
        size_t d = depth[cells[c][1]];
        for (size_t i = 0; i < d; i++) {
            /* stacks are leaf first; folded lines root first unless reversed */
            method_text(stacks[cells[c][1]][reverse ? i : d - 1 - i], part, sizeof(part));
            if (text[0])
                strcat(text, ";");
            strcat(text, part);
        }
        size_t k = 0;
        while (k < n && strcmp(lines[k].text, text) != 0)
            k++;
        if (k == n)
            lines[n++].text = strdup(text);
        lines[k].weight += cells[c][2];
    }
    qsort(lines, n, sizeof(*lines), cmp_ref);
    for (size_t k = 0; k < n; k++)
        total += strlen(lines[k].text) + 24;
    char *out = malloc(total + 1), *o = out;
    for (size_t k = 0; k < n; k++) {
        o += sprintf(o, "%s %llu\n", lines[k].text, (unsigned long long)lines[k].weight);
        free(lines[k].text);
    }
    *o = 0;
    free(lines);
    return out;
}

/* The folded text out_collapsed writes. */
static char *folded(const struct profile *p, int threads, int reverse)
{
    char err[256], *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct render_opts o = {.kind = FPL_KIND_CPU, .state = RENDER_STATE_ALL};
    struct render_select sel;
    int rc = -1;
    if (f && render_select_init(&sel, p, &o, err, sizeof(err)) == 0) {
        rc = out_collapsed_write_select(p, &sel, threads, reverse, f, err, sizeof(err));
        render_select_destroy(&sel);
    }
    if (f)
        fclose(f);
    if (rc) {
        fprintf(stderr, "folded: %s\n", err);
        free(buf);
        return NULL;
    }
    return buf;
}

static void test_folded_order(void)
{
    enum { NSTACKS = 60, NCELLS = 400 };
    static uint64_t stacks[NSTACKS][6], cells[NCELLS][4];
    static size_t depth[NSTACKS];
    struct fplgen g;
    const struct fplgen_header h = {.pid = 1, .ticks_per_sec = 1000000000ull,
                                    .cpu_interval_ns = 1000000, .depth = 64,
                                    .options = "", .jvm_name = "VM", .jvm_version = "1",
                                    .command = "java Order"};
    CHECK(fplgen_init(&g) == 0);
    fplgen_header(&g, &h);
    for (uint64_t m = 1; m <= NMETHODS; m++)
        fplgen_method(&g, m, FPL_METHOD_JAVA, classes[m - 1], mnames[m - 1],
                      m == 9 ? "(I)V" : "()V", "A.java", 0, NULL);
    for (uint64_t t = 1; t <= NTHREADS; t++)
        fplgen_thread(&g, t, 100 + t, tnames[t - 1]);
    for (uint64_t s = 0; s < NSTACKS; s++) {
        struct reader_frame f[6];
        depth[s] = 1 + rnd_below(6);
        for (size_t i = 0; i < depth[s]; i++) {
            /* mostly a shared root-side prefix, so lines share long prefixes */
            size_t from_root = depth[s] - 1 - i;
            stacks[s][i] = from_root < 2 && rnd_below(4) ? 1 + from_root : 1 + rnd_below(NMETHODS);
            f[i] = (struct reader_frame){stacks[s][i], (int64_t)rnd_below(5), FPL_FRAME_JAVA};
        }
        fplgen_stack(&g, s, depth[s], f);
    }
    uint64_t t = 1000;
    for (size_t c = 0; c < NCELLS; c++) {
        cells[c][0] = 1 + rnd_below(NTHREADS);
        cells[c][1] = rnd_below(NSTACKS);
        cells[c][2] = 1 + rnd_below(3);
        fplgen_sample(&g, t += 10, cells[c][0], cells[c][1], cells[c][2], FPL_KIND_CPU,
                      FPL_STATE_RUNNING);
    }
    fplgen_end(&g, t + 1);
    CHECK(fplgen_flush(&g) == 0);
    struct profile *p = fplgen_profile(&g, "order.fpl");
    CHECK(p != NULL);
    for (int threads = 0; p && threads < 2; threads++) {
        for (int reverse = 0; reverse < 2; reverse++) {
            char *want = reference((const uint64_t(*)[4])cells, NCELLS, stacks, depth, threads,
                                   reverse);
            char *got = folded(p, threads, reverse);
            CHECK(got && strcmp(got, want) == 0);
            if (got && strcmp(got, want) != 0) {
                fprintf(stderr, "threads %d reverse %d: got\n%s\nwant\n%s\n", threads, reverse,
                        got, want);
            }
            /* the test means something: the names do sort differently frame by frame */
            CHECK(strstr(want, "a.x.y") && strstr(want, "a.b.x"));
            free(got);
            free(want);
        }
    }
    profile_free(p);
    fplgen_destroy(&g);
}

int main(void)
{
    test_folded_order();
    return harness_result("test_render_bounded");
}
