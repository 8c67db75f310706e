/* vmstructs.h: field offsets of HotSpot's internal classes, read from the gHotSpotVMStructs
 * table libjvm exports for its Serviceability Agent. Used at attach, to find the OS thread id
 * of Java threads that started before the agent was loaded, and by the writer, to tell a
 * jmethodID of an unloaded class (methods.c). Setup context only. */
#ifndef VMSTRUCTS_H
#define VMSTRUCTS_H

#include <stdint.h>

/* Looks up `type::field` in the table: returns its offset, or -1 when the table or the field
 * is missing (another JVM, or a layout this version does not describe). */
int64_t vmstructs_offset(const char *type, const char *field);

/* Looks up the static field `type::field`: returns its address (e.g. the address of
 * ClassLoaderDataGraph::_head), or 0 when the table or the field is missing. */
uintptr_t vmstructs_static_address(const char *type, const char *field);

#endif
