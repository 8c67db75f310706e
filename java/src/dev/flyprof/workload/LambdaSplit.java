package dev.flyprof.workload;

import java.util.function.IntSupplier;
import java.util.function.LongUnaryOperator;

/**
 * One worker thread ({@code split-worker}) spends its CPU in three lambdas in the ratio 1:2:3,
 * as {@link Split123} does in three methods: the lambdas call {@link Split123#block} once,
 * twice and three times, in rounds of long blocks, so a CPU-time sampler finds the same shares
 * in every run to within a point or so.
 *
 * <p>The JVM names each lambda's class after its defining class with a counter and (JDK 15 and
 * later) an address, e.g. {@code LambdaSplit$$Lambda$14/0x0000000800c03000}. Those parts
 * change from run to run: here on purpose, as the first argument makes the JVM spin up that
 * many other lambda classes first, which moves the counters (JDK up to 20) and the addresses.
 * Two runs with different arguments are one program profiled twice, and a diff of them should
 * show no change.
 *
 * <p>Usage: {@code LambdaSplit [extra lambdas] [seconds]} (default 1 and 3): the worker's CPU
 * time budget, as for Split123. Prints {@code result} with each lambda's measured CPU time and
 * the class name of the first one.
 */
public final class LambdaSplit {
    static final String USAGE = "LambdaSplit [extra lambdas] [seconds]";

    private LambdaSplit() {
    }

    /**
     * Defines n (up to 8) lambda classes, to move the JVM's counters: each call site gets its
     * class when it first runs, so only the cases reached define one. Returns n.
     */
    static int warmLambdas(int n) {
        int sum = 0;
        for (int i = 0; i < n && i < 8; i++) {
            IntSupplier s;
            switch (i) {
                case 0: s = () -> 1; break;
                case 1: s = () -> 1; break;
                case 2: s = () -> 1; break;
                case 3: s = () -> 1; break;
                case 4: s = () -> 1; break;
                case 5: s = () -> 1; break;
                case 6: s = () -> 1; break;
                default: s = () -> 1; break;
            }
            sum += s.getAsInt();
        }
        return sum;
    }

    /**
     * The worker: whole rounds of the three lambdas until its CPU time reaches budgetNs.
     * Returns {cpuA, cpuB, cpuC, rounds}.
     */
    static long[] work(long budgetNs, LongUnaryOperator[] units) {
        long[] r = new long[4];
        long end = Measure.threadCpuNs() + budgetNs;
        long now = 0;
        while (now < end) {
            long chunks = Math.min(1L << Math.min(r[3], 30), Split123.COARSE_CHUNKS);
            long t0 = Measure.threadCpuNs();
            units[0].applyAsLong(chunks);
            long t1 = Measure.threadCpuNs();
            units[1].applyAsLong(chunks);
            long t2 = Measure.threadCpuNs();
            units[2].applyAsLong(chunks);
            long t3 = Measure.threadCpuNs();
            r[0] += t1 - t0;
            r[1] += t2 - t1;
            r[2] += t3 - t2;
            r[3]++;
            now = t3;
        }
        return r;
    }

    public static void main(String[] args) throws InterruptedException {
        int extra = Measure.count(args, 0, 1, USAGE);
        long durationNs = Measure.ns(Measure.seconds(args, 1, 3, USAGE));
        Measure.init();
        int warmed = warmLambdas(extra);
        LongUnaryOperator[] units = {
            n -> {
                Split123.block((int) n);
                return n;
            },
            n -> {
                Split123.block((int) n);
                Split123.block((int) n);
                return n;
            },
            n -> {
                Split123.block((int) n);
                Split123.block((int) n);
                Split123.block((int) n);
                return n;
            },
        };
        long[][] out = new long[1][];
        Thread worker = new Thread(() -> out[0] = work(durationNs, units), "split-worker");
        worker.start();
        worker.join();
        long[] r = out[0];
        double all = r[0] + r[1] + r[2];
        Measure.result("workload", "LambdaSplit", "extra", warmed,
                "lambdaA_share", r[0] / all, "lambdaB_share", r[1] / all,
                "lambdaC_share", r[2] / all, "rounds", r[3],
                "lambda_class", units[0].getClass().getName());
    }
}
