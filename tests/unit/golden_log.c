/* golden_log.c: the golden log. Threads: 1 "main", 2 a name with ';' and '\n' (folded as
 * "pool-1_worker_2"); thread 3 is never defined. Method 99 and stack 42 are never defined
 * either, as if their chunk had been lost. Stacks 1 and 2 differ only in a bci; stack 6
 * recurses (fib three times).
 *
 * Wall ticks: tick 1 has 7 candidates and 2 chosen (scale 3.5), tick 2 has 9 and 4 (scale
 * 2.25); tick 2's record comes after the first sample that answers it. The sleeping samples
 * (thread 2, stack 4) answer ticks 1 and 2, no tick (id 0, then the field absent) and tick 77,
 * which was never written: 3.5 + 2.25 + 1 + 1 + 1 = 8.75, folded as 9. The two running wall
 * samples (thread 1, stack 1, chunk 1) answer ticks 1 and 2: 5.75, folded as 6. A CPU sample
 * carrying a tick id is not scaled. */
#include "golden_log.h"

#include "fpl_format.h"

const char GOLDEN_CPU[] =
    "[agct:unknown_Java] 1\n"
    "[unknown stack] 1\n"
    "com.example.App.main;[unknown];os::javaTimeNanos 1\n"
    "com.example.App.main;com.example.App.work 3\n"
    "com.example.App.main;com.example.App.work;com.example.App.hash 5\n"
    "java.lang.Thread.run;com.foo.Bar$$Lambda.run;com.example.App.fib;"
    "com.example.App.fib;com.example.App.fib 4\n";

const char GOLDEN_CPU_THREADS[] =
    "[unknown thread];com.example.App.main;com.example.App.work 1\n"
    "main;[unknown stack] 1\n"
    "main;com.example.App.main;[unknown];os::javaTimeNanos 1\n"
    "main;com.example.App.main;com.example.App.work 2\n"
    "main;com.example.App.main;com.example.App.work;com.example.App.hash 5\n"
    "pool-1_worker_2;[agct:unknown_Java] 1\n"
    "pool-1_worker_2;java.lang.Thread.run;com.foo.Bar$$Lambda.run;"
    "com.example.App.fib;com.example.App.fib;com.example.App.fib 4\n";

const char GOLDEN_WALL[] = "com.example.App.main;com.example.App.work;com.example.App.hash 6\n"
                           "java.lang.Thread.run;java.lang.Thread.sleep0 9\n";

const char GOLDEN_WALL_STATES[] =
    "com.example.App.main;com.example.App.work;com.example.App.hash;[running] 6\n"
    "java.lang.Thread.run;java.lang.Thread.sleep0;[sleeping] 9\n";

#define MS (GOLDEN_TPS / 1000) /* ticks per millisecond */

int golden_log_build(struct fplgen *g, int with_end)
{
    const struct fplgen_header h = {
        .pid = 4242,
        .clock = FPL_CLOCK_TSC,
        .ticks_per_sec = GOLDEN_TPS,
        .anchor_ticks = GOLDEN_ANCHOR_TICKS,
        .anchor_mono_ns = 5000000000ull,
        .anchor_real_ns = GOLDEN_REAL_NS,
        .cpu_interval_ns = 10000000,
        .engine = FPL_ENGINE_CPUTIMER,
        .wall_interval_ns = 50000000,
        .wall_threads = 16,
        .depth = 2048,
        .options = "cpu=10ms,wall=50ms,file=/tmp/x.fpl",
        .jvm_name = "OpenJDK 64-Bit Server VM",
        .jvm_version = "21.0.2+13",
        .command = "java -jar app.jar",
    };
    const struct reader_line lines[] = {{0, 10}, {5, 11}, {20, 14}};
    const struct reader_frame s1[] = {{4, 10, 0}, {3, 5, 0}, {2, 1, 0}};
    const struct reader_frame s2[] = {{4, 20, 0}, {3, 5, 0}, {2, 1, 0}};
    const struct reader_frame s3[] = {{3, 7, 0}, {2, 1, 0}};
    const struct reader_frame s4[] = {{5, -1, 0}, {1, 3, 0}};
    const struct reader_frame s5[] = {{6, -1, 0}};
    const struct reader_frame s6[] = {{9, 4, 0}, {9, 4, 0}, {9, 2, 0}, {8, 0, 0}, {1, 3, 0}};
    const struct reader_frame s7[] = {{7, -1, 0}, {99, 0, 0}, {2, 1, 0}};
    uint64_t t = GOLDEN_ANCHOR_TICKS;
    int rc;

    fplgen_header(g, &h);
    fplgen_thread(g, 1, 100, "main");
    fplgen_thread(g, 2, 101, "pool-1;worker\n2");
    fplgen_method(g, 1, FPL_METHOD_JAVA, "java.lang.Thread", "run", "()V", "Thread.java", 0, NULL);
    fplgen_method(g, 2, FPL_METHOD_JAVA, "com.example.App", "main", "([Ljava/lang/String;)V",
                  "App.java", 3, lines);
    fplgen_method(g, 3, FPL_METHOD_JAVA, "com.example.App", "work", "()V", "App.java", 0, NULL);
    fplgen_method(g, 4, FPL_METHOD_JAVA, "com.example.App", "hash", "(I)I", "App.java", 0, NULL);
    fplgen_method(g, 5, FPL_METHOD_NATIVE, "java.lang.Thread", "sleep0", "(J)V", "", 0, NULL);
    fplgen_method(g, 6, FPL_METHOD_MARKER, "", "[agct:unknown_Java]", "", "", 0, NULL);
    fplgen_method(g, 7, FPL_METHOD_CFUNC, "", "os::javaTimeNanos", "", "", 0, NULL);
    fplgen_method(g, 8, FPL_METHOD_JAVA, "com.foo.Bar$$Lambda$14/0x0000000800c03000", "run", "()V",
                  "", 0, NULL);
    fplgen_method(g, 9, FPL_METHOD_JAVA, "com.example.App", "fib", "(I)J", "App.java", 0, NULL);
    fplgen_stack(g, 1, 3, s1);
    fplgen_stack(g, 2, 3, s2);
    fplgen_stack(g, 3, 2, s3);
    fplgen_stack(g, 4, 2, s4);
    fplgen_stack(g, 5, 1, s5);
    fplgen_stack(g, 6, 5, s6);
    fplgen_stack(g, 7, 3, s7);
    fplgen_sample_tick(g, t += 10 * MS, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING, 1);
    for (int i = 0; i < 2; i++)
        fplgen_sample(g, t += 10 * MS, 1, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(g, t += 10 * MS, 1, 2, 2, FPL_KIND_CPU, FPL_STATE_RUNNING);
    for (int i = 0; i < 2; i++)
        fplgen_sample(g, t += 10 * MS, 1, 3, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_wall_tick(g, 1, t, 7, 2, 2, 0);
    fplgen_sample_tick(g, t += 1 * MS, 2, 4, 1, FPL_KIND_WALL, FPL_STATE_SLEEPING, 1);
    fplgen_sample_tick(g, t += 1 * MS, 2, 4, 1, FPL_KIND_WALL, FPL_STATE_SLEEPING, 2);
    fplgen_wall_tick(g, 2, t - 1 * MS, 9, 4, 3, 1);
    fplgen_sample_tick(g, t += 1 * MS, 2, 4, 1, FPL_KIND_WALL, FPL_STATE_SLEEPING, 0);
    fplgen_sample(g, t += 1 * MS, 2, 4, 1, FPL_KIND_WALL, FPL_STATE_SLEEPING);
    fplgen_sample_tick(g, t += 1 * MS, 2, 4, 1, FPL_KIND_WALL, FPL_STATE_SLEEPING, 77);
    if ((rc = fplgen_flush(g)) != 0)
        return rc;

    const struct reader_counter ctr[] = {
        {FPL_CTR_SIGNALS, 20},
        {FPL_CTR_SAMPLES, 14},
        {FPL_CTR_RING_DROPS, 3},
        {FPL_CTR_NO_ENV, 2},
        {FPL_CTR_WRITER_CPU_NS, 20000000},
        {FPL_CTR_AGCT_BASE + 5, 1},
        {FPL_CTR_TIMER_ERRORS, 0},
        {77, 5}, /* an unknown id: ignored */
    };
    uint64_t hist[FPL_HIST_BUCKETS] = {0};
    hist[fpl_hist_bucket(1000)] = 100;
    for (int i = 0; i < 4; i++)
        fplgen_sample(g, t += 10 * MS, 2, 6, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(g, t += 10 * MS, 2, 5, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(g, t += 10 * MS, 1, 7, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(g, t += 10 * MS, 3, 3, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    fplgen_sample(g, t += 10 * MS, 1, 42, 1, FPL_KIND_CPU, FPL_STATE_RUNNING);
    for (uint64_t tick = 1; tick <= 2; tick++)
        fplgen_sample_tick(g, t += 1 * MS, 1, 1, 1, FPL_KIND_WALL, FPL_STATE_RUNNING, tick);
    fplgen_counters(g, sizeof(ctr) / sizeof(ctr[0]), ctr);
    fplgen_hist(g, FPL_HIST_BUCKETS, hist, 1000, 100 * 990);
    if (with_end)
        fplgen_end(g, GOLDEN_ANCHOR_TICKS + 2 * GOLDEN_TPS);
    return fplgen_flush(g);
}
