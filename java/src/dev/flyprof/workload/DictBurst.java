package dev.flyprof.workload;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * A burst of distinct stacks, then a small steady set: what makes the agent's dictionaries
 * overflow their memory bound once, after which they must stay small.
 *
 * <p>Phase 1 ({@code burst} seconds of each thread's own CPU time, so that a loaded machine
 * makes it longer rather than poorer, at most ten times as long in wall time): two threads
 * recurse {@code DEPTH} levels deep, each level calling the next from one of two call sites
 * chosen by a random bit, so nearly every sample has a stack never seen before. Phase 2
 * ({@code steady} seconds of wall time from the thread's end of phase 1): the same two threads
 * spin in {@link #steady}, a handful of stacks.
 *
 * <p>Stdout: {@code steady THREAD} as each thread starts phase 2, then
 * {@code result burst_ns=... steady_ns=...}.
 *
 * <p>Usage: {@code DictBurst [burst_seconds] [steady_seconds]} (default 3, 5).
 */
public final class DictBurst {
    static final String USAGE = "DictBurst [burst_seconds] [steady_seconds]";
    static final int DEPTH = 120;
    private static volatile long sink;

    private DictBurst() {
    }

    static long left(long bits, int level) {
        return level == 0 ? spinLeaf(bits) : pick(bits * 0x9E3779B97F4A7C15L + 1, level - 1);
    }

    static long right(long bits, int level) {
        return level == 0 ? spinLeaf(bits) : pick(bits * 0xC2B2AE3D27D4EB4FL + 3, level - 1);
    }

    static long pick(long bits, int level) {
        // two call sites, so the bci of this frame differs between the two paths
        if ((bits >>> 63) == 0) {
            return left(bits, level) + 1;
        }
        return right(bits, level) + 2;
    }

    static long spinLeaf(long x) {
        for (int i = 0; i < 20_000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long steady(long x) {
        for (int i = 0; i < 1_000_000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static void run(long burstNs, long steadyNs, long seed) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long x = seed;
        long cpu0 = mx.getCurrentThreadCpuTime();
        long cap = System.nanoTime() + 10 * burstNs;
        for (int i = 0; ; i++) {
            if ((i & 15) == 0 && (mx.getCurrentThreadCpuTime() - cpu0 >= burstNs
                                  || System.nanoTime() >= cap)) {
                break;
            }
            x = x * 6364136223846793005L + 1442695040888963407L;
            sink += pick(x, DEPTH);
        }
        long end2 = System.nanoTime() + steadyNs;
        synchronized (DictBurst.class) {
            System.out.println("steady " + Thread.currentThread().getName());
            System.out.flush();
        }
        while (System.nanoTime() < end2) {
            sink += steady(x);
        }
    }

    public static void main(String[] args) throws Exception {
        double burst = Measure.seconds(args, 0, 3, USAGE);
        double steady = Measure.seconds(args, 1, 5, USAGE);
        long t0 = System.nanoTime();
        long burstNs = Measure.ns(burst);
        long steadyNs = Measure.ns(steady);
        Thread a = new Thread(() -> run(burstNs, steadyNs, 1), "dict-a");
        Thread b = new Thread(() -> run(burstNs, steadyNs, 2), "dict-b");
        a.start();
        b.start();
        a.join();
        b.join();
        Measure.result("burst_cpu_ns", burstNs, "total_ns", System.nanoTime() - t0);
    }
}
