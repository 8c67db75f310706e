/* out_csv.c: the latency time series as CSV (out_csv.h). */
#include "out_csv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out_csv {
    FILE *f;
    char *path;
};

int out_csv_open(struct out_csv **c, const char *path, char *err, size_t errlen)
{
    struct out_csv *o = calloc(1, sizeof(*o));
    if (!o || !(o->path = strdup(path))) {
        free(o);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    o->f = fopen(path, "w");
    if (!o->f) {
        int e = errno;
        snprintf(err, errlen, "cannot create '%s': %s", path, strerror(e));
        free(o->path);
        free(o);
        return -e;
    }
    fprintf(o->f, "time,probe,count,p50_ns,p99_ns,p999_ns,max_ns,max_time,stalled_pct,gc_ms,"
                  "safepoint_ms\n");
    if (fflush(o->f) != 0) {
        int e = errno;
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(e));
        out_csv_close(o, NULL, 0);
        return -e;
    }
    *c = o;
    return 0;
}

int out_csv_write(struct out_csv *c, const struct export_point *p, char *err, size_t errlen)
{
    const struct hdr *h = p->hist;
    fprintf(c->f, "%llu,%s,%llu,%llu,%llu,%llu,%llu,%llu,%.3f,", (unsigned long long)p->start_ns,
            p->probe, (unsigned long long)h->total, (unsigned long long)hdr_percentile(h, 50),
            (unsigned long long)hdr_percentile(h, 99), (unsigned long long)hdr_percentile(h, 99.9),
            (unsigned long long)h->max, (unsigned long long)p->max_time_ns, p->stalled_pct);
    if (p->gc_ms >= 0)
        fprintf(c->f, "%.3f", p->gc_ms);
    fputc(',', c->f);
    if (p->safepoint_ms >= 0)
        fprintf(c->f, "%.3f", p->safepoint_ms);
    fputc('\n', c->f);
    if (fflush(c->f) != 0 || ferror(c->f)) {
        int e = errno ? errno : EIO;
        snprintf(err, errlen, "cannot write '%s': %s", c->path, strerror(e));
        return -e;
    }
    return 0;
}

int out_csv_close(struct out_csv *c, char *err, size_t errlen)
{
    if (!c)
        return 0;
    int rc = 0;
    if (ferror(c->f) | fclose(c->f)) {
        rc = -(errno ? errno : EIO);
        if (err)
            snprintf(err, errlen, "cannot write '%s': %s", c->path, strerror(-rc));
    }
    free(c->path);
    free(c);
    return rc;
}
