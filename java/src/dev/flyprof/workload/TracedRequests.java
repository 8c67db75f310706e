package dev.flyprof.workload;

import dev.flyprof.Context;
import dev.flyprof.ThreadFilter;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Requests of four endpoints served by a pool of {@code worker-N} threads, traced by a tracer
 * of its own that calls {@link Context} and {@link ThreadFilter}, as a real tracer would:
 * <ul>
 * <li>{@code GET /cpu}: burns CPU in {@link #handleCpu} (about 20 ms);</li>
 * <li>{@code GET /sleep}: sleeps in {@link #handleSleep} (20 ms);</li>
 * <li>{@code GET /lock}: enters a monitor in {@link #handleLock} that the {@code lock-holder}
 * thread (outside every request) holds most of the time: the request waits, blocked;</li>
 * <li>{@code GET /handoff}: the {@code acceptor} thread works for the request first
 * ({@link #prepareHandoff}, root span), then hands it to a pool thread that works for a child
 * span ({@link #handleHandoff}): one request across two threads.</li>
 * </ul>
 * Each request's root span is named with {@link Context#endpoint} (by the pool thread when it
 * ends, or by the acceptor for {@code /cpu}). Span ids are {@code 1000 + n}, counting up. At
 * most {@code workers} requests are in flight; the acceptor waits (parked, no context) for a
 * free one. Prints the requests served per endpoint and whether {@link Context#isBound()}.
 *
 * <p>Usage: {@code TracedRequests [seconds] [workers]} (default 6, 4).
 */
public final class TracedRequests {
    static final String USAGE = "TracedRequests [seconds] [workers]";
    static final Object LOCK = new Object();
    static final AtomicLong SPANS = new AtomicLong(1000);
    static volatile boolean done;
    static volatile long sink;

    private TracedRequests() {
    }

    /** The tracer: a scope makes the span current on this thread and marks the thread. */
    static void enter(long span, long root) {
        Context.set(span, root);
        ThreadFilter.add();
    }

    static void exit() {
        ThreadFilter.remove();
        Context.clear();
    }

    static long burn(long ns) {
        long end = System.nanoTime() + ns;
        long x = 1;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 2000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        return x;
    }

    static void handleCpu() {
        sink += burn(20_000_000L);
    }

    static void handleSleep() throws InterruptedException {
        Thread.sleep(20);
    }

    static void handleLock() {
        synchronized (LOCK) {
            sink++;
        }
    }

    static void prepareHandoff() {
        sink += burn(6_000_000L);
    }

    static void handleHandoff() {
        sink += burn(12_000_000L);
    }

    /** Holds LOCK most of the time, outside every request. */
    static void holdLock() throws InterruptedException {
        while (!done) {
            synchronized (LOCK) {
                Thread.sleep(40);
            }
            Thread.sleep(1);
        }
    }

    public static void main(String[] args) throws Exception {
        double secs = Measure.seconds(args, 0, 6, USAGE);
        int workers = Measure.count(args, 1, 4, USAGE);
        AtomicInteger n = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(workers,
                r -> new Thread(r, "worker-" + n.getAndIncrement()));
        Thread holder = new Thread(() -> {
            try {
                holdLock();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "lock-holder");
        holder.start();
        Semaphore slots = new Semaphore(workers);
        AtomicInteger[] served = new AtomicInteger[4];
        for (int i = 0; i < served.length; i++) {
            served[i] = new AtomicInteger();
        }
        String[] names = {"GET /cpu", "GET /sleep", "GET /lock", "GET /handoff"};
        Thread.currentThread().setName("acceptor");
        long end = System.nanoTime() + Measure.ns(secs);
        for (int k = 0; System.nanoTime() < end; k++) {
            int ep = k % 4;
            slots.acquire();
            long root = SPANS.incrementAndGet();
            if (ep == 0) {
                Context.endpoint(root, names[0]); // named up front, by another thread
            }
            if (ep == 3) {
                // the acceptor works for the request, then hands it to the pool
                enter(root, root);
                prepareHandoff();
                long child = SPANS.incrementAndGet();
                exit();
                pool.execute(() -> {
                    enter(child, root);
                    try {
                        handleHandoff();
                    } finally {
                        exit();
                        Context.endpoint(root, names[3]);
                        served[3].incrementAndGet();
                        slots.release();
                    }
                });
                continue;
            }
            pool.execute(() -> {
                enter(root, root);
                try {
                    if (ep == 0) {
                        handleCpu();
                    } else if (ep == 1) {
                        handleSleep();
                    } else {
                        handleLock();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    exit();
                    if (ep != 0) {
                        Context.endpoint(root, names[ep]);
                    }
                    served[ep].incrementAndGet();
                    slots.release();
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(30, TimeUnit.SECONDS);
        done = true;
        holder.join();
        Measure.result("cpu", served[0].get(), "sleep", served[1].get(), "lock", served[2].get(),
                "handoff", served[3].get(), "bound", Context.isBound());
    }
}
