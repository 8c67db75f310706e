package dev.flyprof.workload;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * N threads ({@code cpu-1} .. {@code cpu-N}) of mixed, allocating, CPU-bound work: SHA-256
 * over buffers, sorting arrays, building and hashing strings, counting words in a map. Nothing
 * sleeps. Used where a profile of ordinary code is wanted (failure markers, overhead benchmark).
 *
 * <p>Usage: {@code CpuBound [seconds] [threads] [cpu]} (default 4 s, 2 threads). With {@code cpu},
 * each worker runs until it has used that many seconds of its own CPU (or 20 times as long in
 * wall time has passed): a test that needs a number of samples gets them on a loaded machine
 * too. Prints
 * {@code result} with the sum of the workers' CPU times, the process CPU time and the number of
 * rounds done.
 */
public final class CpuBound {
    static final String USAGE = "CpuBound [seconds] [threads] [cpu]";

    private CpuBound() {
    }

    /** SHA-256 of a buffer, folded to a long. */
    static long hash(MessageDigest md, byte[] buf, SplittableRandom rnd) {
        for (int i = 0; i < buf.length; i += 8) {
            buf[i] = (byte) rnd.nextInt();
        }
        byte[] d = md.digest(buf);
        long x = 0;
        for (byte b : d) {
            x = x * 31 + b;
        }
        return x;
    }

    /** Sorts a fresh array of random ints; returns its median. */
    static long sort(SplittableRandom rnd) {
        int[] a = new int[20_000];
        for (int i = 0; i < a.length; i++) {
            a[i] = rnd.nextInt();
        }
        Arrays.sort(a);
        return a[a.length / 2];
    }

    /** Builds a text of numbers and words; returns its hash code. */
    static long text(SplittableRandom rnd) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 2_000; i++) {
            sb.append("item").append(rnd.nextInt(1000)).append(i % 7 == 0 ? '\n' : ' ');
        }
        return sb.toString().hashCode();
    }

    /** Counts the words of a text in a map; returns the number of distinct words. */
    static long words(SplittableRandom rnd) {
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 5_000; i++) {
            counts.merge("w" + rnd.nextInt(500), 1, Integer::sum);
        }
        return counts.size();
    }

    /**
     * One worker: rounds of the four kinds of work until the deadline (and, when cpuBudgetNs is
     * above 0, until the thread has used that much CPU). Returns {cpu, sink, rounds}.
     */
    static long[] work(long deadline, long cpuBudgetNs, long seed) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        byte[] buf = "flyprof".repeat(2_000).getBytes(StandardCharsets.UTF_8);
        long x = 0;
        long rounds = 0;
        do {
            x += hash(md, buf, rnd);
            x ^= sort(rnd);
            x += text(rnd);
            x ^= words(rnd);
            rounds++;
        } while (System.nanoTime() < deadline
                && (cpuBudgetNs <= 0 || Measure.threadCpuNs() < cpuBudgetNs));
        return new long[] {Measure.threadCpuNs(), x, rounds};
    }

    public static void main(String[] args) throws InterruptedException {
        long durationNs = Measure.ns(Measure.seconds(args, 0, 4, USAGE));
        int n = Measure.count(args, 1, 2, USAGE);
        boolean cpuMode = args.length > 2 && args[2].equals("cpu");
        if (args.length > 2 && !cpuMode) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        Measure.init();
        long start = System.nanoTime();
        long deadline = System.nanoTime() + (cpuMode ? 20 * durationNs : durationNs);
        long budget = cpuMode ? durationNs : 0;
        long[][] out = new long[n][];
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            int k = i;
            threads[i] = new Thread(() -> out[k] = work(deadline, budget, 42 + k), "cpu-" + (i + 1));
            threads[i].start();
        }
        long cpu = 0;
        long sink = 0;
        long rounds = 0;
        for (int i = 0; i < n; i++) {
            threads[i].join();
            cpu += out[i][0];
            sink ^= out[i][1];
            rounds += out[i][2];
        }
        Measure.result("workload", "CpuBound", "threads", n,
                "workers_cpu_ns", cpu, "main_cpu_ns", Measure.threadCpuNs(),
                "process_cpu_ns", Measure.processCpuNs(), "rounds", rounds,
                "wall_ns", System.nanoTime() - start,
                "checksum", Long.toHexString(sink));
    }
}
