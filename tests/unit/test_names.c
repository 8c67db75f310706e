/* test_names.c: names_class on the names real JVMs give generated classes (JDK 8, 17, 21+),
 * and on names it must leave alone. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "names.h"

static void check(const char *in, const char *want)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "%s", in);
    size_t n = names_class(buf);
    CHECK_EQ_U(n, strlen(buf));
    if (strcmp(buf, want) != 0) {
        harness_fail++;
        fprintf(stderr, "names_class(\"%s\") = \"%s\", want \"%s\"\n", in, buf, want);
    } else {
        harness_pass++;
    }
}

int main(void)
{
    /* lambdas: JDK 15-20 (hidden, counter and address), 21+ (address only), 8 (counter and a
     * decimal id), dotted as JVMTI writes them or with '/' */
    check("Demo$$Lambda$5.0x00007faa50001a10", "Demo$$Lambda");
    check("com.foo.Bar$$Lambda$14/0x0000000800c03000", "com.foo.Bar$$Lambda");
    check("dev.flyprof.workload.NameZoo$$Lambda.0x000001d0a1003a00",
          "dev.flyprof.workload.NameZoo$$Lambda");
    check("Foo$$Lambda$1/1831932724", "Foo$$Lambda");
    check("Foo$$Lambda$1.1831932724", "Foo$$Lambda");
    check("Outer$Inner$$Lambda$123", "Outer$Inner$$Lambda");
    /* hidden classes and lambda forms */
    check("dev.flyprof.workload.NameZoo$HiddenBody.0x0000000800c0b000",
          "dev.flyprof.workload.NameZoo$HiddenBody");
    check("java.lang.invoke.LambdaForm$MH/0x0000000801008c00", "java.lang.invoke.LambdaForm$MH");
    check("java.lang.invoke.LambdaForm$DMH.0x00000008010c4400", "java.lang.invoke.LambdaForm$DMH");
    /* proxies and reflection accessors */
    check("jdk.proxy2.$Proxy15", "jdk.proxy.$Proxy");
    check("com.sun.proxy.$Proxy12", "com.sun.proxy.$Proxy");
    check("jdk.internal.reflect.GeneratedMethodAccessor12",
          "jdk.internal.reflect.GeneratedMethodAccessor");
    check("sun.reflect.GeneratedConstructorAccessor3", "sun.reflect.GeneratedConstructorAccessor");
    check("jdk.internal.reflect.GeneratedSerializationConstructorAccessor77",
          "jdk.internal.reflect.GeneratedSerializationConstructorAccessor");

    /* left alone: ordinary classes, digits that are part of a name, an address not at the end,
     * hex without 0x, look-alikes inside a longer name */
    check("com.example.App", "com.example.App");
    check("com.example.Http2Codec", "com.example.Http2Codec");
    check("com.example.App$1", "com.example.App$1");
    check("com.example.App$Lambda$5", "com.example.App$Lambda$5");
    check("com.example.Base64", "com.example.Base64");
    check("com.example.MyGeneratedMethodAccessor12", "com.example.MyGeneratedMethodAccessor12");
    check("com.example.$Proxy12Factory", "com.example.$Proxy12Factory");
    check("jdk.proxyfoo.X", "jdk.proxyfoo.X");
    check("a.0x12.B", "a.0x12.B");
    check("a.0xzz", "a.0xzz");
    check("a.0x", "a.0x");
    check("Foo$$Lambda$", "Foo$$Lambda$");
    check("", "");
    return harness_result("test_names");
}
