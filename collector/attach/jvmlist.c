/* jvmlist.c: find the local JVMs by what /proc says: libjvm.so mapped, command line, release. */
#include "jvmlist.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attach.h"

#define CMDLINE_MAX (1u << 20)

static int by_pid(const void *a, const void *b)
{
    const struct jvmlist_entry *x = a, *y = b;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Whether /proc/PID/comm is "java" (a JVM we could not look into). */
static int named_java(pid_t pid)
{
    char *comm;
    size_t len;
    if (attach_read_proc(pid, "comm", 64, &comm, &len) != 0)
        return 0;
    int java = !strcmp(comm, "java\n") || !strcmp(comm, "java");
    free(comm);
    return java;
}

int jvmlist_scan(struct jvmlist_entry **out, size_t *n, size_t *hidden, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    *hidden = 0;
    DIR *d = opendir("/proc");
    if (!d) {
        int rc = -errno;
        snprintf(err, errlen, "cannot read /proc: %s", strerror(-rc));
        return rc;
    }
    struct jvmlist_entry *v = NULL;
    size_t cap = 0;
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *name = de->d_name;
        if (!isdigit((unsigned char)name[0]) || strspn(name, "0123456789") != strlen(name))
            continue;
        pid_t pid = (pid_t)atoi(name);
        char libjvm[PATH_MAX], agent[PATH_MAX];
        int openj9;
        int mrc = attach_read_maps(pid, libjvm, sizeof(libjvm), agent, sizeof(agent), &openj9);
        if (mrc == -EACCES || mrc == -EPERM) {
            *hidden += named_java(pid);
            continue;
        }
        if (mrc || !libjvm[0])
            continue;
        if (*n == cap) {
            struct jvmlist_entry *nv = realloc(v, sizeof(*v) * (cap = cap ? cap * 2 : 16));
            if (!nv) {
                rc = -ENOMEM;
                snprintf(err, errlen, "out of memory");
                break;
            }
            v = nv;
        }
        struct jvmlist_entry *e = &v[*n];
        memset(e, 0, sizeof(*e));
        e->pid = pid;
        e->flyprof = agent[0] != 0;
        char path[64], root[40];
        struct stat st;
        snprintf(path, sizeof(path), "/proc/%d", (int)pid);
        if (stat(path, &st) != 0)
            continue; /* it exited meanwhile */
        e->uid = st.st_uid;
        snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
        e->java_major = attach_java_major(root, libjvm, NULL, 0);
        char *cmd;
        size_t len;
        if (attach_read_proc(pid, "cmdline", CMDLINE_MAX, &cmd, &len) == 0) {
            struct attach_cmdline c;
            memset(&c, 0, sizeof(c));
            attach_scan_args(cmd, len, 1, &c);
            snprintf(e->main, sizeof(e->main), "%s", c.main);
            free(cmd);
        }
        (*n)++;
    }
    closedir(d);
    if (rc) {
        free(v);
        *n = 0;
        return rc;
    }
    if (*n)
        qsort(v, *n, sizeof(*v), by_pid);
    *out = v;
    return 0;
}
