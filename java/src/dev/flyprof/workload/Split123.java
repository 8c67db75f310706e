package dev.flyprof.workload;

/**
 * One worker thread ({@code split-worker}) spends its CPU in {@link #unitA}, {@link #unitB} and
 * {@link #unitC} in the ratio 1:2:3.
 *
 * <p>The three units run the very same compiled code: unitA calls {@link #block} once, unitB
 * twice, unitC three times, and block calls {@link #kernel}. So the split holds by construction
 * (equal work in equal code), JIT warm-up included, and a profile must find unitA, unitB or unitC
 * on the stack of every worker sample above run().
 *
 * <p>Rounds are A, B, B, C, C, C, each unit one contiguous run. Block sizes ramp up: round k
 * uses 2^k kernel calls per block until a unitA block takes about 80 ms (3400 calls here). The
 * JIT compiles kernel during the first, tiny rounds, so its warm-up cost falls on the three
 * units in the same 1:2:3 pattern. Long blocks make a CPU-time sampler's counts nearly exact:
 * a sampler firing every 10 ms of the worker's CPU puts 8 +- 1 samples in each 80 ms block, so
 * the error comes only from block edges instead of from chance. Every unit's CPU time is
 * measured as it runs and printed, so a test can compare a profile with the measured truth as
 * well as with 1:2:3.
 *
 * <p>Usage: {@code Split123 [seconds]} (default 4): the worker's CPU time budget; it stops after
 * the first whole round that reaches it, so a loaded machine stretches the run rather than
 * thinning the profile. Prints {@code result} with the main thread's and the worker's Java
 * thread ids as the worker starts, then with the worker's, the main thread's and the
 * process's CPU time, and each unit's measured CPU time.
 */
public final class Split123 {
    static final String USAGE = "Split123 [seconds]";
    static final int KERNEL_ITERS = 10_000;
    static final int COARSE_CHUNKS = 3_400;

    /** Consumed at the end, so that no kernel result is dead code. */
    private static long sink = 0x9E3779B97F4A7C15L;

    private Split123() {
    }

    /** The only code that burns CPU: a counted loop the JIT cannot fold away. */
    static long kernel(long x, int n) {
        for (int i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            x += i;
        }
        return x;
    }

    /** One block: {@code chunks} kernel calls. The same method for every unit. */
    static void block(int chunks) {
        long x = sink;
        for (int i = 0; i < chunks; i++) {
            x = kernel(x, KERNEL_ITERS);
        }
        sink = x;
    }

    static void unitA(int chunks) {
        block(chunks);
    }

    static void unitB(int chunks) {
        block(chunks);
        block(chunks);
    }

    static void unitC(int chunks) {
        block(chunks);
        block(chunks);
        block(chunks);
    }

    /**
     * The worker: whole rounds until its CPU time reaches budgetNs. Returns {cpuA, cpuB, cpuC,
     * rounds, warm-up rounds, worker CPU}.
     */
    static long[] work(long budgetNs) {
        long[] r = new long[6];
        long end = Measure.threadCpuNs() + budgetNs;
        long now = 0;
        while (now < end) {
            int chunks = (int) Math.min(1L << Math.min(r[3], 30), COARSE_CHUNKS);
            boolean warmup = chunks < COARSE_CHUNKS;
            long t0 = Measure.threadCpuNs();
            unitA(chunks);
            long t1 = Measure.threadCpuNs();
            unitB(chunks);
            long t2 = Measure.threadCpuNs();
            unitC(chunks);
            long t3 = Measure.threadCpuNs();
            r[0] += t1 - t0;
            r[1] += t2 - t1;
            r[2] += t3 - t2;
            r[3]++;
            r[4] += warmup ? 1 : 0;
            now = t3;
        }
        r[5] = Measure.threadCpuNs();
        return r;
    }

    public static void main(String[] args) throws InterruptedException {
        long durationNs = Measure.ns(Measure.seconds(args, 0, 4, USAGE));
        Measure.init();
        long[][] out = new long[1][];
        Thread worker = new Thread(() -> out[0] = work(durationNs), "split-worker");
        worker.start();
        // the Java thread ids, for a test to compare with a profile's (JFR's javaThreadId)
        Measure.result("main_thread_id", Thread.currentThread().getId(),
                "worker_thread_id", worker.getId());
        worker.join();
        long[] r = out[0];
        double units = r[0] + r[1] + r[2];
        Measure.result("workload", "Split123",
                "worker_cpu_ns", r[5],
                "main_cpu_ns", Measure.threadCpuNs(),
                "process_cpu_ns", Measure.processCpuNs(),
                "unitA_cpu_ns", r[0], "unitB_cpu_ns", r[1], "unitC_cpu_ns", r[2],
                "unitA_share", r[0] / units, "unitB_share", r[1] / units,
                "unitC_share", r[2] / units,
                "rounds", r[3], "warmup_rounds", r[4], "checksum", Long.toHexString(sink));
    }
}
