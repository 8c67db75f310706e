#!/usr/bin/env python3
"""wall_contention: eight CPU-burning `hog-N` threads per core, plus a `sleeper` and a `parker`
(WallContention.java), under `wall=10ms,wallthreads=64`: fewer candidates than 64, so every
tick samples every thread, and every thread is alive for the whole run. Wall-clock time is
thread time, whether a thread runs, waits for a core or sleeps: each hog must get as many wall
samples as the idle threads.

Asserts: every tick chose all its candidates; the mean wall weight of the hogs is >= 0.9 x the
mean of sleeper and parker, and each hog's is >= 0.8 x (a correct sampler loses at most the
samples still pending when profiling stops, a few of ~300 ticks).

What it catches: a sampler signal that is not queued. A hog waiting for a core runs its signal
handler only when it is scheduled again; with 8 runnable threads per core that is often more
than one 10 ms tick later, and if the next tick's signal arrives meanwhile, a standard signal
(a standard, unqueued signal) merges with the pending one and that tick's sample is lost; the
ticks' `signaled` then exceeds the agent's own counts of wall signals handled (plus threads it
walked itself). Measured on the
2-core VM with the agent as it is: hogs 0.40-0.46 x the idle threads' weight (and 0.68 at
20 ms; 0.78-0.85 with 3 hogs per core while other builds ran). With the wall signal changed to
a real-time one (queued), locally: 1.00-1.01 every run, min hog within 2% of the mean.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_wall_fpl as fpl  # noqa: E402

SECONDS = 4
HOGS_PER_CPU = 8


def test(t):
    run, f = t.run_java("wall_contention", "WallContention", [SECONDS, HOGS_PER_CPU],
                        agent_options="wall=10ms,wallthreads=64")
    hogs = int(run.num("hogs"))
    p = fpl.convert_kind(t, f, "wall")
    tw = p.thread_weights()
    idle = (tw.get("sleeper", 0) + tw.get("parker", 0)) / 2.0
    t.check(idle >= 50, "sleeper and parker have %.0f wall weight on average, want >= 50",
            idle)
    hw = [tw.get("hog-%d" % i, 0) for i in range(hogs)]
    mean = sum(hw) / len(hw)
    log = fpl.read_fpl(f)
    sent = sum(k.signaled for k in log.ticks.values())
    # answered: wall signals handled, plus the threads the sampler walked itself (not running)
    handled = log.counters.get(fpl.CTR_WALL_SIGNALS, 0) + log.counters.get(fpl.CTR_WALL_WALKED, 0)
    t.note("%d hogs on %s cpus: hog wall weight %.1f on average (%.2f x idle %.1f), min %d, "
           "max %d; ticks signaled %d, answered %d", hogs, run.results.get("cpus"), mean,
           mean / idle, idle, min(hw), max(hw), sent, handled)
    partial = [k for k in log.ticks.values() if k.chosen != k.candidates]
    t.check(not partial, "%d ticks did not choose all their candidates", len(partial))
    t.check(mean >= 0.9 * idle, "the hogs have %.2f x the wall weight of the idle threads, want "
            ">= 0.9: samples of threads waiting for a core are lost (%d threads signaled, %d "
            "answered)", mean / idle, sent, handled)
    t.check(min(hw) >= 0.8 * idle, "a hog has %.2f x the idle threads' wall weight, want >= 0.8",
            min(hw) / idle)


if __name__ == "__main__":
    ft.main(test, "threads waiting for a core get their wall-clock samples")
