#!/usr/bin/env python3
"""record: `flyprof record -o X.fpl -- java -cp flyprof.jar ...Split123 2` runs the command
under the agent, passes its output through, and writes a log that converts into a profile of
the workload: all three units, on the worker thread, roughly 1:2:3 (within 8 points: a short
run, and this test is about the CLI, not accuracy).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402

UNITS = ("unitA", "unitB", "unitC")
METHOD = "dev.flyprof.workload.Split123."


def test(t):
    fpl = t.path("record.fpl")
    t.logs.append(fpl)
    r = t.flyprof("record", ["record", "-o", fpl, "--", t.java, "-cp", t.jar,
                             ft.WORKLOAD_PKG + "Split123", "2"], timeout=120)
    t.check_jvm(r)
    t.check(os.path.isfile(fpl) and os.path.getsize(fpl) > 0, "record wrote no log at %s", fpl)
    p = t.convert(fpl)
    w = t.thread_profile(p, "split-worker", min_weight=50)
    weights = {u: w.weight(lambda f, u=u: w.has(f, METHOD + u)) for u in UNITS}
    n = sum(weights.values())
    t.note("worker weight %d, units %s", w.total(), weights)
    for i, u in enumerate(UNITS, 1):
        t.check(weights[u] > 0, "no sample in %s", u)
        t.close_to(weights[u] / n, i / 6, 0.08, "%s share of unit samples" % u)


if __name__ == "__main__":
    ft.main(test, "flyprof record runs a JVM under the agent")
