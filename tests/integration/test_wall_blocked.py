#!/usr/bin/env python3
"""wall_blocked: the wall-clock sampler never piles signals up on a thread that blocks them,
and never wakes a thread blocked in a native call; those threads still get their wall samples.

NativeBlock (with its natives in libfptest_jni.so, tests/native/blocking.c) runs, at wall=1ms:
`spin-blocked` burns CPU in native code with every signal blocked, `sleep-blocked` sleeps in
native code with every signal blocked, `java-blocked` burns CPU in Java code with every signal
blocked (then unblocks), `poller` waits in poll() counting EINTR returns, and `sleeper` sleeps
in Thread.sleep; then each sleeps 0.5 s more. All are RUNNABLE to the JVM but the sleeper.

Asserts, with -agentpath and attached:
- each blocked thread finds at most 1 of our signals queued for it at the end (main's agent:
  ~4000 each after 4 s: one per tick; the limit on queued signals is per user and shared);
- the poller saw 0 EINTR (main's agent: ~4000, one per tick);
- each of the five threads has wall weight 0.8 .. 1.25 x the sleeper's (main's agent: the
  three blocked threads had none at all): java-blocked's one queued signal, taken when it
  unblocks, weighs every tick that found it still queued. Attached, java-blocked blocks signals
  from before the start to after the stop, so its signal never comes: each tick that chose it
  must be counted instead (WALL_UNTAKEN >= 80% of the ticks);
- the log counts idle threads sampled without a signal (WALL_IDLE > 0).
"""
import os
import time

import test_attach_common as ac
import test_wall_fpl as wf

ft = ac.ft
SECONDS = 4
CTR_WALL_UNTAKEN, CTR_WALL_IDLE = 35, 36
THREADS = ("spin-blocked", "sleep-blocked", "java-blocked", "poller")


def jni_lib(t):
    lib = os.path.join(t.args.build, "tests", "native", "libfptest_jni.so")
    t.check(os.path.isfile(lib), "missing %s (build the whole tree)", lib)
    return lib


def check(t, what, run_results, fpl, blocked_whole_profile=False):
    res = {k: int(run_results[k]) for k in ("spin_queued", "sleep_queued", "java_queued",
                                            "poll_eintr")}
    p = wf.convert_kind(t, fpl, "wall")
    tw = p.thread_weights()
    log = wf.read_fpl(fpl)
    t.note("%s: queued at the end %s; wall weights %s; idle samples without a signal %d, "
           "signals not sent again %d", what, res,
           {n: tw.get(n, 0) for n in THREADS + ("sleeper",)},
           log.counters.get(CTR_WALL_IDLE, 0), log.counters.get(CTR_WALL_UNTAKEN, 0))
    for k in ("spin_queued", "sleep_queued", "java_queued"):
        t.check(res[k] <= 1, "%s: %d wall signals queued on one thread (%s), want <= 1", what,
                res[k], k)
    t.check(res["poll_eintr"] == 0, "%s: the poller was interrupted %d times", what,
            res["poll_eintr"])
    ref = tw.get("sleeper", 0)
    t.check(ref >= 100, "%s: the sleeper has wall weight %d, want >= 100", what, ref)
    for n in THREADS:
        if n == "java-blocked" and blocked_whole_profile:
            # its signals were blocked from before the start to after the stop: its one
            # queued signal never came; every tick it was chosen is counted instead
            ticks = len(log.ticks)
            untaken = log.counters.get(CTR_WALL_UNTAKEN, 0)
            t.check(untaken >= 0.8 * ticks, "%s: java-blocked was counted %d times as not "
                    "taking its signal in %d ticks, want >= 80%%", what, untaken, ticks)
            continue
        r = tw.get(n, 0) / ref
        t.check(0.8 <= r <= 1.25, "%s: %s has %.2f x the sleeper's wall weight, want "
                "0.8 .. 1.25", what, n, r)
    t.check(log.counters.get(CTR_WALL_IDLE, 0) > 0, "%s: no idle thread was sampled without "
            "a signal", what)


def body(t):
    lib = jni_lib(t)
    run, fpl = t.run_java("blocked_agentpath", "NativeBlock", [lib, SECONDS],
                          agent_options="wall=1ms")
    check(t, "-agentpath", run.results, fpl)

    jvm = ac.Jvm(t, "blocked_attach", "NativeBlock", [lib, SECONDS + 4], ready_thread="poller")
    fpl = t.path("blocked_attach.fpl")
    t.logs.append(fpl)
    time.sleep(0.5)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-e", "wall", "-i", "1ms", "-o", fpl])
    ac.expect(t, r, 0)
    time.sleep(SECONDS)
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0)
    jvm.proc.wait(timeout=60)
    out = jvm.stdout()
    results = {}
    for line in out.splitlines():
        if line.startswith("result "):
            results = dict(kv.split("=", 1) for kv in line.split()[1:])
    t.check(results, "the attached JVM printed no result line: %s", out[-500:])
    check(t, "attached", results, fpl, blocked_whole_profile=True)
    jvm.stop()


if __name__ == "__main__":
    ac.main(body, "no signal piles up on a thread that blocks them, none wakes a blocked one")
