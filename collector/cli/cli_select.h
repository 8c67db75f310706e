/* cli_select.h: the selection options convert and diff share (--kind, --threads, --state,
 * --include, --exclude, --from, --to, --reverse, --title, and -o / --format), and reading a
 * log with the warnings a user needs about it (damage, a window or selection that holds
 * nothing). Prints usage errors and warnings. CLI main thread.
 */
#ifndef CLI_SELECT_H
#define CLI_SELECT_H

#include "profile.h"
#include "render.h"

/* The options as given. */
struct cli_select {
    const char *out, *format, *kind, *state, *include, *exclude, *from, *to, *title, *thread;
    const char *endpoint, *span, *root_span; /* trace context (dev.flyprof.Context) */
    int threads, reverse, raw_names, no_states, annotate;
    int cells_by_context; /* set by the command: the output shows each sample's context */
    int timeline;         /* set by the command: the output shows time (profile_want_timeline) */
    int spill;            /* set by the command: the output puts each sample at its own time
                           * (profile_want_spill; without a temporary file, the timeline's) */
    int kept;             /* set by the command: one output event per alloc/lock/live sample
                           * (profile_want_kept) */
};

/* Their part of a command's help (the "selection:" block). */
#define CLI_SELECT_HELP                                                                            \
    "selection:\n"                                                                                 \
    "  --kind cpu|wall|all   samples shown (default cpu if any, else wall; a page: every\n"        \
    "                        kind the log has); all weighs both in ns, as time\n"                  \
    "  --threads             one root frame per thread\n"                                          \
    "  --state STATE         wall samples in one state: running, blocked, waiting,\n"              \
    "                        timed_waiting, parked, sleeping, native, jvm_idle\n"                  \
    "  --include RE          keep (--exclude RE: drop) stacks with a frame matching RE\n"          \
    "                        (POSIX ERE; with --threads a thread's name counts as a frame)\n"      \
    "  --thread RE           only the threads whose name matches RE\n"                             \
    "  --from T, --to T      a window: seconds after the start (2.5, 500ms, 2min) or a clock\n"    \
    "                        time (14:03:05, 2026-11-21T14:03:05)\n"                               \
    "  --endpoint RE         only requests whose endpoint matches RE (reads IN twice)\n"           \
    "  --span ID             one span's samples; --root-span ID: one request's, on every\n"        \
    "                        thread (IDs decimal, or hex with 0x)\n"                               \
    "  --reverse             callers view: leaf frames at the root\n"                              \
    "  --no-states           wall samples without their thread-state frame ([sleeping], ...)\n"    \
    "  --annotate            folded: how frames ran, _[j] compiled, _[i] inlined,\n"               \
    "                        _[0] interpreted, _[1] C1, _[k] kernel (flamegraph.pl's java)\n"      \
    "  --title TEXT          the title of the output\n"                                            \
    "  --raw-names           frame names as logged: Demo$$Lambda$5/0x0000000800c01a10 (two\n" \
    "                        runs no longer merge)\n"

/* Matches a selection option (or -o / --output, --format) at argv[*i], advancing over its
 * value. Returns 1 when matched, 0 when not, or CLI_EXIT_USAGE after printing a usage error. */
int cli_select_option(const char *cmd, int argc, char **argv, int *i, struct cli_select *a);

/* Turns the options into render options and window bounds; prints usage errors. Returns 0 or
 * CLI_EXIT_USAGE. */
int cli_select_parse(const char *cmd, const struct cli_select *a, struct render_opts *o,
                     struct profile_time *from, struct profile_time *to);

/* Reads the log in with the window and the context selection of a (frame names as logged
 * with raw_names; the samples' times kept when a->timeline is set); warns about damage and
 * about what the window or selection left out. A window (--from/--to) that leaves out every
 * sample of the log is an error, said with when the samples were: an output of nothing would
 * look like a profile. Returns the profile, or NULL after printing why. */
struct profile *cli_select_read(const char *in, const struct cli_select *a,
                                const struct profile_time *from, const struct profile_time *to);

/* cli_select_read of several logs read as one profile (profile_read_files): the messages name
 * the first "(and N more)". */
struct profile *cli_select_read_logs(const char *const *ins, size_t nin,
                                     const struct cli_select *a, const struct profile_time *from,
                                     const struct profile_time *to);

/* Warns when o selects nothing of p (read from in). */
void cli_select_warn_empty(const struct profile *p, const char *in, const struct render_opts *o);

#endif
