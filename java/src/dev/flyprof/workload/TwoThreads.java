package dev.flyprof.workload;

/**
 * Two threads, {@code heavy} and {@code light}, whose CPU times stand 3:1 by the amount of work,
 * not by timing: both run the same {@link #unit} (about 5 ms of CPU here), and light does one
 * unit for every three heavy has finished. Neither thread sleeps on a timer; light waits on a
 * monitor (no CPU) when it is ahead. The split therefore survives a noisy scheduler: a thread
 * that is descheduled simply finishes its units later.
 *
 * <p>Modes:
 * <ul>
 * <li>{@code parallel} (default): heavy never waits; light runs its unit while heavy runs the
 * next three, so both threads are on CPU at once for a quarter of the time (on two cores).
 * <li>{@code alternate}: strict turns, three heavy units then one light unit; only one of the
 * two ever runs, so each unit runs on an otherwise idle machine and the CPU ratio is as close to
 * 3 as the hardware allows (even when the two vCPUs are hyperthread siblings).
 * </ul>
 *
 * <p>The run lasts S seconds of CPU time in all: heavy stops after the first batch of three that
 * brings its own CPU time to 3/4 S, and light then finishes its last unit. A loaded machine
 * stretches the run rather than thinning the profile. Each thread measures its own CPU time at
 * the end of its run.
 *
 * <p>Usage: {@code TwoThreads [seconds] [parallel|alternate]} (default 4, parallel). Prints
 * {@code result} with each thread's CPU time and unit count and their CPU ratio.
 */
public final class TwoThreads {
    static final String USAGE = "TwoThreads [seconds] [parallel|alternate]";
    static final int UNIT_ITERS = 2_000_000;

    private static final Object LOCK = new Object();
    private static long heavyUnits;     // guarded by LOCK
    private static long lightUnits;     // guarded by LOCK
    private static boolean heavyDone;   // guarded by LOCK
    private static boolean lightTurn;   // guarded by LOCK; alternate mode only

    private TwoThreads() {
    }

    /** One unit of work, identical for both threads. */
    static long unit(long x) {
        for (int i = 0; i < UNIT_ITERS; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            x += i;
        }
        return x;
    }

    /** Heavy's loop: batches of three units until its CPU budget. Returns {cpu, checksum}. */
    static long[] heavy(long budgetNs, boolean alternate) throws InterruptedException {
        long x = 1;
        long end = Measure.threadCpuNs() + budgetNs;
        for (;;) {
            if (alternate) {
                synchronized (LOCK) {
                    while (lightTurn) {
                        LOCK.wait();
                    }
                }
            }
            x = unit(x);
            x = unit(x);
            x = unit(x);
            boolean stop = Measure.threadCpuNs() >= end;
            synchronized (LOCK) {
                heavyUnits += 3;
                heavyDone = stop;
                lightTurn = true;
                LOCK.notifyAll();
            }
            if (stop) {
                return new long[] {Measure.threadCpuNs(), x};
            }
        }
    }

    /** Light's loop: one unit per three of heavy's, until heavy is done and light caught up. */
    static long[] light() throws InterruptedException {
        long x = 2;
        for (;;) {
            synchronized (LOCK) {
                while (lightUnits * 3 >= heavyUnits && !heavyDone) {
                    LOCK.wait();
                }
                if (lightUnits * 3 >= heavyUnits) {
                    return new long[] {Measure.threadCpuNs(), x};
                }
            }
            x = unit(x);
            synchronized (LOCK) {
                lightUnits++;
                lightTurn = false;
                LOCK.notifyAll();
            }
        }
    }

    /** A thread running body, keeping its result (null when it was interrupted). */
    private static final class Worker extends Thread {
        interface Body {
            long[] run() throws InterruptedException;
        }

        private final Body body;
        long[] result;

        Worker(String name, Body body) {
            super(name);
            this.body = body;
        }

        @Override
        public void run() {
            try {
                result = body.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        long durationNs = Measure.ns(Measure.seconds(args, 0, 4, USAGE));
        String mode = args.length > 1 ? args[1] : "parallel";
        if (!mode.equals("parallel") && !mode.equals("alternate")) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        boolean alternate = mode.equals("alternate");
        Measure.init();
        Worker heavy = new Worker("heavy", () -> heavy(durationNs / 4 * 3, alternate));
        Worker light = new Worker("light", TwoThreads::light);
        light.start();
        heavy.start();
        heavy.join();
        light.join();
        if (heavy.result == null || light.result == null) {
            System.err.println("TwoThreads: a worker was interrupted");
            System.exit(1);
        }
        long hc = heavy.result[0];
        long lc = light.result[0];
        synchronized (LOCK) {
            Measure.result("workload", "TwoThreads", "mode", mode,
                    "heavy_cpu_ns", hc, "light_cpu_ns", lc,
                    "cpu_ratio", (double) hc / lc,
                    "heavy_units", heavyUnits, "light_units", lightUnits,
                    "main_cpu_ns", Measure.threadCpuNs(),
                    "process_cpu_ns", Measure.processCpuNs(),
                    "checksum", Long.toHexString(heavy.result[1] ^ light.result[1]));
        }
    }
}
