/* methods.h: jmethodIDs and their names. AGCT can only name a frame whose method already has
 * a jmethodID, and HotSpot creates them lazily: while profiling, create them for every loaded
 * class at the start and for each class as it is prepared (FACTS.md). Not while the agent is
 * idle: HotSpot never frees a jmethodID (nor the block holding it), so ids made for every
 * class a class-loader churn prepares would grow the JVM's memory without bound, for
 * profiles that may never be taken. A jmethodID outlives its class: one whose class was
 * unloaded is named `[unloaded]` without asking JVMTI (methods_stale). */
#ifndef METHODS_H
#define METHODS_H

#include <jvmti.h>
#include <stdint.h>

/* Profiling starts: from now on each class prepared gets its jmethodIDs
 * (methods_on_class_prepare), and every class loaded now gets them here. In that order, so
 * that a class prepared meanwhile gets them one way or the other. Returns the number of
 * classes visited. Live phase, a thread with a JNIEnv (control_start). */
int methods_start(jvmtiEnv *jvmti, JNIEnv *jni);

/* Profiling stopped: classes prepared from now on get no jmethodIDs. Any thread. */
void methods_stop(void);

/* ClassPrepare callback: creates the class's jmethodIDs while profiling (methods_start). */
void methods_on_class_prepare(jvmtiEnv *jvmti, JNIEnv *jni, jclass klass);

/* Classes whose jmethodIDs the agent created (GetClassMethods calls) since it was loaded. Any
 * thread. */
uint64_t methods_classes(void);

struct methods_line {
    int bci;
    int line;
};

/* A resolved method; strings are malloc'ed and owned by the struct. */
struct methods_info {
    int kind;                   /* enum fpl_method_kind: JAVA or NATIVE */
    char *klass;                /* dotted: java.util.HashMap$Node */
    char *name;
    char *signature;
    char *source;               /* "" when unknown */
    int nlines;
    struct methods_line *lines; /* sorted by bci */
};

/* 1 when id is stale by HotSpot's own structures: its class was unloaded (or the id freed),
 * so it must not be handed to JVMTI; 0 when it is valid as far as they tell (or this JVM's
 * layout is unknown). Reads metadata only through a fault-proof copy. Writer thread. */
int methods_stale(jmethodID id);

/* Resolves a jmethodID through JVMTI. Returns 0; -ENOENT when the id is stale
 * (methods_stale: *out is the marker `[unloaded]`, and JVMTI was not called); or -EINVAL when
 * JVMTI refused it (*out is the marker `[unknown_method]`). Writer thread. */
int methods_resolve(jvmtiEnv *jvmti, JNIEnv *jni, jmethodID id, struct methods_info *out);

/* Frees the strings of *m. */
void methods_info_destroy(struct methods_info *m);

#endif
