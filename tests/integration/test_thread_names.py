#!/usr/bin/env python3
"""thread_names: a thread renamed by itself after it started, and a thread that ends while
the JVM runs on (ThreadNames.java), keep the right names in a --threads profile.

Asserts:
- `renamed-worker` is a thread root; the old name `pre-rename` carries at most
  max(5, 5% of the thread's weight);
- the renamed thread's weight (both names) and `early-ender`'s weight, times the interval, are
  each within 10% of the CPU time the thread measured itself (about 300 and 100 samples).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402

SECONDS = 3


def test(t):
    run, fpl = t.run_java("thread_names", "ThreadNames", [SECONDS])
    t.check(run.results.get("early_ended_first") == "true",
            "early-ender did not end before the other worker")
    p = t.convert(fpl)
    renamed = t.thread_profile(p, "renamed-worker", min_weight=20).total()
    early = t.thread_profile(p, "early-ender", min_weight=20).total()
    pre = p.thread("pre-rename").total()
    t.note("renamed-worker %d, pre-rename %d, early-ender %d", renamed, pre, early)
    limit = max(5, 0.05 * (renamed + pre))
    t.check(pre <= limit, "the old name pre-rename carries weight %d (want <= %.0f)", pre,
            limit)
    for name, weight, key in (("renamed-worker", renamed + pre, "renamed_cpu_ns"),
                              ("early-ender", early, "early_cpu_ns")):
        cpu = run.num(key)
        t.close_to(weight * ft.INTERVAL_NS / cpu, 1.0, 0.10,
                   "%s weight x interval / its CPU (%.2f s)" % (name, cpu / 1e9))


if __name__ == "__main__":
    ft.main(test, "renamed and ended threads keep their names")
