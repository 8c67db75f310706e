/* loopfiles.c: names the logs of loop= and deletes the oldest for keep= (loopfiles.h). */
#include "loopfiles.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"

/* Whether tmpl names %n (%% is a literal '%'). */
static int numbered(const char *tmpl)
{
    for (const char *p = tmpl; *p; p++) {
        if (p[0] == '%' && p[1] == 'n')
            return 1;
        if (p[0] == '%' && p[1] == '%')
            p++;
    }
    return 0;
}

int loopfiles_template(const char *file, char *out, size_t outlen)
{
    size_t n = strlen(file);
    if (numbered(file)) {
        if (n >= outlen)
            return -ENAMETOOLONG;
        memcpy(out, file, n + 1);
        return 0;
    }
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    /* the extension: ".pb.gz" whole, else from the last dot (not a leading one) */
    const char *ext = NULL;
    size_t bn = strlen(base);
    if (bn > 6 && strcmp(base + bn - 6, ".pb.gz") == 0)
        ext = base + bn - 6;
    else if ((ext = strrchr(base, '.')) == base)
        ext = NULL;
    size_t head = ext ? (size_t)(ext - file) : n;
    if (n + 3 >= outlen)
        return -ENAMETOOLONG;
    memcpy(out, file, head);
    memcpy(out + head, "-%n", 3);
    memcpy(out + head + 3, file + head, n - head + 1);
    return 0;
}

int loopfiles_init(struct loopfiles *lf, const char *tmpl, const char *log_tmpl, int pid,
                   unsigned keep)
{
    free(lf->starts);
    memset(lf, 0, sizeof(*lf));
    if (loopfiles_template(tmpl, lf->tmpl, sizeof(lf->tmpl)) != 0 ||
        (log_tmpl && *log_tmpl &&
         loopfiles_template(log_tmpl, lf->log_tmpl, sizeof(lf->log_tmpl)) != 0))
        return -ENAMETOOLONG;
    lf->pid = pid;
    lf->keep = keep;
    if (keep && !(lf->starts = calloc((size_t)keep + 1, sizeof(long))))
        return -ENOMEM;
    return 0;
}

int loopfiles_next(struct loopfiles *lf, long start_sec, char *out, size_t outlen, char *log,
                   size_t loglen)
{
    long seq = lf->seq + 1;
    int rc = options_expand_file_seq(lf->tmpl, lf->pid, start_sec, seq, out, outlen);
    if (rc == 0 && log && lf->log_tmpl[0])
        rc = options_expand_file_seq(lf->log_tmpl, lf->pid, start_sec, seq, log, loglen);
    if (rc != 0)
        return rc;
    lf->seq = seq;
    if (lf->keep)
        lf->starts[seq % (lf->keep + 1)] = start_sec;
    return 0;
}

int loopfiles_prune(struct loopfiles *lf)
{
    if (!lf->keep || lf->seq <= (long)lf->keep)
        return 0;
    /* keep + 1 slots: the newest N and the one that falls out */
    long old = lf->seq - (long)lf->keep;
    long start = lf->starts[old % (lf->keep + 1)];
    char path[1200];
    int n = 0;
    if (options_expand_file_seq(lf->tmpl, lf->pid, start, old, path, sizeof(path)) == 0 &&
        unlink(path) == 0)
        n++;
    if (lf->log_tmpl[0] &&
        options_expand_file_seq(lf->log_tmpl, lf->pid, start, old, path, sizeof(path)) == 0 &&
        unlink(path) == 0)
        n++;
    return n;
}

void loopfiles_free(struct loopfiles *lf)
{
    free(lf->starts);
    lf->starts = NULL;
}
