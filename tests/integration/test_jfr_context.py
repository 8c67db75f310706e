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
- alloc, lock and live events of a request have their context too: ContextKinds
  (java/ContextKinds.java: requests of GET /monitor and GET /park allocate, keep objects
  alive and wait for a monitor or a ReentrantLock; the `outside` thread does the same with no
  context) under alloc, lock and live, -agentpath (the agent's file=x.jfr and convert of its
  log, whose context events must equal the file's) and attached (`flyprof start`, the
  agent's file): per kind and per endpoint, the
  flyprof.<event>Context events folded with thread roots, class leaves and weights (bytes,
  ns waited) are exactly `convert --kind K --endpoint E --threads`; so are those of the
  request with the most events of each kind against `--root-span R`; the `outside` thread
  has none; every alloc and lock context event has an event of its own type beside it (no
  more context events than events).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import jfr_common as jc  # noqa: E402
import test_attach_common as ac  # noqa: E402

SECONDS = 4
PKG = "dev.flyprof.workload.TracedRequests."
KINDS_WORKLOAD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java",
                              "ContextKinds.java")
KINDS_OPTIONS = "alloc=16k,lock=1ms,live"
ENDPOINTS = ("GET /monitor", "GET /park")
# per kind: the events, and their context events
KIND_EVENTS = {
    "alloc": ("jdk.ObjectAllocationSample", "flyprof.ObjectAllocationSampleContext"),
    "lock": ("jdk.JavaMonitorEnter,jdk.ThreadPark",
             "flyprof.JavaMonitorEnterContext,flyprof.ThreadParkContext"),
    "live": ("flyprof.LiveObject", "flyprof.LiveObjectContext"),
}
ALL_EVENTS = ",".join(e for e, _ in KIND_EVENTS.values())
ALL_CONTEXTS = ",".join(c for _, c in KIND_EVENTS.values())


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


def busiest_root(t, jfr, event):
    """The rootSpanId with the most events of type(s) event, from `jfr print --json`."""
    r = t.run("jfr print --json " + event, [jc.jdk_bin(t, "jfr"), "print", "--json",
              "--stack-depth", "1", "--events", event, jfr], 300)
    t.check(r.returncode == 0, "jfr print --json failed on %s: %s", jfr, r.stderr[-2000:])
    roots = {}
    for e in json.loads(r.stdout)["recording"]["events"]:
        root = e["values"]["rootSpanId"]
        roots[root] = roots.get(root, 0) + 1
    t.check(roots, "no %s events in %s", event, jfr)
    return max(roots, key=lambda k: (roots[k], k))


def check_kinds(t, jfr, fpl, what, kinds=("alloc", "lock", "live")):
    """jfr's context events of each kind against `convert --kind K` of fpl, per endpoint and
    for the busiest request."""
    _, _, types = jc.jdk_fold(t, jfr, event="jdk.ObjectAllocationSample")
    t.note("%s: event types %s", what, types)
    for k in kinds:
        events, ctx = KIND_EVENTS[k]
        for ev, cev in zip(events.split(","), ctx.split(",")):
            if k != "live":  # a live object's context came with its allocation's
                t.check(types.get(cev, 0) <= types.get(ev, 0), "%s: %d %s events, %d %s",
                        what, types.get(cev, 0), cev, types.get(ev, 0), ev)
        for ep in ENDPOINTS:
            seen, n, _ = jc.jdk_fold(t, jfr, threads=True, event=ctx, weights=True,
                                     where=["endpoint=" + ep],
                                     name="JfrCheck %s %s %s" % (what, k, ep))
            want = jc.folded(t, fpl, ["--kind", k, "--endpoint", "^%s$" % ep, "--threads"],
                             "%s-%s-%s" % (what, k, ep.split("/")[1]))
            t.check(n >= 5, "%s: only %d %s context events of %s", what, n, k, ep)
            jc.same(t, seen, want, "%s: %s context events of %s vs folded --kind %s --endpoint"
                    % (what, k, ep, k))
        root = busiest_root(t, jfr, ctx)
        seen, n, _ = jc.jdk_fold(t, jfr, threads=True, event=ctx, weights=True,
                                 where=["rootSpanId=%d" % root],
                                 name="JfrCheck %s %s root %d" % (what, k, root))
        want = jc.folded(t, fpl, ["--kind", k, "--root-span", str(root), "--threads"],
                         "%s-%s-root" % (what, k))
        t.check(n > 0, "%s: no %s context events of root span %d", what, k, root)
        jc.same(t, seen, want, "%s: %s context events of root span %d vs folded --root-span"
                % (what, k, root))
    every, _, _ = jc.jdk_fold(t, jfr, threads=True, event=ALL_CONTEXTS)
    out = sum(v for key, v in every.items() if key.split(";")[0] == "outside")
    t.check(out == 0, "%s: %d context events on the thread outside every request", what, out)
    plain, _, _ = jc.jdk_fold(t, jfr, threads=True, event=ALL_EVENTS)
    t.check(any(key.split(";")[0] == "outside" for key in plain), "%s: the outside thread "
            "has no alloc or lock events (the check above proves nothing)", what)


def kinds_agentpath(t):
    """ContextKinds under -agentpath: the agent's own file=x.jfr and convert of its log."""
    jfr, fpl = t.path("kinds.jfr"), t.path("kinds.fpl")
    t.logs.append(fpl)
    cmd = [t.java, "-agentpath:%s=%s,file=%s,log=%s" % (t.agent, KINDS_OPTIONS, jfr, fpl),
           "-cp", t.jar, KINDS_WORKLOAD, str(SECONDS)]
    r = t.run("agentpath ContextKinds", cmd, 180)
    t.check_jvm(r)
    t.check(r.results.get("bound") == "true", "Context was not bound by the agent")
    t.check(os.path.isfile(jfr), "no %s after the JVM's exit", jfr)
    check_kinds(t, jfr, fpl, "agent's file")
    # convert of the log writes the same context events (the agent renders through it)
    conv = jc.convert_jfr(t, fpl, [], "kinds-converted")
    seen, _, _ = jc.jdk_fold(t, conv, threads=True, weights=True, event=ALL_CONTEXTS)
    want, _, _ = jc.jdk_fold(t, jfr, threads=True, weights=True, event=ALL_CONTEXTS)
    jc.same(t, seen, want, "convert vs the agent's file: alloc, lock and live context events")


def kinds_attached(t):
    """ContextKinds attached with flyprof start, the agent's own file at the JVM's exit."""
    jfr, fpl = jc.attach_to_exit(t, "kinds_attached", KINDS_WORKLOAD, [SECONDS], "alloc,lock",
                                 "holder", KINDS_OPTIONS.split(","), timeout=180)
    check_kinds(t, jfr, fpl, "attached")


def body(t):
    test(t)
    agent_file(t)
    attached(t)
    kinds_agentpath(t)
    kinds_attached(t)


if __name__ == "__main__":
    ac.main(body, "trace context in JFR: flyprof.ContextSample and the alloc, lock and live "
            "events' context events")
