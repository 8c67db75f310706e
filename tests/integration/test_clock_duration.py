#!/usr/bin/env python3
"""clock_duration: the log's clock and time base, on both clocks, and `duration=`.

1. With the TSC (the default here) and with the CLOCK_MONOTONIC fallback (forced with
   FLYPROF_CLOCK=monotonic), a CpuBound run of 1.5 s of CPU per thread: the summary names the
   clock, its duration lies between the workload's and the JVM's, and the sample times are
   placed right:
   `--to` half the duration keeps about half of the steady workload's weight. A reader that
   mixed up ticks and nanoseconds, or a fallback that stamped wrongly, fails here.
2. `duration=1s` on a 4 s workload: profiling stops on time and the log is complete (END
   written, not cut off) although the JVM runs on.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402


def summary(t, fpl):
    r = t.flyprof("summary", ["summary", fpl])
    t.check(r.returncode == 0, "summary of %s failed: %s", fpl, r.stderr)
    return r.stdout


def duration_of(t, text):
    m = re.search(r"^\s*duration\s+([0-9.]+) s", text, re.M)
    t.check(m is not None, "summary has no duration line")
    return float(m.group(1)) if m else 0.0


def weight(t, fpl, extra):
    out = t.path("w%d.collapsed" % len(t.runs))
    r = t.flyprof("convert", ["convert", fpl, "-o", out, "--kind", "cpu"] + extra)
    t.check(r.returncode == 0, "convert %s failed: %s", extra, r.stderr)
    total = 0
    with open(out, encoding="utf-8") as f:
        for line in f:
            total += int(line.rsplit(" ", 1)[1])
    return total


def test(t):
    for clock in ("tsc", "monotonic"):
        env_before = os.environ.get("FLYPROF_CLOCK")
        if clock == "monotonic":
            os.environ["FLYPROF_CLOCK"] = "monotonic"
        try:
            # 1.5 s of CPU per thread, however long that takes on a loaded machine: 300 samples
            r, fpl = t.run_java("clock_" + clock, "CpuBound", ["1.5", "2", "cpu"])
        finally:
            if env_before is None:
                os.environ.pop("FLYPROF_CLOCK", None)
            else:
                os.environ["FLYPROF_CLOCK"] = env_before
        text = summary(t, fpl)
        m = re.search(r"^\s*clock\s+(\w+)", text, re.M)
        seen = m.group(1) if m else None
        if clock == "monotonic":
            t.check(seen == "monotonic", "FLYPROF_CLOCK=monotonic: summary says clock %s", seen)
        else:
            t.check(seen in ("tsc", "monotonic"), "summary names no clock (%s)", seen)
        d = duration_of(t, text)
        t.note("%s: log duration %.3f s, JVM ran %.3f s", seen, d, r.seconds)
        work = r.num("wall_ns") / 1e9
        t.check(work <= d <= r.seconds + 0.2,
                "%s: log duration %.3f s, want between the workload's %.3f s and the JVM's "
                "%.3f s", clock, d, work, r.seconds)
        whole = weight(t, fpl, [])
        first_half = weight(t, fpl, ["--to", "%.3fs" % (d / 2)])
        t.check(whole >= 250, "%s: only %d weight", clock, whole)
        if whole:
            t.note("%s: first half of the duration holds %d of %d", clock, first_half, whole)
            t.close_to(first_half / whole, 0.5, 0.15, "%s: share in the first half" % clock)

    r, fpl = t.run_java("duration", "CpuBound", ["4", "2"], agent_options="cpu=10ms,duration=1s")
    text = summary(t, fpl)
    d = duration_of(t, text)
    t.note("duration=1s: log duration %.3f s, JVM ran %.3f s", d, r.seconds)
    t.check("cut off" not in text, "duration=1s: the log was not completed:\n%s", text)
    t.check(0.7 <= d <= 1.5, "duration=1s: log duration %.3f s", d)
    t.check(r.seconds >= 3.5, "the workload should outlive the profile (%.1f s)", r.seconds)
    w = weight(t, fpl, [])
    t.check(w <= 2 * 1.5 * 100, "duration=1s: %d samples on 2 threads is more than 1.5 s", w)


if __name__ == "__main__":
    ft.main(test, "clock fallback, time placement and duration=")
