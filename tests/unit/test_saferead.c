/* test_saferead: agent/jvm/saferead.c, each case in a child process of its own (a way is chosen
 * once per process, and seccomp filters cannot be removed), its stderr caught in a file:
 * - each way (/proc/self/mem, a pipe, process_vm_readv) reads mapped memory right (across
 *   pages, more than a pipe write at once) and returns -EFAULT, without a fault, for an
 *   unmapped page, a range that runs into one, and addresses below 4096; a PROT_NONE page
 *   does not fault either way (/proc/self/mem may read it: the kernel reads with FOLL_FORCE);
 *   the pipe is left empty after a failed read. Nothing is said on stderr;
 * - with a real seccomp filter refusing process_vm_readv (EPERM) and the way forced to it
 *   (FLYPROF_TEST_SAFEREAD=vmreadv): refused at the probe, or at run time when the filter
 *   comes after the choice, reads go through /proc/self/mem, and that is said exactly once;
 * - a filter that kills the process for process_vm_readv: reads work and the process lives
 *   (nothing ever calls it while /proc/self/mem works);
 * - /proc/self/mem refused at run time (pread64 EPERM): reads go through the pipe, said once;
 * - nothing works (pread64 and pipe2 refused, process_vm_readv killing): process_vm_readv is
 *   not even tried, reads fail with -ENOSYS, said once, and the process lives.
 * The log's counter (FPL_CTR_SAFEREAD) follows the way. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "counters.h"
#include "harness.h"
#include "saferead.h"
#include "seccomp_filter.h"

struct counters counters;

static char text[3 * 4096 + 100];

/* The checks every way passes: reads right, fails cleanly. In the child. */
static void check_reads(void)
{
    for (size_t i = 0; i < sizeof(text); i++)
        text[i] = (char)(i * 7 + 1);
    char buf[sizeof(text)];
    memset(buf, 0, sizeof(buf));
    CHECK(saferead(buf, (uintptr_t)text, sizeof(text)) == 0);
    CHECK(memcmp(buf, text, sizeof(text)) == 0);
    long v = 0, one = 0x1234567890abcdefl;
    CHECK(saferead(&v, (uintptr_t)&one, sizeof(v)) == 0 && v == one);

    long page = sysconf(_SC_PAGESIZE);
    char *m =
        mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    if (m == MAP_FAILED)
        return;
    memset(m, 'x', 2 * (size_t)page);
    munmap(m + page, (size_t)page); /* the second page goes */
    CHECK(saferead(buf, (uintptr_t)(m + page), 8) == -EFAULT);
    CHECK(saferead(buf, (uintptr_t)(m + page - 8), 16) == -EFAULT); /* runs into it */
    CHECK(saferead(buf, (uintptr_t)(m + page - 8), 8) == 0 && buf[0] == 'x');
    /* a failed read leaves nothing behind (the pipe way): the next one reads right */
    CHECK(saferead(&v, (uintptr_t)&one, sizeof(v)) == 0 && v == one);
    munmap(m, (size_t)page);
    CHECK(saferead(buf, (uintptr_t)m, 8) == -EFAULT);
    CHECK(saferead(buf, 16, 8) == -EFAULT);
    CHECK(saferead(buf, 0, 8) == -EFAULT);
    CHECK(saferead(buf, UINTPTR_MAX - 4, 8) == -EFAULT);
    CHECK(saferead(buf, (uintptr_t)1 << 63, 8) == -EFAULT);

    char *none = mmap(NULL, (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (none != MAP_FAILED) {
        int rc = saferead(buf, (uintptr_t)none, 8); /* no fault: that is the check */
        CHECK(rc == 0 || rc == -EFAULT);
        munmap(none, (size_t)page);
    }
}

static int filter(int nr, int kill)
{
    int nrs[1] = {nr};
    int rc = seccomp_filter_install(nrs, 1, kill, EPERM);
    if (rc != 0)
        fprintf(stdout, "cannot install a seccomp filter: %s\n", strerror(-rc));
    return rc;
}

static int filter2(int nr1, int nr2)
{
    int nrs[2] = {nr1, nr2};
    return seccomp_filter_install(nrs, 2, 0, EPERM);
}

static void expect_way(int way)
{
    CHECK_EQ_U(saferead_way(), way);
    CHECK_EQ_U(counters_get(FPL_CTR_SAFEREAD), way);
}

/* ---- the cases, each run in a child ---------------------------------------------------- */

static void case_procmem(void)
{
    CHECK_EQ_U(saferead_init(), SAFEREAD_PROCMEM);
    check_reads();
    expect_way(SAFEREAD_PROCMEM);
}

static void case_pipe(void)
{
    setenv("FLYPROF_TEST_SAFEREAD", "pipe", 1);
    CHECK_EQ_U(saferead_init(), SAFEREAD_PIPE);
    check_reads();
    expect_way(SAFEREAD_PIPE);
}

static void case_vmreadv(void)
{
    setenv("FLYPROF_TEST_SAFEREAD", "vmreadv", 1);
    CHECK_EQ_U(saferead_init(), SAFEREAD_VMREADV);
    check_reads();
    expect_way(SAFEREAD_VMREADV);
}

/* process_vm_readv refused before the choice: the probe sees it */
static void case_vmreadv_refused_at_probe(void)
{
    setenv("FLYPROF_TEST_SAFEREAD", "vmreadv", 1);
    CHECK(filter(SYS_process_vm_readv, 0) == 0);
    CHECK_EQ_U(saferead_init(), SAFEREAD_PROCMEM);
    check_reads();
    expect_way(SAFEREAD_PROCMEM);
}

/* process_vm_readv refused after the choice: the first read gives it up */
static void case_vmreadv_refused_later(void)
{
    setenv("FLYPROF_TEST_SAFEREAD", "vmreadv", 1);
    CHECK_EQ_U(saferead_init(), SAFEREAD_VMREADV);
    CHECK(filter(SYS_process_vm_readv, 0) == 0);
    check_reads();
    expect_way(SAFEREAD_PROCMEM);
}

/* a filter that kills for process_vm_readv, before the choice and after it */
static void case_vmreadv_kills(void)
{
    CHECK(filter(SYS_process_vm_readv, 1) == 0);
    CHECK_EQ_U(saferead_init(), SAFEREAD_PROCMEM);
    check_reads();
    expect_way(SAFEREAD_PROCMEM);
}

/* /proc/self/mem refused at run time: the pipe takes over */
static void case_procmem_refused_later(void)
{
    CHECK_EQ_U(saferead_init(), SAFEREAD_PROCMEM);
    CHECK(filter(SYS_pread64, 0) == 0);
    check_reads();
    expect_way(SAFEREAD_PIPE);
}

/* nothing works: process_vm_readv (killing) is never tried under a filter */
static void case_nothing(void)
{
    CHECK(filter2(SYS_pread64, SYS_pipe2) == 0);
    CHECK(filter(SYS_process_vm_readv, 1) == 0);
    CHECK_EQ_U(saferead_init(), SAFEREAD_NONE);
    long v = 0, one = 1;
    CHECK(saferead(&v, (uintptr_t)&one, sizeof(v)) == -ENOSYS);
    CHECK(saferead(&v, (uintptr_t)&one, sizeof(v)) == -ENOSYS);
    expect_way(SAFEREAD_NONE);
}

/* Runs fn in a child whose stderr goes to a file; checks that it exits 0 (its checks passed,
 * it was not killed) and that its stderr has `said` lines starting "flyprof:", each holding
 * every one of the needles. */
static void run(const char *name, void (*fn)(void), int said, const char *needle1,
                const char *needle2)
{
    char path[] = "/tmp/test_saferead.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd, 2);
        fn();
        exit(harness_fail ? 1 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    char out[8192];
    ssize_t n = pread(fd, out, sizeof(out) - 1, 0);
    out[n > 0 ? n : 0] = 0;
    close(fd);
    unlink(path);
    int lines = 0, with = 0;
    for (char *p = out; (p = strstr(p, "flyprof:")) != NULL; p++) {
        lines++;
        char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char line[1024];
        snprintf(line, sizeof(line), "%.*s", (int)len, p);
        with += (!needle1 || strstr(line, needle1)) && (!needle2 || strstr(line, needle2));
    }
    int ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && lines == said && with == said;
    printf("test_saferead: %-28s %s (%s; %d line(s) said)\n", name, ok ? "ok" : "FAILED",
           WIFEXITED(st) ? (WEXITSTATUS(st) ? "checks failed" : "exit 0")
                         : (WTERMSIG(st) == SIGSYS ? "killed by SIGSYS" : "killed"),
           lines);
    if (!ok)
        printf("  its stderr:\n%s\n", out);
    CHECK(ok);
}

int main(void)
{
    run("procmem", case_procmem, 0, NULL, NULL);
    run("pipe", case_pipe, 0, NULL, NULL);
    run("vmreadv", case_vmreadv, 0, NULL, NULL);
    run("vmreadv refused at probe", case_vmreadv_refused_at_probe, 1, "process_vm_readv",
        "through /proc/self/mem instead");
    run("vmreadv refused later", case_vmreadv_refused_later, 1, "process_vm_readv",
        "through /proc/self/mem instead");
    run("vmreadv kills", case_vmreadv_kills, 0, NULL, NULL);
    run("procmem refused later", case_procmem_refused_later, 1, "/proc/self/mem failed",
        "through a pipe instead");
    run("nothing works", case_nothing, 1, "no way of reading JVM memory",
        "not tried: a seccomp filter is in force");
    return harness_result("test_saferead");
}
