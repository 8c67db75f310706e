/* jnifloor.c: the JNI floor for the events benchmark: dev.flyprof.bench.EventCost.empty(int),
 * a static native that does nothing, so EventCost can time a bare JNI call exactly as it times
 * Events.log. Loaded by the benchmark with System.load; never by the agent. */
#include <jni.h>

JNIEXPORT void JNICALL Java_dev_flyprof_bench_EventCost_empty(JNIEnv *env, jclass cls, jint n);

JNIEXPORT void JNICALL Java_dev_flyprof_bench_EventCost_empty(JNIEnv *env, jclass cls, jint n)
{
    (void)env;
    (void)cls;
    (void)n;
}
