package dev.flyprof.workload;

/**
 * Threads that are RUNNABLE to the JVM but cannot take a signal, or should not be woken by
 * one, for the wall-clock sampler's tests. Natives in libfptest_jni.so (tests/native/blocking.c),
 * loaded from the path given as the first argument. For {@code seconds} of wall time:
 * <ul>
 * <li>{@code spin-blocked}: blocks every signal and burns CPU in native code;
 * <li>{@code sleep-blocked}: blocks every signal and sleeps in native code;
 * <li>{@code java-blocked}: blocks every signal, then burns CPU in Java code (signals stay
 * blocked), then counts and unblocks;
 * <li>{@code poller}: waits in poll() on a pipe nobody writes to, counting the EINTR returns
 * (a signal handler ran on it);
 * <li>{@code sleeper}: Thread.sleep, the reference for wall-clock weight.
 * </ul>
 * Then each sleeps {@link #TAIL_MS} more, signals unblocked, so all live equally long.
 * Each blocked thread counts (and takes), at the end, the real-time signals of this process
 * still queued for it. Signals are blocked except the synchronous ones (a JVM thread dies with
 * SIGSEGV blocked: HotSpot's null checks and safepoint polls are faults it handles). Prints {@code result spin_queued=N sleep_queued=N java_queued=N poll_eintr=N}.
 *
 * <p>Usage: {@code NativeBlock LIBPATH [seconds]} (default 4).
 */
public final class NativeBlock {
    static final String USAGE = "NativeBlock LIBPATH [seconds]";

    static native long spinBlocked(long ns);

    static native long sleepBlocked(long ns);

    static native void blockSignals();

    static native long drainAndUnblock();

    static native long pollCountEintr(long ns);

    /** How long each thread lives on with signals unblocked, after its count. */
    static final long TAIL_MS = 500;

    private static long sink;

    private NativeBlock() {
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** body, then a sleep of TAIL_MS with signals open: every thread lives as long, and a
     * sampler can catch up with a thread that blocked signals. */
    static Runnable tail(Runnable body) {
        return () -> {
            body.run();
            sleep(TAIL_MS);
        };
    }

    /** Java code burning CPU until System.nanoTime passes end. */
    static long spinJava(long end) {
        long x = 1;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 100_000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        }
        return x;
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        System.load(args[0]);
        long ns = Measure.ns(Measure.seconds(args, 1, 4, USAGE));
        long[] out = new long[4];
        Thread[] t = {
            new Thread(tail(() -> out[0] = spinBlocked(ns)), "spin-blocked"),
            new Thread(tail(() -> out[1] = sleepBlocked(ns)), "sleep-blocked"),
            new Thread(tail(() -> {
                blockSignals();
                sink = spinJava(System.nanoTime() + ns);
                out[2] = drainAndUnblock();
            }), "java-blocked"),
            new Thread(tail(() -> out[3] = pollCountEintr(ns)), "poller"),
            new Thread(tail(() -> sleep(ns / 1_000_000)), "sleeper"),
        };
        for (Thread x : t) {
            x.start();
        }
        for (Thread x : t) {
            x.join();
        }
        Measure.result("workload", "NativeBlock", "spin_queued", out[0], "sleep_queued", out[1],
                "java_queued", out[2], "poll_eintr", out[3], "checksum", Long.toHexString(sink));
    }
}
