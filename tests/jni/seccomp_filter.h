/* seccomp_filter.h: a seccomp filter for tests, over every thread of the calling process
 * (SECCOMP_FILTER_FLAG_TSYNC: threads that run already, the agent's among them, included),
 * that answers the listed system calls with an errno or kills the process for them, as a
 * container's or systemd's filter would. Filters cannot be removed: the process keeps it.
 * Used by the saferead unit test and the seccomp workload's JNI library. */
#ifndef SECCOMP_FILTER_H
#define SECCOMP_FILTER_H

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SECCOMP_FILTER_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SECCOMP_FILTER_ARCH AUDIT_ARCH_AARCH64
#endif

#define SECCOMP_FILTER_MAX 8

/* Installs the filter: each of the n (at most SECCOMP_FILTER_MAX) system call numbers in nrs
 * fails with errno err, or kills the process (SECCOMP_RET_KILL_PROCESS) when kill is set;
 * every other call is allowed. Returns 0 or -errno. */
static inline int seccomp_filter_install(const int *nrs, int n, int kill, int err)
{
#ifdef SECCOMP_FILTER_ARCH
    if (n < 0 || n > SECCOMP_FILTER_MAX)
        return -EINVAL;
    struct sock_filter f[4 + 2 * SECCOMP_FILTER_MAX + 1];
    unsigned k = 0;
    unsigned action =
        kill ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ERRNO | ((unsigned)err & SECCOMP_RET_DATA);
    f[k++] =
        (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SECCOMP_FILTER_ARCH, 1, 0);
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    f[k++] =
        (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (int i = 0; i < n; i++) {
        f[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[i], 0, 1);
        f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, action);
    }
    f[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    struct sock_fprog prog = {(unsigned short)k, f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -errno;
    long rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
    if (rc < 0)
        return -errno;
    return rc == 0 ? 0 : -EBUSY; /* rc > 0: a thread that could not take the filter */
#else
    (void)nrs;
    (void)n;
    (void)kill;
    (void)err;
    return -ENOSYS;
#endif
}

#endif
