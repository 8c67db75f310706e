package dev.flyprof;

/**
 * A flyweight event log: mark points in your code with {@link #log(int)} or
 * {@link #log(int, String)} and read, afterwards, when each one happened and how far apart they
 * were, to the nanosecond ({@code flyprof events profile.fpl}).
 *
 * <p>Each call stamps the CPU's time-stamp counter on the event and puts it, with the calling
 * thread, {@code n} and the string, into a buffer of the calling thread's own: no lock, no
 * allocation, nothing shared with other threads. It costs a JNI call and a few stores: tens of
 * nanoseconds, a fraction of what {@link System#nanoTime()} and an object would. The agent's
 * writer drains the buffers into the profile. Events are kept while profiling runs (with
 * {@code -agentpath}, after {@code flyprof attach} or {@link Flyprof#start(String)}). When a
 * thread's buffer is full, the call waits for the writer to make room, so nothing is lost and a
 * thread that logs faster than the writer drains is slowed to its pace; the wait is bounded
 * (agent option {@code eventwait=TIME}, 1 s by default, {@code 0ns} never waits), and an event
 * whose wait runs out is dropped, counted (per thread, at the place it went missing) and
 * reported, never silently lost. The agent option {@code events=N} sizes each thread's buffer
 * (N events without a string).
 *
 * <p>Without the agent, or while profiling is stopped, every call returns at once and throws
 * nothing.
 *
 * <pre>{@code
 * Events.log(1, "parse");
 * parse(request);
 * Events.log(2);
 * }</pre>
 * {@code flyprof events} then shows the interval from 1 to 2 on each thread, and a table of
 * count, min, median, p99 and max per pair of consecutive event numbers.
 */
public final class Events {
    /** The characters (UTF-16 units) of a string that are kept; the rest is cut off. */
    public static final int MAX_CHARS = 63;

    /** Set by the agent once it has bound the natives of this class. */
    private static volatile boolean bound;

    private Events() {
    }

    /** Logs event {@code n} on the current thread. */
    public static void log(int n) {
        if (bound) {
            log0(n);
        }
    }

    /**
     * Logs event {@code n} with a string on the current thread. The first {@link #MAX_CHARS}
     * characters are kept (any Unicode; a longer string is marked as truncated). A null
     * {@code s} logs the event without a string, as {@link #log(int)}.
     */
    public static void log(int n, String s) {
        if (bound) {
            if (s == null) {
                log0(n);
            } else {
                log1(n, s, s.length());
            }
        }
    }

    /** Whether the agent is there to record events (they are kept while profiling runs). */
    public static boolean isBound() {
        return bound;
    }

    private static native void log0(int n);

    private static native void log1(int n, String s, int length);
}
