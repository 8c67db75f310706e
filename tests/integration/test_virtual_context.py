#!/usr/bin/env python3
"""virtual_context: Context and ThreadFilter calls from virtual threads are ignored.

The agent keeps a thread's context and filter mark by OS thread. A virtual thread runs on a
carrier that runs other virtual threads in turn, so a context set there would be carried by
their samples. VirtualContext (java/src/dev/flyprof/workload/VirtualContext.java), with one
carrier: a virtual thread sets context 111 and sleeps 1.5 s while another, untraced, burns 1 s
of CPU on the same carrier; a platform thread with context 222 burns 0.5 s (the control).

Asserted, under cpu=10ms,wall=10ms with -agentpath (the check is in the Java API, the same
whichever way the agent came): `summary --json` gives GET /platform at least 0.3 s of CPU
(contexts work); on a JDK with virtual threads, GET /sleepy has no CPU and no samples at all
(before: 2.45 s of the burner's CPU in a longer run), and the virtual thread did not read
itself as marked. On JDK 17 only the control runs.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_attach_common as ac  # noqa: E402


def body(t):
    run, fpl = t.run_java("vt", "VirtualContext", [], agent_options="cpu=10ms,wall=10ms",
                          jvm_options=["-Djdk.virtualThreadScheduler.parallelism=1"])
    r = t.flyprof("summary --json", ["summary", "--json", fpl])
    t.check(r.returncode == 0, "summary --json exited %s", r.returncode)
    eps = {e["name"]: e for e in json.loads(r.stdout).get("endpoints") or []}
    virtual = run.num("virtual") == 1
    t.note("virtual threads: %s; endpoints: %s", virtual,
           {k: (v["cpu_ns"], v["wall_ns"]) for k, v in eps.items()})
    plat = eps.get("GET /platform")
    t.check(plat is not None and plat["cpu_ns"] >= 300000000,
            "GET /platform (a platform thread's context): %s, want >= 0.3 s of CPU", plat)
    if not virtual:
        t.note("no virtual threads on this JDK: the control only")
        return
    sleepy = eps.get("GET /sleepy")
    t.check(sleepy is None or (sleepy["cpu_ns"] == 0 and sleepy["wall_ns"] == 0),
            "GET /sleepy (set on a virtual thread that slept): %s, want no samples", sleepy)
    t.check(run.num("marked_virtual") == 0,
            "ThreadFilter.add on a virtual thread marked it (its carrier)")


if __name__ == "__main__":
    ac.main(body, "Context and ThreadFilter on virtual threads")
