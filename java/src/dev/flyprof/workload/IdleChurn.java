package dev.flyprof.workload;

import dev.flyprof.Flyprof;
import java.io.File;

/**
 * Class-loader churn under an agent that idles, and work in a class loaded while it idled.
 * The thread {@code idle-churn} first defines one copy of {@link UnloadHot} in a class loader
 * of its own and keeps it (the keeper: loaded, prepared and run once now, hot later); then,
 * while GO_FILE does not exist, it defines copy after copy of UnloadHot, each in a throwaway
 * class loader, runs it (0.1 ms of CPU) and drops it, with a System.gc() every 200 copies so
 * that the copies are unloaded; while GO_FILE exists, it runs the keeper (UnloadHot.spin) and
 * nothing else. Every class prepared gets jmethodIDs from an agent that makes them for every
 * prepared class, and HotSpot never frees those.
 *
 * <p>Prints {@code phase churn copies=N status=S} every 200 copies, S being
 * {@link Flyprof#status()} (the agent's status line, with its {@code idclasses=} count, or
 * that the agent is not loaded), and {@code phase hot} when it turns to the keeper. Runs until
 * killed.
 *
 * <p>Usage: {@code IdleChurn GO_FILE}.
 */
public final class IdleChurn {
    static final String USAGE = "IdleChurn GO_FILE";

    private IdleChurn() {
    }

    static Runnable copy(byte[] bytes) throws Exception {
        Class<?> c = new UnloadChurn.OneShotLoader(bytes).loadClass(UnloadChurn.HOT);
        return (Runnable) c.getDeclaredConstructor().newInstance();
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
        }
        File go = new File(args[0]);
        System.setProperty("unloadhot.ns", "100000");
        byte[] bytes = UnloadChurn.hotBytes();
        Thread t = new Thread(() -> {
            try {
                Runnable keeper = copy(bytes);
                keeper.run();
                long copies = 0;
                boolean hot = false;
                for (;;) {
                    if (go.exists()) {
                        if (!hot) {
                            System.out.println("phase hot");
                            System.out.flush();
                            hot = true;
                        }
                        keeper.run();
                        continue;
                    }
                    hot = false;
                    copy(bytes).run();
                    copies++;
                    if (copies % 200 == 0) {
                        System.gc();
                        System.out.println("phase churn copies=" + copies + " status="
                                + Flyprof.status());
                        System.out.flush();
                    }
                }
            } catch (Exception e) {
                e.printStackTrace();
                System.exit(1);
            }
        }, "idle-churn");
        t.start();
        t.join();
    }
}
