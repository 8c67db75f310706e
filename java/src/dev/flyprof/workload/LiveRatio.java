package dev.flyprof.workload;

import java.util.ArrayList;
import java.util.List;

/**
 * One thread, {@code live-0}, allocating {@code byte[1000]} arrays in two methods: {@link #keep}
 * keeps each in a list that lives to the end of the program, {@link #drop} lets each go at
 * once, three times as many. At the end a quarter of the bytes allocated is still reachable,
 * all of it from {@code keep}. Then the program exits (a profile stops at the JVM's exit).
 *
 * <p>Usage: {@code LiveRatio [megabytes-kept] [go-file]} (default 128). With a go-file the
 * thread starts, then waits until it exists (a test attaches the agent meanwhile). Prints
 * {@code result} with {@code kept_bytes}, the bytes of the arrays still reachable (1016 bytes each: a 16-byte
 * header and length, then the data), and {@code dropped_bytes}.
 */
public final class LiveRatio {
    static final String USAGE = "LiveRatio [megabytes-kept] [go-file]";
    static final int SIZE = 1000;
    static final int OBJ = 1016;
    static final List<byte[]> KEPT = new ArrayList<>();
    static final Object[] SINK = new Object[1024];

    private LiveRatio() {
    }

    /** One array, kept. */
    static void keep() {
        KEPT.add(new byte[SIZE]);
    }

    /** Three arrays, let go. */
    static void drop(int i) {
        SINK[i & 1023] = new byte[SIZE];
        SINK[(i + 1) & 1023] = new byte[SIZE];
        SINK[(i + 2) & 1023] = new byte[SIZE];
    }

    public static void main(String[] args) throws Exception {
        double mb = Measure.seconds(args, 0, 128, USAGE);
        long n = (long) (mb * 1024 * 1024 / OBJ);
        java.io.File go = args.length > 1 ? new java.io.File(args[1]) : null;
        long[] dropped = new long[1];
        Thread t = new Thread(() -> {
            try {
                AllocRatio.awaitFile(go);
            } catch (InterruptedException e) {
                return;
            }
            for (long i = 0; i < n; i++) {
                keep();
                drop((int) i);
                dropped[0] += 3;
            }
        }, "live-0");
        t.start();
        t.join();
        java.util.Arrays.fill(SINK, null);
        Measure.result("kept_bytes", KEPT.size() * (long) OBJ, "dropped_bytes",
                dropped[0] * OBJ);
    }
}
