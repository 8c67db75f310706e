package dev.flyprof.workload;

import java.io.File;
import java.lang.management.ManagementFactory;

/**
 * Threads {@code alloc-0} .. {@code alloc-N-1} (default two) allocating {@code byte[]} arrays of
 * one size in two methods, {@link #one} (one array per call) and {@link #three} (three arrays per
 * call), called alternately: three quarters of the bytes come from {@code three}, a quarter from
 * {@code one}. Every array escapes into a shared slot, so the JIT cannot remove it. Each thread
 * allocates until HotSpot's own per-thread counter
 * ({@code com.sun.management.ThreadMXBean.getThreadAllocatedBytes}) has grown by its share of
 * the megabytes asked for.
 *
 * <p>Usage: {@code AllocRatio [megabytes] [threads] [go-file]} (default 1536 MB, 2 threads).
 * With a go-file the threads start, then wait until it exists before allocating (a test
 * attaches the agent meanwhile). Prints {@code result} with {@code allocated_bytes}, the sum of
 * the threads' counters over their allocating loops, and {@code ratio} 3.
 */
public final class AllocRatio {
    static final String USAGE = "AllocRatio [megabytes] [threads] [go-file]";
    static final int SIZE = 1000;
    static final Object[] SINK = new Object[4096];
    static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private AllocRatio() {
    }

    static long allocated() {
        return THREADS.getThreadAllocatedBytes(Thread.currentThread().getId());
    }

    /** One array. */
    static void one(int i) {
        SINK[i & 4095] = new byte[SIZE];
    }

    /** Three arrays: three times the bytes of {@link #one}. */
    static void three(int i) {
        SINK[i & 4095] = new byte[SIZE];
        SINK[(i + 1) & 4095] = new byte[SIZE];
        SINK[(i + 2) & 4095] = new byte[SIZE];
    }

    /** Allocates about budget bytes; returns what the thread's counter says it did. */
    static long work(long budget) {
        long a0 = allocated();
        int i = (int) Thread.currentThread().getId() * 7919;
        while (true) {
            for (int k = 0; k < 1024; k++) {
                one(i);
                three(i + 3);
                i += 5;
            }
            if (allocated() - a0 >= budget) {
                break;
            }
        }
        return allocated() - a0;
    }

    static void awaitFile(File f) throws InterruptedException {
        while (f != null && !f.exists()) {
            Thread.sleep(5);
        }
    }

    public static void main(String[] args) throws Exception {
        double mb = Measure.seconds(args, 0, 1536, USAGE);
        int n = Measure.count(args, 1, 2, USAGE);
        File go = args.length > 2 ? new File(args[2]) : null;
        long budget = (long) (mb * 1024 * 1024 / n);
        long[] bytes = new long[n];
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int k = i;
            ts[i] = new Thread(() -> {
                try {
                    awaitFile(go);
                } catch (InterruptedException e) {
                    return;
                }
                bytes[k] = work(budget);
            }, "alloc-" + i);
        }
        for (Thread t : ts) {
            t.start();
        }
        long total = 0;
        for (int i = 0; i < n; i++) {
            ts[i].join();
            total += bytes[i];
        }
        Measure.result("threads", n, "allocated_bytes", total, "ratio", 3);
    }
}
