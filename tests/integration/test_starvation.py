#!/usr/bin/env python3
"""starvation: `flyprof summary`'s CPU starvation (1 - cpu / running wall time) against what
the kernel says, on JVMs started with the agent and attached to.

Starve spins N threads (spin-1..N) on integer arithmetic: each is either on a CPU or waiting
for one, runnable all the time. The truth per thread: starvation = 1 - (time on a CPU, from the
kernel's /proc/.../schedstat) / (time it spun, by the clock), over its spinning (agent from
the start: the workload prints both as each thread ends) or over the attach (read before and
after by this test). Not the kernel's wait / (on CPU + wait): on a virtual machine the
hypervisor takes CPUs from running threads (steal), time the guest's kernel counts neither on
a CPU nor waiting, but time the thread was running and got no CPU all the same; a CI run read
0.052 for a lone thread whose kernel wait share was 0.003 (its steal). Runs, each under
cpu=10ms,wall=10ms:
- 8 threads pinned to 2 CPUs (taskset -c 0,1): the truth is at least 0.75 (2 CPUs for 8
  threads), more when other processes use those CPUs too (the machine is shared);
- 1 thread, not pinned: about 0 on a quiet machine.
Asserted, for each run: the summary's JSON has `starvation` with the documented keys; every
spin thread has a row, within 0.05 of its own truth, with at least 100 running samples and an
error of about (1 - starvation) / sqrt(samples); the spin threads together within 0.04 of the
truth over them (measured agreement is within 0.01; weighing wall samples by the wall interval
instead of the measured time between ticks reads 0.05 low on a loaded machine); for 8 threads
at least 0.65 (which, with that agreement, reads 0.75 +- 0.1 on a machine nobody else loads);
for 1 thread below the truth + 0.1 (so < 0.1 on a quiet machine) -- the 0.1 bound itself is
asserted when the truth is below 3%; the kernel's own time on a CPU plus run-queue wait fits in
the time spun; the text summary prints the section with the same overall figure. Then the same
two runs attached to JVMs started without the agent.
"""
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_attach_common as ac  # noqa: E402

SECONDS = 5
OPTIONS = "cpu=10ms,wall=10ms"
STARVATION_KEYS = {"overall": float, "cpu_ns": int, "running_wall_ns": int,
                   "running_samples": int, "error": float, "wall_tick_ns": int, "threads": list}
ROW_KEYS = {"name": str, "tid": int, "cpu_ns": int, "running_wall_ns": int,
            "running_samples": int, "starvation": float, "error": float}


def schedstat(pid, tid):
    """(ns on a CPU, ns waiting to run) of thread tid, or None when it has ended."""
    try:
        with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
            a = f.read().split()
        return int(a[0]), int(a[1])
    except (OSError, ValueError, IndexError):
        return None


def share_off_cpu(cpu, elapsed):
    return max(0.0, 1 - cpu / elapsed) if elapsed > 0 else 0.0


def truth(rows):
    """Starvation, {tid: 1 - cpu / elapsed}, and over all rows; rows {tid: (cpu_ns, wait_ns,
    elapsed_ns)}."""
    per = {tid: share_off_cpu(c, e) for tid, (c, _, e) in rows.items()}
    cs, es = sum(r[0] for r in rows.values()), sum(r[2] for r in rows.values())
    return per, share_off_cpu(cs, es)


def note_steal(t, what, rows):
    """Notes how much of the spinning the kernel's run-queue wait leaves unexplained (steal),
    and checks the clock's account holds the kernel's (on CPU + wait fit in the time spun)."""
    cs = sum(r[0] for r in rows.values())
    ws = sum(r[1] for r in rows.values())
    es = sum(r[2] for r in rows.values())
    t.check(cs + ws <= es * 1.01 + 20e6, "%s: the kernel counts %.3f s on a CPU or waiting in "
            "%.3f s spun", what, (cs + ws) / 1e9, es / 1e9)
    if es:
        t.note("%s: of %.3f thread-seconds spun, %.1f%% on a CPU, %.1f%% in the run queue, "
               "%.1f%% neither (steal)", what, es / 1e9, 100 * cs / es, 100 * ws / es,
               100 * max(0, es - cs - ws) / es)


def check_keys(t, obj, keys, what):
    for k, typ in keys.items():
        t.check(k in obj, "%s: no key %r in %s", what, k, sorted(obj))
        t.check(isinstance(obj[k], typ) and not isinstance(obj[k], bool),
                "%s: %s is %r, want %s", what, k, obj[k], typ)


def check_log(t, what, fpl, nthreads, kernel):
    """Checks the summary of fpl against the spin threads' {tid: (cpu_ns, wait_ns,
    elapsed_ns)}."""
    r = t.flyprof("summary --json " + what, ["summary", "--json", fpl])
    t.check(r.returncode == 0, "%s: summary --json exited %s", what, r.returncode)
    s = json.loads(r.stdout).get("starvation")
    t.check(isinstance(s, dict), "%s: starvation is %r, want an object", what, s)
    check_keys(t, s, STARVATION_KEYS, what + " starvation")
    for row in s["threads"]:
        check_keys(t, row, ROW_KEYS, what + " starvation row")
    rows = {row["tid"]: row for row in s["threads"]}
    per, overall = truth(kernel)
    note_steal(t, what, kernel)
    t.check(len(kernel) == nthreads, "%s: kernel figures for %d threads, want %d", what,
            len(kernel), nthreads)
    cpu = run = 0
    for tid, want in sorted(per.items()):
        row = rows.get(tid)
        t.check(row is not None, "%s: no starvation row for spin thread %d; rows: %s", what,
                tid, sorted(rows))
        t.close_to(row["starvation"], want, 0.05, "%s %s starvation vs truth" % (what,
                                                                                row["name"]))
        # a spin thread runs for seconds: hundreds of running samples at 10 ms, and an error
        # of about (1 - starvation) / sqrt(samples) (the CPU term is small over seconds)
        n = row["running_samples"]
        t.check(n >= 100, "%s %s: %d running samples, want >= 100", what, row["name"], n)
        approx = (1 - row["starvation"]) / max(n, 1) ** 0.5
        t.check(0.9 * approx <= row["error"] <= 1.5 * approx + 0.002,
                "%s %s: error %.4f, want about %.4f", what, row["name"], row["error"], approx)
        cpu += row["cpu_ns"]
        run += row["running_wall_ns"]
    seen = 1 - cpu / run if run and cpu < run else 0.0
    t.close_to(seen, overall, 0.04, "%s spin threads' starvation vs truth" % what)
    if nthreads > 1:
        t.check(seen >= 0.65, "%s: %d threads on 2 CPUs starve %.3f, want >= 0.65", what,
                nthreads, seen)
    else:
        t.check(seen < overall + 0.1, "%s: 1 thread starves %.3f, the truth is %.3f", what,
                seen, overall)
        if overall < 0.03:
            t.check(seen < 0.1, "%s: 1 thread on a quiet machine starves %.3f", what, seen)
        else:
            t.note("%s: the lone thread was off a CPU %.1f%% of the time it spun "
                   "(other load): the < 0.1 bound is checked against it", what, 100 * overall)
    text = t.flyprof("summary " + what, ["summary", fpl]).stdout
    m = re.search(r"^CPU starvation .*\n  overall ([\d.]+):", text, re.M)
    t.check(m is not None, "%s: the text summary has no starvation section", what)
    t.check(abs(float(m.group(1)) - s["overall"]) < 0.0006, "%s: text overall %s, JSON %s",
            what, m.group(1), s["overall"])


def agentpath_run(t, nthreads):
    what = "agentpath-%d" % nthreads
    fpl = t.path(what + ".fpl")
    t.logs.append(fpl)
    cmd = ["taskset", "-c", "0,1"] if nthreads > 1 else []
    cmd += [t.java, "-agentpath:%s=%s,file=%s" % (t.agent, OPTIONS, fpl), "-cp", t.jar,
            ft.WORKLOAD_PKG + "Starve", str(SECONDS), str(nthreads)]
    r = t.run(what, cmd, 120)
    t.check_jvm(r)
    kernel = {}
    for m in re.finditer(r"^sched spin-\d+ (\d+) (\d+) (\d+) (\d+)$", r.stdout, re.M):
        kernel[int(m.group(1))] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
    check_log(t, what, fpl, nthreads, kernel)


def attach_run(t, nthreads):
    what = "attach-%d" % nthreads
    jvm = ac.Jvm(t, what, "Starve", [SECONDS * 6, nthreads], ready_thread=None)
    deadline = time.monotonic() + 60
    while "ready" not in jvm.stdout().split() and time.monotonic() < deadline:
        t.check(jvm.alive(), "%s: the JVM exited before its threads ran", what)
        time.sleep(0.05)
    tids = [int(x) for x in re.findall(r"^spin-\d+ (\d+)$", jvm.stdout(), re.M)]
    t.check(len(tids) == nthreads, "%s: %d spin threads printed, want %d", what, len(tids),
            nthreads)
    if nthreads > 1:
        subprocess.run(["taskset", "-a", "-p", "-c", "0,1", str(jvm.pid)], check=True,
                       stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    fpl = t.path(what + ".fpl")
    t.logs.append(fpl)
    before = {tid: schedstat(jvm.pid, tid) for tid in tids}
    t0 = time.monotonic_ns()
    r = ac.flyprof(t, what, ["attach", jvm.pid, "-d", str(SECONDS), "-e", "cpu,wall", "-i",
                             "10ms", "--wall", "10ms", "-o", fpl], timeout=90)
    after = {tid: schedstat(jvm.pid, tid) for tid in tids}
    elapsed = time.monotonic_ns() - t0
    ac.expect(t, r, 0)
    t.check(jvm.alive(), "%s: the JVM died", what)
    kernel = {tid: (after[tid][0] - before[tid][0], after[tid][1] - before[tid][1], elapsed)
              for tid in tids if before[tid] and after[tid]}
    jvm.stop()
    check_log(t, what, fpl, nthreads, kernel)


def test(t):
    agentpath_run(t, 8)
    agentpath_run(t, 1)
    attach_run(t, 8)
    attach_run(t, 1)


if __name__ == "__main__":
    ac.main(test, __doc__)
