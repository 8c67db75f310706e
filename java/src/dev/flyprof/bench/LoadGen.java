package dev.flyprof.bench;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.atomic.LongAdder;

/**
 * The load generator for {@link Server}: {@code connections} threads, each with one loopback
 * connection, send a 64-byte request and wait for the 64-byte answer, in a closed loop, until
 * the server closes the connection. Prints {@code result requests=N} at the end.
 *
 * <p>Usage: {@code LoadGen port [connections]} (default 64).
 */
public final class LoadGen {
    private LoadGen() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 64;
        LongAdder done = new LongAdder();
        Thread[] t = new Thread[n];
        for (int i = 0; i < n; i++) {
            t[i] = new Thread(() -> {
                try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    s.setTcpNoDelay(true);
                    OutputStream out = s.getOutputStream();
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    byte[] req = new byte[64];
                    byte[] resp = new byte[64];
                    for (long k = 0;; k++) {
                        req[(int) (k & 63)]++;
                        out.write(req);
                        in.readFully(resp);
                        done.increment();
                    }
                } catch (IOException e) {
                    // the server closed: done
                }
            }, "client-" + i);
            t[i].start();
        }
        for (Thread x : t) {
            x.join();
        }
        System.out.println("result requests=" + done.sum());
    }
}
