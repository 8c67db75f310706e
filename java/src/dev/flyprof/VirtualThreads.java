package dev.flyprof;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Whether the calling thread is a virtual thread (JDK 21 and later). The agent keeps a
 * thread's context, filter mark and events by OS thread: a virtual thread's would land on its
 * carrier, which runs other virtual threads in turn, and charge their samples to the wrong
 * request. So {@link Context#set}, {@link Context#clear} and {@link ThreadFilter} calls from a
 * virtual thread are ignored. {@code Thread.isVirtual} is looked up once (this jar targets
 * Java 11); through a constant method handle the JIT compiles the check to a type test.
 */
final class VirtualThreads {
    private static final MethodHandle IS_VIRTUAL = lookup();

    private VirtualThreads() {
    }

    private static MethodHandle lookup() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual",
                    MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // before JDK 21: no virtual threads
        }
    }

    /** Whether the current thread is virtual. */
    static boolean current() {
        if (IS_VIRTUAL == null) {
            return false;
        }
        try {
            return (boolean) IS_VIRTUAL.invokeExact(Thread.currentThread());
        } catch (Throwable e) {
            return false;
        }
    }
}
