/* perfdata.c: HotSpot PerfData counters from the hsperfdata file (perfdata.h). */
#include "perfdata.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* little-endian 32-bit field at off, with bounds already checked by the caller */
static int32_t get32(const unsigned char *b, size_t off)
{
    int32_t v;
    memcpy(&v, b + off, 4);
    return v;
}

/* The counters the hiccup probes and the GC events read, by name. */
static void take(struct perfdata *p, const char *name, const unsigned char *data, char type,
                 int32_t vlen)
{
    const volatile int64_t *j = type == 'J' && vlen == 0 ? (const volatile int64_t *)data : NULL;
    unsigned n;
    char rest[32];
    if (j && strcmp(name, "sun.rt.safepoints") == 0)
        p->safepoints = j;
    else if (j && strcmp(name, "sun.rt.safepointTime") == 0)
        p->safepoint_time = j;
    else if (j && strcmp(name, "sun.rt.safepointSyncTime") == 0)
        p->sync_time = j;
    else if (j && strcmp(name, "sun.os.hrt.frequency") == 0)
        p->hrt_frequency = *j;
    else if (sscanf(name, "sun.gc.collector.%u.%31s", &n, rest) == 2 &&
             n < PERFDATA_MAX_COLLECTORS) {
        if (j && strcmp(rest, "invocations") == 0)
            p->invocations[n] = j;
        else if (type == 'B' && vlen > 0 && strcmp(rest, "name") == 0)
            snprintf(p->collector_name[n], sizeof(p->collector_name[n]), "%.*s", (int)vlen,
                     (const char *)data);
        if (n + 1 > p->ncollectors)
            p->ncollectors = n + 1;
    }
}

int perfdata_open(struct perfdata *p, const char *path)
{
    char buf[256];
    memset(p, 0, sizeof(*p));
    if (!path) {
        /* HotSpot names the directory after the effective user */
        struct passwd pw, *res = NULL;
        char pwbuf[1024];
        if (getpwuid_r(geteuid(), &pw, pwbuf, sizeof(pwbuf), &res) != 0 || !res)
            return -ENOENT;
        snprintf(buf, sizeof(buf), "/tmp/hsperfdata_%s/%d", res->pw_name, (int)getpid());
        path = buf;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size < 32) {
        close(fd);
        return -EINVAL;
    }
    size_t len = (size_t)st.st_size;
    void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED)
        return -errno;
    const unsigned char *b = map;
    /* little-endian prologue only (x86-64): magic ca fe c0 c0, byte order 1 */
    if (b[0] != 0xca || b[1] != 0xfe || b[2] != 0xc0 || b[3] != 0xc0 || b[4] != 1) {
        munmap(map, len);
        return -EINVAL;
    }
    int32_t off = get32(b, 24), n = get32(b, 28);
    for (int32_t i = 0; i < n && off > 0 && (size_t)off + 20 <= len; i++) {
        int32_t elen = get32(b, (size_t)off), noff = get32(b, (size_t)off + 4);
        int32_t vlen = get32(b, (size_t)off + 8), doff = get32(b, (size_t)off + 16);
        char type = (char)b[off + 12];
        if (elen < 20 || (size_t)off + (size_t)elen > len || noff < 20 || noff >= elen ||
            doff < 0 || doff >= elen)
            break;
        const char *name = (const char *)b + off + noff;
        size_t nmax = (size_t)(elen - noff);
        if (memchr(name, 0, nmax) &&
            (size_t)doff + (type == 'J' ? 8u : (size_t)vlen) <= (size_t)elen)
            take(p, name, b + off + doff, type, vlen);
        off += elen;
    }
    if (!p->safepoints || !p->safepoint_time) {
        munmap(map, len);
        memset(p, 0, sizeof(*p));
        return -EINVAL;
    }
    if (p->hrt_frequency <= 0)
        p->hrt_frequency = 1000000000;
    p->map = map;
    p->len = len;
    return 0;
}

void perfdata_close(struct perfdata *p)
{
    if (p->map)
        munmap(p->map, p->len);
    memset(p, 0, sizeof(*p));
}

uint64_t perfdata_ns(const struct perfdata *p, int64_t ticks)
{
    if (ticks <= 0)
        return 0;
    if (!p->hrt_frequency || p->hrt_frequency == 1000000000)
        return (uint64_t)ticks;
    return (uint64_t)((unsigned __int128)ticks * 1000000000u / (uint64_t)p->hrt_frequency);
}
