/* render_file.c: format choice and atomic output files (see render_file.h). */
#include "render_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "census.h"
#include "out_collapsed.h"
#include "out_html.h"
#include "out_jfr.h"
#include "timeline.h"
#include "out_pprof.h"
#include "out_text.h"

#define TMP_TRIES 100

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int render_file_format(const char *path, const char *format, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        int format;
    } names[] = {{"collapsed", RENDER_FILE_COLLAPSED},
                 {"folded", RENDER_FILE_COLLAPSED},
                 {"html", RENDER_FILE_HTML},
                 {"jfr", RENDER_FILE_JFR},
                 {"pprof", RENDER_FILE_PPROF},
                 {"txt", RENDER_FILE_TXT},
                 {"text", RENDER_FILE_TXT}},
      exts[] = {{".collapsed", RENDER_FILE_COLLAPSED},
                {".folded", RENDER_FILE_COLLAPSED},
                {".html", RENDER_FILE_HTML},
                {".jfr", RENDER_FILE_JFR},
                {".pb.gz", RENDER_FILE_PPROF},
                {".txt", RENDER_FILE_TXT}};

    if (format) {
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            if (strcmp(format, names[i].name) == 0)
                return names[i].format;
        }
        snprintf(err, errlen, "unknown output format '%s': use one of %s", format,
                 RENDER_FILE_FORMAT_NAMES);
        return -EINVAL;
    }
    if (strcmp(path, "-") == 0)
        return RENDER_FILE_COLLAPSED;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
        if (strlen(base) > strlen(exts[i].name) && ends_with(base, exts[i].name))
            return exts[i].format;
    }
    const char *dot = strchr(base + (base[0] == '.'), '.');
    if (!dot)
        snprintf(err, errlen,
                 "cannot tell the output format of '%s' (no extension): name it with one of %s, "
                 "or give --format (%s)",
                 path, RENDER_FILE_EXTENSIONS, RENDER_FILE_FORMAT_NAMES);
    else
        snprintf(err, errlen, "unknown output format '%s' of '%s': use one of %s", dot, path,
                 RENDER_FILE_EXTENSIONS);
    return -EINVAL;
}

/* What to render: one profile, or a diff of two. */
struct job {
    int format;
    int diff;
    const struct profile *p;
    const struct profile *base;
    const struct render_opts *o;
};

/* Renders the job into f. */
static int render_to(const struct job *j, FILE *f, char *err, size_t errlen)
{
    if (j->diff)
        return out_html_write_diff(j->base, j->p, j->o, f, err, errlen);
    switch (j->format) {
    case RENDER_FILE_COLLAPSED: {
        struct render_select s;
        int rc = render_select_init(&s, j->p, j->o, err, errlen);
        if (rc)
            return rc;
        rc = out_collapsed_write_select(j->p, &s, j->o->threads, j->o->reverse, f, err, errlen);
        render_select_destroy(&s);
        return rc;
    }
    case RENDER_FILE_TXT:
        return out_text_write(j->p, j->o, f, err, errlen);
    case RENDER_FILE_HTML:
        return out_html_write(j->p, j->o, f, err, errlen);
    case RENDER_FILE_PPROF:
        return out_pprof_write(j->p, j->o, f, err, errlen);
    case RENDER_FILE_JFR:
        return out_jfr_write(j->p, j->o, f, err, errlen);
    default:
        snprintf(err, errlen, "render: unknown format %d", j->format);
        return -EINVAL;
    }
}

/* Prefixes err with the output's name: "'out.html': <err>". */
static void name_error(const char *path, char *err, size_t errlen)
{
    char msg[1024];
    snprintf(msg, sizeof(msg), "%s", err);
    snprintf(err, errlen, "'%s': %s", path, msg);
}

/* Creates a new temporary file next to path (same directory, so rename is atomic); its name
 * goes to tmp. Returns the descriptor or -errno. Created with mode 0666 so the umask applies
 * as for any new file. */
static int open_temp(const char *path, char *tmp, size_t cap)
{
    static _Atomic unsigned counter; /* distinct names for threads of one process */
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;

    for (int i = 0; i < TMP_TRIES; i++) {
        unsigned n = atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
        int len = snprintf(tmp, cap, "%.*s.%s.%ld.%u.tmp", dirlen, path, base, (long)getpid(), n);
        if (len < 0 || (size_t)len >= cap)
            return -ENAMETOOLONG;
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            return -errno;
    }
    return -EEXIST;
}

/* Runs the job into path through a temporary file and a rename. */
static int write_atomic(const struct job *j, const char *path, char *err, size_t errlen)
{
    char tmp[4096];
    int rc;

    if (strcmp(path, "-") == 0) {
        rc = render_to(j, stdout, err, errlen);
        if (rc == 0 && fflush(stdout) != 0) {
            rc = -errno;
            snprintf(err, errlen, "cannot write to standard output: %s", strerror(-rc));
        }
        return rc;
    }
    const char *base = strrchr(path, '/');
    if (!*path || (base && !base[1])) {
        snprintf(err, errlen, "'%s': not a file name", path);
        return -EINVAL;
    }
    int fd = open_temp(path, tmp, sizeof(tmp));
    if (fd < 0) {
        snprintf(err, errlen, "cannot create '%s': %s", path, strerror(-fd));
        return fd;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        rc = -errno;
        close(fd);
        unlink(tmp);
        snprintf(err, errlen, "cannot create '%s': %s", path, strerror(-rc));
        return rc;
    }
    rc = render_to(j, f, err, errlen);
    if (rc) {
        name_error(path, err, errlen);
    } else if (fflush(f) != 0 || ferror(f) || fsync(fd) != 0) {
        rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(-rc));
    }
    if (fclose(f) != 0 && rc == 0) {
        rc = errno ? -errno : -EIO;
        snprintf(err, errlen, "cannot write '%s': %s", path, strerror(-rc));
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -errno;
        snprintf(err, errlen, "cannot create '%s': %s", path, strerror(-rc));
    }
    if (rc)
        unlink(tmp);
    return rc;
}

int render_file_write(const struct profile *p, const struct render_opts *o, const char *path,
                      const char *format, char *err, size_t errlen)
{
    int fmt = render_file_format(path, format, err, errlen);
    if (fmt < 0)
        return fmt;
    struct job j = {fmt, 0, p, NULL, o};
    return write_atomic(&j, path, err, errlen);
}

int render_file_write_diff(const struct profile *base, const struct profile *cur,
                           const struct render_opts *o, const char *path, const char *format,
                           char *err, size_t errlen)
{
    int fmt = render_file_format(path,
                                 format              ? format
                                 : strcmp(path, "-") ? NULL
                                                     : "html",
                                 err, errlen);
    if (fmt < 0)
        return fmt;
    if (fmt != RENDER_FILE_HTML) {
        snprintf(err, errlen, "a diff is an html flame graph: name the output '%s' with .html",
                 path);
        return -EINVAL;
    }
    struct job j = {fmt, 1, cur, base, o};
    return write_atomic(&j, path, err, errlen);
}

/* The sizes of what the reader, the profile and the writers allocate per item (see profile.h,
 * render.c, out_collapsed.c, out_html.c), rounded up, with the slack of arrays that double
 * and of hash indexes up to half empty. */
#define EST_BASE (4ull << 20)         /* stdio and zlib buffers, the writers' scratch */
#define EST_WINDOW (3ull << 20)       /* the reader's window and a large chunk */
#define EST_THREAD 160ull             /* entry, index, two copies of the name's arena blocks */
#define EST_METHOD 320ull             /* entry (doubling), index, five strings' arena rounding */
#define EST_STACK 96ull               /* entry (doubling), index, its frames' arena rounding */
#define EST_FRAME 24ull               /* struct profile_frame */
#define EST_CELL_READ 160ull          /* struct profile_entry doubling (128), index (32) */
#define EST_CELL 64ull                /* struct profile_entry, shrunk when reading ends */
#define EST_TICK 80ull                /* a WALL_TICK while reading */
#define EST_FOLD_UNIT 100ull          /* out_collapsed: unit (doubling), index, order */
#define EST_TREE_UNIT 140ull          /* render.c: unit (doubling), index, order, lcp */
#define EST_SEQ 8ull                  /* a frame of a stack's name sequence (doubling) */
#define EST_NAME 64ull                /* an interned name: pointer, type, index, HTML's slots */
#define EST_NODE 112ull               /* a tree node (doubling) and the page's per-node arrays */
#define EST_PAGE_NODE 16ull           /* a node's bytes in the page's data (doubling) */
#define EST_PPROF_FRAME 12ull         /* pprof: a stack's encoded locations, a location */
#define EST_PPROF_CELL 32ull          /* pprof: a sample's values and labels, encoded */
#define EST_JFR_STACK 12ull           /* jfr: a stack's stamp and its place in a chunk's list */
#define EST_JFR_METHOD 100ull         /* jfr: a method's keys, stamp, and its names interned */
#define EST_JFR_CHUNK (40ull << 20)   /* jfr: a chunk's events (12 MB, doubling) and pools */

uint64_t render_file_estimate_census(const struct census *c, const struct render_opts *o, int fmt)
{
    /* pprof and JFR keep the cells of each request apart (profile.cells_by_context, as
     * `flyprof convert` and the agent read for them): a sample of a request adds one at most */
    uint64_t cells = c->cells;
    if (fmt == RENDER_FILE_PPROF || fmt == RENDER_FILE_JFR)
        cells += c->context_samples;
    uint64_t names = c->methods + c->threads + 16;
    /* trace context (tracectx.h): 24 bytes and an index per CONTEXT record, 16, the name and
     * an index per named root span (doubling) */
    uint64_t dict = c->threads * EST_THREAD + 2 * c->thread_bytes + c->methods * EST_METHOD +
                    3 * c->method_bytes + c->lines * 16 + c->stacks * EST_STACK +
                    c->frames * EST_FRAME + c->contexts * 96 + c->endpoints * 80 +
                    2 * c->endpoint_bytes;
    /* reading: the cells at their largest; after: the cells as kept */
    uint64_t reading = EST_WINDOW + dict + cells * EST_CELL_READ + c->wall_ticks * EST_TICK;
    uint64_t profile = dict + cells * EST_CELL;
    uint64_t render = 0;
    /* a unit per cell at most (cells of the same thread name and stack merge) */
    uint64_t seqs = c->frames * EST_SEQ + c->stacks * 64;
    switch (fmt) {
    case RENDER_FILE_COLLAPSED:
        render = cells * EST_FOLD_UNIT + seqs + names * EST_NAME;
        break;
    case RENDER_FILE_HTML: {
        uint64_t max = o->max_nodes ? o->max_nodes : OUT_HTML_MAX_NODES;
        uint64_t nodes = c->frames + c->stacks + c->threads + 2;
        if (o->min_share >= 0 && nodes > max)
            nodes = max;
        render = cells * EST_TREE_UNIT + seqs + names * EST_NAME + 2 * c->method_bytes +
                 nodes * (EST_NODE + EST_PAGE_NODE) + 2 * c->method_bytes;
        /* the timeline (timeline.h): a pair per sample at most, up to its cap, 24 bytes and
         * 32 of index while reading, 4 per cell; writing the page (out_html_timeline.c): a
         * 48-byte row mark per pair, a node per cell, 25 bytes per tree node for the per-bin
         * sums, and the per-bin text (its size is in EST_PAGE_NODE's slack) */
        uint64_t pairs = c->samples < TIMELINE_MAX_PAIRS ? c->samples : TIMELINE_MAX_PAIRS;
        reading += pairs * 56 + cells * 4;
        render += pairs * 48 + cells * 8 + nodes * 29;
        /* its requests: a context pair per sample with a context at most, up to the cap, 40
         * bytes (doubling: 80) and 32 of index; on the page, a 48-byte record and its text */
        uint64_t cpairs = c->context_samples < TIMELINE_MAX_CTX_PAIRS ? c->context_samples
                                                                      : TIMELINE_MAX_CTX_PAIRS;
        reading += cpairs * 112;
        render += cpairs * 112;
        break;
    }
    case RENDER_FILE_TXT:
        /* one tree build at a time: the tree printed (pruned at half its threshold: small),
         * then the walk of the flat tables (which keeps next to nothing) */
        render = cells * EST_TREE_UNIT + seqs + names * EST_NAME + 2 * c->method_bytes +
                 (1u << 20);
        break;
    case RENDER_FILE_PPROF:
        render = c->frames * EST_PPROF_FRAME + cells * EST_PPROF_CELL +
                 names * EST_NAME + 2 * c->method_bytes + c->lines * 16;
        break;
    case RENDER_FILE_JFR:
        /* a chunk's pools hold every stack it uses: at worst all of them, encoded, copied
         * from each stack's entry encoded once (out_jfr.c keeps them all) */
        render = EST_JFR_CHUNK + c->stacks * EST_JFR_STACK + c->frames * EST_PPROF_FRAME * 3 +
                 c->methods * EST_JFR_METHOD + 2 * c->method_bytes;
        /* event times from the timeline (as for HTML), and per cell a weight sum, a count,
         * a bin and a selection byte while writing */
        {
            uint64_t pairs = c->samples < TIMELINE_MAX_PAIRS ? c->samples : TIMELINE_MAX_PAIRS;
            reading += pairs * 56 + cells * 4;
            render += pairs * 24 + cells * 33;
        }
        /* alloc, lock and live samples one by one (profile.kept, doubling), and an index per
         * cell while reading */
        {
            uint64_t kept = c->event_samples < PROFILE_MAX_KEPT ? c->event_samples
                                                                : PROFILE_MAX_KEPT;
            reading += kept * 48 + cells * 4;
            profile += kept * 48;
        }
        break;
    }
    uint64_t after = profile + render;
    return EST_BASE + (reading > after ? reading : after);
}

int render_file_estimate(const char *log_path, const struct render_opts *o, const char *path,
                         const char *format, uint64_t *bytes, char *err, size_t errlen)
{
    int fmt = render_file_format(path, format, err, errlen);
    if (fmt < 0)
        return fmt;
    struct census *c = malloc(sizeof(*c));
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int rc = census_read(log_path, c, err, errlen);
    if (rc == 0)
        *bytes = render_file_estimate_census(c, o, fmt);
    free(c);
    return rc;
}
