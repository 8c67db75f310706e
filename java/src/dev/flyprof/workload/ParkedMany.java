package dev.flyprof.workload;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

/**
 * Many parked threads and nothing else: what makes a wall-clock sampler work (it walks the
 * stacks of the threads it picks with JVMTI, since none of them runs) while the application
 * itself uses almost no CPU.
 *
 * <p>Starts {@code threads} daemon threads ({@code parked-N}) that park forever, prints {@code
 * phase ready}, sleeps {@code seconds} in the thread {@code parked-main} (the main thread
 * waits for it), then prints {@code result threads=... process_cpu_ns=...}.
 *
 * <p>Usage: {@code ParkedMany [seconds] [threads]} (default 3, 200).
 */
public final class ParkedMany {
    static final String USAGE = "ParkedMany [seconds] [threads]";

    private ParkedMany() {
    }

    public static void main(String[] args) throws Exception {
        double secs = Measure.seconds(args, 0, 3, USAGE);
        int n = Measure.count(args, 1, 200, USAGE);
        Measure.init();
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
        System.out.println("phase ready");
        System.out.flush();
        Thread sleeper = new Thread(() -> {
            try {
                Thread.sleep((long) (secs * 1000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "parked-main");
        sleeper.start();
        sleeper.join();
        Measure.result("threads", n, "process_cpu_ns", Measure.processCpuNs());
    }
}
