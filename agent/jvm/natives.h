/* natives.h: the JNI natives of the Java API (dev.flyprof.ThreadFilter, dev.flyprof.Flyprof,
 * dev.flyprof.Events, dev.flyprof.Context), bound with RegisterNatives when those classes are prepared (or found
 * loaded at attach), so the application needs no System.loadLibrary and sees no
 * UnsatisfiedLinkError without us. */
#ifndef NATIVES_H
#define NATIVES_H

#include <jvmti.h>

/* ClassPrepare: binds the natives if klass is one of the API classes. */
void natives_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jclass klass);

/* Binds the natives of API classes already loaded (VMInit, attach). */
void natives_bind_loaded(jvmtiEnv *jvmti, JNIEnv *jni);

#endif
