package dev.flyprof.workload;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.concurrent.CountDownLatch;

/**
 * N threads ({@code spin-1} .. {@code spin-N}) that only compute: integer arithmetic in
 * registers, no allocation, no locks, no sleeping, so a thread is either on a CPU or waiting
 * for one. Run with more threads than CPUs (taskset), each waits for a core for the share
 * 1 - CPUs / threads of its running time: the truth a CPU-starvation figure is checked against.
 * Each thread also reports what the kernel says it did while it spun, from
 * /proc/thread-self/schedstat (time on a CPU, time waiting in the run queue), and how long it
 * spun by the clock: on a virtual machine the hypervisor can take a CPU from a running thread
 * (steal), time that is neither on a CPU nor in the run queue for the guest's kernel.
 *
 * <p>Usage: {@code Starve [seconds] [threads]} (default 4 s, 8 threads). Prints
 * {@code spin-I TID} per thread, then {@code ready}, once every thread runs; at the end
 * {@code sched spin-I TID ONCPU_NS WAIT_NS ELAPSED_NS} per thread (from its first spin to its
 * last), and {@code result}.
 */
public final class Starve {
    static final String USAGE = "Starve [seconds] [threads]";

    private Starve() {
    }

    /** The first fields of a /proc/thread-self file, split at blanks; null when unreadable. */
    static String[] procFields(String leaf) {
        try {
            String s = new String(Files.readAllBytes(Paths.get("/proc/thread-self/" + leaf)),
                    StandardCharsets.US_ASCII);
            return s.trim().split("\\s+");
        } catch (IOException e) {
            return null;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        long[] tids = new long[n];
        String[] sched = new String[n];
        long[] sink = new long[n];
        CountDownLatch started = new CountDownLatch(n);
        CountDownLatch go = new CountDownLatch(1);
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            final int k = i;
            ts[i] = new Thread(() -> {
                String[] st = procFields("stat");
                tids[k] = st != null ? Long.parseLong(st[0]) : -1;
                started.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                String[] s0 = procFields("schedstat");
                long t0 = System.nanoTime();
                long end = t0 + (long) (seconds * 1e9);
                long x = k + 1;
                while (System.nanoTime() < end) {
                    for (int j = 0; j < 100_000; j++) {
                        x = x * 6364136223846793005L + 1442695040888963407L;
                        x ^= x >>> 29;
                    }
                }
                sink[k] = x;
                String[] s1 = procFields("schedstat");
                long t1 = System.nanoTime();
                sched[k] = s0 != null && s0.length >= 2 && s1 != null && s1.length >= 2
                        ? (Long.parseLong(s1[0]) - Long.parseLong(s0[0])) + " "
                                + (Long.parseLong(s1[1]) - Long.parseLong(s0[1])) + " " + (t1 - t0)
                        : "-1 -1 -1";
            }, "spin-" + (i + 1));
            ts[i].start();
        }
        started.await();
        for (int i = 0; i < n; i++) {
            System.out.println("spin-" + (i + 1) + " " + tids[i]);
        }
        System.out.println("ready");
        System.out.flush();
        go.countDown();
        long xs = 0;
        for (int i = 0; i < n; i++) {
            ts[i].join();
            xs ^= sink[i];
        }
        for (int i = 0; i < n; i++) {
            System.out.println("sched spin-" + (i + 1) + " " + tids[i] + " " + sched[i]);
        }
        System.out.println("result threads=" + n + " x=" + (xs & 1));
    }
}
