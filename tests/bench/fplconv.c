/* fplconv: converts a .fpl log as `flyprof convert` does (profile_read_file, then
 * render_file_write: the format from OUT's extension) and times the two phases apart --
 * reading and aggregating, then writing the output -- for convert_bench.py.
 *
 *     fplconv IN.fpl OUT.{pb.gz,collapsed,html,txt} [--kind cpu|wall|all] [--state N]
 *             [--include RE] [--exclude RE] [--threads]
 *
 * Prints one line on stderr: samples, stacks, cells, and the seconds of each phase, wall and
 * CPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "profile.h"
#include "render.h"
#include "render_file.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU time of this process (user + system): unlike the wall time, it does not count the
 * time other processes held the core. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    struct render_opts o = {.kind = PROFILE_KIND_AUTO, .state = RENDER_STATE_ALL};
    const char *in = NULL, *out = NULL;
    char err[512];

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--threads") == 0) {
            o.threads = 1;
        } else if (a[0] == '-' && a[1] == '-' && !v) {
            fprintf(stderr, "fplconv: %s needs a value\n", a);
            return 2;
        } else if (strcmp(a, "--kind") == 0) {
            i++;
            if (strcmp(v, "cpu") == 0)
                o.kind = FPL_KIND_CPU;
            else if (strcmp(v, "wall") == 0)
                o.kind = FPL_KIND_WALL;
            else if (strcmp(v, "all") == 0)
                o.kind = PROFILE_KIND_ALL;
            else {
                fprintf(stderr, "fplconv: unknown kind '%s'\n", v);
                return 2;
            }
        } else if (strcmp(a, "--state") == 0) {
            o.state = atoi(argv[++i]);
        } else if (strcmp(a, "--include") == 0) {
            o.include = argv[++i];
        } else if (strcmp(a, "--exclude") == 0) {
            o.exclude = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "fplconv: unknown option '%s'\n", a);
            return 2;
        } else if (!in) {
            in = a;
        } else if (!out) {
            out = a;
        } else {
            fprintf(stderr, "fplconv: too many arguments\n");
            return 2;
        }
    }
    if (!in || !out) {
        fprintf(stderr, "usage: fplconv IN.fpl OUT.{pb.gz,collapsed,html,txt} "
                        "[--kind cpu|wall|all] [--state N] [--include RE] [--exclude RE] "
                        "[--threads]\n");
        return 2;
    }

    double t0 = now(), c0 = cpu_now();
    struct profile *p = profile_new();
    if (!p || profile_read_file(p, in, err, sizeof(err)) != 0) {
        fprintf(stderr, "fplconv: %s\n", p ? err : "out of memory");
        profile_free(p);
        return 1;
    }
    double t1 = now(), c1 = cpu_now();
    int rc = render_file_write(p, &o, out, NULL, err, sizeof(err));
    double t2 = now(), c2 = cpu_now();
    if (rc) {
        fprintf(stderr, "fplconv: %s\n", err);
        profile_free(p);
        return 1;
    }
    fprintf(stderr,
            "fplconv: %llu samples, %zu stacks, %zu methods, %zu cells; read %.3f s "
            "(cpu %.3f s), write %.3f s (cpu %.3f s)\n",
            (unsigned long long)p->samples, p->nstacks, p->nmethods, p->nentries, t1 - t0, c1 - c0,
            t2 - t1, c2 - c1);
    profile_free(p);
    return 0;
}
