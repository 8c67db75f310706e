/* crashguard_foreign.c: a library that is not one the crash guard's walks run (test_crashguard):
 * its reads fault in its own code, as a second profiler's signal handler would. */
#include <stdint.h>

int crashguard_foreign_read(const volatile int *p);

/* Reads *p (a fault when p is not mapped). */
int crashguard_foreign_read(const volatile int *p)
{
    return *p;
}
