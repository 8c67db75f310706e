package dev.flyprof.bench;

import java.lang.management.ManagementFactory;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A fixed amount of contended locking for the lock-profiling overhead benchmark: {@code threads}
 * threads each do {@code rounds} rounds of a little work outside any lock, a little inside one
 * {@code synchronized} monitor and a little inside one {@link ReentrantLock}, so most waits
 * are short (a few microseconds, under the agent's default 10 us threshold) and some park for
 * longer: both paths of the lock profiler (the monitor events and the park hook) run all the
 * time. The profiler's cost shows as extra CPU time and wall time for the same work.
 *
 * <p>Usage: {@code LockWork rounds [threads]} (default 4 threads). Prints {@code result} with
 * the rounds done, the wall time of the work, the process CPU time and a checksum.
 */
public final class LockWork {
    static final String USAGE = "LockWork rounds [threads]";
    static final Object MONITOR = new Object();
    static final ReentrantLock LOCK = new ReentrantLock();
    static long shared = 1;
    static long shared2 = 1;

    private LockWork() {
    }

    static long mix(long x, int n) {
        for (int i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long work(long rounds, long seed) {
        long local = seed;
        for (long r = 0; r < rounds; r++) {
            local = mix(local, 200);
            synchronized (MONITOR) {
                shared = mix(shared ^ local, 40);
            }
            local = mix(local, 200);
            LOCK.lock();
            try {
                shared2 = mix(shared2 ^ local, 40);
            } finally {
                LOCK.unlock();
            }
        }
        return local;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        long rounds = Long.parseLong(args[0]);
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        long[] sums = new long[n];
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int k = i;
            ts[i] = new Thread(() -> sums[k] = work(rounds, 0x9E3779B97F4A7C15L * (k + 1)),
                    "lockwork-" + i);
        }
        long t0 = System.nanoTime();
        for (Thread t : ts) {
            t.start();
        }
        long sum = 0;
        for (int i = 0; i < n; i++) {
            ts[i].join();
            sum += sums[i];
        }
        long wall = System.nanoTime() - t0;
        long cpu = ((com.sun.management.OperatingSystemMXBean)
                ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
        System.out.println("result rounds=" + rounds * n + " wall_ns=" + wall + " process_cpu_ns="
                + cpu + " checksum=" + (sum ^ shared ^ shared2));
    }
}
