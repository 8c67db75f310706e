package dev.flyprof.workload;

import dev.flyprof.Events;
import java.util.Arrays;

/**
 * Logs events through {@link Events} in patterns whose truth is known, for the events tests.
 *
 * <p>Usage: {@code EventsLog MODE ARGS}, MODE one of
 * <ul>
 *   <li>{@code threads N ITER SPIN_NS}: N threads {@code ev-worker-K} each run ITER iterations
 *       of {@code log(1); spin SPIN_NS; log(2, text(K, i))}, measuring each spin with
 *       {@link System#nanoTime()}; then prints per thread {@code spin thread=NAME iterations=ITER
 *       median_ns=M mean_ns=A} and a {@code result events=TOTAL} line;</li>
 *   <li>{@code burst COUNT}: a thread {@code ev-burst} logs {@code log(i)} for i = 0 ..
 *       COUNT-1 as fast as it can (far faster than a small buffer drains);</li>
 *   <li>{@code flood N ITER [GO_FILE]}: N threads {@code ev-flood-K} each log {@code log(i)}
 *       (even i) and {@code log(i, "One two three four")} (odd i) for i = 0 .. ITER-1 as fast as
 *       they can, all at once (they start together), far faster than the writer drains. With
 *       GO_FILE the threads first wait until that file exists (the test creates it once
 *       {@code flyprof start} has returned: the API is bound at the attach, a little before the
 *       session records events), and the JVM prints {@code flood done} and keeps running until
 *       it is killed;</li>
 *   <li>{@code loop}: a thread {@code ev-loop} logs {@code log(i)} (even i) and
 *       {@code log(i, "loop " + i)} (odd i) for i = 0, 1, 2, ... with a 1 ms sleep every 200
 *       events, until the JVM is killed (for attach);</li>
 *   <li>{@code noagent}: calls every method, strings null, empty and long included, and prints
 *       {@code result bound=B ok} unless something threw.</li>
 * </ul>
 * {@link #text} is the string of iteration i on worker K; the tests rebuild it the same way.
 */
public final class EventsLog {
    static final String USAGE =
            "EventsLog threads N ITER SPIN_NS | burst COUNT | flood N ITER [GO_FILE] | loop "
            + "| noagent";
    static final String[] SUFFIX = {
        "One two three four", "\u00fcn\u00efc\u00f8d\u00e9", "\u20ac \u65e5\u672c\u8a9e",
        "clef \ud834\udd1e end", "nul\u0000byte",
    };
    private static volatile long sink;

    private EventsLog() {
    }

    /**
     * The string logged at iteration i by worker k. Every 1000th iteration it is 70 characters
     * long with a surrogate pair at characters 62-63, so the truncation to 63 cuts the pair.
     */
    static String text(int k, int i) {
        String base = "T" + k + "#" + i + " ";
        if (i % 1000 == 999) {
            StringBuilder sb = new StringBuilder(base);
            while (sb.length() < 62) {
                sb.append('x');
            }
            return sb.append("\ud834\udd1e tail").toString();
        }
        return base + SUFFIX[i % SUFFIX.length];
    }

    static void worker(int k, int iters, long spinNs, long[] spins) {
        for (int i = 0; i < iters; i++) {
            String s = text(k, i);
            Events.log(1);
            long t0 = System.nanoTime();
            long t1;
            do {
                t1 = System.nanoTime();
            } while (t1 - t0 < spinNs);
            Events.log(2, s);
            spins[i] = t1 - t0;
        }
    }

    static void threads(int n, int iters, long spinNs) throws InterruptedException {
        Thread[] ts = new Thread[n];
        long[][] spins = new long[n][iters];
        for (int k = 0; k < n; k++) {
            final int kk = k;
            ts[k] = new Thread(() -> worker(kk, iters, spinNs, spins[kk]), "ev-worker-" + k);
        }
        for (Thread t : ts) {
            t.start();
        }
        for (Thread t : ts) {
            t.join();
        }
        for (int k = 0; k < n; k++) {
            long[] s = spins[k].clone();
            Arrays.sort(s);
            long sum = 0;
            for (long v : s) {
                sum += v;
            }
            System.out.println("spin thread=ev-worker-" + k + " iterations=" + iters
                    + " median_ns=" + s[s.length / 2] + " mean_ns=" + sum / s.length);
        }
        System.out.println("result events=" + (2L * n * iters));
    }

    static void burst(int count) throws InterruptedException {
        Thread t = new Thread(() -> {
            for (int i = 0; i < count; i++) {
                Events.log(i);
            }
        }, "ev-burst");
        t.start();
        t.join();
        System.out.println("result events=" + count);
    }

    static void flood(int n, int iters, String goFile) throws Exception {
        while (goFile != null && !new java.io.File(goFile).exists()) {
            Thread.sleep(10);
        }
        java.util.concurrent.CyclicBarrier go = new java.util.concurrent.CyclicBarrier(n);
        Thread[] ts = new Thread[n];
        for (int k = 0; k < n; k++) {
            ts[k] = new Thread(() -> {
                try {
                    go.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int i = 0; i < iters; i++) {
                    if ((i & 1) == 0) {
                        Events.log(i);
                    } else {
                        Events.log(i, "One two three four");
                    }
                }
            }, "ev-flood-" + k);
            ts[k].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        System.out.println("result events=" + ((long) n * iters));
        if (goFile != null) {
            System.out.println("flood done");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    static void loop() throws InterruptedException {
        Thread t = new Thread(() -> {
            try {
                for (int i = 0;; i++) {
                    if ((i & 1) == 0) {
                        Events.log(i);
                    } else {
                        Events.log(i, "loop " + i);
                    }
                    if (i % 200 == 199) {
                        Thread.sleep(1);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "ev-loop");
        t.setDaemon(true);
        t.start();
        t.join();
    }

    static void noagent() {
        StringBuilder longer = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            longer.append('y');
        }
        for (int i = 0; i < 100_000; i++) {
            Events.log(i);
            Events.log(i, null);
            Events.log(i, "");
            Events.log(i, "One two three four");
            Events.log(i, longer.toString());
        }
        sink += Events.isBound() ? 1 : 0;
        System.out.println("result bound=" + Events.isBound() + " ok");
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        switch (mode) {
            case "threads":
                threads(Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                        Long.parseLong(args[3]));
                break;
            case "burst":
                burst(Integer.parseInt(args[1]));
                break;
            case "flood":
                flood(Integer.parseInt(args[1]), Integer.parseInt(args[2]),
                        args.length > 3 ? args[3] : null);
                break;
            case "loop":
                loop();
                break;
            case "noagent":
                noagent();
                break;
            default:
                System.err.println("usage: " + USAGE);
                System.exit(2);
        }
    }
}
