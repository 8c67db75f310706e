/* census.c: counting a log's contents in one pass (see census.h). */
#include "census.h"

#include <math.h>
#include <string.h>

#include "fpl_format.h"
#include "fpl_hash.h"

#define HLL_M (1u << CENSUS_HLL_BITS)

/* HyperLogLog: the register picked by the hash's top bits keeps the longest run of leading
 * zeros (plus one) seen in the remaining bits. */
static void hll_add(struct census *c, uint64_t h)
{
    uint32_t reg = (uint32_t)(h >> (64 - CENSUS_HLL_BITS));
    uint64_t rest = h << CENSUS_HLL_BITS | (1ull << (CENSUS_HLL_BITS - 1)); /* never all zero */
    uint8_t rank = (uint8_t)(__builtin_clzll(rest) + 1);
    if (rank > c->hll[reg])
        c->hll[reg] = rank;
}

/* The estimated number of distinct hashes added: the harmonic mean of the registers' 2^rank,
 * with linear counting while registers are still empty (small counts). */
static uint64_t hll_count(const struct census *c)
{
    double sum = 0;
    unsigned zeros = 0;
    for (unsigned i = 0; i < HLL_M; i++) {
        sum += ldexp(1.0, -(int)c->hll[i]);
        zeros += c->hll[i] == 0;
    }
    double m = HLL_M, est = 0.7213 / (1 + 1.079 / m) * m * m / sum;
    if (est <= 2.5 * m && zeros)
        est = m * log(m / zeros);
    return (uint64_t)(est + 0.5);
}

static int on_thread(void *ctx, uint64_t id, uint64_t tid, struct reader_str name)
{
    struct census *c = ctx;
    (void)id;
    (void)tid;
    c->threads++;
    c->thread_bytes += name.len;
    return 0;
}

static int on_method(void *ctx, const struct reader_method *m)
{
    struct census *c = ctx;
    c->methods++;
    c->method_bytes += m->class_name.len + m->name.len + m->signature.len + m->source_file.len;
    c->lines += m->nlines;
    return 0;
}

static int on_stack(void *ctx, uint64_t id, const struct reader_frame *f, size_t n)
{
    struct census *c = ctx;
    (void)id;
    (void)f;
    c->stacks++;
    c->frames += n;
    if (n > c->max_depth)
        c->max_depth = n;
    return 0;
}

static int on_sample(void *ctx, const struct reader_sample *s)
{
    struct census *c = ctx;
    c->samples++;
    c->context_samples += s->context_id != 0;
    c->event_samples += s->kind >= FPL_KIND_ALLOC && s->kind <= FPL_KIND_LIVE;
    hll_add(c, fpl_hash_mix(fpl_hash_mix(fpl_hash_u64(s->thread_id), s->stack_id),
                            (uint64_t)s->kind << 8 | s->state));
    return 0;
}

static int on_tick(void *ctx, const struct reader_wall_tick *t)
{
    struct census *c = ctx;
    (void)t;
    c->wall_ticks++;
    return 0;
}

static int on_context(void *ctx, uint64_t id, uint64_t span, uint64_t root)
{
    struct census *c = ctx;
    (void)id;
    (void)span;
    (void)root;
    c->contexts++;
    return 0;
}

static int on_endpoint(void *ctx, uint64_t root, struct reader_str name)
{
    struct census *c = ctx;
    (void)root;
    c->endpoints++;
    c->endpoint_bytes += name.len;
    return 0;
}

static const struct reader_ops census_ops = {
    .thread = on_thread,
    .method = on_method,
    .stack = on_stack,
    .sample = on_sample,
    .wall_tick = on_tick,
    .context = on_context,
    .endpoint = on_endpoint,
};

static int finish(struct census *c, int rc)
{
    c->file_bytes = c->stats.file_bytes;
    c->cells = hll_count(c);
    if (c->cells > c->samples)
        c->cells = c->samples; /* never more cells than samples */
    return rc;
}

int census_read(const char *path, struct census *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof(*c));
    return finish(c, reader_read_file(path, &census_ops, c, &c->stats, err, errlen));
}

int census_read_mem(const void *data, size_t len, const char *name, struct census *c, char *err,
                    size_t errlen)
{
    memset(c, 0, sizeof(*c));
    return finish(c, reader_read_mem(data, len, name, &census_ops, c, &c->stats, err, errlen));
}
