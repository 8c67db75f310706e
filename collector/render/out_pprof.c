/* out_pprof.c: pprof output (see out_pprof.h). Samples are encoded as the cells are visited
 * (grouped by stack) and deflated whenever the buffer fills; locations, functions and the
 * string table are collected in their own buffers (they grow with distinct stacks and
 * methods) and written after the samples, so the fields come out in field-number order. */
#include "out_pprof.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fpl_format.h"
#include "fpl_hash.h"
#include "hashtab.h"
#include "pb.h"

/* profile.proto field numbers */
enum {
    FLD_PROFILE_SAMPLE_TYPE = 1,
    FLD_PROFILE_SAMPLE = 2,
    FLD_PROFILE_MAPPING = 3,
    FLD_PROFILE_LOCATION = 4,
    FLD_PROFILE_FUNCTION = 5,
    FLD_PROFILE_STRING_TABLE = 6,
    FLD_PROFILE_TIME_NANOS = 9,
    FLD_PROFILE_DURATION_NANOS = 10,
    FLD_PROFILE_PERIOD_TYPE = 11,
    FLD_PROFILE_PERIOD = 12,
    FLD_PROFILE_COMMENT = 13,
    FLD_PROFILE_DEFAULT_SAMPLE_TYPE = 14,
    FLD_VALUE_TYPE_TYPE = 1,
    FLD_VALUE_TYPE_UNIT = 2,
    FLD_SAMPLE_LOCATION_ID = 1,
    FLD_SAMPLE_VALUE = 2,
    FLD_SAMPLE_LABEL = 3,
    FLD_LABEL_KEY = 1,
    FLD_LABEL_STR = 2,
    FLD_LABEL_NUM = 3,
    FLD_MAPPING_ID = 1,
    FLD_MAPPING_FILENAME = 5,
    FLD_MAPPING_HAS_FUNCTIONS = 7,
    FLD_MAPPING_HAS_FILENAMES = 8,
    FLD_MAPPING_HAS_LINE_NUMBERS = 9,
    FLD_LOCATION_ID = 1,
    FLD_LOCATION_MAPPING_ID = 2,
    FLD_LOCATION_LINE = 4,
    FLD_LINE_FUNCTION_ID = 1,
    FLD_LINE_LINE = 2,
    FLD_FUNCTION_ID = 1,
    FLD_FUNCTION_NAME = 2,
    FLD_FUNCTION_SYSTEM_NAME = 3,
    FLD_FUNCTION_FILENAME = 4,
    FLD_FUNCTION_START_LINE = 5,
};

#define GZ_OUT (64u << 10)       /* deflate output buffer */
#define FLUSH_BYTES (256u << 10) /* samples are deflated once this many bytes are encoded */
/* deflate's fastest level: on the bench's 10M-sample log it costs a quarter less CPU than
 * the default 6 (3.5 against 4.6 s) for a file an eighth bigger (20.8 against 18.5 MB); the
 * payload is the same and pprof's readers only inflate it */
#define GZ_LEVEL 1
#define PREFETCH 8 /* cells fetched ahead */

/* The one mapping every location belongs to. Without a mapping, pprof adds one of its own and
 * tries to symbolize its addresses with local binaries ("Main binary filename not
 * available."); a mapping that says it has functions, file names and line numbers is left
 * alone. It is named after the profiled program (the main class or jar of the JVM's command,
 * as tools show a binary's name), MAPPING_NAME when the log does not say. */
#define MAPPING_ID 1
#define MAPPING_NAME "[jvm]"

/* Functions for frames that name no method (profile.h's placeholders). */
enum { SPECIAL_UNKNOWN_FRAME, SPECIAL_UNKNOWN_STACK, SPECIAL_EMPTY_STACK, SPECIALS };
static const char *const special_names[SPECIALS] = {PROFILE_UNKNOWN_FRAME, PROFILE_UNKNOWN_STACK,
                                                    PROFILE_EMPTY_STACK};

#define STATES PROFILE_STATE_OTHER /* enum fpl_state, jvm_idle; other values are "other" */
static const char *const state_names[STATES + 1] = {
    "unknown", "running", "blocked", "waiting",  "timed_waiting",
    "parked",  "sleeping", "native", "jvm_idle", "other"};

/* A distinct string: its bytes inside strtab.enc (after the field's tag and length). */
struct str_ent {
    size_t off;
    size_t len;
};

/* The string table: encoded string_table fields in index order, and a hash index over them. */
struct strtab {
    struct fpl_buf enc;
    struct str_ent *ents;
    size_t n, cap;
    struct hashtab index; /* string -> entry */
};

/* (function id, line) -> location id: keys[id - 1] is location id's key. */
struct locmap {
    uint64_t *keys;
    size_t cap;
    struct hashtab index; /* key -> id - 1 */
};

/* A stack's encoded location_id field, in pprof_w.stk. */
struct stack_enc {
    size_t off;
    size_t len; /* 0: not encoded yet */
};

struct pprof_w {
    const struct profile *p;
    struct render_select sel;
    int sel_open;
    int kind; /* FPL_KIND_CPU, FPL_KIND_WALL or PROFILE_KIND_ALL */
    FILE *f;
    z_stream z;
    int z_open;
    uint8_t *zout;

    struct fpl_buf top;   /* Profile fields waiting to be deflated */
    struct fpl_buf locs;  /* Location messages, as Profile fields */
    struct fpl_buf funcs; /* Function messages, as Profile fields */
    struct fpl_buf stk;   /* encoded location_id fields of the stacks seen */
    struct fpl_buf tmp;   /* scratch: a string being converted */
    struct fpl_buf name;  /* scratch: a string being built */
    struct fpl_buf tail;  /* scratch: a sample's values and labels */
    struct strtab st;
    struct locmap lm;
    uint32_t nlocs, nfuncs;

    uint32_t *method_func; /* per method index: function id, 0 none yet */
    /* the location of each (method, entry of its line table): loc_cache[loc_off[mi] + k] for
     * entry k - 1 (k = 0: no line), 0 not known yet; NULL when too big to keep */
    size_t *loc_off;
    uint32_t *loc_cache;
    uint32_t special_func[SPECIALS];
    struct stack_enc *stack_enc; /* per stack index */
    struct stack_enc none_enc;   /* the undefined stack */
    uint64_t *thread_str;        /* per thread index: string index + 1, 0 none yet */
    uint64_t unknown_thread_str; /* + 1 */
    uint64_t state_str[STATES + 1];
    uint64_t key_thread, key_tid, key_state, key_span, key_root, key_endpoint;
    int nomem;
};

static void put_replacement(struct fpl_buf *d)
{
    fpl_put_bytes(d, "\xef\xbf\xbd", 3);
}

/* Appends s[0..n) to d as valid UTF-8. The JVM's modified UTF-8 differs from UTF-8 in two
 * ways: NUL is C0 80 (written as '_', as profile.c does with a raw NUL) and a character
 * outside the BMP is a surrogate pair of two 3-byte sequences (joined into one 4-byte one).
 * A lone surrogate becomes one U+FFFD, and so does each byte of any other invalid sequence
 * (overlong form, stray byte, sequence cut short). */
static void put_utf8(struct fpl_buf *d, const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && s[run] < 0x80)
            run++;
        fpl_put_bytes(d, s + i, run - i);
        if ((i = run) >= n)
            break;
        uint8_t c = s[i];
        size_t need;
        uint32_t cp, min;
        if (c == 0xc0 && i + 1 < n && s[i + 1] == 0x80) {
            fpl_put_u8(d, '_');
            i += 2;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf)
            need = 1, cp = c & 0x1f, min = 0x80;
        else if (c >= 0xe0 && c <= 0xef)
            need = 2, cp = c & 0x0f, min = 0x800;
        else if (c >= 0xf0 && c <= 0xf4)
            need = 3, cp = c & 0x07, min = 0x10000;
        else
            goto bad;
        if (n - i <= need)
            goto bad;
        for (size_t k = 1; k <= need; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                goto bad;
            cp = cp << 6 | (s[i + k] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff)
            goto bad;
        if (cp >= 0xd800 && cp <= 0xdbff) {
            /* a high surrogate: valid only as the first half of a modified UTF-8 pair */
            const uint8_t *q = s + i + 3;
            if (n - i < 6 || q[0] != 0xed || (q[1] & 0xf0) != 0xb0 || (q[2] & 0xc0) != 0x80) {
                put_replacement(d); /* a lone surrogate: one character, one U+FFFD */
                i += 3;
                continue;
            }
            uint32_t lo = 0xdc00 | (uint32_t)(q[1] & 0x0f) << 6 | (q[2] & 0x3f);
            uint32_t u = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            uint8_t t[4] = {(uint8_t)(0xf0 | u >> 18), (uint8_t)(0x80 | ((u >> 12) & 0x3f)),
                            (uint8_t)(0x80 | ((u >> 6) & 0x3f)), (uint8_t)(0x80 | (u & 0x3f))};
            fpl_put_bytes(d, t, 4);
            i += 6;
            continue;
        }
        if (cp >= 0xdc00 && cp <= 0xdfff) {
            put_replacement(d);
            i += 3;
            continue;
        }
        fpl_put_bytes(d, s + i, need + 1);
        i += need + 1;
        continue;
    bad:
        put_replacement(d);
        i++;
    }
}

/* The index of the string s[0..len) (valid UTF-8), added to the table if new. */
static int strtab_add(struct strtab *t, const uint8_t *s, size_t len, uint64_t *idx)
{
    uint64_t h = fpl_hash_bytes(s, len);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&t->index, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&t->index, &pr)) {
        const struct str_ent *e = &t->ents[k];
        if (e->len == len && memcmp(t->enc.data + e->off, s, len) == 0) {
            *idx = k;
            return 0;
        }
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        struct str_ent *q = cap < UINT32_MAX ? realloc(t->ents, cap * sizeof(*q)) : NULL;
        if (!q)
            return -ENOMEM;
        t->ents = q;
        t->cap = cap;
    }
    if (hashtab_add(&t->index, h, (uint32_t)t->n))
        return -ENOMEM;
    pb_tag(&t->enc, FLD_PROFILE_STRING_TABLE, PB_WIRE_LEN);
    pb_varint(&t->enc, len);
    size_t off = t->enc.len;
    fpl_put_bytes(&t->enc, s, len);
    if (t->enc.failed)
        return -ENOMEM;
    t->ents[t->n] = (struct str_ent){off, len};
    *idx = t->n++;
    return 0;
}

static void strtab_destroy(struct strtab *t)
{
    fpl_buf_free(&t->enc);
    free(t->ents);
    hashtab_destroy(&t->index);
}

/* The string index of s[0..len) converted to UTF-8; 0 ("") after running out of memory. */
static uint64_t intern_n(struct pprof_w *w, const char *s, size_t len)
{
    uint64_t idx = 0;
    w->tmp.len = 0;
    put_utf8(&w->tmp, (const uint8_t *)s, len);
    if (w->tmp.failed || strtab_add(&w->st, w->tmp.data, w->tmp.len, &idx) != 0)
        w->nomem = 1;
    return w->nomem ? 0 : idx;
}

static uint64_t intern(struct pprof_w *w, const char *s)
{
    return intern_n(w, s, strlen(s));
}

/* The string index of the concatenation of n strings. */
static uint64_t intern_parts(struct pprof_w *w, const char *const *parts, size_t n)
{
    w->name.len = 0;
    for (size_t k = 0; k < n; k++)
        fpl_put_bytes(&w->name, parts[k], strlen(parts[k]));
    if (w->name.failed) {
        w->nomem = 1;
        return 0;
    }
    return intern_n(w, (const char *)w->name.data, w->name.len);
}

static void locmap_destroy(struct locmap *m)
{
    free(m->keys);
    hashtab_destroy(&m->index);
}

/* The source path of a method: its source file under its package's directory. */
static void source_path(struct fpl_buf *b, const struct profile_method *m)
{
    b->len = 0;
    if (!m->source_file[0])
        return;
    const char *cls = m->class_name;
    const char *slash = strchr(cls, '/'); /* hidden classes: "a.B$$Lambda$1/0x..." */
    size_t clen = slash ? (size_t)(slash - cls) : strlen(cls);
    size_t pkg = 0;
    for (size_t i = 0; i < clen; i++)
        if (cls[i] == '.')
            pkg = i;
    for (size_t i = 0; i < pkg; i++)
        fpl_put_u8(b, cls[i] == '.' ? '/' : (uint8_t)cls[i]);
    if (pkg)
        fpl_put_u8(b, '/');
    fpl_put_bytes(b, m->source_file, strlen(m->source_file));
}

/* Appends a Function message to w->funcs; returns its id. */
static uint32_t add_function(struct pprof_w *w, uint64_t name, uint64_t system_name,
                             uint64_t filename, uint64_t start_line)
{
    uint32_t id = ++w->nfuncs;
    size_t m = pb_begin(&w->funcs, FLD_PROFILE_FUNCTION);
    pb_uint64(&w->funcs, FLD_FUNCTION_ID, id);
    pb_uint64_opt(&w->funcs, FLD_FUNCTION_NAME, name);
    pb_uint64_opt(&w->funcs, FLD_FUNCTION_SYSTEM_NAME, system_name);
    pb_uint64_opt(&w->funcs, FLD_FUNCTION_FILENAME, filename);
    pb_uint64_opt(&w->funcs, FLD_FUNCTION_START_LINE, start_line);
    pb_end(&w->funcs, m);
    if (w->funcs.failed)
        w->nomem = 1;
    return id;
}

static uint32_t special_function(struct pprof_w *w, int which)
{
    if (!w->special_func[which]) {
        uint64_t name = intern(w, special_names[which]);
        w->special_func[which] = add_function(w, name, name, 0, 0);
    }
    return w->special_func[which];
}

static uint32_t method_function(struct pprof_w *w, uint32_t mi)
{
    if (w->method_func[mi])
        return w->method_func[mi];
    const struct profile_method *m = &w->p->methods[mi];
    uint64_t name = intern(w, m->display), sys = name, file = 0, start = 0;
    if (m->signature[0]) {
        const char *parts[] = {m->display, m->signature};
        sys = intern_parts(w, parts, 2);
    }
    source_path(&w->name, m);
    if (w->name.failed)
        w->nomem = 1;
    else if (w->name.len)
        file = intern_n(w, (const char *)w->name.data, w->name.len);
    for (size_t k = 0; k < m->nlines; k++)
        if (m->lines[k].line && (!start || m->lines[k].line < start))
            start = m->lines[k].line;
    if (start > INT64_MAX)
        start = 0;
    return w->method_func[mi] = add_function(w, name, sys, file, start);
}

/* The entry of m's line table that holds bci, plus 1: the last entry whose start_bci is at
 * or below it (the table is sorted by start_bci); 0 without a bci, a table or such an entry. */
static size_t bci_entry(const struct profile_method *m, int32_t bci)
{
    if (bci < 0 || m->nlines == 0)
        return 0;
    size_t lo = 0, hi = m->nlines; /* find the first entry with start_bci > bci */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->lines[mid].start_bci <= (uint64_t)bci)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The source line of entry k - 1 of m's line table (bci_entry); 0 for k = 0. Clamped to 32
 * bits, as a location key holds it. */
static uint32_t entry_line(const struct profile_method *m, size_t k)
{
    uint64_t line = k ? m->lines[k - 1].line : 0;
    return line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
}

/* The id of the location (fid, line), added (to the map and to w->locs) if new. */
static uint32_t location(struct pprof_w *w, uint32_t fid, uint32_t line)
{
    struct locmap *lm = &w->lm;
    uint64_t key = (uint64_t)fid << 32 | line, h = fpl_hash_u64(key);
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&lm->index, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&lm->index, &pr))
        if (lm->keys[k] == key)
            return k + 1;
    if (w->nlocs == lm->cap) {
        size_t cap = lm->cap ? lm->cap * 2 : 1024;
        uint64_t *q = realloc(lm->keys, cap * sizeof(*q));
        if (!q) {
            w->nomem = 1;
            return 0;
        }
        lm->keys = q;
        lm->cap = cap;
    }
    if (hashtab_add(&lm->index, h, w->nlocs)) {
        w->nomem = 1;
        return 0;
    }
    lm->keys[w->nlocs] = key;
    uint32_t id = ++w->nlocs;
    struct fpl_buf *b = &w->locs;
    size_t m = pb_begin(b, FLD_PROFILE_LOCATION);
    pb_uint64(b, FLD_LOCATION_ID, id);
    pb_uint64(b, FLD_LOCATION_MAPPING_ID, MAPPING_ID);
    size_t l = pb_begin(b, FLD_LOCATION_LINE);
    pb_uint64(b, FLD_LINE_FUNCTION_ID, fid);
    pb_uint64_opt(b, FLD_LINE_LINE, line);
    pb_end(b, l);
    pb_end(b, m);
    if (b->failed)
        w->nomem = 1;
    return id;
}

/* The location of a frame. Its (method, line table entry) is looked up in loc_cache first: a
 * big profile has millions of frames over some 100k locations, and the location map is
 * bigger than the caches, so probing it for every frame left the core waiting on memory; the
 * first time, the function and location are made as before (same ids, same order). */
static uint32_t frame_location(struct pprof_w *w, const struct profile_frame *fr)
{
    if (fr->method == PROFILE_NONE)
        return location(w, special_function(w, SPECIAL_UNKNOWN_FRAME), 0);
    const struct profile_method *m = &w->p->methods[fr->method];
    size_t k = bci_entry(m, fr->bci);
    uint32_t *slot = w->loc_cache ? &w->loc_cache[w->loc_off[fr->method] + k] : NULL;
    if (slot && *slot)
        return *slot;
    uint32_t fid = method_function(w, fr->method);
    uint32_t id = location(w, fid, entry_line(m, k));
    if (slot)
        *slot = id;
    return id;
}

/* The encoded location_id field of stack index si (PROFILE_NONE: the undefined stack), encoded
 * the first time a cell refers to it. Returns NULL when out of memory. */
static const struct stack_enc *stack_locations(struct pprof_w *w, uint32_t si)
{
    struct stack_enc *se = si == PROFILE_NONE ? &w->none_enc : &w->stack_enc[si];
    if (se->len)
        return se;
    const struct profile_stack *st = si == PROFILE_NONE ? NULL : &w->p->stacks[si];
    size_t start = w->stk.len;
    size_t m = pb_begin(&w->stk, FLD_SAMPLE_LOCATION_ID);
    if (!st || st->nframes == 0) {
        int which = st ? SPECIAL_EMPTY_STACK : SPECIAL_UNKNOWN_STACK;
        pb_varint(&w->stk, location(w, special_function(w, which), 0));
    }
    for (uint32_t k = 0; st && k < st->nframes; k++)
        pb_varint(&w->stk, frame_location(w, &st->frames[k])); /* leaf first, as pprof wants */
    pb_end(&w->stk, m);
    if (w->stk.failed || w->nomem) {
        w->nomem = 1;
        return NULL;
    }
    se->off = start;
    se->len = w->stk.len - start;
    return se;
}

static uint64_t thread_label(struct pprof_w *w, uint32_t ti)
{
    uint64_t *slot = ti == PROFILE_NONE ? &w->unknown_thread_str : &w->thread_str[ti];
    if (!*slot) {
        const char *name = ti == PROFILE_NONE ? PROFILE_UNKNOWN_THREAD : w->p->threads[ti].display;
        *slot = intern(w, name) + 1;
    }
    return *slot - 1;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    unsigned __int128 r = (unsigned __int128)a * b;
    return r > INT64_MAX ? INT64_MAX : (uint64_t)r;
}

/* A fixed-point weight times an interval in ns, rounded to the nearest ns, at most INT64_MAX. */
static uint64_t fp_ns(unsigned __int128 fp, uint64_t interval)
{
    unsigned __int128 whole = fp >> PROFILE_FP_SHIFT;
    uint64_t frac = (uint64_t)(fp & (PROFILE_FP_ONE - 1));
    if (whole > INT64_MAX)
        return interval ? INT64_MAX : 0;
    unsigned __int128 ns = whole * interval;
    ns += ((unsigned __int128)frac * interval + (PROFILE_FP_ONE >> 1)) >> PROFILE_FP_SHIFT;
    return ns > INT64_MAX ? INT64_MAX : (uint64_t)ns;
}

/* One string label into b. */
static void put_str_label(struct fpl_buf *b, uint64_t key, uint64_t str)
{
    size_t l = pb_begin(b, FLD_SAMPLE_LABEL);
    pb_uint64(b, FLD_LABEL_KEY, key);
    pb_uint64_opt(b, FLD_LABEL_STR, str);
    pb_end(b, l);
}

/* The trace context labels of a cell kept by context (profile.cells_by_context): span_id and
 * root_span_id as decimal strings (pprof's numeric labels are signed 64-bit; span ids are
 * any 64-bit value), and trace_endpoint when the root span was named. */
static void put_context_labels(struct pprof_w *w, struct fpl_buf *b, const struct profile_entry *e)
{
    const struct tracectx_def *d = tracectx_find(&w->p->ctx, e->context_id);
    if (!d)
        return;
    char num[24];
    snprintf(num, sizeof(num), "%llu", (unsigned long long)d->span);
    put_str_label(b, w->key_span, intern(w, num));
    snprintf(num, sizeof(num), "%llu", (unsigned long long)d->root);
    put_str_label(b, w->key_root, intern(w, num));
    const char *ep = tracectx_endpoint(&w->p->ctx, d->root);
    if (ep)
        put_str_label(b, w->key_endpoint, intern(w, ep));
}

/* Encodes one pprof sample for cell e into w->top. */
static void put_sample(struct pprof_w *w, const struct profile_entry *e)
{
    const struct profile *p = w->p;
    const struct stack_enc *se = stack_locations(w, e->stack);
    uint64_t thread = thread_label(w, e->thread);
    int wall = e->kind == FPL_KIND_WALL;
    uint64_t count = e->count > INT64_MAX ? INT64_MAX : e->count, ns;
    if (wall)
        ns = fp_ns(e->upscaled, p->header.wall_interval_ns);
    else if (e->kind == FPL_KIND_ALLOC || e->kind == FPL_KIND_LOCK || e->kind == FPL_KIND_LIVE)
        ns = e->weight; /* bytes (alloc_space), ns (delay): the weight itself */
    else
        ns = sat_mul(e->weight, p->header.cpu_interval_ns);
    if (e->kind == FPL_KIND_ALLOC || e->kind == FPL_KIND_LIVE)
        count = e->objects; /* alloc_objects: the objects the samples stand for */
    if (ns > INT64_MAX)
        ns = INT64_MAX;
    if (!se || w->nomem)
        return;

    /* values and labels first, into scratch: the sample's length is then known before its
     * location list (often over 127 bytes) is copied, and nothing has to move */
    struct fpl_buf *b = &w->tail;
    b->len = 0;
    size_t v = pb_begin(b, FLD_SAMPLE_VALUE);
    if (w->kind == PROFILE_KIND_ALL && wall) {
        pb_varint(b, 0);
        pb_varint(b, 0);
    }
    pb_varint(b, count);
    pb_varint(b, ns);
    if (w->kind == PROFILE_KIND_ALL && !wall) {
        pb_varint(b, 0);
        pb_varint(b, 0);
    }
    pb_end(b, v);
    size_t l = pb_begin(b, FLD_SAMPLE_LABEL);
    pb_uint64(b, FLD_LABEL_KEY, w->key_thread);
    pb_uint64_opt(b, FLD_LABEL_STR, thread);
    pb_end(b, l);
    if (e->thread != PROFILE_NONE) {
        /* numeric, so threads of one name stay apart (pprof -tagfocus thread_id=...) */
        l = pb_begin(b, FLD_SAMPLE_LABEL);
        pb_uint64(b, FLD_LABEL_KEY, w->key_tid);
        pb_uint64_opt(b, FLD_LABEL_NUM, p->threads[e->thread].os_tid);
        pb_end(b, l);
    }
    if (wall || e->kind == FPL_KIND_LOCK) {
        l = pb_begin(b, FLD_SAMPLE_LABEL);
        pb_uint64(b, FLD_LABEL_KEY, w->key_state);
        pb_uint64(b, FLD_LABEL_STR, w->state_str[e->state < STATES ? e->state : STATES]);
        pb_end(b, l);
    }
    if (e->context_id)
        put_context_labels(w, b, e);
    if (b->failed) {
        w->nomem = 1;
        return;
    }
    pb_tag(&w->top, FLD_PROFILE_SAMPLE, PB_WIRE_LEN);
    pb_varint(&w->top, se->len + b->len);
    fpl_put_bytes(&w->top, w->stk.data + se->off, se->len);
    fpl_put_bytes(&w->top, b->data, b->len);
    if (w->top.failed)
        w->nomem = 1;
}

/* Deflates n bytes to the file; with finish, ends the gzip stream. */
static int gz_write(struct pprof_w *w, const uint8_t *data, size_t n, int finish)
{
    do {
        size_t part = n > (1u << 30) ? (1u << 30) : n;
        int last = finish && part == n, zr;
        w->z.next_in = (Bytef *)(uintptr_t)data;
        w->z.avail_in = (uInt)part;
        do {
            w->z.next_out = w->zout;
            w->z.avail_out = GZ_OUT;
            zr = deflate(&w->z, last ? Z_FINISH : Z_NO_FLUSH);
            if (zr == Z_STREAM_ERROR)
                return -EIO;
            size_t have = GZ_OUT - w->z.avail_out;
            errno = 0;
            if (have && fwrite(w->zout, 1, have, w->f) != have)
                return errno ? -errno : -EIO;
        } while (w->z.avail_out == 0 || (last && zr != Z_STREAM_END));
        if (part)
            data += part; /* data may be NULL (an empty buffer): NULL + 0 is undefined */
        n -= part;
    } while (n);
    return 0;
}

static int flush_buf(struct pprof_w *w, struct fpl_buf *b)
{
    if (b->failed)
        return -ENOMEM;
    int rc = gz_write(w, b->data, b->len, 0);
    b->len = 0;
    return rc;
}

static void value_type(struct pprof_w *w, uint32_t field, const char *type, const char *unit)
{
    uint64_t t = intern(w, type), u = intern(w, unit);
    size_t m = pb_begin(&w->top, field);
    pb_uint64(&w->top, FLD_VALUE_TYPE_TYPE, t);
    pb_uint64(&w->top, FLD_VALUE_TYPE_UNIT, u);
    pb_end(&w->top, m);
}

/* The profiled program's name for the mapping: the first word of the JVM's command (its main
 * class, or its jar without the directory), cleaned; MAPPING_NAME when unknown. */
static const char *program_name(const struct profile *p, char *buf, size_t cap)
{
    const char *c = p->have_header ? p->header.command : "";
    size_t n = strcspn(c, " \t");
    const char *slash = memrchr(c, '/', n);
    if (slash) {
        n -= (size_t)(slash + 1 - c);
        c = slash + 1;
    }
    if (!n || profile_clean(buf, cap, c, n) == 0)
        snprintf(buf, cap, "%s", MAPPING_NAME);
    return buf;
}

static void put_mapping(struct pprof_w *w, uint64_t name)
{
    size_t m = pb_begin(&w->top, FLD_PROFILE_MAPPING);
    pb_uint64(&w->top, FLD_MAPPING_ID, MAPPING_ID);
    pb_uint64(&w->top, FLD_MAPPING_FILENAME, name);
    pb_uint64(&w->top, FLD_MAPPING_HAS_FUNCTIONS, 1);
    pb_uint64(&w->top, FLD_MAPPING_HAS_FILENAMES, 1);
    pb_uint64(&w->top, FLD_MAPPING_HAS_LINE_NUMBERS, 1);
    pb_end(&w->top, m);
}

/* The fields after the string table: times, period, comments, default sample type. */
static void put_tail(struct pprof_w *w, uint64_t period_type, uint64_t period_unit, uint64_t period,
                     uint64_t default_type, const uint64_t *comments, size_t ncomments)
{
    const struct profile *p = w->p;
    struct fpl_buf *b = &w->top;
    uint64_t start = 0, dur = profile_duration_ns(p);
    const struct profile_window *win = &p->window;
    if (p->have_header)
        start = p->header.anchor_real_ns;
    else if (p->samples)
        start = profile_ticks_to_real_ns(p, p->first_ticks);
    if (start && win->resolved && win->has_from && win->from_ns > 0)
        start += (uint64_t)win->from_ns; /* the window's start */
    if (start && start <= INT64_MAX)
        pb_uint64(b, FLD_PROFILE_TIME_NANOS, start);
    if (dur && dur <= INT64_MAX)
        pb_uint64(b, FLD_PROFILE_DURATION_NANOS, dur);
    size_t m = pb_begin(b, FLD_PROFILE_PERIOD_TYPE);
    pb_uint64(b, FLD_VALUE_TYPE_TYPE, period_type);
    pb_uint64(b, FLD_VALUE_TYPE_UNIT, period_unit);
    pb_end(b, m);
    if (period && period <= INT64_MAX)
        pb_uint64(b, FLD_PROFILE_PERIOD, period);
    if (ncomments) {
        m = pb_begin(b, FLD_PROFILE_COMMENT);
        for (size_t i = 0; i < ncomments; i++)
            pb_varint(b, comments[i]);
        pb_end(b, m);
    }
    pb_uint64(b, FLD_PROFILE_DEFAULT_SAMPLE_TYPE, default_type);
}

/* The selected cells' indices grouped by stack, in cell order within a stack (a counting
 * sort: one pass to select and count, one to place). A stack's cells (one per thread and
 * state) then follow one another in the output, so deflate turns the repeats of its location
 * list into back-references: in cell order they lie megabytes apart, out of deflate's 32 KiB
 * window, and a many-threaded profile compresses about 1.5:1 instead of several times. */
static int order_cells(struct pprof_w *w, uint32_t **order, size_t *n)
{
    const struct profile *p = w->p;
    size_t nb = p->nstacks + 1; /* the last bucket: the undefined stack */
    if (p->nentries > UINT32_MAX)
        return -EOVERFLOW;
    uint32_t *next = calloc(nb + 1, sizeof(*next));
    uint8_t *sel = malloc(p->nentries ? p->nentries : 1);
    uint32_t *o = malloc((p->nentries ? p->nentries : 1) * sizeof(*o));
    if (!next || !sel || !o) {
        free(next);
        free(sel);
        free(o);
        return -ENOMEM;
    }
    for (size_t i = 0; i < p->nentries; i++) {
        const struct profile_entry *e = &p->entries[i];
        sel[i] = (uint8_t)render_select_entry(&w->sel, e);
        if (sel[i])
            next[(e->stack == PROFILE_NONE ? nb - 1 : e->stack) + 1]++;
    }
    for (size_t b = 1; b <= nb; b++)
        next[b] += next[b - 1]; /* next[b]: where bucket b's next cell goes */
    for (size_t i = 0; i < p->nentries; i++) {
        if (sel[i]) {
            uint32_t st = p->entries[i].stack;
            o[next[st == PROFILE_NONE ? nb - 1 : st]++] = (uint32_t)i;
        }
    }
    *n = next[nb - 1];
    *order = o;
    free(next);
    free(sel);
    return 0;
}

static void destroy(struct pprof_w *w)
{
    if (w->sel_open)
        render_select_destroy(&w->sel);
    if (w->z_open)
        deflateEnd(&w->z);
    free(w->zout);
    fpl_buf_free(&w->top);
    fpl_buf_free(&w->locs);
    fpl_buf_free(&w->funcs);
    fpl_buf_free(&w->stk);
    fpl_buf_free(&w->tmp);
    fpl_buf_free(&w->name);
    fpl_buf_free(&w->tail);
    strtab_destroy(&w->st);
    locmap_destroy(&w->lm);
    free(w->method_func);
    free(w->loc_off);
    free(w->loc_cache);
    free(w->stack_enc);
    free(w->thread_str);
}

static int setup(struct pprof_w *w, const struct profile *p, FILE *f)
{
    w->p = p;
    w->f = f;
    w->zout = malloc(GZ_OUT);
    w->method_func = calloc(p->nmethods ? p->nmethods : 1, sizeof(*w->method_func));
    w->loc_off = malloc((p->nmethods ? p->nmethods : 1) * sizeof(*w->loc_off));
    size_t slots = 0;
    for (size_t i = 0; w->loc_off && i < p->nmethods; i++) {
        w->loc_off[i] = slots;
        slots += p->methods[i].nlines + 1;
    }
    if (w->loc_off && slots <= (1u << 28)) /* else the map alone (a damaged log's tables) */
        w->loc_cache = calloc(slots ? slots : 1, sizeof(*w->loc_cache));
    w->stack_enc = calloc(p->nstacks ? p->nstacks : 1, sizeof(*w->stack_enc));
    w->thread_str = calloc(p->nthreads ? p->nthreads : 1, sizeof(*w->thread_str));
    if (!w->zout || !w->method_func || !w->stack_enc || !w->thread_str)
        return -ENOMEM;
    /* windowBits 15 + 16: a gzip wrapper (header with mtime 0, so the output is
     * deterministic) rather than a zlib one */
    int zr = deflateInit2(&w->z, GZ_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    if (zr != Z_OK)
        return zr == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
    w->z_open = 1;
    return 0;
}

int out_pprof_write(const struct profile *p, const struct render_opts *o, FILE *f, char *err,
                    size_t errlen)
{
    static const struct render_opts defaults = {.kind = PROFILE_KIND_AUTO,
                                                .state = RENDER_STATE_ALL};
    struct pprof_w w = {0};
    uint32_t *order = NULL;
    size_t ncells = 0;
    int rc;

    if (!o)
        o = &defaults;
    if ((rc = render_select_init(&w.sel, p, o, err, errlen)) != 0) {
        destroy(&w);
        return rc; /* err names the bad regex */
    }
    w.sel_open = 1;
    w.kind = w.sel.kind;
    if ((rc = setup(&w, p, f)) != 0)
        goto out;

    intern(&w, ""); /* string 0 must be "" */
    uint64_t default_type;
    if (w.kind == PROFILE_KIND_ALL) {
        value_type(&w, FLD_PROFILE_SAMPLE_TYPE, "cpu_samples", "count");
        value_type(&w, FLD_PROFILE_SAMPLE_TYPE, "cpu", "nanoseconds");
        value_type(&w, FLD_PROFILE_SAMPLE_TYPE, "wall_samples", "count");
        value_type(&w, FLD_PROFILE_SAMPLE_TYPE, "wall", "nanoseconds");
        default_type = intern(&w, p->total[FPL_KIND_CPU].count ? "cpu" : "wall");
    } else if (w.kind == FPL_KIND_ALLOC) {
        /* the names of Go's and async-profiler's heap profiles: pprof's views know them */
        value_type(&w, FLD_PROFILE_SAMPLE_TYPE, "alloc_objects", "count");
        value_type(&w, FLD_PROFILE_SAMPLE_TYPE, "alloc_space", "bytes");
        default_type = intern(&w, "alloc_space");
    } else if (w.kind == FPL_KIND_LIVE) {
        value_type(&w, FLD_PROFILE_SAMPLE_TYPE, "inuse_objects", "count");
        value_type(&w, FLD_PROFILE_SAMPLE_TYPE, "inuse_space", "bytes");
        default_type = intern(&w, "inuse_space");
    } else if (w.kind == FPL_KIND_LOCK) {
        /* as Go's mutex and block profiles */
        value_type(&w, FLD_PROFILE_SAMPLE_TYPE, "contentions", "count");
        value_type(&w, FLD_PROFILE_SAMPLE_TYPE, "delay", "nanoseconds");
        default_type = intern(&w, "delay");
    } else {
        const char *t = w.kind == FPL_KIND_WALL ? "wall" : "cpu";
        value_type(&w, FLD_PROFILE_SAMPLE_TYPE, "samples", "count");
        value_type(&w, FLD_PROFILE_SAMPLE_TYPE, t, "nanoseconds");
        default_type = intern(&w, t);
    }
    w.key_thread = intern(&w, "thread");
    w.key_tid = intern(&w, "thread_id");
    w.key_state = intern(&w, "state");
    w.key_span = intern(&w, "span_id");
    w.key_root = intern(&w, "root_span_id");
    w.key_endpoint = intern(&w, "trace_endpoint");
    for (int s = 0; s <= STATES; s++)
        w.state_str[s] = intern(&w, state_names[s]);

    if ((rc = order_cells(&w, &order, &ncells)) != 0)
        goto out;
    for (size_t i = 0; i < ncells && !w.nomem && rc == 0; i++) {
        /* cells are visited out of their order in memory: fetch ahead */
        if (i + PREFETCH < ncells)
            __builtin_prefetch(&p->entries[order[i + PREFETCH]]);
        put_sample(&w, &p->entries[order[i]]);
        if (w.top.len >= FLUSH_BYTES)
            rc = flush_buf(&w, &w.top);
    }
    if (rc || w.nomem)
        goto out;

    int cpu_period =
        w.kind == FPL_KIND_CPU || (w.kind == PROFILE_KIND_ALL && p->header.cpu_interval_ns);
    int ev = w.kind == FPL_KIND_ALLOC || w.kind == FPL_KIND_LOCK || w.kind == FPL_KIND_LIVE;
    uint64_t period_type = intern(&w, w.kind == FPL_KIND_ALLOC || w.kind == FPL_KIND_LIVE
                                          ? "space"
                                      : w.kind == FPL_KIND_LOCK ? "contentions"
                                      : cpu_period              ? "cpu"
                                                                : "wall");
    uint64_t period_unit = intern(&w, w.kind == FPL_KIND_ALLOC || w.kind == FPL_KIND_LIVE
                                          ? "bytes"
                                      : w.kind == FPL_KIND_LOCK ? "count"
                                                                : "nanoseconds");
    char program[256];
    uint64_t mapping_name = intern(&w, program_name(p, program, sizeof(program)));
    uint64_t period = ev ? 0 : cpu_period ? p->header.cpu_interval_ns : p->header.wall_interval_ns;
    uint64_t comments[3];
    size_t nc = 0;
    char title[512];
    if (o->title)
        snprintf(title, sizeof(title), "%s", o->title);
    else
        render_default_title(p, w.kind, title, sizeof(title));
    if (title[0])
        comments[nc++] = intern(&w, title);
    if (p->have_header) {
        const char *jvm[] = {"jvm: ", p->header.jvm_name, " ", p->header.jvm_version};
        const char *opt[] = {"agent options: ", p->header.options};
        comments[nc++] = intern_parts(&w, jvm, 4);
        comments[nc++] = intern_parts(&w, opt, 2);
    }
    if (w.nomem)
        goto out;

    /* samples, the mapping, locations, functions, strings and the scalar fields, in field
     * order */
    put_mapping(&w, mapping_name);
    if ((rc = flush_buf(&w, &w.top)) != 0 || (rc = flush_buf(&w, &w.locs)) != 0 ||
        (rc = flush_buf(&w, &w.funcs)) != 0 || (rc = flush_buf(&w, &w.st.enc)) != 0)
        goto out;
    put_tail(&w, period_type, period_unit, period, default_type, comments, nc);
    if (w.top.failed) {
        rc = -ENOMEM;
        goto out;
    }
    rc = gz_write(&w, w.top.data, w.top.len, 1);
    errno = 0;
    if (rc == 0 && fflush(f) != 0)
        rc = errno ? -errno : -EIO;
    if (rc == 0 && ferror(f))
        rc = -EIO;
out:
    if (rc == 0 && w.nomem)
        rc = -ENOMEM;
    if (rc == -ENOMEM)
        snprintf(err, errlen, "pprof: out of memory");
    else if (rc && !w.z_open)
        snprintf(err, errlen, "pprof: cannot start deflate (zlib %s)", zlibVersion());
    else if (rc)
        snprintf(err, errlen, "pprof: write failed: %s", strerror(-rc));
    destroy(&w);
    free(order);
    return rc;
}
