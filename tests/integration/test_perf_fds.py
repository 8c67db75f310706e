#!/usr/bin/env python3
"""perf_fds: engine=perf works whatever the numbers of its file descriptors. ManyFds opens
17000 descriptors first (a server's sockets), so every perf event flyprof opens for the busy
`fd-worker` thread gets a number above 16384, where main's handler kept no table: it did not
recognize the event's signal, never re-armed it and never counted it (the worker got at most
one sample).

With -agentpath (the event opens at the worker's ThreadStart) and attached (the event opens at
`flyprof start`, 10 ms): the worker's CPU weight x 10 ms over its CPU time must be 0.85 .. 1.10
(its own measure with -agentpath; schedstat over the profiled window when attached).

The JVM raises its soft descriptor limit to the hard one; the test runs it under
`prlimit --nofile=65536` when the hard limit is lower (that takes CAP_SYS_RESOURCE), and is
skipped (77) when that is not possible.
"""
import os
import resource
import shutil
import subprocess
import time

import test_attach_common as ac

ft = ac.ft
NFDS = 17000
INTERVAL_NS = 10_000_000
OPTIONS = "cpu=10ms,engine=perf"


def prefix():
    """The command prefix that lets the JVM open NFDS descriptors, or None."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY or hard >= NFDS + 2000:
        return []
    pre = [shutil.which("prlimit") or "prlimit", "--nofile=65536:65536", "--"]
    try:
        ok = subprocess.run(pre + ["true"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        ok = False
    return pre if ok else None


def sched_ns(pid, tid):
    with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
        return int(f.read().split()[0])


def tid_of(pid, name):
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                if f.read().strip() == name:
                    return int(tid)
        except OSError:
            pass
    return None


def body(t):
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        paranoid = int(f.read())
    if os.geteuid() != 0 and paranoid > 2:
        ft.skip("perf_fds", "perf_event_paranoid is %d" % paranoid)
    pre = prefix()
    if pre is None:
        ft.skip("perf_fds", "the descriptor limit is below %d and cannot be raised" % NFDS)

    # -agentpath: the worker's event opens after the 17000 descriptors
    fpl = t.path("perf_fds_agentpath.fpl")
    cmd = pre + [t.java, "-agentpath:%s=%s,file=%s" % (t.agent, OPTIONS, fpl), "-cp", t.jar,
                 ft.WORKLOAD_PKG + "ManyFds", str(NFDS), "3"]
    t.logs.append(fpl)
    run = t.run("perf_fds_agentpath", cmd, 180)
    t.check_jvm(run)
    t.check(int(run.num("fds_open")) == NFDS, "the JVM opened %s descriptors", run.num("fds_open"))
    p = t.convert(fpl)
    w = p.thread_weights().get("fd-worker", 0)
    ratio = w * INTERVAL_NS / run.num("worker_cpu_ns")
    t.note("-agentpath: fd-worker weight %d x 10 ms over its own CPU %.2f s: %.3f", w,
           run.num("worker_cpu_ns") / 1e9, ratio)
    t.check(0.85 <= ratio <= 1.10, "-agentpath: the worker's sampled CPU over its CPU is %.3f, "
            "want 0.85 .. 1.10", ratio)

    # attached: the event opens at start, above the JVM's 17000 descriptors
    jvm = start_jvm(t, pre)
    worker = tid_of(jvm.pid, "fd-worker")
    t.check(jvm.fds() > NFDS, "the JVM has only %d descriptors open", jvm.fds())
    fpl = t.path("perf_fds_attach.fpl")
    t.logs.append(fpl)
    c0 = sched_ns(jvm.pid, worker)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-o", fpl, OPTIONS])
    ac.expect(t, r, 0)
    time.sleep(3)
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0)
    c1 = sched_ns(jvm.pid, worker)
    p = t.convert(fpl)
    w = p.thread_weights().get("fd-worker", 0)
    ratio = w * INTERVAL_NS / (c1 - c0)
    t.note("attached: fd-worker weight %d x 10 ms over its CPU in the window %.2f s: %.3f", w,
           (c1 - c0) / 1e9, ratio)
    t.check(0.85 <= ratio <= 1.10, "attached: the worker's sampled CPU over its CPU is %.3f, "
            "want 0.85 .. 1.10", ratio)
    jvm.stop()


def start_jvm(t, pre):
    """A long ManyFds JVM without the agent, started through the prlimit prefix if any (Jvm runs
    t.java: a wrapper script that execs prlimit, which execs java, keeps the pid the JVM's)."""
    real = t.java
    if pre:
        wrapper = t.path("java-prlimit.sh")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\nexec %s %s \"$@\"\n" % (" ".join(pre), real))
        os.chmod(wrapper, 0o755)
        t.java = wrapper
    try:
        return ac.Jvm(t, "perf_fds_attach", "ManyFds", [NFDS, 600], ready_thread="fd-worker")
    finally:
        t.java = real


if __name__ == "__main__":
    ac.main(body, "perf events on descriptors above 16384 are sampled at the right rate")
