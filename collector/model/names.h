/* names.h: class names made the same in every run of a program. The JVM names generated
 * classes with counters and addresses that change from run to run:
 *
 *   Demo$$Lambda$5/0x0000000800c01a10   a lambda's class (JDK 15-20; JVMTI writes '/' as '.')
 *   Demo$$Lambda/0x000001d0a1003a00     the same on JDK 21 and later
 *   Demo$$Lambda$1/1831932724           the same on JDK 8
 *   Demo$HiddenBody/0x0000000800c03000  any hidden class (Lookup.defineHiddenClass)
 *   java.lang.invoke.LambdaForm$MH/0x0000000801008c00
 *   jdk.proxy2.$Proxy15, com.sun.proxy.$Proxy12
 *   jdk.internal.reflect.GeneratedMethodAccessor12 (and ...ConstructorAccessor,
 *   ...SerializationConstructorAccessor)
 *
 * so the frames of two runs of one program would never merge (in a diff, in folded stacks of
 * two runs, in pprof). names_class drops those parts: Demo$$Lambda, Demo$HiddenBody,
 * java.lang.invoke.LambdaForm$MH, jdk.proxy.$Proxy, jdk.internal.reflect.GeneratedMethodAccessor.
 * Two lambdas of one class then share a name (their bodies, lambda$main$0 etc., stay apart one
 * frame below). Pure; any thread.
 */
#ifndef NAMES_H
#define NAMES_H

#include <stddef.h>

/* Normalizes the class name s (dotted or with '/', NUL-terminated) in place; the result is
 * never longer. Returns its new length. */
size_t names_class(char *s);

#endif
