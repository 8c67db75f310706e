#!/usr/bin/env python3
"""stuck_handler: a thread stopped inside the signal handler does not hang the agent's stop or
the JVM's exit.

The agent's test hook (FLYPROF_TEST_HANG_THREAD=stuck-native, testhook.h) makes the first CPU
sample handler run on the thread `stuck-native` never return, as a debugger or a freezer
cgroup stopping that thread inside the handler would. The thread is in native code then
(StuckNative deflates direct buffers with zlib), so the JVM itself never waits for it: only
the agent's own waits are under test. A stop that waits for every handler run to end (the bug
this test was written for) waits forever.

- With -agentpath (cpu=10ms, StuckNative 3 s): the JVM exits 0 on its own within the run's
  timeout, says once on stderr that it stopped waiting for a handler run, and the log is
  complete (END record, every chunk verified) with the burner's samples.
- Attached to a JVM started without the agent: `flyprof start`, then the native thread starts
  (a ThreadStart the agent sees), its handler run hangs (its CPU time stops moving), `flyprof
  stop` returns 0 and the log is complete; a second `flyprof start` is refused with a message
  naming the handler run that has not returned (the ring it may still write cannot be reused);
  the JVM still runs, and ends without crashing.
- Attached with engine=perf, the run hanging while it holds its perf event's fd: after the
  stop no perf event fd is open, and that fd number is held on /dev/null (one more fd on
  /dev/null than before the start; the summary counts it), not closed for the application to
  reuse under a run that could read or re-arm it.
"""
import os
import re
import time

import test_attach_common as ac

HANG = {"FLYPROF_TEST_HANG_THREAD": "stuck-native"}
SAID = "signal handler run did not return"
BURN = "dev.flyprof.workload.StuckNative.burn"


def thread_cpu(pid, name):
    """The CPU ticks (utime + stime) of the thread of pid named name, or None."""
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                if f.read().strip() != name:
                    continue
            with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return int(fields[11]) + int(fields[12])
    except OSError:
        pass
    return None


def wait_stuck(t, pid, name, timeout=60):
    """Waits until thread `name` exists and its CPU time has not moved for a whole second
    (a deflating thread uses a core: it moves by ~100 ticks a second)."""
    deadline = time.monotonic() + timeout
    last, since = None, None
    while time.monotonic() < deadline:
        c = thread_cpu(pid, name)
        now = time.monotonic()
        if c is not None and c == last:
            if now - since >= 1.0:
                return c
        else:
            last, since = c, now
        time.sleep(0.1)
    t.check(False, "thread %r never got stuck in the handler (CPU ticks %s)" % (name, last))


def agentpath(t):
    r, fpl = t.run_java("agentpath", "StuckNative", [3], agent_options="cpu=10ms",
                        env=HANG, timeout=90)
    said = r.stderr.count(SAID)
    t.note("the JVM exited %s after %.1f s; the agent said %r %d times", r.returncode,
           r.seconds, SAID, said)
    t.check(said == 1, "the agent did not say once that it stopped waiting for the stuck "
            "handler run (said %d times): stderr %s", said, r.stderr[-1000:])
    ac.check_complete(t, fpl, "the log of the JVM with a stuck handler run")
    p = t.convert(fpl)
    burn = p.weight(lambda f: p.has(f, BURN))
    t.check(burn >= 20, "the burner has weight %d in the profile (want >= 20)", burn)


def attached(t):
    go = t.path("go")
    jvm = ac.Jvm(t, "stuck", "StuckNative", [600, go], env=dict(os.environ, **HANG),
                 ready_thread="burner")
    fpl = t.path("attached.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-o", fpl])
    ac.expect(t, r, 0, "profiling process %d" % jvm.pid)
    with open(go, "w"):
        pass
    ticks = wait_stuck(t, jvm.pid, "stuck-native")
    t.note("stuck-native is stuck at %d CPU ticks", ticks)
    r = ac.flyprof(t, "stop", ["stop", jvm.pid], timeout=60)
    ac.expect(t, r, 0, "profile written to " + fpl)
    t.note("stop took %.1f s", r.seconds)
    ac.check_complete(t, fpl, "the attached log with a stuck handler run")
    p = t.convert(fpl)
    t.check(p.weight(lambda f: p.has(f, BURN)) >= 1, "no burner samples in the attached log")
    said = jvm.stderr().count(SAID)
    t.check(said == 1, "the agent said %r %d times on the JVM's stderr, want once: %s", SAID,
            said, jvm.stderr()[-1000:])
    again = t.path("again.fpl")
    r = ac.flyprof(t, "start again", ["start", jvm.pid, "-o", again])
    t.note("start again: exit %s: %s", r.returncode, (r.stderr + r.stdout).strip()[-300:])
    t.check(r.returncode != 0 and re.search(r"handler run .*has not returned",
                                            r.stderr + r.stdout),
            "a new start with a handler run still in progress was not refused with a "
            "message naming it (exit %s)", r.returncode)
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()


def attached_perf(t):
    """engine=perf: the run hangs while it holds its perf fd (testhook.h). The stop must not
    close that fd number, which the application could get back from its next open and the run,
    if it ever resumed, would read and re-arm: the number stays open on /dev/null."""
    go = t.path("go-perf")
    jvm = ac.Jvm(t, "stuck-perf", "StuckNative", [600, go], env=dict(os.environ, **HANG),
                 ready_thread="burner")
    nul0 = jvm.fds_to("/dev/null")
    fpl = t.path("attached-perf.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "start perf", ["start", jvm.pid, "-o", fpl, "cpu=10ms,engine=perf"])
    ac.expect(t, r, 0, "profiling process %d" % jvm.pid)
    with open(go, "w"):
        pass
    wait_stuck(t, jvm.pid, "stuck-native")
    perf0 = jvm.fds_to("anon_inode:[perf_event]")
    r = ac.flyprof(t, "stop perf", ["stop", jvm.pid], timeout=60)
    ac.expect(t, r, 0, "profile written to " + fpl)
    perf1, nul1 = jvm.fds_to("anon_inode:[perf_event]"), jvm.fds_to("/dev/null")
    t.note("engine=perf: %d perf fds before the stop, %d after; fds on /dev/null %d -> %d",
           perf0, perf1, nul0, nul1)
    t.check(perf0 > 0, "engine=perf: the JVM had no perf event fds while profiling")
    t.check(perf1 == 0, "engine=perf: %d perf event fds left open after the stop", perf1)
    t.check(nul1 == nul0 + 1, "engine=perf: the stuck run's fd number was not kept on "
            "/dev/null (fds on /dev/null %d before, %d after the stop): it was closed while "
            "a handler run still held it", nul0, nul1)
    s = ac.check_complete(t, fpl, "the perf log with a stuck handler run")
    t.check("perf fds kept open on /dev/null" in s.stdout and
            re.search(r"perf fds kept open on /dev/null[^\n]*: 1\b", s.stdout),
            "the summary does not say that 1 perf fd was kept on /dev/null: %s",
            s.stdout[-1500:])
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()


def body(t):
    agentpath(t)
    attached(t)
    attached_perf(t)


if __name__ == "__main__":
    ac.main(body, "a handler run that never returns does not hang stop or the JVM's exit")
