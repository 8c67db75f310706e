#!/usr/bin/env python3
"""attach_churn: attaching while threads start and end fast leaves no registry entry of a
thread that has ended.

AttachChurn keeps 100 threads alive, each living 1-20 ms (thousands of threads a second). The
first attach adopts the threads it finds running; many of them end while it does. An entry of
a thread that ended during the adoption (the bug this test was written for) stays in the
registry as a live thread for good, its tid mapped to a JNIEnv that no longer exists: handed
to AsyncGetCallTrace if that tid is reused.

A test hook makes the agent wait 30 ms between reading the running threads and adopting them, so
that many threads end in that window (without it one attach in a few hits the race). The
test attaches with cpu and wall sampling (10 ms, every candidate chosen each tick:
wallthreads=1024), lets the churn run on for 1.5 s, stops it (every churn thread joined) and
lets the JVM idle 3 s. The wall sampler reads the state of every registered thread each tick
and counts those that have ended as `failed` in its tick record. Over the last 1.5 s of the
log, long after the last churn thread ended: every tick has failed == 0 (a leaked entry fails
every tick) and no more candidates than the JVM's live threads. The log is complete, has CPU
samples of churn threads, and the JVM survives and ends without a crash.
"""
import os
import time

import test_attach_common as ac
import test_wall_fpl as wf


def body(t):
    quiet = t.path("quiet")
    # the agent waits 30 ms between reading the running threads and adopting them (a hook,
    # FLYPROF_TEST_ADOPT_DELAY_US): most churn threads end in that window
    env = dict(os.environ, FLYPROF_TEST_ADOPT_DELAY_US="30000")
    jvm = ac.Jvm(t, "churn", "AttachChurn", [120, 100, quiet], ready_thread="ac-control",
                 env=env)
    time.sleep(0.5)
    fpl = t.path("churn.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-o", fpl, "-e", "cpu,wall", "-i", "10ms",
                                "--", "wallthreads=1024"])
    ac.expect(t, r, 0, "profiling process %d" % jvm.pid)
    time.sleep(1.5)
    with open(quiet, "w"):
        pass
    deadline = time.monotonic() + 60
    while "phase quiet" not in jvm.stdout() and time.monotonic() < deadline:
        time.sleep(0.1)
    line = [x for x in jvm.stdout().splitlines() if x.startswith("phase quiet")]
    t.check(line, "the churn never went quiet")
    live = int(line[0].split("live=")[1])
    time.sleep(3)
    status = ac.status(t, jvm)
    t.note("after the churn: the JVM has %d live threads; status: %s", live, status.strip())
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0, "profile written to " + fpl)
    ac.check_complete(t, fpl, "the log of the attach in the churn")

    log = wf.read_fpl(fpl)
    ticks = log.sorted_ticks()
    t.check(len(ticks) >= 20, "only %d wall ticks in the log", len(ticks))
    end = log.seconds(ticks[-1].ticks)
    last = [k for k in ticks if log.seconds(k.ticks) >= end - 1.5]
    failed = sum(k.failed for k in last)
    cand = max(k.candidates for k in last)
    t.note("%d ticks in the last 1.5 s: %d failed thread reads, at most %d candidates",
           len(last), failed, cand)
    # 150 on a quiet machine; a loaded one delays the sampler (seen: 31), and a leaked entry
    # fails every tick, so a few ticks are enough to see one
    t.check(len(last) >= 10, "only %d ticks in the last 1.5 s", len(last))
    t.check(failed == 0, "%d reads of ended threads in the %d ticks of the last 1.5 s: the "
            "registry keeps %.1f threads that ended during the attach", failed, len(last),
            failed / len(last))
    t.check(cand <= live, "%d wall candidates after the churn, the JVM has %d live threads",
            cand, live)
    churn = [s for s in log.cpu_samples() if s.thread.startswith("ac-")]
    t.note("%d CPU samples of churn threads", len(churn))
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()
    t.check("flyprof:" not in jvm.stderr(), "the agent complained on the JVM's stderr: %s",
            jvm.stderr()[-1000:])


if __name__ == "__main__":
    ac.main(body, "attach in a thread churn leaves no entry of an ended thread")
