/* attach.h: a client of HotSpot's dynamic attach mechanism, and the flyprof agent actions built
 * on it (load the agent, pass it an action, read its reply).
 *
 * The protocol (JDK 8 to 25, version 1): the client creates a trigger file `.attach_pid<PID>` in
 * the JVM's working directory (or its /tmp) and sends SIGQUIT; the JVM's signal dispatcher sees
 * the file and opens the UNIX socket `/tmp/.java_pid<PID>`. Each command is one connection:
 * "1\0<command>\0<arg0>\0<arg1>\0<arg2>\0" in, "<status>\n<output>" out, then the JVM closes.
 * The JVM accepts a peer whose effective uid and gid are its own, or root. PID is the pid in the
 * JVM's own pid namespace; /tmp and the working directory are reached through /proc/PID/root and
 * /proc/PID/cwd, so a JVM in a container is attached from the host.
 *
 * A library: nothing here prints. Functions return 0 (or what they say) or -errno, with a
 * one-line message in err[0..errlen) that names the process and the thing that failed. The CLI's
 * main thread only: talking to another user's JVM switches the process's effective uid and gid
 * (and back) around each operation.
 */
#ifndef ATTACH_H
#define ATTACH_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Every operation (attach and load, or one action) gives up after this long. */
#define ATTACH_TIMEOUT_MS 10000
/* Of which waiting for the JVM's socket after SIGQUIT. */
#define ATTACH_SOCKET_TIMEOUT_MS 6000
/* HotSpot's limit on each argument of a command (AttachOperation::arg_length_max). */
#define ATTACH_ARG_MAX 1024
/* The reply of an agent action (its text line). */
#define ATTACH_REPLY_MAX 2048

/* What attach_inspect learned about a process. Paths are as the target sees them (its mount
 * namespace); prefix `root` to reach them from here. The flags come from the launcher's JVM
 * options and the JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS and _JAVA_OPTIONS environment variables;
 * an option file (@argfile, -XX:Flags) is not read. */
struct attach_target {
    pid_t pid;   /* in our pid namespace */
    pid_t nspid; /* in the target's own pid namespace: names the socket and trigger */
    uid_t uid;   /* the target's effective uid and gid */
    gid_t gid;
    int switch_creds;         /* we are root and the target is not: act as uid/gid */
    char comm[32];            /* /proc/PID/comm */
    char root[40];            /* "/proc/PID/root" */
    char libjvm[PATH_MAX];    /* the mapped libjvm.so */
    char java_home[PATH_MAX]; /* the directory holding `release`; "" when not found */
    int java_major;           /* from release's JAVA_VERSION (8 for "1.8.0_x"); 0 unknown */
    char agent[PATH_MAX];     /* a libflyprof.so mapped in the target; "" when none */
    int catches_sigquit;      /* SIGQUIT is handled (not with -Xrs, not while starting up) */
    int stopped;              /* stopped by a signal or a debugger: it cannot answer */
    int attach_disabled;      /* -XX:+DisableAttachMechanism on its command line / env */
    int dynamic_loading;      /* -XX:+EnableDynamicAgentLoading: 1, -XX:-...: -1, not given: 0 */
    int other_mntns;          /* the target lives in another mount namespace */
};

/* The agent's answer to an action (reply=PATH): `code` 0 or a positive errno, and one line,
 * maybe a second one. */
struct attach_reply {
    int have;                    /* the agent wrote a reply (an older agent writes none) */
    int code;                    /* 0 success, otherwise a positive errno */
    char text[ATTACH_REPLY_MAX]; /* the message, or for status the key=value line */
    char more[ATTACH_REPLY_MAX]; /* the message's second line: a warning (stop: chunks of the
                                  * log lost to write errors); "" when none */
    int agent_rc;                /* what Agent_OnAttach returned (0 = JNI_OK) */
};

/* The fields of a `status` reply. Strings point into the line passed to attach_parse_status. */
struct attach_status {
    int running;
    uint64_t cpu_ns;       /* 0: CPU sampling off */
    uint64_t wall_ns;      /* 0: wall-clock sampling off */
    unsigned wall_threads; /* threads sampled per wall tick */
    int filter;            /* wall samples only threads marked through the Java API */
    uint64_t samples;
    uint64_t drops;
    int live_threads; /* `threads=`: Java threads the agent knows; -1 when absent */
    uint64_t lost_chunks;  /* chunks of the log it could not write (0 from older agents) */
    uint64_t lost_samples; /* the samples in them */
    int write_errno;       /* the errno of the last one lost, 0: none */
    int alloc, lock;       /* allocation / lock profiling on (older agents: 0) */
    uint64_t alloc_bytes;  /* its sampling interval */
    uint64_t lock_ns;      /* its threshold */
    char engine[16];
    char file[PATH_MAX]; /* the output being written, or the last one; "" or "-": none */
};

/* Monotonic time in ns; deadlines are absolute values of it. */
int64_t attach_now_ns(void);

/* Reads /proc/PID: the process must exist, be a HotSpot JVM (libjvm.so mapped, not OpenJ9) and
 * be reachable: same effective uid and gid as ours, or we are root. Sends nothing to it.
 * Returns 0 with *t filled; -ESRCH no such process (or a zombie); -EPERM another user's
 * process and we are not root; -ENOEXEC not a HotSpot JVM; other -errno when /proc cannot be
 * read. */
int attach_inspect(pid_t pid, struct attach_target *t, char *err, size_t errlen);

/* Whether the target, on its JDK, prints a warning when an agent is loaded dynamically: JDK
 * 21 and later without -XX:+EnableDynamicAgentLoading, unless flyprof is already loaded. */
int attach_warns_dynamic(const struct attach_target *t);

/* Connects to the target's attach socket, starting the attach mechanism first when the socket
 * is not there: trigger file, SIGQUIT (only when the target handles SIGQUIT and has attach
 * enabled), wait for the socket (ATTACH_SOCKET_TIMEOUT_MS and the deadline), trigger file
 * removed. Returns a connected fd (close it) or -errno: -ETIMEDOUT when the socket did not
 * appear; -EPERM when attach is disabled; -EAGAIN when the target does not handle SIGQUIT or is
 * stopped (it would handle the signal later, when the trigger is gone: a thread dump). */
int attach_connect(const struct attach_target *t, int64_t deadline_ns, char *err, size_t errlen);

/* One exchange on a connected attach socket: sends command cmd with args (NULL entries are
 * sent as empty strings; each at most ATTACH_ARG_MAX - 1 bytes) and reads the whole answer
 * until the JVM closes or the deadline passes. out[0..outlen) receives the answer (cut short
 * when longer, always NUL-terminated). Returns 0 or -errno (-ETIMEDOUT, -ECONNRESET, -E2BIG
 * for an argument too long). Does not close fd. */
int attach_exchange(int fd, const char *cmd, const char *const args[3], int64_t deadline_ns,
                    char *out, size_t outlen, char *err, size_t errlen);

/* Splits the answer to `load`: *status = the first line (the attach operation's status);
 * *agent_rc = N from a line "return code: N" (JDK 9+) or a bare second line "N" (JDK 8), or
 * INT_MIN when there is none (the library was not loaded, or loading was refused: JDK 21+
 * then answers status 0 with the JVM's message). *text = the output after the first line.
 * Returns 0, or -EPROTO when the first line is not a number. Pure. */
int attach_parse_load(const char *answer, int *status, int *agent_rc, const char **text);

/* `load` of lib (an absolute path as the target sees it) with options: connects, exchanges,
 * parses. Returns 0 with *agent_rc set to what Agent_OnAttach returned, or -errno: -EPERM the
 * target refuses dynamically loaded agents (the message names -XX:+EnableDynamicAgentLoading),
 * -ENOENT the JVM could not load the library (the message has the JVM's dlerror), -E2BIG lib or
 * options too long, -EPROTO an answer not understood, or attach_connect's errors. */
int attach_load(const struct attach_target *t, const char *lib, const char *options,
                int64_t deadline_ns, int *agent_rc, char *err, size_t errlen);

/* The flyprof agent library next to the running binary: <dir of /proc/self/exe>/../lib/
 * libflyprof.so, resolved. Returns 0 or -ENOENT. */
int attach_find_agent(char *out, size_t cap, char *err, size_t errlen);

/* The path under which the target can load the agent: the libflyprof.so already mapped in it
 * (so actions reach the live instance); else lib itself when the target sees the same file
 * there and can read it; else a copy the target can read, made in its /tmp
 * (/tmp/flyprof-<uid>/libflyprof.so, a 0700 directory owned by the target's uid). Returns 0
 * with out filled, or -errno. */
int attach_stage_agent(const struct attach_target *t, const char *lib, char *out, size_t cap,
                       char *err, size_t errlen);

/* Whether the target's user can create files in the directory of path (an absolute path as the
 * target sees it). Returns 0, or -errno (-EACCES, -ENOENT, ...) with a message naming the
 * directory and the user. */
int attach_check_writable(const struct attach_target *t, const char *path, char *err,
                          size_t errlen);

/* Runs one agent action: creates a reply file in the target's /tmp owned by its user, loads
 * lib with "<options>,reply=/tmp/flyprof-reply-...", reads the reply and removes the file.
 * options holds the action (start, stop, dump, status) and its options, no reply key.
 * Returns 0 when the action succeeded (reply code 0, or no reply and Agent_OnAttach returned
 * JNI_OK) with *r filled; -errno from attach_load; or the agent's failure as -code with err =
 * the agent's message (r->code, r->text kept). */
int attach_action(const struct attach_target *t, const char *lib, const char *options,
                  int64_t deadline_ns, struct attach_reply *r, char *err, size_t errlen);

/* Parses a status reply line, e.g. "running=1 cpu=10000000 engine=cputimer wall=0
 * wallthreads=16 filter=0 samples=120 drops=0 threads=12 lost_chunks=0 lost_samples=0
 * write_errno=0 file=/tmp/a b.fpl": space-separated
 * key=value fields, `file=` last (its value runs to the end of the line, spaces included).
 * Unknown keys are skipped. Returns 0, or -EPROTO
 * when `running=` is missing. Pure. */
int attach_parse_status(const char *line, struct attach_status *st);

/* What a java launcher's arguments say (see attach_scan_args). */
struct attach_cmdline {
    char main[256];      /* main class; "-jar X": X; "-m M/C": M/C; "--source N F": F;
                          * another launcher: its name; "" none */
    int attach_disabled; /* the last -XX:[+-]DisableAttachMechanism: 1 or 0 */
    int dynamic_loading; /* the last -XX:[+-]EnableDynamicAgentLoading: 1 or -1; 0 absent */
};

/* Scans arguments separated by NUL bytes (as in /proc/PID/cmdline) into *c, which keeps what
 * earlier calls found unless a later argument overrides it. With is_cmdline, the first
 * argument is the launcher: for another launcher than java (javac, an application's own), its
 * name is the main and the rest is not scanned; for java, JVM options end at the main class
 * (or -jar/-m/--source and its value): what follows are the program's arguments. Without, every
 * argument is a JVM option (JAVA_TOOL_OPTIONS and the like, split at white space by the caller).
 * Pure. */
void attach_scan_args(const char *buf, size_t len, int is_cmdline, struct attach_cmdline *c);

/* Reads /proc/PID/<name> (cmdline, environ, ...) whole, at most max bytes, into a malloc'd
 * buffer with a NUL after the last byte (free it). Returns 0 or -errno (-ESRCH: no process). */
int attach_read_proc(pid_t pid, const char *name, size_t max, char **out, size_t *len);

/* Reads /proc/PID/maps: the mapped libjvm.so and libflyprof.so paths (" (deleted)" removed;
 * "" when absent) and whether an OpenJ9 VM library is mapped. Returns 0 or -errno (-ESRCH,
 * -EACCES). */
int attach_read_maps(pid_t pid, char *libjvm, size_t jvmcap, char *agent, size_t agentcap,
                     int *openj9);

/* The JDK's major version from <root><home>/release for the libjvm path libjvm (as the target
 * sees it); home[0..homecap) receives the java home. Returns the major version, or 0 when
 * unknown. */
int attach_java_major(const char *root, const char *libjvm, char *home, size_t homecap);

#endif
