/* test_render_bounded.c: outputs in bounded memory.
 *
 * - Folded output, written line by line in sorted order without holding the text, is the
 *   same as the reference way (build every line's text, merge equal texts, sort bytewise): on
 *   names made to be prefixes of each other, where the byte order of whole lines differs from
 *   an order frame by frame ("a.b" sorts before "a;x" because '.' < ';'), and on names that
 *   differ as methods but are equal as text (they merge).
 * - The call tree's node budget: frames under the minimum share are merged per parent into one
 *   "[N small frames]" node that weighs exactly what it replaced (so every total is kept), the
 *   nodes kept are exactly those of the unpruned tree (same paths, same rounded weights, wall
 *   weights included), the node limit raises the share until the tree fits, and the flame
 *   graph page of a profile of many tiny stacks holds at most its budget of nodes and says
 *   what it merged.
 * - render_tree_walk visits every node of the unpruned tree once, with its weights, while
 *   keeping next to nothing (the text report's flat tables use it).
 * - census (what render_file_estimate sizes a render from) counts a log's dictionaries exactly
 *   and its distinct cells within a few percent, and the estimate grows with the cells.
 *
 * `test_render_bounded --write DIR` writes the budget logs for the browser test instead.
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
#include "out_html.h"
#include "out_text.h"
#include "profile.h"
#include "render.h"
#include "render_file.h"

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

/* The folded text of --kind all (cpu and wall lines under their [cpu] / [wall] roots, wall
 * lines ending in their state), with per-thread roots or not. */
static char *folded_all(const struct profile *p, int threads)
{
    char err[256], *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct out_collapsed_opts o = {.kind = PROFILE_KIND_ALL, .threads = threads, .states = 1};
    int rc = f ? out_collapsed_write(p, &o, f, err, sizeof(err)) : -1;
    if (f)
        fclose(f);
    if (rc) {
        fprintf(stderr, "folded: %s\n", rc < 0 ? err : "no memory stream");
        free(buf);
        return NULL;
    }
    return buf;
}

/* Begins a log in g: its header (command cmd), the NMETHODS methods, the NTHREADS threads,
 * and n random stacks of 1 to 6 frames, mostly sharing a root-side prefix (so folded lines
 * share long prefixes), kept leaf first in stacks[s] with their depth[s]; each frame at bci 0,
 * or at a random bci below 5 with bcis. */
static void begin_random_log(struct fplgen *g, const char *cmd, size_t n, uint64_t (*stacks)[6],
                             size_t *depth, int bcis)
{
    const struct fplgen_header h = {.pid = 1,
                                    .ticks_per_sec = 1000000000ull,
                                    .cpu_interval_ns = 1000000,
                                    .depth = 64,
                                    .options = "",
                                    .jvm_name = "VM",
                                    .jvm_version = "1",
                                    .command = cmd};
    CHECK(fplgen_init(g) == 0);
    fplgen_header(g, &h);
    for (uint64_t m = 1; m <= NMETHODS; m++)
        fplgen_method(g, m, FPL_METHOD_JAVA, classes[m - 1], mnames[m - 1],
                      m == 9 ? "(I)V" : "()V", "A.java", 0, NULL);
    for (uint64_t t = 1; t <= NTHREADS; t++)
        fplgen_thread(g, t, 100 + t, tnames[t - 1]);
    for (uint64_t s = 0; s < n; s++) {
        struct reader_frame f[6];
        depth[s] = 1 + rnd_below(6);
        for (size_t i = 0; i < depth[s]; i++) {
            size_t from_root = depth[s] - 1 - i;
            stacks[s][i] = from_root < 2 && rnd_below(4) ? 1 + from_root : 1 + rnd_below(NMETHODS);
            f[i] = (struct reader_frame){stacks[s][i], bcis ? (int64_t)rnd_below(5) : 0,
                                         FPL_FRAME_JAVA};
        }
        fplgen_stack(g, s, depth[s], f);
    }
}

/* Cells of two kinds and several states on stacks that share prefixes: the cells of a stack
 * and kind (over threads) sum into one line, lines sort in the byte order of their text, and
 * a stack's cpu and wall cells never mix, however their cells interleave. */
static void test_folded_kinds(void)
{
    enum { NSTACKS = 50, NCELLS = 600 };
    /* UNKNOWN: a wall line without a state leaf, the same frames as a cpu line */
    static const uint8_t states[] = {FPL_STATE_RUNNING, FPL_STATE_SLEEPING, FPL_STATE_BLOCKED,
                                     FPL_STATE_UNKNOWN};
    static uint64_t stacks[NSTACKS][6], cells[NCELLS][5];
    static size_t depth[NSTACKS];
    struct fplgen g;
    begin_random_log(&g, "java Kinds", NSTACKS, stacks, depth, 0);
    uint64_t t = 1000;
    for (size_t c = 0; c < NCELLS; c++) {
        cells[c][0] = 1 + rnd_below(NTHREADS);
        cells[c][1] = rnd_below(NSTACKS);
        cells[c][2] = 1 + rnd_below(3);
        cells[c][3] = rnd_below(3) ? FPL_KIND_CPU : FPL_KIND_WALL;
        cells[c][4] = cells[c][3] == FPL_KIND_WALL ? states[rnd_below(4)] : FPL_STATE_RUNNING;
        fplgen_sample(&g, t += 10, cells[c][0], cells[c][1], cells[c][2], (uint8_t)cells[c][3],
                      (uint8_t)cells[c][4]);
    }
    fplgen_end(&g, t + 1);
    CHECK(fplgen_flush(&g) == 0);
    struct profile *p = fplgen_profile(&g, "kinds.fpl");
    CHECK(p != NULL);
    for (int threads = 0; p && threads < 2; threads++) {
        /* the reference: each cell's line, equal lines summed, sorted by strcmp */
        struct ref_line *lines = calloc(NCELLS, sizeof(*lines));
        size_t n = 0, total = 1;
        for (size_t c = 0; c < NCELLS; c++) {
            char text[512], part[64];
            snprintf(text, sizeof(text), "%s", cells[c][3] == FPL_KIND_CPU ? "[cpu]" : "[wall]");
            if (threads) {
                strcat(text, ";");
                size_t at = strlen(text);
                strcat(text, tnames[cells[c][0] - 1]);
                for (char *q = text + at; *q; q++)
                    *q = *q == ';' ? '_' : *q;
            }
            for (size_t i = 0, d = depth[cells[c][1]]; i < d; i++) {
                method_text(stacks[cells[c][1]][d - 1 - i], part, sizeof(part));
                strcat(text, ";");
                strcat(text, part);
            }
            if (cells[c][3] == FPL_KIND_WALL && render_state_frame((int)cells[c][4])) {
                strcat(text, ";");
                strcat(text, render_state_frame((int)cells[c][4]));
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
        char *want = malloc(total), *o = want;
        *o = 0;
        for (size_t k = 0; k < n; k++) {
            o += sprintf(o, "%s %llu\n", lines[k].text, (unsigned long long)lines[k].weight);
            free(lines[k].text);
        }
        free(lines);
        char *got = folded_all(p, threads);
        CHECK(got && strcmp(got, want) == 0);
        if (got && strcmp(got, want) != 0)
            fprintf(stderr, "threads %d: got\n%s\nwant\n%s\n", threads, got, want);
        /* the test means something: a stack has lines of both kinds, merged over threads */
        CHECK(threads ? strstr(want, "[cpu];w;a.x;") && strstr(want, "[wall];w;a.x;")
                      : strstr(want, "[cpu];a.x;") && strstr(want, "[wall];a.x;"));
        free(got);
        free(want);
    }
    profile_free(p);
    fplgen_destroy(&g);
}

static void check_walk(const struct profile *p, const struct render_opts *base);

static void test_folded_order(void)
{
    enum { NSTACKS = 60, NCELLS = 400 };
    static uint64_t stacks[NSTACKS][6], cells[NCELLS][4];
    static size_t depth[NSTACKS];
    struct fplgen g;
    begin_random_log(&g, "java Order", NSTACKS, stacks, depth, 1);
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
            char *want =
                reference((const uint64_t(*)[4])cells, NCELLS, stacks, depth, threads, reverse);
            char *got = folded(p, threads, reverse);
            CHECK(got && strcmp(got, want) == 0);
            if (got && strcmp(got, want) != 0) {
                fprintf(stderr, "threads %d reverse %d: got\n%s\nwant\n%s\n", threads, reverse, got,
                        want);
            }
            /* the test means something: the names do sort differently frame by frame */
            CHECK(strstr(want, "a.x.y") && strstr(want, "a.b.x"));
            free(got);
            free(want);
        }
    }
    /* these stacks recurse (a method twice on a path): the walk's outermost flags count */
    for (int threads = 0; p && threads < 2; threads++) {
        struct render_opts o = {
            .kind = FPL_KIND_CPU, .state = RENDER_STATE_ALL, .threads = threads};
        check_walk(p, &o);
    }
    profile_free(p);
    fplgen_destroy(&g);
}

/* ---- the node budget ---- */

#define WIDE 3000 /* tiny stacks under the hot root */

static const struct fplgen_header budget_header = {.pid = 2,
                                                   .ticks_per_sec = 1000000000ull,
                                                   .cpu_interval_ns = 1000000,
                                                   .wall_interval_ns = 10000000,
                                                   .wall_threads = 4,
                                                   .depth = 64,
                                                   .options = "",
                                                   .jvm_name = "VM",
                                                   .jvm_version = "1",
                                                   .command = "java Budget"};

static int budget_log(struct fplgen *g, int wall);

/* A profile of a few heavy stacks and WIDE tiny ones (weight 1, each its own leaf under
 * Main.run -> Main.wide), on two threads; with wall, wall samples too, upscaled by 7/3 so
 * their weights are fractions. */
static struct profile *budget_profile(int wall)
{
    struct fplgen g;
    if (budget_log(&g, wall) != 0)
        return NULL;
    struct profile *p = fplgen_profile(&g, "budget.fpl");
    fplgen_destroy(&g);
    return p;
}

/* Writes the budget log (see budget_profile) into g, initialized here. */
static int budget_log(struct fplgen *g, int wall)
{
    char name[32];
    int rc = fplgen_init(g);
    if (rc)
        return rc;
    fplgen_header(g, &budget_header);
    fplgen_method(g, 1, FPL_METHOD_JAVA, "Main", "run", "()V", "", 0, NULL);
    fplgen_method(g, 2, FPL_METHOD_JAVA, "Main", "hot", "()V", "", 0, NULL);
    fplgen_method(g, 3, FPL_METHOD_JAVA, "Main", "warm", "()V", "", 0, NULL);
    fplgen_method(g, 4, FPL_METHOD_JAVA, "Main", "wide", "()V", "", 0, NULL);
    for (uint64_t m = 0; m < WIDE; m++) {
        snprintf(name, sizeof(name), "tiny%05llu", (unsigned long long)m);
        fplgen_method(g, 100 + m, FPL_METHOD_JAVA, "Tiny", name, "()V", "", 0, NULL);
    }
    fplgen_thread(g, 1, 11, "main");
    fplgen_thread(g, 2, 12, "worker");
    struct reader_frame hot[2] = {{2, 1, 0}, {1, 1, 0}}, warm[2] = {{3, 1, 0}, {1, 1, 0}};
    fplgen_stack(g, 1, 2, hot);
    fplgen_stack(g, 2, 2, warm);
    for (uint64_t m = 0; m < WIDE; m++) {
        struct reader_frame f[3] = {{100 + m, 2, 0}, {4, 1, 0}, {1, 1, 0}};
        fplgen_stack(g, 10 + m, 3, f);
    }
    uint64_t t = 1000;
    fplgen_wall_tick(g, 1, t, 7, 3, 3, 0);
    for (int th = 1; th <= 2; th++) {
        fplgen_sample(g, t += 10, (uint64_t)th, 1, 200000, FPL_KIND_CPU, FPL_STATE_RUNNING);
        fplgen_sample(g, t += 10, (uint64_t)th, 2, 30000, FPL_KIND_CPU, FPL_STATE_RUNNING);
        if (wall)
            fplgen_sample_tick(g, t += 10, (uint64_t)th, 1, 50000, FPL_KIND_WALL,
                               FPL_STATE_SLEEPING, 1);
    }
    for (uint64_t m = 0; m < WIDE; m++) {
        uint64_t th = 1 + m % 2;
        fplgen_sample(g, t += 10, th, 10 + m, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
        if (wall)
            fplgen_sample_tick(g, t += 10, th, 10 + m, 1 + m % 3, FPL_KIND_WALL, FPL_STATE_RUNNING,
                               1);
        if (m % 500 == 499)
            fplgen_flush(g);
    }
    fplgen_end(g, t + 1);
    return fplgen_flush(g);
}

/* The properties every budgeted tree t has against the unpruned tree full of the same
 * selection. */
static void check_budget(const struct render_tree *t, const struct render_tree *full,
                         const char *what)
{
    uint64_t *match = malloc(t->nnodes * sizeof(*match));
    int ok = match && render_tree_match(t, full, match) == 0;
    uint64_t small = 0, merged = 0;
    for (size_t i = 0; ok && i < t->nnodes; i++) {
        const struct render_node *nd = &t->nodes[i];
        uint64_t kids = 0;
        for (uint32_t c = nd->first_child; c != UINT32_MAX; c = t->nodes[c].next_sibling)
            kids += t->nodes[c].total;
        ok &= nd->total == nd->self + kids;
        if (nd->type == RENDER_SMALL) {
            /* what it replaced: the full tree's children of the same parent not kept here */
            uint64_t kept = 0, all = 0, n_all = 0, n_kept = 0;
            const struct render_node *par = &t->nodes[nd->parent];
            for (uint32_t c = par->first_child; c != UINT32_MAX; c = t->nodes[c].next_sibling)
                if (t->nodes[c].type != RENDER_SMALL)
                    kept += t->nodes[c].total, n_kept++;
            uint32_t fp_ = UINT32_MAX;
            /* the parent's node in full: its path matched the same total */
            for (size_t j = 0; j < full->nnodes && fp_ == UINT32_MAX; j++)
                if (full->nodes[j].depth == par->depth && full->nodes[j].total == par->total &&
                    strcmp(full->names[full->nodes[j].name], t->names[par->name]) == 0)
                    fp_ = (uint32_t)j;
            ok &= fp_ != UINT32_MAX;
            if (fp_ != UINT32_MAX)
                for (uint32_t c = full->nodes[fp_].first_child; c != UINT32_MAX;
                     c = full->nodes[c].next_sibling)
                    all += full->nodes[c].total, n_all++;
            ok &= nd->total == all - kept && nd->merged == n_all - n_kept;
            ok &= nd->first_child == UINT32_MAX && nd->merged > 0;
            ok &= t->names[nd->name][0] == '[' && strstr(t->names[nd->name], "small frame");
            small++;
            merged += nd->merged;
        } else {
            /* a kept node is the unpruned tree's, weight for weight */
            ok &= match[i] == nd->total;
            ok &= i == 0 || nd->total >= (uint64_t)t->min_weight;
        }
    }
    ok &= t->total == full->total && t->samples == full->samples;
    ok &= small == t->merged_nodes && merged == t->merged_frames;
    if (!ok)
        fprintf(stderr, "budget check failed: %s\n", what);
    CHECK(ok);
    free(match);
}

static void test_budget_tree(void)
{
    for (int wall = 0; wall < 2; wall++) {
        struct profile *p = budget_profile(wall);
        CHECK(p != NULL);
        if (!p)
            return;
        for (int threads = 0; threads < 2; threads++) {
            for (int reverse = 0; reverse < 2; reverse++) {
                struct render_opts o = {.kind = wall ? FPL_KIND_WALL : FPL_KIND_CPU,
                                        .state = RENDER_STATE_ALL,
                                        .threads = threads,
                                        .reverse = reverse};
                struct render_tree full, t;
                char err[256];
                CHECK(render_tree_build(&full, p, &o, err, sizeof(err)) == 0);
                /* every tiny leaf is under 0.01% of the total; hot and warm are not */
                o.min_share = 0.0001;
                CHECK(render_tree_build(&t, p, &o, err, sizeof(err)) == 0);
                CHECK(full.nnodes > WIDE && t.nnodes < 20);
                CHECK(t.merged_frames >= WIDE / (threads ? 2 : 1) && t.merged_nodes >= 1);
                check_budget(&t, &full, "min_share");
                render_tree_destroy(&t);
                /* a node limit raises the share until the tree fits */
                o.min_share = 0;
                o.max_nodes = 6;
                CHECK(render_tree_build(&t, p, &o, err, sizeof(err)) == 0);
                CHECK(t.nnodes <= 6 && t.nnodes >= 2 && t.min_share > 0);
                check_budget(&t, &full, "max_nodes");
                render_tree_destroy(&t);
                /* the smallest limit: the root and one node of everything */
                o.max_nodes = 1;
                CHECK(render_tree_build(&t, p, &o, err, sizeof(err)) == 0);
                CHECK(t.nnodes == 2 && t.nodes[1].type == RENDER_SMALL);
                check_budget(&t, &full, "max_nodes 1");
                render_tree_destroy(&t);
                render_tree_destroy(&full);
            }
        }
        profile_free(p);
    }
}

/* The page's embedded value of "key":N, or -1. */
static long long page_num(const char *page, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *at = strstr(page, pat);
    return at ? strtoll(at + strlen(pat), NULL, 10) : -1;
}

/* The page of p with o; NULL on failure. */
static char *page_of(const struct profile *p, const struct render_opts *o)
{
    char err[256], *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    int rc = f ? out_html_write(p, o, f, err, sizeof(err)) : -1;
    if (f)
        fclose(f);
    if (rc) {
        free(page);
        return NULL;
    }
    return page;
}

/* The flame graph page of many tiny stacks with the default budget: each tiny frame weighs
 * 1 of 463,000 (0.0002%), under OUT_HTML_MIN_SHARE, so the page holds a handful of nodes, one
 * of which is the merged "[3000 small frames]" (per thread: 1500), and the data says what was
 * merged and under which share. */
static void test_budget_page(void)
{
    struct profile *p = budget_profile(0);
    CHECK(p != NULL);
    if (!p)
        return;
    for (int threads = 0; threads < 2; threads++) {
        struct render_opts o = {
            .kind = FPL_KIND_CPU, .state = RENDER_STATE_ALL, .threads = threads};
        char *page = page_of(p, &o);
        CHECK(page != NULL);
        if (!page)
            continue;
        long long n = page_num(page, "n");
        CHECK(n > 0 && n < 20);
        CHECK(page_num(page, "merged_frames") == WIDE);
        CHECK(page_num(page, "merged_nodes") == (threads ? 2 : 1));
        CHECK(page_num(page, "max_nodes") == OUT_HTML_MAX_NODES);
        CHECK(strstr(page, threads ? "[1500 small frames]" : "[3000 small frames]") != NULL);
        CHECK(strstr(page, "\"min_share\":1e-05") != NULL);
        free(page);

        /* a negative share: no budget, every frame is on the page */
        o.min_share = -1;
        page = page_of(p, &o);
        CHECK(page && page_num(page, "n") > WIDE && page_num(page, "merged_frames") == 0);
        free(page);

        /* a node limit of its own */
        o.min_share = 0;
        o.max_nodes = 4;
        page = page_of(p, &o);
        CHECK(page && page_num(page, "n") <= 4 && page_num(page, "max_nodes") == 4);
        free(page);
    }
    profile_free(p);
}

/* The text report's tree merges what it would not print anyway: the report is the same
 * with the budget as with every node (prune 0.5%: "N more" lines count merged frames). */
static void test_budget_text(void)
{
    struct profile *p = budget_profile(1);
    CHECK(p != NULL);
    if (!p)
        return;
    struct render_opts o = {.kind = PROFILE_KIND_ALL, .state = RENDER_STATE_ALL, .threads = 1};
    char err[256], *txt = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&txt, &len);
    CHECK(f && out_text_write(p, &o, f, err, sizeof(err)) == 0);
    if (f)
        fclose(f);
    /* 1500 tiny frames per thread, each under 0.5%: one "more" line each, all counted */
    CHECK(txt && strstr(txt, "... 1500 more under 0.50%") != NULL);
    CHECK(txt && !strstr(txt, "small frame"));
    free(txt);
    profile_free(p);
}

/* ---- walking the unpruned tree ---- */

struct visited {
    uint32_t n, cap;
    struct render_visit *v;
    const char **names; /* the walked tree's names, to compare by text */
};

static int record_visit(void *ctx, const struct render_tree *t, const struct render_visit *v)
{
    struct visited *w = ctx;
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 256;
        w->v = realloc(w->v, w->cap * sizeof(*w->v));
        if (!w->v)
            return -ENOMEM;
    }
    w->v[w->n++] = *v;
    w->names = (const char **)t->names;
    return 0;
}

/* A node's key as text: "depth name total self outermost". */
static char *node_key(uint32_t depth, const char *name, uint64_t total, uint64_t self, int outer)
{
    char *k = NULL;
    if (asprintf(&k, "%u %s %llu %llu %d", depth, name, (unsigned long long)total,
                 (unsigned long long)self, outer) < 0)
        return NULL;
    return k;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The walk sees the unpruned tree's nodes, each once, with the same weights; outermost says
 * whether an ancestor bears the same name. */
static void check_walk(const struct profile *p, const struct render_opts *base)
{
    struct render_opts o = *base;
    struct render_tree full, t;
    struct visited w = {0};
    char err[256];
    CHECK(render_tree_build(&full, p, &o, err, sizeof(err)) == 0);
    o.min_share = 1;
    CHECK(render_tree_walk(&t, p, &o, record_visit, &w, err, sizeof(err)) == 0);
    CHECK(w.n == full.nnodes);
    CHECK(t.nnodes < full.nnodes / 10 && t.total == full.total);
    char **a = calloc(full.nnodes, sizeof(*a)), **b = calloc(w.n, sizeof(*b));
    int ok = a && b && w.n == full.nnodes;
    for (size_t i = 0; ok && i < full.nnodes; i++) {
        const struct render_node *nd = &full.nodes[i];
        int outer = 1;
        for (uint32_t q = nd->parent; q != UINT32_MAX; q = full.nodes[q].parent)
            outer &= full.nodes[q].name != nd->name;
        a[i] = node_key(nd->depth, full.names[nd->name], nd->total, nd->self, outer);
        b[i] = node_key(w.v[i].depth, t.names[w.v[i].name], w.v[i].total, w.v[i].self,
                        w.v[i].outermost);
        ok &= a[i] && b[i];
    }
    if (ok) {
        qsort(a, full.nnodes, sizeof(*a), cmp_str);
        qsort(b, w.n, sizeof(*b), cmp_str);
        for (size_t i = 0; i < w.n; i++)
            ok &= strcmp(a[i], b[i]) == 0;
    }
    CHECK(ok);
    for (size_t i = 0; a && b && i < w.n && i < full.nnodes; i++) {
        free(a[i]);
        free(b[i]);
    }
    free(a);
    free(b);
    free(w.v);
    render_tree_destroy(&t);
    render_tree_destroy(&full);
}

static void test_walk(void)
{
    for (int wall = 0; wall < 2; wall++) {
        struct profile *p = budget_profile(wall);
        CHECK(p != NULL);
        for (int threads = 0; p && threads < 2; threads++) {
            struct render_opts o = {.kind = wall ? PROFILE_KIND_ALL : FPL_KIND_CPU,
                                    .state = RENDER_STATE_ALL,
                                    .threads = threads};
            check_walk(p, &o);
        }
        profile_free(p);
    }
}

/* ---- census and estimate ---- */

static void test_census(void)
{
    for (int wall = 0; wall < 2; wall++) {
        struct fplgen g;
        static struct census c;
        char err[256];
        size_t len;
        CHECK(budget_log(&g, wall) == 0);
        uint8_t *data = fplgen_bytes(&g, &len);
        struct profile *p = fplgen_profile(&g, "census.fpl");
        CHECK(data && p && census_read_mem(data, len, "census.fpl", &c, err, sizeof(err)) == 0);
        if (data && p) {
            CHECK_EQ_U(c.threads, 2);
            CHECK_EQ_U(c.methods, 4 + WIDE);
            CHECK_EQ_U(c.stacks, 2 + WIDE);
            CHECK_EQ_U(c.frames, 4 + 3 * WIDE);
            CHECK_EQ_U(c.max_depth, 3);
            CHECK_EQ_U(c.samples, p->samples);
            CHECK_EQ_U(c.wall_ticks, 1);
            CHECK_EQ_U(c.file_bytes, len);
            /* HyperLogLog with 4096 registers: 1.6% standard error; 5% is 3 of them */
            double ratio = (double)c.cells / (double)p->nentries;
            CHECK(ratio > 0.95 && ratio < 1.05);
            if (!(ratio > 0.95 && ratio < 1.05))
                fprintf(stderr, "census: %llu cells, the profile has %zu\n",
                        (unsigned long long)c.cells, p->nentries);
            /* the estimate grows with the cells, and covers at least the cells themselves */
            struct render_opts o = {.kind = PROFILE_KIND_AUTO, .state = RENDER_STATE_ALL};
            for (int fmt = RENDER_FILE_COLLAPSED; fmt <= RENDER_FILE_PPROF; fmt++) {
                uint64_t e1 = render_file_estimate_census(&c, &o, fmt);
                c.cells *= 10;
                uint64_t e10 = render_file_estimate_census(&c, &o, fmt);
                c.cells /= 10;
                CHECK(e10 > e1 && e1 > p->nentries * sizeof(struct profile_entry));
            }
        }
        free(data);
        profile_free(p);
        fplgen_destroy(&g);
    }
    /* a small count is exact (linear counting) */
    struct fplgen g;
    static struct census c;
    char err[256];
    size_t len;
    CHECK(fplgen_init(&g) == 0);
    fplgen_header(&g, &budget_header);
    for (uint64_t i = 0; i < 40; i++)
        fplgen_sample(&g, 100 + i, 1 + i % 4, i % 10, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_flush(&g);
    uint8_t *data = fplgen_bytes(&g, &len);
    CHECK(data && census_read_mem(data, len, "small.fpl", &c, err, sizeof(err)) == 0);
    CHECK_EQ_U(c.cells, 20); /* (i % 4, i % 10) pairs: lcm 20 */
    free(data);
    fplgen_destroy(&g);
}

/* Writes the budget logs the browser test (tests/browser/test_html_budget.py) renders. */
static int write_fixtures(const char *dir)
{
    char path[4096];
    for (int wall = 0; wall < 2; wall++) {
        struct fplgen g;
        snprintf(path, sizeof(path), "%s/budget%s.fpl", dir, wall ? "-wall" : "");
        int rc = budget_log(&g, wall);
        if (rc == 0)
            rc = fplgen_save(&g, path);
        fplgen_destroy(&g);
        if (rc) {
            fprintf(stderr, "cannot write %s: %s\n", path, strerror(-rc));
            return 1;
        }
    }
    return 0;
}

/* The census counts trace context too (CONTEXT and ENDPOINT records, samples with a context),
 * and the page's estimate grows with those samples: its requests' context pairs. */
static void test_census_context(void)
{
    struct fplgen g;
    static struct census c, c0;
    char err[256];
    size_t len;
    CHECK(fplgen_init(&g) == 0);
    fplgen_header(&g, &budget_header);
    fplgen_thread(&g, 1, 11, "main");
    struct reader_frame fr = {1, 0, FPL_FRAME_JAVA};
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "demo.Main", "run", "()V", "", 0, NULL);
    fplgen_stack(&g, 1, 1, &fr);
    fplgen_context(&g, 1, 100, 100);
    fplgen_context(&g, 2, 101, 100);
    fplgen_context(&g, 3, 200, 200);
    for (uint64_t i = 0; i < 5; i++)
        fplgen_sample_ctx(&g, 1000 + i, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING, 0, i % 4);
    fplgen_endpoint(&g, 100, "GET /a");
    fplgen_endpoint(&g, 200, "GET /bb");
    fplgen_end(&g, 2000);
    uint8_t *data = fplgen_flush(&g) == 0 ? fplgen_bytes(&g, &len) : NULL;
    CHECK(data && census_read_mem(data, len, "ctx.fpl", &c, err, sizeof(err)) == 0);
    if (data) {
        CHECK_EQ_U(c.contexts, 3);
        CHECK_EQ_U(c.endpoints, 2);
        CHECK_EQ_U(c.endpoint_bytes, 13);
        CHECK_EQ_U(c.samples, 5);
        CHECK_EQ_U(c.context_samples, 3); /* ids 1, 2, 3; two samples with 0 */
        struct render_opts o = {.kind = PROFILE_KIND_AUTO, .state = RENDER_STATE_ALL};
        c0 = c;
        c0.context_samples = 0;
        CHECK(render_file_estimate_census(&c, &o, RENDER_FILE_HTML) >
              render_file_estimate_census(&c0, &o, RENDER_FILE_HTML));
    }
    free(data);
    fplgen_destroy(&g);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_fixtures(argv[2]);
    test_folded_order();
    test_folded_kinds();
    test_budget_tree();
    test_budget_page();
    test_budget_text();
    test_walk();
    test_census();
    test_census_context();
    return harness_result("test_render_bounded");
}
