/* fpchain.h: a call chain with frame pointers (fpchain.c). */
#ifndef FPCHAIN_H
#define FPCHAIN_H

unsigned long fpchain_level1(unsigned long x);
unsigned long fpchain_level2(unsigned long x);
unsigned long fpchain_level3(unsigned long x);

#endif
