#!/usr/bin/env python3
"""walk_faults: the crash guard under a storm of faults. The hidden test option `_faultevery=2`
makes every second stack walk fault on purpose inside the guard, alternately in the agent's own
code and inside AsyncGetCallTrace (which then leaves the JVM's own per-thread flag set: the guard
must restore it). Split123's worker (CPU split 1:2:3 over unitA, unitB, unitC) is sampled every
1 ms of CPU (at most one signal per 4 ms kernel tick: ~2000 walks, ~1000 faults in the 8 s of
CPU under -agentpath; ~1200 walks in 5 s of the worker's CPU attached to a running JVM; and a
4 s run with HotSpot's libjsig preloaded, where HotSpot sees every fault first and chains the
ones it does not recognize to the guard). Asserts:
- the JVM survives and exits 0 by itself, with no crash report;
- faults are counted: the WALK_FAULTS counter is half the samples that had a Java walk (every
  second walk; the native-only samples of the agent's and the JVM's own threads have none),
  within 10%, and nothing else failed more than 2% of the walks;
- the faulted samples are kept, each with the single marker frame `[walk_fault]`: their weight
  is half the worker's, within 10 points;
- the other samples are still right: among them, a unit is on the stack of at least 90% of the
  worker's weight, and the units' shares are 1/6, 2/6, 3/6 within 4 points (about 450 weight of
  unit samples in 4 ms steps over 80 ms blocks: ~1 point of standard error); attached, over
  the whole rounds of the window (whole_rounds).
"""
import os

import walk_common as wc
import test_wall_fpl as fpl

THREAD = "split-worker"
UNITS = ("unitA", "unitB", "unitC")
METHOD = "dev.flyprof.workload.Split123."
CTR_WALK_FAULTS = 15
CTR_AGCT_BASE = 16
EVERY = 2


def java_walked(log):
    """Samples whose thread had a Java walk: a Java or stub frame, or a walk's failure marker
    ([walk_fault], [agct:...]) on the stack. Other threads' samples (the agent's writer, GC and
    JIT threads: native frames only) have none, and _faultevery counts Java walks only; their
    share grows with what the writer's start costs on a slow machine."""
    n = 0
    for smp in log.samples:
        for mid, _, ftype in log.stacks.get(smp.stack_id, ()):
            m = log.methods.get(mid)
            name = m.name if m else ""
            if ftype not in (5, 7, 8) or name == "[walk_fault]" or name.startswith("[agct:"):
                n += 1
                break
    return n


def check(t, how, fpl_path, s):
    log = fpl.read_fpl(fpl_path)
    pushed = log.counters.get(fpl.CTR_SAMPLES, 0)
    faults = log.counters.get(CTR_WALK_FAULTS, 0)
    failed = sum(log.counters.get(CTR_AGCT_BASE + n, 0) for n in range(16))
    walked = java_walked(log)
    t.note("%s: %d samples pushed, %d with a Java walk, %d walk faults, %d other failed walks",
           how, pushed, walked, faults, failed)
    t.check(pushed >= 500, "%s: only %d samples (want >= 500)", how, pushed)
    t.check(abs(faults - walked / EVERY) <= 0.1 * walked / EVERY,
            "%s: %d walk faults counted for %d samples with a Java walk, want every %dnd walk "
            "(%d)", how, faults, walked, EVERY, walked // EVERY)
    t.check(failed <= 0.02 * pushed, "%s: %d walks failed otherwise (AGCT codes)", how, failed)
    marked = s.markers.get("[walk_fault]", 0)
    t.check(set(s.markers) <= {"[walk_fault]"} or sum(s.markers.values()) - marked
            <= 0.02 * s.total, "%s: markers other than [walk_fault]: %s", how, s.markers)
    t.close_to(marked / s.total, 1 / EVERY, 0.10, "%s: [walk_fault] share of the worker" % how)
    alone = s.p.weight(lambda f: tuple(f) == ("[walk_fault]",))
    t.check(marked == alone, "%s: a [walk_fault] sample with more frames than its marker", how)
    weights = dict.fromkeys(UNITS, 0)
    for f, w in s.p.samples:
        on = [u for u in UNITS if s.p.has(f, METHOD + u)]
        if len(on) == 1:
            weights[on[0]] += w
    rest = s.total - marked
    n = sum(weights.values())
    t.check(n >= 200, "%s: only %d weight with a unit on the stack (want >= 200)", how, n)
    t.close_to(n / rest, 1.0, 0.10, "%s: unit share of the samples that did not fault" % how)
    if how == "attach":
        weights = whole_rounds(t, how, log)
        n = sum(weights.values())
    for i, u in enumerate(UNITS, 1):
        t.close_to(weights[u] / n, i / 6, 0.04, "%s: %s share of unit samples" % (how, u))


def whole_rounds(t, how, log):
    """The units' weights over the whole rounds (A, B, C) of an attached window. A window that
    starts and ends anywhere in Split123's 480 ms rounds holds a part of one more round: 5 s of
    CPU can hold 0.2 s of unitC alone, moving its share from 1/2 to 0.52 before any sampling
    error. The window is cut, in the samples' time order, from the first unitA sample after a
    unitC sample to the last unitC sample before a unitA sample; the shares must hold there."""
    units = []
    for smp in sorted(log.samples, key=lambda x: x.ticks):
        if smp.thread != THREAD:
            continue
        names = {log.methods[m].full for m, _, _ in log.stacks.get(smp.stack_id, ())
                 if m in log.methods}
        on = [u for u in UNITS if METHOD + u in names]
        if len(on) == 1:
            units.append((on[0], smp.weight))
    first = next((i for i in range(1, len(units))
                  if units[i][0] == UNITS[0] and units[i - 1][0] == UNITS[2]), None)
    last = next((i for i in range(len(units) - 2, -1, -1)
                 if units[i][0] == UNITS[2] and units[i + 1][0] == UNITS[0]), None)
    t.check(first is not None and last is not None and first < last,
            "%s: no whole round of unitA, unitB, unitC among %d unit samples", how, len(units))
    weights = dict.fromkeys(UNITS, 0)
    for u, w in units[first:last + 1]:
        weights[u] += w
    t.note("%s: whole rounds hold %d of the %d unit samples", how, last + 1 - first, len(units))
    return weights


def body(t):
    options = "cpu=1ms,_faultevery=%d" % EVERY
    _, s = wc.agentpath(t, "faults", "Split123", [8], THREAD, options=options)
    check(t, "agentpath", t.path("faults.fpl"), s)
    # with HotSpot's signal-chaining library preloaded, HotSpot keeps SIGSEGV/SIGBUS to itself
    # and calls the guard as a chained handler for faults it does not recognize
    jsig = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(t.java))), "lib",
                        "libjsig.so")
    if os.path.exists(jsig):
        os.environ["LD_PRELOAD"] = jsig
        try:
            _, j = wc.agentpath(t, "faults_jsig", "Split123", [4], THREAD, options=options)
        finally:
            del os.environ["LD_PRELOAD"]
        check(t, "libjsig", t.path("faults_jsig.fpl"), j)
    else:
        t.note("no %s: the libjsig run is skipped", jsig)
    _, a = wc.attach(t, "faults_attach", "Split123", [9], THREAD, 2, 5,
                     options="_faultevery=%d" % EVERY, interval="1ms")
    check(t, "attach", t.path("faults_attach.fpl"), a)


if __name__ == "__main__":
    wc.main(body, "the JVM survives thousands of faults inside stack walks")
