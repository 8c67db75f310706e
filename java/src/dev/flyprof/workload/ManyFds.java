package dev.flyprof.workload;

import java.io.FileInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A process with many open file descriptors, as a server with many sockets has: the main
 * thread opens {@code nfds} descriptors on /dev/null and keeps them open, and only then starts
 * the worker thread {@code fd-worker}, which burns CPU until its own CPU time reaches the
 * budget. Anything the profiler opens for the worker (a perf event) therefore gets a
 * descriptor number above {@code nfds}.
 *
 * <p>Usage: {@code ManyFds nfds [seconds]} (default 4 s of the worker's CPU time). The JVM's
 * descriptor limit must allow nfds (the JVM raises its soft limit to the hard one at start).
 * Prints {@code result} with the descriptors opened, the highest one seen, and the worker's CPU
 * time.
 */
public final class ManyFds {
    static final String USAGE = "ManyFds nfds [seconds]";

    private static long sink;

    private ManyFds() {
    }

    static long spin(long x, int n) {
        for (int i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        int nfds = Integer.parseInt(args[0]);
        long budget = Measure.ns(Measure.seconds(args, 1, 4, USAGE));
        Measure.init();
        List<FileInputStream> open = new ArrayList<>();
        try {
            for (int i = 0; i < nfds; i++) {
                open.add(new FileInputStream("/dev/null"));
            }
        } catch (IOException e) {
            System.err.println("ManyFds: opened only " + open.size() + " descriptors: " + e);
            System.exit(1);
        }
        long[] cpu = new long[1];
        Thread worker = new Thread(() -> {
            long end = Measure.threadCpuNs() + budget;
            long x = 1;
            while (Measure.threadCpuNs() < end) {
                x = spin(x, 1_000_000);
            }
            sink = x;
            cpu[0] = Measure.threadCpuNs();
        }, "fd-worker");
        worker.start();
        worker.join();
        Measure.result("workload", "ManyFds", "fds_open", open.size(),
                "worker_cpu_ns", cpu[0], "process_cpu_ns", Measure.processCpuNs(),
                "checksum", Long.toHexString(sink));
        for (FileInputStream f : open) {
            f.close();
        }
    }
}
