/* options.c: parses the agent's option string; see options.h for the grammar. */
#include "options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fpl_format.h"
#include "fpl_optval.h"

/* What a user may give: the actions are set by the attach commands and the Java API, and the
 * internal keys by the CLI, so neither is offered. */
#define OPTIONS_ACCEPTED                                                                           \
    "cpu[=TIME], wall[=TIME], engine=cputimer|itimer|perf, wallthreads=N, filter, depth=N, "       \
    "walk=vm|agct|check, file=PATH, log=PATH, threads, duration=TIME, events=N, "                \
    "eventwait=TIME, cstack=auto|off, idle, "                                                      \
    "hiccup[=TIME], stall=TIME, loop=TIME, keep=N, alloc[=BYTES], live, lock[=TIME]"

enum opt_kind {
    OPT_FLAG,     /* no value */
    OPT_OPTIONAL, /* key or key=value */
    OPT_REQUIRED, /* key=value, value non-empty */
};

enum opt_key {
    KEY_START,
    KEY_STOP,
    KEY_DUMP,
    KEY_STATUS,
    KEY_CPU,
    KEY_WALL,
    KEY_ENGINE,
    KEY_WALLTHREADS,
    KEY_FILTER,
    KEY_DEPTH,
    KEY_FILE,
    KEY_THREADS,
    KEY_DURATION,
    KEY_REPLY,
    KEY_LOG,
    KEY_EVENTS,
    KEY_EVENTWAIT,
    KEY_CSTACK,
    KEY_WALK,
    KEY_FAULTEVERY,
    KEY_SAFETY,
    KEY_IDLE,
    KEY_HICCUP,
    KEY_STALL,
    KEY_LOOP,
    KEY_KEEP,
    KEY_ALLOC,
    KEY_LOCK,
    KEY_LIVE,
    KEY_COUNT,
};

static const struct {
    const char *name;
    enum opt_kind kind;
    const char *usage; /* the accepted form, for "needs a value" */
    int hidden;        /* left out of options.shown: internal, or an action */
} opt_keys[KEY_COUNT] = {
    [KEY_START] = {"start", OPT_FLAG, "start", 1},
    [KEY_STOP] = {"stop", OPT_FLAG, "stop", 1},
    [KEY_DUMP] = {"dump", OPT_FLAG, "dump", 1},
    [KEY_STATUS] = {"status", OPT_FLAG, "status", 1},
    [KEY_CPU] = {"cpu", OPT_OPTIONAL, "cpu[=TIME]"},
    [KEY_WALL] = {"wall", OPT_OPTIONAL, "wall[=TIME]"},
    [KEY_ENGINE] = {"engine", OPT_REQUIRED, "engine=cputimer|itimer|perf"},
    [KEY_WALLTHREADS] = {"wallthreads", OPT_REQUIRED, "wallthreads=N"},
    [KEY_FILTER] = {"filter", OPT_FLAG, "filter"},
    [KEY_DEPTH] = {"depth", OPT_REQUIRED, "depth=N"},
    [KEY_FILE] = {"file", OPT_REQUIRED, "file=PATH"},
    [KEY_THREADS] = {"threads", OPT_FLAG, "threads"},
    [KEY_DURATION] = {"duration", OPT_REQUIRED, "duration=TIME"},
    /* internal: where the flyprof CLI wants an attach action's result; not in the list of
     * accepted options a user sees */
    [KEY_REPLY] = {"reply", OPT_REQUIRED, "reply=PATH", 1},
    [KEY_LOG] = {"log", OPT_REQUIRED, "log=PATH"},
    [KEY_EVENTS] = {"events", OPT_REQUIRED, "events=N"},
    [KEY_EVENTWAIT] = {"eventwait", OPT_REQUIRED, "eventwait=TIME"},
    [KEY_CSTACK] = {"cstack", OPT_REQUIRED, "cstack=auto|off"},
    [KEY_WALK] = {"walk", OPT_REQUIRED, "walk=vm|agct|check"},
    /* test-only: makes every N-th stack walk fault on purpose inside the crash guard; not in
     * the list of accepted options a user sees */
    [KEY_FAULTEVERY] = {"_faultevery", OPT_REQUIRED, "_faultevery=N", 1},
    /* internal: attach -d's own stop, after the duration the user asked plus a margin, in case
     * the CLI is gone before it can stop profiling; not what the user asked for */
    [KEY_SAFETY] = {"safety", OPT_REQUIRED, "safety=TIME", 1},
    [KEY_IDLE] = {"idle", OPT_FLAG, "idle"},
    [KEY_HICCUP] = {"hiccup", OPT_OPTIONAL, "hiccup[=TIME]"},
    [KEY_STALL] = {"stall", OPT_REQUIRED, "stall=TIME"},
    [KEY_LOOP] = {"loop", OPT_REQUIRED, "loop=TIME"},
    [KEY_KEEP] = {"keep", OPT_REQUIRED, "keep=N"},
    [KEY_ALLOC] = {"alloc", OPT_OPTIONAL, "alloc[=BYTES]"},
    [KEY_LOCK] = {"lock", OPT_OPTIONAL, "lock[=TIME]"},
    [KEY_LIVE] = {"live", OPT_FLAG, "live"},
};

static const struct {
    const char *name;
    int engine;
} opt_engines[] = {
    {"cputimer", FPL_ENGINE_CPUTIMER},
    {"itimer", FPL_ENGINE_ITIMER},
    {"perf", FPL_ENGINE_PERF},
};

#define QUOTE_MAX 64 /* bytes of offending text shown in a message */

struct quoted {
    char s[QUOTE_MAX * 4 + 4]; /* every byte as \xNN, then "..." and NUL */
};

/* Renders n bytes of user text for a one-line message: non-printable bytes (and '\') become
 * \xNN so a newline or a stray UTF-8 fragment cannot break the log line; long text is cut. */
static const char *quote(struct quoted *q, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t i, j = 0;

    for (i = 0; i < n && i < QUOTE_MAX; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            q->s[j++] = (char)c;
        } else {
            q->s[j++] = '\\';
            q->s[j++] = 'x';
            q->s[j++] = hex[c >> 4];
            q->s[j++] = hex[c & 15];
        }
    }
    if (i < n) {
        memcpy(q->s + j, "...", 3);
        j += 3;
    }
    q->s[j] = '\0';
    return q->s;
}

__attribute__((format(printf, 3, 4))) static int fail(char *err, size_t errlen, const char *fmt,
                                                      ...)
{
    va_list ap;

    if (err && errlen) {
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

/* Reads the leading decimal digits of s[0..n) into *v; *len is how many there were, *range is
 * set when the digits overflow 64 bits (the scan goes on so that trailing garbage still wins
 * over overflow in the caller's verdict). */
static void scan_digits(const char *s, size_t n, uint64_t *v, size_t *len, int *range)
{
    uint64_t x = 0;
    size_t i;

    *range = 0;
    for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        unsigned d = (unsigned)(s[i] - '0');
        if (x > (UINT64_MAX - d) / 10)
            *range = 1;
        else
            x = x * 10 + d;
    }
    *v = x;
    *len = i;
}

int options_parse_time(const char *s, uint64_t *ns)
{
    if (!s || !ns)
        return -EINVAL;
    return fpl_optval_time(s, strlen(s), ns);
}

/* Parses the TIME v[0..n) of key into *ns, within [lo, hi]: a duration (a bare number is
 * seconds) or, when !duration, an interval, resolution or threshold (a unit is required: a
 * bare number is refused with the ways to write it that fit, the nearest to typical first).
 * small / large: what the message says below lo / above hi. */
static int parse_time(const char *key, const char *v, size_t n, int duration, uint64_t lo,
                      uint64_t hi, uint64_t typical, const char *small, const char *large,
                      uint64_t *ns, char *err, size_t errlen)
{
    struct quoted q;
    char prefix[32], ex[200];
    int rc = duration ? fpl_optval_duration(v, n, ns) : fpl_optval_time(v, n, ns);

    if (rc == -EDOM) {
        snprintf(prefix, sizeof(prefix), "%s=", key);
        fpl_optval_with_unit(v, n, lo, hi, typical, prefix, ex, sizeof(ex));
        return fail(err, errlen,
                    "bad value '%s' for %s: give a unit%s%s (units " FPL_OPTVAL_UNITS ")",
                    quote(&q, v, n), key, ex[0] ? ", e.g. " : "", ex);
    }
    if (rc == -EINVAL && duration)
        return fail(err, errlen,
                    "bad value '%s' for %s: expected seconds (30, 2.5) or a number "
                    "and a unit such as 500ms or 2min (units " FPL_OPTVAL_UNITS ")",
                    quote(&q, v, n), key);
    if (rc == -EINVAL)
        return fail(err, errlen,
                    "bad value '%s' for %s: expected a number and a unit such as "
                    "10ms (units " FPL_OPTVAL_UNITS ")",
                    quote(&q, v, n), key);
    if (rc == -ERANGE || *ns > hi)
        return fail(err, errlen, "bad value '%s' for %s: %s", quote(&q, v, n), key, large);
    if (*ns < lo)
        return fail(err, errlen, "bad value '%s' for %s: %s", quote(&q, v, n), key, small);
    return 0;
}

/* wallthreads= and depth=: decimal digits only, within [1, max]. */
static int parse_count(const char *key, const char *v, size_t n, unsigned max, unsigned *out,
                       char *err, size_t errlen)
{
    struct quoted q;
    uint64_t x;
    size_t len;
    int range;

    scan_digits(v, n, &x, &len, &range);
    if (len == 0 || len != n || range || x < 1 || x > max)
        return fail(err, errlen, "bad value '%s' for %s: expected N from 1 to %u", quote(&q, v, n),
                    key, max);
    *out = (unsigned)x;
    return 0;
}

/* alloc=BYTES: decimal digits and an optional unit (k, m, g, with or without b / ib, any
 * case; binary multiples), within [0, OPTIONS_MAX_ALLOC_BYTES]. */
static int parse_bytes(const char *key, const char *v, size_t n, uint64_t *out, char *err,
                       size_t errlen)
{
    struct quoted q;
    uint64_t x, mult = 1;
    size_t len;
    int range;

    scan_digits(v, n, &x, &len, &range);
    const char *u = v + len;
    size_t ul = n - len;
    if (ul > 0) {
        char c = (char)(u[0] | 0x20);
        mult = c == 'k' ? 1ull << 10 : c == 'm' ? 1ull << 20 : c == 'g' ? 1ull << 30
               : c == 'b' && ul == 1 ? 1 : 0;
        int tail_ok = ul == 1 || (ul == 2 && (u[1] | 0x20) == 'b' && c != 'b') ||
                      (ul == 3 && (u[1] | 0x20) == 'i' && (u[2] | 0x20) == 'b' && c != 'b');
        if (!tail_ok)
            mult = 0;
    }
    if (len == 0 || range || mult == 0)
        return fail(err, errlen,
                    "bad value '%s' for %s: expected bytes, a number with an optional unit k, "
                    "m or g (e.g. %s=512k)",
                    quote(&q, v, n), key, key);
    if (x > OPTIONS_MAX_ALLOC_BYTES / mult)
        return fail(err, errlen, "bad value '%s' for %s: at most 2147483647 bytes (2g - 1)",
                    quote(&q, v, n), key);
    *out = x * mult;
    return 0;
}

void options_defaults(struct options *o)
{
    memset(o, 0, sizeof(*o));
    o->action = OPTIONS_START;
    o->cpu_interval_ns = OPTIONS_DEFAULT_CPU_NS;
    o->wall_interval_ns = 0;
    o->engine = FPL_ENGINE_CPUTIMER;
    o->wall_threads = OPTIONS_DEFAULT_WALL_THREADS;
    o->depth = OPTIONS_DEFAULT_DEPTH;
    o->events = OPTIONS_DEFAULT_EVENTS;
    o->event_wait_ns = OPTIONS_DEFAULT_EVENT_WAIT_NS;
    o->cstack = OPTIONS_CSTACK_AUTO;
    memcpy(o->file, OPTIONS_DEFAULT_FILE, sizeof(OPTIONS_DEFAULT_FILE));
}

/* Applies one item whose key is k and value v[0..n) (v NULL: no '='), kind already checked. */
static int apply(struct options *o, enum opt_key k, const char *v, size_t n, char *err,
                 size_t errlen)
{
    struct quoted q;
    size_t i;

    switch (k) {
    case KEY_START:
    case KEY_STOP:
    case KEY_DUMP:
    case KEY_STATUS:
        o->action = (enum options_action)(k - KEY_START);
        return 0;
    case KEY_CPU:
    case KEY_WALL: {
        uint64_t *ns = k == KEY_CPU ? &o->cpu_interval_ns : &o->wall_interval_ns;
        if (!v) {
            *ns = k == KEY_CPU ? OPTIONS_DEFAULT_CPU_NS : OPTIONS_DEFAULT_WALL_NS;
            return 0;
        }
        return parse_time(opt_keys[k].name, v, n, 0, OPTIONS_MIN_INTERVAL_NS,
                          OPTIONS_MAX_INTERVAL_NS, OPTIONS_DEFAULT_CPU_NS,
                          "the interval must be at least 100us",
                          "the interval must be at most 1 day (86400s)", ns, err, errlen);
    }
    case KEY_ENGINE:
        for (i = 0; i < sizeof(opt_engines) / sizeof(opt_engines[0]); i++) {
            if (strlen(opt_engines[i].name) == n && memcmp(opt_engines[i].name, v, n) == 0) {
                o->engine = opt_engines[i].engine;
                return 0;
            }
        }
        return fail(err, errlen, "engine=%s: expected cputimer, itimer or perf", quote(&q, v, n));
    case KEY_WALLTHREADS:
        return parse_count("wallthreads", v, n, OPTIONS_MAX_WALL_THREADS, &o->wall_threads, err,
                           errlen);
    case KEY_DEPTH:
        return parse_count("depth", v, n, OPTIONS_MAX_DEPTH, &o->depth, err, errlen);
    case KEY_WALK:
        if (n == 2 && memcmp(v, "vm", 2) == 0) {
            o->walk_agct = 0;
            return 0;
        }
        if (n == 4 && memcmp(v, "agct", 4) == 0) {
            o->walk_agct = 1;
            return 0;
        }
        if (n == 5 && memcmp(v, "check", 5) == 0) {
            o->walk_agct = 2;
            return 0;
        }
        return fail(err, errlen, "walk=%s: expected vm (HotSpot's structures, "
                    "AsyncGetCallTrace where they do not say), agct (AsyncGetCallTrace alone) "
                    "or check (both, counting where they differ)", quote(&q, v, n));
    case KEY_FAULTEVERY:
        return parse_count("_faultevery", v, n, UINT32_MAX / 2, &o->fault_every, err, errlen);
    case KEY_FILTER:
        o->filter = 1;
        return 0;
    case KEY_THREADS:
        o->threads = 1;
        return 0;
    case KEY_FILE:
        if (n >= OPTIONS_FILE_MAX)
            return fail(err, errlen, "file='%s' is too long: %zu bytes, at most %d",
                        quote(&q, v, n), n, OPTIONS_FILE_MAX - 1);
        memcpy(o->file, v, n);
        o->file[n] = '\0';
        o->file_given = 1;
        return 0;
    case KEY_LOG:
        if (n >= OPTIONS_FILE_MAX)
            return fail(err, errlen, "log='%s' is too long: %zu bytes, at most %d",
                        quote(&q, v, n), n, OPTIONS_FILE_MAX - 1);
        memcpy(o->log, v, n);
        o->log[n] = '\0';
        return 0;
    case KEY_REPLY:
        if (n >= OPTIONS_FILE_MAX)
            return fail(err, errlen, "reply='%s' is too long: %zu bytes, at most %d",
                        quote(&q, v, n), n, OPTIONS_FILE_MAX - 1);
        memcpy(o->reply, v, n);
        o->reply[n] = '\0';
        return 0;
    case KEY_IDLE:
        o->idle = 1;
        return 0;
    case KEY_SAFETY:
        return parse_time("safety", v, n, 1, 1, OPTIONS_MAX_DURATION_NS, 0,
                          "expected a TIME from 1ns to 365 days",
                          "expected a TIME from 1ns to 365 days", &o->safety_ns, err, errlen);
    case KEY_DURATION:
        return parse_time("duration", v, n, 1, 1, OPTIONS_MAX_DURATION_NS, 0,
                          "expected a TIME greater than 0", "at most 365 days (31536000s)",
                          &o->duration_ns, err, errlen);
    case KEY_EVENTS: {
        uint64_t x;
        size_t len;
        int range;
        scan_digits(v, n, &x, &len, &range);
        if (len == 0 || len != n || range ||
            (x != 0 && (x < OPTIONS_MIN_EVENTS || x > OPTIONS_MAX_EVENTS)))
            return fail(err, errlen,
                        "bad value '%s' for events: expected 0 (off) or N from %u to %u (events "
                        "per thread buffer, 16 bytes each)",
                        quote(&q, v, n), OPTIONS_MIN_EVENTS, OPTIONS_MAX_EVENTS);
        o->events = (uint32_t)x;
        return 0;
    }
    case KEY_EVENTWAIT:
        return parse_time("eventwait", v, n, 0, 0, OPTIONS_MAX_EVENT_WAIT_NS,
                          OPTIONS_DEFAULT_EVENT_WAIT_NS, "the wait must be from 0ns to 10s",
                          "the wait must be from 0ns (never wait) to 10s", &o->event_wait_ns,
                          err, errlen);
    case KEY_CSTACK:
        if (n == 4 && memcmp(v, "auto", 4) == 0)
            o->cstack = OPTIONS_CSTACK_AUTO;
        else if (n == 3 && memcmp(v, "off", 3) == 0)
            o->cstack = OPTIONS_CSTACK_OFF;
        else
            return fail(err, errlen, "cstack=%s: expected auto or off", quote(&q, v, n));
        return 0;
    case KEY_HICCUP:
        if (!v) {
            o->hiccup_ns = OPTIONS_DEFAULT_HICCUP_NS;
            return 0;
        }
        return parse_time("hiccup", v, n, 0, OPTIONS_MIN_INTERVAL_NS, OPTIONS_MAX_HICCUP_NS,
                          OPTIONS_DEFAULT_HICCUP_NS, "the resolution must be from 100us to 1s",
                          "the resolution must be from 100us to 1s", &o->hiccup_ns, err, errlen);
    case KEY_STALL:
        return parse_time("stall", v, n, 0, 1, OPTIONS_MAX_INTERVAL_NS, OPTIONS_DEFAULT_STALL_NS,
                          "the threshold must be above 0 and at most 1 day (86400s)",
                          "the threshold must be above 0 and at most 1 day (86400s)", &o->stall_ns,
                          err, errlen);
    case KEY_LOOP:
        return parse_time("loop", v, n, 1, OPTIONS_MIN_LOOP_NS, OPTIONS_MAX_DURATION_NS, 0,
                          "a log covers at least 1s", "at most 365 days (31536000s)",
                          &o->loop_ns, err, errlen);
    case KEY_KEEP:
        return parse_count("keep", v, n, OPTIONS_MAX_KEEP, &o->keep, err, errlen);
    case KEY_ALLOC:
        o->alloc = 1;
        if (!v) {
            o->alloc_bytes = OPTIONS_DEFAULT_ALLOC_BYTES;
            return 0;
        }
        return parse_bytes("alloc", v, n, &o->alloc_bytes, err, errlen);
    case KEY_LOCK:
        o->lock = 1;
        if (!v) {
            o->lock_ns = OPTIONS_DEFAULT_LOCK_NS;
            return 0;
        }
        return parse_time("lock", v, n, 0, 0, OPTIONS_MAX_LOCK_NS, OPTIONS_DEFAULT_LOCK_NS,
                          "the threshold must be from 0ns to 1s",
                          "the threshold must be from 0ns to 1s", &o->lock_ns, err, errlen);
    case KEY_LIVE:
        o->live = 1;
        return 0;
    case KEY_COUNT:
        break;
    }
    return fail(err, errlen, "options: internal error on key %d", (int)k);
}

/* Appends one item to o->shown (comma-separated); an item that does not fit whole is left out
 * and so are the ones after it. */
static void add_shown(struct options *o, const char *item, size_t len)
{
    size_t have = strlen(o->shown), sep = have ? 1 : 0;
    if (o->shown_full || have + sep + len >= sizeof(o->shown)) {
        o->shown_full = 1;
        return;
    }
    if (sep)
        o->shown[have++] = ',';
    memcpy(o->shown + have, item, len);
    o->shown[have + len] = '\0';
}

int options_parse(const char *s, struct options *out, char *err, size_t errlen)
{
    struct options o;
    struct quoted q1;
    unsigned seen = 0;
    int action = -1;
    size_t item = 0, rawlen;
    const char *p;

    if (err && errlen)
        err[0] = '\0';
    if (!out)
        return fail(err, errlen, "options: no struct to fill");
    options_defaults(&o);
    if (!s)
        s = "";
    rawlen = strnlen(s, OPTIONS_FILE_MAX - 1);
    memcpy(o.raw, s, rawlen);
    o.raw[rawlen] = '\0';

    for (p = s; *p;) {
        const char *end = strchr(p, ',');
        const char *eq, *v;
        size_t len, klen, vlen;
        int k, rc;

        if (!end)
            end = p + strlen(p);
        len = (size_t)(end - p);
        item++;
        if (len == 0)
            return fail(err, errlen,
                        "empty option (item %zu): separate options with a single comma", item);
        eq = memchr(p, '=', len);
        klen = eq ? (size_t)(eq - p) : len;
        v = eq ? eq + 1 : NULL;
        vlen = eq ? (size_t)(end - v) : 0;
        if (klen == 0)
            return fail(err, errlen, "option '%s' has no name (accepted: " OPTIONS_ACCEPTED ")",
                        quote(&q1, p, len));
        for (k = 0; k < KEY_COUNT; k++) {
            if (strlen(opt_keys[k].name) == klen && memcmp(opt_keys[k].name, p, klen) == 0)
                break;
        }
        if (k == KEY_COUNT)
            return fail(err, errlen, "unknown option '%s' (accepted: " OPTIONS_ACCEPTED ")",
                        quote(&q1, p, klen));
        if (seen & (1u << k))
            return fail(err, errlen, "duplicate option '%s'", opt_keys[k].name);
        seen |= 1u << k;
        if (opt_keys[k].kind == OPT_FLAG && v)
            return fail(err, errlen, "option '%s' takes no value", opt_keys[k].name);
        if (opt_keys[k].kind == OPT_REQUIRED && vlen == 0)
            return fail(err, errlen, "option '%s' needs a value (%s)", opt_keys[k].name,
                        opt_keys[k].usage);
        if (k <= KEY_STATUS) {
            if (action >= 0)
                return fail(err, errlen, "conflicting actions '%s' and '%s'", opt_keys[action].name,
                            opt_keys[k].name);
            action = k;
        }
        rc = apply(&o, (enum opt_key)k, v, vlen, err, errlen);
        if (rc)
            return rc;
        if (!opt_keys[k].hidden)
            add_shown(&o, p, len);
        if (!*end)
            break;
        p = end + 1; /* "cpu," ends here: one trailing comma is tolerated */
    }
    /* Naming only wall, alloc or lock means "these instead of cpu"; naming none of them means
     * the default mode. */
    if ((seen & (1u << KEY_WALL | 1u << KEY_ALLOC | 1u << KEY_LOCK | 1u << KEY_LIVE)) &&
        !(seen & (1u << KEY_CPU)))
        o.cpu_interval_ns = 0;
    /* live is a view of the allocation samples: it turns them on at their default */
    if (o.live && !o.alloc) {
        o.alloc = 1;
        o.alloc_bytes = OPTIONS_DEFAULT_ALLOC_BYTES;
    }
    /* the user's own duration= wins over the CLI's safety stop */
    if (!o.duration_ns)
        o.duration_ns = o.safety_ns;
    if (o.idle && (seen & ~(1u << KEY_IDLE | 1u << KEY_REPLY | 1u << KEY_START)))
        return fail(err, errlen,
                    "idle loads the agent without profiling: it takes no other option (give "
                    "the sampling options when profiling starts: flyprof start PID, or "
                    "Flyprof.start)");
    if ((seen & (1u << KEY_KEEP)) && !o.loop_ns)
        return fail(err, errlen, "keep=%u bounds the files of loop=: give loop=TIME too", o.keep);
    /* stall= alone asks for hiccup mode at its default resolution */
    if ((seen & (1u << KEY_STALL)) && !o.hiccup_ns)
        o.hiccup_ns = OPTIONS_DEFAULT_HICCUP_NS;
    if (o.hiccup_ns && !o.stall_ns)
        o.stall_ns = OPTIONS_DEFAULT_STALL_NS;
    *out = o;
    return 0;
}

int options_expand_file(const char *tmpl, int pid, long start_sec, char *out, size_t outlen)
{
    return fpl_optval_expand_file(tmpl, pid, start_sec, out, outlen);
}

int options_expand_file_seq(const char *tmpl, int pid, long start_sec, long seq, char *out,
                            size_t outlen)
{
    return fpl_optval_expand_file_seq(tmpl, pid, start_sec, seq, out, outlen);
}
