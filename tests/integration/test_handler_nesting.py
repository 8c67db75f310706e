#!/usr/bin/env python3
"""handler_nesting: the CPU and wall-clock handlers never nest on a thread. Each blocks the
other's signal while it runs, so a wall signal that arrives while the CPU handler walks the
stack (AsyncGetCallTrace is not reentrant before JDK 23) waits until it returns.

FixedWork keeps two threads busy below 512 extra frames (a slow walk: a long window for a
nested signal); cpu=1ms,wall=200us signals them from both engines (about 250 CPU signals per
thread-second, tick-limited, and up to 5000 wall signals per second), with -agentpath and
attached. The agent counts every handler entry on a thread that is already inside one of its
handlers (HANDLER_NESTED); the count must be 0, and no sample may be the `[handler_busy]`
marker, while both kinds have samples. Without the mutual blocking the count came out at 84 in
one such run here (8 at wall=1ms).
"""
import time

import test_attach_common as ac
import test_wall_fpl as wf

ft = ac.ft
CTR_HANDLER_NESTED = 37
OPTIONS = "cpu=1ms,wall=200us"


def check_log(t, what, fpl):
    log = wf.read_fpl(fpl)
    nested = log.counters.get(CTR_HANDLER_NESTED, 0)
    cpu, wall = len(log.cpu_samples()), len(log.wall_samples())
    p = t.convert(fpl)
    busy = p.marker_weights().get("[handler_busy]", 0)
    t.note("%s: %d cpu and %d wall samples, %d nested handler entries, [handler_busy] weight %d",
           what, cpu, wall, nested, busy)
    t.check(cpu > 200 and wall > 200, "%s: too few samples to tell (%d cpu, %d wall)", what, cpu,
            wall)
    t.check(nested == 0, "%s: %d handler entries on a thread already in a handler", what, nested)
    t.check(busy == 0, "%s: %d weight of [handler_busy] samples", what, busy)


def body(t):
    run, fpl = t.run_java("nesting_agentpath", "dev.flyprof.bench.FixedWork", [6000, 2, 512],
                          agent_options=OPTIONS)
    check_log(t, "-agentpath", fpl)

    jvm = ac.Jvm(t, "nesting_attach", "dev.flyprof.bench.FixedWork", [10 ** 6, 2, 512],
                 ready_thread="work-2")
    fpl = t.path("nesting_attach.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-o", fpl, OPTIONS])
    ac.expect(t, r, 0)
    time.sleep(4)
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0)
    check_log(t, "attached", fpl)
    jvm.stop()


if __name__ == "__main__":
    ac.main(body, "CPU and wall handlers never nest")
