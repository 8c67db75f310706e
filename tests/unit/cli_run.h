/* cli_run.h: what the CLI tests share: a scratch directory, the flyprof binary under test, and
 * running a program with its exit code, standard output and standard error captured. One
 * process runs one test at a time (single-threaded). */
#ifndef CLI_RUN_H
#define CLI_RUN_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

struct cli_run {
    int code;  /* exit code, or 128 + signal; -1 when it could not be waited for */
    char *out; /* standard output, never NULL */
    char *err; /* standard error, never NULL */
};

extern char cli_run_dir[PATH_MAX]; /* the scratch directory */
extern const char *cli_run_bin;    /* the flyprof under test, an absolute path */

/* Checks argv (the test takes the path of the binary as its one argument), makes it absolute,
 * creates the scratch directory <TMPDIR>/<tag>-XXXXXX and sets TZ=UTC for the runs. Returns 0,
 * or prints why not and returns the exit code the test should end with. */
int cli_run_setup(int argc, char **argv, const char *tag);

/* Removes the scratch directory when nothing failed (failed == 0), else names it for the
 * post-mortem. */
void cli_run_cleanup(int failed);

/* out = <scratch>/<name>. */
void cli_run_path(char *out, size_t cap, const char *name);

/* Starts argv (argv[0] the program) in cwd, its output going to files in the scratch
 * directory; returns its pid. cli_run_finish collects it. */
pid_t cli_run_start(const char *cwd, char *const argv[]);
struct cli_run cli_run_finish(pid_t pid);

/* Runs prog in cwd with the NULL-terminated arguments and waits for it. */
struct cli_run cli_run_prog(const char *prog, const char *cwd, ...);

void cli_run_free(struct cli_run *r);

/* 1 when text holds want; otherwise prints both and returns 0 (for CHECK). */
int cli_run_has(const char *text, const char *want);

/* 1 when got is want; otherwise prints both and returns 0 (for CHECK). */
int cli_run_same(const char *got, const char *want);

/* The number of lines of text (a last line without '\n' counts). */
size_t cli_run_lines(const char *text);

/* The flyprof under test with these arguments, in the scratch directory. */
#define CLI_RUN(...) cli_run_prog(cli_run_bin, cli_run_dir, __VA_ARGS__, (char *)NULL)

#endif
