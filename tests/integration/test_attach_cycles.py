#!/usr/bin/env python3
"""attach_cycles: 20 `flyprof start` / `flyprof stop` cycles on one JVM started without the
agent, rotating the options (cpu, wall, cpu+wall at 5ms, engine=itimer, --threads), each one
writing its own log. Every cycle must start and stop cleanly, `status` must say profiling
while it runs, every log must be complete (an END record and no damage, by the tests' own
reader and by `flyprof summary`), name its engine, and hold samples of the worker of each kind
the cycle asked for (and none of another kind), in the log and through `flyprof convert
--kind`; and after each stop the JVM's threads and file descriptors must not grow past the
first cycles' (a leak of one per cycle would add ~17), its POSIX timers must be back to what
they were before the first start, and its RSS must not grow by more than a gross leak would
(24 MB over 17 cycles).
"""
import os
import time

import test_attach_common as ac
import test_wall_fpl as wf

CYCLES = 20
# start options per cycle, rotating; every one must work after any other
VARIANTS = [
    ["-e", "cpu"],
    ["-e", "wall", "-i", "20ms"],
    ["-e", "cpu,wall", "-i", "5ms"],
    ["--", "engine=itimer"],
    ["--threads"],
]
# what each variant's log must hold: its sample kinds, and the CPU engine in its header
# (FORMAT.md 6.2: 0 none, 1 cputimer, 2 itimer)
KINDS = [("cpu",), ("wall",), ("cpu", "wall"), ("cpu",), ("cpu",)]
ENGINES = [1, 0, 1, 2, 1]
SLACK = 2  # JIT compiler and GC threads may come and go on their own
RSS_SLACK_MB = 24


def check_kinds(t, i, fpl, opts):
    """Cycle i's log holds worker samples of each kind its variant asked for, read from the
    log itself and through `flyprof convert --kind`, and its header names the engine."""
    v = i % len(VARIANTS)
    log = wf.read_fpl(fpl)
    t.check(log.header["engine"] == ENGINES[v], "cycle %d (%s): the header's engine is %d, "
            "want %d", i, " ".join(opts), log.header["engine"], ENGINES[v])
    for kind in ("cpu", "wall"):
        code = wf.KIND_CPU if kind == "cpu" else wf.KIND_WALL
        mine = [s for s in log.samples if s.kind == code and s.thread == "split-worker"]
        if kind not in KINDS[v]:
            t.check(not [s for s in log.samples if s.kind == code], "cycle %d (%s): %s "
                    "samples in a log that asked for none", i, " ".join(opts), kind)
            continue
        t.check(mine, "cycle %d (%s): no %s samples of the worker in the log", i,
                " ".join(opts), kind)
        p = wf.convert_kind(t, fpl, kind)
        t.thread_profile(p, "split-worker", min_weight=1)


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
        # at least 0.3 s, and until the worker has had 50 ms of CPU since the start (or 10 s
        # went by): a loaded machine gives it far less than the wall time
        worker0 = jvm.thread_cpu_ticks("split-worker")
        time.sleep(0.3)
        deadline = time.monotonic() + 10
        while (jvm.thread_cpu_ticks("split-worker") - worker0 < 5 and
               time.monotonic() < deadline):
            time.sleep(0.05)
        r = ac.flyprof(t, "stop %d" % i, ["stop", jvm.pid])
        ac.expect(t, r, 0, "profile written to " + fpl)
        threads.append(jvm.threads())
        fds.append(jvm.fds())
        rss.append(jvm.rss_kb())
        timers = jvm.timers()
        t.check(timers == timers0, "cycle %d: %s POSIX timers after stop, %s before the first "
                "start", i, timers, timers0)
        t.check(os.path.getsize(fpl) > 0, "cycle %d: empty log", i)
        ac.check_complete(t, fpl, "cycle %d" % i)
        check_kinds(t, i, fpl, opts)
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
