/* fpchain.c: a call chain compiled with frame pointers (-fno-omit-frame-pointer, as libjvm
 * and the JDK's libraries are), for test_nativewalk's walk by frame pointer: fpchain_level1
 * -> fpchain_level2 -> fpchain_level3, which spins. Each level uses its callee's result after
 * the call, so none is a tail call. */
#include "fpchain.h"

__attribute__((noinline)) unsigned long fpchain_level3(unsigned long x)
{
    for (int i = 0; i < 2000; i++)
        x = x * 6364136223846793005ul + (unsigned long)i;
    return x;
}

__attribute__((noinline)) unsigned long fpchain_level2(unsigned long x)
{
    unsigned long r = fpchain_level3(x + 1);
    return r ^ (x << 1);
}

__attribute__((noinline)) unsigned long fpchain_level1(unsigned long x)
{
    unsigned long r = fpchain_level2(x * 3);
    return r + (x >> 2);
}
