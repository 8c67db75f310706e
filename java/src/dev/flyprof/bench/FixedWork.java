package dev.flyprof.bench;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fixed amount of multi-threaded CPU work for the overhead benchmark: {@code units} units of
 * mixed, allocating work (SHA-256 over a buffer, sorting an array, building a string, counting
 * words in a map), shared by {@code threads} worker threads that claim units one at a time from
 * a common counter, so the total work is the same in every run and the threads finish together
 * however the scheduler treats them. The profiler's cost then shows as extra CPU time and wall
 * time, not as less work done. Each unit runs below a chain of {@code depth} recursive calls,
 * made once per unit so that the JIT compiles them as it would a server's dispatch frames, and
 * the stack walker sees stacks of a realistic depth. Nothing sleeps.
 *
 * <p>Usage: {@code FixedWork units [threads] [depth]} (default 2 threads, depth 32). Prints
 * {@code result} with the units done, the wall time of the work phase (from the first worker's
 * start to the last one's end), the process CPU time and a checksum that depends on every unit
 * (so the work cannot be optimized away, and differs if a unit went missing).
 */
public final class FixedWork {
    static final String USAGE = "FixedWork units [threads] [depth]";

    private FixedWork() {
    }

    /** One unit of work; its result depends on the unit number only. */
    static long unit(long n) {
        SplittableRandom rnd = new SplittableRandom(0x5eed + n);
        long x = hash(rnd);
        x ^= sort(rnd);
        x += text(rnd);
        x ^= words(rnd);
        return x;
    }

    /** SHA-256 of a buffer with random bytes sprinkled in, folded to a long. */
    static long hash(SplittableRandom rnd) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buf = new byte[8_192];
        for (int i = 0; i < buf.length; i += 4) {
            buf[i] = (byte) rnd.nextInt();
        }
        long x = 0;
        for (byte b : md.digest(buf)) {
            x = x * 31 + b;
        }
        return x;
    }

    /** Sorts a fresh array of random ints; returns its median. */
    static long sort(SplittableRandom rnd) {
        int[] a = new int[8_000];
        for (int i = 0; i < a.length; i++) {
            a[i] = rnd.nextInt();
        }
        Arrays.sort(a);
        return a[a.length / 2];
    }

    /** Builds a text of numbers and words; returns its hash code. */
    static long text(SplittableRandom rnd) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 1_000; i++) {
            sb.append("item").append(rnd.nextInt(1000)).append(i % 7 == 0 ? '\n' : ' ');
        }
        return sb.toString().hashCode();
    }

    /** Counts words in a map; returns the number of distinct words plus a count. */
    static long words(SplittableRandom rnd) {
        Map<String, Integer> counts = new HashMap<>();
        for (int i = 0; i < 2_000; i++) {
            counts.merge("w" + rnd.nextInt(300), 1, Integer::sum);
        }
        return counts.size() * 1_000L + counts.getOrDefault("w7", 0);
    }

    /** Runs unit n below depth more frames of this method. */
    static long descend(int depth, long n) {
        if (depth > 0) {
            return descend(depth - 1, n) + 1;
        }
        return unit(n);
    }

    /** One worker: claims units from the shared counter until none is left. */
    static long worker(int depth, AtomicLong next, long units) {
        long x = 0;
        for (long n = next.getAndIncrement(); n < units; n = next.getAndIncrement()) {
            x += descend(depth, n) - depth;
        }
        return x;
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1 || args.length > 3) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        long units = Long.parseLong(args[0]);
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int depth = args.length > 2 ? Integer.parseInt(args[2]) : 32;
        if (units < 1 || n < 1 || n > 1024 || depth < 0 || depth > 2000) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        AtomicLong next = new AtomicLong();
        long[] sums = new long[n];
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            int k = i;
            threads[i] = new Thread(() -> sums[k] = worker(depth, next, units), "work-" + (i + 1));
        }
        long t0 = System.nanoTime();
        for (Thread t : threads) {
            t.start();
        }
        long sum = 0;
        for (int i = 0; i < n; i++) {
            threads[i].join();
            sum += sums[i];
        }
        long workNs = System.nanoTime() - t0;
        long cpu = -1;
        java.lang.management.OperatingSystemMXBean os =
                ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            cpu = ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        System.out.println("result units=" + units + " threads=" + n + " depth=" + depth
                + " work_ns=" + workNs + " process_cpu_ns=" + cpu
                + " checksum=" + Long.toHexString(sum));
        System.out.flush();
    }
}
