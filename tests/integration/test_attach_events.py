#!/usr/bin/env python3
"""attach_events: dev.flyprof.Events in a JVM started without the agent. The workload
(EventsLog loop) logs log(i) and log(i, "loop i") from before the attach, while they are
no-ops; `flyprof attach` binds the natives and the events start to be recorded.

Asserted: the attach log holds the loop's events (at least 1000), each i at the position its
drops say (i = previous i + 1 + dropped), strings "loop i" exactly on odd i; a second session
(`flyprof start`, then `stop`) records only events logged after the first one's (its first i
is beyond the first log's last: no stale event of the old session leaks in) with the same
consistency; a `flyprof dump` in that session holds the events drained so far (a prefix of the
session's); the JVM survives both and keeps running.

Then the flood of test_events.py in a JVM started without the agent: 4 threads wait until
`flyprof start` has returned (a file the test creates then), then log 250,000 events each as
fast as they can at the default buffer size; after they are done, `flyprof stop`: the log
holds every event of every thread in order, none dropped, and the buffers did fill (calls
waited).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_attach_common as ac  # noqa: E402
import test_events as te  # noqa: E402
import test_wall_fpl as fpl  # noqa: E402


def check_loop(t, path):
    """The loop's events in the log at path, checked; returns (first i, last i, recorded,
    dropped)."""
    log = fpl.read_fpl(path)
    evs = [e for e in log.events if log.threads.get(e.thread_id, (0, ""))[1] == "ev-loop"]
    others = {log.threads.get(e.thread_id, (0, "?"))[1] for e in log.events} - {"ev-loop"}
    t.check(not others, "%s: events of other threads: %s", path, sorted(others))
    t.check(len(evs) >= 1000, "%s: only %d events of ev-loop", path, len(evs))
    dropped = sum(n for _, n in log.event_drops)
    prev = None
    for e in evs:
        dropped += e.dropped
        if prev is not None:
            t.check(e.n == prev + 1 + e.dropped, "%s: i=%d follows i=%d with %d dropped", path,
                    e.n, prev, e.dropped)
        want = "loop %d" % e.n if e.n % 2 else None
        t.check(e.s == want, "%s: i=%d carries %r, want %r", path, e.n, e.s, want)
        prev = e.n
    return evs[0].n, evs[-1].n, len(evs), dropped


def test(t):
    jvm = ac.Jvm(t, "loop", "EventsLog", ["loop"], ready_thread="ev-loop")
    time.sleep(0.5)  # the loop runs with Events unbound for a while
    a = t.path("a.fpl")
    t.logs.append(a)
    r = ac.flyprof(t, "attach", ["attach", jvm.pid, "-d", "2", "-o", a])
    ac.expect(t, r, 0)
    first_a, last_a, rec_a, drop_a = check_loop(t, a)
    t.note("attach: i from %d to %d, %d recorded, %d dropped", first_a, last_a, rec_a, drop_a)
    t.check(first_a > 0, "a.fpl starts at i=0: the loop logged nothing before the attach?")

    b = t.path("b.fpl")
    t.logs.append(b)
    ac.expect(t, ac.flyprof(t, "start", ["start", jvm.pid, "-o", b]), 0)
    time.sleep(0.5)
    d = t.path("d.fpl")
    t.logs.append(d)
    ac.expect(t, ac.flyprof(t, "dump", ["dump", jvm.pid, "-o", d]), 0)
    time.sleep(0.5)
    ac.expect(t, ac.flyprof(t, "stop", ["stop", jvm.pid]), 0)
    first_d, last_d, rec_d, _ = check_loop(t, d)
    first_b, last_b, rec_b, drop_b = check_loop(t, b)
    t.note("second session: i from %d to %d, %d recorded, %d dropped", first_b, last_b, rec_b,
           drop_b)
    t.check(first_b > last_a, "b.fpl starts at i=%d, not after a.fpl's last i=%d", first_b,
            last_a)
    t.check(first_d == first_b and last_d < last_b, "the dump holds i=%d..%d, the session's log "
            "i=%d..%d: the dump is not a prefix of it", first_d, last_d, first_b, last_b)
    t.note("dump during the second session: i from %d to %d, %d recorded", first_d, last_d,
           rec_d)
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()
    test_flood(t)


def test_flood(t):
    go = t.path("flood.go")
    jvm = ac.Jvm(t, "flood", "EventsLog", ["flood", te.FLOOD_THREADS, te.FLOOD_ITERS, go],
                 ready_thread="Signal Dispatch")
    f = t.path("flood.fpl")
    t.logs.append(f)
    ac.expect(t, ac.flyprof(t, "start flood", ["start", jvm.pid, "-o", f]), 0)
    # Events.isBound() turns true at the attach, a little before the session records events:
    # the threads start once start has returned
    open(go, "w").close()
    deadline = time.monotonic() + 120
    while "flood done" not in jvm.stdout() and jvm.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    t.check("flood done" in jvm.stdout(), "the flood did not end: %r", jvm.stdout()[-300:])
    ac.expect(t, ac.flyprof(t, "stop flood", ["stop", jvm.pid]), 0)
    te.flood_check(t, f, "attached flood")
    t.check(jvm.alive(), "the flood's JVM died")
    jvm.stop()


if __name__ == "__main__":
    ac.main(test, "dev.flyprof.Events after flyprof attach")
