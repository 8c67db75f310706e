#!/usr/bin/env python3
"""signal_hygiene: flyprof never takes another profiler's signal, never counts another's
signals as samples, notices when its own handler is taken, and gives its signals back.

The other profiler is libfptest_other.so (tests/native/other_profiler.c), a JVMTI agent that
installs a SIGPROF handler and runs ITIMER_PROF at 10 ms, counting its signals by origin
(SI_KERNEL: its own itimer ticks; SI_TIMER: a POSIX timer's, i.e. someone else's) into a file.
Its rate is ticks per second of process CPU time: about 100 at 10 ms.

1. other first, flyprof attached (cputimer, 10 ms) to the busy Split123 JVM:
   - the other's rate while flyprof profiles stays >= 90% of its rate before (main's agent
     replaced its handler: the rate fell to 0);
   - flyprof's split-worker weight x 10 ms is 0.85 .. 1.10 of the worker's CPU over the window
     (schedstat): not inflated by the other's ticks (main's agent: ~2x);
   - the log says the CPU engine ran on a signal other than SIGPROF (counter CPU_SIGNO);
   - no SI_TIMER signal reached the other's handler (our timers use our own signal);
   - `flyprof start ... engine=itimer` is refused, naming SIGPROF;
   - after `flyprof stop` the process's caught-signal mask (/proc/PID/status SigCgt) is what it
     was before the start: our real-time signal is given back, the other's SIGPROF kept.
2. both with -agentpath: the other's rate over the run is >= 90% of 1 / interval, and
   flyprof's worker weight matches the worker's own CPU (0.90 .. 1.10).
3. flyprof first (takes the free SIGPROF), then the other takes SIGPROF over (trigger file):
   flyprof notices within about a second and stops its CPU engine, so the other stops
   receiving our timer signals (its SI_TIMER count stays flat from 2.5 s after the takeover);
   the other's own rate is >= 90%; the log counts the lost handler (HANDLER_LOST) and
   `flyprof summary` warns; the JVM's stderr says so once.
4. no other profiler: SigCgt during a cpu+wall profile has SIGPROF and one real-time signal
   more, and after `flyprof stop` it is exactly what it was before.
"""
import os
import re
import time

import test_attach_common as ac
import test_wall_fpl as wf

ft = ac.ft
INTERVAL_NS = 10_000_000
OTHER_RATE = 1e9 / INTERVAL_NS     # the other's itimer ticks per CPU-second
SIGPROF = 27
CTR_FOREIGN, CTR_HANDLER_LOST, CTR_CPU_SIGNO = 32, 33, 34


def other_lib(t):
    lib = os.path.join(t.args.build, "tests", "native", "libfptest_other.so")
    t.check(os.path.isfile(lib), "missing %s (build the whole tree)", lib)
    return lib


def read_other(t, path):
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open(path) as f:
                line = f.read().strip()
            d = dict(kv.split("=") for kv in line.split())
            return {k: int(v) for k, v in d.items()}
        except (OSError, ValueError):
            time.sleep(0.05)
    raise ft.TestFailure("the other profiler wrote no counts at %s" % path)


def fresh_other(t, path, after):
    """The other's counts as written after monotonic time `after` (its reporter writes every
    50 ms)."""
    for _ in range(100):
        o = read_other(t, path)
        if o["mono_ns"] > after:
            return o
        time.sleep(0.05)
    raise ft.TestFailure("the other profiler stopped reporting (%s)" % path)


def rate(a, b):
    dcpu = (b["cpu_ns"] - a["cpu_ns"]) / 1e9
    return (b["kernel"] - a["kernel"]) / dcpu if dcpu > 0 else 0.0


def sigcgt(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"^SigCgt:\s*([0-9a-f]+)", f.read(), re.M).group(1), 16)


def mono_ns():
    return time.monotonic_ns()


def tid_of(pid, name):
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                if f.read().strip() == name:
                    return int(tid)
        except OSError:
            pass
    return None


def sched_ns(pid, tid):
    with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
        return int(f.read().split()[0])


def other_first_attached(t):
    out = t.path("other1.txt")
    jvm = ac.Jvm(t, "other_first", "Split123", [600],
                 jvm_options=["-agentpath:%s=out=%s" % (other_lib(t), out)])
    time.sleep(1.0)
    o0 = fresh_other(t, out, mono_ns())
    time.sleep(2.0)
    o1 = fresh_other(t, out, mono_ns())
    before = rate(o0, o1)
    mask0 = sigcgt(jvm.pid)
    t.check(mask0 & (1 << (SIGPROF - 1)), "the other profiler's SIGPROF handler is not installed")
    worker = tid_of(jvm.pid, "split-worker")
    fpl = t.path("other_first.fpl")
    t.logs.append(fpl)
    c0 = sched_ns(jvm.pid, worker)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-e", "cpu", "-i", "10ms", "-o", fpl])
    ac.expect(t, r, 0)
    o2 = fresh_other(t, out, mono_ns())
    time.sleep(3.0)
    o3 = fresh_other(t, out, mono_ns())
    during = rate(o2, o3)
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0)
    c1 = sched_ns(jvm.pid, worker)
    mask1 = sigcgt(jvm.pid)
    r = ac.flyprof(t, "itimer", ["start", jvm.pid, "-o", t.path("itimer.fpl"), "engine=itimer"])
    t.check(r.returncode != 0 and "SIGPROF" in r.stderr + r.stdout,
            "engine=itimer with SIGPROF taken: exit %s, said %r (want a refusal naming SIGPROF)",
            r.returncode, (r.stderr + r.stdout).strip()[-600:])
    time.sleep(1.0)
    o4 = fresh_other(t, out, mono_ns())
    after = rate(o3, o4)
    t.note("other's rate (ticks per CPU-second): before %.1f, while flyprof profiles %.1f, "
           "after the stop %.1f", before, during, after)
    t.check(before >= 0.8 * OTHER_RATE, "the other profiler's rate before flyprof is %.1f, "
            "want about %.0f", before, OTHER_RATE)
    t.check(during >= 0.9 * before, "the other profiler's rate fell from %.1f to %.1f while "
            "flyprof profiled (want >= 90%%)", before, during)
    t.check(after >= 0.9 * before, "the other profiler's rate fell from %.1f to %.1f after "
            "flyprof stopped", before, after)
    t.check(o4["timer"] == 0, "%d of flyprof's timer signals reached the other's handler",
            o4["timer"])
    t.check(mask1 == mask0, "caught signals after the stop %x, before the start %x (flyprof "
            "must give back what it took)", mask1, mask0)

    p = t.convert(fpl)
    w = p.thread_weights().get("split-worker", 0)
    ratio = w * INTERVAL_NS / (c1 - c0)
    t.note("flyprof: split-worker weight %d x 10 ms = %.2f s, its CPU over the window %.2f s: "
           "%.3f", w, w * INTERVAL_NS / 1e9, (c1 - c0) / 1e9, ratio)
    t.check(0.85 <= ratio <= 1.10, "flyprof's worker CPU / its real CPU is %.3f, want "
            "0.85 .. 1.10 (another's ticks counted as ours?)", ratio)
    log = wf.read_fpl(fpl)
    signo = log.counters.get(CTR_CPU_SIGNO, 0)
    t.note("flyprof's CPU signal: %d; foreign signals passed on: %d", signo,
           log.counters.get(CTR_FOREIGN, 0))
    t.check(signo and signo != SIGPROF, "flyprof's CPU signal is %d: want one of its own, "
            "SIGPROF is the other's", signo)
    jvm.stop()


def both_agentpath(t):
    out = t.path("other2.txt")
    run, fpl = t.run_java("both_agentpath", "Split123", [4],
                          jvm_options=["-agentpath:%s=out=%s" % (other_lib(t), out)])
    o = read_other(t, out)
    r = o["kernel"] / (o["cpu_ns"] / 1e9)
    t.note("-agentpath both: the other's rate over the run %.1f ticks per CPU-second", r)
    t.check(r >= 0.9 * OTHER_RATE, "the other profiler's rate is %.1f, want >= %.0f", r,
            0.9 * OTHER_RATE)
    p = t.convert(fpl)
    w = p.thread_weights().get("split-worker", 0)
    ratio = w * INTERVAL_NS / run.num("worker_cpu_ns")
    t.note("-agentpath both: flyprof's worker weight / its own CPU %.3f", ratio)
    t.check(0.90 <= ratio <= 1.10, "flyprof's worker CPU / its own CPU is %.3f, want "
            "0.90 .. 1.10", ratio)


def taken_over(t):
    out = t.path("other3.txt")
    jvm = ac.Jvm(t, "taken_over", "Split123", [600],
                 jvm_options=["-agentpath:%s=out=%s,trigger=1" % (other_lib(t), out)])
    fpl = t.path("taken_over.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-e", "cpu", "-i", "10ms", "-o", fpl])
    ac.expect(t, r, 0)
    time.sleep(1.0)
    t.check(not read_other(t, out)["installed"], "the other profiler installed too early")
    with open(out + ".go", "w"):
        pass
    t_go = mono_ns()
    time.sleep(2.5)
    o1 = fresh_other(t, out, mono_ns())
    time.sleep(2.0)
    o2 = fresh_other(t, out, mono_ns())
    t.note("the other's SI_TIMER count (flyprof's timer signals landing there): %d at %.1f s "
           "after the takeover, %d at %.1f s", o1["timer"], (o1["mono_ns"] - t_go) / 1e9,
           o2["timer"], (o2["mono_ns"] - t_go) / 1e9)
    t.check(o2["timer"] == o1["timer"], "flyprof's timer signals keep landing in the other's "
            "handler (%d, then %d): it did not notice its handler was replaced", o1["timer"],
            o2["timer"])
    r2 = rate(o1, o2)
    t.note("the other's rate after the takeover: %.1f", r2)
    t.check(r2 >= 0.9 * OTHER_RATE, "the other's rate after the takeover is %.1f, want >= %.0f",
            r2, 0.9 * OTHER_RATE)
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0)
    log = wf.read_fpl(fpl)
    t.check(log.counters.get(CTR_HANDLER_LOST, 0) >= 1, "the log does not count the lost "
            "handler (counters %s)", log.counters)
    s = ac.flyprof(t, "summary", ["summary", fpl])
    t.check("replaced" in s.stdout, "flyprof summary does not warn about the replaced handler: "
            "%s", s.stdout[-1500:])
    msgs = re.findall(r"flyprof: another library replaced", jvm.stderr())
    t.check(len(msgs) == 1, "the JVM's stderr has %d messages about the replaced handler, want "
            "1: %s", len(msgs), jvm.stderr()[-1000:])
    jvm.stop()


def restored(t):
    jvm = ac.Jvm(t, "restore", "Split123", [600])
    mask0 = sigcgt(jvm.pid)
    fpl = t.path("restore.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-e", "cpu,wall", "-i", "10ms", "-o", fpl])
    ac.expect(t, r, 0)
    mask1 = sigcgt(jvm.pid)
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0)
    mask2 = sigcgt(jvm.pid)
    added = mask1 & ~mask0
    t.note("SigCgt before %x, while profiling %x (added %x), after the stop %x", mask0, mask1,
           added, mask2)
    t.check(added & (1 << (SIGPROF - 1)) and bin(added).count("1") == 2,
            "while profiling cpu+wall flyprof should catch SIGPROF and one more signal: "
            "added %x", added)
    t.check(mask2 == mask0, "after the stop the caught signals are %x, before %x", mask2, mask0)
    jvm.stop()


def body(t):
    other_first_attached(t)
    both_agentpath(t)
    taken_over(t)
    restored(t)


if __name__ == "__main__":
    ac.main(body, "flyprof leaves other profilers' signals alone and gives its own back")
