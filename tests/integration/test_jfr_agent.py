#!/usr/bin/env python3
"""jfr_agent: the agent writes JFR itself at stop (`file=x.jfr`), loaded with -agentpath and
attached, and the JDK's own reader reads it.

- -agentpath (Split123 for 3 s, cpu=10ms, file=x.jfr, log=x.fpl to keep the log the agent
  rendered from): the JVM's exit leaves x.jfr and no x.jfr.fpl; RecordingFile
  (java/JfrCheck.java) folds its jdk.ExecutionSample events, with thread roots, into exactly
  the lines and counts of `flyprof convert x.fpl --threads -o x.collapsed`; the worker's
  units are 1:2:3 within 5 points; each event is at its own sample's time
  (jfr_common.check_sample_times: the spill is made beside the output).
- Java thread ids, both ways: the JDK's reader gives `split-worker` (and `main` when it has
  samples) the javaThreadId that the workload printed from Thread.getId(), one id per name
  (a writer that left it 0 reads as -1; one that mixed threads up gives another id).
- attached (`flyprof attach PID -d 3 -o x.jfr` on a running Split123): the CLI reports the
  output written; RecordingFile reads it; it holds jdk.ExecutionSample events of the
  `split-worker` thread (at least 10: a CPU-bound worker gives ~100 a second, a machine loaded
  by other work far fewer, as test_attach says), and at least 80% of them are in one of the
  units (the agent's own threads, busy building unwind tables after an attach, are apart);
  the worker's events are at their samples' own times, not at the timeline's bin starts
  (jfr_common.check_unbinned).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jfr_common as jc  # noqa: E402
import test_attach_common as ac  # noqa: E402
import test_jfr as tj  # noqa: E402

WORKER = "split-worker"


def check_ids(t, jfr, printed, what):
    """The Java thread ids the JDK's reader sees for the workload's threads are those it
    printed (result main_thread_id, worker_thread_id)."""
    ids = jc.thread_ids(t, jfr)
    t.note("%s: thread ids %s; printed %s", what, sorted(ids)[:8], printed)
    for name, key in ((WORKER, "worker_thread_id"), ("main", "main_thread_id")):
        seen = {i for n, i in ids if n == name}
        if name == WORKER or seen:
            t.check(seen == {int(printed[key])}, "%s: %s has javaThreadId %s, the workload "
                    "printed %s", what, name, sorted(seen), printed[key])


def agentpath(t):
    jfr, log = t.path("agent.jfr"), t.path("agent.fpl")
    cmd = [t.java, "-agentpath:%s=cpu=10ms,file=%s,log=%s" % (t.agent, jfr, log), "-cp", t.jar,
           "dev.flyprof.workload.Split123", "3"]
    t.logs.append(log)
    r = t.run("agentpath file=x.jfr", cmd, 180)
    t.check(r.returncode == 0, "the JVM exited %s: %s", r.returncode, r.stderr[-1500:])
    t.check(os.path.isfile(jfr), "no %s after the JVM's exit; stderr: %s", jfr,
            r.stderr[-1500:])
    t.check(not os.path.exists(jfr + ".fpl"), "a stray %s.fpl", jfr)
    seen, events, types = jc.jdk_fold(t, jfr, threads=True)
    want = jc.folded(t, log, ["--threads"], "agent")
    jc.same(t, seen, want, "agent's own file=x.jfr vs its log folded")
    t.check(events > 100, "only %d samples", events)
    shares = tj.unit_shares(seen)
    for u, s in (("unitA", 1 / 6), ("unitB", 2 / 6), ("unitC", 3 / 6)):
        t.close_to(shares[u], s, 0.05, "agentpath: %s share" % u)
    check_ids(t, jfr, r.results, "agentpath")
    jc.check_sample_times(t, jfr, log, "agentpath")


def attached(t):
    jvm = ac.Jvm(t, "split", "Split123", [60])
    jfr = t.path("attached.jfr")
    r = t.run("attach -o x.jfr", [t.cli, "attach", str(jvm.pid), "-d", "3", "-o", jfr], 120)
    ac.expect(t, r, 0, jfr)
    t.check(os.path.isfile(jfr), "no %s after the attach", jfr)
    seen, events, types = jc.jdk_fold(t, jfr, threads=True)
    worker = sum(n for k, n in seen.items() if k.split(";")[0] == WORKER)
    t.note("attached: %d events, %d of %s; types %s", events, worker, WORKER, types)
    t.check(worker >= 10, "%d samples of %s in 3 s at 10 ms", worker, WORKER)
    units = sum(n for k, n in seen.items() if k.split(";")[0] == WORKER and
                any(tj.PKG + u in k.split(";") for u in ("unitA", "unitB", "unitC")))
    t.check(units >= 0.8 * worker, "%d of %s's %d samples are in a unit", units, WORKER, worker)
    printed = {}
    for line in jvm.stdout().splitlines():
        if line.startswith("result "):
            printed.update(kv.split("=", 1) for kv in line.split()[1:])
    t.check("worker_thread_id" in printed, "the workload printed no thread ids: %s",
            jvm.stdout()[-500:])
    check_ids(t, jfr, printed, "attached")
    jc.check_unbinned(t, jfr, WORKER, "attached")
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()


def body(t):
    agentpath(t)
    attached(t)


if __name__ == "__main__":
    ac.main(body, "the agent's own file=x.jfr, -agentpath and attached")
