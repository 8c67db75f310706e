/* cli_run.c: running the CLI under test (see cli_run.h). */
#include "cli_run.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slurp.h"

char cli_run_dir[PATH_MAX];
const char *cli_run_bin;

int cli_run_setup(int argc, char **argv, const char *tag)
{
    static char bin_abs[PATH_MAX];
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH_TO_FLYPROF\n", argv[0]);
        return 2;
    }
    if (!realpath(argv[1], bin_abs)) {
        perror(argv[1]);
        return 1;
    }
    cli_run_bin = bin_abs; /* the commands run in the scratch directory */
    snprintf(cli_run_dir, sizeof(cli_run_dir), "%s/%s-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", tag);
    if (!mkdtemp(cli_run_dir)) {
        perror("mkdtemp");
        return 1;
    }
    /* clock times in outputs and options are then the same on every machine */
    setenv("TZ", "UTC", 1);
    return 0;
}

void cli_run_cleanup(int failed)
{
    if (failed) {
        fprintf(stderr, "files kept in %s\n", cli_run_dir);
        return;
    }
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cli_run_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", cli_run_dir);
}

void cli_run_path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", cli_run_dir, name);
}

pid_t cli_run_start(const char *cwd, char *const argv[])
{
    char o[PATH_MAX + 16], e[PATH_MAX + 16];
    cli_run_path(o, sizeof(o), "stdout.txt");
    cli_run_path(e, sizeof(e), "stderr.txt");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fo = open(o, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(e, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0 || dup2(fo, 1) < 0 || dup2(fe, 2) < 0 || chdir(cwd) != 0)
            _exit(99);
        execv(argv[0], argv);
        _exit(98);
    }
    return pid;
}

struct cli_run cli_run_finish(pid_t pid)
{
    struct cli_run r = {-1, NULL, NULL};
    char o[PATH_MAX + 16], e[PATH_MAX + 16];
    int st;
    if (pid > 0 && waitpid(pid, &st, 0) == pid)
        r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    cli_run_path(o, sizeof(o), "stdout.txt");
    cli_run_path(e, sizeof(e), "stderr.txt");
    r.out = slurp(o);
    r.err = slurp(e);
    if (!r.out)
        r.out = strdup("");
    if (!r.err)
        r.err = strdup("");
    return r;
}

struct cli_run cli_run_prog(const char *prog, const char *cwd, ...)
{
    char *argv[48];
    int n = 0;
    va_list ap;
    argv[n++] = (char *)prog;
    va_start(ap, cwd);
    for (char *a; n < 47 && (a = va_arg(ap, char *)) != NULL;)
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    return cli_run_finish(cli_run_start(cwd, argv));
}

void cli_run_free(struct cli_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

int cli_run_has(const char *text, const char *want)
{
    if (text && strstr(text, want))
        return 1;
    fprintf(stderr, "expected [%s] in:\n%s\n", want, text ? text : "(null)");
    return 0;
}

int cli_run_same(const char *got, const char *want)
{
    if (got && strcmp(got, want) == 0)
        return 1;
    fprintf(stderr, "got:\n%s\nwant:\n%s\n", got ? got : "(null)", want);
    return 0;
}

size_t cli_run_lines(const char *text)
{
    size_t n = 0;
    for (const char *s = text; s && *s; s++)
        n += *s == '\n' || !s[1];
    return n;
}
