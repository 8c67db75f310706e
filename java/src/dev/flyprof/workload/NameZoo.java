package dev.flyprof.workload;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.function.LongUnaryOperator;

/**
 * Frames of every shape of name a JVM produces, each one burning a known CPU budget of the
 * thread it runs on, so a profile must show all of them:
 * <ul>
 * <li>a nested class and a method with non-ASCII names ({@code NameZoo$Größe.计算}), a method
 * with a Cyrillic name ({@code данные}), and one whose name is outside the Basic Multilingual
 * Plane ({@code 𝔡𝔞𝔱𝔞}, stored by the JVM as surrogate pairs in modified UTF-8);
 * <li>a lambda (its body {@code lambda$...} and the JVM's {@code NameZoo$$Lambda...} class);
 * <li>an anonymous class ({@code NameZoo$1}) and an inner (non-static) class
 * ({@code NameZoo$Inner});
 * <li>a hidden class ({@code NameZoo$HiddenBody/0x...}), defined at run time with
 * {@code Lookup.defineHiddenClass} (JDK 15 and later; called reflectively since the jar is
 * built for Java 11; on older JDKs it is skipped and the result line says so).
 * </ul>
 * Everything runs on one thread named {@code работник-工作-ü;x} (non-ASCII, and a ';' which
 * folded stacks cannot hold in a name).
 *
 * <p>Usage: {@code NameZoo [seconds]} (default 0.4): the CPU budget of each shape. Prints
 * {@code result} with {@code hidden=defined} or {@code hidden=unsupported} and the CPU time the
 * worker used.
 */
public final class NameZoo {
    static final String USAGE = "NameZoo [seconds]";
    static final String WORKER = "работник-工作-ü;x";

    private NameZoo() {
    }

    /** Burns budgetNs of the calling thread's CPU; returns a value that depends on all of it. */
    static long spin(long budgetNs) {
        long x = budgetNs | 1;
        long end = Measure.threadCpuNs() + budgetNs;
        do {
            for (int i = 0; i < 50_000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        } while (Measure.threadCpuNs() < end);
        return x;
    }

    /** A nested class and a method with non-ASCII names. */
    static final class Größe {
        private Größe() {
        }

        static long 计算(long ns) {
            return spin(ns);
        }
    }

    static long данные(long ns) {
        return spin(ns);
    }

    static long 𝔡𝔞𝔱𝔞(long ns) {
        return spin(ns);
    }

    /** An inner (non-static) class. */
    final class Inner {
        long work(long ns) {
            return spin(ns);
        }
    }

    /** The class made hidden at run time: its bytes are read from the jar and defined anew. */
    public static final class HiddenBody implements LongUnaryOperator {
        public HiddenBody() {
        }

        @Override
        public long applyAsLong(long ns) {
            return spin(ns);
        }
    }

    /** The bytes of a class of this package from the class path. */
    static byte[] classBytes(String simpleName) throws IOException {
        try (InputStream in = NameZoo.class.getResourceAsStream(simpleName + ".class")) {
            if (in == null) {
                throw new IOException("no class file for " + simpleName);
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            for (int n; (n = in.read(buf)) > 0;) {
                out.write(buf, 0, n);
            }
            return out.toByteArray();
        }
    }

    /**
     * A HiddenBody defined as a hidden class, or null when this JDK has no hidden classes
     * (before 15).
     */
    static LongUnaryOperator hiddenBody() throws Throwable {
        Class<?> option;
        try {
            option = Class.forName("java.lang.invoke.MethodHandles$Lookup$ClassOption");
        } catch (ClassNotFoundException e) {
            return null;
        }
        Object noOptions = Array.newInstance(option, 0);
        Method define = MethodHandles.Lookup.class.getMethod("defineHiddenClass", byte[].class,
                boolean.class, noOptions.getClass());
        MethodHandles.Lookup lookup = (MethodHandles.Lookup) define.invoke(MethodHandles.lookup(),
                classBytes("NameZoo$HiddenBody"), true, noOptions);
        Class<?> hidden = lookup.lookupClass();
        MethodHandle ctor = lookup.findConstructor(hidden, MethodType.methodType(void.class));
        return (LongUnaryOperator) ctor.invoke();
    }

    static long runAll(long ns) throws Throwable {
        long x = Größe.计算(ns);
        x ^= данные(ns);
        x ^= 𝔡𝔞𝔱𝔞(ns);
        LongUnaryOperator lambda = n -> spin(n);
        x ^= lambda.applyAsLong(ns);
        LongUnaryOperator anonymous = new LongUnaryOperator() {
            @Override
            public long applyAsLong(long n) {
                return spin(n);
            }
        };
        x ^= anonymous.applyAsLong(ns);
        x ^= new NameZoo().new Inner().work(ns);
        LongUnaryOperator hidden = hiddenBody();
        if (hidden != null) {
            x ^= hidden.applyAsLong(ns);
        }
        Measure.result("workload", "NameZoo", "hidden", hidden != null ? "defined" : "unsupported",
                "hidden_class", hidden != null ? hidden.getClass().getName() : "none",
                "worker_cpu_ns", Measure.threadCpuNs(), "checksum", Long.toHexString(x));
        return x;
    }

    public static void main(String[] args) throws Throwable {
        long ns = Measure.ns(Measure.seconds(args, 0, 0.4, USAGE));
        Measure.init();
        Throwable[] failure = new Throwable[1];
        Thread worker = new Thread(() -> {
            try {
                runAll(ns);
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, WORKER);
        worker.start();
        worker.join();
        if (failure[0] != null) {
            throw failure[0];
        }
    }
}
