package dev.flyprof.workload;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.zip.Deflater;

/**
 * A thread that spends its CPU in native code: the daemon thread {@code stuck-native} deflates
 * direct buffers with {@link Deflater} (zlib, native, no critical array regions), so nearly
 * every CPU-timer signal finds it in native code, where the JVM never waits for it. The agent's
 * test hook (FLYPROF_TEST_HANG_THREAD=stuck-native) then holds its first signal handler run
 * forever, as a thread stopped inside the handler would be; the test checks that the agent's
 * stop and the JVM's exit do not wait for it forever.
 *
 * <p>Meanwhile the thread {@code burner} spends CPU in Java, so the profile has samples.
 *
 * <p>Usage: {@code StuckNative [seconds] [go_file]} (default 3): the main thread returns after
 * {@code seconds}. With {@code go_file}, the native thread starts only once that file exists
 * (so an agent attached before can see it start), and prints {@code phase stuck_started}.
 * Stdout: {@code result burned_ns=... deflated_bytes=...} (deflated so far: it stops growing
 * once the thread is stuck).
 */
public final class StuckNative {
    static final String USAGE = "StuckNative [seconds] [go_file]";
    private static volatile long sink;
    private static volatile long deflated;

    private StuckNative() {
    }

    static void deflateForever() {
        // compressible, not trivial: zlib searches matches, which takes its time
        byte[] data = new byte[4 << 20];
        long x = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < data.length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            data[i] = (byte) ('a' + (int) ((x >>> 40) & 7));
        }
        ByteBuffer in = ByteBuffer.allocateDirect(data.length);
        ByteBuffer out = ByteBuffer.allocateDirect(data.length + (1 << 20));
        Deflater d = new Deflater(9);
        for (;;) {
            in.clear();
            in.put(data);
            in.flip();
            out.clear();
            d.reset();
            d.setInput(in);
            d.finish();
            while (!d.finished()) {
                if (d.deflate(out) == 0 && !out.hasRemaining()) {
                    out.clear();
                }
            }
            deflated += data.length;
        }
    }

    static void burn(long end) {
        long x = 1;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 100_000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            sink += x;
        }
    }

    public static void main(String[] args) throws Exception {
        double secs = Measure.seconds(args, 0, 3, USAGE);
        Path go = args.length > 1 ? Paths.get(args[1]) : null;
        long t0 = System.nanoTime();
        long end = t0 + Measure.ns(secs);
        Thread burner = new Thread(() -> burn(end), "burner");
        burner.setDaemon(true);
        burner.start();
        if (go != null) {
            while (!Files.exists(go)) {
                Thread.sleep(20);
            }
        }
        Thread stuck = new Thread(StuckNative::deflateForever, "stuck-native");
        stuck.setDaemon(true);
        stuck.start();
        System.out.println("phase stuck_started");
        System.out.flush();
        burner.join();
        Measure.result("burned_ns", System.nanoTime() - t0, "deflated_bytes", deflated);
    }
}
