package dev.flyprof.workload;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;

/**
 * What the workloads share: their own CPU clocks, their argument parsing and the results line
 * the integration tests read.
 *
 * <p>Every workload ends by printing one or more lines {@code result key=value ...} on stdout;
 * values never contain spaces. Durations are nanoseconds, keys are snake_case.
 */
final class Measure {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private Measure() {
    }

    /**
     * Loads the management classes on the calling thread, so that a worker's first clock read
     * does not charge class loading to the worker.
     */
    static void init() {
        threadCpuNs();
        processCpuNs();
    }

    /** CPU time of the calling thread (user + system), in ns. */
    static long threadCpuNs() {
        return THREADS.getCurrentThreadCpuTime();
    }

    /** CPU time of the whole process, in ns, or -1 when the JVM cannot say. */
    static long processCpuNs() {
        java.lang.management.OperatingSystemMXBean os =
                ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }

    /** args[i] as seconds, or dflt when absent; exits with a usage line when malformed. */
    static double seconds(String[] args, int i, double dflt, String usage) {
        if (args.length <= i) {
            return dflt;
        }
        try {
            double s = Double.parseDouble(args[i]);
            if (s > 0 && s < 3600) {
                return s;
            }
        } catch (NumberFormatException e) {
            // fall through to the usage line
        }
        System.err.println("usage: " + usage);
        System.exit(2);
        return dflt;
    }

    /** args[i] as a positive int, or dflt when absent; exits with a usage line when malformed. */
    static int count(String[] args, int i, int dflt, String usage) {
        if (args.length <= i) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(args[i]);
            if (n > 0 && n <= 1024) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through to the usage line
        }
        System.err.println("usage: " + usage);
        System.exit(2);
        return dflt;
    }

    /** Seconds to ns. */
    static long ns(double seconds) {
        return (long) (seconds * 1e9);
    }

    /** Prints "result k1=v1 k2=v2 ..." from alternating keys and values. */
    static void result(Object... kv) {
        StringBuilder sb = new StringBuilder("result");
        for (int i = 0; i + 1 < kv.length; i += 2) {
            Object v = kv[i + 1];
            String s = v instanceof Double
                    ? String.format(Locale.ROOT, "%.6f", (Double) v)
                    : String.valueOf(v);
            sb.append(' ').append(kv[i]).append('=').append(s.replace(' ', '_'));
        }
        System.out.println(sb);
        System.out.flush();
    }
}
