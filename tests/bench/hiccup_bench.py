"""Part `hiccup` of the flyprof benchmark (bench.py): the cost of hiccup mode's probes beside
the floor the kernel sets. A JVM runs Quiet (one thread sleeping 10 ms at a time) with
hiccup=1ms, then 10ms (CPU sampling off, so the agent's other threads stay idle). In each
round, once the probes run, one bare thread that only sleeps the same resolution
(sleepfloor.c) runs beside them for the same window; the probe threads' CPU time and the
sleeper's are read from /proc/.../schedstat (ns on CPU) over that window. The figure is their
ratio, probes / bare sleeper, median of the rounds: the target is 1.1 (one wake-up per
resolution in all, nearly all of it the kernel's timer and context switches). A second bare
sleeper runs beside them in a process as big as the JVM (its resident memory written first):
on the project's VMs a context switch into a big process costs more, whoever switches, so
that ratio tells the probe's own work from the process it lives in. The probes' wake-ups come
from `flyprof hiccups`' counts."""

import os
import re
import statistics
import subprocess
import time

# the probe threads' kernel names: "flyprof hiccup" (one thread for both probes); agents
# before it had a Java probe ("flyprof hiccup java", cut to 15 characters) and an OS probe
COMMS = ("flyprof hiccup", "flyprof hic os")


def probe_tasks(pid):
    out = []
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            try:
                with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                    if f.read().strip() in COMMS:
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


def res_us(res):
    return int(res[:-2]) * 1000 if res.endswith("ms") else int(res[:-2])


def resident_mb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            m = re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M)
            return int(m.group(1)) // 1024 if m else 0
    except OSError:
        return 0


def load():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def run_round(args, run_dir, res, seconds, k):
    """One JVM with the probes at res and, for a window in its steady middle, one bare
    sleeper beside them. Returns a dict of the window's figures, or None (said in "error")."""
    fpl = os.path.join(run_dir, "hiccup-%s-%d.fpl" % (res, k))
    cmd = [args.java, "-agentpath:%s=wall=1s,hiccup=%s,file=%s" % (args.agent, res, fpl),
           "-cp", args.jar, "dev.flyprof.workload.Quiet", str(seconds)]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, cwd=run_dir)
    tasks = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.05)
        tasks = probe_tasks(p.pid)
        if tasks:
            break
    time.sleep(0.3)  # an agent with two probe threads starts the second one just after
    tasks = probe_tasks(p.pid)
    time.sleep(1.0)
    window = max(1.0, seconds - 4)
    exe = os.path.join(args.build, "tests", "sleepfloor")
    mb = resident_mb(p.pid)
    big = subprocess.Popen([exe, "1", str(res_us(res)), str(window), str(mb)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    a = {t: on_cpu_ns(p.pid, t) for t in tasks}
    t0 = time.monotonic()
    r = subprocess.run([exe, "1", str(res_us(res)), str(window)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=window + 30)
    b = {t: on_cpu_ns(p.pid, t) for t in tasks}
    span = time.monotonic() - t0
    bout, _ = big.communicate(timeout=60)
    _, err = p.communicate(timeout=120)
    m = re.search(r"cpu_ns (\d+) wakeups (\d+)", r.stdout)
    bm = re.search(r"cpu_ns (\d+) wakeups (\d+)", bout)
    cpu = [b[t] - a[t] for t in tasks if a.get(t) is not None and b.get(t) is not None]
    if not tasks or len(cpu) != len(tasks) or r.returncode != 0 or not m or not bm:
        return {"error": "probes %s, sleepfloor rc %d %s, JVM: %s" % (
            tasks, r.returncode, r.stderr.strip()[-200:], err.decode(errors="replace")[-300:])}
    hic = subprocess.run([args.cli, "hiccups", fpl, "--top", "0"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, timeout=60)
    wakeups = {w.group(1): int(w.group(2))
               for w in re.finditer(r"^  (java|os)\s+(\d+)", hic.stdout, re.M)}
    sm = subprocess.run([args.cli, "summary", fpl], stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True, timeout=60)
    dm = re.search(r"duration\s+([\d.]+) s", sm.stdout)
    duration = float(dm.group(1)) if dm else None
    # one thread's wake-up measures both probes (each counts it); two threads woke once each
    woke = sum(wakeups.values()) if len(tasks) > 1 else max(wakeups.values(), default=0)
    rate = woke / duration if duration else 0
    return {"threads": len(tasks), "probes_ns": sum(cpu), "sleeper_ns": int(m.group(1)),
            "sleeper_wakeups": int(m.group(2)), "big_mb": mb, "big_ns": int(bm.group(1)),
            "big_wakeups": int(bm.group(2)), "window_s": window, "span_s": span,
            "probe_wakeups_per_s": rate, "wakeups": wakeups, "duration_s": duration}


def part_hiccup(args, report, log):
    run_dir = os.path.join(args.out, "hiccup")
    os.makedirs(run_dir, exist_ok=True)
    seconds = 7 if args.quick else 10
    plan = (("1ms", 3 if args.quick else 7), ("10ms", 2 if args.quick else 3))
    log("== hiccup: the probes' CPU beside one bare sleeper at the same resolution (Quiet, "
        "%d s per JVM, CPU sampling off) ==" % seconds)
    log("  load avg %s at the start" % load())
    out = {}
    for res, rounds in plan:
        rows = []
        for k in range(rounds):
            r = run_round(args, run_dir, res, seconds, k)
            r["load"] = load()
            rows.append(r)
            if "error" in r:
                log("  hiccup=%-4s round %d: %s" % (res, k + 1, r["error"]))
                continue
            pw = r["probe_wakeups_per_s"]
            sw = r["sleeper_wakeups"] / r["window_s"]
            log("  hiccup=%-4s round %d: probes (%d thread%s) %.3f%% of a CPU, %.0f wake-ups/s; "
                "bare sleeper %.3f%%, %.0f wake-ups/s; ratio %.2f; sleeper in %d MB %.3f%%, "
                "ratio %.2f; load %s"
                % (res, k + 1, r["threads"], "" if r["threads"] == 1 else "s",
                   100.0 * r["probes_ns"] / (r["span_s"] * 1e9), pw,
                   100.0 * r["sleeper_ns"] / (r["window_s"] * 1e9), sw,
                   r["probes_ns"] / max(1, r["sleeper_ns"]), r["big_mb"],
                   100.0 * r["big_ns"] / (r["window_s"] * 1e9),
                   r["probes_ns"] / max(1, r["big_ns"]), r["load"]))
        ok = [r for r in rows if "error" not in r]
        if ok:
            ratio = statistics.median(r["probes_ns"] / max(1, r["sleeper_ns"]) for r in ok)
            per_probe = statistics.median(
                r["probes_ns"] / (r["probe_wakeups_per_s"] * r["span_s"]) / 1e3
                for r in ok if r["probe_wakeups_per_s"])
            per_sleep = statistics.median(r["sleeper_ns"] / max(1, r["sleeper_wakeups"]) / 1e3
                                          for r in ok)
            big = statistics.median(r["probes_ns"] / max(1, r["big_ns"]) for r in ok)
            log("  hiccup=%-4s median of %d: probes / bare sleeper %.2f (target <= 1.10), "
                "/ sleeper as big as the JVM %.2f; %.1f us of CPU per probe wake-up, %.1f us "
                "per bare wake-up" % (res, len(ok), ratio, big, per_probe, per_sleep))
            out[res] = {"rounds": rows, "ratio_median": ratio, "ratio_big_median": big,
                        "us_per_probe_wakeup": per_probe, "us_per_bare_wakeup": per_sleep}
        else:
            out[res] = {"rounds": rows}
    log("  load avg %s at the end" % load())
    log()
    report["hiccup"] = out
