package dev.flyprof.workload;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * Threads whose names are longer than the 15 characters the kernel keeps of a thread's name
 * (its comm), so a profile that names threads by their comm shows them cut:
 * <ul>
 * <li>{@code long-named-spinner-started-first} burns CPU from the start;
 * <li>{@code long-named-spinner-started-later} is started halfway and burns CPU from then on
 * (attached, it starts after the attach);
 * <li>{@code parked-thread-number-N}, {@code parked} of them, park forever: a wall-clock
 * sampler at a short interval walks them and burns CPU of its own.
 * </ul>
 *
 * <p>Prints {@code phase ready} once the first spinner and the parked threads run, and at the
 * end {@code result} with each spinner's CPU time.
 *
 * <p>Usage: {@code LongNames [seconds] [parked]} (default 4, 200).
 */
public final class LongNames {
    static final String USAGE = "LongNames [seconds] [parked]";
    static final String FIRST = "long-named-spinner-started-first";
    static final String LATER = "long-named-spinner-started-later";

    private LongNames() {
    }

    /** A thread that burns CPU until deadlineNs (System.nanoTime), its CPU time into cpu[0]. */
    static Thread spinner(String name, long deadlineNs, long[] cpu) {
        return new Thread(() -> {
            long x = Thread.currentThread().getId();
            while (System.nanoTime() < deadlineNs) {
                for (int i = 0; i < 100_000; i++) {
                    x ^= x << 13;
                    x ^= x >>> 7;
                    x ^= x << 17;
                }
            }
            cpu[0] = Measure.threadCpuNs();
            cpu[1] = x;
        }, name);
    }

    public static void main(String[] args) throws Exception {
        long durationNs = Measure.ns(Measure.seconds(args, 0, 4, USAGE));
        int parked = Measure.count(args, 1, 200, USAGE);
        Measure.init();
        CountDownLatch alive = new CountDownLatch(parked);
        for (int i = 0; i < parked; i++) {
            Thread t = new Thread(() -> {
                alive.countDown();
                for (;;) {
                    LockSupport.park();
                }
            }, "parked-thread-number-" + i);
            t.setDaemon(true);
            t.start();
        }
        alive.await();
        long start = System.nanoTime(), end = start + durationNs;
        long[] first = new long[2];
        long[] later = new long[2];
        Thread a = spinner(FIRST, end, first);
        a.start();
        System.out.println("phase ready");
        System.out.flush();
        Thread.sleep(durationNs / 2_000_000);
        Thread b = spinner(LATER, end, later);
        b.start();
        a.join();
        b.join();
        Measure.result("workload", "LongNames", "first_cpu_ns", first[0], "later_cpu_ns", later[0],
                "checksum", Long.toHexString(first[1] ^ later[1]));
    }
}
