package dev.flyprof.workload;

import dev.flyprof.Flyprof;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Everything that stresses the agent at once, for the torture test: thread churn (about
 * {@code rate} short-lived threads a second), class-unloading churn (UnloadChurn's copies of
 * UnloadHot, unloaded by System.gc()), a thread in native code with every signal blocked
 * (TortureBlocker, the JNI library at {@code jni_lib}), and profiling sessions stopped and
 * started through the Java API every {@code cycle_ms} ({@code Flyprof.start(options +
 * ",file=DIR/cycle-N.fpl")}).
 *
 * <p>Protocol on stdin/stdout, so that a test can read /proc at fixed points: the workload
 * stops the session the agent started with ({@code Flyprof.stop()}), prints {@code phase
 * baseline} and waits for a line on stdin; runs the torture for {@code seconds}; stops every
 * churn, joins every thread but the blocker, stops the last session, prints {@code phase end}
 * and waits for a line on stdin (the blocker still blocked in native code, its signals still
 * pending); then ends the blocker and prints {@code result ...}: threads started, copies
 * defined and classes unloaded, sessions, Java API errors.
 *
 * <p>Usage: {@code Torture seconds rate cycle_ms jni_lib dir options}.
 */
public final class Torture {
    static final String USAGE = "Torture seconds rate cycle_ms jni_lib dir options";
    private static volatile boolean stop;
    private static volatile long sink;

    private Torture() {
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static void churn(int rate, AtomicLong started) throws InterruptedException {
        ArrayDeque<Thread> alive = new ArrayDeque<>();
        long periodNs = 1_000_000_000L / rate;
        long next = System.nanoTime();
        while (!stop) {
            long now = System.nanoTime();
            if (now < next) {
                LockSupport.parkNanos(Math.min(next - now, 1_000_000L));
                continue;
            }
            next = Math.max(next + periodNs, now - 1_000_000_000L);
            while (alive.size() >= 64) {
                alive.poll().join();
            }
            final long seed = started.getAndIncrement();
            Thread t = new Thread(() -> {
                long x = seed | 1;
                for (int i = 0; i < 20_000; i++) {
                    x ^= x << 13;
                    x ^= x >>> 7;
                    x ^= x << 17;
                }
                sink += x;
                LockSupport.parkNanos(1_000_000L);
            }, "torture-churn-" + seed);
            t.start();
            alive.add(t);
        }
        for (Thread t : alive) {
            t.join();
        }
    }

    static void unload(AtomicLong copies) throws Exception {
        byte[] bytes = UnloadChurn.hotBytes();
        while (!stop) {
            UnloadChurn.iterate(bytes);
            if (copies.incrementAndGet() % 5 == 0) {
                System.gc();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        double secs = Double.parseDouble(args[0]);
        int rate = Integer.parseInt(args[1]);
        long cycleMs = Long.parseLong(args[2]);
        String lib = args[3];
        String dir = args[4];
        String options = args[5];
        System.setProperty("unloadhot.ns", "5000000");
        TortureBlocker.load(lib);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
                StandardCharsets.UTF_8));
        long unloaded0 = java.lang.management.ManagementFactory.getClassLoadingMXBean()
                .getUnloadedClassCount();

        Flyprof.stop();
        say("phase baseline");
        in.readLine();

        AtomicLong started = new AtomicLong();
        AtomicLong copies = new AtomicLong();
        AtomicLong apiErrors = new AtomicLong();
        long[] blockerRounds = new long[1];
        Thread blocker = new Thread(() -> blockerRounds[0] = TortureBlocker.blockAndSpin(
                Long.MAX_VALUE / 4), "torture-blocker");
        blocker.setDaemon(true);
        blocker.start();
        Thread churner = new Thread(() -> {
            try {
                churn(rate, started);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "torture-churn");
        Thread unloader = new Thread(() -> {
            try {
                unload(copies);
            } catch (Exception e) {
                e.printStackTrace();
            }
        }, "torture-unload");
        churner.start();
        unloader.start();

        long end = System.nanoTime() + (long) (secs * 1e9);
        int sessions = 0;
        while (System.nanoTime() < end) {
            try {
                Flyprof.start(options + ",file=" + dir + "/cycle-" + sessions + ".fpl");
                sessions++;
            } catch (RuntimeException e) {
                apiErrors.incrementAndGet();
                say("api error start: " + e.getMessage());
            }
            Thread.sleep(Math.min(cycleMs, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
            try {
                Flyprof.stop();
            } catch (RuntimeException e) {
                apiErrors.incrementAndGet();
                say("api error stop: " + e.getMessage());
            }
        }
        stop = true;
        churner.join();
        unloader.join();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        long unloaded = java.lang.management.ManagementFactory.getClassLoadingMXBean()
                .getUnloadedClassCount() - unloaded0;
        say("phase end sessions=" + sessions);
        in.readLine();
        TortureBlocker.stop();
        blocker.join();
        Measure.result("started", started.get(), "copies", copies.get(), "unloaded", unloaded,
                "sessions", sessions, "api_errors", apiErrors.get(), "blocker_rounds",
                blockerRounds[0]);
    }
}
