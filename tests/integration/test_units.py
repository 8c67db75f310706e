#!/usr/bin/env python3
"""units: the agent reads times as a user types them. A duration's bare number is seconds, as
the CLI's -d reads it; an interval, resolution or threshold needs a unit, and a bare number is
refused at startup with a message naming the option and offering the number with a unit.

1. `duration=1` on a CpuBound run of 3 s: profiling stops after about 1 s (not 1 ns, which
   gave a 0.001 s profile with no sample), the log is complete and holds about 1 s of the two
   threads' samples.
2. `cpu=500000` (500 us if read as ns) and `hiccup=1`: the JVM does not start; stderr says
   which option lacks a unit and how to write it.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402


def test(t):
    r, fpl = t.run_java("duration", "CpuBound", ["3", "2"], agent_options="cpu=10ms,duration=1")
    s = t.flyprof("summary", ["summary", fpl])
    t.check(s.returncode == 0, "summary failed: %s", s.stderr)
    m = re.search(r"^\s*duration\s+([0-9.]+) s", s.stdout, re.M)
    t.check(m is not None, "summary has no duration line:\n%s", s.stdout)
    d = float(m.group(1))
    t.note("duration=1: log duration %.3f s, JVM ran %.1f s", d, r.seconds)
    t.check("cut off" not in s.stdout, "duration=1: the log was not completed:\n%s", s.stdout)
    # END comes once the samples taken by then are named: a few hundred ms later on a busy
    # machine
    t.check(0.7 <= d <= 2.0, "duration=1: the log lasts %.3f s, want about 1 s", d)
    p = t.convert(fpl)
    t.check(40 <= p.total() <= 2 * 1.5 * 100, "duration=1: weight %d, want 40 to 300 (2 busy "
            "threads for about 1 s at 10 ms)", p.total())

    for options, want in (
            ("cpu=500000", "bad value '500000' for cpu: give a unit, e.g. cpu=500000ns or "
                           "cpu=500000us (units ns, us, ms, s, min, h)"),
            ("hiccup=1", "bad value '1' for hiccup: give a unit, e.g. hiccup=1ms")):
        r = t.run(options, [t.java, "-agentpath:%s=%s,file=%s" % (t.agent, options,
                                                                  t.path("no.fpl")),
                            "-version"], 60)
        t.note("%s: exit %s, stderr: %s", options, r.returncode,
               " | ".join(r.stderr.strip().splitlines()[:2]))
        t.check(not r.timed_out and r.returncode not in (0, None),
                "%s: the JVM started anyway (exit %s)", options, r.returncode)
        t.check(want in r.stderr, "%s: stderr lacks %r", options, want)


if __name__ == "__main__":
    ft.main(test, "agent options: a duration's bare number is seconds, other times need a unit")
