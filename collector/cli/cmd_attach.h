/* cmd_attach.h: the CLI commands that act on running JVMs: attach, start, stop, dump, status
 * and list. They print (results on stdout, progress, warnings and errors on stderr) and return
 * the process exit code: 0 success, 1 failure, 2 usage error. CLI main thread.
 */
#ifndef CMD_ATTACH_H
#define CMD_ATTACH_H

/* Their part of `flyprof --help`. */
#define CMD_ATTACH_USAGE                                                                           \
    "  flyprof attach PID [-d SECONDS] [-e cpu|wall|cpu,wall] [-i TIME] [-o FILE] [--threads]\n"   \
    "                 [-- AGENT_OPTIONS]\n"                                                        \
    "      load the agent into a running JVM, profile it for SECONDS (default 10; Ctrl-C\n"        \
    "      stops early), write FILE (default flyprof-PID.fpl) and stop; the JVM needs\n"           \
    "      nothing at startup\n"                                                                   \
    "  flyprof start PID [-d SECONDS] [-e ...] [-i TIME] [-o FILE] [--threads] [AGENT_OPTIONS]\n"  \
    "      start profiling in a running JVM and return (-d: stop by itself after SECONDS)\n"       \
    "  flyprof stop PID\n"                                                                         \
    "      stop profiling and complete the output file\n"                                          \
    "  flyprof dump PID [-o FILE]\n"                                                               \
    "      write the profile so far without stopping (default flyprof-PID-dump.fpl)\n"             \
    "  flyprof status PID\n"                                                                       \
    "      whether flyprof is loaded and profiling: modes, samples, drops, output file\n"          \
    "  flyprof list\n"                                                                             \
    "      the local JVMs: pid, user, JDK, main class or jar, whether flyprof is loaded\n"

/* Whether cmd is one of these commands. */
int cmd_attach_is_command(const char *cmd);

/* Runs the command argv[0] (attach, start, stop, dump, status or list) with its arguments. */
int cmd_attach_main(int argc, char **argv);

#endif
