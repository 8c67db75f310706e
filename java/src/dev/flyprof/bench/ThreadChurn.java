package dev.flyprof.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Semaphore;

/**
 * What profiling costs a process that starts and ends threads all the time: the agent's
 * ThreadStart and ThreadEnd work (the thread registry, the per-thread CPU timer) runs on
 * every one. Starts {@code threads} short threads per round, at most {@code concurrent}
 * alive at once, for {@code rounds} rounds after one warm-up round, and prints
 * {@code round i=I threads_per_s=X max_start_us=Y} per round (Y: the slowest
 * {@code Thread.start()} of the round) and a {@code result} line with the medians.
 *
 * <p>Usage: {@code ThreadChurn THREADS CONCURRENT ROUNDS}
 */
public final class ThreadChurn {
    private static volatile long sink;

    private ThreadChurn() {
    }

    /** One round: returns {threads per second, slowest start in microseconds}. */
    private static double[] round(int threads, int concurrent) throws InterruptedException {
        Semaphore alive = new Semaphore(concurrent);
        long worst = 0;
        long t0 = System.nanoTime();
        for (int i = 0; i < threads; i++) {
            alive.acquire();
            final int id = i;
            Thread t = new Thread(() -> {
                try {
                    long x = 0;
                    for (int k = 0; k < 200; k++) {
                        x += (long) k * id;
                    }
                    sink = x;
                } finally {
                    alive.release();
                }
            }, "churn-" + i);
            long s = System.nanoTime();
            t.start();
            worst = Math.max(worst, System.nanoTime() - s);
        }
        alive.acquire(concurrent);
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new double[] {threads / seconds, worst / 1e3};
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 3) {
            System.err.println("usage: ThreadChurn THREADS CONCURRENT ROUNDS");
            System.exit(2);
        }
        int threads = Integer.parseInt(args[0]);
        int concurrent = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        round(threads / 4 + 1, concurrent); // warm-up: the JIT, the agent's tables
        double[] rate = new double[rounds];
        double[] worst = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            double[] r = round(threads, concurrent);
            rate[i] = r[0];
            worst[i] = r[1];
            System.out.printf(Locale.ROOT, "round i=%d threads_per_s=%.0f max_start_us=%.0f%n",
                              i, r[0], r[1]);
        }
        System.out.printf(Locale.ROOT, "result threads_per_s=%.0f max_start_us=%.0f%n",
                          median(rate), median(worst));
    }
}
