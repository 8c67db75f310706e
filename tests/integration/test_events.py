#!/usr/bin/env python3
"""events: dev.flyprof.Events under -agentpath, checked event by event from the log itself
(test_wall_fpl's reader, which follows FORMAT.md without sharing code with the collector) and
through `flyprof summary` and `flyprof events`.

1. Four threads x 250,000 events (EventsLog threads 4 125000 5000): each iteration logs
   log(1), spins 5 us (measured by the workload with System.nanoTime), logs log(2, text(k, i)).
   Asserted per thread: recorded + dropped == 250,000 exactly; every recorded event sits at the
   position its drops say (n alternates 1, 2 from position 0; a string event's text names its
   iteration), so the order is kept and no event is lost uncounted; strings intact, non-ASCII,
   U+0000 and a surrogate pair included, cut to 63 UTF-16 units with the pair at 62-63 left
   out whole and the TRUNCATED flag exactly on those; times never go backwards; the median
   interval from 1 to 2 is within 10% of the median spin the workload measured. The summary's
   recorded / dropped / truncated and the `flyprof events` table (count and p50 of 1 -> 2) and
   CSV agree with the log.
2. A burst of 1,000,000 log(i) into a 64-event buffer that never waits (events=64,
   eventwait=0ns): far more than the writer can drain, so most are dropped; recorded + dropped
   == 1,000,000 exactly, each recorded i at the position its drops say, the trailing drops
   counted, and no call waited.
2b. A flood at the default buffer size and wait: 4 threads log 250,000 events each (every
   other one with a string) as fast as they can, far faster than the writer drains (each
   buffer would overflow about 19 times), and the log holds all 1,000,000: each thread's i =
   0, 1, 2, ... in order, none dropped, strings intact; the summary counts waits (the buffers
   did fill), and none ran out. flood_check() is shared with test_attach_events.py.
3. events=0: no EVENTS record at all. Without the agent: every call returns, nothing throws.
"""
import csv
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_wall_fpl as fpl  # noqa: E402

SUFFIX = ["One two three four", "\u00fcn\u00efc\u00f8d\u00e9", "\u20ac \u65e5\u672c\u8a9e",
          "clef \U0001d11e end", "nul\u0000byte"]
THREADS, ITERS, SPIN_NS = 4, 125_000, 5000


def text(k, i):
    """EventsLog.text(k, i)."""
    base = "T%d#%d " % (k, i)
    if i % 1000 == 999:
        return (base + "x" * (62 - len(base))) + "\U0001d11e tail"
    return base + SUFFIX[i % len(SUFFIX)]


def logged(s):
    """What the log must hold for s: its first 63 UTF-16 units, less a high surrogate left
    alone at the end; and whether it was cut."""
    u = s.encode("utf-16-le", errors="surrogatepass")
    cut = len(u) > 126
    u = u[:126]
    if cut and 0xD800 <= int.from_bytes(u[-2:], "little") <= 0xDBFF:
        u = u[:-2]
    return u.decode("utf-16-le", errors="surrogatepass"), cut


def by_thread(log):
    """{thread name: ([events in order], trailing drops)} (threads told apart by name: the
    workload's names are unique)."""
    out = {}
    for e in log.events:
        name = log.threads.get(e.thread_id, (0, "[unknown %d]" % e.thread_id))[1]
        out.setdefault(name, [[], 0])[0].append(e)
    for tid, n in log.event_drops:
        name = log.threads.get(tid, (0, "[unknown %d]" % tid))[1]
        out.setdefault(name, [[], 0])[1] += n
    return out


def check_worker(t, log, k, evs, trailing):
    """Positions, strings, flags and time order of one worker's events. Returns (recorded,
    dropped, truncated, [1 -> 2 intervals in ns])."""
    pos, last_ticks, dropped, truncated, intervals = -1, 0, trailing, 0, []
    prev = None
    for e in evs:
        pos += 1 + e.dropped
        dropped += e.dropped
        i, kind = divmod(pos, 2)
        t.check(e.n == 1 + kind, "ev-worker-%d: event at position %d is n=%d, want %d "
                "(order or drop count wrong)", k, pos, e.n, 1 + kind)
        t.check(e.ticks >= last_ticks, "ev-worker-%d: time goes backwards at position %d", k, pos)
        last_ticks = e.ticks
        if kind == 0:
            t.check(e.s is None and e.flags == (fpl.EVENT_DROPPED if e.dropped else 0),
                    "ev-worker-%d: log(1) at %d has flags %d / string %r", k, pos, e.flags, e.s)
        else:
            want, cut = logged(text(k, i))
            t.check(e.s == want, "ev-worker-%d: iteration %d logged %r, want %r", k, i, e.s, want)
            t.check(bool(e.flags & fpl.EVENT_TRUNCATED) == cut,
                    "ev-worker-%d: iteration %d: TRUNCATED is %s, want %s", k, i,
                    bool(e.flags & fpl.EVENT_TRUNCATED), cut)
            truncated += cut
            if prev is not None and prev.n == 1 and not e.dropped:
                intervals.append((log.seconds(e.ticks) - log.seconds(prev.ticks)) * 1e9)
        prev = e
    t.check(pos + 1 + trailing == 2 * ITERS, "ev-worker-%d: %d events recorded + %d dropped = %d,"
            " want %d", k, len(evs), dropped, pos + 1 + trailing, 2 * ITERS)
    return len(evs), dropped, truncated, intervals


def summary_events(t, path):
    r = t.flyprof("summary " + os.path.basename(path), ["summary", path])
    t.check(r.returncode == 0, "flyprof summary %s: exit status %s", path, r.returncode)
    m = re.search(r"recorded (\d+), dropped (\d+) .*truncated (\d+) .* on (\d+) threads",
                  r.stdout)
    t.check(m, "flyprof summary %s has no events line:\n%s", path, r.stdout[:1500])
    return tuple(int(x) for x in m.groups())


def test_threads(t):
    run, path = t.run_java("events_threads", "EventsLog", ["threads", THREADS, ITERS, SPIN_NS])
    spins = {}
    for line in run.stdout.splitlines():
        m = re.match(r"spin thread=(\S+) iterations=\d+ median_ns=(\d+)", line)
        if m:
            spins[m.group(1)] = int(m.group(2))
    t.check(len(spins) == THREADS, "the workload reported %d spin medians", len(spins))
    log = fpl.read_fpl(path)
    threads = by_thread(log)
    tot_rec = tot_drop = tot_trunc = 0
    all_intervals = []
    for k in range(THREADS):
        name = "ev-worker-%d" % k
        t.check(name in threads, "no events of %s; threads with events: %s", name,
                sorted(threads))
        evs, trailing = threads[name]
        rec, drop, trunc, iv = check_worker(t, log, k, evs, trailing)
        tot_rec, tot_drop, tot_trunc = tot_rec + rec, tot_drop + drop, tot_trunc + trunc
        all_intervals += iv
        t.check(len(iv) > ITERS // 10, "%s: only %d intervals 1 -> 2 without a drop", name,
                len(iv))
        med = statistics.median(iv)
        t.close_to(med, spins[name], 0.10 * spins[name],
                   "%s: median interval 1 -> 2 (ns) against the measured spin" % name)
    t.note("recorded %d, dropped %d, truncated %d of %d events", tot_rec, tot_drop, tot_trunc,
           THREADS * 2 * ITERS)
    t.check(tot_rec + tot_drop == THREADS * 2 * ITERS, "recorded + dropped != total")
    t.check(sorted(threads) == ["ev-worker-%d" % k for k in range(THREADS)],
            "events of other threads: %s", sorted(threads))

    rec, drop, trunc, nthreads = summary_events(t, path)
    t.check((rec, drop, trunc, nthreads) == (tot_rec, tot_drop, tot_trunc, THREADS),
            "summary says recorded %d, dropped %d, truncated %d, %d threads; the log holds %d, "
            "%d, %d, %d", rec, drop, trunc, nthreads, tot_rec, tot_drop, tot_trunc, THREADS)

    r = t.flyprof("events --table", ["events", path, "--table"])
    t.check(r.returncode == 0, "flyprof events --table: exit status %s", r.returncode)
    m = re.search(r"^\s+1\s+2\s+(\d+)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)$", r.stdout, re.M)
    t.check(m, "flyprof events --table has no 1 -> 2 row:\n%s", r.stdout)
    count, p50 = int(m.group(1)), int(m.group(3))
    t.check(count == len(all_intervals), "flyprof events: 1 -> 2 count %d, the log has %d",
            count, len(all_intervals))
    want = statistics.median(spins.values())
    t.close_to(p50, want, 0.10 * want, "flyprof events: p50 of 1 -> 2 (ns) against the spin")

    out = t.path("events.csv")
    r = t.flyprof("events -o csv --thread", ["events", path, "--thread", "worker-2$", "-o", out])
    t.check(r.returncode == 0, "flyprof events -o csv: exit status %s: %s", r.returncode,
            r.stderr)
    with open(out, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    evs2, trailing2 = threads["ev-worker-2"]
    t.check(len(rows) == len(evs2) + (1 if trailing2 else 0),
            "CSV of ev-worker-2: %d rows, the log has %d events", len(rows), len(evs2))
    t.check(all(r_["thread"] == "ev-worker-2" for r_ in rows), "CSV: rows of other threads")
    for j, e in enumerate(evs2):
        r_ = rows[j]
        want = (e.s or "").replace("\0", "_")  # the text outputs show U+0000 as '_'
        t.check(r_["n"] == str(e.n) and r_["string"] == want and
                r_["dropped_before"] == str(e.dropped),
                "CSV row %d of ev-worker-2: %r, the log has n=%d %r dropped %d", j, r_, e.n,
                e.s, e.dropped)
    t.note("flyprof events: 1 -> 2 count %d p50 %d ns; CSV %d rows", count, p50, len(rows))


def test_burst(t):
    n = 1_000_000
    _, path = t.run_java("events_burst", "EventsLog", ["burst", n],
                         agent_options="cpu=10ms,events=64,eventwait=0ns")
    log = fpl.read_fpl(path)
    threads = by_thread(log)
    t.check(list(threads) == ["ev-burst"], "burst: events of %s", sorted(threads))
    evs, trailing = threads["ev-burst"]
    pos, dropped = -1, trailing
    for e in evs:
        pos += 1 + e.dropped
        dropped += e.dropped
        t.check(e.n == pos, "burst: event at position %d is n=%d (drop count wrong)", pos, e.n)
    t.check(len(evs) + dropped == n and pos + 1 + trailing == n,
            "burst: %d recorded + %d dropped != %d", len(evs), dropped, n)
    t.check(len(evs) >= 64 and dropped > n // 2, "burst: %d recorded, %d dropped: the burst "
            "did not overflow its 64-event buffer", len(evs), dropped)
    rec, drop, _, _ = summary_events(t, path)
    t.check((rec, drop) == (len(evs), dropped), "burst: summary says %d recorded, %d dropped",
            rec, drop)
    t.check(summary_waits(t, path) == (0, 0), "burst: eventwait=0ns, yet calls waited")
    t.note("burst: %d recorded, %d dropped (%d after the last)", len(evs), dropped, trailing)


FLOOD_THREADS, FLOOD_ITERS = 4, 250_000


def summary_waits(t, path):
    """(calls that waited, waits that ran out) from flyprof summary's JSON."""
    r = t.flyprof("summary --json " + os.path.basename(path), ["summary", path, "--json"])
    t.check(r.returncode == 0, "flyprof summary --json %s: exit status %s: %s", path,
            r.returncode, r.stderr)
    e = json.loads(r.stdout)["events"]
    return e["waits"], e["wait_timeouts"]


def flood_check(t, path, what):
    """The flood's log: FLOOD_THREADS x FLOOD_ITERS events, each thread's in order, none
    dropped; calls waited (the buffers filled) and no wait ran out."""
    log = fpl.read_fpl(path)
    threads = by_thread(log)
    names = ["ev-flood-%d" % k for k in range(FLOOD_THREADS)]
    t.check(sorted(threads) == names, "%s: events of %s, want %s", what, sorted(threads), names)
    total = 0
    for name in names:
        evs, trailing = threads[name]
        t.check(trailing == 0, "%s: %s dropped %d events after its last", what, name, trailing)
        t.check(len(evs) == FLOOD_ITERS, "%s: %s has %d events, logged %d", what, name,
                len(evs), FLOOD_ITERS)
        for i, e in enumerate(evs):
            want_s = "One two three four" if i & 1 else None
            if e.n != i or e.dropped or e.s != want_s:
                t.check(False, "%s: %s's event %d is n=%d dropped=%d s=%r, want n=%d, none "
                        "dropped, s=%r", what, name, i, e.n, e.dropped, e.s, i, want_s)
                break
        total += len(evs)
    rec, drop, _, nthreads = summary_events(t, path)
    t.check((rec, drop, nthreads) == (FLOOD_THREADS * FLOOD_ITERS, 0, FLOOD_THREADS),
            "%s: summary says %d recorded, %d dropped on %d threads", what, rec, drop, nthreads)
    waits, timeouts = summary_waits(t, path)
    t.check(waits > 0, "%s: no call waited: the flood never filled a buffer, so it proves "
            "nothing", what)
    t.check(timeouts == 0, "%s: %d waits ran out", what, timeouts)
    t.note("%s: %d of %d events recorded in order, none dropped; %d calls waited", what, total,
           FLOOD_THREADS * FLOOD_ITERS, waits)


def test_flood(t):
    _, path = t.run_java("events_flood", "EventsLog", ["flood", FLOOD_THREADS, FLOOD_ITERS])
    flood_check(t, path, "flood")


def test_off(t):
    _, path = t.run_java("events_off", "EventsLog", ["burst", 10000],
                         agent_options="cpu=10ms,events=0")
    log = fpl.read_fpl(path)
    t.check(not log.events and not log.event_drops, "events=0: %d events in the log",
            len(log.events))
    run = t.run("events_noagent", [t.java, "-cp", t.jar, ft.WORKLOAD_PKG + "EventsLog",
                                   "noagent"], 120)
    t.check_jvm(run)
    t.check("result bound=false ok" in run.stdout, "no agent: %r", run.stdout[-300:])
    t.check(not run.stderr.strip(), "no agent: stderr says %r", run.stderr[-500:])
    t.note("events=0: no events; without the agent: 500,000 calls returned, bound=false")


def test_cli(t, path, empty):
    """flyprof events' usage errors (exit 2), failures (exit 1), help and warnings."""
    cases = [
        ([], 2, "no input log"),
        ([path, "--thread", "("], 2, "bad regular expression"),
        ([path, "-o", t.path("x.json")], 2, ".txt"),
        ([path, "--from", "2s", "--to", "1s"], 2, "empty time window"),
        ([path, "--from", "soon"], 2, "--from"),
        ([path, "--bogus"], 2, "unknown option '--bogus'"),
        ([path, path], 2, "one input log only"),
        ([t.path("missing.fpl")], 1, "missing.fpl"),
        (["--help"], 0, "flyprof events IN.fpl"),
        ([empty], 0, "has no events"),
    ]
    for args, code, needle in cases:
        r = t.flyprof("events " + " ".join(os.path.basename(a) for a in args),
                      ["events"] + args)
        t.check(r.returncode == code and needle in r.stdout + r.stderr,
                "flyprof events %s: exit %s (want %d), output lacks %r: %s", " ".join(args),
                r.returncode, code, needle, (r.stdout + r.stderr)[-600:])
    r = t.flyprof("--help", ["--help"])
    t.check(r.returncode == 0 and re.search(r"^\s+events\s", r.stdout, re.M),
            "flyprof --help lacks events")
    t.note("flyprof events: %d usage and error cases", len(cases))


def test(t):
    test_threads(t)
    test_burst(t)
    test_flood(t)
    test_off(t)
    test_cli(t, t.path("events_threads.fpl"), t.path("events_off.fpl"))


if __name__ == "__main__":
    ft.main(test, "dev.flyprof.Events with -agentpath: order, strings, drops, intervals")
