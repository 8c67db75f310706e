// ContextKinds: requests that allocate, wait for locks and keep objects alive inside a trace
// context (dev.flyprof.Context), and a thread that does the same outside every request, for
// test_jfr_context.py. Run from source with flyprof.jar on the class path:
//   java [-agentpath:...=alloc=...,lock=...,live] -cp flyprof.jar ContextKinds.java SECONDS [GO]
//
// Threads req-0 and req-1 serve requests one after another; a request (root span 1000 + n,
// named when it ends) allocates 32 byte[1000] it keeps in a ring of the last 20000 (live when
// profiling stops: main ends in System.exit so that the ring stays reachable), then waits: a `GET /monitor` request on a monitor, a `GET /park` request on
// a ReentrantLock, each of which the holder thread keeps for 4 ms at a time. The thread
// `outside` allocates, keeps and waits for both locks with no context. With GO, the work
// starts once that file exists (an attach comes first; the holder runs before). Prints a
// `result` line.
import dev.flyprof.Context;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

public final class ContextKinds {
    static final Object MONITOR = new Object();
    static final ReentrantLock RLOCK = new ReentrantLock();
    static final AtomicLong SPANS = new AtomicLong(1000);
    static final byte[][] KEPT = new byte[20000][];
    static final AtomicLong NEXT = new AtomicLong();
    static volatile boolean done;
    static volatile long sink;

    private ContextKinds() {
    }

    static void allocate() {
        for (int i = 0; i < 32; i++) {
            byte[] b = new byte[1000];
            KEPT[(int) (NEXT.getAndIncrement() % KEPT.length)] = b;
        }
    }

    static void waitMonitor() {
        synchronized (MONITOR) {
            sink++;
        }
    }

    static void waitPark() {
        RLOCK.lock();
        try {
            sink++;
        } finally {
            RLOCK.unlock();
        }
    }

    static void serve(boolean park) {
        long root = SPANS.incrementAndGet();
        Context.set(root, root);
        try {
            allocate();
            if (park) {
                waitPark();
            } else {
                waitMonitor();
            }
        } finally {
            Context.clear();
            Context.endpoint(root, park ? "GET /park" : "GET /monitor");
        }
    }

    static void hold() throws InterruptedException {
        while (!done) {
            synchronized (MONITOR) {
                Thread.sleep(4);
            }
            RLOCK.lock();
            try {
                Thread.sleep(4);
            } finally {
                RLOCK.unlock();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        double secs = Double.parseDouble(args[0]);
        Thread holder = new Thread(() -> {
            try {
                hold();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "holder");
        holder.start();
        if (args.length > 1) {
            Path go = Path.of(args[1]);
            while (!Files.exists(go)) {
                Thread.sleep(10);
            }
        }
        long[] served = new long[3];
        Thread[] threads = {
            new Thread(() -> {
                for (long n = 0; !done; n++) {
                    serve(n % 2 == 1);
                    served[0]++;
                }
            }, "req-0"),
            new Thread(() -> {
                for (long n = 0; !done; n++) {
                    serve(n % 2 == 0);
                    served[1]++;
                }
            }, "req-1"),
            new Thread(() -> {
                while (!done) {
                    allocate();
                    waitMonitor();
                    waitPark();
                    served[2]++;
                }
            }, "outside"),
        };
        for (Thread t : threads) {
            t.start();
        }
        Thread.sleep((long) (secs * 1000));
        done = true;
        for (Thread t : threads) {
            t.join();
        }
        holder.join();
        System.out.println("result requests=" + (served[0] + served[1]) + " outside=" + served[2]
                + " bound=" + Context.isBound());
        // exit from main: its frame keeps this class, loaded by the source launcher's own
        // loader, and with it KEPT reachable while the agent finds its live objects
        System.out.flush();
        System.exit(0);
    }
}
