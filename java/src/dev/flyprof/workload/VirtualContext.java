package dev.flyprof.workload;

import dev.flyprof.Context;
import dev.flyprof.ThreadFilter;

/**
 * Trace context from virtual threads (JDK 21 and later), which share carrier threads: with
 * one carrier ({@code -Djdk.virtualThreadScheduler.parallelism=1}), a virtual thread
 * {@code traced-sleeper} sets context 111 (and marks itself in the thread filter) and sleeps
 * 1.5 s, while a virtual thread {@code untraced-burner}, with no context, burns 1 s of CPU on
 * the same carrier. The control: a platform thread sets context 222 and burns 0.5 s. Truth:
 * request 111 used no CPU; request 222 used 0.5 s. On a JDK without virtual threads only the
 * control runs. Prints {@code result virtual=0|1 marked_virtual=0|1} (whether the virtual
 * thread read itself as marked after ThreadFilter.add).
 *
 * <p>Usage: {@code VirtualContext} (no arguments).
 */
public final class VirtualContext {
    private static volatile long sink;
    private static volatile boolean markedVirtual;

    private VirtualContext() {
    }

    /** Burns ns: of the thread's CPU on a platform thread, of wall time on a virtual one (its
     * CPU time is not measured: -1), where it runs alone on its carrier. */
    static void burn(long ns, boolean cpuClock) {
        long end = (cpuClock ? Measure.threadCpuNs() : System.nanoTime()) + ns;
        long x = 1;
        while ((cpuClock ? Measure.threadCpuNs() : System.nanoTime()) < end) {
            for (int i = 0; i < 10000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L;
            }
        }
        sink += x;
    }

    /** Starts r on a new virtual thread named name, or returns null before JDK 21. */
    static Thread startVirtual(String name, Runnable r) throws Exception {
        Object builder;
        try {
            builder = Thread.class.getMethod("ofVirtual").invoke(null);
        } catch (NoSuchMethodException e) {
            return null;
        }
        Class<?> b = Class.forName("java.lang.Thread$Builder");
        builder = b.getMethod("name", String.class).invoke(builder, name);
        return (Thread) b.getMethod("start", Runnable.class).invoke(builder, r);
    }

    public static void main(String[] args) throws Exception {
        Measure.init();
        Thread platform = new Thread(() -> {
            Context.set(222, 222);
            burn(500_000_000L, true);
            Context.clear();
        }, "platform-traced");
        platform.start();
        platform.join();
        Context.endpoint(222, "GET /platform");

        Thread sleeper = startVirtual("traced-sleeper", () -> {
            Context.set(111, 111);
            ThreadFilter.add();
            markedVirtual = ThreadFilter.isMarked();
            try {
                Thread.sleep(1500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            ThreadFilter.remove();
            Context.clear();
        });
        boolean virtual = sleeper != null;
        if (virtual) {
            Thread.sleep(100);
            Thread burner = startVirtual("untraced-burner", () -> burn(1_000_000_000L, false));
            burner.join();
            sleeper.join();
            Context.endpoint(111, "GET /sleepy");
        }
        System.out.println("result virtual=" + (virtual ? 1 : 0) + " marked_virtual="
                + (markedVirtual ? 1 : 0));
    }
}
