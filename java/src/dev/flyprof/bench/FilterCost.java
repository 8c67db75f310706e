package dev.flyprof.bench;

import dev.flyprof.ThreadFilter;

/**
 * The cost of {@link ThreadFilter#add()} and {@link ThreadFilter#remove()} per call, without
 * JMH: each operation runs in its own loop method, which is warmed up until the JIT has compiled
 * it, then timed over {@code calls} calls with {@link System#nanoTime()}, {@code rounds} times.
 * Three loops: {@code add} alone (the bit is already set after the first call), {@code remove}
 * alone, and {@code pair}, an add followed by a remove, as a tracer does around each request
 * (reported per call, i.e. per half pair).
 *
 * <p>Usage: {@code FilterCost [calls] [rounds]} (default 100000000, 5). Prints one line
 * {@code round op=OP i=I ns_per_call=X} per round and operation, then {@code result} with the
 * median per operation and whether the agent had bound the natives ({@code marked} is true
 * only when add() really marked the thread).
 */
public final class FilterCost {
    static final String USAGE = "FilterCost [calls] [rounds]";

    private FilterCost() {
    }

    static void addLoop(long calls) {
        for (long i = 0; i < calls; i++) {
            ThreadFilter.add();
        }
    }

    static void removeLoop(long calls) {
        for (long i = 0; i < calls; i++) {
            ThreadFilter.remove();
        }
    }

    static void pairLoop(long pairs) {
        for (long i = 0; i < pairs; i++) {
            ThreadFilter.add();
            ThreadFilter.remove();
        }
    }

    /** Runs one loop and returns nanoseconds per call. */
    static double time(String op, long calls) {
        long t0 = System.nanoTime();
        switch (op) {
            case "add":
                addLoop(calls);
                break;
            case "remove":
                removeLoop(calls);
                break;
            default:
                pairLoop(calls / 2);
                break;
        }
        return (double) (System.nanoTime() - t0) / calls;
    }

    public static void main(String[] args) {
        long calls = args.length > 0 ? Long.parseLong(args[0]) : 100_000_000L;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        if (calls < 2 || rounds < 1) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        String[] ops = {"add", "remove", "pair"};
        // warm-up: enough calls of every loop for C2 to compile it as a whole method
        CallCost.warm(FilterCost::time, ops, 15, Math.min(calls, 2_000_000L), 0);
        ThreadFilter.add();
        boolean marked = ThreadFilter.isMarked();
        ThreadFilter.remove();
        double[][] ns = CallCost.rounds(FilterCost::time, ops, rounds, calls, 0);
        CallCost.result("result calls=" + calls + " rounds=" + rounds + " marked=" + marked, ops,
                ns);
    }
}
