/* fuzz_seeds: writes the fuzzers' seed logs into a directory (made at test time: no binary
 * is kept in the repository): the golden log of the collector tests, with and without END,
 * and a richer one holding every record type, every method kind and frame type, CPU and wall
 * samples in every state, wall ticks, counters (known and unknown ids), a histogram, an
 * unknown record type and a record longer than its type needs, over several chunks.
 * Usage: fuzz_seeds DIR. */
#include <stdio.h>
#include <string.h>

#include "fpl_format.h"
#include "fplgen.h"
#include "golden_log.h"

static int save(struct fplgen *g, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int rc = fplgen_save(g, path);
    if (rc != 0)
        fprintf(stderr, "fuzz_seeds: cannot write %s\n", path);
    return rc;
}

static int golden(const char *dir, int with_end, const char *name)
{
    struct fplgen g;
    if (fplgen_init(&g) != 0)
        return -1;
    int rc = golden_log_build(&g, with_end);
    if (rc == 0)
        rc = save(&g, dir, name);
    fplgen_destroy(&g);
    return rc;
}

static int rich(const char *dir)
{
    struct fplgen g;
    if (fplgen_init(&g) != 0)
        return -1;
    struct fplgen_header h = {4242, FPL_CLOCK_TSC, 2000000000ull, 1000, 5000, 1700000000000000000ull,
                              1000000, FPL_ENGINE_CPUTIMER, 20000000, 4, 2048,
                              "cpu=1ms,wall=20ms", "OpenJDK 64-Bit Server VM", "17.0.15",
                              "dev.flyprof.Rich arg"};
    fplgen_header(&g, &h);
    fplgen_anchor(&g, 1000, 5000, 1700000000000000000ull);
    fplgen_thread(&g, 1, 100, "main");
    fplgen_thread(&g, 2, 101, "worker \xe2\x9c\x93 \"quoted\" <html>");
    fplgen_thread(&g, 3, 102, "");
    struct reader_line lines[] = {{0, 10}, {5, 11}, {9, 14}};
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "dev.flyprof.Rich", "main", "([Ljava/lang/String;)V",
                  "Rich.java", 3, lines);
    fplgen_method(&g, 2, FPL_METHOD_JAVA, "dev.flyprof.Rich$$Lambda$14/0x0000000800c01234",
                  "run", "()V", "", 0, NULL);
    fplgen_method(&g, 3, FPL_METHOD_NATIVE, "java.lang.Thread", "sleep", "(J)V", "Thread.java",
                  0, NULL);
    fplgen_method(&g, 4, FPL_METHOD_MARKER, "", "[agct:unknown_Java]", "", "", 0, NULL);
    fplgen_method(&g, 5, FPL_METHOD_CFUNC, "", "JVM_Sleep", "", "", 0, NULL);
    fplgen_method(&g, 6, FPL_METHOD_STUB, "", "StubRoutines::jlong_disjoint_arraycopy", "", "",
                  0, NULL);
    fplgen_method(&g, 7, 9, "x.Y", "z", "()V", "", 0, NULL); /* an unknown kind */
    /* version 4's classes and METHOD2: a class, a method of it with lines going down, one of
     * no class (0), one of an undefined class (bad); stacks below use methods 8 and 9 */
    uint8_t cn1[] = {1, 5, 'a', '.', 'B', '$', 'C', 6, 'B', '.', 'j', 'a', 'v', 'a'};
    uint8_t m2a[] = {8, FPL_METHOD_JAVA, 1, 3, 'r', 'u', 'n', 3, '(', ')', 'V', 3, 0, 0x14,
                     4, 0x02, 0x83, 0x01, 0x05};
    uint8_t m2b[] = {9, FPL_METHOD_STUB, 0, 4, 's', 't', 'u', 'b', 0, 0};
    uint8_t m2c[] = {10, FPL_METHOD_JAVA, 7, 1, 'x', 0, 0};
    fplgen_record(&g, FPL_REC_CLASS_NAME, cn1, sizeof(cn1));
    fplgen_record(&g, FPL_REC_METHOD2, m2a, sizeof(m2a));
    fplgen_record(&g, FPL_REC_METHOD2, m2b, sizeof(m2b));
    fplgen_record(&g, FPL_REC_METHOD2, m2c, sizeof(m2c));
    struct reader_frame s1[] = {{2, 5, FPL_FRAME_COMPILED}, {1, 9, FPL_FRAME_INTERPRETED}};
    struct reader_frame s2[] = {{6, -1, FPL_FRAME_STUB}, {2, 3, FPL_FRAME_INLINED},
                                {1, 0, FPL_FRAME_C1}};
    struct reader_frame s3[] = {{5, -1, FPL_FRAME_NATIVE}, {3, -1, FPL_FRAME_JAVA},
                                {1, 9, FPL_FRAME_JAVA}};
    struct reader_frame s4[] = {{4, -1, FPL_FRAME_MARKER}, {8, 7, FPL_FRAME_JAVA},
                                {9, -1, FPL_FRAME_STUB}, {10, 1, FPL_FRAME_JAVA}};
    struct reader_frame s5[] = {{7, 1, 42}, {99, 2, FPL_FRAME_KERNEL}}; /* unknown type, id */
    fplgen_stack(&g, 1, 2, s1);
    fplgen_stack(&g, 2, 3, s2);
    fplgen_stack(&g, 3, 3, s3);
    fplgen_stack(&g, 4, 4, s4);
    fplgen_stack(&g, 5, 2, s5);
    /* version 3's STACK2: on stack 5 (1 back), on that STACK2 (1 back, all its frames), and
     * one whose base is beyond the chunk's stack records (bad) */
    uint8_t st2a[] = {6, 1, 1, 1, 2, 0x04, FPL_FRAME_C1};
    uint8_t st2b[] = {7, 1, 2, 0};
    uint8_t st2c[] = {8, 12, 0, 0};
    fplgen_record(&g, FPL_REC_STACK2, st2a, sizeof(st2a));
    fplgen_record(&g, FPL_REC_STACK2, st2b, sizeof(st2b));
    fplgen_record(&g, FPL_REC_STACK2, st2c, sizeof(st2c));
    uint64_t t = 2000;
    for (int i = 0; i < 40; i++) {
        t += 2000000 + (uint64_t)i * 1000;
        fplgen_sample(&g, t, 1 + (uint64_t)(i % 3), 1 + (uint64_t)(i % 5), 1 + (uint64_t)(i % 2),
                      FPL_KIND_CPU, FPL_STATE_RUNNING);
    }
    fplgen_flush(&g);
    for (int k = 1; k <= 6; k++) {
        t += 40000000;
        fplgen_wall_tick(&g, (uint64_t)k, t, 3, 2, 2, k == 6);
        for (int i = 0; i < 2; i++)
            fplgen_sample_tick(&g, t + 1000 + (uint64_t)i, 1 + (uint64_t)i, 3, 1, FPL_KIND_WALL,
                               (uint8_t)((k + i) % 8), (uint64_t)k);
    }
    fplgen_sample_tick(&g, t + 5000, 2, 1, 1, FPL_KIND_WALL, FPL_STATE_PARKED, 77); /* no tick */
    /* trace context: CONTEXT records, samples carrying them (dticks 0: the delta chain stays
     * fplgen's), one undefined id, endpoints before and after their samples */
    uint8_t ctx1[] = {1, 10, 10}, ctx2[] = {2, 11, 10};
    uint8_t ep_b[] = {20, 6, 'G', 'E', 'T', ' ', '/', 'b'};
    uint8_t ep_a[] = {10, 6, 'G', 'E', 'T', ' ', '/', 'a'};
    uint8_t cs1[] = {0, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING, 0, 1};
    uint8_t cs2[] = {0, 2, 2, 2, FPL_KIND_CPU, FPL_STATE_RUNNING, 0, 2};
    uint8_t cs3[] = {0, 1, 3, 1, FPL_KIND_WALL, FPL_STATE_BLOCKED, 0, 2};
    uint8_t cs4[] = {0, 1, 3, 1, FPL_KIND_WALL, FPL_STATE_SLEEPING, 0, 9};
    fplgen_record(&g, FPL_REC_CONTEXT, ctx1, sizeof(ctx1));
    fplgen_record(&g, FPL_REC_CONTEXT, ctx2, sizeof(ctx2));
    fplgen_record(&g, FPL_REC_ENDPOINT, ep_b, sizeof(ep_b));
    fplgen_record(&g, FPL_REC_SAMPLE, cs1, sizeof(cs1));
    fplgen_record(&g, FPL_REC_SAMPLE, cs2, sizeof(cs2));
    fplgen_record(&g, FPL_REC_SAMPLE, cs3, sizeof(cs3));
    fplgen_record(&g, FPL_REC_SAMPLE, cs4, sizeof(cs4));
    fplgen_record(&g, FPL_REC_ENDPOINT, ep_a, sizeof(ep_a));
    /* version 3's endpoint names: a name, a request by its id, one by an undefined id (bad) */
    uint8_t en1[] = {1, 6, 'G', 'E', 'T', ' ', '/', 'c'};
    uint8_t e2a[] = {30, 1}, e2b[] = {40, 9};
    fplgen_record(&g, FPL_REC_ENDPOINT_NAME, en1, sizeof(en1));
    fplgen_record(&g, FPL_REC_ENDPOINT2, e2a, sizeof(e2a));
    fplgen_record(&g, FPL_REC_ENDPOINT2, e2b, sizeof(e2b));
    /* version 2's SAMPLE2: whole, all elided, another thread with weight and tick, one with a
     * size, and one that elides what no earlier record set (bad) */
    uint8_t s2a[] = {FPL_S2_THREAD | FPL_S2_KIND | FPL_S2_STACK | FPL_S2_CONTEXT, 0, 1,
                     FPL_KIND_WALL, FPL_STATE_PARKED, 3, 1};
    uint8_t s2b[] = {0, 0};
    uint8_t s2c[] = {FPL_S2_THREAD | FPL_S2_KIND | FPL_S2_STACK | FPL_S2_WEIGHT | FPL_S2_TICK,
                     0, 2, FPL_KIND_CPU, FPL_STATE_RUNNING, 1, 3, 4};
    uint8_t s2d[] = {FPL_S2_THREAD | FPL_S2_STACK | FPL_S2_SIZE, 0, 1, 2, 0x80, 0x08};
    uint8_t s2e[] = {FPL_S2_THREAD, 0, 7};
    fplgen_record(&g, FPL_REC_SAMPLE2, s2a, sizeof(s2a));
    fplgen_record(&g, FPL_REC_SAMPLE2, s2b, sizeof(s2b));
    fplgen_record(&g, FPL_REC_SAMPLE2, s2c, sizeof(s2c));
    fplgen_record(&g, FPL_REC_SAMPLE2, s2d, sizeof(s2d));
    fplgen_record(&g, FPL_REC_SAMPLE2, s2e, sizeof(s2e));
    struct reader_counter c[] = {{FPL_CTR_SIGNALS, 40}, {FPL_CTR_SAMPLES, 53},
                                 {FPL_CTR_WRITER_CPU_NS, 1234567}, {FPL_CTR_DICT_RESETS, 1},
                                 {FPL_CTR_SAMPLER_CPU_NS, 7654321},
                                 {FPL_CTR_AGENT_OTHER_CPU_NS, 5}, {FPL_CTR_AGCT_BASE + 5, 3},
                                 {500, 9}};
    fplgen_counters(&g, sizeof(c) / sizeof(c[0]), c);
    uint64_t hist[40] = {0};
    hist[20] = 10;
    hist[39] = 1;
    fplgen_hist(&g, 40, hist, 250000, 900000);
    uint8_t junk[] = {1, 2, 3, 4};
    fplgen_record(&g, 200, junk, sizeof(junk)); /* an unknown type */
    fplgen_flush(&g);
    fplgen_anchor(&g, t + 10000, 5000 + (t + 9000) / 2, 1700000000000000000ull + t / 2);
    fplgen_end(&g, t + 20000);
    fplgen_flush(&g);
    int rc = save(&g, dir, "rich.fpl");
    fplgen_destroy(&g);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seeds DIR\n");
        return 2;
    }
    int rc = golden(argv[1], 1, "golden.fpl");
    rc |= golden(argv[1], 0, "golden-cut.fpl");
    rc |= rich(argv[1]);
    return rc ? 1 : 0;
}
