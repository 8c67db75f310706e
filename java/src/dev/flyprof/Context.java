package dev.flyprof;

/**
 * Trace context for flyprof's samples: which span, of which request, the current thread works
 * for. Every CPU and wall-clock sample taken on a thread while it has a context carries both
 * ids into the profile, so {@code flyprof convert --endpoint RE}, {@code --span ID} and
 * {@code --root-span ID} show what one request, or one kind of request, spent its time on,
 * and {@code flyprof summary} lists the endpoints by time.
 *
 * <p>For tracer authors: call {@link #set(long, long)} whenever a scope becomes current on a
 * thread (a span starts, or a request's work moves to a pool thread) and {@link #clear()} when
 * the thread stops working for it; call {@link #endpoint(long, String)} once per request, from
 * any thread, to name what its root span served (e.g. {@code GET /orders}). {@code set} and
 * {@code clear} cost one JNI call and a few stores (about 10-20 ns); without the agent every
 * call returns at once and throws nothing. A span id of 0 together with a root span id of 0
 * means "no context".
 *
 * <pre>{@code
 * Context.set(span.id(), span.rootId());
 * try {
 *     handle(request);
 * } finally {
 *     Context.clear();
 * }
 * Context.endpoint(span.rootId(), "GET /orders");
 * }</pre>
 */
public final class Context {
    /** The characters (UTF-16 units) of an endpoint name that are kept. */
    public static final int MAX_ENDPOINT_CHARS = 80;

    /** Set by the agent once it has bound the natives of this class. */
    private static volatile boolean bound;

    private Context() {
    }

    /**
     * The current thread now works for span {@code spanId} of the request {@code rootSpanId}.
     * Ignored on a virtual thread: its carrier runs other virtual threads in turn, whose
     * samples would carry this context.
     */
    public static void set(long spanId, long rootSpanId) {
        if (bound && !VirtualThreads.current()) {
            set0(spanId, rootSpanId);
        }
    }

    /** The current thread works for no span any more. Ignored on a virtual thread. */
    public static void clear() {
        if (bound && !VirtualThreads.current()) {
            clear0();
        }
    }

    /**
     * Names the request whose root span is {@code rootSpanId} (its first
     * {@link #MAX_ENDPOINT_CHARS} characters are kept). Any thread; once per request, before
     * the profile ends. A null name is ignored.
     */
    public static void endpoint(long rootSpanId, String name) {
        if (bound && name != null) {
            endpoint0(rootSpanId, name, name.length());
        }
    }

    /** Whether the agent is there to record contexts. */
    public static boolean isBound() {
        return bound;
    }

    private static native void set0(long spanId, long rootSpanId);

    private static native void clear0();

    private static native void endpoint0(long rootSpanId, String name, int length);
}
