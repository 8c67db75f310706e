/* fuzz_cli: libFuzzer target for the flyprof command line: the input is an argument list
 * (arguments separated by NUL bytes) handed to the CLI's main (cli/main.c compiled as
 * flyprof_cli_main), in a scratch directory holding two valid logs, a.fpl and b.fpl.
 *
 * The CLI attaches to JVMs, runs commands and writes files, so the harness keeps it from
 * touching anything outside its scratch directory: an argument list is skipped when an
 * argument contains '/' or "..", or is a number naming a process other than this one; and a
 * seccomp filter installed at start, inherited by any child, refuses kill and every other
 * signal to another process, connect, execve, set*id, mount and namespaces: a child the CLI
 * forks (record) cannot run anything. fork and ptrace stay allowed: LeakSanitizer stops the
 * process's threads with a ptrace-ing clone, and the CLI never calls ptrace. Run it with
 * -close_fd_mask=3 (the CLI's output is not of interest), -print_funcs=0 and the sanitizers'
 * symbolize=0 (no symbolizer can be started: reports give module offsets). */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fplgen.h"
#include "golden_log.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int flyprof_cli_main(int argc, char **argv);

#define MAX_ARGS 24
#define MAX_ARG_LEN 256

/* Writes the golden log (with or without END) to path. */
static int write_log(const char *path, int with_end)
{
    struct fplgen g;
    if (fplgen_init(&g) != 0)
        return -1;
    int rc = golden_log_build(&g, with_end) == 0 ? fplgen_save(&g, path) : -1;
    fplgen_destroy(&g);
    return rc;
}

/* Refuses the syscalls that reach outside the process. */
static int sandbox(void)
{
    pid_t pid = getpid();
    static const int eperm[] = {
        __NR_kill, __NR_tkill, __NR_rt_sigqueueinfo, __NR_rt_tgsigqueueinfo,
        __NR_pidfd_send_signal, __NR_pidfd_open, __NR_connect, __NR_execve, __NR_execveat,
        __NR_process_vm_writev, __NR_setuid,
        __NR_setgid, __NR_setreuid, __NR_setregid, __NR_setresuid, __NR_setresgid,
        __NR_setfsuid, __NR_setfsgid, __NR_setgroups, __NR_mount, __NR_umount2,
        __NR_unshare, __NR_setns, __NR_chroot, __NR_reboot,
    };
    struct sock_filter f[128];
    size_t n = 0;
#define STMT(c, k) (f[n++] = (struct sock_filter)BPF_STMT((c), (k)))
#define JUMP(c, k, jt, jf) (f[n++] = (struct sock_filter)BPF_JUMP((c), (k), (jt), (jf)))
    STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0);
    STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (size_t i = 0; i < sizeof(eperm) / sizeof(eperm[0]); i++) {
        JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)eperm[i], 0, 1);
        STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    }
    /* tgkill: only SIGABRT to this process (abort(), as sanitizers end a run) */
    JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tgkill, 0, 6);
    STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)pid, 0, 3);
    STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2]));
    JUMP(BPF_JMP | BPF_JEQ | BPF_K, SIGABRT, 0, 1);
    STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
    STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
#undef STMT
#undef JUMP
    struct sock_fprog prog = {(unsigned short)n, f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        return -1;
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* FLYPROF_FUZZ_SCRATCH: the directory run_fuzz.py makes (and removes) for it */
    const char *given = getenv("FLYPROF_FUZZ_SCRATCH");
    char dir[] = "/tmp/flyprof-fuzz-cli-XXXXXX";
    const char *d = given && given[0] ? given : mkdtemp(dir);
    if (!d || (given && mkdir(d, 0755) != 0 && errno != EEXIST) || chdir(d) != 0 ||
        write_log("a.fpl", 1) != 0 ||
        write_log("b.fpl", 0) != 0) {
        fprintf(stderr, "fuzz_cli: cannot set up the scratch directory\n");
        abort();
    }
    /* nothing may exec, not even the sanitizers' symbolizer: a pipe to it would break */
    signal(SIGPIPE, SIG_IGN);
    if (sandbox() != 0) {
        fprintf(stderr, "fuzz_cli: cannot install the seccomp sandbox: %s\n", strerror(errno));
        abort();
    }
    return 0;
}

/* 1 when an argument could reach outside the scratch directory or this process. */
static int unsafe(const char *a)
{
    if (strchr(a, '/') || strstr(a, ".."))
        return 1;
    size_t n = strlen(a);
    if (n && n <= 9 && strspn(a, "0123456789") == n) {
        long v = strtol(a, NULL, 10);
        char path[32];
        snprintf(path, sizeof(path), "/proc/%ld", v);
        struct stat st;
        if (v != (long)getpid() && stat(path, &st) == 0)
            return 1; /* a process that is not this one */
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char args[MAX_ARGS][MAX_ARG_LEN];
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = (char *)"flyprof";
    size_t i = 0;
    while (i < size && argc <= MAX_ARGS) {
        size_t len = 0;
        while (i + len < size && data[i + len] != 0)
            len++;
        if (len >= MAX_ARG_LEN)
            return 0;
        char *a = args[argc - 1];
        memcpy(a, data + i, len);
        a[len] = 0;
        if (unsafe(a))
            return 0;
        argv[argc++] = a;
        i += len + 1;
    }
    argv[argc] = NULL;
    flyprof_cli_main(argc, argv);
    return 0;
}
