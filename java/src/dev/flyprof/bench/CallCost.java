package dev.flyprof.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * What the per-call cost benchmarks (FilterCost, ContextCost, EventCost) share: warming each
 * operation's loop up, timing it in rounds, and printing {@code round op=OP i=I ns_per_call=X}
 * lines and a {@code result} line with the median per operation. Each benchmark keeps its own
 * loop methods (one per operation, so that the JIT compiles each on its own) behind a
 * {@link Timer}.
 */
final class CallCost {
    private CallCost() {
    }

    /** Runs operation op's loop over calls calls and returns nanoseconds per call. */
    interface Timer {
        double time(String op, long calls);
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    static String fmt(double ns) {
        return String.format(Locale.ROOT, "%.3f", ns);
    }

    /** Sleeps pauseMs first when it is above 0 (a benchmark that paces its loops). */
    private static void pause(long pauseMs) {
        if (pauseMs <= 0) {
            return;
        }
        try {
            Thread.sleep(pauseMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs every operation's loop times times over calls calls: until C2 has compiled them. */
    static void warm(Timer t, String[] ops, int times, long calls, long pauseMs) {
        for (int w = 0; w < times; w++) {
            for (String op : ops) {
                pause(pauseMs);
                t.time(op, calls);
            }
        }
    }

    /** Times every operation rounds times, printing a round line each; ns[op][round]. */
    static double[][] rounds(Timer t, String[] ops, int rounds, long calls, long pauseMs) {
        double[][] ns = new double[ops.length][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int o = 0; o < ops.length; o++) {
                pause(pauseMs);
                ns[o][r] = t.time(ops[o], calls);
                System.out.println("round op=" + ops[o] + " i=" + r + " ns_per_call="
                        + fmt(ns[o][r]));
            }
        }
        return ns;
    }

    /** Prints the result line: head, then OP_ns=MEDIAN per operation. */
    static void result(String head, String[] ops, double[][] ns) {
        StringBuilder sb = new StringBuilder(head);
        for (int o = 0; o < ops.length; o++) {
            sb.append(' ').append(ops[o]).append("_ns=").append(fmt(median(ns[o])));
        }
        System.out.println(sb);
        System.out.flush();
    }
}
