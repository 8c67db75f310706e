#!/usr/bin/env python3
"""attach_context: dev.flyprof.Context in a JVM started without the agent. TracedRequests
(see test_context.py) runs with its tracer calling Context while the calls are no-ops; its pool
threads exist before the attach, so the natives must register them on their first call.
`flyprof attach -e cpu,wall -i 10ms --wall 10ms -d 5` binds the natives and records.

Asserted: everything test_context.check_log asserts (selection by endpoint with >= 95% in
each handler, states, no context outside requests, the handoff across two threads,
--root-span/--span against the log's own weights, pprof -tagfocus, summary endpoints), on
the attach log; and the JVM survives and ends normally.
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_attach_common as ac  # noqa: E402
import test_context as tc  # noqa: E402


def test(t):
    # 11 s: the attach's 5 s end about 6.5 s in, its checks take well under a second, and the
    # test then waits for the JVM to end by itself
    jvm = ac.Jvm(t, "traced", "TracedRequests", [11], ready_thread="lock-holder")
    time.sleep(1.0)  # requests are served with Context unbound for a while
    a = t.path("attach.fpl")
    t.logs.append(a)
    r = ac.flyprof(t, "attach", ["attach", jvm.pid, "-e", "cpu,wall", "-i", "10ms", "--wall",
                                 "10ms", "-d", "5", "-o", a])
    ac.expect(t, r, 0)
    tc.check_log(t, a, None, "attach")
    t.check(jvm.alive(), "the JVM died after the attach")
    jvm.proc.wait(timeout=60)
    rc = jvm.stop()  # ended by itself: checks for a crash, reports its output
    t.check(rc == 0, "the JVM exited with status %s", rc)
    t.check("bound=true" in jvm.stdout(), "the workload did not see Context bound: %s",
            jvm.stdout()[-300:])


if __name__ == "__main__":
    ac.main(test, "dev.flyprof.Context after flyprof attach")
