/* test_collector_stream.c: the reader reads logs chunk by chunk, in memory proportional to a
 * chunk, not to the file.
 *
 * 1. The same log, damaged in many ways and cut at many places, read from memory, from a
 *    regular file (pread, window by window) and from a pipe (forward only) delivers the same
 *    records and the same damage statistics. This executable's reader is built with tiny
 *    windows (READER_READ_MIN, READER_SCAN: see stream.cmake), so chunks, records and sync
 *    words straddle window boundaries everywhere.
 * 2. With a flyprof CLI and fplsynth given on the command line (argv[1], argv[2]; then only
 *    this part runs): the peak
 *    RSS of `flyprof summary` and `flyprof convert -o X.collapsed` on a synthetic log of a few
 *    hundred MB with few distinct stacks (measured with wait4's rusage of the child, not with
 *    time) stays far below the file's size. A reader that maps or copies the file fails it.
 *    FLYPROF_STREAM_SAMPLES overrides the synthetic log's sample count (default 20M).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fpl_format.h"
#include "fpl_hash.h"
#include "fplgen.h"
#include "harness.h"
#include "reader.h"

static uint64_t rng_state = 0x5eedfeed1234ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static size_t rnd_below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* ---- a digest of everything the reader delivers ---- */

struct digest {
    uint64_t h;
    uint64_t records;
};

static void mix(struct digest *d, uint64_t v)
{
    d->h = fpl_hash_mix(d->h, v);
}

static void mix_str(struct digest *d, struct reader_str s)
{
    mix(d, fpl_hash_bytes(s.s, s.len));
}

static int on_header(void *ctx, const struct reader_header *h)
{
    struct digest *d = ctx;
    mix(d, 1);
    mix(d, h->pid);
    mix(d, h->ticks_per_sec);
    mix(d, h->anchor_ticks);
    mix_str(d, h->options);
    mix_str(d, h->command);
    d->records++;
    return 0;
}

static int on_thread(void *ctx, uint64_t id, uint64_t tid, struct reader_str name)
{
    struct digest *d = ctx;
    mix(d, 2);
    mix(d, id);
    mix(d, tid);
    mix_str(d, name);
    d->records++;
    return 0;
}

static int on_method(void *ctx, const struct reader_method *m)
{
    struct digest *d = ctx;
    mix(d, 3);
    mix(d, m->id);
    mix_str(d, m->class_name);
    mix_str(d, m->name);
    for (size_t i = 0; i < m->nlines; i++)
        mix(d, m->lines[i].start_bci << 20 ^ m->lines[i].line);
    d->records++;
    return 0;
}

static int on_stack(void *ctx, uint64_t id, const struct reader_frame *f, size_t n)
{
    struct digest *d = ctx;
    mix(d, 4);
    mix(d, id);
    for (size_t i = 0; i < n; i++) {
        mix(d, f[i].method_id);
        mix(d, (uint64_t)f[i].bci);
        mix(d, f[i].type);
    }
    d->records++;
    return 0;
}

static int on_sample(void *ctx, const struct reader_sample *s)
{
    struct digest *d = ctx;
    mix(d, 5);
    mix(d, s->ticks);
    mix(d, s->thread_id << 32 ^ s->stack_id);
    mix(d, s->weight << 16 ^ (uint64_t)s->kind << 8 ^ s->state);
    mix(d, s->tick_id);
    d->records++;
    return 0;
}

static int on_tick(void *ctx, const struct reader_wall_tick *t)
{
    struct digest *d = ctx;
    mix(d, 6);
    mix(d, t->id);
    mix(d, t->candidates << 32 ^ t->chosen);
    d->records++;
    return 0;
}

static int on_end(void *ctx, uint64_t ticks)
{
    struct digest *d = ctx;
    mix(d, 7);
    mix(d, ticks);
    d->records++;
    return 0;
}

static const struct reader_ops digest_ops = {
    .header = on_header,
    .thread = on_thread,
    .method = on_method,
    .stack = on_stack,
    .sample = on_sample,
    .wall_tick = on_tick,
    .end = on_end,
};

/* ---- the log ---- */

/* Dictionaries, samples of every size (some chunks of a few records, one of several KiB of
 * long stacks), wall ticks, END. */
static int build(struct fplgen *g)
{
    const struct fplgen_header h = {.pid = 7,
                                    .ticks_per_sec = 1000000000ull,
                                    .cpu_interval_ns = 1000000,
                                    .depth = 512,
                                    .options = "cpu=1ms",
                                    .jvm_name = "VM",
                                    .jvm_version = "1",
                                    .command = "java Stream"};
    int rc = fplgen_init(g);
    if (rc)
        return rc;
    fplgen_header(g, &h);
    for (uint64_t m = 1; m <= 40; m++) {
        char name[32];
        struct reader_line lines[3] = {{0, m}, {4, m + 1}, {9, m + 2}};
        snprintf(name, sizeof(name), "method%llu", (unsigned long long)m);
        fplgen_method(g, m, FPL_METHOD_JAVA, "pkg.Stream", name, "()V", "Stream.java", 3, lines);
    }
    fplgen_thread(g, 1, 11, "main");
    fplgen_thread(g, 2, 12, "worker");
    uint64_t t = 0, nstacks = 0;
    for (int c = 0; c < 30; c++) {
        int deep = c == 11; /* one chunk of long stacks: bigger than any small window */
        for (int k = 0; k < (deep ? 6 : 1); k++) {
            struct reader_frame f[300];
            size_t n = deep ? 300 : 2 + rnd_below(6);
            for (size_t i = 0; i < n; i++)
                f[i] = (struct reader_frame){1 + rnd_below(40), (int64_t)rnd_below(12), 0};
            fplgen_stack(g, nstacks++, n, f);
        }
        int n = (int)rnd_below(c % 7 == 0 ? 3 : 40);
        for (int i = 0; i < n; i++) {
            t += 1 + rnd_below(1000000);
            fplgen_sample_tick(g, t, 1 + rnd_below(2), rnd_below(nstacks), 1 + rnd_below(2),
                               (uint8_t)rnd_below(2), (uint8_t)rnd_below(8), rnd_below(3));
        }
        fplgen_wall_tick(g, (uint64_t)c + 1, t, 8, 2, 2, 0);
        if (c == 29)
            fplgen_end(g, t + 1);
        if ((rc = fplgen_flush(g)) != 0)
            return rc;
    }
    return 0;
}

/* Damages d[0..size) in one of several ways; returns the length to read. */
static size_t mutate(uint8_t *d, size_t size)
{
    size_t lo = FPL_PREAMBLE_SIZE, len = size;
    switch (rnd_below(5)) {
    case 0: /* bits flipped */
        for (int i = 1 + (int)rnd_below(3); i > 0; i--)
            d[lo + rnd_below(size - lo)] ^= (uint8_t)(1u << rnd_below(8));
        break;
    case 1: { /* a range of garbage */
        size_t at = lo + rnd_below(size - lo), n = 1 + rnd_below(200);
        for (size_t i = at; i < at + n && i < size; i++)
            d[i] = (uint8_t)rnd();
        break;
    }
    case 2: { /* a fake chunk header with a plausible length, even one past the end */
        size_t at = lo + rnd_below(size - lo);
        uint32_t v[2] = {FPL_CHUNK_SYNC, (uint32_t)rnd_below(rnd_below(2) ? 2048 : FPL_CHUNK_MAX)};
        for (size_t i = 0; i < sizeof(v) && at + i < size; i++)
            d[at + i] = (uint8_t)(v[i / 4] >> (8 * (i % 4)));
        break;
    }
    case 3: /* cut */
        len = lo + rnd_below(size - lo);
        break;
    default: /* a flipped byte and a cut */
        d[lo + rnd_below(size - lo)] ^= 0x5a;
        len = lo + rnd_below(size - lo);
        break;
    }
    return len;
}

/* ---- reading the same bytes three ways ---- */

struct result {
    int rc;
    struct reader_stats st;
    struct digest d;
};

static void read_mem(const uint8_t *data, size_t len, struct result *r)
{
    char err[256];
    memset(r, 0, sizeof(*r));
    r->rc = reader_read_mem(data, len, "x.fpl", &digest_ops, &r->d, &r->st, err, sizeof(err));
}

static void read_path(const char *path, struct result *r)
{
    char err[256];
    memset(r, 0, sizeof(*r));
    r->rc = reader_read_file(path, &digest_ops, &r->d, &r->st, err, sizeof(err));
}

/* Reads the bytes through a pipe a child process writes into, in small pieces. */
static void read_pipe(const uint8_t *data, size_t len, struct result *r)
{
    int fds[2];
    char path[64];
    memset(r, 0, sizeof(*r));
    if (pipe(fds) != 0) {
        r->rc = -errno;
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        for (size_t off = 0; off < len;) {
            size_t n = len - off < 700 ? len - off : 700;
            ssize_t w = write(fds[1], data + off, n);
            if (w <= 0)
                _exit(1);
            off += (size_t)w;
        }
        _exit(0);
    }
    close(fds[1]);
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fds[0]);
    read_path(path, r);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
}

static int same(const struct result *a, const struct result *b)
{
    return a->rc == b->rc && memcmp(&a->st, &b->st, sizeof(a->st)) == 0 && a->d.h == b->d.h &&
           a->d.records == b->d.records;
}

/* Reads each damaged copy from memory, a file and a pipe: the three agree, and all of them
 * read every chunk the damage did not touch. */
static void test_same_three_ways(const uint8_t *log, size_t size, const struct fplgen *g,
                                 const char *tmp)
{
    uint8_t *d = malloc(size);
    unsigned bad = 0, iters = 600, damaged = 0, truncated = 0;
    if (!d) {
        CHECK(0);
        return;
    }
    for (unsigned it = 0; it < iters; it++) {
        memcpy(d, log, size);
        size_t len = it == 0 ? size : mutate(d, size);
        struct result m, f, p;
        read_mem(d, len, &m);
        CHECK(fplgen_write_file(tmp, d, len) == 0);
        read_path(tmp, &f);
        read_pipe(d, len, &p);
        /* every chunk the damage left alone is read (forging a CRC match does not happen) */
        uint64_t intact = 0;
        for (size_t c = 0; c < g->nchunks; c++) {
            const struct fplgen_chunk *ch = &g->chunks[c];
            intact +=
                ch->end <= len && !memcmp(d + ch->start, log + ch->start, ch->end - ch->start);
        }
        int ok = same(&m, &f) && same(&m, &p) && m.rc == 0 && m.st.chunks_ok == intact;
        damaged += m.st.chunks_damaged > 0;
        truncated += m.st.chunks_truncated > 0;
        if (it == 0)
            CHECK(m.rc == 0 && m.st.chunks_ok == 30 && m.d.records > 500);
        if (!ok && bad++ < 5)
            fprintf(stderr,
                    "iteration %u: rc %d/%d/%d, ok chunks %llu/%llu/%llu, damaged "
                    "%llu/%llu/%llu, records %llu/%llu/%llu\n",
                    it, m.rc, f.rc, p.rc, (unsigned long long)m.st.chunks_ok,
                    (unsigned long long)f.st.chunks_ok, (unsigned long long)p.st.chunks_ok,
                    (unsigned long long)m.st.chunks_damaged,
                    (unsigned long long)f.st.chunks_damaged,
                    (unsigned long long)p.st.chunks_damaged, (unsigned long long)m.d.records,
                    (unsigned long long)f.d.records, (unsigned long long)p.d.records);
        CHECK(ok);
    }
    /* the damage took every path through the walk */
    CHECK(damaged > 100 && truncated > 50);
    free(d);
    unlink(tmp);
}

/* ---- peak memory of the CLI on a big log ---- */

/* Runs argv, output to /dev/null; returns the exit status, the child's peak RSS in *rss. */
static int run_rss(char *const argv[], long *rss_kib)
{
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            close(null);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid)
        return -1;
    *rss_kib = ru.ru_maxrss;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_cli_rss(const char *cli, const char *synth, const char *dir)
{
    char fpl[4200], out[4200], samples[32];
    const char *n = getenv("FLYPROF_STREAM_SAMPLES");
    snprintf(samples, sizeof(samples), "%s", n ? n : "20000000");
    snprintf(fpl, sizeof(fpl), "%s/stream-big.fpl", dir);
    snprintf(out, sizeof(out), "%s/stream-big.collapsed", dir);
    /* many samples over few stacks: the file is big, the profile small */
    char *gen[] = {(char *)synth, "-o", fpl, "-n", samples, "-u",
                   "2000",        "-t", "8", "-d", "30",    NULL};
    long rss = 0;
    CHECK(run_rss(gen, &rss) == 0);
    struct stat sb;
    CHECK(stat(fpl, &sb) == 0);
    long file_kib = (long)(sb.st_size / 1024);
    fprintf(stderr, "synthetic log: %ld KiB\n", file_kib);
    CHECK(file_kib > 150 * 1024);

    char *summary[] = {(char *)cli, "summary", fpl, NULL};
    char *convert[] = {(char *)cli, "convert", fpl, "-o", out, "--threads", NULL};
    char *const *cmds[] = {summary, convert};
    for (size_t i = 0; i < 2; i++) {
        rss = 0;
        CHECK(run_rss(cmds[i], &rss) == 0);
        fprintf(stderr, "flyprof %s: peak RSS %ld KiB (%.1f%% of the log)\n", cmds[i][1], rss,
                100.0 * (double)rss / (double)file_kib);
        /* the dictionaries and cells take a few MiB; a mapped or copied log would be all of it */
        CHECK(rss > 0 && rss < 64 * 1024 && rss < file_kib / 4);
    }
    unlink(fpl);
    unlink(out);
}

int main(int argc, char **argv)
{
    struct fplgen g;
    size_t size;
    char dir[4096], tmp[4200];

    if (!getcwd(dir, sizeof(dir)))
        snprintf(dir, sizeof(dir), "/tmp");
    if (argc >= 3) {
        test_cli_rss(argv[1], argv[2], dir);
        return harness_result("test_collector_stream (rss)");
    }
    snprintf(tmp, sizeof(tmp), "%s/stream-%d.fpl", dir, (int)getpid());
    CHECK(build(&g) == 0);
    uint8_t *log = fplgen_bytes(&g, &size);
    CHECK(log != NULL);
    if (log)
        test_same_three_ways(log, size, &g, tmp);
    free(log);
    fplgen_destroy(&g);
    return harness_result("test_collector_stream");
}
