package dev.flyprof.workload;

import java.util.concurrent.locks.LockSupport;

/**
 * CPU contention: {@code hog-N} threads burn CPU, three per available processor, so that each
 * of them waits for a core most of the time; {@code sleeper} sleeps and {@code parker} parks.
 * All of them are alive for the whole run, so a wall-clock profile that samples every thread
 * every tick must give each the same wall time: a hog waiting for a CPU is as much in wall
 * time as a thread sleeping.
 *
 * <p>Usage: {@code WallContention [seconds] [hogs_per_cpu]} (default 4, 3). Prints
 * {@code result hogs=N cpus=M}.
 */
public final class WallContention {
    static final String USAGE = "WallContention [seconds] [hogs_per_cpu]";
    private static volatile boolean done;
    private static volatile long sink;

    private WallContention() {
    }

    static void hog() {
        long x = 1;
        while (!done) {
            for (int i = 0; i < 100_000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        }
        sink += x;
    }

    public static void main(String[] args) throws Exception {
        double secs = Measure.seconds(args, 0, 4, USAGE);
        int perCpu = Measure.count(args, 1, 3, USAGE);
        int cpus = Runtime.getRuntime().availableProcessors();
        int hogs = Math.min(48, perCpu * cpus);
        Thread[] ts = new Thread[hogs + 2];
        for (int i = 0; i < hogs; i++) {
            ts[i] = new Thread(WallContention::hog, "hog-" + i);
        }
        ts[hogs] = new Thread(() -> {
            while (!done) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "sleeper");
        ts[hogs + 1] = new Thread(() -> {
            while (!done) {
                LockSupport.parkNanos(20_000_000L);
            }
        }, "parker");
        for (Thread t : ts) {
            t.start();
        }
        Thread.sleep((long) (secs * 1000));
        done = true;
        for (Thread t : ts) {
            t.join();
        }
        Measure.result("hogs", hogs, "cpus", cpus);
    }
}
