package dev.flyprof.workload;

/**
 * A JVM under a seccomp filter, as in a container or a systemd unit: the JNI library
 * (tests/jni/seccomp_jni.c) installs a filter on every thread of the JVM that refuses
 * process_vm_readv with EPERM ({@code errno}) or kills the process for it ({@code kill});
 * then the thread {@code seccomp-worker} spins in {@link #hot} for SECONDS of its CPU (forever
 * with {@code forever}). Nothing here calls process_vm_readv: only a profiler reading the
 * JVM's memory would. {@link #hot} first runs after the filter is in, so a profiler names it
 * (and checks it is not a method of an unloaded class) under the filter.
 *
 * <p>Prints {@code phase filtered rc=N} once the filter is in (rc 0) and {@code result
 * hot_cpu_ns=...} at the end.
 *
 * <p>Usage: {@code Seccomp LIB errno|kill SECONDS [forever]}.
 */
public final class Seccomp {
    static final String USAGE = "Seccomp LIB errno|kill SECONDS [forever]";

    private static volatile long sink;

    private Seccomp() {
    }

    /** Installs the filter on every thread of the process; 0 or -errno. */
    static native int install(boolean kill);

    /** Spins for ns of the thread's CPU. */
    static void hot(long ns) {
        long end = Measure.threadCpuNs() + ns;
        long x = 1;
        while (Measure.threadCpuNs() < end) {
            for (int i = 0; i < 100000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        }
        sink += x;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3 || !(args[1].equals("errno") || args[1].equals("kill"))) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        System.load(args[0]);
        double secs = Measure.seconds(args, 2, 3, USAGE);
        boolean forever = args.length > 3 && args[3].equals("forever");
        Measure.init();
        int rc = install(args[1].equals("kill"));
        System.out.println("phase filtered rc=" + rc);
        System.out.flush();
        long[] spent = new long[1];
        Thread worker = new Thread(() -> {
            long t0 = Measure.threadCpuNs();
            do {
                hot(Measure.ns(secs));
            } while (forever);
            spent[0] = Measure.threadCpuNs() - t0;
        }, "seccomp-worker");
        worker.start();
        worker.join();
        Measure.result("hot_cpu_ns", spent[0]);
    }
}
