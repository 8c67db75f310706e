/* bigmem.h: large, long-lived arrays of the agent (unwind tables, symbol tables) in memory of
 * their own, mapped and unmapped directly.
 *
 * Why not malloc: glibc raises its mmap threshold to the size of any mmapped chunk that is
 * freed (up to 32 MB), so after the first stop a table of a few MB is carved out of a thread's
 * arena instead, and freeing it there does not give the pages back. Each start runs its writer
 * on a new thread, often on another arena: attached to a JVM, every start/stop cycle left
 * ~2.6 MB (JDK 25; 1.5 MB on JDK 17) resident for good, up to one set per arena. Mapped here,
 * the pages go back to the kernel at stop, every time.
 *
 * Not for signal handlers (mmap is not async-signal-safe in spirit: it takes mm locks). Sizes
 * are the caller's to remember; every function accepts NULL/0. */
#ifndef BIGMEM_H
#define BIGMEM_H

#include <stddef.h>

/* bytes of zeroed memory, rounded up to whole pages; NULL when out of memory or bytes == 0 */
void *bigmem_alloc(size_t bytes);

/* p (from bigmem_alloc, of old bytes) grown or shrunk to bytes, contents kept up to the
 * smaller size, new bytes zeroed; may move. NULL (p untouched) when out of memory. p == NULL
 * allocates; bytes == 0 frees and returns NULL. */
void *bigmem_resize(void *p, size_t old, size_t bytes);

void bigmem_free(void *p, size_t bytes);

#endif
