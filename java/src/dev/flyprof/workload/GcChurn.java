package dev.flyprof.workload;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;

/**
 * Keeps the garbage collector busy: {@code churn-N} worker threads replace random entries of a
 * large live set (LIVE_MB of small arrays reachable from one table) with new ones, and throw
 * away short-lived garbage on the side. Survivors get promoted and die old, so G1 runs young,
 * concurrent marking and mixed collections; a large share of the process's CPU time goes to
 * the JVM's own threads (GC workers, concurrent markers, refinement, compilers), which run no
 * Java code at all.
 *
 * <p>Run it with {@code -XX:+UseG1GC -Xmx512m}. Usage: {@code GcChurn [seconds] [threads]
 * [liveMB]} (defaults 6, 2, 160): the workers stop when the whole process has spent that much
 * CPU time since they started (GC threads included, so a loaded machine stretches the run
 * rather than thinning the profile), or after 20 times that in wall time.
 * Prints {@code result} with the churn phase's start and end (epoch ms) and the process CPU
 * time at both (the profile's truth over that window), the workers' CPU time, and the
 * collection counts and times.
 */
public final class GcChurn {
    static final String USAGE = "GcChurn [seconds] [threads] [liveMB]";

    private static Object[] live;
    private static volatile long sink;

    private GcChurn() {
    }

    private static volatile boolean done;

    /** One worker: replaces live entries until done. Returns its CPU time. */
    static long churn(long seed) {
        long x = seed;
        long garbage = 0;
        int n = live.length;
        while (!done) {
            for (int i = 0; i < 1024; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
                int idx = (int) ((x >>> 33) % n);
                // 64..1088 bytes, kept until replaced: old garbage for marking and mixed GCs
                live[idx] = new byte[64 + (int) ((x >>> 20) & 1023)];
                // short-lived: young garbage
                long[] tmp = new long[8 + (int) ((x >>> 10) & 63)];
                tmp[0] = x;
                garbage += tmp.length;
            }
        }
        sink += garbage;
        return Measure.threadCpuNs();
    }

    public static void main(String[] args) throws InterruptedException {
        double seconds = Measure.seconds(args, 0, 6, USAGE);
        int threads = Measure.count(args, 1, 2, USAGE);
        int liveMb = Measure.count(args, 2, 160, USAGE);
        Measure.init();
        long cpu0 = Measure.processCpuNs();
        // about 600 bytes per entry on average
        live = new Object[(int) ((long) liveMb * 1024 * 1024 / 600)];
        for (int i = 0; i < live.length; i++) {
            live[i] = new byte[64 + (int) ((i * 7919L) % 1024)];
        }
        long windowStartMs = System.currentTimeMillis();
        long windowCpu0 = Measure.processCpuNs();
        long deadline = System.nanoTime() + 20 * Measure.ns(seconds);
        long[] cpu = new long[threads];
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int k = t;
            ts[t] = new Thread(() -> cpu[k] = churn(0x9e3779b97f4a7c15L * (k + 1)),
                    "churn-" + t);
            ts[t].start();
        }
        while (Measure.processCpuNs() - windowCpu0 < Measure.ns(seconds)
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        done = true;
        long workers = 0;
        for (int t = 0; t < threads; t++) {
            ts[t].join();
            workers += cpu[t];
        }
        long windowCpu1 = Measure.processCpuNs();
        long windowEndMs = System.currentTimeMillis();
        long gcCount = 0;
        long gcMs = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            gcCount += Math.max(0, gc.getCollectionCount());
            gcMs += Math.max(0, gc.getCollectionTime());
        }
        Measure.result("workload", "GcChurn", "process_cpu_start_ns", cpu0,
                "window_start_ms", windowStartMs, "window_end_ms", windowEndMs,
                "window_cpu_ns", windowCpu1 - windowCpu0,
                "workers_cpu_ns", workers, "gc_count", gcCount, "gc_ms", gcMs,
                "process_cpu_ns", Measure.processCpuNs(), "checksum", sink);
    }
}
