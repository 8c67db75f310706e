/* seccomp_jni.c: the JNI library of the seccomp workload (libflyprof_seccomp.so): puts the
 * whole JVM under a seccomp filter that refuses process_vm_readv (EPERM) or kills the process
 * for it, as a container's or systemd's filter may (tests/jni/seccomp_filter.h).
 *
 * dev.flyprof.workload.Seccomp.install(boolean kill): returns 0, or -errno when the filter
 * could not be installed. */
#include <jni.h>

#include "seccomp_filter.h"

JNIEXPORT jint JNICALL Java_dev_flyprof_workload_Seccomp_install(JNIEnv *env, jclass cls,
                                                                 jboolean kill);

JNIEXPORT jint JNICALL Java_dev_flyprof_workload_Seccomp_install(JNIEnv *env, jclass cls,
                                                                 jboolean kill)
{
    (void)env;
    (void)cls;
    int nrs[1] = {SYS_process_vm_readv};
    return seccomp_filter_install(nrs, 1, kill, EPERM);
}
