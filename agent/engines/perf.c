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
#include "signals.h"
#include "tasks.h"

/* how long perf_disarm waits for a handler run that is using the fd (a read and an ioctl) */
#define DISOWN_WAIT_NS 100000000ull

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

static int perf_probe(void)
{
    int fd = open_event((int)syscall(SYS_gettid), 10000000ull);
    if (fd < 0)
        return fd;
    close(fd);
    return 0;
}

static void perf_disarm(union engine_thread *t);

static int perf_arm(int tid, union engine_thread *out)
{
    uint64_t ns = atomic_load_explicit(&interval, memory_order_relaxed);
    if (!ns)
        return -EINVAL;
    int fd = open_event(tid, ns);
    if (fd < 0)
        return fd;
    struct f_owner_ex owner = {F_OWNER_TID, tid};
    int rc = handler_own_fd(fd); /* -ERANGE: an fd beyond the handler's table */
    if (rc == 0 && (fcntl(fd, F_SETFL, O_ASYNC) != 0 ||
                    fcntl(fd, F_SETSIG, signals_cpu_signo()) != 0 ||
                    fcntl(fd, F_SETOWN_EX, &owner) != 0 || ioctl(fd, PERF_EVENT_IOC_RESET, 0) != 0 ||
                    ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) != 0))
        rc = -errno;
    out->fd = fd;
    if (rc != 0) {
        perf_disarm(out);
        return rc;
    }
    return 0;
}

static void perf_disarm(union engine_thread *t)
{
    int fd = t->fd;
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    if (handler_disown_fd(fd, DISOWN_WAIT_NS) != 0) {
        /* a handler run that uses fd is stopped inside: keep the number ours, with /dev/null
         * on it (the event is released; the run's read returns 0 bytes and its re-arm
         * ioctl fails), so it can never touch a file the application opens later. One fd
         * stays open for each such run: a thread stopped inside a handler is rare. */
        counters_add_sigsafe(FPL_CTR_PERF_FDS_HELD, 1);
        int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (nul >= 0) {
            if (dup2(nul, fd) >= 0) {
                close(nul);
                return;
            }
            close(nul);
        }
        return; /* no /dev/null: the disabled event stays open, rather than a reused number */
    }
    close(fd);
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

static int perf_enabled(const struct options *o)
{
    return engine_cpu_enabled(o, FPL_ENGINE_PERF);
}

static int perf_check(const struct options *o, char *err, size_t errlen)
{
    (void)o;
    int rc = perf_probe();
    if (rc != 0)
        snprintf(err, errlen,
                 "engine=perf: perf_event_open failed; check /proc/sys/kernel/perf_event_paranoid, "
                 "or use engine=cputimer (%s)",
                 strerror(-rc));
    return rc;
}

static int perf_start(const struct engine_session *s, char *err, size_t errlen)
{
    uint64_t interval_ns = s->o->cpu_interval_ns;
    int rc = perf_probe();
    if (rc == 0)
        rc = handler_perf_init(max_fds());
    if (rc == 0) {
        handler_set_perf_period(interval_ns);
        atomic_store_explicit(&interval, interval_ns, memory_order_relaxed);
        rc = tasks_start(&perf_engine);
    }
    if (rc != 0)
        snprintf(err, errlen, "cannot start the CPU engine (engine=perf): %s", strerror(-rc));
    return rc;
}

static int perf_stop(const struct engine_session *s)
{
    (void)s;
    tasks_stop();
    atomic_store_explicit(&interval, 0, memory_order_relaxed);
    return 0;
}

const struct engine perf_engine = {
    .name = "perf",
    .id = FPL_ENGINE_PERF,
    .flags = ENGINE_EARLY | ENGINE_LATE,
    .signals = SIGNALS_CPU,
    .what = "CPU sampling",
    .enabled = perf_enabled,
    .probe = perf_check,
    .start = perf_start,
    .stop = perf_stop,
    .thread_start = tasks_engine_thread_start,
    .thread_end = tasks_engine_thread_end,
    .arm = perf_arm,
    .disarm = perf_disarm,
};
