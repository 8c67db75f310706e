package dev.flyprof.workload;

import dev.flyprof.Flyprof;
import java.lang.ref.WeakReference;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * Thread churn: starts {@code rate} short-lived threads per second for {@code seconds}, each
 * doing a little CPU work and a 1 ms sleep (so that wall-clock ticks catch some of them alive
 * and others just ending), at most about {@code rate / 100} alive at once. Then it waits for the
 * agent to retire the dead threads and reports what is left.
 *
 * <p>Truth it measures itself: how many threads it started and joined, and how many of their
 * {@code java.lang.Thread} objects are still reachable after the churn and a few GCs (through
 * weak references: only something outside the application, such as a JNI global reference
 * the agent forgot to delete, keeps them). With the agent loaded it also reports the agent's
 * live-thread count ({@code threads=} of {@link Flyprof#status()}) before and after.
 *
 * <p>Stdout, flushed line by line so a test can follow it while the JVM runs: {@code phase
 * churn_start}, one {@code phase second=N started=M} per second of churn, {@code phase
 * churn_end}, then {@code result started=... joined=... retained=... agent_threads_before=...
 * agent_threads_after=... pid=...} ({@code -1} for the agent counts without the agent).
 *
 * <p>Usage: {@code ThreadChurn [seconds] [rate] [settle_seconds] [stopped]} (default 10, 1000,
 * 5). With {@code stopped} it calls {@link Flyprof#stop()} first, so the churn happens with the
 * agent loaded but not profiling.
 */
public final class ThreadChurn {
    static final String USAGE = "ThreadChurn [seconds] [rate] [settle_seconds] [stopped]";
    private static volatile long sink;

    private ThreadChurn() {
    }

    static void work(long seed) {
        long x = seed | 1;
        for (int i = 0; i < 20_000; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        sink += x;
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The agent's live-thread count from its status line, or -1. */
    static int agentThreads() {
        if (!Flyprof.isLoaded()) {
            return -1;
        }
        for (String kv : Flyprof.status().split(" ")) {
            if (kv.startsWith("threads=")) {
                return Integer.parseInt(kv.substring("threads=".length()));
            }
        }
        return -1;
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    public static void main(String[] args) throws Exception {
        double secs = Measure.seconds(args, 0, 10, USAGE);
        int rate = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        double settle = Measure.seconds(args, 2, 5, USAGE);
        boolean stopped = args.length > 3 && args[3].equals("stopped");
        int maxAlive = Math.max(4, rate / 100);
        if (stopped) {
            Flyprof.stop();
        }
        // let the JVM's own start-up threads settle before the baseline
        Thread.sleep(300);
        int before = agentThreads();
        List<WeakReference<Thread>> refs = new ArrayList<>();
        ArrayDeque<Thread> alive = new ArrayDeque<>();
        long started = 0, joined = 0;
        say("phase churn_start");
        long t0 = System.nanoTime();
        long end = t0 + Measure.ns(secs);
        long periodNs = 1_000_000_000L / rate;
        long next = t0;
        long nextSecond = t0 + 1_000_000_000L;
        int second = 0;
        for (;;) {
            long now = System.nanoTime();
            if (now >= end) {
                break;
            }
            if (now >= nextSecond) {
                second++;
                nextSecond += 1_000_000_000L;
                say("phase second=" + second + " started=" + started + " alive=" + alive.size());
            }
            if (now < next) {
                LockSupport.parkNanos(Math.min(next - now, 1_000_000L));
                continue;
            }
            // catch up after a stall, but never by more than a second's worth
            next = Math.max(next + periodNs, now - 1_000_000_000L);
            while (alive.size() >= maxAlive) {
                alive.poll().join();
                joined++;
            }
            final long seed = started;
            Thread t = new Thread(() -> work(seed), "churn-" + started);
            t.start();
            started++;
            alive.add(t);
            refs.add(new WeakReference<>(t));
        }
        while (!alive.isEmpty()) {
            alive.poll().join();
            joined++;
        }
        say("phase churn_end");
        Thread.sleep((long) (settle * 1000));
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        long retained = 0;
        for (WeakReference<Thread> r : refs) {
            if (r.get() != null) {
                retained++;
            }
        }
        int after = agentThreads();
        Measure.result("started", started, "joined", joined, "retained", retained,
                "agent_threads_before", before, "agent_threads_after", after,
                "churn_ns", System.nanoTime() - t0, "pid", ProcessHandle.current().pid());
    }
}
