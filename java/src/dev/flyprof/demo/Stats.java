package dev.flyprof.demo;

import java.util.HashMap;
import java.util.Map;

/**
 * Totals shared by all workers, behind one lock. Every order takes the lock briefly; every
 * 200th order also rebuilds the "top customer" report while holding it, which is where the
 * workers end up waiting for each other.
 */
final class Stats {
    private final Map<String, Double> revenueByCustomer = new HashMap<>();
    private long orders;
    private long rejected;
    private String topCustomer = "-";
    private double topRevenue;
    private long signatureBits;

    synchronized void record(String customer, double total, String signature) {
        revenueByCustomer.merge(customer, total, Double::sum);
        signatureBits ^= signature.hashCode();
        if (++orders % 200 == 0) {
            rebuildReport();
        }
    }

    synchronized void reject() {
        rejected++;
    }

    /** Scans every customer for the largest revenue (deliberately done under the lock). */
    private void rebuildReport() {
        for (Map.Entry<String, Double> e : revenueByCustomer.entrySet()) {
            if (e.getValue() > topRevenue) {
                topRevenue = e.getValue();
                topCustomer = e.getKey();
            }
        }
    }

    synchronized String report() {
        rebuildReport();
        return String.format("%d recorded, %d rejected, top customer %s (%.2f), check %x",
                orders, rejected, topCustomer, topRevenue, signatureBits);
    }
}
