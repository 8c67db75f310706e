// JfrCheck: reads a JFR file with the JDK's own reader (jdk.jfr.consumer.RecordingFile, what
// `jfr`, JMC and IntelliJ read JFR with) and prints its samples as folded stacks, so that a
// test can compare them with flyprof's folded output line for line. Run with the source
// launcher of the JDK under test:
//   java JfrCheck.java [--threads] [--states] [--type EVENT] [--where FIELD=VALUE]... FILE.jfr
// Each event of type EVENT (jdk.ExecutionSample by default) counts one: its stack is folded
// root first, a frame named CLASS.METHOD, or METHOD alone when its class is "" or the frame
// is not Java code (type C++, Kernel, Stub or Marker, or Native with a class without a
// package: a C function's class is its module; the JDK's Native frames are Java methods);
// --threads puts the thread's Java name first, --states ends the line with the thread state's
// frame ([running], [parked], ...) as flyprof's folded wall lines end. Lines are summed and
// printed sorted; --where keeps only the events whose field FIELD reads as VALUE (its
// String.valueOf: `--where endpoint=GET /cpu --where cpu=true` for flyprof.ContextSample).
// Then `events N` and `types T:N,...` (every event type seen, counted) on
// standard error, and with --ids a line `thread NAME=ID` per distinct Java name and
// javaThreadId of the folded events' threads. Exits 2 naming the event when a sample lacks its thread, stack, a frame's
// method or a method's class: a constant-pool key the file never defined.
// EVENT may be several types, comma-separated. The allocation and lock events
// (jdk.ObjectAllocationSample, jdk.JavaMonitorEnter, jdk.ThreadPark, flyprof.LiveObject) are
// folded as flyprof folds its alloc, lock and live samples: the thread is eventThread, the
// line ends with the event's class (objectClass, monitorClass or parkedClass) as Java source
// names it (byte[], java.lang.String), and with --weights an event counts its weight field
// (bytes) or its duration in ns instead of one.
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedMethod;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

public class JfrCheck {
    static final Map<String, String> STATES = Map.of(
        "STATE_RUNNABLE", "[running]",
        "STATE_BLOCKED_ON_MONITOR_ENTER", "[blocked]",
        "STATE_IN_OBJECT_WAIT", "[waiting]",
        "STATE_IN_OBJECT_WAIT_TIMED", "[timed_waiting]",
        "STATE_PARKED", "[parked]",
        "STATE_SLEEPING", "[sleeping]",
        "STATE_IN_NATIVE", "[native]",
        "STATE_JVM_IDLE", "[jvm_idle]");
    static final List<String> NOT_JAVA = List.of("C++", "Kernel", "Stub", "Marker");

    static void fail(String what, RecordedEvent e) {
        System.err.println("JfrCheck: " + what + " in " + e);
        System.exit(2);
    }

    // A class name as RecordedClass.getName() gives it ([B, [Ljava.lang.String;) as Java
    // source names it (byte[], java.lang.String[]).
    static String sourceName(String n) {
        int dims = 0;
        while (n.startsWith("[", dims))
            dims++;
        if (dims == 0)
            return n;
        String base = n.substring(dims);
        String prim = Map.of("Z", "boolean", "B", "byte", "C", "char", "S", "short", "I", "int",
                             "J", "long", "F", "float", "D", "double").get(base);
        if (prim != null)
            base = prim;
        else if (base.startsWith("L") && base.endsWith(";"))
            base = base.substring(1, base.length() - 1);
        else
            return n;
        return base + "[]".repeat(dims);
    }

    public static void main(String[] args) throws Exception {
        boolean threads = false, states = false, ids = false, weights = false;
        String type = "jdk.ExecutionSample", file = null;
        List<String[]> where = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--threads": threads = true; break;
                case "--states": states = true; break;
                case "--ids": ids = true; break;
                case "--weights": weights = true; break;
                case "--type": type = args[++i]; break;
                case "--where": where.add(args[++i].split("=", 2)); break;
                default: file = args[i];
            }
        }
        Map<String, Long> lines = new TreeMap<>();
        Map<String, Long> types = new TreeMap<>();
        Map<String, Long> threadIds = new TreeMap<>();
        long events = 0;
        try (RecordingFile rf = new RecordingFile(Path.of(file))) {
            while (rf.hasMoreEvents()) {
                RecordedEvent e = rf.readEvent();
                types.merge(e.getEventType().getName(), 1L, Long::sum);
                if (!List.of(type.split(",")).contains(e.getEventType().getName()))
                    continue;
                boolean keep = true;
                for (String[] w : where)
                    keep &= String.valueOf((Object) e.getValue(w[0])).equals(w[1]);
                if (!keep)
                    continue;
                events++;
                StringBuilder sb = new StringBuilder();
                RecordedThread t = e.getThread(e.hasField("sampledThread") ? "sampledThread"
                                                                           : "eventThread");
                if (t == null)
                    fail("no thread", e);
                if (threads)
                    sb.append(t.getJavaName()).append(';');
                threadIds.put(t.getJavaName() + "=" + t.getJavaThreadId(), 1L);
                RecordedStackTrace st = e.getStackTrace();
                if (st == null)
                    fail("no stack trace", e);
                List<RecordedFrame> frames = st.getFrames();
                for (int k = frames.size() - 1; k >= 0; k--) {
                    RecordedFrame f = frames.get(k);
                    RecordedMethod m = f.getMethod();
                    if (m == null || m.getType() == null || f.getType() == null)
                        fail("a frame without its method, class or type", e);
                    String cls = m.getType().getName();
                    // a Native frame is a Java method declared native when its class has a
                    // package (the JDK's), a C function otherwise (flyprof's, async-profiler's)
                    boolean cfunc = f.getType().equals("Native")
                        && m.getType().getValue("package") == null;
                    if (cls.isEmpty() || cfunc || NOT_JAVA.contains(f.getType()))
                        sb.append(m.getName());
                    else
                        sb.append(cls).append('.').append(m.getName());
                    if (k > 0)
                        sb.append(';');
                }
                String state = e.hasField("state") ? e.getString("state") : null;
                if (states && state != null && STATES.containsKey(state))
                    sb.append(';').append(STATES.get(state));
                for (String f : List.of("objectClass", "monitorClass", "parkedClass")) {
                    if (!e.hasField(f))
                        continue;
                    if (e.getClass(f) == null)
                        fail("no " + f, e);
                    if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ';')
                        sb.append(';');
                    sb.append(sourceName(e.getClass(f).getName()));
                }
                long w = 1;
                if (weights && e.hasField("weight"))
                    w = e.getLong("weight");
                else if (weights && e.hasField("duration"))
                    w = e.getDuration().toNanos();
                lines.merge(sb.toString(), w, Long::sum);
            }
        }
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, Long> l : lines.entrySet())
            out.append(l.getKey()).append(' ').append(l.getValue()).append('\n');
        System.out.print(out);
        System.err.println("events " + events);
        StringBuilder ts = new StringBuilder("types");
        for (Map.Entry<String, Long> t : types.entrySet())
            ts.append(' ').append(t.getKey()).append(':').append(t.getValue());
        System.err.println(ts);
        if (ids)
            for (String k : threadIds.keySet())
                System.err.println("thread " + k);
    }
}
