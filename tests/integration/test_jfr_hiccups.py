#!/usr/bin/env python3
"""jfr_hiccups: hiccup mode's stalls and GC pauses in JFR, as flyprof.Stall and
flyprof.GCPause events (start time, duration; a stall's probe), read by the JDK's `jfr`.

GcPauses (SerialGC, 300 MB live, forced full collections) runs under hiccup,stall=5ms with
-Xlog:gc, as test_hiccups.py's gc case. The log is converted to JFR and read back with
`jfr print --json` of the JDK under test. Asserted:
- flyprof.Stall events are the stalls `flyprof hiccups --stalls` lists: as many, each with
  the same probe, start (within 1 us) and duration (within 1 us);
- flyprof.GCPause events: as many as the pauses -Xlog:gc printed, and their total length
  within 20% of the logged total (the JVM's log has ms precision);
- the sample events are unaffected: jdk.ExecutionSample folds into exactly the folded output.
"""
import csv
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import jfr_common as jc  # noqa: E402
import test_hiccups as th  # noqa: E402

US = 1000


def epoch_ns(iso):
    """ns since the epoch of "2026-11-27T06:13:32.172342517Z" (any number of digits)."""
    import datetime
    day, _, rest = iso.rstrip("Z").partition("T")
    hms, _, frac = rest.partition(".")
    base = datetime.datetime.strptime(day + "T" + hms, "%Y-%m-%dT%H:%M:%S")
    sec = int(base.replace(tzinfo=datetime.timezone.utc).timestamp())
    return sec * 10**9 + int((frac + "000000000")[:9])


def span_ns(iso):
    """ns of an ISO-8601 duration as `jfr print --json` writes one ("PT0.012345678S")."""
    m = re.match(r"^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d+))?S)?$", iso)
    if not m:
        raise ValueError("duration %r" % iso)
    h, mi, s, frac = m.groups()
    ns = (int(h or 0) * 3600 + int(mi or 0) * 60 + int(s or 0)) * 10**9
    return ns + int(((frac or "") + "000000000")[:9])


def test(t):
    _, fpl = t.run_java("gc", "GcPauses", [300, 4, 400], agent_options="hiccup,stall=5ms",
                        jvm_options=th.GC_OPTS + th.gc_log_opts(t, "gc"))
    pauses = th.logged_pauses(t, "gc")
    st = t.path("gc.stalls.csv")
    r = t.flyprof("hiccups --stalls", ["hiccups", fpl, "--stalls", st])
    t.check(r.returncode == 0, "flyprof hiccups failed: %s", r.stderr)
    with open(st) as f:
        stalls = sorted((int(s["start"]), int(s["duration_ns"]), s["probe"])
                        for s in csv.DictReader(f))

    jfr = jc.convert_jfr(t, fpl, [], "gc")
    r = t.run("jfr print stalls", [jc.jdk_bin(t, "jfr"), "print", "--json", "--events",
                                   "flyprof.Stall,flyprof.GCPause", jfr], 300)
    t.check(r.returncode == 0, "jfr print failed: %s", r.stderr[-1000:])
    import json
    events = json.loads(r.stdout)["recording"]["events"]
    jstalls = sorted((epoch_ns(e["values"]["startTime"]), span_ns(e["values"]["duration"]),
                      e["values"]["probe"]) for e in events if e["type"] == "flyprof.Stall")
    jgcs = [span_ns(e["values"]["duration"]) for e in events if e["type"] == "flyprof.GCPause"]
    t.note("stalls: %d listed, %d in the JFR; GC pauses: %d logged, %d in the JFR",
           len(stalls), len(jstalls), len(pauses), len(jgcs))
    t.check(stalls, "no stall in a run with forced full collections")
    t.check(len(jstalls) == len(stalls), "%d flyprof.Stall events, hiccups lists %d stalls",
            len(jstalls), len(stalls))
    # pair them probe by probe: the Java and OS probes' stalls of one wake-up start at the
    # same tick, and JFR's rounding of the durations may order such a pair the other way
    by_probe = lambda s: (s[2], s[0], s[1])  # noqa: E731
    for a, b in zip(sorted(jstalls, key=by_probe), sorted(stalls, key=by_probe)):
        t.check(a[2] == b[2] and abs(a[0] - b[0]) <= US and abs(a[1] - b[1]) <= US,
                "stall in the JFR %s, listed %s", a, b)
    t.check(len(jgcs) == len(pauses), "%d flyprof.GCPause events, -Xlog:gc shows %d pauses",
            len(jgcs), len(pauses))
    logged = sum(d for _, _, d in pauses)
    t.close_to(sum(jgcs) / 1e6, logged / 1e6, 0.2 * logged / 1e6 + 1,
               "GC pause time in the JFR (ms)")

    seen, _, _ = jc.jdk_fold(t, jfr)
    jc.same(t, seen, jc.folded(t, fpl, [], "gc"), "samples beside the hiccup events")


if __name__ == "__main__":
    ft.main(test, "hiccup stalls and GC pauses in JFR")
