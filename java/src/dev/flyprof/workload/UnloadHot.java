package dev.flyprof.workload;

/**
 * The class {@link UnloadChurn} defines again and again, each time in a throwaway class loader
 * of its own, runs for a while and lets go, so that it is unloaded: every copy's methods get
 * jmethodIDs that go stale when that copy is unloaded. {@code run} spins in {@link #spin} for
 * the nanoseconds set in the system property {@code unloadhot.ns}.
 */
public final class UnloadHot implements Runnable {
    private static volatile long sink;

    static long spin(long ns) {
        long end = System.nanoTime() + ns;
        long x = 1;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        }
        return x;
    }

    @Override
    public void run() {
        sink += spin(Long.getLong("unloadhot.ns", 20_000_000L));
    }
}
