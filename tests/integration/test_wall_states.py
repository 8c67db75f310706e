#!/usr/bin/env python3
"""wall_states: threads busy, sleeper, parker and blocked (WallStates.java), each in one state
for the whole run, profiled in CPU mode, in wall-clock mode, and in both at once.

Asserts:
- CPU (`cpu=10ms`, and `--kind cpu` of the combined run): busy has >= 90% of the CPU weight
  (flyprof's own threads left out).
  Busy burns one core for the whole run (~400 samples in 4 s on an idle machine, 84 measured
  while other builds ran); the other three never run for more than microseconds at a time, so
  the rest is the main thread's start-up (2-3 samples, whatever the load). Busy must also have
  >= 30 samples, or the share would say little (below ~27 the start-up alone passes 10%).
- wall (`wall=20ms`, `wallthreads` 16 by default, and `--kind wall` of the combined run): the
  JVM has about 8 Java threads, fewer than 16, so every tick samples every thread (checked: each
  tick's chosen == candidates) and each of the four gets one sample per tick, ~200 in 4 s; no
  binomial spread at all, only lost signals could unbalance them (measured: all four within 1%
  of each other). Each one's (upscaled) wall weight must be within 0.6-1.4 of the mean of the
  four, and each must have >= 50 (164-200 measured; ticks keep time even on a loaded machine).
- states: each thread's dominant wall state is its own (busy running, sleeper sleeping, parker
  parked, blocked blocked) and holds >= 80% of its wall weight (measured: ~99%; the rest is the
  moment between two sleeps or parks). The states come from the log itself, decoded by
  test_wall_fpl.py; the `--kind wall` folded output must end every stack of the four in a state
  leaf frame (`[parked]`) and its per-thread states must agree as well; with --no-states it has
  none.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_wall_fpl as fpl  # noqa: E402

SECONDS = 4
FOUR = {"busy": "running", "sleeper": "sleeping", "parker": "parked", "blocked": "blocked"}


def check_cpu(t, fpl_path, what):
    p = fpl.convert_kind(t, fpl_path, "cpu")
    tw = p.thread_weights()
    # every thread is sampled, flyprof's own included; their CPU (the writer builds unwind
    # tables and reads symbols when a session starts: ~0.15 s, as much as busy gets in 0.4 s
    # on a loaded machine) is not the workload's
    ours = sum(w for name, w in tw.items() if name.startswith("flyprof"))
    busy, total = tw.get("busy", 0), p.total() - ours
    t.note("%s: busy has %d of %d CPU weight (%.1f%%); others: %s", what, busy, total,
           100.0 * busy / total,
           ", ".join("%s=%d" % kv for kv in sorted(tw.items(), key=lambda kv: -kv[1])
                     if kv[0] != "busy"))
    t.check(busy >= 30, "%s: busy has CPU weight %d, want >= 30 (%d on an idle machine)", what,
            busy, SECONDS * 100)
    t.check(busy >= 0.90 * total, "%s: busy has %.1f%% of the CPU weight, want >= 90%%", what,
            100.0 * busy / total)


def check_wall(t, fpl_path, what):
    p = fpl.convert_kind(t, fpl_path, "wall")
    tw = p.thread_weights()
    w = {n: tw.get(n, 0) for n in FOUR}
    mean = sum(w.values()) / 4.0
    t.note("%s: wall weight %s (mean %.1f)", what,
           ", ".join("%s=%d (%.2f)" % (n, w[n], w[n] / mean if mean else 0) for n in FOUR),
           mean)
    for n in FOUR:
        t.check(w[n] >= 50, "%s: thread %s has wall weight %d, want >= 50 (one sample per "
                "20 ms tick: ~%d)", what, n, w[n], SECONDS * 50)
        r = w[n] / mean
        t.check(0.6 <= r <= 1.4, "%s: thread %s has %.2f x the mean wall weight of the four, "
                "want 0.6-1.4", what, n, r)

    log = fpl.read_fpl(fpl_path)
    partial = [k for k in log.ticks.values() if k.chosen != min(k.candidates, 16)]
    t.check(log.ticks, "%s: the log has no wall ticks", what)
    t.check(not partial, "%s: %d of %d ticks chose fewer than min(candidates, 16) threads, e.g. "
            "%d of %d", what, len(partial), len(log.ticks),
            partial[0].chosen if partial else 0, partial[0].candidates if partial else 0)
    maxc = max(k.candidates for k in log.ticks.values())
    t.check(maxc <= 16, "%s: a tick had %d candidates: the test assumes fewer than 16 Java "
            "threads (every thread sampled every tick)", what, maxc)
    states = fpl.log_states(log)
    for n, want in FOUR.items():
        d = states.get(n, {})
        tot = sum(d.values())
        t.note("%s: %s states (log): %s", what, n, fpl.fmt_states(d))
        t.check(tot > 0, "%s: no wall samples of %s in the log", what, n)
        dom = max(d, key=d.get)
        t.check(dom == want, "%s: thread %s is mostly %s, want %s (%s)", what, n, dom, want,
                fpl.fmt_states(d))
        t.check(d[want] >= 0.8 * tot, "%s: thread %s is %s only %.1f%% of the time, want >= 80%%",
                what, n, want, 100.0 * d[want] / tot)

    fs = fpl.folded_states(p)
    t.check(fs is not None, "%s: the folded wall output has no state leaf frames", what)
    for n, want in FOUR.items():
        d = fs.get(n, {})
        t.note("%s: %s states (folded): %s", what, n, fpl.fmt_states(d))
        dom = max(d, key=d.get) if d else None
        t.check(dom == want, "%s: folded: thread %s is mostly %s, want %s", what, n, dom, want)
        t.check(d.get("unknown", 0) == 0, "%s: folded: %d of thread %s's wall weight has no state "
                "frame", what, d.get("unknown", 0), n)

    out = fpl_path[:-len(".fpl")] + ".nostates.collapsed"
    r = t.flyprof("convert --no-states", ["convert", fpl_path, "-o", out, "--kind", "wall",
                                          "--threads", "--no-states"])
    t.check(r.returncode == 0, "flyprof convert --no-states: exit status %s", r.returncode)
    with open(out, encoding="utf-8", errors="replace") as f:
        bare = ft.Profile.parse(f.read(), True)
    t.check(fpl.folded_states(bare) is None, "%s: --no-states still has state frames", what)
    t.check(bare.total() == p.total(), "%s: --no-states weighs %d, with states %d", what,
            bare.total(), p.total())


def test(t):
    _, f = t.run_java("wall_states_cpu", "WallStates", [SECONDS], agent_options="cpu=10ms")
    check_cpu(t, f, "cpu mode")

    _, f = t.run_java("wall_states_wall", "WallStates", [SECONDS], agent_options="wall=20ms")
    check_wall(t, f, "wall mode")
    _, fig = fpl.summary(t, f)
    t.check(fig["cpu_samples"] is None, "wall mode: the log has CPU samples")

    _, f = t.run_java("wall_states_both", "WallStates", [SECONDS],
                      agent_options="cpu=10ms,wall=20ms")
    check_cpu(t, f, "cpu+wall, --kind cpu")
    check_wall(t, f, "cpu+wall, --kind wall")
    _, fig = fpl.summary(t, f)
    t.check(fig["cpu_samples"] and fig["wall_samples"],
            "cpu+wall: the summary does not report both kinds (%s)", fig)


if __name__ == "__main__":
    ft.main(test, "busy/sleeping/parked/blocked threads in CPU and wall-clock profiles")
