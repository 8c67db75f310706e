/* export.c: one time series to .hlog, CSV and InfluxDB at once (export.h). */
#include "export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out_csv.h"
#include "out_hlog.h"
#include "out_influx.h"

struct exporter {
    struct out_hlog *hlog;
    struct out_csv *csv;
    struct out_influx *influx;
};

int export_open(struct exporter **ep, const struct export_opts *o, char *err, size_t errlen)
{
    struct exporter *e = calloc(1, sizeof(*e));
    int rc = 0;
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    if (o->hlog &&
        (rc = out_hlog_open(&e->hlog, o->hlog, o->start_ns, o->comment, err, errlen)) != 0)
        goto fail;
    if (o->csv && (rc = out_csv_open(&e->csv, o->csv, err, errlen)) != 0)
        goto fail;
    if (o->influx &&
        (rc = out_influx_open(&e->influx, o->influx, o->measurement ? o->measurement : "latency",
                              err, errlen)) != 0)
        goto fail;
    *ep = e;
    return 0;
fail:
    /* nothing was written yet: leave no empty outputs behind */
    if (e->hlog) {
        out_hlog_close(e->hlog, NULL, 0);
        unlink(o->hlog);
    }
    if (e->csv) {
        out_csv_close(e->csv, NULL, 0);
        unlink(o->csv);
    }
    free(e);
    return rc;
}

int export_point(struct exporter *e, const struct export_point *p, char *err, size_t errlen)
{
    int rc = 0, r;
    char e2[512];
    if (e->hlog &&
        (r = out_hlog_write(e->hlog, p->probe, p->start_ns, p->length_ns, p->hist, rc ? e2 : err,
                            rc ? sizeof(e2) : errlen)) != 0 &&
        !rc)
        rc = r;
    if (e->csv && (r = out_csv_write(e->csv, p, rc ? e2 : err, rc ? sizeof(e2) : errlen)) != 0 &&
        !rc)
        rc = r;
    if (e->influx &&
        (r = out_influx_write(e->influx, p, rc ? e2 : err, rc ? sizeof(e2) : errlen)) != 0 && !rc)
        rc = r;
    return rc;
}

int export_close(struct exporter *e, char *err, size_t errlen)
{
    if (!e)
        return 0;
    char e2[512];
    int rc = out_hlog_close(e->hlog, err, errlen);
    int r = out_csv_close(e->csv, rc ? e2 : err, rc ? sizeof(e2) : errlen);
    rc = rc ? rc : r;
    r = out_influx_close(e->influx, rc ? e2 : err, rc ? sizeof(e2) : errlen);
    rc = rc ? rc : r;
    free(e);
    return rc;
}
