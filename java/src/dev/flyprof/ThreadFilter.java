package dev.flyprof;

/**
 * The thread filter of flyprof's wall-clock mode: the threads a tracer marks while they serve
 * a request. With the agent option {@code filter}, wall-clock sampling picks only marked
 * threads, so a few samples per tick go to the threads whose latency matters.
 *
 * <p>For tracer authors: call {@link #add()} when the current thread's scope stack goes from
 * empty to non-empty, and {@link #remove()} when it becomes empty again, not on every span:
 * nested spans then cost nothing, and a thread is marked exactly while it works on a request.
 * Both calls cost a few nanoseconds (one JNI call setting one bit) and do nothing when the
 * agent is not loaded.
 */
public final class ThreadFilter {
    /** Set by the agent once it has bound the natives of this class. */
    private static volatile boolean bound;

    private ThreadFilter() {
    }

    /**
     * Marks the current thread. Ignored on a virtual thread: the mark would stay on its
     * carrier, which runs other virtual threads in turn.
     */
    public static void add() {
        if (bound && !VirtualThreads.current()) {
            add0();
        }
    }

    /** Unmarks the current thread. Ignored on a virtual thread. */
    public static void remove() {
        if (bound && !VirtualThreads.current()) {
            remove0();
        }
    }

    /** Whether the current thread is marked (false when the agent is not loaded). */
    public static boolean isMarked() {
        return bound && isMarked0();
    }

    private static native void add0();

    private static native void remove0();

    private static native boolean isMarked0();
}
