/* classnames.h: class names for the leaf frames of alloc and lock samples, interned: each
 * distinct name is stored once, as a Java programmer writes it (java.lang.String, byte[],
 * java.lang.Object[][]), and lives as long as the JVM, so a ring record can carry a pointer to
 * it (SAMPLE_FT_CLASS) and the writer can key stacks by it. Bounded: at most
 * CLASSNAMES_MAX names of up to CLASSNAMES_LEN bytes (a few MiB at worst); past that every new
 * class is CLASSNAMES_FULL. Any thread but a signal handler (a JVMTI callback, typically):
 * takes a mutex held for a table probe. */
#ifndef CLASSNAMES_H
#define CLASSNAMES_H

#include <jvmti.h>
#include <stddef.h>

#define CLASSNAMES_MAX 16384
#define CLASSNAMES_LEN 512
#define CLASSNAMES_FULL "[other class]"
#define CLASSNAMES_UNKNOWN "[unknown class]"

/* The interned name of klass (JVMTI GetClassSignature): never NULL, never freed. */
const char *classnames_of(jvmtiEnv *jvmti, jclass klass);

/* The interned name of a JVM type signature ("[B", "Ljava/lang/String;"). Never NULL. */
const char *classnames_intern_signature(const char *sig);

/* Writes the Java name of type signature sig into out[0..len) (NUL-terminated, cut to fit):
 * "[B" -> "byte[]", "[[Ljava/lang/String;" -> "java.lang.String[][]", "La/B$C;" -> "a.B$C".
 * Pure; exposed for tests. */
void classnames_from_signature(const char *sig, char *out, size_t len);

#endif
