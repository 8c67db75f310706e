package dev.flyprof.workload;

import java.io.File;

/**
 * A JNI library's worker thread (tests/jni/detached_worker.c) that works for the JVM for a
 * while and then detaches and goes on in native code: the native thread {@code detach-worker}
 * attaches to the JVM, spins in Java ({@link #spinJava}) for JAVA_S seconds of its CPU,
 * detaches (JNI DetachCurrentThread, which posts ThreadEnd), spins in C
 * ({@code detached_spin}) for NATIVE_S seconds of its CPU, and ends. Truth: about NATIVE_S of
 * CPU in {@code detached_spin}, on a thread the JVM no longer knows.
 *
 * <p>Usage: {@code Detached LIB JAVA_S NATIVE_S [GO_FILE]}. With GO_FILE, a thread
 * {@code detach-ready} runs first, the worker starts once GO_FILE exists (the test attached),
 * and the JVM ends once GO_FILE is gone again (the test stopped profiling). Prints
 * {@code result} with the worker's CPU time in Java and in C.
 */
public final class Detached {
    static final String USAGE = "Detached LIB JAVA_S NATIVE_S [GO_FILE]";

    private static volatile long sink;

    private Detached() {
    }

    /** Runs the worker thread to its end; returns its CPU ns in C after the detach. */
    static native long runWorker(long javaNs, long nativeNs);

    /** Called by the worker while attached: spins for ns of the thread's CPU. */
    static void spinJava(long ns) {
        long end = Measure.threadCpuNs() + ns;
        long x = 1;
        while (Measure.threadCpuNs() < end) {
            for (int i = 0; i < 100000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        sink += x;
    }

    private static void waitFor(File f, boolean exists) throws InterruptedException {
        while (f.exists() != exists) {
            Thread.sleep(20);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        System.load(args[0]);
        double javaS = Measure.seconds(args, 1, 0.5, USAGE);
        double nativeS = Measure.seconds(args, 2, 2, USAGE);
        File go = args.length > 3 ? new File(args[3]) : null;
        Measure.init();
        Thread ready = null;
        if (go != null) {
            ready = new Thread(() -> {
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    // ends
                }
            }, "detach-ready");
            ready.setDaemon(true);
            ready.start();
            waitFor(go, true);
        }
        long nativeNs = runWorker((long) (javaS * 1e9), (long) (nativeS * 1e9));
        System.out.println("result detached_native_cpu_ns=" + nativeNs);
        System.out.flush();
        if (go != null) {
            waitFor(go, false);
        }
    }
}
