/* methods.h: jmethodIDs and their names. AGCT can only name a frame whose method already has
 * a jmethodID, and HotSpot creates them lazily: preload them for every loaded class and for
 * each class as it is prepared (FACTS.md). A jmethodID outlives its class: one whose class
 * was unloaded is named `[unloaded]` without asking JVMTI (methods_stale). */
#ifndef METHODS_H
#define METHODS_H

#include <jvmti.h>
#include <stdint.h>

/* Creates jmethodIDs for every loaded class. VMInit or attach (live phase). Returns the
 * number of classes visited. */
int methods_preload(jvmtiEnv *jvmti, JNIEnv *jni);

/* ClassPrepare callback: creates the class's jmethodIDs. */
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
