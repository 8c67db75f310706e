package dev.flyprof.workload;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * javac from the JDK, run in-process on a thread {@code javac-worker}: generates N source files
 * (classes with generics, lambdas, loops, string switches and inner classes, each using the
 * previous one) into a temporary directory and compiles them all, again and again, until the
 * deadline. Real, varied code, much of it interpreted or freshly compiled, which exercises every
 * kind of frame a stack walker meets (interpreter, C1, C2, stubs, adapters).
 *
 * <p>Usage: {@code JavacLoop [cpu-seconds] [classes] [stop-file]} (default 6 s, 400 classes):
 * compiles until the worker has used that much CPU, or until stop-file exists; at least one
 * compilation runs to its end. Prints {@code result} with the compilations done and the
 * worker's CPU time.
 */
public final class JavacLoop {
    static final String USAGE = "JavacLoop [cpu-seconds] [classes] [stop-file]";

    private JavacLoop() {
    }

    /** The source of class Gen{i}, which uses Gen{i-1}. */
    static String source(int i) {
        String prev = i > 0 ? "Gen" + (i - 1) : "Object";
        StringBuilder s = new StringBuilder();
        s.append("package gen;\n")
                .append("import java.util.*;\nimport java.util.function.*;\n")
                .append("public class Gen").append(i).append("<T extends Comparable<T>> {\n")
                .append("    private final List<T> items = new ArrayList<>();\n")
                .append("    private final Map<String, Integer> counts = new HashMap<>();\n")
                .append("    public void add(T t) { items.add(t); counts.merge(String.valueOf(t), ")
                .append(i).append(", Integer::sum); }\n")
                .append("    public Optional<T> max() { return items.stream().max(")
                .append("Comparator.naturalOrder()); }\n")
                .append("    public int score(String key) {\n")
                .append("        switch (key) {\n")
                .append("        case \"a").append(i).append("\": return ").append(i).append(";\n")
                .append("        case \"b").append(i).append("\": return counts.size();\n")
                .append("        default: return key.length() * ").append(i % 7 + 1).append(";\n")
                .append("        }\n    }\n")
                .append("    public long loop(int n) {\n        long x = 0;\n")
                .append("        for (int k = 0; k < n; k++) { x += (k ^ ").append(i)
                .append(") % 13; if (x > 1000) x -= 999; }\n        return x;\n    }\n")
                .append("    public Function<Integer, String> fmt() { return v -> \"v\" + v + \"/")
                .append(i).append("\"; }\n")
                .append("    static final class Inner implements Runnable {\n")
                .append("        int hits;\n")
                .append("        @Override public void run() { hits++; }\n    }\n")
                .append("    public Object prev() { return new ").append(prev);
        if (i > 0) {
            s.append("<String>");
        }
        s.append("(); }\n}\n");
        return s.toString();
    }

    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    /** Compiles the sources until the CPU budget or the stop file; returns {compilations,
     * failures}. */
    static long[] work(long budgetNs, java.io.File stop, int classes) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new IllegalStateException("no system Java compiler (a JRE, not a JDK?)");
        }
        Path dir = Files.createTempDirectory("flyprof-javac");
        try {
            Path src = Files.createDirectories(dir.resolve("src").resolve("gen"));
            Path out = Files.createDirectories(dir.resolve("out"));
            List<String> argv = new ArrayList<>();
            argv.add("-d");
            argv.add(out.toString());
            argv.add("-nowarn");
            for (int i = 0; i < classes; i++) {
                Path f = src.resolve("Gen" + i + ".java");
                Files.write(f, source(i).getBytes(StandardCharsets.UTF_8));
                argv.add(f.toString());
            }
            String[] args = argv.toArray(new String[0]);
            PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
            long done = 0;
            long failed = 0;
            do {
                if (javac.run(null, quiet, quiet, args) != 0) {
                    failed++;
                }
                done++;
            } while (Measure.threadCpuNs() < budgetNs && (stop == null || !stop.exists()));
            return new long[] {done, failed};
        } finally {
            deleteTree(dir);
        }
    }

    public static void main(String[] args) throws Exception {
        long budgetNs = Measure.ns(Measure.seconds(args, 0, 6, USAGE));
        int classes = Measure.count(args, 1, 400, USAGE);
        java.io.File stop = args.length > 2 ? new java.io.File(args[2]) : null;
        Measure.init();
        long[] out = new long[3];
        Exception[] error = new Exception[1];
        Thread worker = new Thread(() -> {
            try {
                long[] r = work(budgetNs, stop, classes);
                out[0] = r[0];
                out[1] = r[1];
            } catch (IOException | RuntimeException e) {
                error[0] = e;
            }
            out[2] = Measure.threadCpuNs();
        }, "javac-worker");
        worker.start();
        worker.join();
        if (error[0] != null) {
            throw error[0];
        }
        Measure.result("workload", "JavacLoop", "classes", classes, "compilations", out[0],
                "failed", out[1], "worker_cpu_ns", out[2],
                "process_cpu_ns", Measure.processCpuNs());
    }
}
