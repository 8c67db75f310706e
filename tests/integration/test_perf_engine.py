#!/usr/bin/env python3
"""perf_engine: `engine=perf` (a perf_events CPU clock per thread) on a real JVM, started with
-agentpath and attached to a JVM already running.

Split123's worker spends its CPU in unitA:unitB:unitC as 1:2:3 (see Split123.java). At
cpu=1ms, on the worker's samples:
- the log's header names the perf engine (so no other engine stood in for it);
- the units' shares are 1/6, 2/6, 3/6 within 3 points, and a unit is on the stack of at least
  90% of the worker's weight;
- weight x 1 ms is within 10% of the worker's own measured CPU time (every sample weighs the
  periods the event counted since the one before, so folded or late signals still count);
- perf is not limited to one signal per kernel tick: with a kernel tick rate below 1000 Hz
  (CONFIG_HZ, 250 on the project's machines), the handler runs more than 1.6 x HZ times per
  second of the process's CPU (about 1000 expected; a per-thread CPU timer, which fires at
  most once a tick, gives at most HZ per busy thread). Skipped when the kernel's HZ is unknown
  or 1000.
Attached (`flyprof attach PID -d 3 -i 1ms -- engine=perf`): the same header check, the worker
sampled with a unit on the stack, and after the attach no perf event fd is left (each
thread's perf event is an fd). A second session leaves no more fds than the first did: the
count is read again for up to 5 s, as the JVM closes its end of the attach connection a
moment after it replied; when it fails, the check names the fds that were added.

Needs perf_event_open (perf_event_paranoid <= 2, as on Debian by default; root here); skipped
when the kernel refuses it (a failure under CI=true).
"""
import collections
import gzip
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_attach_common as ac  # noqa: E402
import test_wall_fpl as wf  # noqa: E402

SECONDS = 5
ENGINE_PERF = 3
UNITS = ("unitA", "unitB", "unitC")
METHOD = "dev.flyprof.workload.Split123."
INTERVAL_NS = 1_000_000


def kernel_hz():
    """CONFIG_HZ of the running kernel, or 0 when it cannot be found."""
    paths = ["/proc/config.gz", "/boot/config-" + os.uname().release]
    for p in paths:
        try:
            opener = gzip.open if p.endswith(".gz") else open
            with opener(p, "rt") as f:
                m = re.search(r"^CONFIG_HZ=(\d+)$", f.read(), re.M)
                if m:
                    return int(m.group(1))
        except OSError:
            continue
    return 0


def unit_weights(w):
    weights = dict.fromkeys(UNITS, 0)
    for f, wt in w.samples:
        on = [u for u in UNITS if w.has(f, METHOD + u)]
        if len(on) == 1:
            weights[on[0]] += wt
    return weights


def agentpath(t):
    run, fpl = t.run_java("perf", "Split123", [SECONDS],
                          agent_options="cpu=1ms,engine=perf")
    log = wf.read_fpl(fpl)
    t.check(log.header["engine"] == ENGINE_PERF, "the header's engine is %d, want perf (%d)",
            log.header["engine"], ENGINE_PERF)
    p = t.convert(fpl)
    w = t.thread_profile(p, "split-worker", min_weight=500)
    weights = unit_weights(w)
    n = sum(weights.values())
    t.note("worker weight %d, with a unit %d, markers %s", w.total(), n,
           w.marker_weights() or "none")
    t.close_to(n / w.total(), 1.0, 0.10, "share of worker weight with a unit on the stack")
    for i, u in enumerate(UNITS, 1):
        t.close_to(weights[u] / n, i / 6, 0.03, "%s share of unit samples" % u)
    cpu = run.num("worker_cpu_ns")
    t.close_to(w.total() * INTERVAL_NS / cpu, 1.0, 0.10,
               "worker weight x 1 ms / worker CPU (%.2f s)" % (cpu / 1e9))

    hz = kernel_hz()
    signals = log.counters.get(wf.CTR_SIGNALS, 0)
    process_s = run.num("process_cpu_ns") / 1e9
    rate = signals / process_s if process_s else 0
    t.note("kernel HZ %s; %d signals over %.2f s of process CPU: %.0f per CPU second", hz or "?",
           signals, process_s, rate)
    if hz and hz < 1000:
        t.check(rate > 1.6 * hz, "perf took %.0f signals per CPU second, not more than a "
                "tick-limited timer would (HZ=%d)", rate, hz)


def attached(t):
    jvm = ac.Jvm(t, "split", "Split123", [120])
    fds0 = jvm.fds()
    fpl = t.path("attach-perf.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "attach perf", ["attach", jvm.pid, "-d", "3", "-i", "1ms", "-o", fpl,
                                      "--", "engine=perf"])
    ac.expect(t, r, 0, "profile written to " + fpl)
    ac.check_complete(t, fpl, "the attached perf log")
    log = wf.read_fpl(fpl)
    t.check(log.header["engine"] == ENGINE_PERF, "attached: the header's engine is %d, want "
            "perf (%d)", log.header["engine"], ENGINE_PERF)
    p = t.convert(fpl)
    w = t.thread_profile(p, "split-worker", min_weight=100)
    n = sum(unit_weights(w).values())
    t.close_to(n / w.total(), 1.0, 0.10, "attached: share of worker weight with a unit")
    # the writer closes the log a moment after the CLI returns: let it settle. Perf events
    # (one per thread, ~20 here) must all be closed
    perf = "anon_inode:[perf_event]"

    def settle():
        left = jvm.fds_to(perf)
        for _ in range(50):
            if left == 0:
                break
            time.sleep(0.1)
            left = jvm.fds_to(perf)
        return left

    left = settle()
    fds1 = jvm.fds()
    targets1 = jvm.fd_targets()
    t.check(left == 0, "the JVM has %d perf event fds open after the perf attach", left)
    # the first session leaves a few fds for the JVM's life (the agent's wakeup eventfds,
    # libunwind's memory-check pipe, the JVM's attach socket); a second session must add none
    fpl2 = t.path("attach-perf2.fpl")
    t.logs.append(fpl2)
    r = ac.flyprof(t, "attach perf again", ["attach", jvm.pid, "-d", "1", "-i", "1ms", "-o",
                                            fpl2, "--", "engine=perf"])
    ac.expect(t, r, 0, "profile written to " + fpl2)
    left = settle()
    # the JVM closes its end of the attach connection a moment after it replied: a fd left
    # for good stays, one on its way out goes within the 5 s waited here
    deadline = time.monotonic() + 5
    fds2 = jvm.fds()
    while fds2 > fds1 and time.monotonic() < deadline:
        time.sleep(0.1)
        fds2 = jvm.fds()
    t.note("JVM fds before the first attach %d, after it %d, after the second %d", fds0, fds1,
           fds2)
    t.check(left == 0, "the JVM has %d perf event fds open after the second attach", left)
    extra = collections.Counter(jvm.fd_targets()) - collections.Counter(targets1)
    t.check(fds2 <= fds1, "a second perf session left %d more fds open (%d after the first, "
            "%d after the second): %s", fds2 - fds1, fds1, fds2, sorted(extra.elements()))
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()
    t.check("flyprof:" not in jvm.stderr(), "the agent complained on the JVM's stderr: %s",
            jvm.stderr()[-1000:])


def body(t):
    agentpath(t)
    attached(t)


def perf_available():
    """Whether this kernel lets this user open a perf CPU clock event (no JVM needed)."""
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            paranoid = int(f.read().strip())
    except (OSError, ValueError):
        return False
    return os.geteuid() == 0 or paranoid <= 2


if __name__ == "__main__":
    if not perf_available():
        ft.skip("perf_engine", "perf_event_open is not allowed here (perf_event_paranoid > 2)")
    ac.main(body, "engine=perf on a real JVM, -agentpath and attached")
