#!/usr/bin/env python3
"""foreign_faults: flyprof's crash guard takes only the faults of its own walks, not those of
another profiler's signal handler that interrupted a walk.

libflyprof_foreign.so (tests/jni/foreign_profiler.c), loaded with -agentpath before flyprof,
is a second profiler as an async-profiler-based agent looks to flyprof: it holds SIGPROF (so
flyprof's CPU engine runs on a real-time signal), its SIGSEGV handler sits behind flyprof's
guard, and it sends SIGPROF to CpuBound's `cpu-1` and `cpu-2` every 50-150 us. Each of its
SIGPROF handler runs reads an unmapped page in its own code, and its SIGSEGV handler ends that
read. At cpu=1ms flyprof's handler runs on those threads often, so thousands of those signals
interrupt a walk with flyprof's guard armed. Before the guard claimed only faults in the code
its walks run (flyprof, libjvm, libunwind), it took those faults: it jumped back into its own
walk, the other profiler's read never returned, and the JVM crashed at the next fault that
reached the other profiler's handler.

The other way round, flyprof's signal lands inside the other profiler's handler about a third
of the time (each of its faults takes tens of us). flyprof must not walk there: a fault of its
walk that its guard leaves to the JVM (a SafeFetch inside AsyncGetCallTrace) goes down the
chain of SIGSEGV handlers to the other profiler's, which, armed, would siglongjmp out of
flyprof's handler and leave it in flight for ever, its scratch buffer busy and its thread
marked as inside the handler (no more samples of it).

Asserted, with -agentpath and attached to a JVM that already runs the other profiler: the JVM
exits 0 without a crash; the other profiler tried at least 2000 reads and its handler ended
every one (`foreign: attempts=N recovered=N stolen=0`); flyprof ran on a real-time signal and
its log is complete with samples of both workers; no stack flyprof walked runs inside the other
profiler's handler (`on_prof`), and the samples it did not walk there are kept as
`[other_handler]`, counted in the summary.
"""
import os
import re
import time

import test_attach_common as ac

ft = ac.ft
RUN_S = 8


def foreign_option(t):
    lib = os.path.join(t.args.build, "tests", "libflyprof_foreign.so")
    t.check(os.path.isfile(lib), "no foreign profiler library at %s", lib)
    return "-agentpath:%s=cpu-1,cpu-2" % lib


def check_foreign(t, stderr, what):
    m = re.search(r"foreign: attempts=(\d+) recovered=(\d+) stolen=(\d+)", stderr)
    t.check(m, "%s: the other profiler did not report (its stderr: %s)", what, stderr[-800:])
    attempts, recovered, stolen = (int(x) for x in m.groups())
    t.note("%s: the other profiler's reads: %d tried, %d ended by its own handler, %d taken by "
           "someone else", what, attempts, recovered, stolen)
    t.check(attempts >= 2000, "%s: only %d reads of the other profiler", what, attempts)
    t.check(recovered == attempts and stolen == 0, "%s: %d of the other profiler's %d faults did "
            "not reach its handler (%d seen stolen)", what, attempts - recovered, attempts,
            stolen)


def check_log(t, fpl, what):
    s = ac.check_complete(t, fpl, what)
    t.check("a free real-time signal" in s.stdout, "%s: flyprof's CPU signal was not moved off "
            "the other profiler's SIGPROF: %s", what, s.stdout[-1200:])
    p = t.convert(fpl)
    for name in ("cpu-1", "cpu-2"):
        t.thread_profile(p, name, 200)
    inside = p.weight(lambda f: "on_prof" in p.frames(f))
    t.check(inside == 0, "%s: %d samples were walked inside the other profiler's SIGPROF "
            "handler: %s", what, inside,
            [";".join(f) for f, _ in p.samples if "on_prof" in p.frames(f)][:3])
    kept = p.marker_weights().get("[other_handler]", 0)
    m = re.search(r"inside another profiler's signal handler.*: (\d+)", s.stdout)
    counted = int(m.group(1)) if m else 0
    t.note("%s: %d samples not walked inside the other profiler's handler, %d counted", what,
           kept, counted)
    t.check(kept >= 20 and counted > 0, "%s: %d samples kept as [other_handler] (counted "
            "%d): flyprof's signal lands in the other profiler's handler often", what, kept,
            counted)


def body(t):
    opt = foreign_option(t)
    r, fpl = t.run_java("agentpath", "CpuBound", [RUN_S, 2], agent_options="cpu=1ms",
                        jvm_options=[opt], timeout=120)
    check_foreign(t, r.stderr, "-agentpath")
    check_log(t, fpl, "-agentpath")

    jvm = ac.Jvm(t, "attached", "CpuBound", [RUN_S, 2], jvm_options=[opt], ready_thread="cpu-2")
    fpl = t.path("attached.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-o", fpl, "cpu=1ms"])
    ac.expect(t, r, 0, "profiling process %d" % jvm.pid)
    time.sleep(5)
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0)
    jvm.proc.wait(timeout=60)
    rc = jvm.stop()
    t.check(rc == 0, "attached: the JVM exited with status %s", rc)
    check_foreign(t, jvm.stderr(), "attached")
    check_log(t, fpl, "attached")


if __name__ == "__main__":
    ac.main(body, "the crash guard leaves another profiler's faults to it")
