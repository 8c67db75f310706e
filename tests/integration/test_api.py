#!/usr/bin/env python3
"""api: the Java API (dev.flyprof.Flyprof, dev.flyprof.ThreadFilter) with and without the
agent, driven step by step by ApiUse.java, which reports each call's value or exception.

Asserts, agent started with `cpu=10ms,file=x.fpl`:
- isLoaded() is true; status() says running=1 cpu=10000000; stop() works and status() then
  says running=0; stop() again throws IllegalStateException carrying the agent's message
  ("not running"), and so does dump() while stopped;
- start("cpuu=1,...") throws IllegalArgumentException naming `cpuu` and creates no file;
  start("idle") throws IllegalArgumentException (idle is a load option; it used to start the
  default profile) and leaves profiling stopped;
  start("cpu=5ms,file=y.fpl") works (status: running=1 cpu=5000000, file y.fpl); start() while
  running throws IllegalStateException ("already running") and creates no file;
  dump("z.fpl") while running works, dump("") throws IllegalArgumentException;
- the logs: x.fpl and y.fpl are complete (END; the summary exits 0) with CPU samples, y.fpl at
  5 ms; z.fpl, a copy taken while running, decodes chunk by chunk (every CRC verifies), has
  samples and no END (it is a prefix), and the summary reads it (exit 0);
- ThreadFilter: isMarked() false, add() -> true, false on another thread, remove() -> false.
Without the agent: isLoaded() false, every call returns normally (no UnsatisfiedLinkError, no
exception at all, dump("") included), status() says the agent is not loaded,
ThreadFilter.isMarked() stays false after add(), and no file is written.
Agent started with `wall=20ms` only: status() says wall=20000000 cpu=0 and w.fpl gets wall
samples and no CPU samples; after stop(), start("wall=10ms,wallthreads=2,...") from Java gives
w2.fpl with a 10 ms, 2-thread header, ticks choosing at most 2 threads, and wall samples of
the workload's sleeping threads; then start("cpu=10ms,wall=20ms,...") gives w3.fpl with both
kinds.
Agent loaded `idle` (-agentpath:...=idle): no log is written at startup or exit; isLoaded() is
true and status() says running=0; start("cpu=5ms,file=i.fpl") from Java works and i.fpl is a
complete 5 ms CPU log. `idle,cpu=5ms` is refused at startup with a message naming idle.
Sample counts are floors far below what the workload produces on an idle machine (1 s of CPU
at 10 ms is 100 samples; >= 10 is asked), because other builds may share the cores.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_wall_fpl as fpl  # noqa: E402


def steps(t, run):
    """{step: (outcome, rest)} from the `api NAME ok|threw ...` lines."""
    out = {}
    for line in run.stdout.splitlines():
        w = line.split(" ", 3)
        if len(w) >= 3 and w[0] == "api":
            out[w[1]] = (w[2], w[3] if len(w) > 3 else "")
    t.check(out, "%s: printed no `api` lines", run.name)
    return out


def status_kv(s):
    return dict(kv.split("=", 1) for kv in s.split(" ") if "=" in kv)


class Steps:
    def __init__(self, t, run):
        self.t = t
        self.name = run.name
        self.s = steps(t, run)

    def get(self, step):
        self.t.check(step in self.s, "%s: step %s did not run", self.name, step)
        return self.s[step]

    def ok(self, step, value=None):
        outcome, rest = self.get(step)
        self.t.check(outcome == "ok", "%s: %s threw %s", self.name, step, rest)
        if value is not None:
            self.t.check(rest == value, "%s: %s returned %r, want %r", self.name, step, rest,
                         value)
        return rest

    def threw(self, step, exc, words):
        outcome, rest = self.get(step)
        self.t.check(outcome == "threw", "%s: %s returned normally (%s), want %s", self.name,
                     step, rest, exc)
        cls, _, msg = rest.partition(" ")
        self.t.check(cls == exc, "%s: %s threw %s, want %s (%s)", self.name, step, cls, exc, msg)
        for w in words:
            self.t.check(w in msg, "%s: %s: %s's message %r does not say %r", self.name, step,
                         exc, msg, w)
        self.t.note("%s: %s threw %s: %s", self.name, step, cls, msg[:120])

    def status(self, step, **want):
        kv = status_kv(self.ok(step))
        for k, v in want.items():
            self.t.check(kv.get(k) == str(v), "%s: %s: status says %s=%s, want %s", self.name,
                         step, k, kv.get(k), v)
        return kv


def complete_log(t, path, kinds, min_samples=10):
    log = fpl.read_fpl(path)
    _, fig = fpl.summary(t, path)
    t.check(log.end_ticks is not None and not fig["cut_off"], "%s: no END (cut off)", path)
    for k in ("cpu", "wall"):
        n = len(log.cpu_samples() if k == "cpu" else log.wall_samples())
        if k in kinds:
            t.check(n >= min_samples, "%s: %d %s samples, want >= %d", path, n, k, min_samples)
        else:
            t.check(n == 0, "%s: %d %s samples, want none", path, n, k)
    return log


def test(t):
    d = t.tmp
    # -- with the agent
    run, x = t.run_java("api_agent", "ApiUse", ["agent", d], agent_options="cpu=10ms")
    s = Steps(t, run)
    s.ok("loaded", "true")
    s.status("status_started", running=1, cpu=10000000)
    s.ok("stop")
    s.status("status_stopped", running=0)
    s.threw("stop_again", "java.lang.IllegalStateException", ["not running"])
    s.threw("dump_stopped", "java.lang.IllegalStateException", ["not running"])
    s.threw("start_bad", "java.lang.IllegalArgumentException", ["cpuu"])
    s.threw("start_idle", "java.lang.IllegalArgumentException", ["idle is a load option"])
    s.status("status_after_idle", running=0)
    s.ok("start")
    s.status("status_restarted", running=1, cpu=5000000, file=os.path.join(d, "y.fpl"))
    s.threw("start_running", "java.lang.IllegalStateException", ["already running"])
    t.check(not os.path.exists(os.path.join(d, "y2.fpl")), "a refused start created y2.fpl")
    t.check(not os.path.exists(os.path.join(d, "z0.fpl")), "a refused dump created z0.fpl")
    s.ok("dump")
    s.threw("dump_empty", "java.lang.IllegalArgumentException", [])
    s.ok("stop_restarted")
    s.status("status_end", running=0)
    s.ok("marked_before", "false")
    s.ok("add")
    s.ok("marked_added", "true")
    s.ok("marked_other_thread", "false")
    s.ok("remove")
    s.ok("marked_removed", "false")

    lx = complete_log(t, x, ["cpu"])
    y = os.path.join(d, "y.fpl")
    t.logs.append(y)
    ly = complete_log(t, y, ["cpu"])
    t.check(ly.header["cpu_interval_ns"] == 5_000_000, "y.fpl: CPU interval %d ns, want 5 ms",
            ly.header["cpu_interval_ns"])
    z = os.path.join(d, "z.fpl")
    t.logs.append(z)
    t.check(os.path.isfile(z), "dump wrote no z.fpl")
    lz = fpl.read_fpl(z)
    _, figz = fpl.summary(t, z)
    t.check(lz.header["cpu_interval_ns"] == 5_000_000, "z.fpl is not a copy of y.fpl's session")
    t.check(len(lz.cpu_samples()) >= 5, "z.fpl: %d CPU samples, want >= 5",
            len(lz.cpu_samples()))
    t.check(lz.end_ticks is None and figz["cut_off"], "z.fpl, dumped while running, has an END")
    t.check(len(lz.cpu_samples()) <= len(ly.cpu_samples()), "z.fpl has more samples than y.fpl")
    t.note("agent: x.fpl %d CPU samples, y.fpl %d, z.fpl (dump) %d in %d chunks",
           len(lx.cpu_samples()), len(ly.cpu_samples()), len(lz.cpu_samples()), lz.chunks)

    # -- without the agent
    nd = t.path("noagent")
    os.makedirs(nd)
    run = t.run("api_noagent", [t.java, "-cp", t.jar, ft.WORKLOAD_PKG + "ApiUse", "noagent",
                                nd], 120)
    t.check_jvm(run)
    s = Steps(t, run)
    for step, (outcome, rest) in sorted(s.s.items()):
        t.check(outcome == "ok", "no agent: %s threw %s", step, rest)
    s.ok("loaded", "false")
    for st in ("status_started", "status_stopped", "status_restarted", "status_end"):
        t.check("not loaded" in s.ok(st), "no agent: %s says %r", st, s.ok(st))
    s.ok("marked_added", "false")
    s.ok("marked_removed", "false")
    t.check(not os.listdir(nd), "no agent: the API wrote %s", os.listdir(nd))
    t.note("no agent: %d calls, all no-ops", len(s.s))

    # -- agent loaded with wall only, restarted from Java
    run, w = t.run_java("api_wall", "ApiUse", ["wall", d], agent_options="wall=20ms")
    s = Steps(t, run)
    s.ok("loaded", "true")
    s.status("status_started", running=1, wall=20000000, cpu=0)
    s.ok("stop")
    s.ok("start_wall")
    s.status("status_wall", running=1, wall=10000000, wallthreads=2, cpu=0)
    s.ok("stop_wall")
    s.ok("start_both")
    s.ok("stop_both")
    s.status("status_end", running=0)
    complete_log(t, w, ["wall"])
    w2 = os.path.join(d, "w2.fpl")
    t.logs.append(w2)
    l2 = complete_log(t, w2, ["wall"])
    t.check(l2.header["wall_interval_ns"] == 10_000_000 and l2.header["wall_threads"] == 2,
            "w2.fpl: header says wall %d ns, %d threads; want 10 ms, 2",
            l2.header["wall_interval_ns"], l2.header["wall_threads"])
    t.check(l2.ticks and max(k.chosen for k in l2.ticks.values()) <= 2,
            "w2.fpl: a tick chose more than 2 threads (or no ticks)")
    st = fpl.log_states(l2)
    sleepers = {n: d_ for n, d_ in st.items() if n.startswith("api-sleeper-")}
    t.note("wall: w2.fpl %d ticks, %d wall samples; sleepers: %s", len(l2.ticks),
           len(l2.wall_samples()),
           "; ".join("%s %s" % (n, fpl.fmt_states(v)) for n, v in sorted(sleepers.items())))
    t.check(len(sleepers) == 3, "w2.fpl: wall samples from %d of the 3 sleeping threads",
            len(sleepers))
    for n, v in sleepers.items():
        t.check(max(v, key=v.get) == "sleeping", "w2.fpl: %s is mostly %s", n,
                max(v, key=v.get))
    w3 = os.path.join(d, "w3.fpl")
    t.logs.append(w3)
    complete_log(t, w3, ["cpu", "wall"], min_samples=5)

    # -- agent loaded idle: the application starts profiling itself
    idir = t.path("idle")
    os.makedirs(idir)
    run = t.run("api_idle", [t.java, "-agentpath:%s=idle" % t.agent, "-cp", t.jar,
                             ft.WORKLOAD_PKG + "ApiUse", "idle", idir], 120)
    t.check_jvm(run)
    s = Steps(t, run)
    s.ok("loaded", "true")
    s.status("status_idle", running=0)
    s.ok("start")
    s.status("status_started", running=1, cpu=5000000)
    s.ok("stop")
    i = os.path.join(idir, "i.fpl")
    t.logs.append(i)
    li = complete_log(t, i, ["cpu"])
    t.check(li.header["cpu_interval_ns"] == 5_000_000, "i.fpl: CPU interval %d ns",
            li.header["cpu_interval_ns"])
    t.check(sorted(os.listdir(idir)) == ["i.fpl"] and
            not any(f.startswith("flyprof-") for f in os.listdir(t.tmp)),
            "idle wrote logs of its own: %s %s", os.listdir(idir), os.listdir(t.tmp))
    bad = t.run("api_idle_bad", [t.java, "-agentpath:%s=idle,cpu=5ms" % t.agent, "-version"],
                60)
    t.check(bad.returncode != 0 and "idle loads the agent without profiling" in bad.stderr,
            "idle,cpu=5ms: exit %s, stderr %r", bad.returncode, bad.stderr[-300:])
    t.note("idle: i.fpl %d CPU samples started from Java", len(li.cpu_samples()))


if __name__ == "__main__":
    ft.main(test, "the Java API with and without the agent")
