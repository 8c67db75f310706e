#!/usr/bin/env python3
"""split123: one worker spends CPU in unitA, unitB, unitC as 1:2:3 (see Split123.java).

Asserts, on the worker thread's samples:
- among samples with one of the units on the stack, the shares are 1/6, 2/6, 3/6 within
  3 points. Split123 runs each unit in long contiguous blocks (about 80 ms for unitA), so a
  sampler firing every 10 ms of the worker's CPU miscounts only at block edges: over ~12 rounds
  that is about 0.5 point of standard error (0.75 seen with 5 s runs and 40 ms blocks on a
  loaded machine), against 3 points allowed; pure chance (binomial) would give 2 points;
- a unit is on the stack of at least 90% of the worker's weight (stacks are walked to the
  bottom, not truncated or lost);
- weight x interval is within 10% of the worker's own measured CPU time (about 600 samples:
  the per-thread CPU timer's counting error is one sample).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402

SECONDS = 6
UNITS = ("unitA", "unitB", "unitC")
METHOD = "dev.flyprof.workload.Split123."


def test(t):
    run, fpl = t.run_java("split123", "Split123", [SECONDS])
    p = t.convert(fpl)
    w = t.thread_profile(p, "split-worker", min_weight=100)

    weights = dict.fromkeys(UNITS, 0)
    several = 0
    for f, wt in w.samples:
        on = [u for u in UNITS if w.has(f, METHOD + u)]
        if len(on) == 1:
            weights[on[0]] += wt
        elif on:
            several += wt
    n = sum(weights.values())
    t.note("worker weight %d, with a unit %d, with several units %d, markers %s",
           w.total(), n, several, w.marker_weights() or "none")
    t.check(several == 0, "%d weight has more than one unit on one stack", several)
    t.check(n >= 200, "only %d weight with a unit on the stack (want >= 200)", n)
    t.close_to(n / w.total(), 1.0, 0.10, "share of worker weight with a unit on the stack")

    for i, u in enumerate(UNITS, 1):
        t.note("%s: measured CPU share %.4f", u, run.num(u + "_share"))
        t.close_to(weights[u] / n, i / 6, 0.03, "%s share of unit samples" % u)

    cpu = run.num("worker_cpu_ns")
    t.close_to(w.total() * ft.INTERVAL_NS / cpu, 1.0, 0.10,
               "worker weight x interval / worker CPU (%.2f s)" % (cpu / 1e9))


if __name__ == "__main__":
    ft.main(test, "unitA:unitB:unitC CPU split 1:2:3")
