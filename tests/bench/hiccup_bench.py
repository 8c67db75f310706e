"""Part `hiccup` of the flyprof benchmark (bench.py): the cost of hiccup mode's two probe
threads. A JVM runs Quiet (one thread sleeping 10 ms at a time) with hiccup=1ms, then 10ms
(CPU sampling off, so the agent's other threads stay idle); the probes' own CPU time is read
from /proc/PID/task/TID/schedstat (ns on CPU) over the steady middle of the run, and divided
by the wake-ups they made in that time (from `flyprof hiccups`' counts). The target is 0.1%
of one CPU at 1 ms; what a wake-up costs is the kernel's (timer, schedule in and out) plus
the probe's TSC reads, schedstat read and histogram update: each run is followed by two bare
sleeping threads (sleepfloor.c) at the same resolution, the floor under that cost."""

import os
import re
import subprocess
import time

COMM = "flyprof hiccup"


def probe_tasks(pid):
    out = []
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                    if f.read().strip() == COMM:
                        out.append(int(tid))
            except OSError:
                pass
    except OSError:
        pass
    return sorted(out)


def on_cpu_ns(pid, tid):
    try:
        with open("/proc/%d/task/%d/schedstat" % (pid, tid)) as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def run_one(args, run_dir, res, seconds):
    fpl = os.path.join(run_dir, "hiccup-%s.fpl" % res)
    cmd = [args.java, "-agentpath:%s=wall=1s,hiccup=%s,file=%s" % (args.agent, res, fpl),
           "-cp", args.jar, "dev.flyprof.workload.Quiet", str(seconds)]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, cwd=run_dir)
    tasks = []
    deadline = time.monotonic() + 30
    while len(tasks) < 2 and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
        tasks = probe_tasks(p.pid)
    time.sleep(1.0)
    a = {t: on_cpu_ns(p.pid, t) for t in tasks}
    t0 = time.monotonic()
    time.sleep(max(1.0, seconds - 4))
    b = {t: on_cpu_ns(p.pid, t) for t in tasks}
    span = time.monotonic() - t0
    p.wait(timeout=120)
    cpu = [b[t] - a[t] for t in tasks if a.get(t) is not None and b.get(t) is not None]
    r = subprocess.run([args.cli, "hiccups", fpl, "--top", "0"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    wakeups = {}
    for m in re.finditer(r"^  (java|os)\s+(\d+)", r.stdout, re.M):
        wakeups[m.group(1)] = int(m.group(2))
    duration = None
    m = re.search(r"duration\s+([\d.]+) s", subprocess.run(
        [args.cli, "summary", fpl], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True, timeout=60).stdout)
    if m:
        duration = float(m.group(1))
    return {"res": res, "probes": len(tasks), "cpu_ns": cpu, "span_s": span,
            "wakeups": wakeups, "duration_s": duration}


def sleep_floor(args, res, seconds):
    """(% of one CPU, wake-ups/s, us per wake-up) of two threads that only sleep res at a time
    (tests/bench/sleepfloor.c): what the kernel charges before the probes do anything."""
    exe = os.path.join(args.build, "tests", "sleepfloor")
    if not os.path.exists(exe):
        return None
    us = int(res[:-2]) * 1000 if res.endswith("ms") else int(res[:-2])
    r = subprocess.run([exe, "2", str(us), str(seconds)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=seconds + 30)
    rows = [(int(m.group(1)), int(m.group(2)))
            for m in re.finditer(r"cpu_ns (\d+) wakeups (\d+)", r.stdout)]
    if r.returncode != 0 or len(rows) != 2:
        return None
    cpu, wakes = sum(c for c, _ in rows), sum(w for _, w in rows)
    return (100.0 * cpu / (seconds * 1e9), wakes / seconds, cpu / max(1, wakes) / 1e3)


def part_hiccup(args, report, log):
    run_dir = os.path.join(args.out, "hiccup")
    os.makedirs(run_dir, exist_ok=True)
    seconds = 6 if args.quick else 12
    log("== hiccup: the probes' CPU cost (Quiet, %d s per run, CPU sampling off) ==" % seconds)
    rows = []
    for res in ("1ms", "10ms"):
        r = run_one(args, run_dir, res, seconds)
        rows.append(r)
        if len(r["cpu_ns"]) != 2:
            log("  %-6s could not find both probe threads (%d)" % (res, r["probes"]))
            continue
        total = sum(r["cpu_ns"])
        pct = 100.0 * total / (r["span_s"] * 1e9)
        rate = (sum(r["wakeups"].values()) / r["duration_s"]) if r["duration_s"] else 0
        per = total / (rate * r["span_s"]) / 1e3 if rate else 0
        log("  hiccup=%-5s both probes %.3f%% of one CPU (%.3f%% + %.3f%%); %.0f wake-ups/s; "
            "%.1f us of CPU per wake-up" % (res, pct, 100.0 * r["cpu_ns"][0] / (r["span_s"] * 1e9),
                                            100.0 * r["cpu_ns"][1] / (r["span_s"] * 1e9), rate,
                                            per))
        floor = sleep_floor(args, r["res"], max(2, seconds - 4))
        if floor:
            log("  %-13s floor: 2 bare clock_nanosleep(%s) threads %.3f%% of one CPU; %.0f "
                "wake-ups/s; %.1f us of CPU per wake-up" % ("", res, floor[0], floor[1],
                                                            floor[2]))
            r["floor"] = floor
    log("  target: 0.1%% of one CPU at 1 ms; load avg now %s" % open("/proc/loadavg").read()
        .split()[0])
    log()
    report["hiccup"] = rows
