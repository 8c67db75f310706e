package dev.flyprof.workload;

import java.util.concurrent.locks.LockSupport;

/**
 * Four threads, each in one state for the whole run: {@code busy} burns CPU, {@code sleeper}
 * sleeps, {@code parker} parks, {@code blocked} waits to enter a monitor that {@code holder}
 * keeps (holder sleeps while holding it). A CPU profile must give nearly everything to busy; a
 * wall-clock profile must give the four about the same share, each in its own state.
 *
 * <p>Usage: {@code WallStates [seconds]} (default 4).
 */
public final class WallStates {
    static final String USAGE = "WallStates [seconds]";
    private static final Object MONITOR = new Object();
    private static volatile boolean done;
    private static long sink;

    private WallStates() {
    }

    static long spin(long x) {
        for (int i = 0; i < 100_000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static void busy() {
        long x = 1;
        while (!done) {
            x = spin(x);
        }
        sink += x;
    }

    static void sleeper() {
        while (!done) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    static void parker() {
        while (!done) {
            LockSupport.parkNanos(20_000_000L);
        }
    }

    static void holder() {
        synchronized (MONITOR) {
            while (!done) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    static void blocked() {
        synchronized (MONITOR) {
            sink++;
        }
    }

    public static void main(String[] args) throws Exception {
        double secs = Measure.seconds(args, 0, 4, USAGE);
        Thread holder = new Thread(WallStates::holder, "holder");
        holder.start();
        while (holder.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(1);
        }
        Thread[] ts = {
            new Thread(WallStates::busy, "busy"),
            new Thread(WallStates::sleeper, "sleeper"),
            new Thread(WallStates::parker, "parker"),
            new Thread(WallStates::blocked, "blocked"),
        };
        for (Thread t : ts) {
            t.start();
        }
        Thread.sleep((long) (secs * 1000));
        done = true;
        holder.join();
        for (Thread t : ts) {
            t.join();
        }
        System.out.println("result threads=5 sink=" + (sink & 1));
    }
}
