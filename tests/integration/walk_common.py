"""walk_common: what the stack-walker tests share (not a test itself).

Each walker test profiles one workload twice, both ways a JVM gets profiled:
- `agentpath`: the agent loaded at startup (-agentpath), for the whole run;
- `attach`: `flyprof start PID` on a JVM started without the agent, once the worker thread has run
  for a while, then `flyprof stop PID`, so every thread it walks predates the agent (no ThreadStart
  ran on it: its stack bounds and JNIEnv come from the JVM's own structures).

The JVM must exit 0 by itself in both cases. Workloads and windows are measured in the worker's
CPU seconds, not wall seconds, so that a loaded machine gives as many samples, later. `Shares`
computes, over one thread's samples, what the tests assert: lost walks, stub frames, stacks
holding a chain of frames.

Terms:
- a *lost walk* is a sample whose stack (below the thread root) is a marker frame alone, such as
  `[agct:unknown_Java]` or `[walk_fault]`: the walker found no frame at all;
- a *stub frame* is a frame that is neither a marker nor a Java method: Java frames are
  `package.Class.method` (a dot before the method), JVM stubs are named as HotSpot names their code
  (`StubRoutines::jbyte_disjoint_arraycopy`, `vtable stub`, `itable stub`, `Interpreter`), with no
  dot.
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_attach_common as ac  # noqa: E402

TestFailure = ft.TestFailure


def is_stub(frame):
    return not ft.is_marker(frame) and "." not in ft.method_of(frame)


class Shares:
    """Shares of one thread's samples (weights): total, lost walks, stub frames, markers."""

    def __init__(self, p, thread):
        self.p = p.thread(thread)
        self.total = self.p.total()
        self.lost = self.p.weight(lambda f: len(f) == 1 and ft.is_marker(f[0]))
        self.stub = self.p.weight(lambda f: any(is_stub(x) for x in f))
        self.markers = self.p.marker_weights()

    def share(self, w):
        return w / self.total if self.total else 0.0

    def chain(self, methods):
        """Weight of the stacks holding methods (root to leaf) as consecutive frames."""
        n = len(methods)

        def has(f):
            names = [ft.method_of(x) for x in f]
            return any(names[i:i + n] == methods for i in range(len(names) - n + 1))
        return self.p.weight(has)

    def describe(self):
        return "total %d, lost walks %d (%.3f%%), stub frames %d (%.2f%%), markers %s" % (
            self.total, self.lost, 100 * self.share(self.lost), self.stub,
            100 * self.share(self.stub), self.markers or "none")


def agentpath(t, name, workload, args, thread, options="cpu=10ms", timeout=240, jvm_options=()):
    """Runs the workload under -agentpath; returns (Run, Shares of `thread`)."""
    run, fpl = t.run_java(name, workload, args, agent_options=options, timeout=timeout,
                          jvm_options=jvm_options)
    p = t.convert(fpl)
    s = Shares(p, thread)
    t.note("%s (agentpath): %s", name, s.describe())
    return run, s


def thread_cpu(jvm, thread):
    """CPU seconds of the JVM's thread named `thread` (from /proc), 0 when not found."""
    tick = os.sysconf("SC_CLK_TCK")
    try:
        for tid in os.listdir("/proc/%d/task" % jvm.pid):
            base = "/proc/%d/task/%s/" % (jvm.pid, tid)
            with open(base + "comm") as f:
                if f.read().strip() != thread:
                    continue
            with open(base + "stat") as f:
                fields = f.read().rpartition(")")[2].split()
            return (int(fields[11]) + int(fields[12])) / tick
    except OSError:
        pass
    return 0.0


def wait_cpu(t, jvm, thread, seconds, timeout=240):
    """Waits until `thread` has used `seconds` of CPU (the machine may be loaded: the test is
    paced by the worker's CPU, not by the clock)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if thread_cpu(jvm, thread) >= seconds:
            return
        t.check(jvm.alive(), "%s: the JVM ended before its %r thread used %.1f s of CPU",
                jvm.name, thread, seconds)
        time.sleep(0.05)
    raise TestFailure("%s: %r used only %.1f s of CPU in %d s" % (
        jvm.name, thread, thread_cpu(jvm, thread), timeout))


def attach(t, name, workload, args, thread, warm_cpu, window_cpu, options=None, interval=None,
           stop_file=False, go_file=False, timeout=240, jvm_options=()):
    """Starts the workload without the agent, waits until `thread` has used `warm_cpu` seconds
    of CPU (the JIT compiled the hot loop), starts profiling it (`flyprof start PID`, with
    `-i interval` and agent `options` when given) until the thread has used `window_cpu` more,
    stops (`flyprof stop PID`), ends the workload (creating the stop file passed as an extra
    argument when `stop_file`) and checks that the JVM exits 0 by itself. With `go_file`, a
    second extra argument names a file created once profiling runs: the workload's thread
    exists before the attach, its loop starts (and is compiled) after. jvm_options go to the
    JVM. Returns (result values, Shares of `thread`)."""
    jvm_options = list(jvm_options) + (["-XX:+EnableDynamicAgentLoading"]
                                       if ac.java_major(t.java) >= 21 else [])
    stop = t.path(name + ".stop")
    go = t.path(name + ".go")
    extra = ([stop] if stop_file or go_file else []) + ([go] if go_file else [])
    jvm = ac.Jvm(t, name, workload, list(args) + extra, jvm_options=jvm_options,
                 ready_thread=thread)
    wait_cpu(t, jvm, thread, warm_cpu, timeout)
    fpl = t.path(name + ".fpl")
    t.logs.append(fpl)
    cmd = ["start", jvm.pid, "-o", fpl]
    if interval:
        cmd += ["-i", interval]
    if options:
        cmd += [options]
    ac.expect(t, ac.flyprof(t, "start " + name, cmd), 0)
    if go_file:
        open(go, "w").close()
    wait_cpu(t, jvm, thread, warm_cpu + window_cpu, timeout)
    ac.expect(t, ac.flyprof(t, "stop " + name, ["stop", jvm.pid]), 0)
    if stop_file or go_file:
        open(stop, "w").close()
    try:
        jvm.proc.wait(timeout=timeout)
    except Exception:  # noqa: BLE001 -- a hang is reported as such below
        pass
    t.check(not jvm.alive(), "%s: the JVM did not end by itself", name)
    code = jvm.stop()
    t.check(code == 0, "%s: the JVM exited with status %s after the attach", name, code)
    results = ft.Run(name, [], None, 0, False)
    for line in jvm.stdout().splitlines():
        if line.startswith("result "):
            for kv in line.split()[1:]:
                k, _, v = kv.partition("=")
                results.results[k] = v
    t.check(results.results, "%s: the JVM printed no result line", name)
    p = t.convert(fpl)
    s = Shares(p, thread)
    t.note("%s (attach): %s", name, s.describe())
    return results, s


def main(body, what):
    ac.main(body, what)
