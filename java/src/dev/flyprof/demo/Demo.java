package dev.flyprof.demo;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo `scripts/demo` profiles: a small order service, simulated, with traced requests.
 * The main thread ({@code client}) sends requests to a pool of {@code http-N} threads, as fast
 * as the pool takes them (at most as many in flight as there are threads), fifteen order
 * batches for each report:
 * <ul>
 * <li>{@code POST /orders}: a batch of 60 orders; for each, {@link OrderService} parses its JSON,
 * validates fields with
 * regular expressions, prices it (sorting its items), signs it (SHA-256 of a canonical form)
 * and records it in shared {@link Stats} behind a lock: CPU work, on more threads than the
 * machine has cores, so requests also wait for a CPU;</li>
 * <li>{@code GET /report}: {@link Reports} needs the only connection of an undersized pool and
 * holds it for a 40 ms query: requests wait for it, parked.</li>
 * </ul>
 * Each request is traced by {@link Tracer} (dev.flyprof.Context and ThreadFilter), so flyprof
 * can show each endpoint's samples alone. Prints the requests served and their mean latency
 * per endpoint, as a service's metrics would.
 *
 * <p>Usage: {@code Demo [seconds] [threads]} (default 5 s, 8 threads).
 */
public final class Demo {
    private static final int BATCH = 60;

    private Demo() {
    }

    public static void main(String[] args) throws InterruptedException {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 5;
        int threads = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        Thread.currentThread().setName("client");

        Stats stats = new Stats();
        OrderService orders = new OrderService(stats);
        Reports reports = new Reports(stats);
        AtomicInteger n = new AtomicInteger(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads,
                r -> new Thread(r, "http-" + n.getAndIncrement()));
        Semaphore inFlight = new Semaphore(threads);
        String[] names = {"POST /orders", "GET /report"};
        AtomicLong[] count = {new AtomicLong(), new AtomicLong()};
        AtomicLong[] latencyNs = {new AtomicLong(), new AtomicLong()};
        Requests incoming = new Requests(1);
        for (int k = 0; System.nanoTime() < deadline; k++) {
            int ep = k % 16 == 15 ? 1 : 0;
            String[] batch = new String[ep == 0 ? BATCH : 0];
            for (int i = 0; i < batch.length; i++) {
                batch[i] = incoming.next();
            }
            inFlight.acquire();
            long root = Tracer.newRequest();
            long sent = System.nanoTime();
            pool.execute(() -> {
                Tracer.enter(root);
                try {
                    if (ep == 0) {
                        for (String body : batch) {
                            orders.handle(body);
                        }
                    } else {
                        reports.handle(root);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    Tracer.exit(root, names[ep]);
                    count[ep].incrementAndGet();
                    latencyNs[ep].addAndGet(System.nanoTime() - sent);
                    inFlight.release();
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(30, TimeUnit.SECONDS);
        for (int ep = 0; ep < 2; ep++) {
            long c = Math.max(1, count[ep].get());
            System.out.printf("demo: %-13s %6d requests, mean latency %6.1f ms%n", names[ep],
                    count[ep].get(), latencyNs[ep].get() / 1e6 / c);
        }
        System.out.printf("demo: %d threads, %.1f s; %s%n", threads, seconds, stats.report());
    }
}
