#!/usr/bin/env python3
"""churn: about 1000 threads started and ended per second for 10 s (ThreadChurn.java) under
`cpu=10ms,wall=20ms`, watched from outside while it runs; then 3 s of the same churn with the
agent loaded but profiling stopped (Flyprof.stop() first).

Asserts, profiling:
- the JVM exits 0 without a crash and the log is complete (END read by test_wall_fpl.py, no
  "cut off" in the summary), with CPU and wall samples;
- the workload really churned: >= 5000 threads started and joined;
- no leak of POSIX timers or fds: counted from outside (/proc/PID/timers `ID:` lines, entries
  of /proc/PID/fd) when the workload reports 2 s and 9 s of churn, the counts differ by at most
  12 timers (one CPU timer per live Java thread: at most 10 churn threads are alive at once)
  and 2 fds, and 2 s after the churn there is no more than one timer per live thread (+2; the
  JVM starts JIT threads of its own as the load comes and goes);
- memory: VmRSS grows by less than 20 MB between 2 s and 9 s. The heap is fixed and touched
  up front (-Xms128m -Xmx128m -XX:+AlwaysPreTouch) so that the figure is native memory, not
  the young generation filling. Measured: +2.0 MB without the agent, +2.8-3.4 MB with it; 20 MB
  is ~3 KB per churned thread, so a per-thread native leak of that size fails;
- registry slots: the agent's live-thread count (`threads=` of Flyprof.status(), printed by the
  workload) returns to its value before the churn (+2);
- no thread kept alive by the agent: 5 s after the churn (the writer retires dead registry
  entries about 2-3 s after their ThreadEnd), and after a few GCs, at most 100 of the churned
  java.lang.Thread objects are still reachable (the workload holds weak references only; an
  entry whose JNI global ref is never deleted keeps its Thread, and all it references, alive).
Not profiling (agent loaded, stopped): exit 0 and at most 100 of the churned threads retained.
"""
import os
import queue
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_wall_fpl as fpl  # noqa: E402

SECONDS = 10
RATE = 1000
SETTLE = 5
HEAP = ["-Xms128m", "-Xmx128m", "-XX:+AlwaysPreTouch"]
MAX_RETAINED = 100


def proc_figures(pid):
    """(POSIX timers, fds, VmRSS kB, threads) of a live process, or None once it is gone."""
    d = "/proc/%d" % pid
    try:
        with open(d + "/timers") as f:
            timers = sum(1 for line in f if line.startswith("ID:"))
        fds = len(os.listdir(d + "/fd"))
        with open(d + "/status") as f:
            rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        threads = len(os.listdir(d + "/task"))
        return timers, fds, rss, threads
    except (OSError, StopIteration):
        return None


def run_watched(t, name, args, agent_options, timeout=240):
    """Runs ThreadChurn under the agent and measures it from outside at its phase lines:
    returns (Run, fpl path, {phase: (timers, fds, rss_kb)}); phases churn_start, second=2,
    second=9, after (2 s after churn_end)."""
    path = t.path(name + ".fpl")
    cmd = [t.java, "-agentpath:%s=%s,file=%s" % (t.agent, agent_options, path)] + HEAP + \
        ["-cp", t.jar, ft.WORKLOAD_PKG + "ThreadChurn"] + [str(a) for a in args]
    t.logs.append(path)
    errf = open(t.path(name + ".stderr"), "w+")
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=errf, stdin=subprocess.DEVNULL,
                         text=True, errors="replace", cwd=t.tmp)
    lines = queue.Queue()

    def reader():
        for line in p.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()
    out, seen, after_at, timed_out = [], {}, None, False
    while True:
        if time.monotonic() - t0 > timeout:
            p.kill()
            timed_out = True
            break
        if after_at and time.monotonic() >= after_at and "after" not in seen:
            seen["after"] = proc_figures(p.pid)
        try:
            line = lines.get(timeout=0.05)
        except queue.Empty:
            continue
        if line is None:
            break
        out.append(line)
        w = line.split()
        if len(w) >= 2 and w[0] == "phase":
            if w[1] in ("churn_start", "second=2", "second=9"):
                seen[w[1]] = proc_figures(p.pid)
            elif w[1] == "churn_end":
                after_at = time.monotonic() + 2
    p.wait()
    errf.seek(0)
    proc = subprocess.CompletedProcess(cmd, None if timed_out else p.returncode, "".join(out),
                                       errf.read())
    errf.close()
    r = ft.Run(name, cmd, proc, time.monotonic() - t0, timed_out)
    t.runs.append(r)
    t.check_jvm(r)
    t.check(os.path.isfile(path) and os.path.getsize(path) > 0, "%s: no log at %s", name, path)
    return r, path, seen


def note_retained(t, r, what):
    t.note("%s: %d threads started, %d joined, %d still reachable after the churn, %d s and GCs",
           what, r.num("started"), r.num("joined"), r.num("retained"), SETTLE)


def check_retained(t, r, what):
    started, retained = r.num("started"), r.num("retained")
    t.check(r.num("joined") == started, "%s: started %d threads but joined %d", what, started,
            r.num("joined"))
    t.check(retained <= MAX_RETAINED, "%s: %d of %d ended threads are still reachable %d s after "
            "the churn (want <= %d): something outside the application keeps their "
            "java.lang.Thread objects (the agent's registry entries and their JNI global refs)",
            what, retained, started, SETTLE, MAX_RETAINED)


def test(t):
    r, path, seen = run_watched(t, "churn", [SECONDS, RATE, SETTLE], "cpu=10ms,wall=20ms")
    for ph in ("churn_start", "second=2", "second=9", "after"):
        t.check(seen.get(ph), "churn: no measurement at phase %s (the workload's phase lines: "
                "%s)", ph, [ln.strip() for ln in r.stdout.splitlines() if ln.startswith("phase")])
        t.note("churn: at %-11s timers %d, fds %d, VmRSS %.1f MB, threads %d", ph, seen[ph][0],
               seen[ph][1], seen[ph][2] / 1024, seen[ph][3])
    started = r.num("started")
    t.check(started >= SECONDS * RATE / 2, "churn: only %d threads started in %d s (want >= %d):"
            " the machine is too slow for this test to mean anything", started, SECONDS,
            SECONDS * RATE / 2)
    (t0, f0, _, _), (t2, f2, m2, _), (t9, f9, m9, _), (ta, _, _, na) = (
        seen["churn_start"], seen["second=2"], seen["second=9"], seen["after"])
    t.check(abs(t9 - t2) <= 12, "churn: POSIX timers went from %d at 2 s to %d at 9 s", t2, t9)
    # one timer per live thread: the JVM may have started threads of its own meanwhile (JIT
    # compiler threads come and go with the load), so the bound is the threads alive then
    t.check(ta <= max(t0, na) + 2, "churn: %d POSIX timers 2 s after the churn for %d threads "
            "(%d timers before it)", ta, na, t0)
    t.check(abs(f9 - f2) <= 2 and f2 <= f0 + 2, "churn: fds %d before, %d at 2 s, %d at 9 s",
            f0, f2, f9)
    growth = (m9 - m2) / 1024
    t.note("churn: VmRSS grew %.1f MB between 2 s and 9 s", growth)
    t.check(growth < 20, "churn: VmRSS grew %.1f MB between 2 s and 9 s of churn (want < 20 MB)",
            growth)
    before, after = r.num("agent_threads_before"), r.num("agent_threads_after")
    t.note("churn: agent live threads %d before, %d after", before, after)
    t.check(before > 0 and after <= before + 2, "churn: the agent counts %d live threads after "
            "the churn, %d before", after, before)

    log = fpl.read_fpl(path)
    txt, fig = fpl.summary(t, path)
    t.check(log.end_ticks is not None and not fig["cut_off"], "churn: the log has no END")
    t.check(fig["cpu_samples"] and fig["wall_samples"], "churn: the log lacks CPU or wall "
            "samples (%s)", fig)
    failed = sum(k.failed for k in log.ticks.values())
    t.note("churn: %d wall ticks, %d samples, %d signals failed (threads gone)", len(log.ticks),
           len(log.wall_samples()), failed)
    note_retained(t, r, "churn")

    rs, _, _ = run_watched(t, "churn_stopped", [3, RATE, SETTLE, "stopped"],
                           "cpu=10ms,wall=20ms")
    note_retained(t, rs, "churn, profiling stopped")
    check_retained(t, r, "churn")
    check_retained(t, rs, "churn, profiling stopped")


if __name__ == "__main__":
    ft.main(test, "1000 threads/s for 10 s under cpu+wall: no crash, no leak")
