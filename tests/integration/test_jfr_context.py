#!/usr/bin/env python3
"""jfr_context: trace context in JFR: flyprof.ContextSample events, one beside each sample
event of a request, which a JFR reader filters by endpoint, span or root span.

TracedRequests (see test_context.py) serves GET /cpu (CPU in handleCpu), GET /sleep, GET /lock
and GET /handoff from 4 pool threads under cpu=10ms,wall=10ms. The log is converted with
--kind all to JFR and, per endpoint, to folded stacks with `--endpoint`; the JDK's reader
(JfrCheck.java on RecordingFile) folds the flyprof.ContextSample events of that endpoint.
Asserted:
- CPU: ContextSample events with cpu=true and endpoint GET /cpu fold into exactly the lines
  of `convert --kind cpu --endpoint '^GET /cpu$'`, with thread roots; most of them hold
  handleCpu (the workload's truth);
- wall: the same for GET /sleep with cpu=false, thread roots and state leaves, against
  `convert --kind wall --endpoint '^GET /sleep$' --threads`;
- every ContextSample has a span and a root span (not 0) and stands beside a sample event:
  per endpoint and kind, no more ContextSample events than jdk.ExecutionSample /
  flyprof.WallSample events in all;
- the lock-holder thread, outside every request, has no ContextSample.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import jfr_common as jc  # noqa: E402

SECONDS = 4
PKG = "dev.flyprof.workload.TracedRequests."


def test(t):
    _, fpl = t.run_java("traced", "TracedRequests", [SECONDS],
                        agent_options="cpu=10ms,wall=10ms")
    jfr = jc.convert_jfr(t, fpl, ["--kind", "all"], "all")
    _, _, types = jc.jdk_fold(t, jfr)
    t.note("event types: %s", types)
    ctx = types.get("flyprof.ContextSample", 0)
    t.check(ctx > 0, "no flyprof.ContextSample events: %s", types)
    t.check(ctx <= types.get("jdk.ExecutionSample", 0) + types.get("flyprof.WallSample", 0),
            "more context events (%d) than sample events: %s", ctx, types)

    cpu, n, _ = jc.jdk_fold(t, jfr, threads=True, event="flyprof.ContextSample",
                            where=["endpoint=GET /cpu", "cpu=true"])
    want = jc.folded(t, fpl, ["--kind", "cpu", "--endpoint", "^GET /cpu$", "--threads"],
                     "cpu_endpoint")
    t.check(sum(want.values()) >= 20, "only %d CPU samples of GET /cpu", sum(want.values()))
    jc.same(t, cpu, want, "GET /cpu: ContextSample (cpu) vs folded --endpoint")
    hot = sum(v for k, v in cpu.items() if PKG + "handleCpu" in k.split(";"))
    t.check(hot >= 0.9 * n, "%d of GET /cpu's %d CPU context samples are in handleCpu", hot, n)

    wall, _, _ = jc.jdk_fold(t, jfr, threads=True, states=True, event="flyprof.ContextSample",
                             where=["endpoint=GET /sleep", "cpu=false"])
    wwant = jc.folded(t, fpl, ["--kind", "wall", "--endpoint", "^GET /sleep$", "--threads"],
                      "sleep_endpoint")
    t.check(sum(wwant.values()) >= 20, "only %d wall samples of GET /sleep",
            sum(wwant.values()))
    jc.same(t, wall, wwant, "GET /sleep: ContextSample (wall) vs folded --endpoint")

    zero, nz, _ = jc.jdk_fold(t, jfr, event="flyprof.ContextSample", where=["spanId=0"])
    t.check(nz == 0, "%d context samples with span 0", nz)
    zero, nz, _ = jc.jdk_fold(t, jfr, event="flyprof.ContextSample", where=["rootSpanId=0"])
    t.check(nz == 0, "%d context samples with root span 0", nz)
    holder, _, _ = jc.jdk_fold(t, jfr, threads=True, event="flyprof.ContextSample")
    held = sum(v for k, v in holder.items() if k.split(";")[0] == "lock-holder")
    t.check(held == 0, "%d context samples on the lock-holder, outside every request", held)


if __name__ == "__main__":
    ft.main(test, "trace context in JFR: flyprof.ContextSample")
