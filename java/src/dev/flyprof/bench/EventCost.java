package dev.flyprof.bench;

import dev.flyprof.Events;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * The cost of {@link Events#log(int)} and {@link Events#log(int, String)} per call, and the
 * event rate the agent's writer follows, without JMH.
 *
 * <p>{@code EventCost cost CALLS ROUNDS PAUSE_MS [FLOOR_LIB]}: each operation runs in its own
 * loop method, warmed up (100 rounds) until the JIT has compiled it, then timed over CALLS calls
 * with {@link System#nanoTime()}, ROUNDS times; before each loop the thread sleeps PAUSE_MS so
 * the writer drains the buffer (a buffer that fills would time the cheaper drop path instead:
 * CALLS must fit in a thread's buffer, and the log's drop count says whether they did).
 * Operations: {@code int} ({@code log(i)}), {@code str} ({@code log(i, s)} with an 18-character
 * string, "One two three four" as in the seed), and, when FLOOR_LIB (a JNI library with an
 * empty {@code static native void empty(int)} for this class) is given, {@code floor}: the same
 * loop around the empty native, the JNI floor. Prints {@code round op=OP i=I ns_per_call=X}
 * lines and a {@code result} line with the median per operation and whether the API was bound.
 *
 * <p>{@code EventCost rate THREADS EVENTS_PER_SEC_PER_THREAD SECONDS}: THREADS threads
 * {@code ev-rate-K} each log at the given rate for SECONDS (half the events with the 18-character
 * string), in batches of one millisecond's worth on an absolute schedule (a rate of 0: they
 * log nothing and sleep for SECONDS, the writer's idle cost); prints
 * {@code result events=N seconds=S} with the events actually logged and the time it took.
 */
public final class EventCost {
    static final String USAGE = "EventCost cost CALLS ROUNDS PAUSE_MS [FLOOR_LIB] | "
            + "rate THREADS EVENTS_PER_SEC_PER_THREAD SECONDS";
    static final String S18 = "One two three four";

    private EventCost() {
    }

    static native void empty(int n);

    static void intLoop(long calls) {
        for (long i = 0; i < calls; i++) {
            Events.log((int) i);
        }
    }

    static void strLoop(long calls) {
        for (long i = 0; i < calls; i++) {
            Events.log((int) i, S18);
        }
    }

    static void floorLoop(long calls) {
        for (long i = 0; i < calls; i++) {
            empty((int) i);
        }
    }

    static double time(String op, long calls) {
        long t0 = System.nanoTime();
        switch (op) {
            case "int":
                intLoop(calls);
                break;
            case "str":
                strLoop(calls);
                break;
            default:
                floorLoop(calls);
                break;
        }
        return (double) (System.nanoTime() - t0) / calls;
    }

    static void cost(long calls, int rounds, long pauseMs, String floorLib) {
        String[] ops = floorLib != null ? new String[] {"int", "str", "floor"}
                : new String[] {"int", "str"};
        if (floorLib != null) {
            System.load(floorLib);
        }
        // warm-up: the timed loop itself, paced the same way, until C2 has compiled it
        CallCost.warm(EventCost::time, ops, 100, calls, pauseMs);
        double[][] ns = CallCost.rounds(EventCost::time, ops, rounds, calls, pauseMs);
        try {
            Thread.sleep(pauseMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        CallCost.result("result calls=" + calls + " rounds=" + rounds + " bound="
                + Events.isBound(), ops, ns);
    }

    static long rateThread(long perSec, double seconds) {
        if (perSec == 0) {
            // idle: the API is bound, nobody logs (what the writer costs when nothing happens)
            LockSupport.parkNanos((long) (seconds * 1e9));
            return 0;
        }
        long batch = Math.max(1, perSec / 1000);
        long start = System.nanoTime();
        long batches = (long) (seconds * 1000);
        long n = 0;
        for (long b = 0; b < batches; b++) {
            for (long i = 0; i < batch; i++, n++) {
                if ((n & 1) == 0) {
                    Events.log((int) n);
                } else {
                    Events.log((int) n, S18);
                }
            }
            long next = start + (b + 1) * 1_000_000L;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
        }
        return n;
    }

    static void rate(int threads, long perSec, double seconds) throws InterruptedException {
        Thread[] ts = new Thread[threads];
        long[] counts = new long[threads];
        long t0 = System.nanoTime();
        for (int k = 0; k < threads; k++) {
            final int kk = k;
            ts[k] = new Thread(() -> counts[kk] = rateThread(perSec, seconds), "ev-rate-" + k);
            ts[k].start();
        }
        long total = 0;
        for (int k = 0; k < threads; k++) {
            ts[k].join();
            total += counts[k];
        }
        double took = (System.nanoTime() - t0) / 1e9;
        Thread.sleep(200);
        System.out.println("result events=" + total + " seconds="
                + String.format(Locale.ROOT, "%.3f", took) + " bound=" + Events.isBound());
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "";
        if (mode.equals("cost") && args.length >= 4) {
            cost(Long.parseLong(args[1]), Integer.parseInt(args[2]), Long.parseLong(args[3]),
                    args.length > 4 ? args[4] : null);
        } else if (mode.equals("rate") && args.length == 4) {
            rate(Integer.parseInt(args[1]), Long.parseLong(args[2]), Double.parseDouble(args[3]));
        } else {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        System.out.flush();
    }
}
