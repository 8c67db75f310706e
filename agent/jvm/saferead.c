/* saferead.c: fault-proof reads of this process's memory (see saferead.h). The writer, the
 * wall sampler, the attach listener; never a signal handler. */
#include "saferead.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "counters.h"

#define NWAYS 3
/* at most a page per write into the pipe: it fits whole even in a one-page pipe (what a user
 * past /proc/sys/fs/pipe-user-pages-soft gets), so what went in can be read back at once */
#define PIPE_CHUNK 4096

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;      /* the choice */
static pthread_mutex_t pipe_mu = PTHREAD_MUTEX_INITIALIZER; /* one read through the pipe */
/* The way reads go; -1 before saferead_init. Stored under mu with release once the file it
 * reads through is open; readers load it with acquire, so they see that file's descriptor. */
static atomic_int way = -1;
/* opened under mu before `way` names them, never closed: a reader may be using them */
static int memfd = -1;
static int pipefd[2] = {-1, -1};
static pid_t self;
static unsigned given_up;   /* under mu: a bit per way that failed or was refused */
static int order[NWAYS];    /* under mu: the ways in the order they are tried */
static int forced_vmreadv;  /* under mu: the test hook named vmreadv */
static char why[NWAYS][96]; /* under mu: why each way failed */

static const char probe_bytes[16] = {'f', 'l', 'y', 'p', 'r', 'o', 'f', ' ',
                                     's', 'a', 'f', 'e', 'r', 'e', 'a', 'd'};

const char *saferead_way_name(int w)
{
    switch (w) {
    case SAFEREAD_PROCMEM:
        return "/proc/self/mem";
    case SAFEREAD_PIPE:
        return "a pipe";
    case SAFEREAD_VMREADV:
        return "process_vm_readv";
    default:
        return "none";
    }
}

/* An errno that says the way itself is refused (a seccomp filter's, or not in this kernel),
 * not that the memory is unreadable. */
static int refused(int e)
{
    return e == EPERM || e == EACCES || e == ENOSYS;
}

/* pread of /proc/self/mem. EIO: nothing mapped there; EINVAL: an address past the file's end
 * (a negative offset). Returns 0, -EFAULT, or -errno. */
static int read_procmem(void *dst, uintptr_t src, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = pread(memfd, (char *)dst + done, len - done, (off_t)(src + done));
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n == 0)
            return -EFAULT;
        int e = errno;
        if (e == EINTR)
            continue;
        return e == EIO || e == EFAULT || e == EINVAL ? -EFAULT : -e;
    }
    return 0;
}

/* Empties the pipe after a read that left bytes in it. Under pipe_mu. */
static void drain_pipe(void)
{
    char junk[PIPE_CHUNK];
    while (read(pipefd[0], junk, sizeof(junk)) > 0)
        ;
}

/* write(2) of the memory into our pipe (EFAULT where it is not mapped: the kernel copies),
 * then read back. Returns 0, -EFAULT, or -errno. */
static int read_pipe(void *dst, uintptr_t src, size_t len)
{
    int rc = 0;
    pthread_mutex_lock(&pipe_mu);
    for (size_t done = 0; done < len && !rc;) {
        size_t want = len - done < PIPE_CHUNK ? len - done : PIPE_CHUNK;
        ssize_t w = write(pipefd[1], (const void *)(src + done), want);
        if (w < 0) {
            int e = errno;
            if (e == EINTR)
                continue;
            rc = e == EFAULT ? -EFAULT : -e;
            break;
        }
        for (ssize_t got = 0; got < w;) {
            ssize_t r = read(pipefd[0], (char *)dst + done + (size_t)got, (size_t)(w - got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                rc = r < 0 ? -errno : -EIO;
                drain_pipe();
                break;
            }
            got += r;
        }
        done += (size_t)w;
        if (!rc && (size_t)w < want)
            rc = -EFAULT; /* a short write: the rest is not mapped */
    }
    pthread_mutex_unlock(&pipe_mu);
    return rc;
}

/* process_vm_readv on this process. Returns 0, -EFAULT, or -errno. */
static int read_vmreadv(void *dst, uintptr_t src, size_t len)
{
    struct iovec local = {dst, len}, remote = {(void *)src, len};
    ssize_t n = process_vm_readv(self, &local, 1, &remote, 1, 0);
    if (n == (ssize_t)len)
        return 0;
    if (n >= 0)
        return -EFAULT;
    int e = errno;
    return e == EFAULT ? -EFAULT : -e;
}

static int read_way(int w, void *dst, uintptr_t src, size_t len)
{
    switch (w) {
    case SAFEREAD_PROCMEM:
        return read_procmem(dst, src, len);
    case SAFEREAD_PIPE:
        return read_pipe(dst, src, len);
    case SAFEREAD_VMREADV:
        return read_vmreadv(dst, src, len);
    default:
        return -ENOSYS;
    }
}

/* 1 unless /proc/self/status says no seccomp filter is in force (`Seccomp: 0`). */
static int seccomp_in_force(void)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 1;
    buf[n] = 0;
    const char *p = strstr(buf, "\nSeccomp:");
    return !p || strtol(p + 9, NULL, 10) != 0;
}

/* Opens what way w needs and reads a buffer of our own through it. Returns 0, or -errno with
 * why[w] filled. Under mu. */
static int try_way(int w)
{
    char buf[sizeof(probe_bytes)];
    int rc;
    if (w == SAFEREAD_PROCMEM && memfd < 0) {
        int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            rc = -errno;
            goto out;
        }
        memfd = fd;
    } else if (w == SAFEREAD_PIPE && pipefd[0] < 0) {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
            rc = -errno;
            goto out;
        }
        pipefd[0] = fds[0];
        pipefd[1] = fds[1];
    } else if (w == SAFEREAD_VMREADV && !forced_vmreadv && seccomp_in_force()) {
        /* the filter may kill the process for it, which no probe survives */
        snprintf(why[w], sizeof(why[w]), "not tried: a seccomp filter is in force");
        return -EPERM;
    }
    rc = read_way(w, buf, (uintptr_t)probe_bytes, sizeof(buf));
    if (rc == 0 && memcmp(buf, probe_bytes, sizeof(buf)) != 0)
        rc = -EIO;
out:
    if (rc)
        snprintf(why[w], sizeof(why[w]), "%s", strerror(-rc));
    return rc;
}

/* Makes the first way of `order` that works the way reads go, and records it in the log's
 * counter. Returns it (SAFEREAD_NONE when none works). Under mu. */
static int choose(void)
{
    int w = SAFEREAD_NONE;
    for (int i = 0; i < NWAYS && w == SAFEREAD_NONE; i++) {
        if (given_up & (1u << order[i]))
            continue;
        if (try_way(order[i]) == 0)
            w = order[i];
        else
            given_up |= 1u << order[i];
    }
    atomic_store_explicit(&counters.c[FPL_CTR_SAFEREAD], (uint64_t)w, memory_order_relaxed);
    /* release: a reader that sees w sees the descriptor try_way opened for it */
    atomic_store_explicit(&way, w, memory_order_release);
    return w;
}

/* Says on stderr which ways failed since the last time (given_up, not yet said) and how reads
 * go now. Under mu. */
static void say_change(int to)
{
    static unsigned said;
    if (to == SAFEREAD_NONE) {
        fprintf(stderr,
                "flyprof: no way of reading JVM memory without the risk of a fault "
                "works (/proc/self/mem: %s; a pipe: %s; process_vm_readv: %s): "
                "methods of unloaded classes cannot be told from live ones, wall-clock "
                "samples do not see which threads are in native code, and Java threads "
                "started before an attach are not sampled\n",
                why[SAFEREAD_PROCMEM], why[SAFEREAD_PIPE], why[SAFEREAD_VMREADV]);
    } else {
        char failed[512];
        size_t n = 0;
        failed[0] = 0;
        for (int i = 0; i < NWAYS; i++) {
            int w = order[i];
            if ((given_up & ~said & (1u << w)) && n < sizeof(failed))
                n += (size_t)snprintf(failed + n, sizeof(failed) - n, "%sthrough %s failed (%s)",
                                      n ? ", " : "", saferead_way_name(w), why[w]);
        }
        fprintf(stderr, "flyprof: reading JVM memory %s; reading it through %s instead\n", failed,
                saferead_way_name(to));
    }
    said = given_up;
    fflush(stderr);
}

int saferead_init(void)
{
    int w = atomic_load_explicit(&way, memory_order_acquire);
    if (w >= 0)
        return w;
    pthread_mutex_lock(&mu);
    w = atomic_load_explicit(&way, memory_order_relaxed);
    if (w < 0) {
        self = getpid();
        int n = 0;
        const char *hook = getenv("FLYPROF_TEST_SAFEREAD"); /* saferead.h */
        if (hook && !strcmp(hook, "pipe"))
            order[n++] = SAFEREAD_PIPE;
        else if (hook && !strcmp(hook, "vmreadv"))
            order[n++] = SAFEREAD_VMREADV;
        forced_vmreadv = n && order[0] == SAFEREAD_VMREADV;
        for (int i = 0; i < NWAYS; i++)
            if (!n || order[0] != i)
                order[n++] = i;
        w = choose();
        if (w != order[0])
            say_change(w);
    }
    pthread_mutex_unlock(&mu);
    return w;
}

/* Gives up way `from`, refused with errno e at run time, for the next that works. Returns the
 * way reads go now (another thread may have given `from` up already). */
static int give_up(int from, int e)
{
    pthread_mutex_lock(&mu);
    int w = atomic_load_explicit(&way, memory_order_relaxed);
    if (w == from) {
        given_up |= 1u << from;
        snprintf(why[from], sizeof(why[from]), "%s", strerror(e));
        w = choose();
        say_change(w);
    }
    pthread_mutex_unlock(&mu);
    return w;
}

int saferead_way(void)
{
    int w = atomic_load_explicit(&way, memory_order_acquire);
    return w < 0 ? saferead_init() : w;
}

int saferead(void *dst, uintptr_t src, size_t len)
{
    if (src < 4096 || src + len < src)
        return -EFAULT;
    if (!len)
        return 0;
    int w = saferead_way();
    for (;;) {
        if (w == SAFEREAD_NONE)
            return -ENOSYS;
        int rc = read_way(w, dst, src, len);
        if (rc == 0 || !refused(-rc))
            return rc;
        w = give_up(w, -rc);
    }
}
