package dev.flyprof.workload;

import java.io.FileInputStream;
import java.io.IOException;
import java.util.zip.Deflater;

/**
 * Two threads that spend nearly all their time in native code called from Java, so a profiler
 * with native frames must show C frames under the Java method that called them:
 * <ul>
 * <li>{@code read-worker} reads /dev/zero in 8 KiB blocks with {@link FileInputStream#read}:
 * the time is in {@code FileInputStream.readBytes}, its JNI code ({@code readBytes}) and the
 * C library's {@code read} (plus the kernel, which copies the zeros).
 * <li>{@code deflate-worker} compresses a 1 MiB block of text-like bytes with {@link Deflater}
 * again and again: the time is in {@code Deflater.deflateBytesBytes} and zlib's {@code deflate}
 * (and its internals, such as {@code longest_match}).
 * </ul>
 *
 * <p>Usage: {@code NativeFrames [seconds]} (default 4): each thread's CPU budget. Prints
 * {@code result} with each thread's CPU time and the process CPU time.
 */
public final class NativeFrames {
    static final String USAGE = "NativeFrames [seconds]";

    private static volatile long sink;

    private NativeFrames() {
    }

    /** Reads /dev/zero until the CPU budget is spent. Returns the thread's CPU time. */
    static long readLoop(long budgetNs) throws IOException {
        byte[] buf = new byte[8192];
        long end = Measure.threadCpuNs() + budgetNs;
        long total = 0;
        try (FileInputStream in = new FileInputStream("/dev/zero")) {
            do {
                for (int i = 0; i < 256; i++) {
                    total += in.read(buf, 0, buf.length);
                }
            } while (Measure.threadCpuNs() < end);
        }
        sink += total;
        return Measure.threadCpuNs();
    }

    /** Compresses a fixed block until the CPU budget is spent. Returns the thread's CPU time. */
    static long deflateLoop(long budgetNs) {
        byte[] in = new byte[1 << 20];
        long x = 0x9e3779b97f4a7c15L;
        for (int i = 0; i < in.length; i++) {
            // words from a small alphabet: compressible, but with real matching work
            x = x * 6364136223846793005L + 1442695040888963407L;
            in[i] = (byte) ((x >>> 59) < 4 ? ' ' : 'a' + (int) ((x >>> 33) % 12));
        }
        byte[] out = new byte[(1 << 20) + 4096];
        long end = Measure.threadCpuNs() + budgetNs;
        long total = 0;
        Deflater d = new Deflater(6);
        do {
            d.reset();
            d.setInput(in);
            d.finish();
            while (!d.finished()) {
                total += d.deflate(out);
            }
        } while (Measure.threadCpuNs() < end);
        d.end();
        sink += total;
        return Measure.threadCpuNs();
    }

    public static void main(String[] args) throws Exception {
        long budgetNs = Measure.ns(Measure.seconds(args, 0, 4, USAGE));
        Measure.init();
        long[] cpu = new long[2];
        Thread reader = new Thread(() -> {
            try {
                cpu[0] = readLoop(budgetNs);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }, "read-worker");
        Thread deflater = new Thread(() -> cpu[1] = deflateLoop(budgetNs), "deflate-worker");
        reader.start();
        deflater.start();
        reader.join();
        deflater.join();
        Measure.result("workload", "NativeFrames", "read_cpu_ns", cpu[0], "deflate_cpu_ns",
                cpu[1], "process_cpu_ns", Measure.processCpuNs(), "checksum", sink);
    }
}
