/* cli_select.c: the selection options of convert and diff, and reading a log with warnings
 * (see cli_select.h). */
#include "cli_select.h"

#include <errno.h>
#include <regex.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_args.h"
#include "cli_msg.h"
#include "render_file.h"
#include "spill.h"

#define ERR_MAX 1024

/* Warns on stderr about damage the reader met, so a converted output is not trusted blindly. */
static void warn_damage(const struct profile *p, const char *in)
{
    const struct reader_stats *s = &p->stats;
    if (s->chunks_damaged || s->chunks_lost || s->chunks_bad_framing || s->bad_records)
        cli_msg_error(
            "warning: '%s' is damaged: %llu damaged regions skipped (%llu bytes), %llu "
            "chunks lost, %llu chunks ended early, %llu undecodable records skipped; their "
            "samples are missing",
            in, (unsigned long long)s->chunks_damaged, (unsigned long long)s->bytes_skipped,
            (unsigned long long)s->chunks_lost, (unsigned long long)s->chunks_bad_framing,
            (unsigned long long)s->bad_records);
    uint64_t unwritten = p->counters[FPL_CTR_WRITE_LOST_CHUNKS];
    if (unwritten)
        cli_msg_error("warning: '%s' is incomplete: the agent could not write %llu chunks of it "
                      "(%s); their %llu samples are missing",
                      in, (unsigned long long)unwritten,
                      strerror((int)p->counters[FPL_CTR_WRITE_ERRNO]),
                      (unsigned long long)p->counters[FPL_CTR_WRITE_LOST_SAMPLES]);
    if (!p->end_seen)
        cli_msg_error("warning: '%s' has no END record: it was cut off (crash) or is still being "
                      "written",
                      in);
}

int cli_select_option(const char *cmd, int argc, char **argv, int *i, struct cli_select *a)
{
    static const struct {
        const char *lng, *shrt, *what;
        size_t off;
    } valued[] = {
        {"--output", "-o", "a file", offsetof(struct cli_select, out)},
        {"--format", NULL, "a format (" RENDER_FILE_FORMAT_NAMES ")",
         offsetof(struct cli_select, format)},
        {"--kind", NULL, "cpu, wall, alloc, lock, live or all", offsetof(struct cli_select, kind)},
        {"--state", NULL, "a state (" RENDER_STATE_NAMES ")", offsetof(struct cli_select, state)},
        {"--include", NULL, "a regular expression", offsetof(struct cli_select, include)},
        {"--exclude", NULL, "a regular expression", offsetof(struct cli_select, exclude)},
        {"--thread", NULL, "a regular expression", offsetof(struct cli_select, thread)},
        {"--from", NULL, "a time such as 2.5s or 14:03:05", offsetof(struct cli_select, from)},
        {"--to", NULL, "a time such as 2.5s or 14:03:05", offsetof(struct cli_select, to)},
        {"--title", NULL, "a text", offsetof(struct cli_select, title)},
        {"--endpoint", NULL, "a regular expression", offsetof(struct cli_select, endpoint)},
        {"--span", NULL, "a span id", offsetof(struct cli_select, span)},
        {"--root-span", NULL, "a root span id", offsetof(struct cli_select, root_span)},
    };
    if (strcmp(argv[*i], "--threads") == 0) {
        a->threads = 1;
        return 1;
    }
    if (strcmp(argv[*i], "--reverse") == 0) {
        a->reverse = 1;
        return 1;
    }
    if (strcmp(argv[*i], "--no-states") == 0) {
        a->no_states = 1;
        return 1;
    }
    if (strcmp(argv[*i], "--annotate") == 0) {
        a->annotate = 1;
        return 1;
    }
    if (strcmp(argv[*i], "--raw-names") == 0) {
        a->raw_names = 1;
        return 1;
    }
    for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++) {
        const char *v = NULL;
        const char *opt = argv[*i];
        int m = cli_args_value(argc, argv, i, valued[k].lng, valued[k].shrt, &v);
        if (m == 0)
            continue;
        if (m < 0) {
            return cli_msg_usage(cmd, "%s: %s needs %s", cmd, opt, valued[k].what);
        }
        *(const char **)((char *)a + valued[k].off) = v;
        return 1;
    }
    return 0;
}

/* Checks a regex given to --include / --exclude before any log is read. */
static int check_regex(const char *cmd, const char *opt, const char *re)
{
    regex_t r;
    char msg[256];
    int rc = regcomp(&r, re, REG_EXTENDED | REG_NOSUB);
    if (rc == 0) {
        regfree(&r);
        return 0;
    }
    regerror(rc, &r, msg, sizeof(msg));
    return cli_msg_usage(cmd, "%s: %s: bad regular expression '%s': %s (POSIX extended syntax)",
                         cmd, opt, re, msg);
}

/* A span id: decimal, or hexadecimal after 0x (tracers print both). */
static int parse_id(const char *s, uint64_t *id)
{
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *d = hex ? s + 2 : s;
    if (!*d || *d == '-' || *d == '+' || *d == ' ')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(d, &end, hex ? 16 : 10);
    if (errno || *end)
        return -1;
    *id = v;
    return 0;
}

/* --kind's value: an FPL_KIND_*, PROFILE_KIND_ALL, or -1 when unknown. */
static int kind_parse(const char *s)
{
    static const struct {
        const char *name;
        int kind;
    } kinds[] = {{"cpu", FPL_KIND_CPU},   {"wall", FPL_KIND_WALL}, {"alloc", FPL_KIND_ALLOC},
                 {"lock", FPL_KIND_LOCK}, {"live", FPL_KIND_LIVE}, {"all", PROFILE_KIND_ALL}};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (strcmp(s, kinds[i].name) == 0)
            return kinds[i].kind;
    return -1;
}

int cli_select_parse(const char *cmd, const struct cli_select *a, struct render_opts *o,
                     struct profile_time *from, struct profile_time *to)
{
    char err[ERR_MAX];
    int rc;

    memset(o, 0, sizeof(*o));
    o->kind = PROFILE_KIND_AUTO;
    o->state = RENDER_STATE_ALL;
    o->threads = a->threads;
    o->reverse = a->reverse;
    o->no_states = a->no_states;
    o->annotate = a->annotate;
    o->include = a->include;
    o->exclude = a->exclude;
    o->thread = a->thread;
    o->title = a->title;
    if (a->kind) {
        if ((o->kind = kind_parse(a->kind)) < 0)
            return cli_msg_usage(cmd,
                                 "%s: unknown kind '%s': use cpu, wall, alloc, lock, live or all "
                                 "(cpu and wall together)",
                                 cmd, a->kind);
    }
    if (a->state && (o->state = render_state_parse(a->state)) < 0)
        return cli_msg_usage(cmd, "%s: unknown state '%s': use one of %s", cmd, a->state,
                             RENDER_STATE_NAMES);
    if (a->include && (rc = check_regex(cmd, "--include", a->include)) != 0)
        return rc;
    if (a->thread && (rc = check_regex(cmd, "--thread", a->thread)) != 0)
        return rc;
    if (a->exclude && (rc = check_regex(cmd, "--exclude", a->exclude)) != 0)
        return rc;
    if (a->endpoint && (rc = check_regex(cmd, "--endpoint", a->endpoint)) != 0)
        return rc;
    uint64_t id;
    if (a->span && parse_id(a->span, &id) != 0)
        return cli_msg_usage(cmd, "%s: --span: '%s' is not a span id (decimal, or hex with 0x)",
                             cmd, a->span);
    if (a->root_span && parse_id(a->root_span, &id) != 0)
        return cli_msg_usage(cmd, "%s: --root-span: '%s' is not a span id (decimal, or hex with "
                             "0x)", cmd, a->root_span);
    from->kind = to->kind = PROFILE_TIME_NONE;
    if (a->from && profile_time_parse(a->from, from, err, sizeof(err)) != 0)
        return cli_msg_usage(cmd, "%s: --from: %s", cmd, err);
    if (a->to && profile_time_parse(a->to, to, err, sizeof(err)) != 0)
        return cli_msg_usage(cmd, "%s: --to: %s", cmd, err);
    if (a->from && a->to && from->kind == to->kind && from->ns >= to->ns)
        return cli_msg_usage(cmd, "%s: empty time window: --from %s is not before --to %s", cmd,
                             a->from, a->to);
    return 0;
}

/* A local time of day, HH:MM:SS.mmm, of real_ns (ns since the epoch); "?" when unknown. */
static const char *clock_str(uint64_t real_ns, char *buf, size_t len)
{
    time_t t = (time_t)(real_ns / 1000000000ull);
    struct tm tm;
    char hms[16];
    if (!real_ns || !localtime_r(&t, &tm) || !strftime(hms, sizeof(hms), "%H:%M:%S", &tm))
        snprintf(buf, len, "?");
    else
        snprintf(buf, len, "%s.%03llu", hms, (unsigned long long)(real_ns / 1000000 % 1000));
    return buf;
}

/* Says why a window that left every sample of the log outside it selects nothing: which bound
 * missed, as given, and when the log's samples were. Nothing is written from an empty window
 * (an empty page or folded file looks like a profile of nothing). */
static void empty_window(const struct profile *p, const char *in, const struct cli_select *a)
{
    const struct profile_window *w = &p->window;
    int64_t first, last;
    uint64_t rf, rl;
    char what[256], c1[24], c2[24];
    if (w->has_from && w->has_to)
        snprintf(what, sizeof(what), "the window --from %s --to %s holds no sample", a->from,
                 a->to);
    else if (w->has_from)
        snprintf(what, sizeof(what), "--from %s is after the last sample", a->from);
    else
        snprintf(what, sizeof(what), "--to %s is before the first sample", a->to);
    if (profile_window_span(p, &first, &last, &rf, &rl) != 0) {
        cli_msg_error("%s of '%s': nothing written", what, in);
        return;
    }
    if (w->has_from && w->has_to && w->from_ns > last)
        snprintf(what, sizeof(what), "--from %s is after the last sample", a->from);
    else if (w->has_from && w->has_to && w->to_ns <= first)
        snprintf(what, sizeof(what), "--to %s is before the first sample", a->to);
    cli_msg_error("%s of '%s': its samples span %.3f s to %.3f s after its start (%s to %s); "
                  "nothing written",
                  what, in, (double)first / 1e9, (double)last / 1e9, clock_str(rf, c1, sizeof(c1)),
                  clock_str(rl, c2, sizeof(c2)));
}

struct profile *cli_select_read(const char *in, const struct cli_select *a,
                                const struct profile_time *from, const struct profile_time *to)
{
    return cli_select_read_logs(&in, 1, a, from, to);
}

struct profile *cli_select_read_logs(const char *const *ins, size_t nin,
                                     const struct cli_select *a, const struct profile_time *from,
                                     const struct profile_time *to)
{
    char err[ERR_MAX];
    struct profile *p = profile_new();
    if (!p || (a->timeline && profile_want_timeline(p) != 0)) {
        cli_msg_error("out of memory");
        profile_free(p);
        return NULL;
    }
    const char *tmp = getenv("TMPDIR");
    tmp = tmp && *tmp ? tmp : "/tmp";
    /* only the samples the output shows: --kind cpu of a log with wall samples spilled both,
     * 70 MB for 56 on the bench's 10M-sample log; --kind alloc, lock or live none (an empty
     * spill: the same path writes their events) */
    int kind = a->kind ? kind_parse(a->kind) : PROFILE_KIND_ALL; /* checked by _parse */
    unsigned spill = 1u << FPL_KIND_CPU | 1u << FPL_KIND_WALL;
    if (kind == FPL_KIND_CPU || kind == FPL_KIND_WALL)
        spill = 1u << kind;
    else if (kind != PROFILE_KIND_ALL)
        spill = 0;
    int src;
    if (a->spill && (src = profile_want_spill(p, tmp, spill)) != 0)
        cli_msg_error("warning: cannot make a temporary file in '%s' (%s) for the samples' "
                      "times: events at the start of the timeline's bins instead (set TMPDIR)",
                      tmp, strerror(-src));
    p->raw_names = a->raw_names;
    if (a->kept)
        profile_want_kept(p, PROFILE_MAX_KEPT);
    p->cells_by_context = a->cells_by_context;
    uint64_t span = 0, root = 0;
    if (a->span)
        parse_id(a->span, &span); /* checked by cli_select_parse */
    if (a->root_span)
        parse_id(a->root_span, &root);
    if (profile_select_context(p, a->endpoint, a->span ? &span : NULL,
                               a->root_span ? &root : NULL, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        profile_free(p);
        return NULL;
    }
    if (profile_set_window_times(p, from, to, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        profile_free(p);
        return NULL;
    }
    if (profile_read_files(p, ins, nin, err, sizeof(err)) != 0) {
        uint64_t written = 0;
        int serr = p->spill ? spill_error(p->spill, &written) : 0;
        if (serr) /* the error is the temporary file's, not the log's */
            cli_msg_error("the samples' times no longer fit in a temporary file in '%s' (%s, "
                          "%.1f MB written; about 8 bytes a sample): set TMPDIR to a directory "
                          "with room",
                          tmp, strerror(-serr), (double)written / 1e6);
        else
            cli_msg_error("%s", err);
        profile_free(p);
        return NULL;
    }
    const char *in = p->name; /* the log, or the first of them "(and N more)" */
    warn_damage(p, in);
    if (p->ctx.selecting && !p->samples && p->ctx.skipped)
        cli_msg_error("warning: '%s': no samples of the requests selected by --endpoint, --span "
                      "or --root-span (%llu samples of other requests or of none)",
                      in, (unsigned long long)p->ctx.skipped);
    const struct profile_window *w = &p->window;
    if (w->set && !w->resolved)
        cli_msg_error("warning: '%s' has no clock information (header lost): --from/--to cannot be "
                      "placed, no samples are selected",
                      in);
    else if (w->untimed)
        cli_msg_error("warning: '%s': %llu samples read before any clock information were left out "
                      "of the window",
                      in, (unsigned long long)w->untimed);
    if (w->set && w->resolved && w->skipped && w->skipped == w->span_samples) {
        empty_window(p, in, a);
        profile_free(p);
        return NULL;
    }
    if (w->set && w->resolved && !p->samples) {
        char fa[48] = "", fb[48] = "";
        if (w->has_from)
            snprintf(fa, sizeof(fa), " from %.3f s", (double)w->from_ns / 1e9);
        if (w->has_to)
            snprintf(fb, sizeof(fb), " to %.3f s", (double)w->to_ns / 1e9);
        cli_msg_error(
            "warning: '%s' has no samples in the window%s%s after its start (%llu samples "
            "outside it)",
            in, fa, fb, (unsigned long long)w->skipped);
    }
    return p;
}

void cli_select_warn_empty(const struct profile *p, const char *in, const struct render_opts *o)
{
    struct render_select s;
    char err[ERR_MAX];
    if (render_select_init(&s, p, o, err, sizeof(err)) != 0)
        return;
    int kind = s.kind;
    uint64_t n = 0;
    for (size_t i = 0; i < p->nentries; i++)
        n += render_select_entry(&s, &p->entries[i]) ? p->entries[i].count : 0;
    render_select_destroy(&s);
    const struct profile_window *w = &p->window;
    int windowed = w->set && w->resolved;
    /* an empty window was said while reading; the kind it would resolve to means nothing */
    if (n || (windowed && !p->samples))
        return;
    if (!p->samples && p->ctx.selecting && p->ctx.skipped)
        return; /* said while reading */
    if (!p->samples)
        cli_msg_error("warning: '%s' has no samples: the output is empty", in);
    else if (kind != PROFILE_KIND_ALL && !p->total[kind].count)
        cli_msg_error("warning: '%s' has no %s samples%s: the output is empty", in,
                      render_kind_name(kind), windowed ? " in the window" : "");
    else
        cli_msg_error("warning: '%s': no %s samples match the selection: the output is empty", in,
                      render_kind_name(kind));
}
