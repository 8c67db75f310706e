/* bigmem.c: page-granular arrays mapped with mmap, grown with mremap (bigmem.h). */
#include "bigmem.h"

#include <sys/mman.h>
#include <unistd.h>

static size_t round_pages(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (bytes + page - 1) & ~(page - 1);
}

void *bigmem_alloc(size_t bytes)
{
    if (bytes == 0)
        return NULL;
    void *p = mmap(NULL, round_pages(bytes), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void *bigmem_resize(void *p, size_t old, size_t bytes)
{
    if (!p)
        return bigmem_alloc(bytes);
    if (bytes == 0) {
        bigmem_free(p, old);
        return NULL;
    }
    size_t from = round_pages(old), to = round_pages(bytes);
    if (from == to)
        return p;
    /* anonymous pages added by mremap read as zero */
    void *q = mremap(p, from, to, MREMAP_MAYMOVE);
    return q == MAP_FAILED ? NULL : q;
}

void bigmem_free(void *p, size_t bytes)
{
    if (p && bytes)
        munmap(p, round_pages(bytes));
}
