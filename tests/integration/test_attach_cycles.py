#!/usr/bin/env python3
"""attach_cycles: 20 `flyprof start` / `flyprof stop` cycles on one JVM started without the
agent, rotating the options (cpu, wall, cpu+wall at 5ms, engine=itimer, --threads), each one
writing its own log. Every cycle must start and stop cleanly, `status` must say profiling
while it runs, every log must be complete (an END record: `flyprof summary` raises no cut-off
warning) with samples of the worker; and after each stop the JVM's threads and file
descriptors must not grow past the first cycles' (a leak of one per cycle would add ~17), its
POSIX timers must be back to what they were before the first start, and its RSS must not grow
by more than a gross leak would (24 MB over 17 cycles).
"""
import os
import time

import test_attach_common as ac

CYCLES = 20
# start options per cycle, rotating; every one must work after any other
VARIANTS = [
    ["-e", "cpu"],
    ["-e", "wall", "-i", "20ms"],
    ["-e", "cpu,wall", "-i", "5ms"],
    ["--", "engine=itimer"],
    ["--threads"],
]
SLACK = 2  # JIT compiler and GC threads may come and go on their own
RSS_SLACK_MB = 24


def body(t):
    jvm = ac.Jvm(t, "split", "Split123", [300])
    timers0 = jvm.timers()
    t.note("before: %d threads, %d fds, timers %s", jvm.threads(), jvm.fds(), timers0)
    threads, fds, rss = [], [], []
    for i in range(CYCLES):
        opts = VARIANTS[i % len(VARIANTS)]
        fpl = t.path("cycle%02d.fpl" % i)
        t.logs.append(fpl)
        r = ac.flyprof(t, "start %d" % i, ["start", jvm.pid, "-o", fpl] + opts)
        ac.expect(t, r, 0, "profiling process %d" % jvm.pid)
        out = ac.status(t, jvm, "status %d" % i)
        t.check("flyprof is profiling" in out and fpl in out,
                "cycle %d: status while profiling says %r", i, out)
        time.sleep(0.3)
        r = ac.flyprof(t, "stop %d" % i, ["stop", jvm.pid])
        ac.expect(t, r, 0, "profile written to " + fpl)
        threads.append(jvm.threads())
        fds.append(jvm.fds())
        rss.append(jvm.rss_kb())
        timers = jvm.timers()
        t.check(timers == timers0, "cycle %d: %s POSIX timers after stop, %s before the first "
                "start", i, timers, timers0)
        t.check(os.path.getsize(fpl) > 0, "cycle %d: empty log", i)
        s = ac.flyprof(t, "summary %d" % i, ["summary", fpl])
        ac.expect(t, s, 0)
        t.check("cut off" not in s.stderr and "damaged" not in s.stderr,
                "cycle %d: the log is incomplete: %s", i, s.stderr.strip())
    t.note("threads after each stop: %s", threads)
    t.note("fds after each stop: %s", fds)
    t.note("RSS after each stop (MB): %s", [round(x / 1024, 1) for x in rss])
    base_threads, base_fds = max(threads[:3]), max(fds[:3])
    t.check(max(threads[3:]) <= base_threads + SLACK,
            "threads grow over the cycles: %s (first cycles at most %d)", threads, base_threads)
    t.check(max(fds[3:]) <= base_fds + SLACK,
            "fds grow over the cycles: %s (first cycles at most %d)", fds, base_fds)
    # RSS: ~0.1 MB a cycle is seen (Java heap and malloc arenas filling, flattening after
    # ~100 cycles); a leaked sample ring (16 MB) or log buffers would be far more
    grown = (rss[-1] - rss[2]) / 1024
    t.check(grown <= RSS_SLACK_MB, "RSS grew by %.1f MB from cycle 3 to %d: %s", grown, CYCLES,
            rss)

    # the last log converts: the worker was sampled (cpu or wall, per the variant)
    p = t.convert(t.path("cycle%02d.fpl" % (CYCLES - 1)))
    t.thread_profile(p, "split-worker", min_weight=1)
    t.check(jvm.alive(), "the JVM died during the cycles")
    jvm.stop()
    t.check("flyprof:" not in jvm.stderr(), "the agent complained on the JVM's stderr: %s",
            jvm.stderr()[-1000:])


if __name__ == "__main__":
    ac.main(body, "20 start/stop cycles leave no threads, fds or timers behind")
