#!/usr/bin/env python3
"""writer_wakeups: the writer thread sleeps until there is work, instead of waking every 10 ms
to look at an empty ring. It wakes once a second (counters, clock anchor, chunk flush) and when
the sample ring is half full (the ring wakes it), stop and dump.

Split123 at cpu=10ms fills the ring with ~100 samples a second, a few KB: the writer's
voluntary context switches (/proc/PID/task/TID/status) over 3 s of steady profiling must be at
most 4 per second, with -agentpath and attached (main's agent: ~100 per second). The profile
must still be complete (the worker's weight matches its CPU) -- checked in the -agentpath
run -- and `flyprof dump` must still return at once with the samples so far (the writer is
woken for it).
"""
import os
import re
import time

import test_attach_common as ac

ft = ac.ft
WINDOW = 3.0
MAX_PER_S = 4.0


def writer_switches(pid):
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                if f.read().strip() != "flyprof writer":
                    continue
            with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                return int(re.search(r"^voluntary_ctxt_switches:\s*(\d+)", f.read(),
                                     re.M).group(1))
        except (OSError, AttributeError):
            continue
    return None


def measure(t, jvm, what):
    time.sleep(1.0)
    a = writer_switches(jvm.pid)
    t.check(a is not None, "%s: no 'flyprof writer' thread in the JVM", what)
    t0 = time.monotonic()
    time.sleep(WINDOW)
    b = writer_switches(jvm.pid)
    rate = (b - a) / (time.monotonic() - t0)
    t.note("%s: the writer woke %d times in %.1f s: %.1f per second (want <= %.0f)", what,
           b - a, time.monotonic() - t0, rate, MAX_PER_S)
    t.check(rate <= MAX_PER_S, "%s: the writer wakes %.1f times a second, want <= %.0f", what,
            rate, MAX_PER_S)


def body(t):
    fpl = t.path("wakeups_agentpath.fpl")
    t.logs.append(fpl)
    jvm = ac.Jvm(t, "wakeups_agentpath", "Split123", [6],
                 jvm_options=["-agentpath:%s=cpu=10ms,file=%s" % (t.agent, fpl)])
    measure(t, jvm, "-agentpath")
    dump = t.path("dump.fpl")
    t0 = time.monotonic()
    r = ac.flyprof(t, "dump", ["dump", jvm.pid, "-o", dump])
    ac.expect(t, r, 0)
    t.note("dump returned in %.2f s", time.monotonic() - t0)
    t.convert(dump)
    jvm.proc.wait(timeout=120)
    t.check(jvm.proc.returncode == 0, "the JVM exited with %s", jvm.proc.returncode)
    res = dict(kv.split("=", 1) for line in jvm.stdout().splitlines()
               if line.startswith("result ") for kv in line.split()[1:])
    p = t.convert(fpl)
    w = p.thread_weights().get("split-worker", 0)
    ratio = w * 10e6 / float(res["worker_cpu_ns"])
    t.note("-agentpath: worker weight x 10 ms / its CPU: %.3f", ratio)
    t.check(0.9 <= ratio <= 1.1, "-agentpath: worker weight x 10 ms / its CPU is %.3f, want "
            "0.9 .. 1.1", ratio)
    jvm.stop()

    jvm = ac.Jvm(t, "wakeups_attach", "Split123", [600])
    fpl = t.path("wakeups_attach.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-e", "cpu", "-i", "10ms", "-o", fpl])
    ac.expect(t, r, 0)
    measure(t, jvm, "attached")
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0)
    t.convert(fpl)
    jvm.stop()


if __name__ == "__main__":
    ac.main(body, "the writer wakes once a second, not every 10 ms")
