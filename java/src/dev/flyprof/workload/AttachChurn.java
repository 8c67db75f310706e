package dev.flyprof.workload;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Threads that start and end all the time, for an agent attaching in their midst: {@code
 * keep} threads ({@code ac-N}) are alive at any moment, each living 1 to 20 ms (a little CPU
 * work, then a sleep), each replaced by a new one as it ends. An attaching agent adopts the
 * threads it finds running; many of them end while it does.
 *
 * <p>When the file {@code quiet_file} appears the churn stops: every churn thread is joined,
 * then {@code phase quiet live=N} is printed (N: the JVM's live threads, as
 * Thread.getAllStackTraces sees them), and the JVM idles (a thread {@code ac-idle} parked in
 * sleep, the main thread waiting) until it has run {@code seconds} in all.
 *
 * <p>The control thread is named {@code ac-control}. Usage: {@code AttachChurn [seconds] [keep]
 * [quiet_file]} (default 60, 100, no quiet file: churn until the end). Stdout: {@code result
 * started=... live=...}.
 */
public final class AttachChurn {
    static final String USAGE = "AttachChurn [seconds] [keep] [quiet_file]";
    private static volatile long sink;

    private AttachChurn() {
    }

    static void life() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long x = r.nextLong() | 1;
        for (int i = 0; i < 2_000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        sink += x;
        try {
            Thread.sleep(1 + r.nextInt(20));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public static void main(String[] args) throws Exception {
        double secs = Measure.seconds(args, 0, 60, USAGE);
        int keep = Measure.count(args, 1, 100, USAGE);
        Path quiet = args.length > 2 ? Paths.get(args[2]) : null;
        long end = System.nanoTime() + Measure.ns(secs);
        long[] started = new long[1];
        Thread control = new Thread(() -> {
            List<Thread> alive = new ArrayList<>();
            while (System.nanoTime() < end && (quiet == null || !Files.exists(quiet))) {
                alive.removeIf(t -> !t.isAlive());
                while (alive.size() < keep) {
                    Thread t = new Thread(AttachChurn::life, "ac-" + started[0]++);
                    t.start();
                    alive.add(t);
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
            for (Thread t : alive) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "ac-control");
        control.start();
        control.join();
        int live = Thread.getAllStackTraces().size();
        System.out.println("phase quiet live=" + live);
        System.out.flush();
        Thread idle = new Thread(() -> {
            long left = end - System.nanoTime();
            if (left > 0) {
                try {
                    Thread.sleep(left / 1_000_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }, "ac-idle");
        idle.start();
        idle.join();
        Measure.result("started", started[0], "live", live);
    }
}
