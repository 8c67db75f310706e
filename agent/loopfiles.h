/* loopfiles.h: the output files of loop= (DESIGN "Output"): the template each log's name is
 * expanded from, and keep=N's deletion of the oldest. Control and writer threads, one at a
 * time (control.c's lock or the writer's rotation); never a signal handler.
 *
 * A log of loop= is named by expanding the file= template with its number (%n, from 1) and
 * its start time (%t, whole seconds); a template without %n gets "-%n" before its extension,
 * so no log overwrites another (two logs may start in one second: %t alone is not enough). keep=N remembers the start times of the
 * newest N logs and of the one that falls out (8 bytes each), so it can name and delete it. */
#ifndef LOOPFILES_H
#define LOOPFILES_H

#include <stddef.h>

struct loopfiles {
    char tmpl[1100];     /* the output's template, with %n when loop= is on */
    char log_tmpl[1100]; /* log=: the raw log's template likewise; "" when not kept */
    int pid;
    unsigned keep;       /* 0: keep all */
    long *starts;        /* keep + 1 entries: start time of log n at [n % (keep + 1)] */
    long seq;            /* the number of the newest log begun; 0 before the first */
};

/* Copies file= into out, with "-%n" before its extension (".fpl", ".pb.gz": the last dot of
 * the last path component, or its end) when it does not name %n. Returns 0, or
 * -ENAMETOOLONG. */
int loopfiles_template(const char *file, char *out, size_t outlen);

/* Readies lf for a session: the templates (log_tmpl may be NULL or ""), pid and keep. Returns
 * 0, or -ENAMETOOLONG or -ENOMEM (keep's start times could not be allocated). */
int loopfiles_init(struct loopfiles *lf, const char *tmpl, const char *log_tmpl, int pid,
                   unsigned keep);

/* Begins the next log at start_sec: its number (lf->seq) goes up by one, and its output and
 * log paths (log NULL when there is no log template) are expanded into out and log. Returns
 * 0 or -errno. */
int loopfiles_next(struct loopfiles *lf, long start_sec, char *out, size_t outlen, char *log,
                   size_t loglen);

/* After the newest log (lf->seq) is finished: with keep=N, deletes the output (and kept log)
 * of log seq - N, if it exists. Returns how many files were deleted. */
int loopfiles_prune(struct loopfiles *lf);

/* Frees what loopfiles_init allocated. */
void loopfiles_free(struct loopfiles *lf);

#endif
