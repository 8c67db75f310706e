package dev.flyprof.workload;

/**
 * The torture test's JNI thread: {@link #blockAndSpin} runs native code with every signal
 * blocked (tests/jni/torture_blocker.c, loaded from the path given to {@link #load}).
 */
final class TortureBlocker {
    private TortureBlocker() {
    }

    static void load(String path) {
        System.load(path);
    }

    /** Blocks all signals and spins in native code for ns, or until {@link #stop}. */
    static native long blockAndSpin(long ns);

    /** Ends a blockAndSpin early. */
    static native void stop();
}
