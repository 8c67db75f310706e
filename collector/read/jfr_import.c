/* jfr_import.c: JFR to flyprof log (see jfr_import.h). A chunk is read in three passes: its
 * metadata (the types, by name), its constant pools (every entry decoded into a value tree in
 * an arena that lives as long as the chunk), then its events, of which the samples are turned
 * into THREAD, METHOD, STACK and SAMPLE records. Every read is bounds-checked against the
 * chunk; a bad value stops the import with a message naming where it was. */
#include "jfr_import.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fpl_chunk.h"
#include "fpl_codec.h"
#include "fpl_format.h"
#include "fpl_hash.h"
#include "hashtab.h"
#include "jfr_meta.h"

#define HEADER_BYTES 68
#define MAX_DEPTH 64         /* nesting of metadata elements and of values */
#define OUT_CHUNK (1u << 20) /* flush the log's chunk at this size */
#define ARENA_BLOCK (1u << 20)

enum vkind { V_NULL, V_INT, V_STR, V_STRREF, V_REF, V_OBJ, V_ARR };

/* A decoded value: an integer, a string, a constant-pool reference, or an object / array. */
struct val {
    uint8_t kind;
    uint32_t n;        /* items of an object or array; bytes of a string */
    uint64_t i;        /* integer, or key of a reference */
    uint64_t type;     /* a reference's type, an object's type */
    const char *s;     /* a string's bytes (UTF-8) */
    struct val *items; /* an object's fields in order, an array's elements */
};

struct field {
    const char *name;
    uint64_t type;
    uint8_t cp;
    uint32_t dims;
};

struct jtype {
    uint64_t id;
    const char *name;
    int simple;
    uint32_t first, nfields; /* into imp.fields */
    int prim;                /* enum prim */
};

enum prim { P_STRUCT, P_BYTE, P_FLOAT, P_DOUBLE, P_VARINT, P_STRING };

struct arena_block {
    struct arena_block *next;
    size_t used, cap;
    uint8_t data[];
};

struct cur {
    const uint8_t *p, *end;
};

struct imp {
    const uint8_t *file;
    size_t len;
    const char *name;
    char *err;
    size_t errlen;
    int fd;
    uint32_t seq;
    struct fpl_buf out;
    uint64_t samples;
    int header_done;
    uint64_t next_id; /* fpl dictionary ids, unique in the whole log */

    /* the chunk */
    unsigned chunk_no;
    size_t chunk_off;
    const uint8_t *chunk;
    uint64_t chunk_size, start_nanos, start_ticks, tps;
    struct arena_block *arena;
    struct jtype *types;
    size_t ntypes, types_cap;
    struct hashtab type_index;
    struct field *fields;
    size_t nfields, fields_cap;
    /* pools: (type, key) -> value */
    uint64_t *pool_type, *pool_key;
    struct val **pool_val;
    uint32_t *pool_id; /* the fpl id given to the entry, 0 none yet */
    size_t npool, pool_cap;
    struct hashtab pool_index;
    /* well-known types of the chunk (0: absent) */
    uint64_t t_string, t_thread, t_stack, t_method, t_class, t_symbol, t_ftype, t_state;
    uint64_t t_exec, t_native, t_wall;
    uint64_t t_alloc, t_menter, t_park, t_live; /* allocation, lock and live events */
    /* stacks with a class leaf: (class key, stack key, fpl id), found by hash */
    uint64_t (*leafed)[3];
    size_t nleafed, leafed_cap;
    struct hashtab leafed_index;
    /* (method key, bci, line) seen in the chunk's stack traces, sorted */
    uint64_t (*lines)[3];
    size_t nlines, lines_cap;
    uint64_t prev_ticks; /* the previous SAMPLE's ticks in the log's chunk */
};

static int fail(struct imp *m, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (m->chunk)
        snprintf(m->err, m->errlen, "'%s': JFR chunk %u (at byte %zu): %s", m->name, m->chunk_no,
                 m->chunk_off, what);
    else
        snprintf(m->err, m->errlen, "'%s': %s", m->name, what);
    return -EINVAL;
}

static void *arena_alloc(struct imp *m, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    struct arena_block *b = m->arena;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
        b = malloc(sizeof(*b) + cap);
        if (!b)
            return NULL;
        b->next = m->arena;
        b->used = 0;
        b->cap = cap;
        m->arena = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

static void arena_free(struct imp *m)
{
    while (m->arena) {
        struct arena_block *n = m->arena->next;
        free(m->arena);
        m->arena = n;
    }
}

/* ---- primitive reads: 0, or -1 when the bytes run out ---- */

static int get_u8(struct cur *c, uint8_t *v)
{
    if (c->p >= c->end)
        return -1;
    *v = *c->p++;
    return 0;
}

static int get_long(struct cur *c, uint64_t *v)
{
    uint64_t r = 0;
    for (int i = 0; i < 9; i++) {
        if (c->p >= c->end)
            return -1;
        uint8_t b = *c->p++;
        if (i == 8) {
            r |= (uint64_t)b << 56;
            break;
        }
        r |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80))
            break;
    }
    *v = r;
    return 0;
}

static int skip(struct cur *c, size_t n)
{
    if ((size_t)(c->end - c->p) < n)
        return -1;
    c->p += n;
    return 0;
}

/* Appends code point cp as UTF-8 to d (room for 4 bytes). */
static size_t put_cp(char *d, uint32_t cp)
{
    if (cp < 0x80) {
        d[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        d[0] = (char)(0xc0 | cp >> 6);
        d[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp >= 0xd800 && cp <= 0xdfff)
        cp = 0xfffd; /* a lone UTF-16 surrogate */
    d[0] = (char)(0xe0 | cp >> 12);
    d[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    d[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
}

/* A string: *v gets V_NULL, V_STR (UTF-8, NUL-terminated in the arena) or V_STRREF. */
static int get_string(struct imp *m, struct cur *c, struct val *v)
{
    uint8_t enc;
    uint64_t n = 0;
    memset(v, 0, sizeof(*v));
    if (get_u8(c, &enc))
        return fail(m, "a string runs past its event");
    switch (enc) {
    case 0:
        v->kind = V_NULL;
        return 0;
    case 1:
        v->kind = V_STR;
        v->s = "";
        return 0;
    case 2:
        v->kind = V_STRREF;
        if (get_long(c, &v->i))
            return fail(m, "a string reference runs past its event");
        return 0;
    case 3:
    case 5: {
        if (get_long(c, &n) || n > (size_t)(c->end - c->p))
            return fail(m, "a string of %llu bytes runs past its event", (unsigned long long)n);
        char *s = arena_alloc(m, enc == 3 ? n + 1 : 2 * n + 1);
        if (!s)
            return -ENOMEM;
        size_t k = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint8_t b = c->p[i];
            if (enc == 3 || b < 0x80)
                s[k++] = (char)b;
            else
                k += put_cp(s + k, b); /* Latin-1 */
        }
        s[k] = 0;
        c->p += n;
        v->kind = V_STR;
        v->s = s;
        v->n = (uint32_t)k;
        return 0;
    }
    case 4: {
        if (get_long(c, &n) || n > (size_t)(c->end - c->p))
            return fail(m, "a string of %llu chars runs past its event", (unsigned long long)n);
        char *s = arena_alloc(m, 3 * n + 1);
        if (!s)
            return -ENOMEM;
        size_t k = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t ch;
            if (get_long(c, &ch))
                return fail(m, "a string's chars run past its event");
            k += put_cp(s + k, (uint32_t)(ch & 0xffff));
        }
        s[k] = 0;
        v->kind = V_STR;
        v->s = s;
        v->n = (uint32_t)k;
        return 0;
    }
    default:
        return fail(m, "a string of unknown encoding %u", enc);
    }
}

/* ---- metadata ---- */

static const struct jtype *type_find(const struct imp *m, uint64_t id)
{
    struct hashtab_probe pr;
    for (uint32_t k = hashtab_first(&m->type_index, fpl_hash_u64(id), &pr); k != HASHTAB_NONE;
         k = hashtab_next(&m->type_index, &pr))
        if (m->types[k].id == id)
            return &m->types[k];
    return NULL;
}

static uint64_t type_named(const struct imp *m, const char *name)
{
    for (size_t i = 0; i < m->ntypes; i++)
        if (strcmp(m->types[i].name, name) == 0)
            return m->types[i].id;
    return 0;
}

static int field_index(const struct imp *m, const struct jtype *t, const char *name)
{
    for (uint32_t i = 0; t && i < t->nfields; i++)
        if (strcmp(m->fields[t->first + i].name, name) == 0)
            return (int)i;
    return -1;
}

struct elem_ctx {
    const char **pool;
    uint64_t npool;
};

static const char *attr(const char *const *kv, size_t n, const char *key)
{
    for (size_t i = 0; i + 1 < 2 * n; i += 2)
        if (strcmp(kv[i], key) == 0)
            return kv[i + 1];
    return NULL;
}

static int parse_num(const char *s, uint64_t *v)
{
    char *end;
    if (!s || !*s)
        return -1;
    errno = 0;
    *v = strtoull(s, &end, 10);
    return *end || errno ? -1 : 0;
}

/* One element of the metadata tree and its children: `class` elements under `metadata` are
 * types, their `field` children fields. level: 0 root, 1 its children, 2 a type's children. */
static int element(struct imp *m, struct cur *c, const struct elem_ctx *x, int depth, int in_meta,
                   struct jtype *type)
{
    uint64_t name, nattr, nchild;
    if (depth > MAX_DEPTH)
        return fail(m, "metadata nested deeper than %d", MAX_DEPTH);
    if (get_long(c, &name) || name >= x->npool || get_long(c, &nattr) ||
        nattr > (size_t)(c->end - c->p))
        return fail(m, "a metadata element runs past the metadata or names no string");
    const char **kv = arena_alloc(m, (2 * nattr + 1) * sizeof(*kv));
    if (!kv)
        return -ENOMEM;
    for (uint64_t i = 0; i < 2 * nattr; i++) {
        uint64_t s;
        if (get_long(c, &s) || s >= x->npool)
            return fail(m, "a metadata attribute names no string");
        kv[i] = x->pool[s];
    }
    if (get_long(c, &nchild) || nchild > (size_t)(c->end - c->p))
        return fail(m, "a metadata element has more children than bytes");
    const char *ename = x->pool[name];
    struct jtype *t = NULL;
    if (in_meta && strcmp(ename, "class") == 0) {
        uint64_t id;
        const char *tn = attr(kv, nattr, "name");
        if (parse_num(attr(kv, nattr, "id"), &id) || !tn)
            return fail(m, "a metadata class without a name or a numeric id");
        if (type_find(m, id))
            return fail(m, "type id %llu declared twice", (unsigned long long)id);
        if (m->ntypes == m->types_cap) {
            size_t cap = m->types_cap ? 2 * m->types_cap : 256;
            struct jtype *q = realloc(m->types, cap * sizeof(*q));
            if (!q)
                return -ENOMEM;
            m->types = q;
            m->types_cap = cap;
        }
        t = &m->types[m->ntypes];
        *t = (struct jtype){
            id, tn, attr(kv, nattr, "simpleType") != NULL, (uint32_t)m->nfields, 0, P_STRUCT};
        if (hashtab_add(&m->type_index, fpl_hash_u64(id), (uint32_t)m->ntypes))
            return -ENOMEM;
        m->ntypes++;
    } else if (type && strcmp(ename, "field") == 0) {
        uint64_t ft, dims = 0;
        const char *fname = attr(kv, nattr, "name");
        if (!fname || parse_num(attr(kv, nattr, "class"), &ft))
            return fail(m, "a field of %s without a name or a numeric type", type->name);
        if (attr(kv, nattr, "dimension") && parse_num(attr(kv, nattr, "dimension"), &dims))
            return fail(m, "field %s.%s: a bad dimension", type->name, fname);
        if (m->nfields == m->fields_cap) {
            size_t cap = m->fields_cap ? 2 * m->fields_cap : 1024;
            struct field *q = realloc(m->fields, cap * sizeof(*q));
            if (!q)
                return -ENOMEM;
            m->fields = q;
            m->fields_cap = cap;
        }
        const char *cp = attr(kv, nattr, "constantPool");
        m->fields[m->nfields++] =
            (struct field){fname, ft, cp && strcmp(cp, "true") == 0, dims > 1 ? 2 : (uint32_t)dims};
        type->nfields++;
    }
    /* a type's fields must stay contiguous: its children are read before the next type */
    size_t ti = t ? (size_t)(t - m->types) : 0;
    for (uint64_t i = 0; i < nchild; i++) {
        int rc = element(m, c, x, depth + 1, depth == 1 && strcmp(ename, "metadata") == 0,
                         t ? &m->types[ti] : NULL);
        if (rc)
            return rc;
        if (t)
            t = &m->types[ti]; /* types may have moved */
    }
    return 0;
}

static int read_metadata(struct imp *m, uint64_t off)
{
    struct cur c = {m->chunk + off, m->chunk + m->chunk_size};
    uint64_t size = 0, type = 0, v = 0, nstr = 0;
    if (get_long(&c, &size) || size > (uint64_t)(c.end - (m->chunk + off)) || size < 2)
        return fail(m, "the metadata event's size runs past the chunk");
    c.end = m->chunk + off + size;
    if (get_long(&c, &type) || type != 0)
        return fail(m, "no metadata event at the metadata offset %llu", (unsigned long long)off);
    if (get_long(&c, &v) || get_long(&c, &v) || get_long(&c, &v) || get_long(&c, &nstr) ||
        nstr > (size_t)(c.end - c.p))
        return fail(m, "the metadata event is cut short");
    struct elem_ctx x = {arena_alloc(m, (nstr + 1) * sizeof(char *)), nstr};
    if (!x.pool)
        return -ENOMEM;
    for (uint64_t i = 0; i < nstr; i++) {
        struct val s;
        int rc = get_string(m, &c, &s);
        if (rc)
            return rc;
        if (s.kind != V_STR)
            return fail(m, "metadata string %llu is not an inline string", (unsigned long long)i);
        x.pool[i] = s.s;
    }
    int rc = element(m, &c, &x, 0, 0, NULL);
    if (rc)
        return rc;
    static const struct {
        const char *name;
        int prim;
    } prims[] = {{"boolean", P_BYTE},  {"byte", P_BYTE},   {"float", P_FLOAT},
                 {"double", P_DOUBLE}, {"char", P_VARINT}, {"short", P_VARINT},
                 {"int", P_VARINT},    {"long", P_VARINT}, {"java.lang.String", P_STRING}};
    for (size_t i = 0; i < m->ntypes; i++) {
        struct jtype *t = &m->types[i];
        for (size_t k = 0; k < sizeof(prims) / sizeof(prims[0]); k++)
            if (!t->nfields && strcmp(t->name, prims[k].name) == 0)
                t->prim = prims[k].prim;
        for (uint32_t f = 0; f < t->nfields; f++)
            if (!type_find(m, m->fields[t->first + f].type))
                return fail(m, "field %s.%s has type %llu, which the metadata does not declare",
                            t->name, m->fields[t->first + f].name,
                            (unsigned long long)m->fields[t->first + f].type);
    }
    m->t_string = type_named(m, "java.lang.String");
    m->t_thread = type_named(m, "java.lang.Thread");
    m->t_stack = type_named(m, "jdk.types.StackTrace");
    m->t_method = type_named(m, "jdk.types.Method");
    m->t_class = type_named(m, "java.lang.Class");
    m->t_symbol = type_named(m, "jdk.types.Symbol");
    m->t_ftype = type_named(m, "jdk.types.FrameType");
    m->t_state = type_named(m, "jdk.types.ThreadState");
    m->t_exec = type_named(m, "jdk.ExecutionSample");
    m->t_native = type_named(m, "jdk.NativeMethodSample");
    m->t_wall = type_named(m, "flyprof.WallSample");
    m->t_alloc = type_named(m, "jdk.ObjectAllocationSample");
    m->t_menter = type_named(m, "jdk.JavaMonitorEnter");
    m->t_park = type_named(m, "jdk.ThreadPark");
    m->t_live = type_named(m, "flyprof.LiveObject");
    return 0;
}

/* ---- values ---- */

static int value(struct imp *m, struct cur *c, uint64_t type, int cp, uint32_t dims, int depth,
                 struct val *v)
{
    if (depth > MAX_DEPTH)
        return fail(m, "values nested deeper than %d (a recursive type)", MAX_DEPTH);
    memset(v, 0, sizeof(*v));
    if (dims) {
        uint64_t n = 0;
        if (get_long(c, &n) || n > (size_t)(c->end - c->p))
            return fail(m, "an array of %llu elements runs past its event", (unsigned long long)n);
        v->kind = V_ARR;
        v->n = (uint32_t)n;
        v->items = n ? arena_alloc(m, n * sizeof(*v->items)) : NULL;
        if (n && !v->items)
            return -ENOMEM;
        for (uint64_t i = 0; i < n; i++) {
            int rc = value(m, c, type, cp, dims - 1, depth + 1, &v->items[i]);
            if (rc)
                return rc;
        }
        return 0;
    }
    if (cp) {
        v->kind = V_REF;
        v->type = type;
        if (get_long(c, &v->i))
            return fail(m, "a constant-pool key runs past its event");
        return 0;
    }
    const struct jtype *t = type_find(m, type);
    if (!t)
        return fail(m, "a value of type %llu, which the metadata does not declare",
                    (unsigned long long)type);
    uint8_t b;
    switch (t->prim) {
    case P_BYTE:
        v->kind = V_INT;
        if (get_u8(c, &b))
            return fail(m, "a %s runs past its event", t->name);
        v->i = b;
        return 0;
    case P_FLOAT:
    case P_DOUBLE:
        v->kind = V_INT;
        if (skip(c, t->prim == P_FLOAT ? 4 : 8))
            return fail(m, "a %s runs past its event", t->name);
        return 0;
    case P_VARINT:
        v->kind = V_INT;
        if (get_long(c, &v->i))
            return fail(m, "a %s runs past its event", t->name);
        return 0;
    case P_STRING:
        return get_string(m, c, v);
    default:
        break;
    }
    v->kind = V_OBJ;
    v->type = type;
    v->n = t->nfields;
    v->items = t->nfields ? arena_alloc(m, t->nfields * sizeof(*v->items)) : NULL;
    if (t->nfields && !v->items)
        return -ENOMEM;
    uint32_t first = t->first, nf = t->nfields;
    for (uint32_t i = 0; i < nf; i++) {
        const struct field *f = &m->fields[first + i];
        int rc = value(m, c, f->type, f->cp, f->dims, depth + 1, &v->items[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static struct val *pool_get(const struct imp *m, uint64_t type, uint64_t key, size_t *idx)
{
    struct hashtab_probe pr;
    uint64_t h = fpl_hash_mix(fpl_hash_u64(type), key);
    for (uint32_t k = hashtab_first(&m->pool_index, h, &pr); k != HASHTAB_NONE;
         k = hashtab_next(&m->pool_index, &pr))
        if (m->pool_type[k] == type && m->pool_key[k] == key) {
            if (idx)
                *idx = k;
            return m->pool_val[k];
        }
    return NULL;
}

static int pool_put(struct imp *m, uint64_t type, uint64_t key, struct val *v)
{
    size_t k;
    if (pool_get(m, type, key, &k)) {
        m->pool_val[k] = v; /* a later entry of the same key replaces the earlier */
        return 0;
    }
    if (m->npool == m->pool_cap) {
        size_t cap = m->pool_cap ? 2 * m->pool_cap : 4096;
        uint64_t *a = realloc(m->pool_type, cap * sizeof(*a));
        if (a)
            m->pool_type = a;
        uint64_t *b = a ? realloc(m->pool_key, cap * sizeof(*b)) : NULL;
        if (b)
            m->pool_key = b;
        struct val **c = b ? realloc(m->pool_val, cap * sizeof(*c)) : NULL;
        if (c)
            m->pool_val = c;
        uint32_t *d = c ? realloc(m->pool_id, cap * sizeof(*d)) : NULL;
        if (!d)
            return -ENOMEM;
        m->pool_id = d;
        m->pool_cap = cap;
    }
    m->pool_type[m->npool] = type;
    m->pool_key[m->npool] = key;
    m->pool_val[m->npool] = v;
    m->pool_id[m->npool] = 0;
    if (hashtab_add(&m->pool_index, fpl_hash_mix(fpl_hash_u64(type), key), (uint32_t)m->npool))
        return -ENOMEM;
    m->npool++;
    return 0;
}

static int read_pools(struct imp *m, uint64_t off)
{
    unsigned guard = 0;
    for (;;) {
        struct cur c = {m->chunk + off, m->chunk + m->chunk_size};
        uint64_t size = 0, type = 0, v = 0, delta = 0, npools = 0;
        uint8_t flush;
        if (++guard > 1000000)
            return fail(m, "the checkpoints' deltas loop");
        if (get_long(&c, &size) || size > (uint64_t)(c.end - (m->chunk + off)) || size < 2)
            return fail(m, "a checkpoint at %llu runs past the chunk", (unsigned long long)off);
        c.end = m->chunk + off + size;
        if (get_long(&c, &type) || type != 1)
            return fail(m, "no checkpoint event at %llu", (unsigned long long)off);
        if (get_long(&c, &v) || get_long(&c, &v) || get_long(&c, &delta) || get_u8(&c, &flush) ||
            get_long(&c, &npools))
            return fail(m, "the checkpoint at %llu is cut short", (unsigned long long)off);
        for (uint64_t p = 0; p < npools; p++) {
            uint64_t pt = 0, n = 0;
            if (get_long(&c, &pt) || get_long(&c, &n) || n > (size_t)(c.end - c.p))
                return fail(m, "a constant pool of the checkpoint at %llu is cut short",
                            (unsigned long long)off);
            if (!type_find(m, pt))
                return fail(m,
                            "a constant pool of type %llu, which the metadata does not "
                            "declare",
                            (unsigned long long)pt);
            for (uint64_t i = 0; i < n; i++) {
                uint64_t key;
                struct val *val = arena_alloc(m, sizeof(*val));
                if (!val)
                    return -ENOMEM;
                if (get_long(&c, &key))
                    return fail(m, "a constant-pool key runs past its checkpoint");
                int rc = value(m, &c, pt, 0, 0, 0, val);
                if (rc == 0)
                    rc = pool_put(m, pt, key, val);
                if (rc)
                    return rc;
            }
        }
        if (c.p != c.end)
            return fail(m, "the checkpoint at %llu has %zu bytes after its pools",
                        (unsigned long long)off, (size_t)(c.end - c.p));
        if (delta == 0)
            return 0;
        if ((int64_t)delta < 0 ? (uint64_t)(-(int64_t)delta) > off : delta >= m->chunk_size - off)
            return fail(m, "a checkpoint's delta %lld leaves the chunk", (long long)delta);
        off += delta;
    }
}

/* ---- resolving ---- */

/* The value a reference stands for (a simple type's: its one field); NULL for key 0. */
static int deref(struct imp *m, const struct val *v, const struct val **out)
{
    *out = NULL;
    if (!v || v->kind == V_NULL)
        return 0;
    if (v->kind != V_REF) {
        *out = v;
    } else if (v->i == 0) {
        return 0;
    } else if (!(*out = pool_get(m, v->type, v->i, NULL))) {
        const struct jtype *t = type_find(m, v->type);
        return fail(m, "key %llu of %s is in none of the chunk's constant pools",
                    (unsigned long long)v->i, t ? t->name : "?");
    }
    const struct jtype *t = (*out)->kind == V_OBJ ? type_find(m, (*out)->type) : NULL;
    if (t && t->simple && (*out)->n == 1)
        return deref(m, &(*out)->items[0], out);
    return 0;
}

/* An object's field by name, NULL when its type has no such field. */
static const struct val *field_of(const struct imp *m, const struct val *o, const char *name)
{
    if (!o || o->kind != V_OBJ)
        return NULL;
    int k = field_index(m, type_find(m, o->type), name);
    return k < 0 ? NULL : &o->items[k];
}

/* The text of a value: a string, a string reference, or a reference to a Symbol. "" when
 * null. */
static int text_of(struct imp *m, const struct val *v, const char **s)
{
    const struct val *d;
    int rc;
    *s = "";
    if (v && v->kind == V_STRREF) {
        d = pool_get(m, m->t_string, v->i, NULL);
        if (!d && v->i)
            return fail(m, "string key %llu is in no constant pool", (unsigned long long)v->i);
        v = d;
    }
    if ((rc = deref(m, v, &d)) != 0 || !d)
        return rc;
    if (d->kind == V_OBJ) /* a Symbol that is not declared simple */
        return text_of(m, field_of(m, d, "string"), s);
    if (d->kind == V_STRREF)
        return text_of(m, d, s);
    if (d->kind == V_STR)
        *s = d->s;
    return 0;
}

static uint64_t int_of(const struct val *v, uint64_t dflt)
{
    return v && v->kind == V_INT ? v->i : dflt;
}

/* ---- output ---- */

static int flush_out(struct imp *m)
{
    if (m->out.failed)
        return -ENOMEM;
    if (!m->out.len)
        return 0;
    int rc = fpl_chunk_write(m->fd, m->seq++, m->out.data, m->out.len);
    m->out.len = 0;
    m->prev_ticks = 0;
    return rc;
}

static void put_header(struct imp *m)
{
    size_t r = fpl_rec_begin(&m->out, FPL_REC_HEADER);
    fpl_put_v(&m->out, 1);
    fpl_put_v(&m->out, 0);
    fpl_put_u8(&m->out, FPL_CLOCK_MONOTONIC);
    fpl_put_u64(&m->out, 1000000000ull);
    fpl_put_u64(&m->out, m->start_nanos); /* ticks are ns since the epoch */
    fpl_put_u64(&m->out, m->start_nanos);
    fpl_put_u64(&m->out, m->start_nanos);
    fpl_put_v(&m->out, 0); /* intervals unknown: weights count events */
    fpl_put_u8(&m->out, 0);
    fpl_put_v(&m->out, 0);
    fpl_put_v(&m->out, 0);
    fpl_put_v(&m->out, 0);
    fpl_put_str(&m->out, "jfr");
    fpl_put_str(&m->out, "");
    fpl_put_str(&m->out, "");
    fpl_put_str(&m->out, "");
    fpl_put_str(&m->out, "");
    fpl_rec_end(&m->out, r);
    m->header_done = 1;
}

static int cmp_line(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* The (method, bci, line) triples of the chunk's stack traces, for the methods' line tables. */
static int collect_lines(struct imp *m)
{
    m->nlines = 0;
    for (size_t i = 0; i < m->npool; i++) {
        if (m->pool_type[i] != m->t_stack)
            continue;
        const struct val *fr = field_of(m, m->pool_val[i], "frames");
        for (uint32_t k = 0; fr && fr->kind == V_ARR && k < fr->n; k++) {
            const struct val *f = &fr->items[k];
            const struct val *mv = field_of(m, f, "method");
            uint64_t line = int_of(field_of(m, f, "lineNumber"), 0);
            uint64_t bci = int_of(field_of(m, f, "bytecodeIndex"), 0);
            if (!mv || mv->kind != V_REF || (int32_t)line <= 0 || (int32_t)bci < 0)
                continue;
            if (m->nlines == m->lines_cap) {
                size_t cap = m->lines_cap ? 2 * m->lines_cap : 4096;
                uint64_t(*q)[3] = realloc(m->lines, cap * sizeof(*q));
                if (!q)
                    return -ENOMEM;
                m->lines = q;
                m->lines_cap = cap;
            }
            m->lines[m->nlines][0] = mv->i;
            m->lines[m->nlines][1] = (uint32_t)bci;
            m->lines[m->nlines][2] = (uint32_t)line;
            m->nlines++;
        }
    }
    if (m->nlines)
        qsort(m->lines, m->nlines, sizeof(*m->lines), cmp_line);
    return 0;
}

/* The frame type's fpl value and the method kind it implies, from the JFR frame type's name
 * and the class (JFR.md section 6). */
static void frame_kind(const char *ft, int has_pkg, uint8_t *type, uint8_t *kind)
{
    *kind = FPL_METHOD_JAVA;
    *type = FPL_FRAME_JAVA;
    if (strcmp(ft, "Interpreted") == 0)
        *type = FPL_FRAME_INTERPRETED;
    else if (strcmp(ft, "JIT compiled") == 0)
        *type = FPL_FRAME_COMPILED;
    else if (strcmp(ft, "Inlined") == 0)
        *type = FPL_FRAME_INLINED;
    else if (strcmp(ft, "C1 compiled") == 0)
        *type = FPL_FRAME_C1;
    else if (strcmp(ft, "Kernel") == 0)
        *type = FPL_FRAME_KERNEL, *kind = FPL_METHOD_CFUNC;
    else if (strcmp(ft, "C++") == 0)
        *type = FPL_FRAME_NATIVE, *kind = FPL_METHOD_CFUNC;
    else if (strcmp(ft, "Stub") == 0)
        *type = FPL_FRAME_STUB, *kind = FPL_METHOD_STUB;
    else if (strcmp(ft, "Marker") == 0)
        *type = FPL_FRAME_MARKER, *kind = FPL_METHOD_MARKER;
    else if (strcmp(ft, "Native") == 0) {
        /* the JDK's: a Java method declared native (its class has a package); a C function
         * (async-profiler's, flyprof's: the class is a module or "", without a package)
         * otherwise */
        if (has_pkg)
            *kind = FPL_METHOD_NATIVE;
        else
            *type = FPL_FRAME_NATIVE, *kind = FPL_METHOD_CFUNC;
    }
}

/* The fpl id of method key (writing its METHOD record the first time). */
static int method_id(struct imp *m, const struct val *ref, const char *ftype, uint64_t *id)
{
    size_t k;
    const struct val *mv;
    int rc;
    *id = 0;
    if (!ref || ref->kind != V_REF || !ref->i)
        return fail(m, "a stack frame without a method");
    if (!pool_get(m, ref->type, ref->i, &k))
        return fail(m, "method key %llu is in no constant pool", (unsigned long long)ref->i);
    if (m->pool_id[k]) {
        *id = m->pool_id[k];
        return 0;
    }
    const char *cls = "", *name = "", *desc = "";
    if ((rc = deref(m, ref, &mv)) != 0)
        return rc;
    const struct val *cv;
    if ((rc = deref(m, field_of(m, mv, "type"), &cv)) != 0 ||
        (rc = text_of(m, field_of(m, cv, "name"), &cls)) != 0 ||
        (rc = text_of(m, field_of(m, mv, "name"), &name)) != 0 ||
        (rc = text_of(m, field_of(m, mv, "descriptor"), &desc)) != 0)
        return rc;
    uint8_t type, kind;
    const struct val *pkg = NULL;
    if ((rc = deref(m, field_of(m, cv, "package"), &pkg)) != 0)
        return rc;
    frame_kind(ftype, pkg != NULL, &type, &kind);
    size_t cl = strlen(cls);
    char *dotted = arena_alloc(m, cl + 1);
    if (!dotted)
        return -ENOMEM;
    for (size_t i = 0; i <= cl; i++)
        dotted[i] = cls[i] == '/' ? '.' : cls[i]; /* as RecordedClass.getName() */
    *id = m->pool_id[k] = (uint32_t)++m->next_id;
    size_t r = fpl_rec_begin(&m->out, FPL_REC_METHOD);
    fpl_put_v(&m->out, *id);
    fpl_put_u8(&m->out, kind);
    fpl_put_str(&m->out, dotted);
    fpl_put_str(&m->out, name);
    fpl_put_str(&m->out, kind == FPL_METHOD_JAVA || kind == FPL_METHOD_NATIVE ? desc : "");
    fpl_put_str(&m->out, "");
    /* the line table: the (bci, line) pairs the chunk's frames of this method show */
    uint64_t key[3] = {ref->i, 0, 0};
    size_t lo = 0, hi = m->nlines;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_line(m->lines[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    for (size_t i = lo; i < m->nlines && m->lines[i][0] == ref->i; i++)
        if (i == lo || m->lines[i][1] != m->lines[i - 1][1])
            n++;
    fpl_put_v(&m->out, n);
    for (size_t i = lo; i < m->nlines && m->lines[i][0] == ref->i; i++) {
        if (i == lo || m->lines[i][1] != m->lines[i - 1][1]) {
            fpl_put_v(&m->out, m->lines[i][1]);
            fpl_put_v(&m->out, m->lines[i][2]);
        }
    }
    fpl_rec_end(&m->out, r);
    return 0;
}

static int thread_id(struct imp *m, const struct val *ref, uint64_t *id)
{
    size_t k;
    const struct val *tv;
    const char *jn = "", *on = "";
    int rc;
    *id = 0;
    if (!ref || ref->kind != V_REF || !ref->i)
        return 0; /* a sample without a thread: the profile's unknown thread */
    if (!pool_get(m, ref->type, ref->i, &k))
        return fail(m, "thread key %llu is in no constant pool", (unsigned long long)ref->i);
    if (m->pool_id[k]) {
        *id = m->pool_id[k];
        return 0;
    }
    if ((rc = deref(m, ref, &tv)) != 0 || (rc = text_of(m, field_of(m, tv, "javaName"), &jn)) ||
        (rc = text_of(m, field_of(m, tv, "osName"), &on)))
        return rc;
    *id = m->pool_id[k] = (uint32_t)++m->next_id;
    size_t r = fpl_rec_begin(&m->out, FPL_REC_THREAD);
    fpl_put_v(&m->out, *id);
    fpl_put_v(&m->out, int_of(field_of(m, tv, "osThreadId"), 0));
    fpl_put_str(&m->out, jn[0] ? jn : on);
    int64_t java_id = (int64_t)int_of(field_of(m, tv, "javaThreadId"), 0);
    if (java_id > 0)
        fpl_put_v(&m->out, (uint64_t)java_id);
    fpl_rec_end(&m->out, r);
    return 0;
}

/* Writes the STACK record of stack trace sv (NULL: none) under a new id, with a CLASS leaf
 * frame of method leaf first when leaf is not 0. */
static int stack_write(struct imp *m, const struct val *sv, uint64_t leaf, uint64_t *id)
{
    int rc = 0;
    const struct val *fr = field_of(m, sv, "frames");
    uint32_t n = fr && fr->kind == V_ARR ? fr->n : 0;
    uint64_t *mids = n ? malloc(n * sizeof(*mids)) : NULL;
    uint8_t *types = n ? malloc(n) : NULL;
    if (n && (!mids || !types)) {
        free(mids);
        free(types);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const char *ft = "";
        uint8_t kind;
        const struct val *f = &fr->items[i];
        rc = text_of(m, field_of(m, f, "type"), &ft);
        if (rc == 0) {
            const struct val *mv, *cv = NULL, *pkg = NULL;
            rc = deref(m, field_of(m, f, "method"), &mv);
            if (rc == 0)
                rc = deref(m, field_of(m, mv, "type"), &cv);
            if (rc == 0)
                rc = deref(m, field_of(m, cv, "package"), &pkg);
            frame_kind(ft, pkg != NULL, &types[i], &kind);
        }
        if (rc == 0)
            rc = method_id(m, field_of(m, f, "method"), ft, &mids[i]);
    }
    if (rc == 0) {
        *id = ++m->next_id;
        size_t r = fpl_rec_begin(&m->out, FPL_REC_STACK);
        fpl_put_v(&m->out, *id);
        fpl_put_v(&m->out, n + (leaf != 0));
        if (leaf) {
            fpl_put_v(&m->out, leaf);
            fpl_put_sv(&m->out, -1);
        }
        for (uint32_t i = 0; i < n; i++) {
            int32_t bci = (int32_t)int_of(field_of(m, &fr->items[i], "bytecodeIndex"), 0);
            fpl_put_v(&m->out, mids[i]);
            fpl_put_sv(&m->out, types[i] >= FPL_FRAME_NATIVE ? -1 : bci);
        }
        if (leaf)
            fpl_put_u8(&m->out, FPL_FRAME_CLASS);
        fpl_put_bytes(&m->out, types, n);
        fpl_rec_end(&m->out, r);
    }
    free(mids);
    free(types);
    return rc;
}

static int stack_id(struct imp *m, const struct val *ref, uint64_t *id)
{
    size_t k;
    const struct val *sv;
    int rc;
    *id = 0;
    if (!ref || ref->kind != V_REF || !ref->i)
        return 0;
    if (!pool_get(m, ref->type, ref->i, &k))
        return fail(m, "stack trace key %llu is in no constant pool", (unsigned long long)ref->i);
    if (m->pool_id[k]) {
        *id = m->pool_id[k];
        return 0;
    }
    if ((rc = deref(m, ref, &sv)) != 0 || (rc = stack_write(m, sv, 0, id)) != 0)
        return rc;
    m->pool_id[k] = (uint32_t)*id;
    return 0;
}

/* A class named as the JVM names it (java/lang/String, [B, [[Ljava/lang/Object;) as Java
 * source names it (java.lang.String, byte[], java.lang.Object[][]), the form of flyprof's
 * CLASS frames (FORMAT.md 6.3), into the arena. A name that starts with '[' but is no array
 * descriptor is kept, dotted. */
static const char *source_name(struct imp *m, const char *s)
{
    static const char prims[] = "ZBCSIJFD";
    static const char *const names[] = {"boolean", "byte", "char",  "short",
                                        "int",     "long", "float", "double"};
    size_t dims = 0, len = strlen(s);
    while (s[dims] == '[')
        dims++;
    const char *base = s + dims;
    size_t blen = len - dims;
    if (dims) {
        const char *pc = blen == 1 ? strchr(prims, base[0]) : NULL;
        if (pc && *pc) {
            base = names[pc - prims];
            blen = strlen(base);
        } else if (blen > 2 && base[0] == 'L' && base[blen - 1] == ';') {
            base++;
            blen -= 2;
        } else {
            dims = 0; /* not a descriptor */
            base = s;
            blen = len;
        }
    }
    char *d = arena_alloc(m, blen + 2 * dims + 1);
    if (!d)
        return NULL;
    for (size_t i = 0; i < blen; i++)
        d[i] = base[i] == '/' ? '.' : base[i];
    for (size_t i = 0; i < dims; i++)
        memcpy(d + blen + 2 * i, "[]", 2);
    d[blen + 2 * dims] = 0;
    return d;
}

/* The fpl id of the CLASS method of class key ref (writing its METHOD record the first
 * time); 0 for a null class. */
static int class_method_id(struct imp *m, const struct val *ref, uint64_t *id)
{
    size_t k;
    const struct val *cv;
    const char *name = "";
    int rc;
    *id = 0;
    if (!ref || ref->kind != V_REF || !ref->i)
        return 0;
    if (!pool_get(m, ref->type, ref->i, &k))
        return fail(m, "class key %llu is in no constant pool", (unsigned long long)ref->i);
    if (m->pool_id[k]) {
        *id = m->pool_id[k];
        return 0;
    }
    if ((rc = deref(m, ref, &cv)) != 0 || (rc = text_of(m, field_of(m, cv, "name"), &name)))
        return rc;
    const char *src = source_name(m, name);
    if (!src)
        return -ENOMEM;
    *id = m->pool_id[k] = (uint32_t)++m->next_id;
    size_t r = fpl_rec_begin(&m->out, FPL_REC_METHOD);
    fpl_put_v(&m->out, *id);
    fpl_put_u8(&m->out, FPL_METHOD_CLASS);
    fpl_put_str(&m->out, "");
    fpl_put_str(&m->out, src);
    fpl_put_str(&m->out, "");
    fpl_put_str(&m->out, "");
    fpl_put_v(&m->out, 0);
    fpl_rec_end(&m->out, r);
    return 0;
}

/* The fpl id of stack trace sref with the CLASS leaf of class cref in front (flyprof's
 * alloc and lock stacks, FORMAT.md 6.4); stack_id's when the class is null. */
static int leafed_stack_id(struct imp *m, const struct val *sref, const struct val *cref,
                           uint64_t *id)
{
    uint64_t leaf, sk = sref && sref->kind == V_REF ? sref->i : 0;
    int rc;
    *id = 0;
    if ((rc = class_method_id(m, cref, &leaf)) != 0)
        return rc;
    if (!leaf)
        return stack_id(m, sref, id);
    uint64_t h = fpl_hash_mix(fpl_hash_u64(leaf), sk);
    struct hashtab_probe pr;
    for (uint32_t i = hashtab_first(&m->leafed_index, h, &pr); i != HASHTAB_NONE;
         i = hashtab_next(&m->leafed_index, &pr)) {
        if (m->leafed[i][0] == leaf && m->leafed[i][1] == sk) {
            *id = m->leafed[i][2];
            return 0;
        }
    }
    const struct val *sv = NULL;
    if (sk && !pool_get(m, sref->type, sk, NULL))
        return fail(m, "stack trace key %llu is in no constant pool", (unsigned long long)sk);
    if ((rc = deref(m, sref, &sv)) != 0 || (rc = stack_write(m, sv, leaf, id)) != 0)
        return rc;
    if (m->nleafed == m->leafed_cap) {
        size_t cap = m->leafed_cap ? 2 * m->leafed_cap : 256;
        uint64_t(*q)[3] = realloc(m->leafed, cap * sizeof(*q));
        if (!q)
            return -ENOMEM;
        m->leafed = q;
        m->leafed_cap = cap;
    }
    m->leafed[m->nleafed][0] = leaf;
    m->leafed[m->nleafed][1] = sk;
    m->leafed[m->nleafed][2] = *id;
    if (hashtab_add(&m->leafed_index, h, (uint32_t)m->nleafed++))
        return -ENOMEM;
    return 0;
}

/* HotSpot's and flyprof's thread-state names back to enum fpl_state. */
static uint8_t state_of(const char *s)
{
    for (uint8_t i = 0; i < JFR_META_STATES; i++) {
        if (strcmp(s, jfr_meta_state_names[i]) != 0)
            continue;
        /* flyprof's JVM-idle (a JVM service thread waiting for work) is told again by the
         * collector from the thread's name or its stack (profile.h) once it is not running */
        return i <= FPL_STATE_NATIVE           ? i
               : i == JFR_META_STATE_JVM_IDLE ? FPL_STATE_WAITING
                                               : FPL_STATE_UNKNOWN;
    }
    return strcmp(s, "STATE_PARKED_TIMED") == 0 ? FPL_STATE_PARKED : FPL_STATE_UNKNOWN;
}

/* The ALLOC, LOCK or LIVE sample of an allocation, lock or live event (JFR.md section 6):
 * its thread, its stack with the event's class as the leaf, its weight and state. */
static int event_sample(struct imp *m, const struct val *ev, uint64_t etype, uint64_t *tid,
                        uint64_t *sid, uint64_t *weight, uint8_t *kind, uint8_t *state,
                        uint64_t *size)
{
    const char *cls = etype == m->t_menter ? "monitorClass"
                      : etype == m->t_park ? "parkedClass"
                                           : "objectClass";
    int rc;
    if ((rc = thread_id(m, field_of(m, ev, "eventThread"), tid)) != 0 ||
        (rc = leafed_stack_id(m, field_of(m, ev, "stackTrace"), field_of(m, ev, cls), sid)))
        return rc;
    *state = FPL_STATE_RUNNING;
    *size = 0;
    if (etype == m->t_menter || etype == m->t_park) {
        /* the wait in ns, from ticks at the chunk's frequency */
        uint64_t d = int_of(field_of(m, ev, "duration"), 0);
        *weight = (uint64_t)((unsigned __int128)d * 1000000000u / m->tps);
        *kind = FPL_KIND_LOCK;
        *state = etype == m->t_park ? FPL_STATE_PARKED : FPL_STATE_BLOCKED;
    } else {
        *weight = int_of(field_of(m, ev, "weight"), 0);
        *kind = etype == m->t_live ? FPL_KIND_LIVE : FPL_KIND_ALLOC;
        if (etype == m->t_live)
            *size = int_of(field_of(m, ev, "size"), 0);
    }
    return 0;
}

static int sample(struct imp *m, const struct val *ev, uint64_t etype)
{
    uint64_t tid, sid, weight = 1, size = 0;
    uint64_t ticks = int_of(field_of(m, ev, "startTime"), m->start_ticks);
    int rc;
    const char *st = "";
    uint8_t kind, state;
    if (etype == m->t_alloc || etype == m->t_menter || etype == m->t_park ||
        etype == m->t_live) {
        if ((rc = event_sample(m, ev, etype, &tid, &sid, &weight, &kind, &state, &size)) != 0)
            return rc;
    } else {
        if ((rc = thread_id(m, field_of(m, ev, "sampledThread"), &tid)) != 0 ||
            (rc = stack_id(m, field_of(m, ev, "stackTrace"), &sid)) != 0 ||
            (rc = text_of(m, field_of(m, ev, "state"), &st)) != 0)
            return rc;
        kind = etype == m->t_exec ? FPL_KIND_CPU : FPL_KIND_WALL;
        state = etype == m->t_native ? FPL_STATE_NATIVE
                : etype == m->t_exec ? FPL_STATE_RUNNING
                                     : state_of(st);
    }
    /* ns since the epoch: the chunk's start plus the ticks since, at its frequency */
    __int128 d = (__int128)(int64_t)(ticks - m->start_ticks) * 1000000000 / (__int128)m->tps;
    uint64_t ns = m->start_nanos + (uint64_t)(int64_t)d;
    size_t r = fpl_rec_begin(&m->out, FPL_REC_SAMPLE);
    fpl_put_sv(&m->out, (int64_t)(ns - m->prev_ticks));
    fpl_put_v(&m->out, tid);
    fpl_put_v(&m->out, sid);
    fpl_put_v(&m->out, weight);
    fpl_put_u8(&m->out, kind);
    fpl_put_u8(&m->out, state);
    if (size) {
        fpl_put_v(&m->out, 0); /* tick_id */
        fpl_put_v(&m->out, 0); /* context_id */
        fpl_put_v(&m->out, size);
    }
    fpl_rec_end(&m->out, r);
    m->prev_ticks = ns;
    m->samples++;
    if (m->out.len >= OUT_CHUNK)
        return flush_out(m);
    return 0;
}

static int read_events(struct imp *m)
{
    uint64_t off = HEADER_BYTES;
    while (off < m->chunk_size) {
        struct cur c = {m->chunk + off, m->chunk + m->chunk_size};
        uint64_t size = 0, type = 0;
        if (get_long(&c, &size) || size == 0 || size > m->chunk_size - off)
            return fail(m, "the event at %llu has a size (%llu) that leaves the chunk",
                        (unsigned long long)off, (unsigned long long)size);
        c.end = m->chunk + off + size;
        if (get_long(&c, &type))
            return fail(m, "the event at %llu is cut short", (unsigned long long)off);
        if (type && (type == m->t_exec || type == m->t_native || type == m->t_wall ||
                     type == m->t_alloc || type == m->t_menter || type == m->t_park ||
                     type == m->t_live)) {
            struct val ev;
            const struct jtype *t = type_find(m, type);
            ev.kind = V_OBJ;
            ev.type = type;
            ev.n = t->nfields;
            ev.items = arena_alloc(m, (t->nfields + 1) * sizeof(*ev.items));
            if (!ev.items)
                return -ENOMEM;
            for (uint32_t i = 0; i < t->nfields; i++) {
                const struct field *f = &m->fields[t->first + i];
                int rc = value(m, &c, f->type, f->cp, f->dims, 1, &ev.items[i]);
                if (rc)
                    return rc;
            }
            int rc = sample(m, &ev, type);
            if (rc)
                return rc;
        }
        off += size;
    }
    return 0;
}

static uint64_t be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static void chunk_reset(struct imp *m)
{
    arena_free(m);
    m->ntypes = m->nfields = m->npool = 0;
    hashtab_destroy(&m->type_index);
    hashtab_destroy(&m->pool_index);
    hashtab_destroy(&m->leafed_index);
    memset(&m->type_index, 0, sizeof(m->type_index));
    memset(&m->pool_index, 0, sizeof(m->pool_index));
    memset(&m->leafed_index, 0, sizeof(m->leafed_index));
    m->nleafed = 0;
}

static int read_chunk(struct imp *m)
{
    const uint8_t *h = m->chunk;
    size_t left = m->len - m->chunk_off;
    if (left < HEADER_BYTES)
        return fail(m, "the chunk header is cut short (%zu of %d bytes): a truncated file", left,
                    HEADER_BYTES);
    if (memcmp(h, "FLR", 4) != 0)
        return fail(m, "no chunk magic FLR\\0");
    unsigned major = (unsigned)h[4] << 8 | h[5];
    if (major != 1 && major != 2)
        return fail(m, "format version %u.%u; flyprof reads 1.x and 2.x", major,
                    (unsigned)h[6] << 8 | h[7]);
    m->chunk_size = be64(h + 8);
    uint64_t cp = be64(h + 16), meta = be64(h + 24);
    m->start_nanos = be64(h + 32);
    m->start_ticks = be64(h + 48);
    m->tps = be64(h + 56);
    if (m->chunk_size < HEADER_BYTES)
        return fail(m, "its size %llu is smaller than a chunk header (%d bytes): not a chunk",
                    (unsigned long long)m->chunk_size, HEADER_BYTES);
    if (m->chunk_size > left)
        return fail(m,
                    "its size %llu runs past the end of the file (%zu bytes left): a "
                    "truncated file or a recording still being written",
                    (unsigned long long)m->chunk_size, left);
    if (meta < HEADER_BYTES || meta >= m->chunk_size || cp < HEADER_BYTES || cp >= m->chunk_size)
        return fail(m,
                    "its metadata (%llu) or constant-pool (%llu) offset is outside the "
                    "chunk of %llu bytes",
                    (unsigned long long)meta, (unsigned long long)cp,
                    (unsigned long long)m->chunk_size);
    if (m->tps == 0)
        return fail(m, "its tick frequency is 0");
    int rc = read_metadata(m, meta);
    if (rc == 0)
        rc = read_pools(m, cp);
    if (rc == 0)
        rc = collect_lines(m);
    if (rc == 0 && !m->header_done)
        put_header(m);
    if (rc == 0)
        rc = read_events(m);
    if (rc == 0)
        rc = flush_out(m);
    return rc;
}

int jfr_import_is_jfr(const void *data, size_t len)
{
    return len >= 4 && memcmp(data, "FLR", 4) == 0;
}

int jfr_import(const void *data, size_t len, const char *name, int fd, uint64_t *samples, char *err,
               size_t errlen)
{
    struct imp m = {.file = data, .len = len, .name = name, .err = err, .errlen = errlen, .fd = fd};
    int rc = 0;
    *samples = 0;
    if (!jfr_import_is_jfr(data, len)) {
        fail(&m, "not a JFR file (no FLR magic)");
        return -EINVAL;
    }
    if ((rc = fpl_chunk_write_preamble(fd)) != 0) {
        snprintf(err, errlen, "'%s': cannot write the converted log: %s", name, strerror(-rc));
        return rc;
    }
    uint64_t last = 0;
    while (rc == 0 && m.chunk_off < len) {
        m.chunk_no++;
        m.chunk = m.file + m.chunk_off;
        rc = read_chunk(&m);
        if (rc == 0) {
            m.chunk_off += m.chunk_size;
            uint64_t end = m.start_nanos + be64(m.chunk + 40); /* its start and duration */
            if (end > last)
                last = end;
        }
        chunk_reset(&m);
    }
    if (rc == 0 && m.header_done) {
        /* the log is complete: the recording's end, not a cut */
        size_t r = fpl_rec_begin(&m.out, FPL_REC_END);
        fpl_put_u64(&m.out, last);
        fpl_rec_end(&m.out, r);
        rc = flush_out(&m);
    }
    if (rc == -ENOMEM)
        snprintf(err, errlen, "'%s': out of memory reading JFR chunk %u", name, m.chunk_no);
    else if (rc && rc != -EINVAL)
        snprintf(err, errlen, "'%s': cannot write the converted log: %s", name, strerror(-rc));
    *samples = m.samples;
    fpl_buf_free(&m.out);
    free(m.types);
    free(m.fields);
    free(m.pool_type);
    free(m.pool_key);
    free(m.pool_val);
    free(m.pool_id);
    free(m.lines);
    free(m.leafed);
    return rc;
}
