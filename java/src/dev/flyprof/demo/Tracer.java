package dev.flyprof.demo;

import dev.flyprof.Context;
import dev.flyprof.ThreadFilter;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's tracer, as small as a tracer gets: a request is a root span, work inside it may
 * open child spans, and whichever thread works for a span tells flyprof so
 * ({@link Context#set(long, long)}); a thread is in flyprof's thread filter while it works for
 * any request ({@link ThreadFilter}), and each request is named once it is served
 * ({@link Context#endpoint(long, String)}). Without the agent every call is a no-op.
 */
final class Tracer {
    private static final AtomicLong IDS = new AtomicLong(1000);

    private Tracer() {
    }

    /** A new root span id. */
    static long newRequest() {
        return IDS.incrementAndGet();
    }

    /** This thread now works for the request's root span. */
    static void enter(long root) {
        ThreadFilter.add();
        Context.set(root, root);
    }

    /** A child span of the request, current on this thread until {@link #closeChild}. */
    static long openChild(long root) {
        long span = IDS.incrementAndGet();
        Context.set(span, root);
        return span;
    }

    /** Back to the request's root span. */
    static void closeChild(long root) {
        Context.set(root, root);
    }

    /** This thread is done with the request; names it. */
    static void exit(long root, String endpoint) {
        Context.clear();
        ThreadFilter.remove();
        Context.endpoint(root, endpoint);
    }
}
