/* stubnames.c: stub names from JVMTI DynamicCodeGenerated events. JVMTI callback context. */
#include "stubnames.h"

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "codecache.h"

#define BUCKETS 1024 /* distinct names: a few hundred stub kinds */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *arena; /* STUBNAMES_BYTES, never freed: names outlive any sample */
static size_t used;
static const char *interned[BUCKETS];

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The arena copy of name, shared by every stub of that name; NULL when full. */
static const char *intern(const char *name)
{
    unsigned h = hash(name);
    for (unsigned i = 0; i < BUCKETS; i++) {
        const char **slot = &interned[(h + i) % BUCKETS];
        if (*slot && strcmp(*slot, name) == 0)
            return *slot;
        if (!*slot) {
            size_t n = strlen(name) + 1;
            if (!arena) {
                void *p = mmap(NULL, STUBNAMES_BYTES, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (p == MAP_FAILED)
                    return NULL;
                arena = p;
            }
            if (n > STUBNAMES_BYTES - used)
                return NULL;
            char *copy = arena + used;
            memcpy(copy, name, n);
            used += n;
            *slot = copy;
            return copy;
        }
    }
    return NULL;
}

void stubnames_on_dynamic_code(const char *name, const void *addr, jint length)
{
    if (!name || !name[0] || !addr || length <= 0)
        return;
    /* StubCodeDesc prints its stubs as group::name; JVMTI gives the name alone. The walker
     * uses the qualified name for stubs inside StubRoutines' blobs. */
    char q[256];
    int n = snprintf(q, sizeof(q), "%s%s", strstr(name, "::") ? "" : "StubRoutines::", name);
    pthread_mutex_lock(&lock);
    const char *copy = intern(name);
    const char *qcopy = n > 0 && (size_t)n < sizeof(q) ? intern(q) : copy;
    if (copy && qcopy)
        codecache_add_stub((uintptr_t)addr, (uintptr_t)addr + (uintptr_t)length, copy, qcopy);
    pthread_mutex_unlock(&lock);
}
