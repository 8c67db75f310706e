package dev.flyprof.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo `scripts/demo` profiles: a small order service, simulated. A few worker threads
 * ({@code worker-1} ..) each take incoming orders (JSON text, made up by {@link Requests}) and
 * handle them with {@link OrderService}: parse the JSON, validate fields with regular
 * expressions, price the order (sorting its items), sign it (SHA-256 of a canonical form), and
 * record it in shared {@link Stats} behind a lock that the workers sometimes wait for.
 *
 * <p>The flame graph tells that story: parsing is the hot path, signing and pricing follow,
 * validation is visible, and the lock shows up as contention in a wall-clock profile.
 *
 * <p>Usage: {@code Demo [seconds] [workers]} (default 5 s, 3 workers).
 */
public final class Demo {
    private Demo() {
    }

    public static void main(String[] args) throws InterruptedException {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 5;
        int workers = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        long deadline = System.nanoTime() + (long) (seconds * 1e9);

        Stats stats = new Stats();
        OrderService service = new OrderService(stats);
        AtomicLong handled = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 1; i <= workers; i++) {
            Requests incoming = new Requests(i);
            Thread t = new Thread(() -> {
                while (System.nanoTime() < deadline) {
                    service.handle(incoming.next());
                    handled.incrementAndGet();
                }
            }, "worker-" + i);
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        System.out.printf("demo: %d workers handled %d orders in %.1f s; %s%n",
                workers, handled.get(), seconds, stats.report());
    }
}
