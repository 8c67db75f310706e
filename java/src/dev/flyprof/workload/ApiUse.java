package dev.flyprof.workload;

import dev.flyprof.Flyprof;
import dev.flyprof.ThreadFilter;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Exercises the Java API ({@link Flyprof}, {@link ThreadFilter}) step by step and reports what
 * each call did, so that a test can check the API with and without the agent.
 *
 * <p>Each step prints one line {@code api NAME ok [VALUE]} or {@code api NAME threw CLASS
 * MESSAGE}; VALUE and MESSAGE run to the end of the line. Every Throwable is caught and
 * reported, an {@link UnsatisfiedLinkError} included. The run ends with a {@code result} line.
 *
 * <p>Usage: {@code ApiUse MODE DIR}, MODE one of
 * <ul>
 *   <li>{@code agent} (the agent was started with {@code cpu=...}): stop, stop again, start
 *       with a bad option, start {@code DIR/y.fpl} at 5 ms, start again while running, dump
 *       {@code DIR/z.fpl} while running, stop, and the thread filter round trip;</li>
 *   <li>{@code noagent}: the same calls, which must all be no-ops ({@code DIR/y.fpl} and
 *       {@code DIR/z.fpl} must not appear);</li>
 *   <li>{@code wall} (the agent was started with {@code wall=...} only): stop, start
 *       {@code wall=10ms,wallthreads=2} into {@code DIR/w2.fpl} with three sleeping threads,
 *       stop, start {@code cpu=10ms,wall=20ms} into {@code DIR/w3.fpl}, stop;</li>
 *   <li>{@code render} (the agent was started idle, or stopped: any profile is stopped
 *       first): start {@code cpu=10ms} into {@code DIR/api.html}, dump {@code DIR/dump.html}
 *       while running, stop; with a render budget too small (FLYPROF_RENDER_BUDGET) the dump
 *       and the stop throw, saying why;</li>
 *   <li>{@code idle} (the agent was loaded with {@code idle}, not profiling): status, start
 *       {@code cpu=5ms} into {@code DIR/i.fpl}, status, stop;</li>
 *   <li>{@code alloclock} (the agent loaded {@code idle}): start {@code alloc=64k,lock} into
 *       {@code DIR/al.fpl}, status, allocate 64 MiB ({@link AllocRatio#work}), contend on a
 *       monitor ({@link LockContention#phase}, 4 threads x 20), stop;</li>
 *   <li>{@code loop} (the agent loaded {@code idle}): start {@code cpu=10ms,loop=1s,keep=3}
 *       into {@code DIR/l-%n.fpl}, burn CPU for 4.5 s, stop.</li>
 * </ul>
 */
public final class ApiUse {
    static final String USAGE = "ApiUse agent|noagent|wall|render|idle|alloclock|loop DIR";
    private static volatile long sink;

    private ApiUse() {
    }

    interface Step {
        Object run() throws Exception;
    }

    static void step(String name, Step s) {
        String line;
        try {
            Object v = s.run();
            line = "api " + name + " ok" + (v == null ? "" : " " + v);
        } catch (Throwable e) {
            line = "api " + name + " threw " + e.getClass().getName() + " " + e.getMessage();
        }
        System.out.println(line.replace('\n', ' '));
        System.out.flush();
    }

    static void burn(double seconds) {
        long end = System.nanoTime() + Measure.ns(seconds);
        long x = 1;
        while (System.nanoTime() < end) {
            for (int i = 0; i < 10_000; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        }
        sink += x;
    }

    static void api(String dir) throws Exception {
        String y = dir + "/y.fpl";
        String y2 = dir + "/y2.fpl";
        String z = dir + "/z.fpl";
        step("loaded", () -> Flyprof.isLoaded());
        step("status_started", Flyprof::status);
        burn(1.0);
        step("stop", () -> {
            Flyprof.stop();
            return null;
        });
        step("status_stopped", Flyprof::status);
        step("stop_again", () -> {
            Flyprof.stop();
            return null;
        });
        step("dump_stopped", () -> {
            Flyprof.dump(dir + "/z0.fpl");
            return null;
        });
        step("start_bad", () -> {
            Flyprof.start("cpuu=1,file=" + y2);
            return null;
        });
        step("start_idle", () -> {
            Flyprof.start("idle");
            return null;
        });
        step("status_after_idle", Flyprof::status);
        step("start", () -> {
            Flyprof.start("cpu=5ms,file=" + y);
            return null;
        });
        step("status_restarted", Flyprof::status);
        step("start_running", () -> {
            Flyprof.start("cpu=5ms,file=" + y2);
            return null;
        });
        burn(1.0);
        step("dump", () -> {
            Flyprof.dump(z);
            return null;
        });
        step("dump_empty", () -> {
            Flyprof.dump("");
            return null;
        });
        burn(0.3);
        step("stop_restarted", () -> {
            Flyprof.stop();
            return null;
        });
        step("status_end", Flyprof::status);
    }

    static void filter() throws Exception {
        step("marked_before", () -> ThreadFilter.isMarked());
        step("add", () -> {
            ThreadFilter.add();
            return null;
        });
        step("marked_added", () -> ThreadFilter.isMarked());
        AtomicBoolean other = new AtomicBoolean(true);
        Thread t = new Thread(() -> other.set(ThreadFilter.isMarked()), "api-other");
        t.start();
        t.join();
        step("marked_other_thread", () -> other.get());
        step("remove", () -> {
            ThreadFilter.remove();
            return null;
        });
        step("marked_removed", () -> ThreadFilter.isMarked());
    }

    static void sleepers(int n, double seconds) throws Exception {
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) {
            ts[i] = new Thread(() -> {
                try {
                    Thread.sleep((long) (seconds * 1000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "api-sleeper-" + i);
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
    }

    static void wall(String dir) throws Exception {
        step("loaded", () -> Flyprof.isLoaded());
        step("status_started", Flyprof::status);
        sleepers(3, 0.5);
        step("stop", () -> {
            Flyprof.stop();
            return null;
        });
        step("start_wall", () -> {
            Flyprof.start("wall=10ms,wallthreads=2,file=" + dir + "/w2.fpl");
            return null;
        });
        step("status_wall", Flyprof::status);
        sleepers(3, 1.0);
        step("stop_wall", () -> {
            Flyprof.stop();
            return null;
        });
        step("start_both", () -> {
            Flyprof.start("cpu=10ms,wall=20ms,file=" + dir + "/w3.fpl");
            return null;
        });
        burn(0.7);
        step("stop_both", () -> {
            Flyprof.stop();
            return null;
        });
        step("status_end", Flyprof::status);
    }

    static void render(String dir) throws Exception {
        step("stop_first", () -> {
            Flyprof.stop();
            return null;
        });
        step("start_html", () -> {
            Flyprof.start("cpu=10ms,file=" + dir + "/api.html");
            return null;
        });
        burn(1.0);
        step("dump_html", () -> {
            Flyprof.dump(dir + "/dump.html");
            return null;
        });
        step("stop_html", () -> {
            Flyprof.stop();
            return null;
        });
    }

    static void idle(String dir) throws Exception {
        step("loaded", () -> Flyprof.isLoaded());
        step("status_idle", Flyprof::status);
        step("start", () -> {
            Flyprof.start("cpu=5ms,file=" + dir + "/i.fpl");
            return null;
        });
        step("status_started", Flyprof::status);
        burn(1.0);
        step("stop", () -> {
            Flyprof.stop();
            return null;
        });
    }

    /** Allocation and lock profiling started from Java (the agent loaded idle). */
    static void alloclock(String dir) throws Exception {
        step("start", () -> {
            Flyprof.start("alloc=64k,lock,file=" + dir + "/al.fpl");
            return null;
        });
        step("status_started", Flyprof::status);
        step("allocate", () -> AllocRatio.work(64L << 20));
        step("contend", () -> LockContention.phase("api", true, 20, 2, null));
        step("stop", () -> {
            Flyprof.stop();
            return null;
        });
    }

    /** Rotation (loop=, keep=) started from Java (the agent loaded idle). */
    static void loop(String dir) throws Exception {
        step("start", () -> {
            Flyprof.start("cpu=10ms,loop=1s,keep=3,file=" + dir + "/l-%n.fpl");
            return null;
        });
        burn(4.5);
        step("stop", () -> {
            Flyprof.stop();
            return null;
        });
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        String mode = args[0];
        if (mode.equals("wall")) {
            wall(args[1]);
        } else if (mode.equals("render")) {
            render(args[1]);
        } else if (mode.equals("idle")) {
            idle(args[1]);
        } else if (mode.equals("alloclock")) {
            alloclock(args[1]);
        } else if (mode.equals("loop")) {
            loop(args[1]);
        } else if (mode.equals("agent") || mode.equals("noagent")) {
            api(args[1]);
            filter();
        } else {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        Measure.result("mode", mode, "loaded", Flyprof.isLoaded());
    }
}
