#!/usr/bin/env python3
"""native_gc: every thread's CPU is sampled, JVM-internal threads included, with native stacks.

GcChurn keeps G1 busy (allocation churn over a large live set): most of the process's CPU goes
to GC worker, concurrent marking and other JVM threads that run no Java. The process's CPU time
is polled from /proc/PID/stat during the run and interpolated at the profile's start and end.
Each profile covers a budget of process CPU time (GcChurn's argument; attached: profiling stops
when the process has spent as much), not of wall time: on a machine other work keeps busy, a
short window would hold little CPU, and the last partial interval of every thread (up to 10 ms
each, never sampled) would weigh more than it does in real use.

Asserted, with the agent loaded at startup (cputimer engine, then perf when perf_event_open
works here) and attached to a JVM already running the workload:
- samples x interval cover >= 95% of the process CPU time over the profile's
  time range, its start to its last CPU sample (with Java threads only, as before native
  stacks, this was ~80%);
- `GC Thread#0` and `G1 Conc#0` appear by their kernel names, carry at least 10% of the weight
  together, and >= 80% of their weight has a demangled libjvm (C++, `A::b`) frame, with no
  Java frame;
- attached: while profiling, the process has exactly one POSIX timer per thread
  (/proc/PID/timers against /proc/PID/task; flyprof's own threads are sampled too), so
  ThreadStart and the /proc scan never both armed a thread, and none is left after the stop.
"""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import native_common as nc  # noqa: E402
import test_attach_common as ac  # noqa: E402

G1 = ["-XX:+UseG1GC", "-Xmx512m", "-Xms512m"]
GC_THREADS = ("GC Thread#0", "G1 Conc#0")
COVERAGE = 0.95
CPU_BUDGET = 6      # seconds of process CPU per profile


def check_profile(t, p, fpl, poller, what, interval=0.01, coverage=COVERAGE):
    start, end = nc.log_window(t, fpl)
    cpu = poller.between(start, end)
    sampled = p.total() * interval
    cov = sampled / cpu if cpu > 0 else 0.0
    tw = sorted(p.thread_weights().items(), key=lambda kv: -kv[1])
    t.note("%s: %.2f s of samples, %.2f s of process CPU over the log's %.2f s: coverage %.4f",
           what, sampled, cpu, end - start, cov)
    t.note("%s threads: %s", what, ", ".join("%s=%d" % kv for kv in tw[:10]))
    t.check(cpu >= 1.0, "%s: only %.2f s of process CPU: the workload did not run", what, cpu)
    t.check(cov >= coverage, "%s: samples cover %.1f%% of the process CPU, want >= %.0f%%",
            what, 100 * cov, 100 * coverage)
    gc = 0
    for name in GC_THREADS:
        th = t.thread_profile(p, name, min_weight=3)
        cpp = th.weight(lambda f: any("::" in x for x in f))
        java = th.weight(lambda f: any(not nc.is_native(x) and not ft.is_marker(x) for x in f))
        t.note("%s %s: weight %d, with a C++ frame %d, with a Java frame %d", what, name,
               th.total(), cpp, java)
        # not 100%: a leaf in libc's memcpy, whose caller in libjvm... is found by frame
        # pointer until the writer has built libjvm's unwind table, and may be skipped
        t.check(cpp / th.total() >= 0.80, "%s: %s has a libjvm C++ frame in %.1f%% of its "
                "weight, want >= 80%%", what, name, 100.0 * cpp / th.total())
        javas = sorted({x for f, _ in th.samples for x in f[1:]
                        if not nc.is_native(x) and not ft.is_marker(x)})
        t.check(java == 0, "%s: %s (no Java thread) has %d weight with Java frames: %s", what,
                name, java, javas[:5])
        gc += th.total()
    t.check(gc / p.total() >= 0.10, "%s: the GC threads have %.1f%% of the weight, want >= 10%%",
            what, 100.0 * gc / p.total())


def run_startup(t, name, options):
    fpl = t.path(name + ".fpl")
    t.logs.append(fpl)
    jvm = ac.Jvm(t, name, "GcChurn", [CPU_BUDGET],
                 jvm_options=G1 + ["-agentpath:%s=%s,file=%s" % (t.agent, options, fpl)],
                 ready_thread=None)
    poller = nc.CpuPoller(jvm.pid)
    try:
        jvm.proc.wait(timeout=180)
    finally:
        poller.stop()
    t.check(jvm.stop() == 0, "%s: the JVM exited with status %s", name, jvm.proc.returncode)
    return fpl, poller


def perf_works(t):
    """Whether the perf engine can start here (a one-off probe run of the CLI's agent)."""
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = int(f.read())
    except (OSError, ValueError):
        return False
    return os.geteuid() == 0 or paranoid <= 2


def timers_vs_threads(t, pid):
    """(POSIX timers, threads) of pid, read back to back."""
    with open("/proc/%d/timers" % pid) as f:
        timers = len(re.findall(r"^ID:", f.read(), re.M))
    return timers, len(os.listdir("/proc/%d/task" % pid))


def body(t):
    fpl, poller = run_startup(t, "startup", "cpu=10ms")
    check_profile(t, t.convert(fpl), fpl, poller, "-agentpath cputimer")

    if perf_works(t):
        fpl, poller = run_startup(t, "perf", "cpu=10ms,engine=perf")
        check_profile(t, t.convert(fpl), fpl, poller, "-agentpath perf")
    else:
        t.note("perf engine not tried: perf_event_paranoid > 2 and not root")

    jvm = ac.Jvm(t, "attached", "GcChurn", [120], jvm_options=G1, ready_thread="churn-1")
    before = nc.proc_cpu(jvm.pid)
    poller = nc.CpuPoller(jvm.pid)
    fpl = t.path("attach.fpl")
    t.logs.append(fpl)
    pairs = []
    try:
        r = ac.flyprof(t, "start", ["start", jvm.pid, "-o", fpl])
        ac.expect(t, r, 0, "profiling process %d" % jvm.pid)
        cpu0 = nc.proc_cpu(jvm.pid)
        time.sleep(1.0)  # the threads are armed
        if os.path.exists("/proc/%d/timers" % jvm.pid):
            for _ in range(5):
                pairs.append(timers_vs_threads(t, jvm.pid))
                time.sleep(0.2)
        deadline = time.monotonic() + 120
        while nc.proc_cpu(jvm.pid) - cpu0 < CPU_BUDGET and time.monotonic() < deadline:
            time.sleep(0.1)
        r = ac.flyprof(t, "stop", ["stop", jvm.pid])
        ac.expect(t, r, 0, "profile written to " + fpl)
    finally:
        poller.stop()
    t.note("process CPU before the attach %.2f s", before)
    # attached, the log once started before the preload of jmethodIDs (0.2 s of thousands of
    # classes, no sample possible): 91.6-97.7% then, 98.3-98.7% since
    check_profile(t, t.convert(fpl), fpl, poller, "attach")
    if pairs:
        t.note("timers vs threads while profiling: %s", pairs)
        # a thread may start or end between the two reads: one of five reads must match
        t.check(any(a == b for a, b in pairs), "POSIX timers never equal the threads: %s "
                "(timers, threads)", pairs)
        t.check(all(a <= b + 1 for a, b in pairs), "more timers than threads: %s", pairs)
    else:
        t.note("no /proc/PID/timers on this kernel: one timer per thread not checked")
    time.sleep(0.5)
    if os.path.exists("/proc/%d/timers" % jvm.pid):
        timers, _ = timers_vs_threads(t, jvm.pid)
        t.check(timers == 0, "%d POSIX timers left after profiling stopped", timers)
    t.check(jvm.alive(), "the JVM died after the attach")
    jvm.stop()


if __name__ == "__main__":
    ac.main(body, "every thread's CPU, GC threads by name with libjvm frames, >= 95% coverage")
