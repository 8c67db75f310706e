package dev.flyprof;

/**
 * Control of the flyprof agent from inside the application: start and stop profiling, write
 * the profile so far, ask for the status. Every call is a cheap no-op when the agent is not
 * loaded (start with {@code -agentpath:/path/to/libflyprof.so}, or attach with
 * {@code flyprof attach PID}); none throws {@link UnsatisfiedLinkError}.
 *
 * <p>Options are the agent's, for example {@code "cpu=10ms,wall=50ms,file=/tmp/app.fpl"}.
 * When the agent refuses (a malformed option, profiling already running, an unwritable file)
 * the call throws an {@link IllegalStateException} or {@link IllegalArgumentException} that
 * carries the agent's message.
 */
public final class Flyprof {
    /** Set by the agent once it has bound the natives of this class. */
    private static volatile boolean bound;

    private Flyprof() {
    }

    /** Whether the flyprof agent is loaded in this JVM. */
    public static boolean isLoaded() {
        return bound;
    }

    /** Starts profiling with the given agent options. */
    public static void start(String options) {
        if (bound) {
            start0(options == null ? "" : options);
        }
    }

    /** Stops profiling and completes the output. */
    public static void stop() {
        if (bound) {
            stop0();
        }
    }

    /** Writes the profile recorded so far to file, without stopping. */
    public static void dump(String file) {
        if (bound) {
            if (file == null || file.isEmpty()) {
                throw new IllegalArgumentException("flyprof: dump needs a file name");
            }
            dump0(file);
        }
    }

    /** A one-line status: whether profiling runs, its modes, samples so far, the output. */
    public static String status() {
        return bound ? status0() : "flyprof agent not loaded";
    }

    private static native void start0(String options);

    private static native void stop0();

    private static native void dump0(String file);

    private static native String status0();
}
