/* main.c: the flyprof command-line tool: record, convert, diff, summary. The only place in the
 * collector that prints; the library functions it calls return errors with messages.
 * Exit codes: 0 success, 1 failure, 2 usage error; record exits with the command's status.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <regex.h>

#include "attach.h"
#include "cli_msg.h"
#include "cmd_attach.h"
#include "cmd_hiccups.h"
#include "cmd_jitter.h"
#include "out_hiccups.h"
#include "profile.h"
#include "render.h"
#include "render_file.h"
#include "summary.h"

#define EXIT_USAGE 2
#define ERR_MAX 1024

static const char usage_text[] =
    "usage:\n"
    "  flyprof record [-e cpu|wall|cpu,wall] [-i TIME] [-o FILE] [-- AGENT_OPTIONS] -- COMMAND "
    "[ARGS...]\n"
    "      run a Java command with the flyprof agent (through JAVA_TOOL_OPTIONS)\n"
    "      -e   what to sample (default cpu)\n"
    "      -i   sampling interval, e.g. 5ms (ns, us, ms, s; default cpu 10ms, wall 50ms)\n"
    "      -o   output file, %p = pid, %t = start time (default flyprof-%p.fpl)\n"
    "      with two '--', the words between them are extra agent options\n"
    "  flyprof convert IN.fpl -o OUT [--format collapsed|html|pprof|txt] [SELECTION]\n"
    "      render a log; the format comes from OUT's extension (.collapsed or .folded, .html,\n"
    "      .pb.gz, .txt) or from --format; '-o -' writes to standard output\n"
    "  flyprof diff BASE.fpl NEW.fpl -o DIFF.html [SELECTION]\n"
    "      a differential flame graph: NEW's stacks colored by their change in share from BASE\n"
    "    SELECTION:\n"
    "      --kind cpu|wall|all   samples shown (default cpu when there are any, else wall)\n"
    "      --threads             one root per thread\n"
    "      --state STATE         only samples in this thread state (implies wall when there\n"
    "                            are wall samples): running, blocked, waiting, timed_waiting,\n"
    "                            parked, sleeping, native\n"
    "      --include RE          keep stacks with a frame (or thread) matching RE (POSIX ERE)\n"
    "      --exclude RE          drop stacks with a frame (or thread) matching RE\n"
    "      --from T, --to T      only samples from T up to T: seconds after the start (2.5,\n"
    "                            2.5s, 500ms, 2min) or clock time (14:03:05,\n"
    "                            2026-11-21T14:03:05, local time)\n"
    "      --reverse             callers view: leaf frames at the root\n"
    "      --title TEXT          the title of the output\n"
    "  flyprof summary IN.fpl\n"
    "      samples by kind, failures by cause, drops, hottest methods, threads, agent cost,\n"
    "      and with hiccup mode the longest stalls and their causes\n"
    CMD_ATTACH_USAGE
    CMD_HICCUPS_USAGE
    CMD_JITTER_USAGE
    "  flyprof -h | --help\n";

static void usage(FILE *f)
{
    fputs(usage_text, f);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "flyprof: <message>" and the usage to stderr; returns EXIT_USAGE. */
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_msg_verror(fmt, ap);
    va_end(ap);
    usage(stderr);
    return EXIT_USAGE;
}

static void bufprintf(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* snprintf where a result cut short is acceptable or checked by the caller. */
static void bufprintf(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

static int is_help(const char *a)
{
    return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

/* Matches "--name VALUE", "--name=VALUE" or "-n VALUE" at argv[*i]; advances *i over a
 * separate value. Returns 1 on a match (with *val set), 0 if no match, -1 if the value is
 * missing. */
static int opt_value(int argc, char **argv, int *i, const char *lng, const char *shrt,
                     const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(lng);
    if (strncmp(a, lng, n) == 0 && a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (strcmp(a, lng) != 0 && !(shrt && strcmp(a, shrt) == 0))
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *val = argv[++*i];
    return 1;
}

/* Warns on stderr about damage the reader met, so a converted output is not trusted blindly. */
static void warn_damage(const struct profile *p, const char *in)
{
    const struct reader_stats *s = &p->stats;
    if (s->chunks_damaged || s->chunks_lost || s->chunks_bad_framing || s->bad_records)
        cli_msg_error("warning: '%s' is damaged: %llu damaged regions skipped (%llu bytes), %llu "
               "chunks lost, %llu chunks ended early, %llu undecodable records skipped; their "
               "samples are missing",
               in, (unsigned long long)s->chunks_damaged, (unsigned long long)s->bytes_skipped,
               (unsigned long long)s->chunks_lost, (unsigned long long)s->chunks_bad_framing,
               (unsigned long long)s->bad_records);
    if (!p->end_seen)
        cli_msg_error("warning: '%s' has no END record: it was cut off (crash) or is still being "
               "written",
               in);
}

/* The selection options convert and diff share, as given. */
struct sel_args {
    const char *out, *format, *kind, *state, *include, *exclude, *from, *to, *title;
    int threads, reverse;
};

/* Matches a selection option at argv[*i] (advancing over its value). Returns 1 when matched,
 * 0 when not, or -1 after printing a usage error. */
static int sel_option(const char *cmd, int argc, char **argv, int *i, struct sel_args *a)
{
    static const struct {
        const char *lng, *shrt, *what;
        size_t off;
    } valued[] = {
        {"--output", "-o", "a file", offsetof(struct sel_args, out)},
        {"--format", NULL, "a format (" RENDER_FILE_FORMAT_NAMES ")",
         offsetof(struct sel_args, format)},
        {"--kind", NULL, "cpu, wall or all", offsetof(struct sel_args, kind)},
        {"--state", NULL, "a state (" RENDER_STATE_NAMES ")", offsetof(struct sel_args, state)},
        {"--include", NULL, "a regular expression", offsetof(struct sel_args, include)},
        {"--exclude", NULL, "a regular expression", offsetof(struct sel_args, exclude)},
        {"--from", NULL, "a time such as 2.5s or 14:03:05", offsetof(struct sel_args, from)},
        {"--to", NULL, "a time such as 2.5s or 14:03:05", offsetof(struct sel_args, to)},
        {"--title", NULL, "a text", offsetof(struct sel_args, title)},
    };
    if (strcmp(argv[*i], "--threads") == 0) {
        a->threads = 1;
        return 1;
    }
    if (strcmp(argv[*i], "--reverse") == 0) {
        a->reverse = 1;
        return 1;
    }
    for (size_t k = 0; k < sizeof(valued) / sizeof(valued[0]); k++) {
        const char *v = NULL;
        const char *opt = argv[*i];
        int m = opt_value(argc, argv, i, valued[k].lng, valued[k].shrt, &v);
        if (m == 0)
            continue;
        if (m < 0) {
            usage_error("%s: %s needs %s", cmd, opt, valued[k].what);
            return -1;
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
    return usage_error("%s: %s: bad regular expression '%s': %s (POSIX extended syntax)", cmd, opt,
                       re, msg);
}

/* Turns the selection options into render options and window bounds; prints usage errors.
 * Returns 0 or EXIT_USAGE. */
static int sel_parse(const char *cmd, const struct sel_args *a, struct render_opts *o,
                     struct profile_time *from, struct profile_time *to)
{
    char err[ERR_MAX];
    int rc;

    memset(o, 0, sizeof(*o));
    o->kind = PROFILE_KIND_AUTO;
    o->state = RENDER_STATE_ALL;
    o->threads = a->threads;
    o->reverse = a->reverse;
    o->include = a->include;
    o->exclude = a->exclude;
    o->title = a->title;
    if (a->kind) {
        if (strcmp(a->kind, "cpu") == 0)
            o->kind = FPL_KIND_CPU;
        else if (strcmp(a->kind, "wall") == 0)
            o->kind = FPL_KIND_WALL;
        else if (strcmp(a->kind, "all") == 0)
            o->kind = PROFILE_KIND_ALL;
        else
            return usage_error("%s: unknown kind '%s': use cpu, wall or all", cmd, a->kind);
    }
    if (a->state && (o->state = render_state_parse(a->state)) < 0)
        return usage_error("%s: unknown state '%s': use one of %s", cmd, a->state,
                           RENDER_STATE_NAMES);
    if (a->include && (rc = check_regex(cmd, "--include", a->include)) != 0)
        return rc;
    if (a->exclude && (rc = check_regex(cmd, "--exclude", a->exclude)) != 0)
        return rc;
    from->kind = to->kind = PROFILE_TIME_NONE;
    if (a->from && profile_time_parse(a->from, from, err, sizeof(err)) != 0)
        return usage_error("%s: --from: %s", cmd, err);
    if (a->to && profile_time_parse(a->to, to, err, sizeof(err)) != 0)
        return usage_error("%s: --to: %s", cmd, err);
    if (a->from && a->to && from->kind == to->kind && from->ns >= to->ns)
        return usage_error("%s: empty time window: --from %s is not before --to %s", cmd, a->from,
                           a->to);
    return 0;
}

/* Reads a log with the window; warns about damage and about what the window left out.
 * Returns the profile, or NULL after printing why. */
static struct profile *read_log(const char *in, const struct profile_time *from,
                                const struct profile_time *to)
{
    char err[ERR_MAX];
    struct profile *p = profile_new();
    if (!p) {
        cli_msg_error("out of memory");
        return NULL;
    }
    if (profile_set_window_times(p, from, to, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        profile_free(p);
        return NULL;
    }
    if (profile_read_file(p, in, err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        profile_free(p);
        return NULL;
    }
    warn_damage(p, in);
    const struct profile_window *w = &p->window;
    if (w->set && !w->resolved)
        cli_msg_error("warning: '%s' has no clock information (header lost): --from/--to cannot be "
               "placed, no samples are selected",
               in);
    else if (w->untimed)
        cli_msg_error("warning: '%s': %llu samples read before any clock information were left out "
               "of the window",
               in, (unsigned long long)w->untimed);
    if (w->set && w->resolved && !p->samples) {
        char a[48] = "", b[48] = "";
        if (w->has_from)
            bufprintf(a, sizeof(a), " from %.3f s", (double)w->from_ns / 1e9);
        if (w->has_to)
            bufprintf(b, sizeof(b), " to %.3f s", (double)w->to_ns / 1e9);
        cli_msg_error("warning: '%s' has no samples in the window%s%s after its start (%llu samples "
               "outside it)",
               in, a, b, (unsigned long long)w->skipped);
    }
    return p;
}

/* Warns when the selection finds nothing to show. */
static void warn_empty(const struct profile *p, const char *in, const struct render_opts *o)
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
    if (n)
        return;
    if (kind != PROFILE_KIND_ALL && !p->total[kind].count)
        cli_msg_error("warning: '%s' has no %s samples: the output is empty", in, render_kind_name(kind));
    else if (p->samples)
        cli_msg_error("warning: '%s': no %s samples match the selection: the output is empty", in,
               render_kind_name(kind));
}

static int cmd_convert(int argc, char **argv)
{
    const char *in = NULL;
    struct sel_args a = {0};
    struct render_opts o;
    struct profile_time from, to;
    char err[ERR_MAX];
    int rc;

    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            usage(stdout);
            return 0;
        } else if ((rc = sel_option("convert", argc, argv, &i, &a)) != 0) {
            if (rc < 0)
                return EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("convert: unknown option '%s'", argv[i]);
        } else if (in) {
            return usage_error("convert: one input log only ('%s' and '%s')", in, argv[i]);
        } else {
            in = argv[i];
        }
    }
    if (!in)
        return usage_error("convert: no input log");
    if (!a.out)
        return usage_error("convert: no output: add -o OUT (%s; or -o - for stdout)",
                           RENDER_FILE_EXTENSIONS);
    if ((rc = sel_parse("convert", &a, &o, &from, &to)) != 0)
        return rc;
    if (render_file_format(a.out, a.format, err, sizeof(err)) < 0)
        return usage_error("convert: %s", err);

    struct profile *p = read_log(in, &from, &to);
    if (!p)
        return 1;
    warn_empty(p, in, &o);
    rc = render_file_write(p, &o, a.out, a.format, err, sizeof(err));
    if (rc)
        cli_msg_error("%s", err);
    profile_free(p);
    return rc ? 1 : 0;
}

static int cmd_diff(int argc, char **argv)
{
    const char *in[2] = {NULL, NULL};
    struct sel_args a = {0};
    struct render_opts o;
    struct profile_time from, to;
    char err[ERR_MAX];
    int rc, n = 0;

    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            usage(stdout);
            return 0;
        } else if ((rc = sel_option("diff", argc, argv, &i, &a)) != 0) {
            if (rc < 0)
                return EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("diff: unknown option '%s'", argv[i]);
        } else if (n == 2) {
            return usage_error("diff: two logs only, BASE and NEW ('%s' is a third)", argv[i]);
        } else {
            in[n++] = argv[i];
        }
    }
    if (n < 2)
        return usage_error("diff: needs two logs: BASE.fpl NEW.fpl");
    if (!a.out)
        return usage_error("diff: no output: add -o DIFF.html");
    if ((rc = sel_parse("diff", &a, &o, &from, &to)) != 0)
        return rc;
    const char *format = a.format ? a.format : strcmp(a.out, "-") ? NULL : "html";
    int fmt = render_file_format(a.out, format, err, sizeof(err));
    if (fmt < 0)
        return usage_error("diff: %s", err);
    if (fmt != RENDER_FILE_HTML)
        return usage_error("diff: the output is an html flame graph: name it with .html ('%s')",
                           a.out);

    struct profile *base = read_log(in[0], &from, &to);
    if (!base)
        return 1;
    struct profile *cur = read_log(in[1], &from, &to);
    if (!cur) {
        profile_free(base);
        return 1;
    }
    warn_empty(base, in[0], &o);
    warn_empty(cur, in[1], &o);
    rc = render_file_write_diff(base, cur, &o, a.out, a.format, err, sizeof(err));
    if (rc)
        cli_msg_error("%s", err);
    profile_free(base);
    profile_free(cur);
    return rc ? 1 : 0;
}

static int cmd_summary(int argc, char **argv)
{
    const char *in = NULL;
    char err[ERR_MAX];

    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            usage(stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return usage_error("summary: unknown option '%s'", argv[i]);
        } else if (in) {
            return usage_error("summary: one input log only ('%s' and '%s')", in, argv[i]);
        }
        in = argv[i];
    }
    if (!in)
        return usage_error("summary: no input log");
    struct profile *p = profile_new();
    if (!p) {
        cli_msg_error("out of memory");
        return 1;
    }
    int rc = profile_read_file(p, in, err, sizeof(err));
    if (rc == 0 && ((rc = summary_write(p, in, stdout, err, sizeof(err))) != 0 ||
                    (rc = out_hiccups_summary(stdout, p, in, err, sizeof(err))) != 0))
        cli_msg_error("writing the summary: %s", err);
    else if (rc)
        cli_msg_error("%s", err);
    profile_free(p);
    return rc ? 1 : 0;
}

/* Appends text to buf[0..cap) at *len; -ENAMETOOLONG when it does not fit. */
static int append(char *buf, size_t cap, size_t *len, const char *text)
{
    size_t n = strlen(text);
    if (n >= cap - *len)
        return -ENAMETOOLONG;
    memcpy(buf + *len, text, n + 1);
    *len += n;
    return 0;
}

/* The JVM splits JAVA_TOOL_OPTIONS at white space and honours '...' and "..." quotes; a token
 * with either gets quoted. Returns 0, or -EINVAL when it holds both kinds of quote. */
static int quote_token(const char *tok, char *out, size_t cap)
{
    size_t len = 0;
    const char *q = "";

    out[0] = 0;
    if (strpbrk(tok, " \t\n\r\f\v'\"")) {
        q = strchr(tok, '"') ? "'" : "\"";
        if (strchr(tok, q[0]))
            return -EINVAL;
    }
    if (append(out, cap, &len, q) || append(out, cap, &len, tok) || append(out, cap, &len, q))
        return -ENAMETOOLONG;
    return 0;
}

/* Expands the agent's file template as the agent will: %p the pid, %t the start time
 * (YYYYmmdd-HHMMSS, local), %% a '%'. */
static void expand_file(const char *tmpl, long pid, time_t start, char *out, size_t cap)
{
    size_t j = 0;
    for (const char *s = tmpl; *s && j + 1 < cap; s++) {
        char piece[32] = {s[0], 0};
        if (s[0] == '%' && s[1] == 'p') {
            snprintf(piece, sizeof(piece), "%ld", pid);
            s++;
        } else if (s[0] == '%' && s[1] == 't') {
            struct tm tm;
            if (!localtime_r(&start, &tm) || !strftime(piece, sizeof(piece), "%Y%m%d-%H%M%S", &tm))
                piece[0] = 0;
            s++;
        } else if (s[0] == '%' && s[1] == '%') {
            s++;
        }
        size_t n = strlen(piece);
        if (n >= cap - j)
            break;
        memcpy(out + j, piece, n);
        j += n;
    }
    out[j] = 0;
}

/* Finds the output the agent wrote: with %t in the template, the start time is some second
 * between the launch and now, so each is tried. Returns 1 and the path in out if found. */
static int find_output(const char *tmpl, long pid, time_t launched, char *out, size_t cap)
{
    struct stat sb;
    time_t now = time(NULL);
    if (!strstr(tmpl, "%t")) {
        expand_file(tmpl, pid, launched, out, cap);
        return stat(out, &sb) == 0;
    }
    for (time_t t = launched - 1; t <= now + 1; t++) {
        expand_file(tmpl, pid, t, out, cap);
        if (stat(out, &sb) == 0)
            return 1;
    }
    expand_file(tmpl, pid, launched, out, cap);
    return 0;
}

static volatile sig_atomic_t child_pid;

/* Forwards a signal sent to flyprof (kill, a supervisor) to the command. A signal from the
 * terminal (Ctrl-C, Ctrl-\, hangup: si_code SI_KERNEL) already reached the whole foreground
 * process group, the command included; sending it twice would make a JVM see two interrupts
 * or print two thread dumps. Either way flyprof itself stays to report where the profile is. */
static void forward_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved = errno;
    if (child_pid > 0 && si->si_code != SI_KERNEL)
        kill((pid_t)child_pid, sig);
    errno = saved;
}

/* The agent library next to this binary: <dir of the executable>/../lib/libflyprof.so. */
static int cmd_record(int argc, char **argv)
{
    const char *events = "cpu", *interval = NULL, *file = "flyprof-%p.fpl";
    int i, first_sep = -1, second_sep = -1;
    char err[ERR_MAX], lib[PATH_MAX], abs_file[PATH_MAX], opts[8192], tok[PATH_MAX + 8300];
    size_t olen = 0;

    for (i = 1; i < argc; i++) {
        const char *v = NULL;
        int m;
        if (strcmp(argv[i], "--") == 0) {
            first_sep = i;
            break;
        }
        if (is_help(argv[i])) {
            usage(stdout);
            return 0;
        } else if ((m = opt_value(argc, argv, &i, "--event", "-e", &v)) != 0) {
            if (m < 0)
                return usage_error("record: -e needs cpu, wall or cpu,wall");
            events = v;
        } else if ((m = opt_value(argc, argv, &i, "--interval", "-i", &v)) != 0) {
            if (m < 0)
                return usage_error("record: -i needs a TIME such as 10ms");
            interval = v;
        } else if ((m = opt_value(argc, argv, &i, "--output", "-o", &v)) != 0) {
            if (m < 0)
                return usage_error("record: -o needs a file");
            file = v;
        } else {
            return usage_error("record: unknown option '%s' (the command goes after '--')",
                               argv[i]);
        }
    }
    if (first_sep < 0)
        return usage_error("record: no command: put it after '--'");
    for (i = first_sep + 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            second_sep = i;
            break;
        }
    }
    int cmd_at = (second_sep >= 0 ? second_sep : first_sep) + 1;
    if (cmd_at >= argc)
        return usage_error("record: no command after '--'");

    int cpu = 0, wall = 0;
    if (!strcmp(events, "cpu"))
        cpu = 1;
    else if (!strcmp(events, "wall"))
        wall = 1;
    else if (!strcmp(events, "cpu,wall") || !strcmp(events, "wall,cpu"))
        cpu = wall = 1;
    else
        return usage_error("record: unknown event '%s': use cpu, wall or cpu,wall", events);
    if (interval && !attach_valid_time(interval))
        return usage_error("record: bad interval '%s': use a TIME such as 10ms (units ns, us, "
                           "ms, s)",
                           interval);
    if (strchr(file, ','))
        return usage_error("record: output file '%s' contains a comma, which separates agent "
                           "options: choose a name without one",
                           file);
    if (!*file)
        return usage_error("record: empty output file name");

    if (attach_find_agent(lib, sizeof(lib), err, sizeof(err)) != 0) {
        cli_msg_error("%s", err);
        return 1;
    }
    if (file[0] == '/') {
        if (strlen(file) >= sizeof(abs_file)) {
            cli_msg_error("output path too long: '%s'", file);
            return 1;
        }
        bufprintf(abs_file, sizeof(abs_file), "%s", file);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof(cwd))) {
            cli_msg_error("cannot get the current directory: %s", strerror(errno));
            return 1;
        }
        if ((size_t)snprintf(abs_file, sizeof(abs_file), "%s/%s", cwd, file) >= sizeof(abs_file)) {
            cli_msg_error("output path too long: '%s/%s'", cwd, file);
            return 1;
        }
    }
    opts[0] = 0;
    int bad = 0;
    for (int k = 0; k < 2; k++) {
        if (!(k == 0 ? cpu : wall))
            continue;
        bad |= olen && append(opts, sizeof(opts), &olen, ",");
        bad |= append(opts, sizeof(opts), &olen, k == 0 ? "cpu=" : "wall=");
        bad |= append(opts, sizeof(opts), &olen, interval ? interval : k == 0 ? "10ms" : "50ms");
    }
    bad |=
        append(opts, sizeof(opts), &olen, ",file=") || append(opts, sizeof(opts), &olen, abs_file);
    for (i = first_sep + 1; second_sep >= 0 && i < second_sep; i++)
        bad |= append(opts, sizeof(opts), &olen, ",") || append(opts, sizeof(opts), &olen, argv[i]);
    if (bad) {
        cli_msg_error("agent options too long");
        return 1;
    }

    char agentarg[sizeof(lib) + sizeof(opts) + 16];
    bufprintf(agentarg, sizeof(agentarg), "-agentpath:%s=%s", lib, opts);
    int qrc = quote_token(agentarg, tok, sizeof(tok));
    if (qrc == -EINVAL) {
        cli_msg_error("cannot pass '%s' through JAVA_TOOL_OPTIONS: it holds both ' and \"", agentarg);
        return 1;
    } else if (qrc) {
        cli_msg_error("agent options too long");
        return 1;
    }
    const char *old = getenv("JAVA_TOOL_OPTIONS");
    size_t envlen = (old ? strlen(old) + 1 : 0) + strlen(tok) + 1;
    char *env = malloc(envlen);
    if (!env) {
        cli_msg_error("out of memory");
        return 1;
    }
    snprintf(env, envlen, "%s%s%s", old && *old ? old : "", old && *old ? " " : "", tok);
    if (setenv("JAVA_TOOL_OPTIONS", env, 1) != 0) {
        cli_msg_error("cannot set JAVA_TOOL_OPTIONS: %s", strerror(errno));
        free(env);
        return 1;
    }
    free(env);

    /* signals stay blocked until the handler knows the child, so none is lost or misrouted */
    static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    sigset_t block, saved;
    sigemptyset(&block);
    for (size_t k = 0; k < sizeof(forwarded) / sizeof(forwarded[0]); k++)
        sigaddset(&block, forwarded[k]);
    sigprocmask(SIG_BLOCK, &block, &saved);
    fflush(NULL);
    time_t launched = time(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        cli_msg_error("cannot fork: %s", strerror(errno));
        sigprocmask(SIG_SETMASK, &saved, NULL);
        return 1;
    }
    if (pid == 0) {
        sigprocmask(SIG_SETMASK, &saved, NULL);
        execvp(argv[cmd_at], argv + cmd_at);
        int e = errno;
        cli_msg_error("cannot run '%s': %s", argv[cmd_at], strerror(e));
        _exit(e == ENOENT ? 127 : 126);
    }
    child_pid = pid;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = forward_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < sizeof(forwarded) / sizeof(forwarded[0]); k++)
        sigaction(forwarded[k], &sa, NULL);
    sigprocmask(SIG_SETMASK, &saved, NULL);

    int status, code;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            cli_msg_error("waiting for '%s': %s", argv[cmd_at], strerror(errno));
            return 1;
        }
    }
    if (WIFEXITED(status))
        code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        code = 128 + WTERMSIG(status);
    else
        code = 1;

    char found[PATH_MAX];
    if (find_output(abs_file, (long)pid, launched, found, sizeof(found)))
        cli_msg_error("profile written to %s", found);
    else
        cli_msg_error("warning: no profile at '%s' (%%p is the pid of the command, %ld: a JVM started "
               "by a wrapper script has another; see the JVM's messages above)",
               found, (long)pid);
    return code;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("no command given");
    const char *cmd = argv[1];
    if (is_help(cmd)) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "convert") == 0)
        return cmd_convert(argc - 1, argv + 1);
    if (strcmp(cmd, "diff") == 0)
        return cmd_diff(argc - 1, argv + 1);
    if (strcmp(cmd, "summary") == 0)
        return cmd_summary(argc - 1, argv + 1);
    if (strcmp(cmd, "record") == 0)
        return cmd_record(argc - 1, argv + 1);
    if (strcmp(cmd, "hiccups") == 0)
        return cmd_hiccups_run(argc - 1, argv + 1);
    if (strcmp(cmd, "jitter") == 0)
        return cmd_jitter_run(argc - 1, argv + 1);
    if (cmd_attach_is_command(cmd))
        return cmd_attach_main(argc - 1, argv + 1);
    return usage_error("unknown command '%s'", cmd);
}
