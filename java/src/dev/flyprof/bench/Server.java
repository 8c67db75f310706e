package dev.flyprof.bench;

import java.io.DataInputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A server shaped like a busy Java service, for the wall-clock cost benchmark: most of its
 * threads wait, a few work. On loopback, a thread-per-connection server (as a blocking-I/O
 * servlet container): an acceptor thread blocks in accept(), each connection thread blocks in a
 * socket read (RUNNABLE, in native, to the JVM), reads a 64-byte request, hashes a buffer
 * ({@code work} rounds of SHA-256 over 256 bytes), and writes a 64-byte answer. Beside them
 * an idle pool of {@code idle} threads parked on an empty queue (a servlet container's spare
 * workers) and a scheduler thread waiting with a timeout. {@link LoadGen}, in another JVM,
 * sends requests over {@code connections} connections in a closed loop.
 *
 * <p>The server waits for the first request, lets the load run {@code warmup} seconds, then
 * counts requests, the process's CPU time and its agent threads' (named "flyprof...", from
 * /proc) over {@code seconds} seconds and prints {@code result requests=N cpu_ns=C
 * cpu_per_request_ns=C/N agent_threads_cpu_ns=A ...}, and exits (closing the connections ends
 * the load generator).
 *
 * <p>Usage: {@code Server [idle] [work] [warmup] [seconds]} (default 200 idle threads,
 * 4 rounds, 3 s, 10 s). Prints {@code port=P} on its first line.
 */
public final class Server {
    static final String USAGE = "Server [idle] [work] [warmup] [seconds]";
    static final LongAdder REQUESTS = new LongAdder();
    static final CountDownLatch FIRST = new CountDownLatch(1);
    static volatile long sink;

    private Server() {
    }

    /** CPU time of this process's threads whose name starts with "flyprof" (the agent's own
     * threads: JVMTI agent threads are hidden from the management API), from /proc. */
    static long agentCpuNs() {
        long sum = 0;
        File[] tasks = new File("/proc/self/task").listFiles();
        if (tasks == null) {
            return -1;
        }
        for (File t : tasks) {
            try {
                String comm = new String(Files.readAllBytes(new File(t, "comm").toPath()),
                        StandardCharsets.UTF_8);
                if (comm.startsWith("flyprof")) {
                    String st = new String(Files.readAllBytes(new File(t, "schedstat").toPath()),
                            StandardCharsets.UTF_8);
                    sum += Long.parseLong(st.trim().split("\\s+")[0]);
                }
            } catch (IOException | NumberFormatException e) {
                // a thread that ended meanwhile
            }
        }
        return sum;
    }

    static long processCpuNs() {
        java.lang.management.OperatingSystemMXBean os =
                ManagementFactory.getOperatingSystemMXBean();
        return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
    }

    /** One connection: request, work, answer, until the peer closes. */
    static void serve(Socket s, int work) {
        try (Socket sock = s) {
            sock.setTcpNoDelay(true);
            DataInputStream in = new DataInputStream(sock.getInputStream());
            OutputStream out = sock.getOutputStream();
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            byte[] req = new byte[64];
            byte[] buf = new byte[256];
            byte[] resp = new byte[64];
            for (;;) {
                in.readFully(req);
                FIRST.countDown();
                for (int i = 0; i < work; i++) {
                    buf[i & 255] ^= req[i & 63];
                    md.update(buf);
                    byte[] d = md.digest();
                    System.arraycopy(d, 0, resp, 0, d.length);
                }
                out.write(resp);
                REQUESTS.increment();
            }
        } catch (IOException e) {
            // the peer closed: done
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static int arg(String[] args, int i, int dflt) {
        if (args.length <= i) {
            return dflt;
        }
        try {
            return Integer.parseInt(args[i]);
        } catch (NumberFormatException e) {
            System.err.println("usage: " + USAGE);
            System.exit(2);
            return dflt;
        }
    }

    public static void main(String[] args) throws Exception {
        int idle = arg(args, 0, 200);
        int work = arg(args, 1, 4);
        int warmup = arg(args, 2, 3);
        int seconds = arg(args, 3, 10);
        ThreadPoolExecutor pool = new ThreadPoolExecutor(idle, idle, 1, TimeUnit.HOURS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, "idle-worker");
                    t.setDaemon(true);
                    return t;
                });
        pool.prestartAllCoreThreads();
        ScheduledExecutorService sched = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "scheduler");
            t.setDaemon(true);
            return t;
        });
        sched.scheduleAtFixedRate(() -> sink++, 100, 100, TimeUnit.MILLISECONDS);
        ServerSocket ss = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        System.out.println("port=" + ss.getLocalPort());
        System.out.flush();
        ExecutorService conns = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "conn");
            t.setDaemon(true);
            return t;
        });
        Thread acceptor = new Thread(() -> {
            try {
                for (;;) {
                    Socket s = ss.accept();
                    conns.execute(() -> serve(s, work));
                }
            } catch (IOException e) {
                // closed at the end
            }
        }, "acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        FIRST.await();
        Thread.sleep(warmup * 1000L);
        long r0 = REQUESTS.sum();
        long c0 = processCpuNs();
        long a0 = agentCpuNs();
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        long r1 = REQUESTS.sum();
        long c1 = processCpuNs();
        long a1 = agentCpuNs();
        long t1 = System.nanoTime();
        long n = r1 - r0;
        System.out.println("result requests=" + n + " cpu_ns=" + (c1 - c0) + " wall_ns=" + (t1 - t0)
                + " cpu_per_request_ns=" + (n > 0 ? (c1 - c0) / n : 0) + " agent_threads_cpu_ns="
                + (a1 - a0) + " idle=" + idle + " work=" + work);
        System.out.flush();
        ss.close();
        System.exit(0);
    }
}
