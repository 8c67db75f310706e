/* jvmlist.h: the local Java VMs, found through /proc without the JDK's tools (`flyprof list`).
 * A library: never prints. CLI thread.
 */
#ifndef JVMLIST_H
#define JVMLIST_H

#include <stddef.h>
#include <sys/types.h>

struct jvmlist_entry {
    pid_t pid;
    uid_t uid;      /* owner of /proc/PID (the process's effective uid) */
    int java_major; /* 0 unknown */
    int flyprof;    /* libflyprof.so is mapped in it */
    char main[256]; /* main class, jar or module from its command line; "" unknown */
};

/* Every process with libjvm.so mapped whose maps we may read, by pid. *out is malloc'd (free
 * it; NULL when none). *hidden counts processes named "java" whose maps we may not read (other
 * users' when we are not root). Returns 0 or -errno (/proc unreadable, out of memory). */
int jvmlist_scan(struct jvmlist_entry **out, size_t *n, size_t *hidden, char *err, size_t errlen);

#endif
