/* test_render.c: the shared render layer on hand-built logs. Call trees of the golden log as
 * exact dumps (forward, reverse with threads, wall with state leaves, both kinds, state filter,
 * include / exclude on frames and thread names), consistent rounding of fractional wall
 * weights, path matching for diffs, titles, the text report (exact text, pruning, top-N), and
 * folded output through render_file with filters and reverse. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_format.h"
#include "fplgen.h"
#include "golden_log.h"
#include "harness.h"
#include "out_collapsed.h"
#include "out_text.h"
#include "profile.h"
#include "render.h"
#include "summary.h"

static const struct render_opts DEFAULTS = {.kind = PROFILE_KIND_AUTO,
                                            .state = RENDER_STATE_ALL};

/* Reads a generator's log into a new profile, with a window when from/to are given. */
static struct profile *load_gen(struct fplgen *g, const struct profile_time *from,
                                const struct profile_time *to)
{
    char err[256];
    size_t len;
    uint8_t *data = fplgen_bytes(g, &len);
    struct profile *p = profile_new();
    if (!data || !p)
        goto fail;
    if ((from || to) && profile_set_window_times(p, from, to, err, sizeof(err)) != 0) {
        fprintf(stderr, "window: %s\n", err);
        goto fail;
    }
    if (profile_read_mem(p, data, len, "test.fpl", err, sizeof(err)) != 0) {
        fprintf(stderr, "read: %s\n", err);
        goto fail;
    }
    free(data);
    return p;
fail:
    free(data);
    profile_free(p);
    return NULL;
}

static struct profile *load_golden(void)
{
    struct fplgen g;
    struct profile *p = NULL;
    if (fplgen_init(&g) == 0 && golden_log_build(&g, 1) == 0)
        p = load_gen(&g, NULL, NULL);
    fplgen_destroy(&g);
    return p;
}

/* A tree as text: one node per line in preorder, indented by depth: "name total/self T". */
static char *dump(const struct render_tree *t)
{
    static const char types[] = "JINCMTSKPO1UE"; /* enum render_type */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    for (size_t i = 0; i < t->nnodes; i++) {
        const struct render_node *n = &t->nodes[i];
        fprintf(f, "%*s%s %llu/%llu %c\n", (int)(2 * n->depth), "", t->names[n->name],
                (unsigned long long)n->total, (unsigned long long)n->self, types[n->type]);
    }
    fclose(f);
    return buf;
}

/* Checks the structural invariants every tree must keep: preorder numbering, parent links,
 * sibling order by name, total = self + children, depth = parent's + 1. */
static int tree_consistent(const struct render_tree *t)
{
    if (t->nnodes == 0 || t->nodes[0].parent != UINT32_MAX || t->total != t->nodes[0].total)
        return 0;
    for (size_t i = 0; i < t->nnodes; i++) {
        const struct render_node *n = &t->nodes[i];
        uint64_t sum = n->self;
        const char *prev = NULL;
        for (uint32_t c = n->first_child; c != UINT32_MAX; c = t->nodes[c].next_sibling) {
            if (c <= i || t->nodes[c].parent != i || t->nodes[c].depth != n->depth + 1)
                return 0;
            if (prev && strcmp(prev, t->names[t->nodes[c].name]) > 0)
                return 0;
            prev = t->names[t->nodes[c].name];
            sum += t->nodes[c].total;
        }
        if (sum != n->total)
            return 0;
    }
    return 1;
}

/* Builds the tree of p with o and compares its dump with want. */
static void check_tree(const struct profile *p, const struct render_opts *o, const char *want,
                       uint64_t samples)
{
    struct render_tree t;
    char err[256];
    int rc = render_tree_build(&t, p, o, err, sizeof(err));
    CHECK_EQ_U(rc, 0);
    if (rc) {
        fprintf(stderr, "build: %s\n", err);
        return;
    }
    char *got = dump(&t);
    CHECK(got && strcmp(got, want) == 0);
    if (got && strcmp(got, want) != 0)
        fprintf(stderr, "tree: got\n%s\nwant\n%s\n", got, want);
    CHECK(tree_consistent(&t));
    CHECK_EQ_U(t.samples, samples);
    free(got);
    render_tree_destroy(&t);
}

static const char TREE_CPU[] = "all 15/0 K\n"
                               "  [agct:unknown_Java] 1/1 M\n"
                               "  [unknown stack] 1/1 M\n"
                               "  com.example.App.main 9/0 J\n"
                               "    [unknown] 1/0 M\n"
                               "      os::javaTimeNanos 1/1 C\n"
                               "    com.example.App.work 8/3 J\n"
                               "      com.example.App.hash 5/5 J\n"
                               "  java.lang.Thread.run 4/0 J\n"
                               "    com.foo.Bar$$Lambda.run 4/0 J\n"
                               "      com.example.App.fib 4/0 J\n"
                               "        com.example.App.fib 4/0 J\n"
                               "          com.example.App.fib 4/4 J\n";

static const char TREE_CPU_REV_THREADS[] =
    "all 15/0 K\n"
    "  [unknown thread] 1/0 T\n"
    "    com.example.App.work 1/0 J\n"
    "      com.example.App.main 1/1 J\n"
    "  main 9/0 T\n"
    "    [unknown stack] 1/1 M\n"
    "    com.example.App.hash 5/0 J\n"
    "      com.example.App.work 5/0 J\n"
    "        com.example.App.main 5/5 J\n"
    "    com.example.App.work 2/0 J\n"
    "      com.example.App.main 2/2 J\n"
    "    os::javaTimeNanos 1/0 C\n"
    "      [unknown] 1/0 M\n"
    "        com.example.App.main 1/1 J\n"
    "  pool-1_worker_2 5/0 T\n"
    "    [agct:unknown_Java] 1/1 M\n"
    "    com.example.App.fib 4/0 J\n"
    "      com.example.App.fib 4/0 J\n"
    "        com.example.App.fib 4/0 J\n"
    "          com.foo.Bar$$Lambda.run 4/0 J\n"
    "            java.lang.Thread.run 4/4 J\n";

/* wall: 8.75 (sleeping) + 5.75 (running) = 14.5, laid out as [0, 5.75) and [5.75, 14.5) */
static const char TREE_WALL_THREADS[] = "all 15/0 K\n"
                                        "  main 6/0 T\n"
                                        "    com.example.App.main 6/0 J\n"
                                        "      com.example.App.work 6/0 J\n"
                                        "        com.example.App.hash 6/0 J\n"
                                        "          [running] 6/6 S\n"
                                        "  pool-1_worker_2 9/0 T\n"
                                        "    java.lang.Thread.run 9/0 J\n"
                                        "      java.lang.Thread.sleep0 9/0 N\n"
                                        "        [sleeping] 9/9 S\n";

static const char TREE_WALL_REV[] = "all 15/0 K\n"
                                    "  [running] 6/0 S\n"
                                    "    com.example.App.hash 6/0 J\n"
                                    "      com.example.App.work 6/0 J\n"
                                    "        com.example.App.main 6/6 J\n"
                                    "  [sleeping] 9/0 S\n"
                                    "    java.lang.Thread.sleep0 9/0 N\n"
                                    "      java.lang.Thread.run 9/9 J\n";

static void test_trees(void)
{
    struct profile *p = load_golden();
    struct render_opts o = DEFAULTS;
    CHECK(p != NULL);
    if (!p)
        return;

    check_tree(p, &o, TREE_CPU, GOLDEN_CPU_SAMPLES);

    o.reverse = 1;
    o.threads = 1;
    check_tree(p, &o, TREE_CPU_REV_THREADS, GOLDEN_CPU_SAMPLES);

    o = DEFAULTS;
    o.kind = FPL_KIND_WALL;
    o.threads = 1;
    check_tree(p, &o, TREE_WALL_THREADS, GOLDEN_WALL_SAMPLES);

    o.threads = 0;
    o.reverse = 1;
    check_tree(p, &o, TREE_WALL_REV, GOLDEN_WALL_SAMPLES);

    /* both kinds: [cpu] and [wall] roots, each its own subtree, weighed in ns (CPU weight x
     * 10 ms, upscaled wall weight x 50 ms): CPU time and thread time, whose sum the root is --
     * not the sum of 15 CPU intervals and 14.5 wall intervals, which would make them equal */
    o = DEFAULTS;
    o.kind = PROFILE_KIND_ALL;
    check_tree(p, &o,
               "all 875000000/0 K\n"
               "  [cpu] 150000000/0 K\n"
               "    [agct:unknown_Java] 10000000/10000000 M\n"
               "    [unknown stack] 10000000/10000000 M\n"
               "    com.example.App.main 90000000/0 J\n"
               "      [unknown] 10000000/0 M\n"
               "        os::javaTimeNanos 10000000/10000000 C\n"
               "      com.example.App.work 80000000/30000000 J\n"
               "        com.example.App.hash 50000000/50000000 J\n"
               "    java.lang.Thread.run 40000000/0 J\n"
               "      com.foo.Bar$$Lambda.run 40000000/0 J\n"
               "        com.example.App.fib 40000000/0 J\n"
               "          com.example.App.fib 40000000/0 J\n"
               "            com.example.App.fib 40000000/40000000 J\n"
               "  [wall] 725000000/0 K\n"
               "    com.example.App.main 287500000/0 J\n"
               "      com.example.App.work 287500000/0 J\n"
               "        com.example.App.hash 287500000/0 J\n"
               "          [running] 287500000/287500000 S\n"
               "    java.lang.Thread.run 437500000/0 J\n"
               "      java.lang.Thread.sleep0 437500000/0 N\n"
               "        [sleeping] 437500000/437500000 S\n",
               GOLDEN_CPU_SAMPLES + GOLDEN_WALL_SAMPLES);
    {
        struct render_tree t;
        char err[256];
        CHECK_EQ_U(render_tree_build(&t, p, &o, err, sizeof(err)), 0);
        CHECK(t.unit_ns == 1);
        render_tree_destroy(&t);
        o.kind = FPL_KIND_CPU; /* one kind: sampling intervals, as logged */
        CHECK_EQ_U(render_tree_build(&t, p, &o, err, sizeof(err)), 0);
        CHECK(t.unit_ns == 0 && t.total == GOLDEN_CPU_WEIGHT);
        render_tree_destroy(&t);
    }

    /* a state filter: no state leaves; with the automatic kind it means wall */
    o = DEFAULTS;
    o.state = FPL_STATE_SLEEPING;
    check_tree(p, &o,
               "all 9/0 K\n"
               "  java.lang.Thread.run 9/0 J\n"
               "    java.lang.Thread.sleep0 9/9 N\n",
               5);
    /* CPU samples count as running */
    o.kind = FPL_KIND_CPU;
    o.state = FPL_STATE_RUNNING;
    check_tree(p, &o, TREE_CPU, GOLDEN_CPU_SAMPLES);
    o.state = FPL_STATE_PARKED;
    check_tree(p, &o, "all 0/0 K\n", 0);

    /* include: stacks with a frame matching; exclude drops stacks with a matching frame */
    o = DEFAULTS;
    o.include = "\\.hash$";
    check_tree(p, &o,
               "all 5/0 K\n"
               "  com.example.App.main 5/0 J\n"
               "    com.example.App.work 5/0 J\n"
               "      com.example.App.hash 5/5 J\n",
               4);
    o.include = "App\\.(work|fib)";
    o.exclude = "Lambda|hash";
    check_tree(p, &o,
               "all 3/0 K\n"
               "  com.example.App.main 3/0 J\n"
               "    com.example.App.work 3/3 J\n",
               3);
    o.include = NULL;
    o.exclude = "^\\[";
    check_tree(p, &o,
               "all 12/0 K\n"
               "  com.example.App.main 8/0 J\n"
               "    com.example.App.work 8/3 J\n"
               "      com.example.App.hash 5/5 J\n"
               "  java.lang.Thread.run 4/0 J\n"
               "    com.foo.Bar$$Lambda.run 4/0 J\n"
               "      com.example.App.fib 4/0 J\n"
               "        com.example.App.fib 4/0 J\n"
               "          com.example.App.fib 4/4 J\n",
               11);
    /* thread names match only with thread roots */
    o = DEFAULTS;
    o.include = "^pool-1";
    check_tree(p, &o, "all 0/0 K\n", 0);
    o.threads = 1;
    check_tree(p, &o,
               "all 5/0 K\n"
               "  pool-1_worker_2 5/0 T\n"
               "    [agct:unknown_Java] 1/1 M\n"
               "    java.lang.Thread.run 4/0 J\n"
               "      com.foo.Bar$$Lambda.run 4/0 J\n"
               "        com.example.App.fib 4/0 J\n"
               "          com.example.App.fib 4/0 J\n"
               "            com.example.App.fib 4/4 J\n",
               5);
    /* --thread: the thread's samples, with or without thread roots; with include too */
    o = DEFAULTS;
    o.thread = "^pool-1";
    check_tree(p, &o,
               "all 5/0 K\n"
               "  [agct:unknown_Java] 1/1 M\n"
               "  java.lang.Thread.run 4/0 J\n"
               "    com.foo.Bar$$Lambda.run 4/0 J\n"
               "      com.example.App.fib 4/0 J\n"
               "        com.example.App.fib 4/0 J\n"
               "          com.example.App.fib 4/4 J\n",
               5);
    o.include = "fib";
    check_tree(p, &o,
               "all 4/0 K\n"
               "  java.lang.Thread.run 4/0 J\n"
               "    com.foo.Bar$$Lambda.run 4/0 J\n"
               "      com.example.App.fib 4/0 J\n"
               "        com.example.App.fib 4/0 J\n"
               "          com.example.App.fib 4/4 J\n",
               4);
    o.include = NULL;
    o.thread = "no such thread";
    check_tree(p, &o, "all 0/0 K\n", 0);
    o.thread = "(";
    {
        struct render_select bad;
        char e2[256];
        CHECK_EQ_U(render_select_init(&bad, p, &o, e2, sizeof(e2)), -EINVAL);
        CHECK(strstr(e2, "bad thread regex") != NULL);
    }

    /* child lookup by name */
    struct render_tree t;
    char err[256];
    o = DEFAULTS;
    CHECK_EQ_U(render_tree_build(&t, p, &o, err, sizeof(err)), 0);
    uint32_t m = render_tree_child(&t, 0, "com.example.App.main");
    CHECK(m != UINT32_MAX && t.nodes[m].total == 9);
    CHECK(render_tree_child(&t, 0, "com.example.App.work") == UINT32_MAX);
    CHECK(m != UINT32_MAX && render_tree_child(&t, m, "com.example.App.work") != UINT32_MAX);
    CHECK_EQ_U(t.kind, FPL_KIND_CPU);
    render_tree_destroy(&t);
    profile_free(p);
}

static void test_select(void)
{
    struct profile *p = load_golden();
    struct render_select s;
    struct render_opts o = DEFAULTS;
    char err[256];
    CHECK(p != NULL);
    if (!p)
        return;

    o.include = "(";
    CHECK_EQ_U(render_select_init(&s, p, &o, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "bad include regex '('") != NULL);
    o.include = NULL;
    o.exclude = "a{2,1}";
    CHECK_EQ_U(render_select_init(&s, p, &o, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "bad exclude regex 'a{2,1}'") != NULL);
    o.exclude = NULL;
    o.state = 42;
    CHECK_EQ_U(render_select_init(&s, p, &o, err, sizeof(err)), -EINVAL);
    CHECK(strstr(err, "unknown thread state 42") != NULL);
    o.state = RENDER_STATE_ALL;
    o.kind = 9;
    CHECK_EQ_U(render_select_init(&s, p, &o, err, sizeof(err)), -EINVAL);

    /* entry weights: raw for CPU, the upscaled wall weight rounded halves up, each times its
     * interval where the kinds meet (ns) */
    o = DEFAULTS;
    o.kind = PROFILE_KIND_ALL;
    CHECK_EQ_U(render_select_init(&s, p, &o, err, sizeof(err)), 0);
    uint64_t cpu = 0, wall_sleep = 0, wall_run = 0, n = 0;
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        if (!render_select_entry(&s, e))
            continue;
        n++;
        if (e->kind == FPL_KIND_CPU)
            cpu += render_entry_weight(&s, e);
        else if (e->state == FPL_STATE_SLEEPING)
            wall_sleep += render_entry_weight(&s, e);
        else
            wall_run += render_entry_weight(&s, e);
    }
    CHECK_EQ_U(n, p->nentries);
    CHECK_EQ_U(cpu, GOLDEN_CPU_WEIGHT * 10000000ull);
    CHECK_EQ_U(wall_sleep, 437500000); /* one cell: 8.75 x 50 ms */
    CHECK_EQ_U(wall_run, 287500000);   /* one cell: 5.75 x 50 ms */
    render_select_destroy(&s);
    o.kind = FPL_KIND_WALL; /* one kind: intervals */
    CHECK_EQ_U(render_select_init(&s, p, &o, err, sizeof(err)), 0);
    wall_sleep = 0;
    for (size_t i = 0; i < p->nentries; i++) {
        if (render_select_entry(&s, &p->entries[i]) && p->entries[i].state == FPL_STATE_SLEEPING)
            wall_sleep += render_entry_weight(&s, &p->entries[i]);
    }
    CHECK_EQ_U(wall_sleep, 9); /* 8.75 */
    render_select_destroy(&s);

    CHECK(strcmp(render_state_name(FPL_STATE_TIMED_WAITING), "timed_waiting") == 0);
    CHECK_EQ_U(render_state_parse("parked"), FPL_STATE_PARKED);
    CHECK_EQ_U(render_state_parse("native"), FPL_STATE_NATIVE);
    CHECK(render_state_parse("unknown") < 0);
    CHECK(render_state_parse("Parked") < 0);
    CHECK(render_state_frame(FPL_STATE_UNKNOWN) == NULL);
    CHECK(strcmp(render_state_frame(FPL_STATE_BLOCKED), "[blocked]") == 0);
    profile_free(p);
}

static const struct fplgen_header HDR = {
    .pid = 77,
    .clock = FPL_CLOCK_TSC,
    .ticks_per_sec = 1000000000ull,
    .anchor_ticks = 1000,
    .anchor_mono_ns = 1,
    .anchor_real_ns = GOLDEN_REAL_NS,
    .cpu_interval_ns = 10000000,
    .engine = FPL_ENGINE_CPUTIMER,
    .wall_interval_ns = 20000000,
    .wall_threads = 2,
    .depth = 64,
    .options = "",
    .jvm_name = "",
    .jvm_version = "",
    .command = "",
};

/* Three wall stacks of one sample each, every one upscaled by 3.5 (7 candidates, 2 chosen):
 * exact 3.5 each, 10.5 in all. Rounded one by one they would sum to 12 under a root of 11. */
static void test_rounding(void)
{
    struct fplgen g;
    const struct reader_frame f1[] = {{2, 0, 0}, {1, 0, 0}}, f2[] = {{3, 0, 0}, {1, 0, 0}},
                              f3[] = {{4, 0, 0}, {1, 0, 0}};
    CHECK_EQ_U(fplgen_init(&g), 0);
    fplgen_header(&g, &HDR);
    fplgen_thread(&g, 1, 1, "t");
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "R", "root", "", "", 0, NULL);
    fplgen_method(&g, 2, FPL_METHOD_JAVA, "R", "a", "", "", 0, NULL);
    fplgen_method(&g, 3, FPL_METHOD_JAVA, "R", "b", "", "", 0, NULL);
    fplgen_method(&g, 4, FPL_METHOD_JAVA, "R", "c", "", "", 0, NULL);
    fplgen_stack(&g, 1, 2, f1);
    fplgen_stack(&g, 2, 2, f2);
    fplgen_stack(&g, 3, 2, f3);
    fplgen_wall_tick(&g, 1, 2000, 7, 2, 2, 0);
    for (uint64_t s = 1; s <= 3; s++)
        fplgen_sample_tick(&g, 2000 + s, 1, s, 1, FPL_KIND_WALL, FPL_STATE_UNKNOWN, 1);
    CHECK_EQ_U(fplgen_flush(&g), 0);
    struct profile *p = load_gen(&g, NULL, NULL);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (!p)
        return;
    struct render_opts o = DEFAULTS;
    /* unknown state: no state leaf; intervals [0,3.5) [3.5,7) [7,10.5) -> 4, 3, 4 */
    check_tree(p, &o,
               "all 11/0 K\n"
               "  R.root 11/0 J\n"
               "    R.a 4/4 J\n"
               "    R.b 3/3 J\n"
               "    R.c 4/4 J\n",
               3);
    profile_free(p);
}

static void test_match(void)
{
    struct profile *base = load_golden();
    struct profile *cur = NULL;
    struct fplgen g;
    const struct reader_frame s1[] = {{3, 0, 0}, {2, 0, 0}}, s2[] = {{5, 0, 0}, {2, 0, 0}};
    CHECK_EQ_U(fplgen_init(&g), 0);
    fplgen_header(&g, &HDR);
    fplgen_thread(&g, 1, 1, "main");
    fplgen_method(&g, 2, FPL_METHOD_JAVA, "com.example.App", "main", "", "", 0, NULL);
    fplgen_method(&g, 3, FPL_METHOD_JAVA, "com.example.App", "work", "", "", 0, NULL);
    fplgen_method(&g, 5, FPL_METHOD_JAVA, "com.example.App", "fresh", "", "", 0, NULL);
    fplgen_stack(&g, 1, 2, s1);
    fplgen_stack(&g, 2, 2, s2);
    fplgen_sample(&g, 2000, 1, 1, 7, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(&g, 2001, 1, 2, 2, FPL_KIND_CPU, FPL_STATE_RUNNING);
    CHECK_EQ_U(fplgen_flush(&g), 0);
    cur = load_gen(&g, NULL, NULL);
    fplgen_destroy(&g);
    CHECK(base && cur);
    if (!base || !cur) {
        profile_free(base);
        profile_free(cur);
        return;
    }
    struct render_tree tb, tc;
    struct render_opts o = DEFAULTS;
    char err[256];
    CHECK_EQ_U(render_tree_build(&tb, base, &o, err, sizeof(err)), 0);
    CHECK_EQ_U(render_tree_build(&tc, cur, &o, err, sizeof(err)), 0);
    uint64_t *m = calloc(tc.nnodes, sizeof(*m));
    CHECK(m && render_tree_match(&tc, &tb, m) == 0);
    uint32_t main_n = render_tree_child(&tc, 0, "com.example.App.main");
    uint32_t work_n = render_tree_child(&tc, main_n, "com.example.App.work");
    uint32_t fresh_n = render_tree_child(&tc, main_n, "com.example.App.fresh");
    CHECK(m && main_n != UINT32_MAX && work_n != UINT32_MAX && fresh_n != UINT32_MAX);
    if (m && main_n != UINT32_MAX && work_n != UINT32_MAX && fresh_n != UINT32_MAX) {
        CHECK_EQ_U(m[0], 15);      /* the roots */
        CHECK_EQ_U(m[main_n], 9);  /* main in base */
        CHECK_EQ_U(m[work_n], 8);  /* main;work in base */
        CHECK_EQ_U(m[fresh_n], 0); /* not in base */
        CHECK_EQ_U(tc.nodes[work_n].total, 7);
    }
    free(m);
    render_tree_destroy(&tb);
    render_tree_destroy(&tc);
    profile_free(base);
    profile_free(cur);
}

static char *text_of(const struct profile *p, const struct render_opts *o,
                     const struct out_text_opts *to, int *rc)
{
    char *buf = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    *rc = out_text_write_opts(p, o, to, f, err, sizeof(err));
    if (*rc)
        fprintf(stderr, "text: %s\n", err);
    fclose(f);
    return buf;
}

static const char TEXT_CPU[] =
    "cpu profile of java -jar app.jar (pid 4242), 2.00 s, 14 samples\n"
    "kind:      cpu\n"
    "unit:      cpu weight 1 = one 10.000 ms CPU sampling interval\n"
    "duration:  2.000 s\n"
    "selected:  14 samples, weight 15 (0.150 s of CPU)\n"
    "\n"
    "Top 6 of 6 methods by self weight:\n"
    "        self   self%        total  total%  method\n"
    "           5  33.33%            5  33.33%  com.example.App.hash\n"
    "           4  26.67%            4  26.67%  com.example.App.fib\n"
    "           3  20.00%            8  53.33%  com.example.App.work\n"
    "           1   6.67%            1   6.67%  [agct:unknown_Java]\n"
    "           1   6.67%            1   6.67%  [unknown stack]\n"
    "           1   6.67%            1   6.67%  os::javaTimeNanos\n"
    "\n"
    "Top 10 of 10 methods by total weight:\n"
    "       total  total%         self   self%  method\n"
    "           9  60.00%            0   0.00%  com.example.App.main\n"
    "           8  53.33%            3  20.00%  com.example.App.work\n"
    "           5  33.33%            5  33.33%  com.example.App.hash\n"
    "           4  26.67%            4  26.67%  com.example.App.fib\n"
    "           4  26.67%            0   0.00%  com.foo.Bar$$Lambda.run\n"
    "           4  26.67%            0   0.00%  java.lang.Thread.run\n"
    "           1   6.67%            1   6.67%  [agct:unknown_Java]\n"
    "           1   6.67%            1   6.67%  [unknown stack]\n"
    "           1   6.67%            0   0.00%  [unknown]\n"
    "           1   6.67%            1   6.67%  os::javaTimeNanos\n"
    "\n"
    "Call tree (children under 0.50% of the total are folded into \"N more\" lines):\n"
    " total%   self%        total  frame\n"
    "100.00%   0.00%           15  all\n"
    " 60.00%   0.00%            9    com.example.App.main\n"
    " 53.33%  20.00%            8      com.example.App.work\n"
    " 33.33%  33.33%            5        com.example.App.hash\n"
    "  6.67%   0.00%            1      [unknown]\n"
    "  6.67%   6.67%            1        os::javaTimeNanos\n"
    " 26.67%   0.00%            4    java.lang.Thread.run\n"
    " 26.67%   0.00%            4      com.foo.Bar$$Lambda.run\n"
    " 26.67%   0.00%            4        com.example.App.fib\n"
    " 26.67%   0.00%            4          com.example.App.fib\n"
    " 26.67%  26.67%            4            com.example.App.fib\n"
    "  6.67%   6.67%            1    [agct:unknown_Java]\n"
    "  6.67%   6.67%            1    [unknown stack]\n";

static void test_text(void)
{
    struct profile *p = load_golden();
    struct render_opts o = DEFAULTS;
    int rc = -1;
    CHECK(p != NULL);
    if (!p)
        return;
    char *got = text_of(p, &o, NULL, &rc);
    CHECK_EQ_U(rc, 0);
    CHECK(got && strcmp(got, TEXT_CPU) == 0);
    if (got && strcmp(got, TEXT_CPU) != 0)
        fprintf(stderr, "text: got\n%s\n", got);
    free(got);

    /* top 2, and prune at 10%: the 6.67% children fold into "N more" lines after their
     * shown siblings */
    struct out_text_opts to = {2, 10.0};
    got = text_of(p, &o, &to, &rc);
    CHECK_EQ_U(rc, 0);
    CHECK(got && strstr(got, "Top 2 of 6 methods by self weight:\n") != NULL);
    CHECK(got && strstr(got, "Top 2 of 10 methods by total weight:\n") != NULL);
    CHECK(got && strstr(got, "  os::javaTimeNanos\n") == NULL);
    CHECK(got && strstr(got, "      com.example.App.hash\n"
                             "  6.67%                    1      ... 1 more under 10.00%\n"
                             " 26.67%   0.00%            4    java.lang.Thread.run\n") != NULL);
    CHECK(got && strstr(got, "            com.example.App.fib\n"
                             " 13.33%                    2    ... 2 more under 10.00%\n") != NULL);
    if (got && !strstr(got, "... 2 more under 10.00%"))
        fprintf(stderr, "text: got\n%s\n", got);
    free(got);

    /* wall with threads and a title: the state leaf counts as its method's self time; the
     * tables share the exact upscaled weights (8.75 and 5.75 of 14.5), as the summary's */
    o.kind = FPL_KIND_WALL;
    o.threads = 1;
    o.title = "wall of fame";
    got = text_of(p, &o, NULL, &rc);
    CHECK_EQ_U(rc, 0);
    CHECK(got && strncmp(got, "wall of fame\nkind:      wall\n", 29) == 0);
    CHECK(got && strstr(got, "selected:  7 samples, weight 15 (0.750 thread-seconds)\n"));
    CHECK(got && strstr(got, "Top 2 of 2 methods by self weight:\n"
                             "        self   self%        total  total%  method\n"
                             "           9  60.34%            9  60.34%  java.lang.Thread.sleep0\n"
                             "           6  39.66%            6  39.66%  com.example.App.hash\n"));
    CHECK(got && strstr(got, " 60.00%  60.00%            9          [sleeping]\n"));
    CHECK(got && strstr(got, "options:   threads\n"));
    free(got);

    /* both kinds: a pair of flat tables per kind; all weighs time, in ms: 150 ms of CPU and
     * 725 ms of thread time, so [cpu] is 17.14% of the tree, not the 50% that adding 15 CPU
     * intervals to 14.5 wall intervals made it */
    o = DEFAULTS;
    o.kind = PROFILE_KIND_ALL;
    got = text_of(p, &o, NULL, &rc);
    CHECK_EQ_U(rc, 0);
    CHECK(got && strstr(got, "selected:  21 samples, 0.875 s of CPU and thread time\n"));
    CHECK(got && strstr(got, "\n== cpu samples: 0.150 s of CPU ==\n"));
    CHECK(got && strstr(got, "\n== wall samples: 0.725 s of thread time ==\n"));
    CHECK(got &&
          strstr(got, "       437.5  60.34%        437.5  60.34%  java.lang.Thread.sleep0\n"));
    CHECK(got && strstr(got, "100.00%   0.00%        875.0  all\n"));
    CHECK(got && strstr(got, " 17.14%   0.00%        150.0    [cpu]\n"));
    CHECK(got && strstr(got, " 82.86%   0.00%        725.0    [wall]\n"));
    if (got && !strstr(got, " 17.14%   0.00%        150.0    [cpu]\n"))
        fprintf(stderr, "text: got\n%s\n", got);
    free(got);

    o = DEFAULTS;
    o.include = "[";
    got = text_of(p, &o, NULL, &rc);
    CHECK_EQ_U(rc, -EINVAL);
    free(got);
    profile_free(p);
}

/* A log whose frames say how they ran: one Java method interpreted, compiled, inlined and C1,
 * a kernel frame below native code, a JVM stub. */
static struct profile *load_typed(void)
{
    struct fplgen g;
    struct profile *p = NULL;
    const struct fplgen_header h = {
        .pid = 9, .clock = FPL_CLOCK_MONOTONIC, .ticks_per_sec = 1000000000ull,
        .anchor_ticks = 1000, .anchor_mono_ns = 1000, .anchor_real_ns = 1700000000000000000ull,
        .cpu_interval_ns = 10000000, .engine = FPL_ENGINE_CPUTIMER, .depth = 2048,
        .options = "cpu=10ms", .jvm_name = "TestVM", .jvm_version = "1.0", .command = "java A",
    };
    /* leaf first */
    const struct reader_frame s1[] = {{2, 5, FPL_FRAME_COMPILED}, {1, 3, FPL_FRAME_INTERPRETED}};
    const struct reader_frame s2[] = {{2, 5, FPL_FRAME_INTERPRETED},
                                      {1, 3, FPL_FRAME_INTERPRETED}};
    const struct reader_frame s3[] = {{2, 5, FPL_FRAME_INLINED}, {1, 3, FPL_FRAME_C1}};
    const struct reader_frame s4[] = {{3, -1, FPL_FRAME_KERNEL},
                                      {5, -1, FPL_FRAME_NATIVE},
                                      {2, 5, FPL_FRAME_COMPILED},
                                      {1, 3, FPL_FRAME_INTERPRETED}};
    const struct reader_frame s5[] = {{4, -1, FPL_FRAME_STUB}, {1, 3, FPL_FRAME_JAVA}};
    const struct {
        const struct reader_frame *f;
        size_t n;
        uint64_t weight;
    } stacks[] = {{s1, 2, 3}, {s2, 2, 2}, {s3, 2, 1}, {s4, 4, 4}, {s5, 2, 5}};
    if (fplgen_init(&g) != 0)
        return NULL;
    fplgen_header(&g, &h);
    fplgen_thread(&g, 1, 100, "main");
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "demo.A", "run", "()V", "", 0, NULL);
    fplgen_method(&g, 2, FPL_METHOD_JAVA, "demo.A", "hot", "()V", "", 0, NULL);
    fplgen_method(&g, 3, FPL_METHOD_CFUNC, "", "do_syscall_64", "", "", 0, NULL);
    fplgen_method(&g, 4, FPL_METHOD_STUB, "", "vtable stub", "", "", 0, NULL);
    fplgen_method(&g, 5, FPL_METHOD_CFUNC, "libc.so.6", "memcpy", "", "", 0, NULL);
    uint64_t t = 2000;
    for (size_t i = 0; i < sizeof(stacks) / sizeof(stacks[0]); i++) {
        fplgen_stack(&g, i + 1, stacks[i].n, stacks[i].f);
        for (uint64_t k = 0; k < stacks[i].weight; k++)
            fplgen_sample(&g, t += 10000000, 1, i + 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    }
    fplgen_end(&g, t + 1);
    if (fplgen_flush(&g) == 0)
        p = load_gen(&g, NULL, NULL);
    fplgen_destroy(&g);
    return p;
}

/* The folded output of p with o, as a malloc'd string (NULL on failure). */
static char *folded_of(const struct profile *p, const struct render_opts *o)
{
    struct render_select sel;
    char *buf = NULL, err[256];
    size_t len = 0;
    if (render_select_init(&sel, p, o, err, sizeof(err)) != 0)
        return NULL;
    FILE *f = open_memstream(&buf, &len);
    int rc = f ? out_collapsed_write_select(p, &sel, o->threads, o->reverse, f, err,
                                            sizeof(err))
               : -ENOMEM;
    if (f)
        fclose(f);
    render_select_destroy(&sel);
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Counts the nodes named name at depth d, and returns the type of the last one seen. */
static int nodes_named(const struct render_tree *t, const char *name, uint32_t d, int *type)
{
    int n = 0;
    for (size_t i = 0; i < t->nnodes; i++) {
        if (t->nodes[i].depth == d && strcmp(t->names[t->nodes[i].name], name) == 0) {
            n++;
            *type = t->nodes[i].type;
        }
    }
    return n;
}

static void test_frame_types(void)
{
    struct profile *p = load_typed();
    CHECK(p != NULL);
    if (!p)
        return;
    struct render_opts o = DEFAULTS;
    char *plain = folded_of(p, &o);
    CHECK(plain && strcmp(plain, "demo.A.run;demo.A.hot 6\n"
                                 "demo.A.run;demo.A.hot;memcpy;do_syscall_64 4\n"
                                 "demo.A.run;vtable stub 5\n") == 0);
    if (plain)
        free(plain);
    o.annotate = 1;
    char *ann = folded_of(p, &o);
    const char *want = "demo.A.run;vtable stub 5\n"
                       "demo.A.run_[0];demo.A.hot_[0] 2\n"
                       "demo.A.run_[0];demo.A.hot_[j] 3\n"
                       "demo.A.run_[0];demo.A.hot_[j];memcpy;do_syscall_64_[k] 4\n"
                       "demo.A.run_[1];demo.A.hot_[i] 1\n";
    CHECK(ann && strcmp(ann, want) == 0);
    if (ann && strcmp(ann, want) != 0)
        fprintf(stderr, "annotated folded output:\n%s", ann);
    free(ann);
    o.annotate = 0;

    /* trees: one node per method without frame types, one per (method, JIT state) with */
    struct render_tree t;
    char err[256];
    int type = -1;
    CHECK(render_tree_build(&t, p, &o, err, sizeof(err)) == 0);
    CHECK(nodes_named(&t, "demo.A.run", 1, &type) == 1 && type == RENDER_JAVA);
    CHECK(nodes_named(&t, "demo.A.hot", 2, &type) == 1 && type == RENDER_JAVA);
    CHECK(nodes_named(&t, "do_syscall_64", 4, &type) == 1 && type == RENDER_KERNEL);
    CHECK(nodes_named(&t, "memcpy", 3, &type) == 1 && type == RENDER_CFUNC);
    CHECK(nodes_named(&t, "vtable stub", 2, &type) == 1 && type == RENDER_STUB);
    CHECK(tree_consistent(&t));
    render_tree_destroy(&t);
    o.frame_types = 1;
    CHECK(render_tree_build(&t, p, &o, err, sizeof(err)) == 0);
    CHECK(nodes_named(&t, "demo.A.run", 1, &type) == 3);
    CHECK(nodes_named(&t, "demo.A.hot", 2, &type) == 3);
    CHECK(nodes_named(&t, "do_syscall_64", 4, &type) == 1 && type == RENDER_KERNEL);
    CHECK(nodes_named(&t, "vtable stub", 2, &type) == 1 && type == RENDER_STUB);
    char *d = dump(&t);
    /* children sorted by name, then type: Java (J) < interpreted (P) < C1 (1); the weights of
     * each JIT state where they belong */
    const char *want_tree = "all 15/0 K\n"
                            "  demo.A.run 5/0 J\n"
                            "    vtable stub 5/5 U\n"
                            "  demo.A.run 9/0 P\n"
                            "    demo.A.hot 2/2 P\n"
                            "    demo.A.hot 7/3 O\n"
                            "      memcpy 4/0 C\n"
                            "        do_syscall_64 4/4 E\n"
                            "  demo.A.run 1/0 1\n"
                            "    demo.A.hot 1/1 I\n";
    CHECK(d && strcmp(d, want_tree) == 0);
    if (d && strcmp(d, want_tree) != 0)
        fprintf(stderr, "typed tree:\n%s", d);
    free(d);
    CHECK(tree_consistent(&t));
    render_tree_destroy(&t);
    profile_free(p);
}

static void test_title(void)
{
    struct profile *p = load_golden();
    char buf[512];
    CHECK(p != NULL);
    if (!p)
        return;
    render_default_title(p, PROFILE_KIND_AUTO, buf, sizeof(buf));
    CHECK(strcmp(buf, "cpu profile of java -jar app.jar (pid 4242), 2.00 s, 14 samples") == 0);
    render_default_title(p, FPL_KIND_WALL, buf, sizeof(buf));
    CHECK(strcmp(buf, "wall profile of java -jar app.jar (pid 4242), 2.00 s, 7 samples") == 0);
    render_default_title(p, PROFILE_KIND_ALL, buf, sizeof(buf));
    CHECK(strcmp(buf, "cpu+wall profile of java -jar app.jar (pid 4242), 2.00 s, 21 samples") == 0);
    profile_free(p);

    /* a long command is cut; a newline in it does not break the line */
    struct fplgen g;
    struct fplgen_header h = HDR;
    char cmd[400];
    memset(cmd, 'x', sizeof(cmd) - 1);
    cmd[sizeof(cmd) - 1] = 0;
    cmd[5] = '\n';
    h.command = cmd;
    CHECK_EQ_U(fplgen_init(&g), 0);
    fplgen_header(&g, &h);
    CHECK_EQ_U(fplgen_flush(&g), 0);
    p = load_gen(&g, NULL, NULL);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (!p)
        return;
    render_default_title(p, PROFILE_KIND_AUTO, buf, sizeof(buf));
    CHECK(strchr(buf, '\n') == NULL);
    CHECK(strstr(buf, "xxxxx_xxx") != NULL);
    CHECK(strstr(buf, "x... (pid 77)") != NULL);
    CHECK(strlen(buf) < 200);
    profile_free(p);
}

/* 1 when s is valid UTF-8 (no surrogates, overlongs or code points past U+10FFFF). */
static int valid_utf8(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        size_t n = *s < 0x80             ? 1
                   : (*s & 0xe0) == 0xc0 ? 2
                   : (*s & 0xf0) == 0xe0 ? 3
                   : (*s & 0xf8) == 0xf0 ? 4
                                         : 0;
        if (n == 0 || (n == 2 && *s < 0xc2))
            return 0;
        uint32_t cp = n == 1 ? *s : *s & (0x7f >> n);
        for (size_t i = 1; i < n; i++) {
            if ((s[i] & 0xc0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i] & 0x3f);
        }
        static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        s += n;
    }
    return 1;
}

static void check_clean(const char *in, size_t len, size_t cap, const char *want)
{
    char out[64];
    size_t n = profile_clean(out, cap, in, len);
    CHECK(strcmp(out, want) == 0 && n == strlen(want) && valid_utf8(out));
    if (strcmp(out, want) != 0)
        fprintf(stderr, "clean: got [%s] want [%s]\n", out, want);
}

#define FFFD "\xef\xbf\xbd"

/* Names become valid UTF-8 whatever the JVM (or damage) put in them. */
static void test_clean(void)
{
    check_clean("a;b\nc", 5, 64, "a_b_c");
    check_clean("x\xed\xa0\xbd\xed\xb8\x80y", 8, 64, "x\xf0\x9f\x98\x80y"); /* CESU pair */
    check_clean("\xf0\x9f\x98\x80", 4, 64, "\xf0\x9f\x98\x80");
    check_clean("D\xc3\xbc\xe8\xae\xa1", 6, 64, "D\xc3\xbc\xe8\xae\xa1");
    check_clean("bad\xff\xfe", 5, 64, "bad" FFFD FFFD);
    check_clean("nul\xc0\x80z", 6, 64, "nul" FFFD FFFD "z");
    check_clean("\xed\xa0\xbdq", 4, 64, FFFD FFFD FFFD "q");     /* a lone surrogate */
    check_clean("\xe0\x80\x80", 3, 64, FFFD FFFD FFFD);          /* overlong */
    check_clean("\xf4\x90\x80\x80", 4, 64, FFFD FFFD FFFD FFFD); /* past U+10FFFF */
    check_clean("ab\xe6\x97", 4, 64, "ab" FFFD FFFD);            /* cut short */
    check_clean("ab\xe6\x97\xa5"
                "c",
                6, 5, "ab"); /* no half character */
    check_clean("ab\xe6\x97\xa5"
                "c",
                6, 6, "ab\xe6\x97\xa5");

    /* through a profile: frame and thread names, and a title cut at a character */
    struct fplgen g;
    struct fplgen_header h = {.ticks_per_sec = 1000000000ull,
                              .options = "",
                              .jvm_name = "",
                              .jvm_version = "",
                              .command = ""};
    char cmd[401];
    for (int i = 0; i < 200; i++)
        memcpy(cmd + 2 * i, "\xc3\xa9", 2);
    cmd[400] = 0;
    h.command = cmd;
    const struct reader_frame f[] = {{1, 0, 0}};
    CHECK_EQ_U(fplgen_init(&g), 0);
    fplgen_header(&g, &h);
    fplgen_thread(&g, 1, 1, "t\xed\xa0\xb5\xed\xb4\xa1;\xff");
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "a.G\xc3\xb6", "\xed\xa0\xb5\xed\xb4\xa1\xc0\x80", "", "",
                  0, NULL);
    fplgen_stack(&g, 1, 1, f);
    fplgen_sample(&g, 5, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    CHECK_EQ_U(fplgen_flush(&g), 0);
    struct profile *p = load_gen(&g, NULL, NULL);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    if (!p)
        return;
    struct render_opts o = DEFAULTS;
    o.threads = 1;
    check_tree(p, &o,
               "all 1/0 K\n"
               "  t\xf0\x9d\x94\xa1_" FFFD " 1/0 T\n"
               "    a.G\xc3\xb6.\xf0\x9d\x94\xa1" FFFD FFFD " 1/1 J\n",
               1);
    char title[512];
    render_default_title(p, PROFILE_KIND_AUTO, title, sizeof(title));
    CHECK(valid_utf8(title));
    CHECK(strstr(title, "\xc3\xa9\xc3\xa9... (pid 0)") != NULL);
    CHECK(strlen(title) < 200);
    profile_free(p);
}

/* A naive reference: weight by path prefix ("a;b;c"), found by linear search. */
struct ref {
    char **key;
    uint64_t *w;
    size_t n, cap;
};

static void ref_add(struct ref *r, const char *key, uint64_t w)
{
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(r->key[i], key) == 0) {
            r->w[i] += w;
            return;
        }
    }
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->key = realloc(r->key, r->cap * sizeof(*r->key));
        r->w = realloc(r->w, r->cap * sizeof(*r->w));
    }
    r->key[r->n] = strdup(key);
    r->w[r->n++] = w;
}

static uint64_t ref_get(const struct ref *r, const char *key)
{
    for (size_t i = 0; i < r->n; i++) {
        if (strcmp(r->key[i], key) == 0)
            return r->w[i];
    }
    return UINT64_MAX;
}

/* The path of node v from below the root, names joined by ';'. */
static void node_path(const struct render_tree *t, uint32_t v, char *buf, size_t cap)
{
    uint32_t chain[64];
    size_t n = 0, len = 0;
    for (; v != 0 && n < 64; v = t->nodes[v].parent)
        chain[n++] = v;
    buf[0] = 0;
    while (n-- > 0)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ";" : "",
                                t->names[t->nodes[chain[n]].name]);
}

/* Random stacks over a few methods (many shared prefixes, some stacks equal by name but not
 * by bci, recursion), on three threads: every node of the forward, reverse and per-thread
 * trees must have the weight a naive prefix sum gives, and the trees must keep their
 * invariants. */
static void test_random_trees(void)
{
    enum { NSTACKS = 300, NMETH = 7, MAXD = 9 };
    static const char *const mnames[NMETH] = {"run", "a", "b", "c", "d", "e", "f"};
    struct reader_frame fr[NSTACKS][MAXD];
    size_t depth[NSTACKS];
    uint64_t rnd = 12345;
    struct fplgen g;

    CHECK_EQ_U(fplgen_init(&g), 0);
    fplgen_header(&g, &HDR);
    for (uint64_t t = 1; t <= 3; t++)
        fplgen_thread(&g, t, t, t == 1 ? "t1" : t == 2 ? "t2" : "t3");
    for (uint64_t m = 0; m < NMETH; m++)
        fplgen_method(&g, m + 1, FPL_METHOD_JAVA, "M", mnames[m], "", "", 0, NULL);
    for (size_t s = 0; s < NSTACKS; s++) {
        rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
        depth[s] = 1 + (rnd >> 33) % MAXD;
        for (size_t k = 0; k < depth[s]; k++) {
            rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
            /* leaf first; the root frame is mostly "run" */
            size_t m = k + 1 == depth[s] && (rnd >> 40) % 4 ? 0 : (rnd >> 33) % NMETH;
            fr[s][k] = (struct reader_frame){m + 1, (int64_t)((rnd >> 50) % 2), 0};
        }
        fplgen_stack(&g, s + 1, depth[s], fr[s]);
    }
    struct ref fwd = {0}, rev = {0}, thr = {0};
    uint64_t total = 0;
    for (size_t i = 0; i < 2000; i++) {
        rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
        size_t s = (rnd >> 33) % NSTACKS;
        uint64_t t = 1 + (rnd >> 45) % 3, w = 1 + (rnd >> 55) % 3;
        fplgen_sample(&g, 2000 + i, t, s + 1, w, FPL_KIND_CPU, FPL_STATE_RUNNING);
        total += w;
        char f[512] = "", r[512] = "", th[512];
        snprintf(th, sizeof(th), "t%llu", (unsigned long long)t);
        ref_add(&thr, th, w);
        for (size_t k = 0; k < depth[s]; k++) {
            const char *root_first = mnames[fr[s][depth[s] - 1 - k].method_id - 1];
            const char *leaf_first = mnames[fr[s][k].method_id - 1];
            size_t lf = strlen(f), lr = strlen(r), lt = strlen(th);
            snprintf(f + lf, sizeof(f) - lf, "%sM.%s", lf ? ";" : "", root_first);
            snprintf(r + lr, sizeof(r) - lr, "%sM.%s", lr ? ";" : "", leaf_first);
            snprintf(th + lt, sizeof(th) - lt, ";M.%s", root_first);
            ref_add(&fwd, f, w);
            ref_add(&rev, r, w);
            ref_add(&thr, th, w);
        }
    }
    CHECK_EQ_U(fplgen_flush(&g), 0);
    struct profile *p = load_gen(&g, NULL, NULL);
    fplgen_destroy(&g);
    CHECK(p != NULL);
    for (int mode = 0; p && mode < 3; mode++) {
        struct render_opts o = DEFAULTS;
        struct render_tree t;
        char err[256], path[1024];
        const struct ref *want = mode == 0 ? &fwd : mode == 1 ? &rev : &thr;
        o.reverse = mode == 1;
        o.threads = mode == 2;
        CHECK_EQ_U(render_tree_build(&t, p, &o, err, sizeof(err)), 0);
        CHECK(tree_consistent(&t));
        CHECK_EQ_U(t.total, total);
        CHECK_EQ_U(t.nnodes, want->n + 1);
        size_t bad = 0;
        for (uint32_t v = 1; v < t.nnodes; v++) {
            node_path(&t, v, path, sizeof(path));
            bad += ref_get(want, path) != t.nodes[v].total;
        }
        CHECK_EQ_U(bad, 0);
        render_tree_destroy(&t);
    }
    struct ref *refs[] = {&fwd, &rev, &thr};
    for (int k = 0; k < 3; k++) {
        for (size_t i = 0; i < refs[k]->n; i++)
            free(refs[k]->key[i]);
        free(refs[k]->key);
        free(refs[k]->w);
    }
    profile_free(p);
}

/* Wall samples of JVM service threads waiting for work next to real contention: the
 * Notification Thread blocked on a VM lock without Java frames (as the agent samples it,
 * 71 of them, most of the "blocked" of a real run), Common-Cleaner waiting on its queue in Java
 * code (10), an unnamed thread without Java frames blocked in the VM (3); a worker blocked on
 * a monitor (29); a JNI thread without Java frames in native code (5) and the Service Thread
 * without Java frames but running (2), which keep their states. */
static struct profile *load_service_threads(void)
{
    struct fplgen g;
    struct profile *p = NULL;
    const struct fplgen_header h = {
        .pid = 77, .clock = FPL_CLOCK_MONOTONIC, .ticks_per_sec = 1000000000ull,
        .anchor_ticks = 1000, .anchor_mono_ns = 1000, .anchor_real_ns = 1700000000000000000ull,
        .cpu_interval_ns = 10000000, .engine = FPL_ENGINE_CPUTIMER, .wall_interval_ns = 50000000,
        .wall_threads = 16, .depth = 2048, .options = "wall=50ms", .jvm_name = "TestVM",
        .jvm_version = "1.0", .command = "java Svc",
    };
    static const char *const names[] = {"", "Notification Thread", "Common-Cleaner", "vm-helper",
                                        "worker", "jni-thread", "Service Thread"};
    if (fplgen_init(&g) != 0)
        return NULL;
    fplgen_header(&g, &h);
    for (uint64_t t = 1; t <= 6; t++)
        fplgen_thread(&g, t, 100 + t, names[t]);
    fplgen_method(&g, 1, FPL_METHOD_MARKER, "", "[no_Java_frames]", "", "", 0, NULL);
    fplgen_method(&g, 2, FPL_METHOD_CFUNC, "libjvm.so", "Monitor::wait", "", "", 0, NULL);
    fplgen_method(&g, 3, FPL_METHOD_NATIVE, "java.lang.Object", "wait", "(J)V", "", 0, NULL);
    fplgen_method(&g, 4, FPL_METHOD_JAVA, "java.lang.ref.ReferenceQueue", "remove", "()V", "", 0,
                  NULL);
    fplgen_method(&g, 5, FPL_METHOD_JAVA, "app.Locks", "enter", "()V", "", 0, NULL);
    fplgen_method(&g, 6, FPL_METHOD_JAVA, "java.lang.Thread", "run", "()V", "", 0, NULL);
    fplgen_method(&g, 7, FPL_METHOD_CFUNC, "libc.so.6", "epoll_wait", "", "", 0, NULL);
    /* leaf first */
    const struct reader_frame vm[] = {{2, -1, FPL_FRAME_NATIVE}, {1, -1, FPL_FRAME_MARKER}};
    const struct reader_frame cleaner[] = {{3, 0, FPL_FRAME_JAVA}, {4, 1, FPL_FRAME_JAVA},
                                           {6, 2, FPL_FRAME_JAVA}};
    const struct reader_frame locked[] = {{5, 3, FPL_FRAME_JAVA}, {6, 2, FPL_FRAME_JAVA}};
    const struct reader_frame jni[] = {{7, -1, FPL_FRAME_NATIVE}, {1, -1, FPL_FRAME_MARKER}};
    fplgen_stack(&g, 1, 2, vm);
    fplgen_stack(&g, 2, 3, cleaner);
    fplgen_stack(&g, 3, 2, locked);
    fplgen_stack(&g, 4, 2, jni);
    const struct {
        uint64_t thread, stack, n;
        uint8_t state;
    } runs[] = {
        {1, 1, 71, FPL_STATE_BLOCKED}, {2, 2, 10, FPL_STATE_TIMED_WAITING},
        {3, 1, 3, FPL_STATE_BLOCKED},  {4, 3, 29, FPL_STATE_BLOCKED},
        {5, 4, 5, FPL_STATE_NATIVE},   {6, 1, 2, FPL_STATE_RUNNING},
    };
    uint64_t t = 2000;
    for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
        for (uint64_t k = 0; k < runs[r].n; k++)
            fplgen_sample(&g, t += 1000, runs[r].thread, runs[r].stack, 1, FPL_KIND_WALL,
                          runs[r].state);
    }
    fplgen_end(&g, t + 1000);
    if (fplgen_flush(&g) == 0)
        p = load_gen(&g, NULL, NULL);
    fplgen_destroy(&g);
    return p;
}

/* The weight o selects of p. */
static uint64_t selected(const struct profile *p, const struct render_opts *o)
{
    struct render_select s;
    char err[256];
    uint64_t w = 0;
    if (render_select_init(&s, p, o, err, sizeof(err)) != 0)
        return UINT64_MAX;
    for (size_t i = 0; i < p->nentries; i++) {
        if (render_select_entry(&s, &p->entries[i]))
            w += render_entry_weight(&s, &p->entries[i]);
    }
    render_select_destroy(&s);
    return w;
}

/* JVM service threads waiting for work are jvm_idle, not blocked: --state blocked holds the
 * worker's contention alone, the trees end their stacks in [jvm_idle], the summary gives
 * them a share of their own (text and JSON); other threads keep their states. */
static void test_jvm_idle(void)
{
    struct profile *p = load_service_threads();
    CHECK(p != NULL);
    if (!p)
        return;
    struct render_opts o = DEFAULTS;
    o.kind = FPL_KIND_WALL;
    o.state = FPL_STATE_BLOCKED;
    CHECK_EQ_U(selected(p, &o), 29);
    CHECK_EQ_U(render_state_parse("jvm_idle"), PROFILE_STATE_JVM_IDLE);
    o.state = PROFILE_STATE_JVM_IDLE;
    CHECK_EQ_U(selected(p, &o), 71 + 10 + 3);
    o.state = FPL_STATE_NATIVE;
    CHECK_EQ_U(selected(p, &o), 5);
    o.state = FPL_STATE_RUNNING;
    CHECK_EQ_U(selected(p, &o), 2);

    o = DEFAULTS;
    o.threads = 1;
    check_tree(p, &o,
               "all 120/0 K\n"
               "  Common-Cleaner 10/0 T\n"
               "    java.lang.Thread.run 10/0 J\n"
               "      java.lang.ref.ReferenceQueue.remove 10/0 J\n"
               "        java.lang.Object.wait 10/0 N\n"
               "          [jvm_idle] 10/10 S\n"
               "  Notification Thread 71/0 T\n"
               "    [no_Java_frames] 71/0 M\n"
               "      Monitor::wait 71/0 C\n"
               "        [jvm_idle] 71/71 S\n"
               "  Service Thread 2/0 T\n"
               "    [no_Java_frames] 2/0 M\n"
               "      Monitor::wait 2/0 C\n"
               "        [running] 2/2 S\n"
               "  jni-thread 5/0 T\n"
               "    [no_Java_frames] 5/0 M\n"
               "      epoll_wait 5/0 C\n"
               "        [native] 5/5 S\n"
               "  vm-helper 3/0 T\n"
               "    [no_Java_frames] 3/0 M\n"
               "      Monitor::wait 3/0 C\n"
               "        [jvm_idle] 3/3 S\n"
               "  worker 29/0 T\n"
               "    java.lang.Thread.run 29/0 J\n"
               "      app.Locks.enter 29/0 J\n"
               "        [blocked] 29/29 S\n",
               120);

    char *buf = NULL, err[256];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f && summary_write(p, "svc.fpl", f, err, sizeof(err)) == 0);
    if (f)
        fclose(f);
    CHECK(buf && strstr(buf, "  wall by thread state (upscaled): running 1.7% blocked 24.2% "
                             "native 4.2% jvm_idle 70.0% (jvm_idle: the JVM's service threads "
                             "waiting for work)\n"));
    if (buf && !strstr(buf, "blocked 24.2%"))
        fprintf(stderr, "summary:\n%s\n", buf);
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK(f && summary_write_json(p, "svc.fpl", NULL, f, err, sizeof(err)) == 0);
    if (f)
        fclose(f);
    CHECK(buf && strstr(buf, "\"name\":\"Notification Thread\",\"tid\":101,\"cpu_ns\":0,"
                             "\"wall_ns\":3550000000,\"wall_by_state_ns\":{\"jvm_idle\":"
                             "3550000000}"));
    CHECK(buf && strstr(buf, "\"name\":\"worker\",\"tid\":104,\"cpu_ns\":0,"
                             "\"wall_ns\":1450000000,\"wall_by_state_ns\":{\"blocked\":"
                             "1450000000}"));
    free(buf);
    profile_free(p);
}

int main(void)
{
    test_jvm_idle();
    test_clean();
    test_random_trees();
    test_trees();
    test_select();
    test_rounding();
    test_match();
    test_text();
    test_title();
    test_frame_types();
    return harness_result("test_render");
}
