package dev.flyprof.workload;

import java.io.File;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Two phases of lock contention, each by four threads that take one lock again and again and
 * hold it a known time (sleeping inside it), measuring with {@code System.nanoTime} how long
 * each acquisition waited:
 * <ol>
 * <li>threads {@code sync-0..3} in {@link #syncSection}: {@code synchronized} on one
 * {@link Monitor};
 * <li>threads {@code rlock-0..3} in {@link #rlockSection}: one {@link ReentrantLock}.
 * </ol>
 * Then {@code latch-waiter} waits 200 ms for a CountDownLatch: parked on an
 * AbstractQueuedSynchronizer that is no lock (a lock profiler must leave it out).
 *
 * <p>Usage: {@code LockContention [acquisitions] [hold-ms] [go-file]} (default 150 per thread,
 * 2 ms). With a go-file the threads start, then wait until it exists. Prints {@code result}
 * with {@code sync_wait_ns} and {@code rlock_wait_ns}: the sums of the threads' waits.
 */
public final class LockContention {
    static final String USAGE = "LockContention [acquisitions] [hold-ms] [go-file]";
    static final int THREADS = 4;

    /** The monitor's own class, so the profile's lock leaf names it. */
    static final class Monitor {
        long count;
    }

    static final Monitor MONITOR = new Monitor();
    static final ReentrantLock LOCK = new ReentrantLock();

    private LockContention() {
    }

    static void hold(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One acquisition of the monitor; returns the ns it waited. */
    static long syncSection(long holdMs) {
        long t0 = System.nanoTime();
        synchronized (MONITOR) {
            long waited = System.nanoTime() - t0;
            MONITOR.count++;
            hold(holdMs);
            return waited;
        }
    }

    /** One acquisition of the ReentrantLock; returns the ns it waited. */
    static long rlockSection(long holdMs) {
        long t0 = System.nanoTime();
        LOCK.lock();
        try {
            long waited = System.nanoTime() - t0;
            hold(holdMs);
            return waited;
        } finally {
            LOCK.unlock();
        }
    }

    /** Runs one phase: THREADS threads named prefix-i; returns the sum of their waits. */
    static long phase(String prefix, boolean sync, int n, long holdMs, File go) throws Exception {
        long[] waited = new long[THREADS];
        Thread[] ts = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) {
            final int k = i;
            ts[i] = new Thread(() -> {
                try {
                    while (go != null && !go.exists()) {
                        Thread.sleep(5);
                    }
                } catch (InterruptedException e) {
                    return;
                }
                long w = 0;
                for (int j = 0; j < n; j++) {
                    w += sync ? syncSection(holdMs) : rlockSection(holdMs);
                }
                waited[k] = w;
            }, prefix + "-" + i);
        }
        for (Thread t : ts) {
            t.start();
        }
        long total = 0;
        for (int i = 0; i < THREADS; i++) {
            ts[i].join();
            total += waited[i];
        }
        return total;
    }

    public static void main(String[] args) throws Exception {
        int n = Measure.count(args, 0, 150, USAGE);
        int holdMs = Measure.count(args, 1, 2, USAGE);
        File go = args.length > 2 ? new File(args[2]) : null;
        long sync = phase("sync", true, n, holdMs, go);
        long rlock = phase("rlock", false, n, holdMs, go);
        // a thread waiting 200 ms for a CountDownLatch: an AQS too, but no lock
        java.util.concurrent.CountDownLatch latch = new java.util.concurrent.CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                latch.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "latch-waiter");
        waiter.start();
        Thread.sleep(200);
        latch.countDown();
        waiter.join();
        Measure.result("sync_wait_ns", sync, "rlock_wait_ns", rlock, "acquisitions",
                (long) n * THREADS);
    }
}
