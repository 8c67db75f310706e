/* test_collector_context: trace context in the collector (FORMAT.md 5.16, 5.17, 5.19, 5.20),
 * on a log made here: CONTEXT records, samples carrying context ids, ENDPOINT records written
 * before and *after* the samples they name -- and the same log with the names as version 3
 * writes them (ENDPOINT_NAME once, ENDPOINT2 per request), which must read the same, and
 * ENDPOINT2's damage (a name id never defined, one defined twice). Checks the selection by endpoint (which needs the names
 * before the samples: the first pass), by span and by root span, samples without a context
 * left out by any of them, an undefined context id counted, cells kept apart by context only
 * when asked, and the summary's endpoints (JSON) with their requests, CPU and wall time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_format.h"
#include "fplgen.h"
#include "harness.h"
#include "out_endpoints.h"
#include "profile.h"

#define CPU_NS 10000000ull
#define WALL_NS 20000000ull

static void put_context(struct fplgen *g, uint64_t id, uint64_t span, uint64_t root)
{
    struct fpl_buf b = {0};
    fpl_put_v(&b, id);
    fpl_put_v(&b, span);
    fpl_put_v(&b, root);
    fplgen_record(g, FPL_REC_CONTEXT, b.data, b.len);
    fpl_buf_free(&b);
}

/* Endpoints as version 3 writes them (ENDPOINT_NAME, ENDPOINT2) rather than ENDPOINT: */
static int as_v3;
static const char *v3_names[64]; /* name id - 1 -> the name its ENDPOINT_NAME gave */
static size_t v3_nnames;

static void put_name(struct fplgen *g, uint64_t id, const char *name)
{
    struct fpl_buf b = {0};
    fpl_put_v(&b, id);
    fpl_put_str(&b, name);
    fplgen_record(g, FPL_REC_ENDPOINT_NAME, b.data, b.len);
    fpl_buf_free(&b);
}

static void put_endpoint2(struct fplgen *g, uint64_t root, uint64_t name_id)
{
    struct fpl_buf b = {0};
    fpl_put_v(&b, root);
    fpl_put_v(&b, name_id);
    fplgen_record(g, FPL_REC_ENDPOINT2, b.data, b.len);
    fpl_buf_free(&b);
}

static void put_endpoint(struct fplgen *g, uint64_t root, const char *name)
{
    if (as_v3) {
        size_t k = 0;
        while (k < v3_nnames && strcmp(v3_names[k], name) != 0)
            k++;
        if (k == v3_nnames && k < sizeof(v3_names) / sizeof(v3_names[0])) {
            v3_names[v3_nnames++] = name;
            put_name(g, k + 1, name);
        }
        put_endpoint2(g, root, k + 1);
        return;
    }
    struct fpl_buf b = {0};
    fpl_put_v(&b, root);
    fpl_put_str(&b, name);
    fplgen_record(g, FPL_REC_ENDPOINT, b.data, b.len);
    fpl_buf_free(&b);
}

/* A SAMPLE with tick id 0 and a context id. Sample deltas are from 0: one per chunk here. */
static void put_sample(struct fplgen *g, uint64_t stack, uint64_t weight, uint8_t kind,
                       uint8_t state, uint64_t ctx)
{
    struct fpl_buf b = {0};
    fpl_put_sv(&b, 1000);
    fpl_put_v(&b, 1);
    fpl_put_v(&b, stack);
    fpl_put_v(&b, weight);
    fpl_put_u8(&b, kind);
    fpl_put_u8(&b, state);
    fpl_put_v(&b, 0);
    fpl_put_v(&b, ctx);
    fplgen_record(g, FPL_REC_SAMPLE, b.data, b.len);
    fpl_buf_free(&b);
    fplgen_flush(g); /* one sample per chunk: each delta is from 0 */
}

static uint8_t *build(size_t *len)
{
    struct fplgen g;
    if (fplgen_init(&g) != 0)
        return NULL;
    struct fplgen_header h = {.pid = 1, .ticks_per_sec = 1000000000, .cpu_interval_ns = CPU_NS,
                              .wall_interval_ns = WALL_NS, .wall_threads = 16, .depth = 64,
                              .options = "", .jvm_name = "", .jvm_version = "", .command = ""};
    fplgen_header(&g, &h);
    fplgen_thread(&g, 1, 100, "worker");
    fplgen_method(&g, 1, FPL_METHOD_JAVA, "A", "cpu", "()V", "", 0, NULL);
    fplgen_method(&g, 2, FPL_METHOD_JAVA, "B", "sleep", "()V", "", 0, NULL);
    struct reader_frame fa = {1, 0, 0}, fb = {2, 0, 0};
    fplgen_stack(&g, 1, 1, &fa);
    fplgen_stack(&g, 2, 1, &fb);
    put_endpoint(&g, 20, "GET /b");   /* named before its samples */
    put_context(&g, 1, 10, 10);       /* request 10, its root span */
    put_context(&g, 2, 11, 10);       /* request 10, a child span */
    put_context(&g, 3, 20, 20);       /* request 20 */
    put_context(&g, 4, 30, 30);       /* request 30, never named */
    fplgen_flush(&g);
    put_sample(&g, 1, 3, FPL_KIND_CPU, FPL_STATE_RUNNING, 1);
    put_sample(&g, 1, 2, FPL_KIND_CPU, FPL_STATE_RUNNING, 2);
    put_sample(&g, 2, 4, FPL_KIND_WALL, FPL_STATE_SLEEPING, 3);
    put_sample(&g, 2, 1, FPL_KIND_WALL, FPL_STATE_RUNNING, 3);
    put_sample(&g, 1, 7, FPL_KIND_CPU, FPL_STATE_RUNNING, 4);
    put_sample(&g, 1, 5, FPL_KIND_CPU, FPL_STATE_RUNNING, 0);  /* outside every request */
    put_sample(&g, 1, 1, FPL_KIND_CPU, FPL_STATE_RUNNING, 99); /* an undefined context */
    put_endpoint(&g, 10, "GET /a");   /* named after its samples */
    fplgen_end(&g, 5000);
    fplgen_flush(&g);
    uint8_t *data = fplgen_bytes(&g, len);
    fplgen_destroy(&g);
    return data;
}

#define BY_CTX 1 /* profile.cells_by_context (pprof) */
#define TOTALS 2 /* profile.context_totals (summary) */

/* Reads the log with a selection and the flags above; returns the profile (NULL on failure). */
static struct profile *read_sel(const uint8_t *data, size_t len, const char *re,
                                const uint64_t *span, const uint64_t *root, int flags)
{
    char err[256];
    struct profile *p = profile_new();
    if (!p)
        return NULL;
    p->cells_by_context = !!(flags & BY_CTX);
    p->context_totals = !!(flags & TOTALS);
    if (profile_select_context(p, re, span, root, err, sizeof(err)) != 0 ||
        profile_read_mem(p, data, len, "ctx.fpl", err, sizeof(err)) != 0) {
        fprintf(stderr, "read: %s\n", err);
        profile_free(p);
        return NULL;
    }
    return p;
}

static void check_sel(const uint8_t *data, size_t len, const char *re, const uint64_t *span,
                      const uint64_t *root, uint64_t cpu, uint64_t wall)
{
    struct profile *p = read_sel(data, len, re, span, root, 0);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_EQ_U(p->total[FPL_KIND_CPU].weight, cpu);
    CHECK_EQ_U(p->total[FPL_KIND_WALL].weight, wall);
    profile_free(p);
}

/* A log of CPU samples begun in g: its header, thread 1 and stack 1 (one method). 0, or
 * fplgen_init's failure. */
static int begin_cpu_log(struct fplgen *g)
{
    if (fplgen_init(g) != 0)
        return -1;
    struct fplgen_header h = {.pid = 1, .ticks_per_sec = 1000000000, .cpu_interval_ns = CPU_NS,
                              .depth = 64, .options = "", .jvm_name = "", .jvm_version = "",
                              .command = ""};
    fplgen_header(g, &h);
    fplgen_thread(g, 1, 100, "worker");
    fplgen_method(g, 1, FPL_METHOD_JAVA, "A", "cpu", "()V", "", 0, NULL);
    struct reader_frame fa = {1, 0, 0};
    fplgen_stack(g, 1, 1, &fa);
    return 0;
}

/* 30 endpoints, one request each with i + 1 CPU samples, and the agent's counters of dropped
 * names (7) and of wall samples logged without their context (3): the text lists the 20
 * heaviest, then one line for the rest (10 endpoints, 10 requests), and says what was lost;
 * the JSON lists all 30. */
static void test_many_endpoints(void)
{
    struct fplgen g;
    if (begin_cpu_log(&g) != 0)
        return;
    for (uint64_t i = 0; i < 30; i++) {
        char name[32];
        snprintf(name, sizeof(name), "GET /e%02u", (unsigned)i);
        put_endpoint(&g, 100 + i, name);
        put_context(&g, 1 + i, 100 + i, 100 + i);
    }
    fplgen_flush(&g);
    for (uint64_t i = 0; i < 30; i++)
        put_sample(&g, 1, i + 1, FPL_KIND_CPU, FPL_STATE_RUNNING, 1 + i);
    struct reader_counter c[2] = {{FPL_CTR_ENDPOINT_DROPS, 7}, {FPL_CTR_CONTEXT_LOST, 3}};
    fplgen_counters(&g, 2, c);
    fplgen_end(&g, 5000);
    fplgen_flush(&g);
    size_t len = 0;
    uint8_t *data = fplgen_bytes(&g, &len);
    fplgen_destroy(&g);
    struct profile *p = data ? read_sel(data, len, NULL, NULL, NULL, TOTALS) : NULL;
    CHECK(p != NULL);
    if (p) {
        char *txt = NULL, *js = NULL;
        size_t tlen = 0, jlen = 0;
        FILE *f = open_memstream(&txt, &tlen);
        CHECK(f && out_endpoints_text(f, p) == 0);
        if (f)
            fclose(f);
        f = open_memstream(&js, &jlen);
        CHECK(f && out_endpoints_json(f, p) == 0);
        if (f)
            fclose(f);
        CHECK(txt && strstr(txt, "GET /e29") && strstr(txt, "GET /e10")); /* the 20 heaviest */
        CHECK(txt && !strstr(txt, "GET /e09"));
        CHECK(txt && strstr(txt, "... 10 more endpoints, 10 requests (summary --json lists "
                                 "all)"));
        CHECK(txt && strstr(txt, "7 Context.endpoint calls were dropped"));
        CHECK(txt && strstr(txt, "3 wall samples were logged without their context"));
        CHECK(js && strstr(js, "GET /e00")); /* JSON: all of them */
        if (txt && !strstr(txt, "... 10 more"))
            fprintf(stderr, "%s\n", txt);
        free(txt);
        free(js);
        profile_free(p);
    }
    free(data);
}

/* ENDPOINT2's damage: a name id with no ENDPOINT_NAME before it is a bad record (the request
 * stays unnamed); a name id defined again names the requests after it with the new name. */
static void test_endpoint2_damage(void)
{
    struct fplgen g;
    if (begin_cpu_log(&g) != 0)
        return;
    put_endpoint2(&g, 10, 7); /* id 7: never defined */
    put_name(&g, 1, "GET /x");
    put_endpoint2(&g, 20, 1);
    put_name(&g, 1, "GET /y"); /* id 1 again: a new name */
    put_endpoint2(&g, 30, 1);
    put_name(&g, 0, "GET /zero"); /* id 0: a bad record */
    for (uint64_t i = 0; i < 3; i++)
        put_context(&g, 1 + i, 10 * (i + 1), 10 * (i + 1));
    fplgen_flush(&g);
    for (uint64_t i = 0; i < 3; i++)
        put_sample(&g, 1, i + 1, FPL_KIND_CPU, FPL_STATE_RUNNING, 1 + i);
    fplgen_end(&g, 5000);
    fplgen_flush(&g);
    size_t len = 0;
    uint8_t *data = fplgen_bytes(&g, &len);
    fplgen_destroy(&g);
    struct profile *p = data ? read_sel(data, len, NULL, NULL, NULL, TOTALS) : NULL;
    CHECK(p != NULL);
    if (p) {
        CHECK(tracectx_endpoint(&p->ctx, 10) == NULL);
        CHECK(tracectx_endpoint(&p->ctx, 20) &&
              strcmp(tracectx_endpoint(&p->ctx, 20), "GET /x") == 0);
        CHECK(tracectx_endpoint(&p->ctx, 30) &&
              strcmp(tracectx_endpoint(&p->ctx, 30), "GET /y") == 0);
        CHECK_EQ_U(p->stats.bad_records, 2);
        profile_free(p);
    }
    if (data) {
        check_sel(data, len, "^GET /x$", NULL, NULL, 2, 0);
        check_sel(data, len, "^GET /y$", NULL, NULL, 3, 0);
    }
    free(data);
}

/* The selections, names, totals and cells of build()'s log. */
static void check_log(const uint8_t *data, size_t len)
{
    uint64_t ten = 10, eleven = 11, twenty = 20, none = 12345;

    check_sel(data, len, NULL, NULL, NULL, 3 + 2 + 7 + 5 + 1, 5); /* no selection: all */
    check_sel(data, len, "^GET /a$", NULL, NULL, 5, 0); /* named after its samples */
    check_sel(data, len, "/b", NULL, NULL, 0, 5);
    check_sel(data, len, "GET", NULL, NULL, 5, 5);      /* the unnamed request is left out */
    check_sel(data, len, NULL, NULL, &ten, 5, 0);
    check_sel(data, len, NULL, &eleven, NULL, 2, 0);
    check_sel(data, len, NULL, &twenty, &twenty, 0, 5);
    check_sel(data, len, NULL, &eleven, &twenty, 0, 0); /* both must hold */
    check_sel(data, len, NULL, &none, NULL, 0, 0);
    check_sel(data, len, "^GET /a$", &ten, NULL, 3, 0);

    /* the dictionary, the names, the undefined id */
    struct profile *p = read_sel(data, len, NULL, NULL, NULL, TOTALS);
    CHECK(p != NULL);
    if (p) {
        CHECK_EQ_U(p->ctx.ndefs, 4);
        CHECK_EQ_U(p->ctx.nnames, 2);
        CHECK_EQ_U(p->ctx.undefined, 1);
        const struct tracectx_def *d = tracectx_find(&p->ctx, 2);
        CHECK(d && d->span == 11 && d->root == 10);
        CHECK(tracectx_endpoint(&p->ctx, 10) && strcmp(tracectx_endpoint(&p->ctx, 10),
                                                       "GET /a") == 0);
        CHECK(tracectx_endpoint(&p->ctx, 30) == NULL);
        /* the cells are not split by context: one per (stack, state); the context totals
         * have one row per (context, thread, kind, state): contexts 1, 2, 4 and the undefined
         * 99 one each, 3 two (sleeping, running) */
        CHECK_EQ_U(p->nentries, 3);
        CHECK_EQ_U(p->nctx_entries, 6);
        char *js = NULL;
        size_t jlen = 0;
        FILE *f = open_memstream(&js, &jlen);
        CHECK(f && out_endpoints_json(f, p) == 0);
        if (f)
            fclose(f);
        printf("%s\n", js ? js : "(none)");
        /* heaviest first: /b has 5 wall intervals; /a and [unnamed] CPU only */
        /* starvation per endpoint, over its own samples only: /b ran (one RUNNING wall
         * sample) with no CPU sample of its own, so it waited all its running time (over the
         * whole thread it would read 0: the thread's CPU samples outweigh it), +- 0.1443 for
         * the unseen remainder of a 10 ms CPU interval in 20 ms of running; /a and the
         * unnamed request were never sampled RUNNING by the wall sampler: null */
        CHECK(js && strstr(js, "{\"name\":\"GET /b\",\"requests\":1,\"cpu_ns\":0,\"wall_ns\":"
                               "100000000,\"wall_by_state_ns\":{\"running\":20000000,"
                               "\"sleeping\":80000000},\"starvation\":1.0000,"
                               "\"starvation_error\":0.1443,"
                               "\"slowest\":[{\"root_span\":20,\"wall_ns\":100000000,"
                               "\"cpu_ns\":0}]}") != NULL);
        /* a request's time is its samples' on every thread; without wall, its CPU time */
        CHECK(js && strstr(js, "{\"name\":\"GET /a\",\"requests\":1,\"cpu_ns\":50000000,"
                               "\"wall_ns\":0,\"wall_by_state_ns\":{},\"starvation\":null,"
                               "\"starvation_error\":null,"
                               "\"slowest\":[{\"root_span\":10,\"wall_ns\":0,"
                               "\"cpu_ns\":50000000}]}") != NULL);
        CHECK(js && strstr(js, "{\"name\":\"[unnamed]\",\"requests\":1,\"cpu_ns\":70000000")
                        != NULL);
        CHECK(js && strstr(js, "GET /b") < strstr(js, "[unnamed]") &&
              strstr(js, "[unnamed]") < strstr(js, "GET /a"));
        free(js);
        profile_free(p);
    }
    /* without either, the cells are as above and no context is totalled */
    p = read_sel(data, len, NULL, NULL, NULL, 0);
    CHECK(p && p->nentries == 3 && p->nctx_entries == 0);
    profile_free(p);
    /* cells kept apart by context (pprof's labels): the two CPU samples of stack 1 in
     * request 10 are two cells (contexts 1 and 2), and so on: 7 cells */
    p = read_sel(data, len, NULL, NULL, NULL, BY_CTX);
    CHECK(p && p->nentries == 7 && p->nctx_entries == 0);
    profile_free(p);
}

int main(void)
{
    for (as_v3 = 0; as_v3 < 2; as_v3++) {
        size_t len = 0;
        v3_nnames = 0;
        uint8_t *data = build(&len);
        CHECK(data != NULL);
        if (!data)
            break;
        check_log(data, len);
        free(data);
    }
    as_v3 = 0; /* test_many_endpoints' names are in a reused buffer: ENDPOINT records */
    test_endpoint2_damage();
    test_many_endpoints();
    return harness_result("test_collector_context");
}
