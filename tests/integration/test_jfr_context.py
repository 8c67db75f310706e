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
- the lock-holder thread, outside every request, has no ContextSample;
- the agent's own file=x.jfr (rendered at stop through the collector's code, log= kept) has
  the same flyprof.ContextSample events as `flyprof convert` of its log to .jfr (folded with
  thread roots and states, line for line), and attached (`flyprof attach -o x.jfr` on a
  running TracedRequests) its file has ContextSample events of GET /cpu, no more than its
  sample events. The agent used to render without the cells of each request, so its file
  had none.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import jfr_common as jc  # noqa: E402
import test_attach_common as ac  # noqa: E402

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


def agent_file(t):
    """The agent's own file=x.jfr against convert of the log it rendered from."""
    jfr, log = t.path("agent.jfr"), t.path("agent.fpl")
    cmd = [t.java, "-agentpath:%s=cpu=10ms,wall=10ms,file=%s,log=%s" % (t.agent, jfr, log),
           "-cp", t.jar, ft.WORKLOAD_PKG + "TracedRequests", str(SECONDS)]
    t.logs.append(log)
    r = t.run("agentpath file=x.jfr", cmd, 180)
    t.check_jvm(r)
    t.check(os.path.isfile(jfr), "no %s after the JVM's exit", jfr)
    conv = jc.convert_jfr(t, log, [], "agent_log")
    seen, n, types = jc.jdk_fold(t, jfr, threads=True, states=True,
                                 event="flyprof.ContextSample")
    want, _, _ = jc.jdk_fold(t, conv, threads=True, states=True, event="flyprof.ContextSample")
    t.note("agent's file: %d context events; types %s", n, types)
    t.check(n > 0, "the agent's own file has no flyprof.ContextSample: %s", types)
    jc.same(t, seen, want, "agent's file=x.jfr ContextSample vs convert of its log")
    cpu, _, _ = jc.jdk_fold(t, jfr, event="flyprof.ContextSample", where=["endpoint=GET /cpu"])
    t.check(sum(cpu.values()) >= 20, "only %d context samples of GET /cpu in the agent's file",
            sum(cpu.values()))


def attached(t):
    jvm = ac.Jvm(t, "traced_attached", "TracedRequests", [60], ready_thread="acceptor")
    jfr = t.path("attached.jfr")
    r = t.run("attach -o x.jfr", [t.cli, "attach", str(jvm.pid), "-d", "3", "-o", jfr], 120)
    ac.expect(t, r, 0, jfr)
    t.check(os.path.isfile(jfr), "no %s after the attach", jfr)
    cpu, n, types = jc.jdk_fold(t, jfr, event="flyprof.ContextSample",
                                where=["endpoint=GET /cpu"])
    t.note("attached: %d context events of GET /cpu; types %s", n, types)
    t.check(n >= 10, "only %d context samples of GET /cpu in the attached file: %s", n, types)
    t.check(types.get("flyprof.ContextSample", 0) <= types.get("jdk.ExecutionSample", 0) +
            types.get("flyprof.WallSample", 0), "more context events than samples: %s", types)
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()


def body(t):
    test(t)
    agent_file(t)
    attached(t)


if __name__ == "__main__":
    ac.main(body, "trace context in JFR: flyprof.ContextSample")
