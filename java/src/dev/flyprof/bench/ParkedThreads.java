package dev.flyprof.bench;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * N parked threads for the wall-clock sampler benchmark. Starts {@code threads} daemon threads
 * ({@code parked-N}) that park forever, prints {@code ready} once all of them are alive, sleeps
 * {@code seconds}, prints {@code done}, and then waits until its standard input is closed before
 * it exits. The benchmark reads the sampler thread's CPU time from
 * /proc between {@code done} and closing the input, so the reading covers the whole run.
 *
 * <p>Usage: {@code ParkedThreads seconds threads}.
 */
public final class ParkedThreads {
    static final String USAGE = "ParkedThreads seconds threads";

    private ParkedThreads() {
    }

    public static void main(String[] args) throws InterruptedException, IOException {
        if (args.length != 2) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        long ms = (long) (Double.parseDouble(args[0]) * 1000);
        int n = Integer.parseInt(args[1]);
        CountDownLatch alive = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                alive.countDown();
                for (;;) {
                    LockSupport.park();
                }
            }, "parked-" + i);
            t.setDaemon(true);
            t.start();
        }
        alive.await();
        System.out.println("ready threads=" + n);
        System.out.flush();
        Thread.sleep(ms);
        System.out.println("done");
        System.out.flush();
        while (System.in.read() >= 0) {
            // the benchmark closes the input when it has read /proc
        }
    }
}
