package dev.flyprof.workload;

import java.util.ArrayList;
import java.util.List;

/**
 * Stop-the-world pauses of known length: builds a large live heap (a graph of many small
 * objects, so that marking and compacting it takes the collector real time), then asks for a
 * full GC ({@code System.gc()}) a number of times, sleeping between them. The JVM logs each
 * pause with its length ({@code -Xlog:gc}); a hiccup meter must find every one of them, and
 * nothing it blames on GC may lie outside them.
 *
 * <p>The collections are asked for by a thread named {@code gc-driver}, started once the heap
 * is built, after {@code startMs} (so that a test can attach a profiler first).
 *
 * <p>Usage: {@code GcPauses [liveMB] [gcs] [gapMs] [startMs] [holdMs]} (default 300, 4, 500, 0,
 * 0): holdMs is how long the JVM stays after the last collection. Prints {@code result} with
 * the number of collections asked for and the live size built.
 */
public final class GcPauses {
    static final String USAGE = "GcPauses [liveMB] [gcs] [gapMs] [startMs] [holdMs]";

    /** The live graph: kept reachable until the end. */
    private static final List<Object[]> LIVE = new ArrayList<>();

    private GcPauses() {
    }

    public static void main(String[] args) throws InterruptedException {
        int liveMb = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        int gcs = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int gapMs = args.length > 2 ? Integer.parseInt(args[2]) : 500;
        int startMs = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        int holdMs = args.length > 4 ? Integer.parseInt(args[4]) : 0;
        long bytes = 0;
        long want = (long) liveMb << 20;
        while (bytes < want) {
            /* a node of 16 references to 64-byte arrays: about 1.5 KB of small objects */
            Object[] node = new Object[16];
            for (int i = 0; i < node.length; i++) {
                node[i] = new byte[64];
            }
            LIVE.add(node);
            bytes += 16 * (64 + 16) + 16 * 4 + 16;
        }
        Thread driver = new Thread(() -> {
            try {
                Thread.sleep(startMs + gapMs);
                for (int i = 0; i < gcs; i++) {
                    System.gc();
                    Thread.sleep(gapMs);
                }
                Thread.sleep(holdMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "gc-driver");
        driver.start();
        driver.join();
        System.out.println("result gcs=" + gcs + " live_mb=" + liveMb + " nodes=" + LIVE.size());
    }
}
