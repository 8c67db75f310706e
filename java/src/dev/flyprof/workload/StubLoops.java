package dev.flyprof.workload;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.function.LongUnaryOperator;
import java.util.zip.Adler32;
import java.util.zip.CRC32;

/**
 * Loops that spend their time in JVM stubs, where AsyncGetCallTrace cannot start a walk: the
 * stack walker must find the Java caller from HotSpot's own structures. One worker thread,
 * {@code stub-worker}, runs one mode until the deadline:
 *
 * <ul>
 *   <li>{@code arraycopy}: {@link #deleteLoop} deletes the first characters of a 64 KiB
 *       StringBuilder and appends as many back. Almost all its time is the arraycopy stub that
 *       AbstractStringBuilder.shift calls, inlined into AbstractStringBuilder.delete, into
 *       StringBuilder.delete, into deleteLoop: a right stack has that whole chain.</li>
 *   <li>{@code itable}: {@link #itableLoop} calls six lambdas behind one interface in turn; the
 *       call site is megamorphic, so every call goes through an itable stub.</li>
 *   <li>{@code vtable}: {@link #vtableLoop} calls six subclasses' override in turn, through a
 *       vtable stub.</li>
 *   <li>{@code intrinsics}: {@link #intrinsicsLoop} runs CRC32, Adler32, Base64 and the MD5 and
 *       SHA-1 digests over buffers, each an intrinsic stub in compiled code.</li>
 * </ul>
 *
 * <p>Usage: {@code StubLoops mode [cpu-seconds] [stop-file [go-file]]}: the worker runs until
 * it has used that much CPU (default 3 s), so a loaded machine gives as many samples, only
 * later; or until stop-file exists (a test that attached and detached ends it so). With a
 * go-file, the worker thread starts at once but waits for that file before its loop, so that
 * a test can attach to a thread that predates the agent while the loop is compiled after the
 * attach. Prints {@code result} with the mode, the worker's CPU time and its rounds.
 */
public final class StubLoops {
    static final String USAGE =
            "StubLoops arraycopy|itable|vtable|intrinsics [cpu-seconds] [stop-file [go-file]]";

    /** Consumed at the end, so that no loop is dead code. */
    static volatile long sink;

    private StubLoops() {
    }

    /**
     * When the worker stops: its own CPU time reaches a budget, or a file appears. Looked at
     * every 16th round only (a few ms), so that the clock and the file system take under 1% of
     * the samples, which the tests count against the stubs' share.
     */
    static final class Deadline {
        private final long budgetNs;
        private final java.io.File stop;
        private int calls;

        Deadline(long budgetNs, String stop) {
            this.budgetNs = budgetNs;
            this.stop = stop == null ? null : new java.io.File(stop);
        }

        boolean reached() {
            if (++calls % 16 != 0) {
                return false;
            }
            return Measure.threadCpuNs() >= budgetNs || (stop != null && stop.exists());
        }
    }

    /** Rounds of delete-at-front and append-at-end until the deadline. */
    static long deleteLoop(Deadline deadline) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 65_536; i++) {
            sb.append((char) ('a' + i % 26));
        }
        long rounds = 0;
        do {
            for (int i = 0; i < 64; i++) {
                sb.delete(0, 16);
                sb.append("0123456789abcdef");
            }
            rounds++;
        } while (!deadline.reached());
        sink += sb.charAt(rounds % 1000 == 0 ? 1 : 2);
        return rounds;
    }

    /** Six lambdas behind one interface, called in turn from one call site. */
    static long itableLoop(Deadline deadline) {
        LongUnaryOperator[] ops = {
            x -> x + 1, x -> x ^ 0x5555, x -> x * 3, x -> x - 7, x -> x >>> 1 | x << 63,
            x -> ~x,
        };
        long x = 1;
        long rounds = 0;
        do {
            for (int i = 0; i < 60_000; i++) {
                x = ops[i % ops.length].applyAsLong(x);
            }
            rounds++;
        } while (!deadline.reached());
        sink += x;
        return rounds;
    }

    /** The base class of the vtable loop. */
    abstract static class Step {
        abstract long step(long x);
    }

    static final class Add extends Step {
        @Override
        long step(long x) {
            return x + 1;
        }
    }

    static final class Xor extends Step {
        @Override
        long step(long x) {
            return x ^ 0x5555;
        }
    }

    static final class Mul extends Step {
        @Override
        long step(long x) {
            return x * 3;
        }
    }

    static final class Sub extends Step {
        @Override
        long step(long x) {
            return x - 7;
        }
    }

    static final class Rot extends Step {
        @Override
        long step(long x) {
            return x >>> 1 | x << 63;
        }
    }

    static final class Not extends Step {
        @Override
        long step(long x) {
            return ~x;
        }
    }

    /** Six subclasses' overrides, called in turn from one call site. */
    static long vtableLoop(Deadline deadline) {
        Step[] steps = {new Add(), new Xor(), new Mul(), new Sub(), new Rot(), new Not()};
        long x = 1;
        long rounds = 0;
        do {
            for (int i = 0; i < 60_000; i++) {
                x = steps[i % steps.length].step(x);
            }
            rounds++;
        } while (!deadline.reached());
        sink += x;
        return rounds;
    }

    /** CRC32, Adler32, Base64, MD5 and SHA-1 over buffers, in turn. */
    static long intrinsicsLoop(Deadline deadline) {
        MessageDigest md5;
        MessageDigest sha1;
        try {
            md5 = MessageDigest.getInstance("MD5");
            sha1 = MessageDigest.getInstance("SHA-1");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        byte[] buf = "flyprof stub loops ".repeat(1_000).getBytes(StandardCharsets.UTF_8);
        Base64.Encoder enc = Base64.getEncoder();
        Base64.Decoder dec = Base64.getDecoder();
        CRC32 crc = new CRC32();
        Adler32 adler = new Adler32();
        long x = 0;
        long rounds = 0;
        do {
            buf[(int) (rounds % buf.length)] ^= (byte) rounds;
            crc.reset();
            crc.update(buf, 0, buf.length);
            x += crc.getValue();
            adler.reset();
            adler.update(buf, 0, buf.length);
            x += adler.getValue();
            byte[] e = enc.encode(buf);
            x += dec.decode(e).length;
            x += md5.digest(buf)[0];
            x += sha1.digest(buf)[0];
            rounds++;
        } while (!deadline.reached());
        sink += x;
        return rounds;
    }

    static long run(String mode, Deadline deadline) {
        switch (mode) {
        case "arraycopy":
            return deleteLoop(deadline);
        case "itable":
            return itableLoop(deadline);
        case "vtable":
            return vtableLoop(deadline);
        case "intrinsics":
            return intrinsicsLoop(deadline);
        default:
            throw new IllegalArgumentException(mode);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1 || !java.util.List.of("arraycopy", "itable", "vtable", "intrinsics")
                .contains(args[0])) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        String mode = args[0];
        Deadline deadline = new Deadline(Measure.ns(Measure.seconds(args, 1, 3, USAGE)),
                args.length > 2 ? args[2] : null);
        java.io.File go = args.length > 3 ? new java.io.File(args[3]) : null;
        Measure.init();
        long[] out = new long[2];
        Thread worker = new Thread(() -> {
            while (go != null && !go.exists()) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
            out[0] = run(mode, deadline);
            out[1] = Measure.threadCpuNs();
        }, "stub-worker");
        worker.start();
        worker.join();
        Measure.result("workload", "StubLoops", "mode", mode, "rounds", out[0],
                "worker_cpu_ns", out[1], "process_cpu_ns", Measure.processCpuNs(),
                "sink", sink);
    }
}
