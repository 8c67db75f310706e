#!/usr/bin/env python3
"""stop_races: a stop that stopped waiting for the wall-clock sampler leaves flyprof's handler
of the wall signal installed, inert, until the sampler has ended; two stops at once (the
duration's end on the writer, `flyprof stop`) are serialized.

The agent's test hook FLYPROF_TEST_SAMPLER_STALL=12 (testhook.h) stalls the sampler's 50th tick
(0.5 s in at wall=10ms) for 12 s after it chose its threads (long enough that a stop begun up
to 7 s in, on a loaded machine, still gives up on it), as a sampler stuck in a JVM call
would; when it resumes it signals the threads it chose (CpuBound's busy `cpu-1` among them).
The stop that comes meanwhile waits 5 s for the sampler and gives up. Before the fix the stop
then put the signal's previous disposition back -- SIG_DFL, whose action for a real-time
signal is to end the process -- and the JVM died when the sampler resumed.

- -agentpath, duration=2s: the writer's stop at the duration's end gives up on the sampler;
  the JVM lives on, exits 0 after its 20 s, and says once that the sampler did not stop.
- attached, duration=2s, then `flyprof stop` 1 s after the duration's end, while the writer's
  stop still waits for the sampler: the second stop waits for the first (before, it skipped
  the waits and gave the signals back at once); the JVM outlives the sampler's resumption and
  a later `flyprof status` answers.
"""
import time

import test_attach_common as ac

ft = ac.ft
STALL = {"FLYPROF_TEST_SAMPLER_STALL": "12"}
SAID = "wall-clock sampler thread did not stop within 5 s"
OPTIONS = "cpu=10ms,wall=10ms,duration=2s"
RUN_S = 20


def agentpath(t):
    r, fpl = t.run_java("agentpath", "CpuBound", [RUN_S, 1], agent_options=OPTIONS, env=STALL,
                        timeout=120)
    said = r.stderr.count(SAID)
    t.note("-agentpath: the JVM exited %s after %.1f s; the agent said %r %d times",
           r.returncode, r.seconds, SAID, said)
    t.check(said == 1, "-agentpath: the agent did not say once that the sampler did not stop "
            "(%d times): %s", said, r.stderr[-1000:])
    ac.check_complete(t, fpl, "-agentpath: the log of a session whose sampler stalled")


def attached(t):
    import os
    jvm = ac.Jvm(t, "attached", "CpuBound", [RUN_S, 1], env=dict(os.environ, **STALL),
                 ready_thread="cpu-1")
    fpl = t.path("attached.fpl")
    t.logs.append(fpl)
    t0 = time.monotonic()
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-o", fpl, OPTIONS])
    ac.expect(t, r, 0, "profiling process %d" % jvm.pid)
    # the duration ends 2 s in: the writer's stop then waits for the stalled sampler until
    # about 7 s; this stop comes in the middle of that wait
    time.sleep(max(0.0, 3.0 - (time.monotonic() - t0)))
    r = ac.flyprof(t, "stop", ["stop", jvm.pid], timeout=60)
    t.note("attached: stop at %.1f s: exit %s after %.1f s: %s", 3.0, r.returncode, r.seconds,
           (r.stdout + r.stderr).strip()[-200:])
    # the sampler resumes about 12.5 s in and signals its chosen threads
    time.sleep(max(0.0, 15.0 - (time.monotonic() - t0)))
    t.check(jvm.alive(), "attached: the JVM died when the stalled sampler resumed (exit "
            "status %s): the wall signal's default action was back; stderr: %s",
            jvm.proc.poll(), jvm.stderr()[-800:])
    ac.status(t, jvm, "status after the sampler resumed")
    said = jvm.stderr().count(SAID)
    t.check(said == 1, "attached: the agent said %r %d times, want once: %s", SAID, said,
            jvm.stderr()[-800:])
    jvm.proc.wait(timeout=60)
    rc = jvm.stop()
    t.check(rc == 0, "attached: the JVM exited with status %s", rc)
    ac.check_complete(t, fpl, "attached: the log of a session whose sampler stalled")


def body(t):
    agentpath(t)
    attached(t)


if __name__ == "__main__":
    ac.main(body, "a stop that gives up on a stalled sampler keeps the wall signal harmless")
