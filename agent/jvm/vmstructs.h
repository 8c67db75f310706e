/* vmstructs.h: HotSpot's own description of its internal classes, read from the tables libjvm
 * exports for its Serviceability Agent (gHotSpotVMStructs: fields and statics, gHotSpotVMTypes:
 * type sizes, gHotSpotVMIntConstants: constants). Field names and types differ between JDK
 * versions (JDK 17's CompiledMethod::_method is JDK 25's nmethod::_method, CodeBlob's code
 * bounds are pointers in 17 and offsets in 25), so callers look up what they need and say what
 * they can do without. Setup context only: nothing here is async-signal-safe.
 *
 * Also: vmstructs_walker_setup gathers everything the stack walker reads in signal handlers
 * (code cache, code blobs, thread stack bounds, frame anchor) into codecache_set_layout, and
 * vmstructs_local_symbol reads libjvm's own symbol table (.symtab) for the few addresses HotSpot
 * does not export.
 *
 * Also used at attach, to find the OS thread id of Java threads that started before the agent
 * was loaded, and by the writer, to tell a jmethodID of an unloaded class (methods.c).
 */
#ifndef VMSTRUCTS_H
#define VMSTRUCTS_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

/* Looks up the non-static field `type::field`: returns its offset, or -1 when the table or the
 * field is missing (another JVM, or a layout this version does not describe). */
int64_t vmstructs_offset(const char *type, const char *field);

/* Looks up the static field `type::field`: returns its address (e.g. the address of
 * ClassLoaderDataGraph::_head), or 0 when the table or the field is missing. */
uintptr_t vmstructs_static_address(const char *type, const char *field);

/* Like vmstructs_offset, also giving the field's C++ type name (e.g. "int", "int16_t") in
 * *ctype when found (a string that lives as long as the JVM). */
int64_t vmstructs_field(const char *type, const char *field, const char **ctype);

/* The address of the static field `type::field`, or NULL. */
void *vmstructs_static(const char *type, const char *field);

/* sizeof(type) as HotSpot describes it, or -1. */
int64_t vmstructs_type_size(const char *type);

/* The integer constant `name` (e.g. "CodeBlobKind::Nmethod") into *value: 0 or -ENOENT. */
int vmstructs_int_constant(const char *name, int32_t *value);

/* The address of a local (not exported) symbol of the shared object that holds `anchor` (an
 * address inside it, e.g. a function exported by libjvm), from that object's .symtab on disk:
 * 0 when the file, its symbol table or the symbol is missing. Reads the file each call. */
uintptr_t vmstructs_local_symbol(const void *anchor, const char *name);

/* Turns HotSpot's DebugNonSafepoints on (found in libjvm's .symtab), so that compiled code
 * records where each instruction's inlined frames are, not only at safepoints: what
 * AsyncGetCallTrace and the walker need to name the inlined frames of the pc they interrupt.
 * HotSpot also turns it on by itself while a JVMTI agent has CompiledMethodLoad events enabled,
 * but posting those (deferred, by the ServiceThread) fails a guarantee on an nmethod that
 * became unloading meanwhile: seen once in the torture test on JDK 25.0.3
 * (jvmtiExport.cpp:2514, "nmethod isn't unloaded or unloading"). Returns 0, or -ENOENT when
 * the symbol is not there (the caller then enables the events instead). Setup context; the
 * first call decides. */
int vmstructs_debug_nonsafepoints(void);

/* The offset in JavaThread of the flag AsyncGetCallTrace sets while it runs, found once by
 * experiment (the crash guard must be installed: the experiment faults inside AGCT on
 * purpose), or -1 when there is none. env is the calling Java thread's JNIEnv, env_offset
 * JNIEnv* minus JavaThread* (threads_env_offset). On a Java thread in native code (VMInit,
 * Agent_OnAttach), while no handler runs. */
int vmstructs_asgct_flag(JNIEnv *env, intptr_t env_offset);

/* Reads every offset the stack walker's handler-side code needs (agent/sigsafe/codecache.h) and hands
 * them to codecache_set_layout; env_offset is JNIEnv* minus JavaThread* (threads_env_offset).
 * Returns 0 when the walker can recover stacks from HotSpot's structures, or -ENOTSUP with a
 * one-line reason in err (the walker then uses plain AsyncGetCallTrace). Only while no
 * handler runs. */
int vmstructs_walker_setup(intptr_t env_offset, char *err, size_t errlen);

/* Tells the crash guard which faults inside libjvm HotSpot expects (SafeFetch), from libjvm's
 * symbol table; once per process. Setup context. */
void vmstructs_guard_setup(void);

#endif
