#!/usr/bin/env python3
"""agent_cpu: every agent thread's CPU time is counted in the log and shown by `flyprof
summary`, the wall-clock sampler's included.

ParkedMany parks 200 threads and sleeps: the application uses almost no CPU, while a wall
sampler at 1 ms walks 16 parked threads a tick with JVMTI (hundreds of ms of CPU over 3 s).
A summary that counts only the handler and the writer (the bug this test was written for)
leaves all of that out.

- With -agentpath (wall=1ms, 3 s): the log's SAMPLER_CPU_NS counter is above 20 ms, not
  above the process's own CPU time, and `flyprof summary` prints it as the wall sampler's CPU
  and an "agent CPU in all" at least as large.
- Attached (`flyprof attach PID -e wall -i 1ms -d 3`): the sampler thread's CPU time as the
  kernel counts it (/proc/PID/task/TID/stat, read every 50 ms while it runs; the last reading
  is a lower bound of its total) is matched by the counter: counter >= 80% of the last
  reading - 20 ms, and the counter is not above the whole process's CPU time.
"""
import os
import re
import subprocess
import time

import test_attach_common as ac
import test_wall_fpl as wf

CTR_SAMPLER_CPU_NS = 12
SAMPLER_COMM = "flyprof wall sa"  # the kernel keeps 15 characters of a thread's name
TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")


def summary_sampler_ns(t, fpl):
    """(wall sampler CPU, agent CPU in all) as `flyprof summary` prints them, in ns."""
    txt, _ = wf.summary(t, fpl)
    units = {"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}

    def figure(label):
        m = re.search(r"^\s*%s: ([\d.]+) ?(ns|us|µs|ms|s)\b" % re.escape(label), txt, re.M)
        return float(m.group(1)) * units[m.group(2)] if m else None

    return figure("wall sampler thread CPU"), figure(
        "agent CPU in all (handler runs and agent threads)"), txt


def agentpath(t):
    r, fpl = t.run_java("agentpath", "ParkedMany", [3, 200],
                        agent_options="wall=1ms")
    log = wf.read_fpl(fpl)
    ns = log.counters.get(CTR_SAMPLER_CPU_NS, 0)
    proc = r.num("process_cpu_ns")
    t.note("SAMPLER_CPU_NS %.1f ms; the process's CPU %.1f ms", ns / 1e6, proc / 1e6)
    t.check(ns > 20e6, "the wall sampler's CPU is %.1f ms in the log (want > 20 ms for 3 s of "
            "1 ms ticks over 200 parked threads)", ns / 1e6)
    t.check(ns <= proc + 200e6, "the sampler's CPU (%.1f ms) exceeds the process's (%.1f ms)",
            ns / 1e6, proc / 1e6)
    shown, total, txt = summary_sampler_ns(t, fpl)
    t.note("summary: wall sampler %s ns, agent CPU in all %s ns", shown, total)
    t.check(shown is not None and shown > 0, "flyprof summary shows no wall sampler CPU:\n%s",
            txt[-1500:])
    t.check(abs(shown - ns) <= 0.01 * ns + 1e6, "summary shows %s ns, the log says %d", shown,
            ns)
    t.check(total is not None and total >= shown, "summary's agent CPU in all (%s) is below "
            "the sampler's (%s)", total, shown)


def sampler_ticks(pid):
    """CPU ticks of the agent's wall sampler thread in pid, or None when it is not running."""
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                    if f.read().strip() != SAMPLER_COMM:
                        continue
                with open("/proc/%d/task/%s/stat" % (pid, tid)) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                return int(fields[11]) + int(fields[12])
            except OSError:
                continue
    except OSError:
        pass
    return None


def process_ns(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * TICK_NS


def attached(t):
    jvm = ac.Jvm(t, "parked", "ParkedMany", [600, 200], ready_thread="parked-main")
    fpl = t.path("attached.fpl")
    t.logs.append(fpl)
    cmd = [t.cli, "attach", str(jvm.pid), "-e", "wall", "-i", "1ms", "-d", "3", "-o", fpl]
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, text=True, cwd=t.tmp)
    last = None
    while proc.poll() is None and time.monotonic() - t0 < 60:
        v = sampler_ticks(jvm.pid)
        if v is not None:
            last = v
        time.sleep(0.05)
    out, err = proc.communicate(timeout=60)
    done = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    r = ac.ft.Run("attach -e wall", cmd, done, time.monotonic() - t0, False)
    t.runs.append(r)
    ac.expect(t, r, 0, "profile written to " + fpl)
    t.check(last is not None, "never saw the wall sampler thread (%r) in /proc", SAMPLER_COMM)
    seen = last * TICK_NS
    log = wf.read_fpl(fpl)
    ns = log.counters.get(CTR_SAMPLER_CPU_NS, 0)
    whole = process_ns(jvm.pid)
    t.note("sampler CPU: %.1f ms in the log, at least %.1f ms by /proc; the JVM's whole CPU "
           "%.1f ms", ns / 1e6, seen / 1e6, whole / 1e6)
    t.check(ns >= 0.8 * seen - 20e6, "the log counts %.1f ms of sampler CPU, the kernel "
            "counted at least %.1f ms", ns / 1e6, seen / 1e6)
    t.check(ns <= whole, "the log's sampler CPU (%.1f ms) exceeds the JVM's whole CPU (%.1f "
            "ms)", ns / 1e6, whole / 1e6)
    shown, _, txt = summary_sampler_ns(t, fpl)
    t.check(shown is not None and shown > 0, "flyprof summary shows no wall sampler CPU:\n%s",
            txt[-1500:])
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()


def body(t):
    agentpath(t)
    attached(t)


if __name__ == "__main__":
    ac.main(body, "the wall sampler's CPU (every agent thread's) is counted and shown")
