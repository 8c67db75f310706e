package dev.flyprof.workload;

/**
 * A worker thread ({@code counted-worker}) calls {@link #timed}, a timing wrapper, again and
 * again; timed calls {@link #kernel}, a counted int loop of about 40 us. Nearly all of the
 * worker's CPU is spent inside kernel: the wrapper adds two clock reads (about 50 ns) per call.
 *
 * <p>C2 compiles timed within about 0.3 s and inlines kernel into it. Run with
 * {@code -XX:-UseCountedLoopSafepoints} and the compiled loop has no safepoint poll at all (loop
 * strip mining off), so the nearest debug information a careless stack walker could fall back
 * to belongs to timed. A profiler that attributes compiled code through inlined frames finds
 * kernel on the stack of nearly every sample; one biased towards safepoints or call sites
 * charges the wrapper instead.
 *
 * <p>Usage: {@code CountedLoop [seconds]} (default 4): the worker's CPU time budget. Prints
 * {@code result} with the worker's CPU time, the wall time measured inside kernel calls, and
 * the number of calls.
 */
public final class CountedLoop {
    static final String USAGE = "CountedLoop [seconds]";
    static final int KERNEL_ITERS = 20_000;

    private static long sink = 7;
    private static long kernelNs;
    private static long calls;

    private CountedLoop() {
    }

    /** The kernel: a counted int loop with a loop-carried dependency C2 cannot fold. */
    static long kernel(long x, int n) {
        for (int i = 0; i < n; i++) {
            x = x * 6364136223846793005L + i;
            x ^= x >>> 29;
        }
        return x;
    }

    /** The wrapper: times one kernel call. */
    static long timed(long x) {
        long t0 = System.nanoTime();
        long r = kernel(x, KERNEL_ITERS);
        kernelNs += System.nanoTime() - t0;
        calls++;
        return r;
    }

    /** The worker: calls timed until its CPU time reaches budgetNs; returns its CPU time. */
    static long work(long budgetNs) {
        long end = Measure.threadCpuNs() + budgetNs;
        long x = sink;
        do {
            for (int i = 0; i < 64; i++) {
                x = timed(x);
            }
        } while (Measure.threadCpuNs() < end);
        sink = x;
        return Measure.threadCpuNs();
    }

    public static void main(String[] args) throws InterruptedException {
        long durationNs = Measure.ns(Measure.seconds(args, 0, 4, USAGE));
        Measure.init();
        long[] cpu = new long[1];
        Thread worker = new Thread(() -> cpu[0] = work(durationNs), "counted-worker");
        worker.start();
        worker.join();
        Measure.result("workload", "CountedLoop",
                "worker_cpu_ns", cpu[0], "kernel_wall_ns", kernelNs, "calls", calls,
                "main_cpu_ns", Measure.threadCpuNs(),
                "process_cpu_ns", Measure.processCpuNs(),
                "checksum", Long.toHexString(sink));
    }
}
