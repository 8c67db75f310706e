#!/usr/bin/env python3
"""itimer_weights: the process-wide engines weigh their samples right. Two threads, `heavy`
and `light`, burn CPU (TwoThreads, both on CPU at once a quarter of the time); the CPU weight
charged to the two of them, times the interval, must match the CPU time they measured
themselves within 5% (itimer: 10%, see below).

- engine=itimer at 5 ms with -agentpath. The kernel sends at most one ITIMER_PROF signal per
  tick (4 ms of one CPU at HZ=250), so each signal is weighed by the process CPU time elapsed
  since the time already handed out. Rounding each signal on its own, without carrying the
  remainder, charged 1.29-1.42 times the real CPU. The elapsed process CPU includes the JIT's
  and GC's, charged to whichever worker the signal lands on: 10% allowed.
- engine=itimer at 5 ms attached to a running JVM: the threads' CPU over the profiled window
  comes from /proc/PID/task/TID/schedstat read just before `flyprof start` and just after
  `flyprof stop`, so it covers a little more than the profile (the attach itself): the ratio
  must lie in [0.90, 1.05].
- engine=perf at 5 ms with -agentpath, the other engine with weights from a counter (skipped
  with a note where perf_event_open is not allowed).
"""
import os
import time

import test_attach_common as ac

ft = ac.ft
SECONDS = 6
INTERVAL_NS = 5_000_000


def weight_of(p, names):
    tw = p.thread_weights()
    return sum(tw.get(n, 0) for n in names)


def agentpath(t, engine):
    run, fpl = t.run_java("two_threads_" + engine, "TwoThreads", [SECONDS, "parallel"],
                          agent_options="cpu=5ms,engine=" + engine)
    p = t.convert(fpl)
    w = weight_of(p, ("heavy", "light"))
    cpu = run.num("heavy_cpu_ns") + run.num("light_cpu_ns")
    t.note("%s -agentpath: heavy+light weight %d x 5 ms = %.3f s, their own CPU %.3f s", engine,
           w, w * INTERVAL_NS / 1e9, cpu / 1e9)
    # itimer charges the process CPU elapsed since the last signal to the thread it lands on:
    # the JIT's and GC's CPU in between goes to the workers too. 1.00-1.02 on an idle machine,
    # 1.08 seen at load average 8; without the carried remainder it was 1.29-1.42
    tol = 0.10 if engine == "itimer" else 0.05
    t.close_to(w * INTERVAL_NS / cpu, 1.0, tol,
               "%s -agentpath: sampled CPU / the threads' own CPU" % engine)


def sched_ns(pid, tid):
    with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
        return int(f.read().split()[0])


def tids_named(pid, names):
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                comm = f.read().strip()
        except OSError:
            continue
        if comm in names:
            out[comm] = int(tid)
    return out


def attached(t):
    jvm = ac.Jvm(t, "two_threads_attach", "TwoThreads", [600, "parallel"],
                 ready_thread="heavy")
    jvm.wait_ready("light")
    tids = tids_named(jvm.pid, ("heavy", "light"))
    t.check(len(tids) == 2, "threads heavy and light not both found: %s", tids)
    time.sleep(1.0)  # past the JIT's first compilations
    fpl = t.path("attach_itimer.fpl")
    t.logs.append(fpl)
    c0 = sum(sched_ns(jvm.pid, x) for x in tids.values())
    r = ac.flyprof(t, "start itimer", ["start", jvm.pid, "-e", "cpu", "-i", "5ms", "-o", fpl,
                                       "engine=itimer"])
    ac.expect(t, r, 0)
    time.sleep(SECONDS)
    r = ac.flyprof(t, "stop itimer", ["stop", jvm.pid])
    ac.expect(t, r, 0)
    c1 = sum(sched_ns(jvm.pid, x) for x in tids.values())
    p = t.convert(fpl)
    w = weight_of(p, ("heavy", "light"))
    ratio = w * INTERVAL_NS / (c1 - c0)
    t.note("itimer attached: heavy+light weight %d x 5 ms = %.3f s, their CPU over the window "
           "%.3f s: ratio %.4f (want 0.90 .. 1.05)", w, w * INTERVAL_NS / 1e9, (c1 - c0) / 1e9,
           ratio)
    t.check(0.90 <= ratio <= 1.05, "itimer attached: sampled CPU / the threads' CPU is %.4f, "
            "want 0.90 .. 1.05", ratio)
    jvm.stop()


def perf_allowed():
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            level = int(f.read())
    except (OSError, ValueError):
        return False
    return os.geteuid() == 0 or level <= 2


def body(t):
    agentpath(t, "itimer")
    attached(t)
    if perf_allowed():
        agentpath(t, "perf")
    else:
        t.note("perf_event_open is not allowed here: engine=perf not run")


if __name__ == "__main__":
    ac.main(body, "itimer and perf weights add up to the sampled threads' CPU time")
