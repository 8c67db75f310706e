/* stubnames.h: names of the JVM's stubs as HotSpot gives them in JVMTI DynamicCodeGenerated
 * events (`StubRoutines::...` arraycopy and intrinsic stubs, `vtable stub`, `itable stub`,
 * `Interpreter`, adapters), so that a stub frame is named after the stub itself where its code
 * blob holds many (`StubRoutines (2)`). Each event's range goes into the walker's stub table
 * (codecache_add_stub) with a copy of its name that is never freed: the writer reads names
 * from samples long after the event. Bounded: at most STUBNAMES_BYTES of distinct names.
 */
#ifndef STUBNAMES_H
#define STUBNAMES_H

#include <jni.h>

#define STUBNAMES_BYTES (256 * 1024)

/* The DynamicCodeGenerated callback's work: records [addr, addr + length) as `name`. JVMTI
 * callback context, any thread (serialized here). */
void stubnames_on_dynamic_code(const char *name, const void *addr, jint length);

#endif
