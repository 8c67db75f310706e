package dev.flyprof.workload;

/**
 * A JVM that does almost nothing: one thread sleeps 10 ms at a time and does a little
 * arithmetic in between, allocating nothing, so no collection runs. Under a hiccup meter it
 * must show no stall caused by GC. The loop runs in a thread named {@code quiet}.
 *
 * <p>Usage: {@code Quiet [seconds]} (default 4). Prints {@code result} with the rounds done.
 */
public final class Quiet {
    static final String USAGE = "Quiet [seconds]";

    private Quiet() {
    }

    public static void main(String[] args) throws InterruptedException {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
        long[] out = new long[2];
        Thread t = new Thread(() -> {
            long end = System.nanoTime() + (long) (seconds * 1e9);
            long x = 1;
            int rounds = 0;
            try {
                while (System.nanoTime() < end) {
                    for (int i = 0; i < 1000; i++) {
                        x = x * 6364136223846793005L + 1442695040888963407L;
                    }
                    Thread.sleep(10);
                    rounds++;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            out[0] = rounds;
            out[1] = x & 1;
        }, "quiet");
        t.start();
        t.join();
        System.out.println("result rounds=" + out[0] + " x=" + out[1]);
    }
}
