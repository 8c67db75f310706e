/* cmd_events.h: `flyprof events IN.fpl`: the events a program logged with dev.flyprof.Events,
 * per thread and in order, and the intervals between consecutive events. Prints (the listing
 * on stdout or into -o FILE, warnings and errors on stderr) and returns the exit code: 0
 * success, 1 failure, 2 usage error. CLI main thread.
 */
#ifndef CMD_EVENTS_H
#define CMD_EVENTS_H

/* Its part of `flyprof --help`. */
#define CMD_EVENTS_USAGE                                                                           \
    "  flyprof events IN.fpl [--thread RE] [--from T] [--to T] [--table] [-o FILE.txt|FILE.csv]\n" \
    "      the events logged with dev.flyprof.Events: per thread and in order, each event's\n"     \
    "      time since the first event and distance from the thread's previous one in ns, n\n"      \
    "      and the string; then count, min, p50, p99 and max of the interval for each pair of\n"   \
    "      consecutive event numbers (n -> next n on the same thread)\n"                           \
    "      --thread RE   only threads whose name matches RE (POSIX ERE)\n"                         \
    "      --from, --to  only events in this time window (as for convert)\n"                       \
    "      --table       only the interval table\n"                                                \
    "      -o FILE       write there (.txt: text, .csv: one row per event); default stdout\n"

/* Runs `flyprof events` with argv[0] == "events". */
int cmd_events_main(int argc, char **argv);

#endif
