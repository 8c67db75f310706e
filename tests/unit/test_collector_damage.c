/* test_collector_damage.c: damaged logs. A log cut at every byte offset yields exactly the
 * samples of the chunks complete before the cut; a log with random bytes flipped, ranges
 * overwritten or fake chunk headers planted, thousands of times, never crashes the reader
 * or the outputs (run the -asan variant), and every chunk the damage did not touch is still
 * read. A chunk the file system takes only part of is taken back by fpl_chunk_write, so the
 * log reads on after it. FPL_DAMAGE_SEED and FPL_DAMAGE_ITERS override the seed and the iteration
 * count. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpl_chunk.h"
#include "fpl_format.h"
#include "fplgen.h"
#include "harness.h"
#include "out_collapsed.h"
#include "profile.h"
#include "summary.h"

#define NCHUNKS 24

static uint64_t rng_state;

static uint64_t rnd(void)
{
    /* xorshift64*: reproducible from the seed */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static size_t rnd_below(size_t n)
{
    return n ? (size_t)(rnd() % n) : 0;
}

/* A multi-chunk log: dictionaries in chunk 0 and some later chunks, samples everywhere,
 * counters now and then, END in the last chunk. Every chunk has a wall tick (id c + 1, with
 * 1 to 3 chosen of 1 to 12 candidates) written after its samples; wall samples answer their
 * own chunk's tick or the previous chunk's, so a lost chunk leaves samples of an unknown
 * tick. */
static int build(struct fplgen *g)
{
    const struct fplgen_header h = {
        .pid = 1,
        .ticks_per_sec = 1000000000ull,
        .cpu_interval_ns = 1000000,
        .engine = FPL_ENGINE_CPUTIMER,
        .depth = 64,
        .options = "cpu=1ms",
        .jvm_name = "VM",
        .jvm_version = "1",
        .command = "java Damage",
    };
    uint64_t t = 0, nstacks = 4;
    int rc = fplgen_init(g);
    if (rc)
        return rc;
    fplgen_header(g, &h);
    for (uint64_t m = 1; m <= 8; m++) {
        char name[16];
        snprintf(name, sizeof(name), "m%llu", (unsigned long long)m);
        fplgen_method(g, m, FPL_METHOD_JAVA, "pkg.Cls", name, "()V", "Cls.java", 0, NULL);
    }
    for (uint64_t th = 1; th <= 3; th++)
        fplgen_thread(g, th, 100 + th, "worker");
    for (uint64_t s = 0; s < nstacks; s++) {
        struct reader_frame f[3] = {{1 + s % 8, 1, 0}, {1 + (s + 3) % 8, 2, 0}, {1, -1, 0}};
        fplgen_stack(g, s, 3, f);
    }
    for (int c = 0; c < NCHUNKS; c++) {
        if (c % 5 == 2) { /* a new stack, used from here on */
            struct reader_frame f[2] = {{2, 7, 0}, {3, 8, 0}};
            fplgen_stack(g, nstacks++, 2, f);
        }
        int n = 5 + (int)rnd_below(40);
        for (int i = 0; i < n; i++) {
            t += 1 + rnd_below(3000000);
            uint8_t kind = (uint8_t)rnd_below(2);
            uint64_t tick = kind == FPL_KIND_WALL ? (uint64_t)c + rnd_below(2) : 0;
            fplgen_sample_tick(g, t, 1 + rnd_below(4), rnd_below(nstacks + 1), 1 + rnd_below(3),
                               kind, (uint8_t)rnd_below(8), tick);
        }
        uint64_t chosen = 1 + rnd_below(3);
        fplgen_wall_tick(g, (uint64_t)c + 1, t, chosen + rnd_below(10), chosen, chosen, 0);
        if (c % 4 == 3) {
            struct reader_counter ctr[] = {{FPL_CTR_SAMPLES, t}, {FPL_CTR_RING_DROPS, 1}};
            fplgen_counters(g, 2, ctr);
        }
        if (c == NCHUNKS - 1)
            fplgen_end(g, t + 1);
        if ((rc = fplgen_flush(g)) != 0)
            return rc;
    }
    return 0;
}

/* Reads len bytes from an exactly sized copy; returns the read's result. */
static int read_copy(struct profile *p, const uint8_t *data, size_t len)
{
    char err[256];
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, data, len);
    int rc = profile_read_mem(p, copy, len, "damaged.fpl", err, sizeof(err));
    free(copy);
    return rc;
}

/* Sums the weights of folded text up to a line starting with stop; *lines gets the count. */
static uint64_t folded_sum(char *buf, const char *stop, uint64_t *lines)
{
    uint64_t sum = 0;
    *lines = 0;
    for (char *line = buf; line && *line && strncmp(line, stop, strlen(stop)) != 0;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;
        *nl = 0;
        char *sp = strrchr(line, ' ');
        sum += sp ? strtoull(sp + 1, NULL, 10) : 0;
        ++*lines;
        line = nl + 1;
    }
    return sum;
}

/* Runs both outputs over a (possibly damaged) profile and checks the folded weights add up
 * to the total of the selected kind: exactly for CPU; for wall, each line is rounded, so the
 * sum is within half a unit per line of the upscaled total. Every wall sample is accounted
 * for by exactly one way of scaling it. */
static void render(const struct profile *p)
{
    char err[128];
    char *buf = NULL;
    size_t len = 0;
    uint64_t lines;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return;
    struct out_collapsed_opts o = {FPL_KIND_CPU, 1, 0};
    CHECK(out_collapsed_write(p, &o, f, err, sizeof(err)) == 0);
    CHECK(summary_write(p, "damaged.fpl", f, err, sizeof(err)) == 0);
    fclose(f);
    /* the folded part ends where the summary starts */
    CHECK_EQ_U(folded_sum(buf, "flyprof summary", &lines), p->total[FPL_KIND_CPU].weight);
    free(buf);

    buf = NULL;
    f = open_memstream(&buf, &len);
    if (!f)
        return;
    o.kind = FPL_KIND_WALL;
    CHECK(out_collapsed_write(p, &o, f, err, sizeof(err)) == 0);
    fclose(f);
    double sum = (double)folded_sum(buf, "\n", &lines);
    double want = profile_fp_double(p->total[FPL_KIND_WALL].upscaled);
    CHECK(sum >= want - 0.5 * (double)lines - 1e-6 && sum <= want + 0.5 * (double)lines + 1e-6);
    CHECK(p->total[FPL_KIND_WALL].upscaled >= (unsigned __int128)p->total[FPL_KIND_WALL].weight
                                                  << PROFILE_FP_SHIFT);
    const struct profile_wall *w = &p->wall;
    CHECK_EQ_U(w->scaled + w->no_tick + w->unknown_tick + w->bad_tick,
               p->total[FPL_KIND_WALL].count);
    free(buf);
}

static void test_truncation(const uint8_t *log, size_t size, const struct fplgen *g)
{
    size_t bad = 0;
    for (size_t cut = 0; cut <= size; cut++) {
        struct profile *p = profile_new();
        if (!p) {
            CHECK(0);
            return;
        }
        int rc = read_copy(p, log, cut);
        uint64_t want = 0, want_w = 0, complete = 0, at_boundary = cut == FPL_PREAMBLE_SIZE;
        for (size_t c = 0; c < g->nchunks; c++) {
            if (g->chunks[c].end <= cut) {
                want += g->chunks[c].samples;
                want_w += g->chunks[c].weight;
                complete++;
            }
            at_boundary |= g->chunks[c].end == cut;
        }
        int ok;
        if (cut < FPL_PREAMBLE_SIZE) {
            ok = rc == -EINVAL;
        } else {
            uint64_t w = p->total[0].weight + p->total[1].weight;
            ok = rc == 0 && p->samples == want && w == want_w && p->stats.chunks_ok == complete &&
                 p->stats.chunks_damaged == 0 && p->stats.chunks_truncated == !at_boundary &&
                 p->stats.chunks_lost == 0 && p->end_seen == (cut == size);
            if (cut % 13 == 0 || cut == size)
                render(p);
        }
        if (!ok && bad++ < 5)
            fprintf(stderr,
                    "cut at %zu: rc %d, samples %llu (want %llu), ok %llu, "
                    "truncated %llu, damaged %llu\n",
                    cut, rc, (unsigned long long)p->samples, (unsigned long long)want,
                    (unsigned long long)p->stats.chunks_ok,
                    (unsigned long long)p->stats.chunks_truncated,
                    (unsigned long long)p->stats.chunks_damaged);
        CHECK(ok);
        profile_free(p);
    }
}

/* Damages a copy in one of several ways; returns the length to read (some cut the end). */
static size_t mutate(uint8_t *d, size_t size)
{
    size_t len = size;
    int kind = (int)rnd_below(6);
    /* the preamble is hit now and then too; the rest of the time damage starts after it */
    size_t lo = rnd_below(50) == 0 ? 0 : FPL_PREAMBLE_SIZE;
    switch (kind) {
    case 0: /* flip bits */
        for (int i = 1 + (int)rnd_below(4); i > 0; i--)
            d[lo + rnd_below(size - lo)] ^= (uint8_t)(1u << rnd_below(8));
        break;
    case 1: /* random bytes over a range */
    case 2: /* zeros or 0xff over a range */
    {
        size_t at = lo + rnd_below(size - lo), n = 1 + rnd_below(64);
        uint8_t fill = rnd_below(2) ? 0xff : 0;
        for (size_t i = at; i < at + n && i < size; i++)
            d[i] = kind == 1 ? (uint8_t)rnd() : fill;
        break;
    }
    case 3: /* a fake chunk header: sync word and a plausible length */
    case 4: {
        size_t at = lo + rnd_below(size - lo);
        uint32_t v[3] = {FPL_CHUNK_SYNC, (uint32_t)rnd_below(kind == 3 ? 4096 : FPL_CHUNK_MAX),
                         (uint32_t)rnd()};
        for (size_t i = 0; i < sizeof(v) && at + i < size; i++)
            d[at + i] = (uint8_t)(v[i / 4] >> (8 * (i % 4)));
        break;
    }
    default: /* a flipped byte and the end cut off */
        d[lo + rnd_below(size - lo)] ^= (uint8_t)(1 + rnd_below(255));
        len = lo + rnd_below(size - lo);
        break;
    }
    return len;
}

static void test_corruption(const uint8_t *log, size_t size, const struct fplgen *g, unsigned iters)
{
    uint8_t *d = malloc(size);
    size_t bad = 0;
    if (!d) {
        CHECK(0);
        return;
    }
    for (unsigned it = 0; it < iters; it++) {
        memcpy(d, log, size);
        uint64_t state = rng_state;
        size_t len = mutate(d, size);
        int preamble_hit = len < FPL_PREAMBLE_SIZE || memcmp(d, log, FPL_PREAMBLE_SIZE) != 0;
        /* a chunk is intact when its header and payload are unchanged and inside the file */
        uint64_t want = 0, intact = 0;
        for (size_t c = 0; c < g->nchunks; c++) {
            const struct fplgen_chunk *ch = &g->chunks[c];
            if (ch->end > len || memcmp(d + ch->start, log + ch->start, ch->end - ch->start))
                continue;
            want += ch->samples;
            intact++;
        }
        struct profile *p = profile_new();
        if (!p) {
            CHECK(0);
            break;
        }
        int rc = read_copy(p, d, len);
        int ok;
        if (preamble_hit)
            ok = rc == 0 || rc == -EINVAL; /* no crash is all that is asked */
        else /* forging a chunk takes a CRC match, which this many tries never get */
            ok = rc == 0 && p->samples == want && p->stats.chunks_ok == intact;
        if (rc == 0 && it % 8 == 0)
            render(p);
        if (!ok && bad++ < 5) {
            size_t first = 0, last = 0;
            for (size_t i = 0; i < len; i++) {
                if (d[i] != log[i]) {
                    first = first ? first : i + 1;
                    last = i + 1;
                }
            }
            fprintf(stderr,
                    "iteration %u (rng state %llu): rc %d, samples %llu (want %llu), "
                    "chunks ok %llu (want %llu); bytes changed in [%zu, %zu), length "
                    "%zu of %zu\n",
                    it, (unsigned long long)state, rc, (unsigned long long)p->samples,
                    (unsigned long long)want, (unsigned long long)p->stats.chunks_ok,
                    (unsigned long long)intact, first ? first - 1 : 0, last, len, size);
        }
        CHECK(ok);
        profile_free(p);
    }
    free(d);
}

static uint64_t total_samples(const struct fplgen *g)
{
    uint64_t n = 0;
    for (size_t i = 0; i < g->nchunks; i++)
        n += g->chunks[i].samples;
    return n;
}

/* A damaged chunk in the middle: the reader counts it, skips exactly its bytes and notices
 * from the sequence numbers that one chunk is missing. */
static void test_one_damaged_chunk(const uint8_t *log, size_t size, const struct fplgen *g)
{
    uint8_t *d = malloc(size);
    if (!d)
        return;
    memcpy(d, log, size);
    const struct fplgen_chunk *c = &g->chunks[5];
    d[c->start + 20] ^= 0x40;
    struct profile *p = profile_new();
    CHECK(p && read_copy(p, d, size) == 0);
    if (p) {
        CHECK_EQ_U(p->stats.chunks_damaged, 1);
        CHECK_EQ_U(p->stats.bytes_skipped, c->end - c->start);
        CHECK_EQ_U(p->stats.chunks_lost, 1);
        CHECK_EQ_U(p->stats.chunks_ok, g->nchunks - 1);
        CHECK(p->end_seen);
    }
    profile_free(p);
    /* the same with the length field damaged to run past the end: not mistaken for a cut */
    memcpy(d, log, size);
    d[c->start + 6] = 0x7f; /* length += 8M */
    p = profile_new();
    CHECK(p && read_copy(p, d, size) == 0);
    if (p) {
        CHECK_EQ_U(p->stats.chunks_damaged, 1);
        CHECK_EQ_U(p->stats.chunks_truncated, 0);
        CHECK_EQ_U(p->stats.chunks_ok, g->nchunks - 1);
    }
    profile_free(p);
    /* a damaged sequence number: the CRC covers it, so the chunk fails like any other */
    memcpy(d, log, size);
    d[c->start + 15] = 0x55;
    p = profile_new();
    CHECK(p && read_copy(p, d, size) == 0);
    if (p) {
        CHECK_EQ_U(p->stats.chunks_ok, g->nchunks - 1);
        CHECK_EQ_U(p->stats.chunks_damaged, 1);
        CHECK_EQ_U(p->stats.bytes_skipped, c->end - c->start);
        CHECK_EQ_U(p->stats.chunks_lost, 1);
        CHECK_EQ_U(p->stats.seq_errors, 0);
        CHECK_EQ_U(p->samples, p->total[0].count + p->total[1].count);
        CHECK_EQ_U(p->samples, total_samples(g) - c->samples);
    }
    profile_free(p);
    free(d);
}

/* A chunk that the file system takes only part of (here RLIMIT_FSIZE, which cuts a write
 * short and fails the next one with EFBIG, as a full disk does with ENOSPC): fpl_chunk_write
 * fails and leaves the file as it was before the chunk, so the next chunk follows the last
 * whole one and the reader sees a gap in the sequence, not a damaged region. */
static void test_partial_write(void)
{
    char path[] = "/tmp/fpl-partial-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    unlink(path);
    static uint8_t payload[4000];
    for (size_t i = 0; i < sizeof(payload); i++)
        payload[i] = (uint8_t)(i * 7); /* no records: the reader only frames the chunks */
    CHECK(fpl_chunk_write_preamble(fd) == 0);
    CHECK(fpl_chunk_write(fd, 0, NULL, 0) == 0);
    off_t before = lseek(fd, 0, SEEK_CUR);

    struct rlimit old, lim;
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = (rlim_t)before + 100; /* room for the header and part of the payload */
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    int rc = fpl_chunk_write(fd, 1, payload, sizeof(payload));
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, prev);
    CHECK(rc == -EFBIG);
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && st.st_size == before);
    CHECK(lseek(fd, 0, SEEK_CUR) == before);

    /* the next chunk (the failed one's number skipped) follows the last whole one */
    CHECK(fpl_chunk_write(fd, 2, NULL, 0) == 0);
    CHECK(fstat(fd, &st) == 0 && st.st_size == before + FPL_CHUNK_HEADER_SIZE);
    uint8_t buf[256];
    ssize_t n = pread(fd, buf, sizeof(buf), 0);
    CHECK(n == (ssize_t)before + FPL_CHUNK_HEADER_SIZE);
    struct reader_stats rs;
    char err[256];
    CHECK(n > 0 &&
          reader_read_mem(buf, (size_t)n, "partial", NULL, NULL, &rs, err, sizeof(err)) == 0);
    CHECK_EQ_U(rs.chunks_ok, 2);
    CHECK_EQ_U(rs.chunks_lost, 1);
    CHECK_EQ_U(rs.chunks_damaged, 0);
    CHECK_EQ_U(rs.chunks_truncated, 0);
    close(fd);
}

int main(void)
{
    const char *seed_s = getenv("FPL_DAMAGE_SEED"), *iters_s = getenv("FPL_DAMAGE_ITERS");
    uint64_t seed = seed_s ? strtoull(seed_s, NULL, 0) : 0x5eed1234abcdull;
    unsigned iters = iters_s ? (unsigned)strtoul(iters_s, NULL, 0) : 4000;
    struct fplgen g;
    size_t size;

    rng_state = seed ? seed : 1;
    CHECK(build(&g) == 0);
    uint8_t *log = fplgen_bytes(&g, &size);
    CHECK(log != NULL);
    if (!log)
        return harness_result("test_collector_damage");
    CHECK_EQ_U(g.nchunks, NCHUNKS);
    fprintf(stderr, "log: %zu bytes, %zu chunks, seed %llu, %u iterations\n", size, g.nchunks,
            (unsigned long long)seed, iters);

    test_partial_write();
    test_truncation(log, size, &g);
    test_one_damaged_chunk(log, size, &g);
    test_corruption(log, size, &g, iters);
    free(log);
    fplgen_destroy(&g);
    return harness_result("test_collector_damage");
}
