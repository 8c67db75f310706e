#!/usr/bin/env python3
"""walk_own: the agent's own walker of Java frames (stackwalk.c walk_own: HotSpot's structures
read as AsyncGetCallTrace reads them, compiled frames cached per pc) gives AsyncGetCallTrace's
stacks, and takes most samples off AsyncGetCallTrace.

- walk=check (both walkers on every sample, AGCT's stack kept, differences counted: counters
  60-61) on javac (interpreted, C1 and C2 code, stubs, adapters, deep stacks, classes loaded
  all the time), stub-heavy loops (arraycopy: leaf calls without debug information at the
  return address; itable dispatch) and UnloadChurn (classes unloaded and their nmethods freed
  while compiled code of new copies is cached): at least 100 stacks compared in each run and
  at most 1% of them different (0 in every run by hand, JDK 17 and 25); -agentpath and
  attached to a running JVM.
- walk=vm (the default) on the arraycopy loop: at least 70% of all samples pushed read by the
  walker alone (96% by hand: 304 of 316), so AGCT is off the hot path; with walk=agct none.

A walker that decoded a wrong PcDesc (exact where AGCT takes the next one), kept a frame of a
freed nmethod, or lost the caller of a stub fails the first; one that gave up everywhere fails
the second.
"""
import json
import os

import walk_common as wc
import test_attach_common as ac

WORKLOADS = [
    # (name, workload, args, thread, attach args, warm cpu, window cpu)
    ("javac", "JavacLoop", [4, 400], "javac-worker", [120, 400], 2, 4),
    ("arraycopy", "StubLoops", ["arraycopy", 3], "stub-worker", ["arraycopy", 60], 1, 3),
    ("itable", "StubLoops", ["itable", 3], "stub-worker", ["itable", 60], 1, 3),
]


def agent_summary(t, fpl):
    r = ac.flyprof(t, "summary --json " + os.path.basename(fpl), ["summary", "--json", fpl])
    ac.expect(t, r, 0)
    return json.loads(r.stdout)["agent"]


def check_compared(t, how, a):
    checked, differed = a["walks_checked"], a["walks_differed"]
    t.note("%s: walk=check compared %d stacks, %d differed; AGCT failures %s", how, checked,
           differed, a["walks_failed"])
    t.check(checked >= 100, "%s: only %d stacks walked both ways (want >= 100)", how, checked)
    t.check(differed <= 0.01 * checked, "%s: the walker's stack differed from AGCT's in %d of "
            "%d samples (want <= 1%%)", how, differed, checked)
    t.check(a["walks_own"] == 0, "%s: walk=check logged %d stacks of the walker's own (the "
            "samples keep AGCT's)", how, a["walks_own"])


def body(t):
    for name, workload, args, thread, attach_args, warm, window in WORKLOADS:
        run, fpl = t.run_java(name, workload, args, agent_options="cpu=5ms,walk=check",
                              timeout=300)
        check_compared(t, name + " (agentpath)", agent_summary(t, fpl))
        wc.attach(t, name + "_attach", workload, attach_args, thread, warm, window,
                  options="walk=check", interval="5ms", stop_file=True)
        check_compared(t, name + " (attach)", agent_summary(t, t.path(name + "_attach.fpl")))
    # class unloading: nmethods freed, their memory reused by new copies' code
    run, fpl = t.run_java("unload", "UnloadChurn", [5], agent_options="cpu=2ms,walk=check",
                          timeout=300)
    check_compared(t, "unload (agentpath)", agent_summary(t, fpl))
    # the default takes samples off AGCT; walk=agct never uses the walker
    for walk, low in (("vm", 0.7), ("agct", None)):
        run, fpl = t.run_java("own_" + walk, "StubLoops", ["arraycopy", 3],
                              agent_options="cpu=10ms,walk=" + walk, timeout=300)
        a = agent_summary(t, fpl)
        t.note("walk=%s: %d of %d samples read by the walker alone, %d recovered", walk,
               a["walks_own"], a["samples_pushed"], a["walks_recovered"])
        if low is None:
            t.check(a["walks_own"] == 0, "walk=agct: %d stacks read by the walker",
                    a["walks_own"])
        else:
            t.check(a["walks_own"] >= low * a["samples_pushed"], "walk=%s: only %d of %d "
                    "samples read by the walker alone (want >= %d%%)", walk, a["walks_own"],
                    a["samples_pushed"], int(100 * low))


if __name__ == "__main__":
    wc.main(body, "the agent's own walker gives AsyncGetCallTrace's stacks")
