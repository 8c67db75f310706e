package dev.flyprof.workload;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;

/**
 * Class-unloading churn: defines {@link UnloadHot} over and over, each copy in a throwaway
 * class loader of its own, runs it (about 20 ms of CPU in UnloadHot.spin, called from {@link
 * #iterate}), drops the loader and, every 5 copies, calls System.gc(), which unloads the
 * copies no longer referenced. A profiler sampling the copies while they run holds jmethodIDs
 * of classes that are unloaded shortly after.
 *
 * <p>Truth it reports: {@code result copies=... unloaded=...}, the copies defined and the
 * classes the JVM unloaded meanwhile (ClassLoadingMXBean). With {@code forever} as its second
 * argument it runs until killed, printing {@code phase copies=N} every 50 copies.
 *
 * <p>Usage: {@code UnloadChurn [seconds] [forever]} (default 5).
 */
public final class UnloadChurn {
    static final String USAGE = "UnloadChurn [seconds] [forever]";
    static final String HOT = "dev.flyprof.workload.UnloadHot";

    private UnloadChurn() {
    }

    /** Defines HOT itself (not its parent), once. */
    static final class OneShotLoader extends ClassLoader {
        private final byte[] bytes;

        OneShotLoader(byte[] bytes) {
            super(UnloadChurn.class.getClassLoader());
            this.bytes = bytes;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                if (!name.equals(HOT)) {
                    return super.loadClass(name, resolve);
                }
                Class<?> c = findLoadedClass(name);
                return c != null ? c : defineClass(name, bytes, 0, bytes.length);
            }
        }
    }

    static byte[] hotBytes() throws IOException {
        try (InputStream in = UnloadChurn.class.getResourceAsStream("UnloadHot.class")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toByteArray();
        }
    }

    static void iterate(byte[] bytes) throws Exception {
        Class<?> c = new OneShotLoader(bytes).loadClass(HOT);
        ((Runnable) c.getDeclaredConstructor().newInstance()).run();
    }

    public static void main(String[] args) throws Exception {
        double secs = Measure.seconds(args, 0, 5, USAGE);
        boolean forever = args.length > 1 && args[1].equals("forever");
        byte[] bytes = hotBytes();
        long unloaded0 = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount();
        long end = System.nanoTime() + Measure.ns(secs);
        long copies = 0;
        while (forever || System.nanoTime() < end) {
            iterate(bytes);
            copies++;
            if (copies % 5 == 0) {
                System.gc();
            }
            if (forever && copies % 50 == 0) {
                System.out.println("phase copies=" + copies);
                System.out.flush();
            }
        }
        System.gc();
        long unloaded = ManagementFactory.getClassLoadingMXBean().getUnloadedClassCount()
                - unloaded0;
        Measure.result("copies", copies, "unloaded", unloaded);
    }
}
