#!/usr/bin/env python3
"""filter_marked: 500 unmarked parked threads and 4 threads that mark themselves with
ThreadFilter.add() (FilterMarked.java), wall-clock sampled with `wallthreads=4`, with and
without the `filter` option.

Asserts:
- with `filter`: >= 99% of the (upscaled) wall weight belongs to threads `marked-N`; no tick
  had more than 4 candidates (the marked ones), and most ticks had exactly 4 (the filter is
  what picks them, not luck); each marked thread has a sample in >= 70% of those ticks (all 4
  candidates are chosen every tick; measured ~97%, the rest lost at start and end), mostly
  parked; the workload saw all 4 marked through ThreadFilter.isMarked().
- without `filter` (the same workload): the marked share is below 10%. The 4 marked threads
  are 4 of ~510 candidates, so a uniform choice of 4 per tick gives them ~0.8% (~6 of ~800
  samples in 4 s; reaching 10% would take 80, over 25 standard deviations). This run proves
  that the first assertion can fail: without the filter the same share is tiny.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_wall_fpl as fpl  # noqa: E402

SECONDS = 4
UNMARKED = 500
MARKED = 4


def marked_share(t, fpl_path, what):
    p = fpl.convert_kind(t, fpl_path, "wall")
    tw = p.thread_weights()
    marked = sum(w for n, w in tw.items() if n.startswith("marked-"))
    unmarked = sum(w for n, w in tw.items() if n.startswith("unmarked-"))
    total = p.total()
    t.note("%s: marked threads %d of %d wall weight (%.2f%%), unmarked %d, other %d", what,
           marked, total, 100.0 * marked / total, unmarked, total - marked - unmarked)
    return p, tw, marked / total


def test(t):
    run, f = t.run_java("filter_on", "FilterMarked", [SECONDS, UNMARKED, MARKED],
                        agent_options="wall=20ms,filter,wallthreads=4")
    t.check(run.num("api_marked") == MARKED, "filter on: %s threads saw themselves marked, "
            "want %d", run.results.get("api_marked"), MARKED)
    p, tw, share = marked_share(t, f, "filter on")
    t.check(share >= 0.99, "filter on: marked threads have %.2f%% of the wall weight, want "
            ">= 99%%", 100 * share)
    log = fpl.read_fpl(f)
    ticks = list(log.ticks.values())
    t.check(ticks, "filter on: no wall ticks in the log")
    maxc = max(k.candidates for k in ticks)
    four = sum(1 for k in ticks if k.candidates == MARKED)
    t.note("filter on: %d ticks, %d with exactly %d candidates, at most %d", len(ticks), four,
           MARKED, maxc)
    t.check(maxc <= MARKED, "filter on: a tick had %d candidates, but only %d threads are "
            "marked", maxc, MARKED)
    t.check(four >= 0.5 * len(ticks), "filter on: only %d of %d ticks saw the %d marked "
            "threads", four, len(ticks), MARKED)
    states = fpl.log_states(log)
    for i in range(MARKED):
        n = "marked-%d" % i
        d = states.get(n, {})
        t.check(tw.get(n, 0) >= 0.7 * four, "filter on: %s has wall weight %d, want >= %d "
                "(one sample per tick with %d candidates)", n, tw.get(n, 0), 0.7 * four, MARKED)
        t.check(d and max(d, key=d.get) == "parked", "filter on: %s is not mostly parked (%s)",
                n, fpl.fmt_states(d))

    run, f = t.run_java("filter_off", "FilterMarked", [SECONDS, UNMARKED, MARKED],
                        agent_options="wall=20ms,wallthreads=4")
    _, tw, share = marked_share(t, f, "filter off")
    t.check(share < 0.10, "filter off: marked threads have %.2f%% of the wall weight, want "
            "< 10%% (4 of ~%d threads)", 100 * share, UNMARKED + MARKED)
    t.check(sum(1 for n in tw if n.startswith("unmarked-")) >= 100,
            "filter off: fewer than 100 distinct unmarked threads sampled")


if __name__ == "__main__":
    ft.main(test, "the thread filter: wall samples from marked threads only")
