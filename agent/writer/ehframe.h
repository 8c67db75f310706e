/* ehframe.h: a reader of x86-64 DWARF call frame information (.eh_frame) that reduces each
 * FDE to the few rules the native walker needs: where the caller's frame (CFA) is, and where
 * the return address and the caller's rbp were saved. Writer thread (reads a loaded module's
 * memory: run it under the crash guard, a module may be unloaded meanwhile).
 *
 * Why our own reader: libunwind 1.6.2 interprets one FDE per call, and every call looks the
 * FDE up again with dl_iterate_phdr between two sigprocmask system calls and takes its memory
 * pool's lock (two more): building libjvm's table (43,666 FDEs) that way cost 0.4-0.5 s of the
 * writer's CPU, most of it in sigprocmask. Reading .eh_frame directly costs milliseconds. What
 * it cannot express with these rules (DWARF expressions other than the PLT's, a CFA on another
 * register, rbp kept in another register) it reports as such, and the caller hands that FDE
 * to libunwind (cfitab.c): a few dozen FDEs in libjvm, libc's signal trampoline. */
#ifndef EHFRAME_H
#define EHFRAME_H

#include <stdint.h>

#include "cfitab.h"

/* One row of an FDE: from start to end, the frame's rule. */
struct ehframe_row {
    uintptr_t start, end;
    struct cfitab_rule rule;
};

#define EHFRAME_MAX_ROWS 512

/* Reads the FDE at fde (an address in a loaded .eh_frame) for code at pc (the .eh_frame_hdr
 * entry's initial location). Stores its rows, in address order, in rows (at most
 * EHFRAME_MAX_ROWS) and their number in *nrows. Returns 0; 1 when a row needs more than
 * struct cfitab_rule says (the FDE is then for libunwind); -EINVAL when the FDE or its CIE does
 * not decode, or describes other code than pc; -E2BIG past EHFRAME_MAX_ROWS rows. */
int ehframe_fde_rows(const unsigned char *fde, uintptr_t pc, struct ehframe_row *rows,
                     int *nrows);

#endif
