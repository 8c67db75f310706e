#!/usr/bin/env python3
"""class_unload: methods of classes that were unloaded are named `[unloaded]` or by their
real name, never handed to JVMTI as stale jmethodIDs, and the JVM survives.

UnloadChurn defines UnloadHot again and again, each copy in a throwaway class loader, runs it
(~20 ms of CPU in UnloadHot.spin) and lets System.gc() unload it: ~100 classes unloaded in 5 s,
as the workload itself counts. A test hook (FLYPROF_TEST_WRITER_LAG_MS=1000) has the writer
name each sample only once it is a second old, so most copies are unloaded before their
methods are named. The agent must see from HotSpot's own structures that such a jmethodID is
stale (its Method* cleared, or not a Method of a live class loader) and name it `[unloaded]`;
the bug this test was written for handed it to JVMTI, which fails it (`[unknown_method]`;
some JDK builds crash instead).

With -agentpath (cpu=1ms) and attached (`flyprof attach -d 5 -i 1ms`):
- the JVM exits 0 / keeps running, without a crash; the log is complete;
- the workload unloaded at least 20 classes (else the test proves nothing);
- no frame is `[unknown_method]`;
- `[unloaded]` frames carry weight (the stale path ran), each one on a stack whose caller
  is UnloadChurn.iterate (the rest of the stack is named right);
- UnloadHot frames are either that or named right (UnloadHot.spin / run).
"""
import os
import time

import test_attach_common as ac

LAG = {"FLYPROF_TEST_WRITER_LAG_MS": "1000"}
HOT = "dev.flyprof.workload.UnloadHot."
ITERATE = "dev.flyprof.workload.UnloadChurn.iterate"


def check_profile(t, p, what):
    unknown = p.weight(lambda f: any(x == "[unknown_method]" for x in p.frames(f)))
    unloaded_stacks = [(f, w) for f, w in p.samples if "[unloaded]" in p.frames(f)]
    unloaded = sum(w for _, w in unloaded_stacks)
    named = p.weight(lambda f: p.has(f, HOT + "spin") or p.has(f, HOT + "run"))
    t.note("%s: total %d, [unloaded] %d, UnloadHot named %d, [unknown_method] %d", what,
           p.total(), unloaded, named, unknown)
    t.check(unknown == 0, "%s: %d weight on [unknown_method] frames: stale jmethodIDs went to "
            "JVMTI", what, unknown)
    t.check(unloaded > 0, "%s: no [unloaded] frame although the writer named samples a second "
            "after their class was unloaded", what)
    orphans = [f for f, _ in unloaded_stacks
               if not any(ac.ft.method_of(x) == ITERATE for x in p.frames(f))]
    t.check(not orphans, "%s: [unloaded] frames not called from UnloadChurn.iterate, e.g. %s",
            what, ";".join(orphans[0]) if orphans else "")


def agentpath(t):
    r, fpl = t.run_java("agentpath", "UnloadChurn", [5], agent_options="cpu=1ms", env=LAG)
    t.note("copies %d, unloaded %d", r.num("copies"), r.num("unloaded"))
    t.check(r.num("unloaded") >= 20, "the workload unloaded only %d classes", r.num("unloaded"))
    ac.check_complete(t, fpl, "the -agentpath log")
    check_profile(t, t.convert(fpl), "agentpath")


def attached(t):
    jvm = ac.Jvm(t, "churn", "UnloadChurn", [600, "forever"], env=dict(os.environ, **LAG),
                 ready_thread=None)
    deadline = time.monotonic() + 60
    while "phase copies=" not in jvm.stdout() and time.monotonic() < deadline:
        t.check(jvm.alive(), "the JVM exited before the churn started")
        time.sleep(0.1)
    fpl = t.path("attached.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "attach", ["attach", jvm.pid, "-d", "5", "-i", "1ms", "-o", fpl])
    ac.expect(t, r, 0, "profile written to " + fpl)
    ac.check_complete(t, fpl, "the attached log")
    check_profile(t, t.convert(fpl), "attached")
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()
    t.check("flyprof:" not in jvm.stderr(), "the agent complained on the JVM's stderr: %s",
            jvm.stderr()[-1000:])


def body(t):
    agentpath(t)
    attached(t)


if __name__ == "__main__":
    ac.main(body, "methods of unloaded classes are named [unloaded] or right, never stale")
