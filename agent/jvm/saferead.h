/* saferead.h: reads of this process's memory that may be unmapped by the time they happen --
 * another thread's JavaThread (freed when that thread ends), the metadata of a class being
 * unloaded -- where a plain load would fault: a read of memory that is not mapped returns
 * -EFAULT instead. The kernel does the copy, one of three ways, chosen once (saferead_init):
 *
 * 1. pread(2) of /proc/self/mem at the address (fails with EIO on unmapped memory);
 * 2. when that file cannot be opened (a non-dumpable process that is not root: the file is
 *    root's), write(2) of the memory into a pipe of our own (EFAULT), read back;
 * 3. when neither works, process_vm_readv(2) on this process, and only when no seccomp filter
 *    is in force (/proc/self/status says `Seccomp: 0`).
 *
 * Why process_vm_readv comes last: seccomp. Filters commonly leave it out (it is in the
 * ptrace family: systemd's @debug set, not @system-service), and a filter that refuses it
 * with an errno made every read fail (every method was named `[unloaded]`); one whose action
 * is to kill (systemd's SystemCallFilter= kills by default) would kill the JVM at the first
 * read, and no probe can tell the two apart without dying. pread and write cannot be taken
 * away by any filter the JVM itself runs under. A way that fails at run time as refused
 * (EPERM, EACCES, ENOSYS: a filter installed after the choice) is given up for the next one,
 * and the read retried.
 *
 * What changes is said on stderr once each (`flyprof: ...`): a way other than the first
 * chosen, a way given up. Nothing is said when /proc/self/mem works.
 *
 * Test hook (never in production use): FLYPROF_TEST_SAFEREAD=procmem|pipe|vmreadv names the
 * way saferead_init tries first (vmreadv: whatever /proc/self/status says), the others
 * following in the order above.
 *
 * Not async-signal-safe (a mutex serializes the pipe). Any other thread.
 */
#ifndef SAFEREAD_H
#define SAFEREAD_H

#include <stddef.h>
#include <stdint.h>

enum saferead_way {
    SAFEREAD_PROCMEM = 0,
    SAFEREAD_PIPE = 1,
    SAFEREAD_VMREADV = 2,
    SAFEREAD_NONE = 3, /* no way works: every read fails with -ENOSYS */
};

/* Chooses the way (once: later calls return the choice) by reading a buffer of its own each
 * way in turn, and says on stderr when it is not /proc/self/mem. Returns enum saferead_way.
 * Agent_OnLoad / Agent_OnAttach, or the first saferead. */
int saferead_init(void);

/* Copies len bytes at src into dst. Returns 0; -EFAULT when any of them is not mapped (or
 * src is below 4096); -ENOSYS when no way to read works. Any thread, not a signal handler. */
int saferead(void *dst, uintptr_t src, size_t len);

/* The way reads go now (enum saferead_way; it changes only when one is given up). Any
 * thread. */
int saferead_way(void);

/* "/proc/self/mem", "a pipe", "process_vm_readv", "none". */
const char *saferead_way_name(int way);

#endif
