package dev.flyprof.demo;

import java.util.concurrent.Semaphore;

/**
 * GET /report: the customer report. It "queries the database" through a pool of connections
 * that is too small for the traffic: one connection, held for 40 ms per query, so report
 * requests queue for it (parked in {@link Semaphore#acquire()}), while the query itself costs
 * almost no CPU. Its latency is all waiting: a CPU profile does not see it, a wall-clock
 * profile scoped to the endpoint does.
 */
final class Reports {
    private final Semaphore connections = new Semaphore(1, true);
    private final Stats stats;

    Reports(Stats stats) {
        this.stats = stats;
    }

    String handle(long root) throws InterruptedException {
        connections.acquire(); // waits for the pool's only connection
        try {
            long span = Tracer.openChild(root);
            try {
                query();
            } finally {
                Tracer.closeChild(root);
            }
            return stats.report() + " (span " + span + ")";
        } finally {
            connections.release();
        }
    }

    /** The database's time: the thread waits for the answer. */
    private static void query() throws InterruptedException {
        Thread.sleep(40);
    }
}
