package dev.flyprof.workload;

import dev.flyprof.ThreadFilter;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Many idle threads and a few marked ones: {@code unmarked-N} threads park, unmarked;
 * {@code marked-N} threads mark themselves with {@link ThreadFilter#add()} and sleep in short
 * steps. With the agent's {@code filter} option, wall samples must come from the marked
 * threads only. Prints how many threads {@link ThreadFilter#isMarked()} reported as marked:
 * the marked count with the agent, 0 without it.
 *
 * <p>Usage: {@code FilterMarked [seconds] [unmarked] [marked]} (default 4, 500, 4).
 */
public final class FilterMarked {
    static final String USAGE = "FilterMarked [seconds] [unmarked] [marked]";
    private static volatile boolean done;

    private FilterMarked() {
    }

    public static void main(String[] args) throws Exception {
        double secs = Measure.seconds(args, 0, 4, USAGE);
        int unmarked = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        int marked = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        CountDownLatch ready = new CountDownLatch(unmarked + marked);
        AtomicInteger seenMarked = new AtomicInteger();
        Thread[] ts = new Thread[unmarked + marked];
        for (int i = 0; i < ts.length; i++) {
            boolean mark = i >= unmarked;
            ts[i] = new Thread(() -> {
                if (mark) {
                    ThreadFilter.add();
                }
                if (ThreadFilter.isMarked()) {
                    seenMarked.incrementAndGet();
                }
                ready.countDown();
                while (!done) {
                    if (mark) {
                        LockSupport.parkNanos(5_000_000L);
                    } else {
                        LockSupport.park();
                    }
                }
                if (mark) {
                    ThreadFilter.remove();
                }
            }, (mark ? "marked-" + (i - unmarked) : "unmarked-" + i));
            ts[i].setDaemon(!mark);
            ts[i].start();
        }
        ready.await();
        Thread.sleep((long) (secs * 1000));
        done = true;
        for (int i = unmarked; i < ts.length; i++) {
            ts[i].join();
        }
        // api_marked: threads that saw themselves marked (marked with the agent, 0 without)
        System.out.println("result marked=" + marked + " unmarked=" + unmarked
                + " api_marked=" + seenMarked.get());
    }
}
