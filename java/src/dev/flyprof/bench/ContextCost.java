package dev.flyprof.bench;

import dev.flyprof.Context;

/**
 * The cost of {@link Context#set(long, long)} and {@link Context#clear()} per call, without
 * JMH, the way FilterCost measures the thread filter: each operation runs in its own loop
 * method, warmed up until the JIT has compiled it, then timed over {@code calls} calls with
 * {@link System#nanoTime()}, {@code rounds} times. Three loops: {@code set} with a new span id
 * each call (a tracer switching scopes), {@code clear} alone, and {@code pair}, a set followed
 * by a clear, as around each request (reported per call, i.e. per half pair).
 *
 * <p>Usage: {@code ContextCost [calls] [rounds]} (default 100000000, 5). Prints one line
 * {@code round op=OP i=I ns_per_call=X} per round and operation, then {@code result} with the
 * median per operation and whether the agent had bound the natives ({@code bound}).
 */
public final class ContextCost {
    static final String USAGE = "ContextCost [calls] [rounds]";

    private ContextCost() {
    }

    static void setLoop(long calls) {
        for (long i = 0; i < calls; i++) {
            Context.set(i, 42);
        }
    }

    static void clearLoop(long calls) {
        for (long i = 0; i < calls; i++) {
            Context.clear();
        }
    }

    static void pairLoop(long pairs) {
        for (long i = 0; i < pairs; i++) {
            Context.set(i, i);
            Context.clear();
        }
    }

    /** Runs one loop and returns nanoseconds per call. */
    static double time(String op, long calls) {
        long t0 = System.nanoTime();
        switch (op) {
            case "set":
                setLoop(calls);
                break;
            case "clear":
                clearLoop(calls);
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
        String[] ops = {"set", "clear", "pair"};
        // warm-up: enough calls of every loop for C2 to compile it as a whole method
        CallCost.warm(ContextCost::time, ops, 15, Math.min(calls, 2_000_000L), 0);
        boolean bound = Context.isBound();
        double[][] ns = CallCost.rounds(ContextCost::time, ops, rounds, calls, 0);
        CallCost.result("result calls=" + calls + " rounds=" + rounds + " bound=" + bound, ops,
                ns);
    }
}
