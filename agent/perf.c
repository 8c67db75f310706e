/* perf.c: perf_events engine setup. Control paths and JVMTI callbacks; the handler side (which
 * fds are ours, the re-arm ioctl) is in handler.c. */
#include "perf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counters.h"
#include "fpl_format.h"
#include "handler.h"

static _Atomic uint64_t interval;   /* 0: engine off */
static int exclude_kernel;          /* set when the kernel refuses kernel-mode sampling */

static int open_event(int tid, uint64_t period_ns)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_SOFTWARE;
    a.size = sizeof(a);
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.sample_period = period_ns;
    a.disabled = 1;
    a.wakeup_events = 1;
    a.exclude_kernel = (unsigned)exclude_kernel;
    a.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && !exclude_kernel) {
        /* perf_event_paranoid >= 2 without CAP_PERFMON: user-mode sampling only */
        exclude_kernel = 1;
        a.exclude_kernel = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    return fd < 0 ? -errno : fd;
}

int perf_probe(void)
{
    int fd = open_event((int)syscall(SYS_gettid), 10000000ull);
    if (fd < 0)
        return fd;
    close(fd);
    return 0;
}

void perf_thread_start(struct threads_entry *e)
{
    uint64_t ns = atomic_load_explicit(&interval, memory_order_relaxed);
    if (!ns || e->perf_fd >= 0)
        return;
    int fd = open_event(e->tid, ns);
    if (fd < 0) {
        counters_add_sigsafe(FPL_CTR_TIMER_ERRORS, 1);
        return;
    }
    struct f_owner_ex owner = {F_OWNER_TID, e->tid};
    if (handler_own_fd(fd, 1) != 0 || fcntl(fd, F_SETFL, O_ASYNC) != 0 ||
        fcntl(fd, F_SETSIG, handler_cpu_signo()) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
        ioctl(fd, PERF_EVENT_IOC_RESET, 0) != 0 || ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) != 0) {
        counters_add_sigsafe(FPL_CTR_TIMER_ERRORS, 1);
        handler_own_fd(fd, 0);
        close(fd);
        return;
    }
    e->perf_fd = fd;
}

void perf_thread_end(struct threads_entry *e)
{
    if (e->perf_fd >= 0) {
        ioctl(e->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
        handler_own_fd(e->perf_fd, 0);
        close(e->perf_fd);
        e->perf_fd = -1;
    }
}

static void start_one(struct threads_entry *e, void *arg)
{
    (void)arg;
    perf_thread_start(e);
}

static void stop_one(struct threads_entry *e, void *arg)
{
    (void)arg;
    perf_thread_end(e);
}

/* The most fds a process may have on this kernel (every fd number is below it): nr_open,
 * else the hard RLIMIT_NOFILE, else 1M (the kernel's default nr_open). */
static size_t max_fds(void)
{
    char buf[32];
    size_t n = 0;
    int fd = open("/proc/sys/fs/nr_open", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t r = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        for (ssize_t i = 0; i < r && buf[i] >= '0' && buf[i] <= '9'; i++)
            n = n * 10 + (size_t)(buf[i] - '0');
    }
    struct rlimit rl;
    if (n == 0 && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY)
        n = (size_t)rl.rlim_max;
    return n ? n : (size_t)1 << 20;
}

int perf_start(uint64_t interval_ns)
{
    int rc = perf_probe();
    if (rc == 0)
        rc = handler_perf_init(max_fds());
    if (rc != 0)
        return rc;
    handler_set_perf_period(interval_ns);
    atomic_store_explicit(&interval, interval_ns, memory_order_relaxed);
    threads_foreach_live(start_one, NULL);
    return 0;
}

void perf_stop(void)
{
    atomic_store_explicit(&interval, 0, memory_order_relaxed);
    threads_foreach_live(stop_one, NULL);
}
