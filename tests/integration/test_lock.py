#!/usr/bin/env python3
"""lock: lock profiling (agent option lock, -e lock) on a workload whose truth is known.
LockContention runs two phases of four threads taking one lock 150 times each and holding it
2 ms (sleeping): sync-0..3 on a `synchronized` monitor of class LockContention$Monitor (JVMTI
MonitorContendedEnter/Entered), then rlock-0..3 on one ReentrantLock (the agent's
Unsafe.park hook, for threads whose parkBlocker is the lock's AbstractQueuedSynchronizer).
Each thread sums what its acquisitions waited, measured with System.nanoTime around the lock.

Asserted, for -agentpath and attached (`flyprof start -e cpu,wall,lock`):
- the lock weight (ns waited) of the sync-* threads through `syncSection` is within 25% of
  their measured waits, and its stacks end in the leaf LockContention$Monitor, with
  syncSection the frame right above it;
- the same for rlock-* through `rlockSection`, ending in the leaf
  java.util.concurrent.locks.ReentrantLock$NonfairSync;
- latch-waiter's 200 ms wait for a CountDownLatch (an AQS, but no lock) is not a lock sample;
- the lock samples in state PARKED (--state parked) are rlock-*'s, none sync-*'s (BLOCKED);
- `flyprof summary` reports lock samples with their total, and its top contended locks name
  each lock class with the method that waited (rlockSection, past ReentrantLock's own frames);
- HotSpot prints no "Re-registering of platform native method" warning (the agent rebinds
  Unsafe.park from a boot-loader class of its own).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alloclock_common as alc  # noqa: E402
import test_attach_common as ac  # noqa: E402

MONITOR = "dev.flyprof.workload.LockContention$Monitor"
RLOCK = "java.util.concurrent.locks.ReentrantLock$NonfairSync"


def phase(t, lines, prefix, method, leaf, want_ns, what):
    got = bad_leaf = 0
    for frames, w in lines:
        if not frames[0].startswith(prefix + "-"):
            continue
        if not any(f.endswith("." + method) for f in frames):
            continue
        got += w
        if frames[-1] != leaf:
            bad_leaf += w
    t.note("%s: %s waited %.3f s in the profile, %.3f s measured", what, prefix, got / 1e9,
           want_ns / 1e9)
    t.check(got > 0, "%s: no lock samples of %s-* through %s", what, prefix, method)
    t.close_to(got / want_ns, 1.0, 0.25, "%s: %s profiled / measured wait" % (what, prefix))
    t.check(bad_leaf <= 0.01 * got, "%s: %d of %d ns of %s stacks do not end in %s", what,
            bad_leaf, got, prefix, leaf)
    if prefix == "sync":
        above = sum(w for frames, w in lines if frames[0].startswith("sync-") and
                    len(frames) > 1 and frames[-2].endswith("." + method))
        t.check(above >= 0.99 * got, "%s: %s is not the frame above the monitor's class in "
                "%d of %d ns", what, method, got - above, got)


def check(t, results, fpl, what):
    lines = alc.folded(t, fpl, "lock")
    phase(t, lines, "sync", "syncSection", MONITOR, float(results["sync_wait_ns"]), what)
    phase(t, lines, "rlock", "rlockSection", RLOCK, float(results["rlock_wait_ns"]), what)
    parked_out = fpl[:-4] + ".parked.collapsed"
    r = t.flyprof("convert --state parked", ["convert", fpl, "--kind", "lock", "--state",
                                             "parked", "--threads", "-o", parked_out])
    t.check(r.returncode == 0, "convert --state parked failed: %s", r.stderr[-300:])
    with open(parked_out) as f:
        parked = f.read()
    t.check("rlock-" in parked and "sync-" not in parked, "%s: the parked lock samples are "
            "not the ReentrantLock's", what)
    latch = sum(w for frames, w in lines if frames[0] == "latch-waiter")
    t.check(latch == 0, "%s: the CountDownLatch wait (200 ms, no lock) is in the lock profile: "
            "%d ns", what, latch)
    s = ac.flyprof(t, "summary", ["summary", fpl])
    ac.expect(t, s, 0, "lock ", "waited for contended locks", "top contended locks",
              RLOCK + " <- dev.flyprof.workload.LockContention.rlockSection",
              MONITOR + " <- dev.flyprof.workload.LockContention.syncSection")


def no_warning(t, output, what):
    """The park hook is bound without HotSpot's re-registering warning (lock.c's ParkBinder)."""
    t.check("Re-registering" not in output, "%s: HotSpot warned about rebinding Unsafe.park: %s",
            what, [line for line in output.splitlines() if "Re-registering" in line][:2])


def test(t):
    res, fpl, out = alc.run_agentpath(t, "agentpath", "LockContention", [150, 2], "lock")
    check(t, res, fpl, "agentpath")
    no_warning(t, out, "agentpath")
    res, fpl, out = alc.run_attached(t, "attached", "LockContention", [150, 2], "cpu,wall,lock",
                                     ready_thread="sync-0")
    check(t, res, fpl, "attached")
    no_warning(t, out, "attached")
    t.check(sum(w for _, w in alc.folded(t, fpl, "cpu")) > 0, "attached: no cpu samples "
            "beside the lock samples")


if __name__ == "__main__":
    ac.main(test, "lock profiling: monitor and ReentrantLock waits against the threads' own")
