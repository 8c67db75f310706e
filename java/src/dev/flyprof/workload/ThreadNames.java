package dev.flyprof.workload;

/**
 * Thread names a profile must get right:
 * <ul>
 * <li>a thread started as {@code pre-rename} renames itself to {@code renamed-worker} as the
 * first thing it does (after the JVM announced it under the old name), then burns S seconds of
 * its own CPU time;
 * <li>{@code early-ender} burns S/3 seconds of its own CPU time and ends while the JVM keeps
 * running.
 * </ul>
 * Budgets are CPU time, not wall time, so both threads get enough samples on a loaded machine
 * too. Each thread measures its own CPU time.
 *
 * <p>Usage: {@code ThreadNames [seconds]} (default 3). Prints {@code result} with both threads'
 * CPU times and whether the renamed thread was still running when early-ender ended.
 */
public final class ThreadNames {
    static final String USAGE = "ThreadNames [seconds]";

    private ThreadNames() {
    }

    /** Burns budgetNs of the calling thread's CPU; returns a value that depends on all of it. */
    static long burn(long budgetNs) {
        long x = Thread.currentThread().getId();
        long end = Measure.threadCpuNs() + budgetNs;
        do {
            for (int i = 0; i < 100_000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
                x += i;
            }
        } while (Measure.threadCpuNs() < end);
        return x;
    }

    public static void main(String[] args) throws InterruptedException {
        long durationNs = Measure.ns(Measure.seconds(args, 0, 3, USAGE));
        Measure.init();
        long[] renamed = new long[2];
        long[] early = new long[2];
        Thread worker = new Thread(() -> {
            Thread.currentThread().setName("renamed-worker");
            renamed[1] = burn(durationNs);
            renamed[0] = Measure.threadCpuNs();
        }, "pre-rename");
        Thread ender = new Thread(() -> {
            early[1] = burn(durationNs / 3);
            early[0] = Measure.threadCpuNs();
        }, "early-ender");
        worker.start();
        ender.start();
        ender.join();
        boolean workerOutlivedEnder = worker.isAlive();
        worker.join();
        Measure.result("workload", "ThreadNames",
                "renamed_cpu_ns", renamed[0], "early_cpu_ns", early[0],
                "early_ended_first", workerOutlivedEnder,
                "main_cpu_ns", Measure.threadCpuNs(),
                "process_cpu_ns", Measure.processCpuNs(),
                "checksum", Long.toHexString(renamed[1] ^ early[1]));
    }
}
