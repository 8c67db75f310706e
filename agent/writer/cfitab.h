/* cfitab.h: the unwind tables of the native stack walker (nativewalk.c), built outside signal
 * handlers from each loaded module's DWARF call frame information.
 *
 * Why tables: libunwind 1.6.2's local unw_step, on a pc whose register state is not in its
 * cache, looks the FDE up with dl_iterate_phdr (the loader's lock) and allocates the parsed CIE
 * from a memory pool guarded by a pthread mutex (src/dwarf/Gfde.c, src/mi/mempool.c); the cache
 * itself is global and locked (Debian's build has no per-thread cache), and no priming covers
 * every pc. So the handler never calls unw_step. Instead, a writer-side pass runs libunwind's
 * own CFI interpreter over every FDE of a module (unw_reg_states_iterate: rows of
 * [start, end) -> register state), deduplicates the opaque states and keeps a sorted row array
 * per module. In the handler a pc is found by binary search and the frame is stepped with
 * unw_apply_reg_state, which only evaluates the rule (CFA, saved registers, DWARF
 * expressions) and reads the stack: no lookup, no allocation, no lock.
 *
 * Tables are built lazily: the handler flags a module it met without a table (wanted), and the
 * writer builds it within its next loop (cfitab_service). Memory: 8 bytes per row after
 * merging (libjvm.so of JDK 17: 43,666 FDEs, 197,070 rows before merging, 49 distinct states
 * of 184 bytes), a few MB for a JVM, in mappings of their own (bigmem.h). They are kept when
 * profiling stops, for the next session: a `flyprof start` after a stop builds only the
 * tables of modules loaded since, where it built libjvm's again (~0.5 s of CPU) before; the
 * modules unloaded meanwhile go with their tables at the next session's first rescan
 * (cfitab_reclaim). cfitab_reset frees everything (tests).
 *
 * Synchronization: the snapshot of modules (sorted by address) and each module's table are
 * published with release stores and read by handlers with acquire loads (nativewalk.c); they
 * are immutable once published. Replaced snapshots, and the modules no longer loaded with
 * their tables, are freed by cfitab_reclaim at a moment no handler runs (the writer asks
 * handler_inflight() after publishing, and once more when a session ends); while
 * handlers never leave the count at 0, at most CFITAB_MAX_SNAPSHOTS are kept and the loader's
 * later changes wait. (Before cfitab_reclaim, a process that loaded and unloaded libraries
 * reached that bound in minutes: the walker then never saw a library loaded after it.)
 */
#ifndef CFITAB_H
#define CFITAB_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define CFITAB_NONE UINT32_MAX     /* row state: no unwind information here */
/* row state: with this bit, the index of a libunwind register state (states[]) for the few
 * frames ehframe.c's rules cannot describe; without it, the index of a rule (rules[]) */
#define CFITAB_UNW 0x80000000u

/* How to find a frame's caller on x86-64 (ehframe.c makes them from DWARF CFI). kind STD: the
 * CFA (the caller's sp) is cfa_reg (rsp or rbp) + cfa_off; the return address is at CFA +
 * ra_off; the caller's rbp at CFA + fp_off, or unchanged when fp_off is 0. kind PLT: the CFA of
 * a lazy-binding PLT entry, rsp + cfa_off, + 8 more from the entry's byte plt_at on (its push
 * has run); the rest as STD. kind END: the outermost frame (no return address). */
enum cfitab_rule_kind { CFITAB_RULE_STD, CFITAB_RULE_PLT, CFITAB_RULE_END };
#define CFITAB_REG_RBP 6
#define CFITAB_REG_RSP 7

struct cfitab_rule {
    uint8_t kind;       /* enum cfitab_rule_kind */
    uint8_t cfa_reg;    /* CFITAB_REG_RSP or CFITAB_REG_RBP */
    uint8_t plt_at;     /* PLT: the entry's offset (rip & 15) from which its push has run */
    uint8_t pad;
    int32_t cfa_off;
    int32_t ra_off;
    int32_t fp_off;     /* 0: rbp unchanged */
};
#define CFITAB_MAX_SNAPSHOTS 256

/* From off (relative to the module's load base) up to the next row's off, the frame's rule is
 * rules[state], or states[state & ~CFITAB_UNW] with CFITAB_UNW (CFITAB_NONE: none). */
struct cfitab_row {
    uint32_t off;
    uint32_t state;
};

#define CFITAB_PAGE_SHIFT 12

struct cfitab_table {
    const struct cfitab_row *rows;      /* sorted by off; the last row is CFITAB_NONE */
    uint32_t nrows;
    size_t rows_bytes, states_bytes;    /* the mappings' sizes (bigmem.h) */
    /* pages[p]: the row in force at offset p << CFITAB_PAGE_SHIFT (the last row at or
     * below it), p < npages; a lookup searches only between pages[p] and pages[p + 1], a
     * few rows instead of a binary search over all of them (fewer cache misses in the
     * handler) */
    const uint32_t *pages;
    uint32_t npages;
    uint32_t state_size;                /* bytes per state, a multiple of 8 */
    const unsigned char *states;        /* libunwind's opaque register states */
    uint32_t nstates;
    const struct cfitab_rule *rules;    /* the rules rows index without CFITAB_UNW */
    uint32_t nrules;
    size_t rules_bytes;
    uint32_t unw_fdes;                  /* FDEs whose rows are libunwind's */
};

struct cfitab_mod {
    uintptr_t lo, hi;                   /* executable address range [lo, hi) */
    uintptr_t base;                     /* load base (dl_phdr_info.dlpi_addr) */
    const unsigned char *eh_frame_hdr;  /* NULL: no .eh_frame_hdr, no table */
    /* release by the builder, acquire by handlers: the table's contents before the pointer */
    _Atomic(const struct cfitab_table *) table;
    /* set by handlers (relaxed: a hint) when a walk stopped here for lack of a table */
    atomic_int wanted;
    int built;                          /* writer: table built or given up */
    int live;                           /* writer: seen in the latest loader scan (loaded) */
};

struct cfitab_snap {
    uint32_t n;
    struct cfitab_mod *mods[];          /* sorted by lo, disjoint */
};

/* Initializes libunwind outside any handler (its one-time setup takes a lock) and scans the
 * loaded modules. Control context, before the handler may walk. Returns 0 or -errno. */
int cfitab_init(void);

/* Asks for the table of the module holding pc, as a handler would, so that cfitab_service
 * builds it without waiting for a walk to meet it (libjvm's and libc's: every session samples
 * the JVM's own threads). Control context, after cfitab_init. */
void cfitab_want(uintptr_t pc);

/* Rescans the loaded modules when the loader reports a change, and builds the tables the
 * handlers asked for. Writer thread (takes dl_iterate_phdr's lock, allocates). */
void cfitab_service(void);

/* From CLOCK_MONOTONIC mono_ns on (0: never), builds end as after cfitab_cancel_builds: the
 * session ends then (duration=), and a build under way must not hold its end. Until the next
 * cfitab_init. Writer thread. */
void cfitab_set_deadline(uint64_t mono_ns);

/* Ends a table build under way and any later one, until the next cfitab_init: profiling
 * stops, and the stop need not wait for a build (libjvm's takes a few hundred ms). Any
 * thread. */
void cfitab_cancel_builds(void);

/* The table of the loaded module holding pc, NULL when none is built. Writer (or a test). */
const struct cfitab_table *cfitab_table_of(uintptr_t pc);

/* Table builds cut short by a fault: the module was unloaded while the writer read it (the
 * build runs under the crash guard, crashguard.h, which must be installed). Any thread. */
unsigned cfitab_build_faults(void);

/* Snapshots replaced since the last cfitab_reclaim (what it would free). Writer thread. */
size_t cfitab_replaced(void);

/* Frees the replaced snapshots and the modules only they held (unloaded libraries), with
 * their tables. Writer thread, right after handler_inflight() read 0: a handler that was not
 * running then loads the current snapshot (nativewalk's snapshot store and load are seq_cst,
 * as are the handlers' inflight count and the writer's read of it). */
void cfitab_reclaim(void);

/* fn runs before each FDE a build reads, inside its crash guard (NULL: none). Tests only:
 * a library unloaded or a stop in the middle of a build. Writer thread. */
void cfitab_set_build_hook(void (*fn)(void));

/* Frees every module, table and snapshot. Only while no handler can run (tests: profiling
 * keeps them between sessions). */
void cfitab_reset(void);

/* Bytes held by the tables (for the log's counters and the report). Any thread. */
size_t cfitab_bytes(void);

/* fn runs every 50 ms of a long table build (libjvm's takes seconds on a slow machine),
 * outside the build's crash guard: the writer arms the threads that started meanwhile (GC
 * workers start with the first collections, at the same time), which otherwise ran unsampled
 * until the build ended. NULL: none. Writer thread, before cfitab_service. */
void cfitab_set_yield(void (*fn)(void));

#endif
