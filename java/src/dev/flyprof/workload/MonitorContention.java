package dev.flyprof.workload;

/**
 * Threads {@code mon-0} .. {@code mon-N-1} (default four) contending on one {@code synchronized}
 * monitor: each runs {@link #round} again and again, a short piece of work outside the lock and
 * a shorter one inside it. With more threads than cores the monitor is inflated and almost
 * every exit has a successor to wake, so the threads spend much of their time in the JVM's
 * monitor code: the enter slow path (spinning, parking) and the exit slow path
 * ({@code SharedRuntime::complete_monitor_unlocking_C} from compiled code,
 * {@code InterpreterRuntime::monitorexit} from the interpreter, then
 * {@code ObjectMonitor::ExitEpilog} and {@code pthread_cond_signal}). The exit path is a leaf
 * call: the thread stays in the Java state without a frame anchor while it runs JVM and libc
 * code, where AsyncGetCallTrace cannot start a walk. The enter path spins and parks as a
 * blocked thread whose frame anchor (from compiled code) is in a C2 runtime stub, which
 * AsyncGetCallTrace never walks out of.
 *
 * <p>Usage: {@code MonitorContention [cpu-seconds] [threads] [stop-file]} (default 3 s, 4): each
 * thread runs until it has used that much CPU (or 30 times as long in wall time has passed), or
 * until stop-file exists. Prints {@code result} with the threads, the rounds done and the
 * threads' CPU time.
 */
public final class MonitorContention {
    static final String USAGE = "MonitorContention [cpu-seconds] [threads] [stop-file]";
    static final Object LOCK = new Object();
    /** Guarded by LOCK. */
    static long shared = 1;
    static volatile long sink;
    /** Rounds of {@link #mix} outside the lock and inside it. */
    static final int OUTSIDE = 10;
    static final int INSIDE = 2;

    private MonitorContention() {
    }

    /** A few rounds of xorshift: work that stays in registers. */
    static long mix(long x, int n) {
        for (int i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    /** One round: work outside the lock, then a shorter piece inside it. */
    static long round(long local) {
        local = mix(local, OUTSIDE);
        synchronized (LOCK) {
            shared = mix(shared ^ local, INSIDE);
            return shared;
        }
    }

    /** Rounds until the thread's CPU budget, the wall-time limit or the stop file. */
    static long work(long budgetNs, long wallLimitNs, java.io.File stop) {
        long local = Thread.currentThread().getId() * 0x9E3779B97F4A7C15L;
        long rounds = 0;
        long t0 = System.nanoTime();
        while (true) {
            for (int i = 0; i < 256; i++) {
                local = round(local);
            }
            rounds += 256;
            if ((rounds & 4095) == 0 && (Measure.threadCpuNs() >= budgetNs
                    || System.nanoTime() - t0 >= wallLimitNs
                    || (stop != null && stop.exists()))) {
                break;
            }
        }
        sink += local;
        return rounds;
    }

    public static void main(String[] args) throws Exception {
        double secs = Measure.seconds(args, 0, 3, USAGE);
        int n = Measure.count(args, 1, 4, USAGE);
        java.io.File stop = args.length > 2 ? new java.io.File(args[2]) : null;
        long budget = stop != null ? Long.MAX_VALUE : Measure.ns(secs);
        long wallLimit = stop != null ? Long.MAX_VALUE : Measure.ns(secs * 30);
        Measure.init();
        long[] rounds = new long[n];
        long[] cpu = new long[n];
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int k = i;
            ts[i] = new Thread(() -> {
                rounds[k] = work(budget, wallLimit, stop);
                cpu[k] = Measure.threadCpuNs();
            }, "mon-" + i);
        }
        for (Thread t : ts) {
            t.start();
        }
        long total = 0;
        long cpuNs = 0;
        for (int i = 0; i < n; i++) {
            ts[i].join();
            total += rounds[i];
            cpuNs += cpu[i];
        }
        Measure.result("threads", n, "rounds", total, "cpu_ns", cpuNs);
    }
}
