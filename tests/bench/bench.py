#!/usr/bin/env python3
"""flyprof benchmark: prints figures, never passes or fails.

Parts, each run on real JVMs with the workloads of flyprof.jar (dev.flyprof.bench):

1. cpu    -- overhead of CPU profiling on a FIXED amount of multi-threaded work (FixedWork):
             no agent, flyprof cpu=10ms, cpu=1ms (cputimer), cpu=1ms with engine=itimer and
             engine=perf, and JFR (settings=profile, which samples every 10 ms). The
             configurations are interleaved in a shuffled order in every round; the table shows
             the median over rounds and the spread (min-max). With --peer LIB (a peer
             profiler's agent, e.g. async-profiler's libasyncProfiler.so) also that profiler
             at 10 ms and 1 ms ("peer cpu"), the same A/B against the no-agent run. Process CPU time (user+sys) and
             maximum RSS come from wait4()'s rusage of the JVM process, ratios are taken against
             the no-agent run of the same round. The agent's own figures (samples, handler
             cost, writer CPU, log size) come from `flyprof summary` of each run's log.
1b. depth -- the signal handler's cost (AsyncGetCallTrace) against the stack depth: FixedWork
             at cpu=1ms with 0, 32, 128 and 512 extra frames, one run each.
1c. cstack -- the handler's cost with native frames (cstack=auto) and without (cstack=off),
             cpu=1ms, on FixedWork (Java code), NativeFrames (JNI and zlib: a native walk on
             every sample) and GcChurn (G1: GC threads, native stacks only), interleaved;
             with the CPU coverage (weight x interval over the process CPU time).
1d. walk  -- the stack walker's cost and success, default (walk=vm: the walker's own read
             of HotSpot's structures, AGCT where it cannot be exact, recovery where AGCT gives
             up) against walk=agct (AGCT alone): handler p50/p99, the share of samples whose
             stack is a marker alone and of those the walker read alone, at cpu=1ms, on FixedWork
             (ordinary code) and on StubLoops' stub-heavy loops (arraycopy, vtable, itable,
             intrinsics), 2 s of the worker's CPU each.
1e. startup -- the first second of a profile (GcChurn, G1, cpu=10ms), loaded at startup,
             attached, and attached again (a second session on the same JVM): the share of
             the GC and VM threads' weight in that second whose stack has at most 2 frames
             (cut short before unwind tables are built; the walk goes on by frame pointer
             since), the samples walked by frame pointer, the time to the first sample, and
             the writer's CPU time (libjvm's unwind table dominates it; kept for the next
             session).
2. filter -- ThreadFilter.add()/remove() per call (FilterCost), without and with the agent.
2c. context -- Context.set(span, root)/clear() per call (ContextCost), without and with the
             agent (cpu=10ms); the target is <= 20 ns with the agent, ~0 without.
2d. threads -- thread start and end under profiling (ThreadChurn): short threads started as
             fast as they end, at most 64 alive: threads per second and the slowest
             Thread.start() of each round, without the agent, with cpu=10ms and with
             cpu=10ms,wall=10ms (the agent's ThreadStart and ThreadEnd work on every one).
2b. events -- Events.log(int) and Events.log(int, 18-char String) per call (EventCost cost),
             without the agent (the no-op), with it, and an empty static JNI native timed the
             same way (the JNI floor, tests/bench/jnifloor.c); then 4 threads logging at a
             paced total rate (EventCost rate) with the default buffers: events recorded and
             dropped, calls that waited for the writer, the writer's CPU time, log bytes per
             second; and the writer's CPU and wake-ups per second when nobody logs.
3. wall   -- the wall-clock sampler (wall=10ms, wallthreads=16, no CPU sampling) against the
             number of parked threads (ParkedThreads). The sampler thread's CPU time is read from
             /proc/PID/task/TID/sched ("flyprof wall sa") when all threads are up and again when
             the steady phase ends; the process CPU time is read through the process CPU clock at
             the same instants, in a run with the agent and one without.
3b. alloclock -- allocation and lock profiling at their defaults (alloc = 512 KiB, lock =
             10 us), whole-process figures: AllocRatio allocating a fixed 2 GiB of byte[1000]
             (an allocation-heavy loop: ~4000 samples) and LockWork (4 threads taking one
             monitor and one ReentrantLock in turn, a fixed number of rounds: waits mostly
             under the threshold, some parked), each without the agent, with alloc or lock
             alone, and with cpu=10ms,wall=50ms,alloc,lock; interleaved rounds, wall time and
             process CPU (wait4) against the no-agent run, and the samples logged.
3c. server -- CPU per request of a server under load (Server + LoadGen on loopback): no agent,
             cpu=10ms, cpu=10ms,wall=10ms (and the --peer profiler at 10 ms), interleaved, with
             the agent's own share of the process CPU from its log.
4. convert -- the collector: `flyprof convert` of a synthetic log (10M samples, 100k stacks, 32
             threads; quick: 2M, 20k) into every output, plain and --threads, and `flyprof
             summary`: time, CPU and max RSS (tests/bench/convert_bench.py prints the table).
4b. fleet -- flyprof push and convert --db against a clickhouse-server of its own: rows pushed
             per second (synthetic logs), and seconds to draw one service's flame graph over a
             simulated day of 50 hosts at 100 Hz (rows made inside ClickHouse; quick: 10 hosts)
             (tests/bench/fleet_bench.py).
4c. logbytes -- log bytes per sample by record type, whole and in the second half of a run:
             the demo (cpu+wall+context) and FixedWork at cpu=10ms (logbytes_bench.py).

5. jitter -- flyprof jitter beside oslat (rt-tests) on the same CPUs: p99, p99.9, max and
             stalls of 10 us or more per second (jitter_bench.py).
6. hiccup -- the CPU cost of hiccup mode's probes at 1 ms and 10 ms, beside one bare thread
             sleeping at the same resolution (hiccup_bench.py).

Usage: bench.py --build DIR [--java PATH] [--agent LIB] [--quick] [--rounds N]
                [--parts cpu,depth,cstack,walk,startup,filter,context,threads,events,wall,
                 alloclock,server,convert,fleet,logbytes,jitter,hiccup]
                [--out DIR]
`scripts/bench` builds (scripts/setup) and runs this.
"""

import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

import hiccup_bench
import jitter_bench
import logbytes_bench

HEAP = ["-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch"]
SAMPLER_COMM = "flyprof wall sa"   # "flyprof wall sampler", cut to 15 chars by the kernel
UNIT_NS = {"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}


# ---------------------------------------------------------------------------------- helpers

def log(msg=""):
    print(msg, flush=True)


def progress(msg):
    """A transient progress line on stderr (a terminal only), so the figures stay clean."""
    if sys.stderr.isatty():
        sys.stderr.write("\r\033[K" + msg)
        sys.stderr.flush()


def progress_done():
    if sys.stderr.isatty():
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()


def median(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def spread(v):
    v = [x for x in v if x is not None]
    return (min(v), max(v)) if v else (None, None)


def pct(x):
    return None if x is None else x * 100


def fmt(x, f="%.2f"):
    return "-" if x is None else f % x


def fmt_med(v, f="%.3f"):
    """'median [min-max]' of a list of numbers."""
    m = median(v)
    lo, hi = spread(v)
    if m is None:
        return "-"
    if lo == hi or len([x for x in v if x is not None]) < 2:
        return f % m
    return (f + " [" + f + "-" + f + "]") % (m, lo, hi)


def results_of(text):
    """The key=value pairs of the last `result ...` line of a workload's output."""
    out = {}
    for line in text.splitlines():
        if line.startswith("result "):
            out = dict(kv.partition("=")[::2] for kv in line.split()[1:])
    return out


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def machine_busy_s():
    """CPU seconds all CPUs of the machine have been busy since boot (/proc/stat: user, nice,
    system, irq, softirq, steal), to tell how much else ran during a measurement."""
    f = read_text("/proc/stat").split("\n", 1)[0].split()
    if len(f) < 9 or f[0] != "cpu":
        return None
    v = [int(x) for x in f[1:9]]
    return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / os.sysconf("SC_CLK_TCK")


def other_cores(busy0, busy1, child_cpu_s, wall_s):
    """CPUs' worth of work done by everything but the measured process during a run."""
    if busy0 is None or busy1 is None or wall_s <= 0:
        return None
    return max(0.0, (busy1 - busy0 - child_cpu_s) / wall_s)


def load_note(values, what):
    """One line on the other work the machine did during a part's runs."""
    m = median(values)
    if m is None:
        return
    lo, hi = spread(values)
    log("  other processes kept %.2f CPUs busy during these runs (median; %.2f-%.2f)"
        % (m, lo, hi))
    if hi > 0.25:
        log("  ! the machine was not quiet: %s are unreliable; rerun on an idle machine" % what)


def child_env():
    env = dict(os.environ)
    for k in ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS"):
        env.pop(k, None)
    return env


def run_measured(cmd, cwd, name, timeout):
    """Runs cmd with stdout/stderr in files under cwd; returns a dict with wall_s, cpu_s (user +
    sys of the child from wait4), maxrss_kb, rc, stdout, stderr."""
    out_path = os.path.join(cwd, name + ".out")
    err_path = os.path.join(cwd, name + ".err")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        busy0 = machine_busy_s()
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=cwd,
                             env=child_env())
        deadline = t0 + timeout
        status, ru = None, None
        while True:
            pid, st, r = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                status, ru = st, r
                break
            if time.monotonic() > deadline:
                p.kill()
                _, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.005)
        wall = time.monotonic() - t0
        busy1 = machine_busy_s()
    p.returncode = os.waitstatus_to_exitcode(status)
    cpu = ru.ru_utime + ru.ru_stime
    return {"wall_s": wall, "cpu_s": cpu, "other_cores": other_cores(busy0, busy1, cpu, wall),
            "user_s": ru.ru_utime,
            "sys_s": ru.ru_stime, "maxrss_kb": ru.ru_maxrss, "rc": p.returncode,
            "stdout": read_text(out_path), "stderr": read_text(err_path),
            "timed_out": wall >= timeout}


def to_ns(value, unit):
    return float(value) * UNIT_NS.get(unit, float("nan"))


def parse_summary(text):
    """Picks the figures the bench reports out of `flyprof summary`. Missing figures stay
    absent (the summary's wording may change; the raw text is kept next to the log)."""
    s = {}
    m = re.search(r"^\s*duration\s+([\d.]+) s", text, re.M)
    if m:
        s["duration_s"] = float(m.group(1))
    for kind in ("cpu", "wall", "alloc", "lock"):
        m = re.search(r"^\s*%s\s+(\d+) samples, weight (\d+)(.*)$" % kind, text, re.M)
        if m:
            s[kind + "_samples"] = int(m.group(1))
            s[kind + "_weight"] = int(m.group(2))
            f = re.search(r"([\d.]+)% failed", m.group(3))
            if f:
                s[kind + "_failed_pct"] = float(f.group(1))
    m = re.search(r"signal handler: p50 ([\d.]+) (\S+), p99 ([\d.]+) (\S+), max ([\d.]+) (\S+?),",
                  text)
    if m:
        s["handler_p50_ns"] = to_ns(m.group(1), m.group(2))
        s["handler_p99_ns"] = to_ns(m.group(3), m.group(4))
        s["handler_max_ns"] = to_ns(m.group(5), m.group(6))
    m = re.search(r"mean ([\d.]+) (\S+) over (\d+) runs", text)
    if m:
        s["handler_mean_ns"] = to_ns(m.group(1), m.group(2))
        s["handler_runs"] = int(m.group(3))
    m = re.search(r"writer thread CPU: ([\d.]+) (\S+)", text)
    if m:
        s["writer_cpu_ns"] = to_ns(m.group(1), m.group(2))
    m = re.search(r"log size: (\d+) bytes", text)
    if m:
        s["log_bytes"] = int(m.group(1))
    m = re.search(r"without AsyncGetCallTrace: (\d+)", text)
    s["own_walks"] = int(m.group(1)) if m else 0
    m = re.search(r"native walks that went on by frame pointer [^:]*: (\d+)", text)
    s["fp_walks"] = int(m.group(1)) if m else 0
    m = re.search(r"ring drops: (\d+)", text)
    if m:
        s["ring_drops"] = int(m.group(1))
    m = re.search(r"recorded (\d+), dropped (\d+) .*truncated (\d+)", text)
    if m:
        s["events_recorded"] = int(m.group(1))
        s["events_dropped"] = int(m.group(2))
    m = re.search(r"calls that waited for the writer to drain a full buffer: (\d+), ([\d.]+) ms "
                  r"in all; waits that ran out \(then dropped\): (\d+)", text)
    s["events_waits"] = int(m.group(1)) if m else 0
    s["events_wait_ms"] = float(m.group(2)) if m else 0.0
    s["events_wait_timeouts"] = int(m.group(3)) if m else 0
    m = re.search(r"wall ticks: (\d+), on average ([\d.]+) candidate threads and ([\d.]+) chosen "
                  r"per tick; (\d+) threads signaled, (\d+) signals failed", text)
    if m:
        s["wall_ticks"] = int(m.group(1))
        s["wall_candidates"] = float(m.group(2))
        s["wall_chosen"] = float(m.group(3))
        s["wall_signaled"] = int(m.group(4))
        s["wall_signal_failed"] = int(m.group(5))
    return s


def flyprof_summary(cli, fpl, cwd, name):
    """Runs `flyprof summary` on a log; keeps its text next to the log; returns parsed figures."""
    if not os.path.exists(fpl):
        return {"error": "no log written"}
    p = subprocess.run([cli, "summary", fpl], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, errors="replace", timeout=120)
    with open(os.path.join(cwd, name + ".summary.txt"), "w") as f:
        f.write(p.stdout + p.stderr)
    s = parse_summary(p.stdout)
    if p.returncode != 0:
        s["error"] = "flyprof summary exit %d: %s" % (p.returncode, p.stderr.strip()[:200])
    return s


def jfr_summary(jfr_tool, path):
    """Execution samples and file size of a JFR recording (`jfr summary`)."""
    s = {}
    if not os.path.exists(path):
        return {"error": "no recording written"}
    s["log_bytes"] = os.path.getsize(path)
    if jfr_tool:
        p = subprocess.run([jfr_tool, "summary", path], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, errors="replace", timeout=120)
        m = re.search(r"^\s*jdk\.ExecutionSample\s+(\d+)\s+(\d+)", p.stdout, re.M)
        if m:
            s["cpu_samples"] = int(m.group(1))
            s["cpu_weight"] = int(m.group(1))
    return s


# ------------------------------------------------------------------------------ environment

def sh(cmd):
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              errors="replace", timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def environment(args):
    cpu = "?"
    for line in read_text("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem_kb = 0
    m = re.search(r"MemTotal:\s+(\d+)", read_text("/proc/meminfo"))
    if m:
        mem_kb = int(m.group(1))
    jv = sh([args.java, "-version"]).splitlines()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rev = sh(["git", "-C", root, "rev-parse", "--short", "HEAD"])
    dirty = ""
    if re.fullmatch(r"[0-9a-f]{4,40}", rev):
        dirty = sh(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"])
    else:
        rev = "source at %s (not a git checkout)" % root
    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "host": platform.node(),
        "kernel": platform.release(),
        "cpu_model": cpu,
        "cpus": os.cpu_count(),
        "mem_gb": round(mem_kb / 1048576, 1),
        "clocksource": read_text(
            "/sys/devices/system/clocksource/clocksource0/current_clocksource").strip(),
        "perf_event_paranoid": read_text("/proc/sys/kernel/perf_event_paranoid").strip(),
        "loadavg": read_text("/proc/loadavg").split()[:3],
        "java": os.path.realpath(args.java),
        "java_version": jv[1] if len(jv) > 1 else (jv[0] if jv else "?"),
        "vm": jv[2] if len(jv) > 2 else "",
        "flyprof_rev": rev + (" (+ uncommitted changes)" if dirty else ""),
        "python": platform.python_version(),
    }


def print_environment(env, args):
    log("flyprof benchmark   %s   %s mode" % (env["date"], "quick" if args.quick else "full"))
    log("  kernel      %s" % env["kernel"])
    log("  cpu         %s, %d cpus, %.1f GB RAM, clocksource %s, perf_event_paranoid %s"
        % (env["cpu_model"], env["cpus"], env["mem_gb"], env["clocksource"],
           env["perf_event_paranoid"]))
    log("  jdk         %s  (%s)" % (env["java_version"], env["java"]))
    log("  flyprof     %s, build %s" % (env["flyprof_rev"], os.path.abspath(args.build)))
    if args.agent != os.path.join(os.path.abspath(args.build), "lib", "libflyprof.so"):
        log("  agent       %s" % args.agent)
    log("  load avg    %s at start" % " ".join(env["loadavg"]))
    log("  output      %s" % args.out)
    log()


# ----------------------------------------------------------------------- part 1: CPU overhead

def cpu_configs(args, run_dir):
    """(name, interval_ns or None, jvm options builder) for each configuration."""
    agent = args.agent

    def fp(opts):
        return lambda tag: ["-agentpath:%s=%s,file=%s" % (
            agent, opts, os.path.join(run_dir, tag + ".fpl"))]

    cfgs = [
        ("no agent", None, lambda tag: []),
        ("flyprof cpu=10ms", 10e6, fp("cpu=10ms")),
        ("flyprof cpu=1ms", 1e6, fp("cpu=1ms")),
        ("flyprof itimer 1ms", 1e6, fp("cpu=1ms,engine=itimer")),
        ("flyprof perf 1ms", 1e6, fp("cpu=1ms,engine=perf")),
        ("JFR profile", 10e6, lambda tag: [
            "-XX:StartFlightRecording=settings=profile,filename=%s"
            % os.path.join(run_dir, tag + ".jfr")]),
    ]
    if args.skip_engines:
        cfgs = [c for c in cfgs if "itimer" not in c[0] and "perf" not in c[0]]
    if args.peer:
        cfgs += [("peer cpu 10ms", 10e6, peer_opts(args, run_dir, "10ms")),
                 ("peer cpu 1ms", 1e6, peer_opts(args, run_dir, "1ms"))]
    return cfgs


def peer_opts(args, run_dir, interval):
    """JVM options that load the peer profiler (--peer: async-profiler's agent library) sampling
    CPU every `interval` from start to exit, writing collapsed stacks at exit."""
    return lambda tag: ["-agentpath:%s=start,event=cpu,interval=%s,file=%s" % (
        args.peer, interval, os.path.join(run_dir, tag + ".collapsed"))]


def collapsed_samples(path):
    """The samples of a collapsed-stacks file (the sum of its counts), or None."""
    try:
        with open(path) as f:
            return sum(int(line.rsplit(" ", 1)[1]) for line in f if line.strip())
    except (OSError, ValueError, IndexError):
        return None


def fixed_work_cmd(args, jvm_opts, units):
    return ([args.java] + HEAP + jvm_opts + ["-cp", args.jar, "dev.flyprof.bench.FixedWork",
                                            str(units), str(args.threads), str(args.depth)])


def calibrate(args, run_dir):
    """Units of FixedWork that take about args.work_seconds on each of its threads without the
    agent, judged by process CPU time (which other load on the machine disturbs less than wall
    time): a first run estimates the rate (and warms the page cache), a second one refines it."""
    units = 1000
    for i in range(2):
        r = run_measured(fixed_work_cmd(args, [], units), run_dir, "calibrate-%d" % i, 300)
        res = results_of(r["stdout"])
        if r["rc"] != 0 or "work_ns" not in res:
            raise SystemExit("bench: FixedWork failed (exit %s): %s"
                             % (r["rc"], r["stderr"][-800:]))
        # JVM start-up costs about 0.5 s of CPU whatever the work
        work_cpu = max(r["cpu_s"] - 0.5, 0.05)
        units = max(100, int(round(units * args.work_seconds * args.threads / work_cpu, -2)))
    return units


def part_cpu(args, report):
    run_dir = os.path.join(args.out, "cpu")
    os.makedirs(run_dir, exist_ok=True)
    log("== 1. CPU profiling overhead: FixedWork, a fixed amount of work ==")
    progress("calibrating FixedWork ...")
    units = args.units = calibrate(args, run_dir)
    progress_done()
    cfgs = cpu_configs(args, run_dir)
    log("  %d units of mixed allocating work (SHA-256, sort, strings, HashMap) on %d threads, "
        "%d extra frames deep;" % (units, args.threads, args.depth))
    log("  JVM flags %s; %d rounds, each running the %d configurations in a shuffled order"
        % (" ".join(HEAP), args.rounds, len(cfgs)))
    rng = random.Random(args.seed)
    runs = {c[0]: [] for c in cfgs}
    checksums = set()
    errors = []
    total = args.rounds * len(cfgs)
    done = 0
    for rnd in range(args.rounds):
        order = list(cfgs)
        rng.shuffle(order)
        for name, interval, opts in order:
            done += 1
            progress("cpu: round %d/%d, %s (%d/%d)" % (rnd + 1, args.rounds, name, done, total))
            tag = "r%d-%s" % (rnd, re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_"))
            r = run_measured(fixed_work_cmd(args, opts(tag), units), run_dir, tag, 600)
            res = results_of(r["stdout"])
            rec = {"round": rnd, "wall_s": r["wall_s"], "cpu_s": r["cpu_s"],
                   "other_cores": r["other_cores"],
                   "user_s": r["user_s"], "sys_s": r["sys_s"], "maxrss_kb": r["maxrss_kb"],
                   "rc": r["rc"]}
            if "work_ns" in res:
                rec["work_s"] = int(res["work_ns"]) / 1e9
                checksums.add(res.get("checksum"))
            if r["rc"] != 0 or "work_ns" not in res:
                errors.append("%s round %d: exit %s: %s" % (name, rnd, r["rc"],
                                                            r["stderr"].strip()[-400:]))
            fpl = os.path.join(run_dir, tag + ".fpl")
            jfr = os.path.join(run_dir, tag + ".jfr")
            if name.startswith("flyprof"):
                rec["agent"] = flyprof_summary(args.cli, fpl, run_dir, tag)
            elif name.startswith("JFR"):
                rec["agent"] = jfr_summary(args.jfr, jfr)
            elif name.startswith("peer"):
                n = collapsed_samples(os.path.join(run_dir, tag + ".collapsed"))
                rec["agent"] = {"cpu_samples": n} if n else {"error": "no collapsed output"}
            runs[name].append(rec)
    progress_done()

    # ratios against the no-agent run of the same round
    base = {r["round"]: r for r in runs["no agent"]}

    def ratios(name, key):
        out = []
        for r in runs[name]:
            b = base.get(r["round"])
            if b and r.get(key) and b.get(key):
                out.append(r[key] / b[key])
        return out

    summary = {}
    for name, interval, _ in cfgs:
        rs = runs[name]
        row = {
            "cpu_ratio": ratios(name, "cpu_s"),
            "wall_ratio": ratios(name, "wall_s"),
            "work_ratio": ratios(name, "work_s"),
            "cpu_s": [r["cpu_s"] for r in rs],
            "wall_s": [r["wall_s"] for r in rs],
            "maxrss_mb": [r["maxrss_kb"] / 1024 for r in rs],
            "rss_delta_mb": [(r["maxrss_kb"] - base[r["round"]]["maxrss_kb"]) / 1024
                             for r in rs if r["round"] in base],
        }
        if name != "no agent":
            a = [r.get("agent", {}) for r in rs]
            row["samples"] = [x.get("cpu_samples") for x in a]
            row["weight"] = [x.get("cpu_weight") for x in a]
            row["samples_per_s"] = [x["cpu_samples"] / r["wall_s"] if x.get("cpu_samples")
                                    else None for x, r in zip(a, rs)]
            # coverage: the CPU time the samples account for, over the process's CPU time
            row["coverage"] = [x["cpu_weight"] * interval / 1e9 / r["cpu_s"]
                               if x.get("cpu_weight") else None for x, r in zip(a, rs)]
            row["failed_pct"] = [x.get("cpu_failed_pct") for x in a]
            row["handler_p50_us"] = [x["handler_p50_ns"] / 1e3 if "handler_p50_ns" in x
                                     else None for x in a]
            row["handler_p99_us"] = [x["handler_p99_ns"] / 1e3 if "handler_p99_ns" in x
                                     else None for x in a]
            row["handler_max_us"] = [x["handler_max_ns"] / 1e3 if "handler_max_ns" in x
                                     else None for x in a]
            row["writer_cpu_ms"] = [x["writer_cpu_ns"] / 1e6 if "writer_cpu_ns" in x else None
                                    for x in a]
            row["log_kb"] = [x["log_bytes"] / 1024 if "log_bytes" in x else None for x in a]
            row["bytes_per_sample"] = [x["log_bytes"] / x["cpu_samples"]
                                       if x.get("log_bytes") and x.get("cpu_samples") else None
                                       for x in a]
            row["ring_drops"] = [x.get("ring_drops") for x in a]
            # extra process CPU per sample taken, against the same round's no-agent run
            # (not for JFR, whose cost is mostly not its execution sampler)
            row["extra_cpu_per_sample_us"] = [
                (r["cpu_s"] - base[r["round"]]["cpu_s"]) * 1e6 / x["cpu_samples"]
                if x.get("cpu_samples") and r["round"] in base and not name.startswith("JFR")
                else None for x, r in zip(a, rs)]
            errs = [x["error"] for x in a if x.get("error")]
            if errs:
                errors.append("%s: %s" % (name, errs[0]))
        summary[name] = row

    load_note([r["other_cores"] for rs in runs.values() for r in rs], "wall-time ratios")
    b = summary["no agent"]
    log("  no agent: process CPU %s s, wall %s s, max RSS %s MB (median [min-max])"
        % (fmt_med(b["cpu_s"], "%.2f"), fmt_med(b["wall_s"], "%.2f"),
           fmt_med(b["maxrss_mb"], "%.0f")))
    log()
    w = 20
    log("  %-*s %-20s %-20s %-20s %s" % (w, "configuration", "CPU time / none",
                                          "wall / none", "work phase / none", "RSS +MB"))
    for name, _, _ in cfgs:
        if name == "no agent":
            continue
        r = summary[name]
        log("  %-*s %-20s %-20s %-20s %s" % (
            w, name, fmt_med(r["cpu_ratio"]), fmt_med(r["wall_ratio"]), fmt_med(r["work_ratio"]),
            fmt_med(r["rss_delta_mb"], "%.1f")))
    log()
    log("  %-*s %8s %8s %9s %6s %17s %8s %8s %8s %10s" % (
        w, "configuration", "samples", "per s", "coverage", "fail%", "handler p50/p99 us",
        "max us", "writer", "B/sample", "CPU/sample"))
    for name, _, _ in cfgs:
        if name == "no agent":
            continue
        r = summary[name]
        hp = "%s / %s" % (fmt(median(r["handler_p50_us"]), "%.1f"),
                          fmt(median(r["handler_p99_us"]), "%.1f"))
        log("  %-*s %8s %8s %8s%% %6s %17s %8s %6sms %8s %8sus" % (
            w, name, fmt(median(r["samples"]), "%d"), fmt(median(r["samples_per_s"]), "%.0f"),
            fmt(pct(median(r["coverage"])), "%.1f"),
            fmt(median(r["failed_pct"]), "%.2f"), hp,
            fmt(median(r["handler_max_us"]), "%.0f"),
            fmt(median(r["writer_cpu_ms"]), "%.1f"),
            fmt(median(r["bytes_per_sample"]), "%.1f"),
            fmt(median(r["extra_cpu_per_sample_us"]), "%.1f")))
    log()
    for line in (
            "CPU time and wall: the whole JVM process, start-up included; work phase: the",
            "workload's own wall time from starting its threads to joining them. samples: signals",
            "handled (JFR: jdk.ExecutionSample events); coverage: sample weight x interval over the",
            "process CPU time; CPU/sample: extra process CPU over the same round's no-agent run,",
            "per sample; JFR's B/sample: its whole recording (every event type) per execution",
            "sample. Medians over rounds, [min-max] spread."):
        log("  " + line)
    for mine, peer in (("flyprof cpu=10ms", "peer cpu 10ms"), ("flyprof cpu=1ms", "peer cpu 1ms")):
        if peer not in runs:
            continue
        theirs = {r["round"]: r for r in runs[peer]}
        pairs = [r["cpu_s"] / theirs[r["round"]]["cpu_s"] for r in runs[mine]
                 if r["round"] in theirs and r["rc"] == 0 and theirs[r["round"]]["rc"] == 0]
        summary.setdefault("peer_pairs", {})[mine] = pairs
        log("  %s against %s: process CPU %s (median of the rounds' pairs [min-max]; "
            "below 1 is cheaper)" % (mine, peer, fmt_med(pairs, "%.4f")))
    if len(checksums) > 1:
        errors.append("FixedWork checksums differ between runs: %s" % sorted(checksums))
    for e in errors:
        log("  ! " + e)
    log()
    report["cpu"] = {"units": units, "threads": args.threads, "depth": args.depth,
                     "rounds": args.rounds, "jvm_flags": HEAP, "runs": runs,
                     "summary": summary, "errors": errors}


# ---------------------------------------------------- part 1c: the walker, vm against agct

def part_walk(args, report):
    run_dir = os.path.join(args.out, "walk")
    os.makedirs(run_dir, exist_ok=True)
    log("== 1c. Stack walker: default (walk=vm: the walker, AsyncGetCallTrace where it cannot be "
        "exact) against AsyncGetCallTrace alone (walk=agct), cpu=1ms ==")
    if not getattr(args, "units", None):
        progress("calibrating FixedWork ...")
        args.units = calibrate(args, run_dir)
        progress_done()
    units = max(100, int(args.units * args.depth_fraction))
    seconds = 1 if args.quick else 2
    workloads = [("FixedWork", ["dev.flyprof.bench.FixedWork", str(units), str(args.threads),
                                str(args.depth)])]
    workloads += [("StubLoops " + m, ["dev.flyprof.workload.StubLoops", m, str(seconds)])
                  for m in ("arraycopy", "vtable", "itable", "intrinsics")]
    rows = {}
    errors = []
    loads = []
    log("  %-22s %-6s %12s %12s %12s %8s %8s" % ("workload", "walk", "handler p50", "p99",
                                                 "lost%", "samples", "own%"))
    for name, main in workloads:
        for walk in ("vm", "agct"):
            progress("walk: %s, %s" % (name, walk))
            tag = "%s-%s" % (name.replace(" ", "-"), walk)
            fpl = os.path.join(run_dir, tag + ".fpl")
            cmd = ([args.java] + HEAP + ["-agentpath:%s=cpu=1ms,walk=%s,file=%s"
                                         % (args.agent, walk, fpl), "-cp", args.jar] + main)
            r = run_measured(cmd, run_dir, tag, 600)
            loads.append(r["other_cores"])
            if r["rc"] != 0:
                errors.append("%s walk=%s: exit %s: %s" % (name, walk, r["rc"],
                                                          r["stderr"].strip()[-300:]))
            s = flyprof_summary(args.cli, fpl, run_dir, tag)
            rows["%s walk=%s" % (name, walk)] = s
            progress_done()
            own = (100.0 * s["own_walks"] / s["cpu_samples"]
                   if s.get("cpu_samples") else None)
            log("  %-22s %-6s %9s us %9s us %11s%% %8s %7s%%" % (
                name, walk,
                fmt(s.get("handler_p50_ns") and s["handler_p50_ns"] / 1e3, "%.1f"),
                fmt(s.get("handler_p99_ns") and s["handler_p99_ns"] / 1e3, "%.1f"),
                fmt(s.get("cpu_failed_pct"), "%.2f"), fmt(s.get("cpu_samples"), "%d"),
                fmt(own, "%.1f")))
    log("  lost%: samples whose stack is a marker alone (a failed walk), of all the process's "
        "CPU samples; own%: samples whose Java frames the walker read without AsyncGetCallTrace "
        "(the JVM's own threads have none).")
    load_note(loads, "the handler times")
    for e in errors:
        log("  ! " + e)
    log()
    report["walk"] = {"rows": rows, "errors": errors}


# ------------------------------------------------------------- part 1b: handler vs depth

def part_depth(args, report):
    run_dir = os.path.join(args.out, "depth")
    os.makedirs(run_dir, exist_ok=True)
    log("== 1b. Signal handler cost vs stack depth (FixedWork, flyprof cpu=1ms, one run each) ==")
    if not getattr(args, "units", None):
        progress("calibrating FixedWork ...")
        args.units = calibrate(args, run_dir)
        progress_done()
    units = max(100, int(args.units * args.depth_fraction))
    depths = args.depths
    rows = {}
    errors = []
    loads = []
    log("  %d units on %d threads; the depth is the number of extra recursive frames below the "
        "thread's own" % (units, args.threads))
    log()
    log("  %8s %12s %12s %12s %12s %9s %8s" % ("depth", "frames/smp", "handler p50", "p99",
                                                "max", "fail%", "samples"))
    for d in depths:
        progress("depth: %d" % d)
        tag = "depth%d" % d
        fpl = os.path.join(run_dir, tag + ".fpl")
        cmd = ([args.java] + HEAP + ["-agentpath:%s=cpu=1ms,file=%s" % (args.agent, fpl),
                                     "-cp", args.jar, "dev.flyprof.bench.FixedWork", str(units),
                                     str(args.threads), str(d)])
        r = run_measured(cmd, run_dir, tag, 600)
        loads.append(r["other_cores"])
        if r["rc"] != 0:
            errors.append("depth %d: exit %s: %s" % (d, r["rc"], r["stderr"].strip()[-300:]))
        s = flyprof_summary(args.cli, fpl, run_dir, tag)
        frames = mean_frames(args.cli, fpl, run_dir, tag)
        rows[d] = dict(s, mean_frames=frames)
        progress_done()
        log("  %8d %12s %9s us %9s us %9s us %9s %8s" % (
            d, fmt(frames, "%.1f"), fmt(s.get("handler_p50_ns") and s["handler_p50_ns"] / 1e3,
                                        "%.1f"),
            fmt(s.get("handler_p99_ns") and s["handler_p99_ns"] / 1e3, "%.1f"),
            fmt(s.get("handler_max_ns") and s["handler_max_ns"] / 1e3, "%.0f"),
            fmt(s.get("cpu_failed_pct"), "%.2f"), fmt(s.get("cpu_samples"), "%d")))
    log("  frames/smp: mean Java frames per sample (weighted), from `flyprof convert` folded "
        "stacks.")
    load_note(loads, "the handler times")
    for e in errors:
        log("  ! " + e)
    log()
    report["depth"] = {"units": units, "rows": rows, "errors": errors}


# ------------------------------------------------------- part 1c: native frames (cstack)

def part_cstack(args, report):
    run_dir = os.path.join(args.out, "cstack")
    os.makedirs(run_dir, exist_ok=True)
    log("== 1c. Native frames: handler cost with cstack=auto and cstack=off (cpu=1ms) ==")
    if not getattr(args, "units", None):
        progress("calibrating FixedWork ...")
        args.units = calibrate(args, run_dir)
        progress_done()
    units = max(100, int(args.units * args.depth_fraction))
    secs = "2" if args.quick else "4"
    workloads = [
        ("FixedWork", HEAP, ["dev.flyprof.bench.FixedWork", str(units), str(args.threads),
                             str(args.depth)]),
        ("NativeFrames", [], ["dev.flyprof.workload.NativeFrames", secs]),
        ("GcChurn", ["-XX:+UseG1GC", "-Xmx512m", "-Xms512m"],
         ["dev.flyprof.workload.GcChurn", secs]),
    ]
    rounds = 1 if args.quick else 3
    rng = random.Random(args.seed)
    rows = {}
    errors = []
    loads = []
    for rnd in range(rounds):
        order = [(w, m) for w in workloads for m in ("auto", "off")]
        rng.shuffle(order)
        for (wname, jvm, main), mode in order:
            progress("cstack: round %d/%d, %s cstack=%s" % (rnd + 1, rounds, wname, mode))
            tag = "r%d-%s-%s" % (rnd, wname, mode)
            fpl = os.path.join(run_dir, tag + ".fpl")
            cmd = ([args.java] + jvm +
                   ["-agentpath:%s=cpu=1ms,cstack=%s,file=%s" % (args.agent, mode, fpl),
                    "-cp", args.jar] + main)
            r = run_measured(cmd, run_dir, tag, 600)
            loads.append(r["other_cores"])
            if r["rc"] != 0:
                errors.append("%s: exit %s: %s" % (tag, r["rc"], r["stderr"].strip()[-300:]))
            sm = flyprof_summary(args.cli, fpl, run_dir, tag)
            if sm.get("cpu_weight") and r["cpu_s"]:
                sm["coverage"] = sm["cpu_weight"] * 1e-3 / r["cpu_s"]
            rows.setdefault((wname, mode), []).append(sm)
    progress_done()
    log("  %-13s %-7s %8s %9s %12s %12s %9s %8s" % ("workload", "cstack", "samples", "coverage",
                                                    "handler p50", "p99", "max", "fail%"))
    for wname, _, _ in workloads:
        for mode in ("auto", "off"):
            rs = rows.get((wname, mode), [])

            def med(key, scale=1.0):
                v = [x[key] / scale for x in rs if x.get(key) is not None]
                return median(v) if v else None
            log("  %-13s %-7s %8s %8s%% %9s us %9s us %6s us %8s" % (
                wname, mode, fmt(med("cpu_samples"), "%d"), fmt(pct(med("coverage")), "%.1f")
                if med("coverage") else "-", fmt(med("handler_p50_ns", 1e3), "%.1f"),
                fmt(med("handler_p99_ns", 1e3), "%.1f"), fmt(med("handler_max_ns", 1e3), "%.0f"),
                fmt(med("cpu_failed_pct"), "%.2f")))
    log("  medians over %d round(s); coverage: sample weight x 1 ms over the whole process's CPU"
        % rounds)
    log("  time (start-up included, so below 100%); the handler figures are over every sample,")
    log("  JVM-internal threads included.")
    load_note(loads, "the handler times")
    for e in errors:
        log("  ! " + e)
    log()
    report["cstack"] = {"units": units, "rows": {"%s %s" % k: v for k, v in rows.items()},
                        "errors": errors}


def first_second(cli, fpl):
    """(weight of the GC and VM threads in the log's first second, of it with <= 2 frames,
    seconds from the log's start to its first sample), None where the log has none."""
    def folded(extra):
        p = subprocess.run([cli, "convert", fpl, "-o", "-", "--threads"] + extra,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace", timeout=120)
        return p.stdout.splitlines() if p.returncode == 0 else []
    total = short = 0
    for line in folded(["--to", "1"]):
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if count.isdigit() and frames[0].startswith(("GC Thread", "G1 ", "VM Thread")):
            total += int(count)
            if len(frames) - 1 <= 2:
                short += int(count)
    first = None
    for ms in (10, 20, 50, 100, 200, 500, 1000, 2000):
        if folded(["--to", "%dms" % ms]):
            first = ms / 1000.0
            break
    return total, short, first


def part_startup(args, report):
    run_dir = os.path.join(args.out, "startup")
    os.makedirs(run_dir, exist_ok=True)
    log("== 1e. The first second: whole native stacks from the start (GcChurn, cpu=10ms) ==")
    rounds = 1 if args.quick else 3
    g1 = ["-XX:+UseG1GC", "-Xmx512m", "-Xms512m"]
    rows = {"-agentpath": [], "attached": [], "again": []}
    errors = []
    for rnd in range(rounds):
        progress("startup: round %d/%d, -agentpath" % (rnd + 1, rounds))
        tag = "r%d-agentpath" % rnd
        fpl = os.path.join(run_dir, tag + ".fpl")
        r = run_measured([args.java] + g1 + ["-agentpath:%s=cpu=10ms,file=%s" % (args.agent, fpl),
                          "-cp", args.jar, "dev.flyprof.workload.GcChurn", "3"], run_dir, tag, 300)
        if r["rc"] != 0:
            errors.append("%s: exit %s" % (tag, r["rc"]))
        sm = flyprof_summary(args.cli, fpl, run_dir, tag)
        sm["gc_weight"], sm["gc_short"], sm["first_s"] = first_second(args.cli, fpl)
        rows["-agentpath"].append(sm)

        progress("startup: round %d/%d, attached" % (rnd + 1, rounds))
        with open(os.path.join(run_dir, "r%d-attached.jvm.out" % rnd), "wb") as out:
            jvm = subprocess.Popen([args.java] + g1 + ["-cp", args.jar,
                                   "dev.flyprof.workload.GcChurn", "60"], stdout=out,
                                   stderr=subprocess.STDOUT, env=child_env())
        time.sleep(2)  # its threads and classes are there before the agent
        # attached, then a second session on the same JVM (the unwind tables are kept)
        for how in ("attached", "again"):
            tag = "r%d-%s" % (rnd, how)
            fpl = os.path.join(run_dir, tag + ".fpl")
            a = subprocess.run([args.cli, "start", str(jvm.pid), "-o", fpl],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=60)
            time.sleep(3)
            b = subprocess.run([args.cli, "stop", str(jvm.pid)], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=120)
            if a.returncode or b.returncode:
                errors.append("%s: start exit %s, stop exit %s: %s" % (
                    tag, a.returncode, b.returncode, (a.stdout + b.stdout)[-300:]))
            sm = flyprof_summary(args.cli, fpl, run_dir, tag)
            sm["gc_weight"], sm["gc_short"], sm["first_s"] = first_second(args.cli, fpl)
            rows[how].append(sm)
        jvm.kill()
        jvm.wait()
    progress_done()
    log("  %-11s %12s %15s %13s %14s %12s" % ("how", "GC/VM weight", "<= 2 frames", "by frame ptr",
                                              "first sample", "writer CPU"))
    for how, rs in rows.items():
        def med(key, scale=1.0):
            v = [x[key] / scale for x in rs if x.get(key) is not None]
            return median(v) if v else None
        shares = [x["gc_short"] / x["gc_weight"] for x in rs if x.get("gc_weight")]
        log("  %-11s %12s %14s%% %13s %11s ms %9s ms" % (
            how, fmt(med("gc_weight"), "%d"), fmt(pct(median(shares)) if shares else None, "%.1f"),
            fmt(med("fp_walks"), "%d"), fmt(med("first_s", 1e-3), "%.0f"),
            fmt(med("writer_cpu_ns", 1e6), "%.0f")))
    log("  medians over %d round(s); the first second of each log; first sample: the first of"
        % rounds)
    log("  10, 20, 50, 100, 200 ms... after the log's start that holds one; writer CPU over the")
    log("  whole run (3 s of GcChurn's CPU with -agentpath, 3 s of wall time attached); again:")
    log("  a second session on the attached JVM, which reuses the first one's unwind tables.")
    for e in errors:
        log("  ! " + e)
    log()
    report["startup"] = {"rows": rows, "errors": errors}


def mean_frames(cli, fpl, cwd, name):
    """Mean number of frames per sample weight in a log (folded stacks, markers excluded)."""
    if not os.path.exists(fpl):
        return None
    p = subprocess.run([cli, "convert", fpl, "-o", "-", "--format", "collapsed"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", timeout=120)
    if p.returncode != 0:
        return None
    total = frames = 0
    for line in p.stdout.splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit() or not stack or stack.split(";")[-1].startswith("["):
            continue
        total += int(count)
        frames += int(count) * len(stack.split(";"))
    return frames / total if total else None


# ---------------------------------------------------------------------- part 2: thread filter

def run_interleaved(args, run_dir, what, cfgs, runs, main_args, parse):
    """Runs main_args (a dev.flyprof.bench class and its arguments) once per configuration in
    each of `runs` rounds, the order reversed every other round. cfgs: (name, agent options or
    None for no agent); parse(name, stdout) takes a run's figures. Returns (errors, loads)."""
    errors, loads = [], []
    for i in range(runs):
        for name, agent in (cfgs if i % 2 == 0 else cfgs[::-1]):
            progress("%s: %s, run %d/%d" % (what, name, i + 1, runs))
            tag = "run%d-%s" % (i, re.sub(r"[^a-z0-9]+", "_", name))
            jopts = ["-agentpath:%s=%s,file=%s" % (args.agent, agent,
                                                   os.path.join(run_dir, tag + ".fpl"))] \
                if agent else []
            cmd = [args.java] + jopts + ["-cp", args.jar] + main_args
            r = run_measured(cmd, run_dir, tag, 900)
            loads.append(r["other_cores"])
            if r["rc"] != 0:
                errors.append("%s: exit %s: %s" % (name, r["rc"], r["stderr"].strip()[-300:]))
            parse(name, r["stdout"])
    progress_done()
    return errors, loads


def parse_call_cost(per, flag):
    """A parse for run_interleaved over the per-call cost benchmarks (CallCost's output):
    per[name][op] gets each round's ns per call, per[name][flag] the result line's flag."""
    def parse(name, out):
        for line in out.splitlines():
            m = re.match(r"round op=(\w+) i=\d+ ns_per_call=([\d.]+)", line)
            if m:
                per[name][m.group(1)].append(float(m.group(2)))
        per[name][flag].add(results_of(out).get(flag))
    return parse

def part_filter(args, report):
    run_dir = os.path.join(args.out, "filter")
    os.makedirs(run_dir, exist_ok=True)
    log("== 2. ThreadFilter.add()/remove() per call (FilterCost) ==")
    cfgs = [("no agent", None), ("agent wall=50ms,filter", "wall=50ms,filter")]
    log("  %d calls per timed loop after warm-up, %d rounds per JVM, %d JVM runs per "
        "configuration, interleaved" % (args.filter_calls, args.filter_rounds, args.filter_runs))
    per = {c[0]: {"add": [], "remove": [], "pair": [], "marked": set()} for c in cfgs}
    errors, loads = run_interleaved(
        args, run_dir, "filter", cfgs, args.filter_runs,
        ["dev.flyprof.bench.FilterCost", str(args.filter_calls), str(args.filter_rounds)],
        parse_call_cost(per, "marked"))
    log()
    log("  %-24s %-24s %-24s %-24s %s" % ("configuration", "add() ns", "remove() ns",
                                          "add+remove, per call ns", "marked"))
    for name, _ in cfgs:
        p = per[name]
        log("  %-24s %-24s %-24s %-24s %s" % (name, fmt_med(p["add"]), fmt_med(p["remove"]),
                                              fmt_med(p["pair"]), ",".join(sorted(
                                                  str(x) for x in p["marked"]))))
    log("  median [min-max] over all timed rounds; 'marked' says whether add() reached the agent.")
    load_note(loads, "the per-call times")
    for e in errors:
        log("  ! " + e)
    log()
    report["filter"] = {"calls": args.filter_calls, "rounds": args.filter_rounds,
                        "runs": args.filter_runs, "errors": errors,
                        "ns_per_call": {k: {op: v[op] for op in ("add", "remove", "pair")}
                                        for k, v in per.items()},
                        "marked": {k: sorted(str(x) for x in v["marked"]) for k, v in
                                   per.items()}}


# ---------------------------------------------------------------------- part 2c: context

def part_context(args, report):
    run_dir = os.path.join(args.out, "context")
    os.makedirs(run_dir, exist_ok=True)
    log("== 2c. Context.set(span, root)/clear() per call (ContextCost) ==")
    cfgs = [("no agent", None), ("agent cpu=10ms", "cpu=10ms")]
    log("  %d calls per timed loop after warm-up, %d rounds per JVM, %d JVM runs per "
        "configuration, interleaved" % (args.filter_calls, args.filter_rounds, args.filter_runs))
    per = {c[0]: {"set": [], "clear": [], "pair": [], "bound": set()} for c in cfgs}
    errors, loads = run_interleaved(
        args, run_dir, "context", cfgs, args.filter_runs,
        ["dev.flyprof.bench.ContextCost", str(args.filter_calls), str(args.filter_rounds)],
        parse_call_cost(per, "bound"))
    log()
    log("  %-24s %-24s %-24s %-24s %s" % ("configuration", "set() ns", "clear() ns",
                                          "set+clear, per call ns", "bound"))
    for name, _ in cfgs:
        p = per[name]
        log("  %-24s %-24s %-24s %-24s %s" % (name, fmt_med(p["set"]), fmt_med(p["clear"]),
                                              fmt_med(p["pair"]), ",".join(sorted(
                                                  str(x) for x in p["bound"]))))
    log("  median [min-max] over all timed rounds; 'bound' says whether the calls reached the "
        "agent. Target: <= 20 ns with the agent.")
    load_note(loads, "the per-call times")
    for e in errors:
        log("  ! " + e)
    log()
    report["context"] = {"calls": args.filter_calls, "rounds": args.filter_rounds,
                         "runs": args.filter_runs, "errors": errors,
                         "ns_per_call": {k: {op: v[op] for op in ("set", "clear", "pair")}
                                         for k, v in per.items()},
                         "bound": {k: sorted(str(x) for x in v["bound"]) for k, v in
                                   per.items()}}


# ---------------------------------------------------------------------- part 2d: threads

def part_threads(args, report):
    run_dir = os.path.join(args.out, "threads")
    os.makedirs(run_dir, exist_ok=True)
    log("== 2d. Thread start and end under profiling (ThreadChurn) ==")
    cfgs = [("no agent", None), ("agent cpu=10ms", "cpu=10ms"),
            ("agent cpu=10ms,wall=10ms", "cpu=10ms,wall=10ms")]
    log("  %d short threads per round, at most %d alive, %d rounds per JVM after a warm-up, "
        "%d JVM runs per configuration, interleaved"
        % (args.churn_threads, args.churn_concurrent, args.churn_rounds, args.churn_runs))
    per = {c[0]: {"rate": [], "worst": []} for c in cfgs}

    def parse(name, out):
        for line in out.splitlines():
            m = re.match(r"round i=\d+ threads_per_s=([\d.]+) max_start_us=([\d.]+)", line)
            if m:
                per[name]["rate"].append(float(m.group(1)))
                per[name]["worst"].append(float(m.group(2)))
    errors, loads = run_interleaved(
        args, run_dir, "threads", cfgs, args.churn_runs,
        ["dev.flyprof.bench.ThreadChurn", str(args.churn_threads), str(args.churn_concurrent),
         str(args.churn_rounds)], parse)
    log()
    base = median(per["no agent"]["rate"]) if per["no agent"]["rate"] else None
    log("  %-26s %-26s %-12s %s" % ("configuration", "threads/s", "vs no agent",
                                    "slowest Thread.start() us"))
    for name, _ in cfgs:
        p = per[name]
        rel = ("%+.1f%%" % (100.0 * (median(p["rate"]) / base - 1))
               if base and p["rate"] else "-")
        log("  %-26s %-26s %-12s %s" % (name, fmt_med(p["rate"], "%.0f"), rel,
                                        fmt_med(p["worst"], "%.0f")))
    log("  median [min-max] over all rounds; a round's slowest start is its worst "
        "Thread.start() call.")
    load_note(loads, "the thread rates")
    for e in errors:
        log("  ! " + e)
    log()
    report["threads"] = {"threads": args.churn_threads, "concurrent": args.churn_concurrent,
                         "rounds": args.churn_rounds, "runs": args.churn_runs,
                         "errors": errors, "per_config": per}


# ---------------------------------------------------------------------- part 2b: events

def part_events(args, report):
    run_dir = os.path.join(args.out, "events")
    os.makedirs(run_dir, exist_ok=True)
    log("== 2b. dev.flyprof.Events: cost per call (EventCost) and the rate the writer follows ==")
    floor = os.path.join(args.build, "tests", "libflyprof_jnifloor.so")
    if not os.path.exists(floor):
        log("  ! %s is missing (built with the tests): no JNI floor" % floor)
        floor = None
    opts = "cpu=10ms,file=%s" % os.path.join(run_dir, "%s.fpl")
    # the default buffers: the writer, polling each millisecond while events come (events.h),
    # drains on the other core, in a loop or in the pause after it; a 16 MiB buffer could take
    # 16 loops without a drain: the two tell the call's own cost from what the writer's
    # draining adds to it
    big = "events=1048576," + opts
    cfgs = [("no agent", "none", lambda tag: []),
            ("agent cpu=10ms", "agent",
             lambda tag: ["-agentpath:%s=%s" % (args.agent, opts % tag)]),
            ("agent events=1M", "agentbig",
             lambda tag: ["-agentpath:%s=%s" % (args.agent, big % tag)])]
    # 4000 calls fit a thread's default buffer (512 KiB) even with the string (64 B each); the
    # 5 ms pause before each timed loop lets the writer drain it, so no loop times the cheaper
    # drop path; the logs' drop counts say whether that held
    calls, pause = 4000, 5
    log("  %d calls per timed loop, %d rounds per JVM after 100 warm-up rounds, a %d ms pause "
        "before each; %d JVM runs per configuration, interleaved"
        % (calls, args.events_rounds, pause, args.events_runs))
    ops = ("int", "str", "floor")
    per = {c[0]: {op: [] for op in ops} for c in cfgs}
    drops = {c[0]: [] for c in cfgs}
    errors, loads = [], []
    for i in range(args.events_runs):
        for name, short, jopts in (cfgs if i % 2 == 0 else cfgs[::-1]):
            progress("events: %s, run %d/%d" % (name, i + 1, args.events_runs))
            tag = "cost%d-%s" % (i, short)
            cmd = [args.java] + jopts(tag) + ["-cp", args.jar, "dev.flyprof.bench.EventCost",
                                              "cost", str(calls), str(args.events_rounds),
                                              str(pause)] + ([floor] if floor else [])
            r = run_measured(cmd, run_dir, tag, 900)
            loads.append(r["other_cores"])
            if r["rc"] != 0:
                errors.append("%s: exit %s: %s" % (name, r["rc"], r["stderr"].strip()[-300:]))
            for line in r["stdout"].splitlines():
                m = re.match(r"round op=(\w+) i=\d+ ns_per_call=([\d.]+)", line)
                if m:
                    per[name][m.group(1)].append(float(m.group(2)))
            if jopts("x"):
                sm = flyprof_summary(args.cli, os.path.join(run_dir, tag + ".fpl"), run_dir, tag)
                if "events_recorded" in sm:
                    drops[name].append((sm["events_recorded"], sm["events_dropped"]))
    progress_done()
    log()
    log("  %-16s %-26s %-26s %-26s %s" % ("configuration", "log(int) ns",
                                          "log(int, 18 chars) ns", "JNI floor ns",
                                          "events recorded / dropped"))
    for name, _, _ in cfgs:
        p = per[name]
        d = ", ".join("%d / %d" % rd for rd in drops[name]) or "-"
        log("  %-16s %-26s %-26s %-26s %s" % (name, fmt_med(p["int"]), fmt_med(p["str"]),
                                              fmt_med(p["floor"]), d))
    log("  median [min-max] over all timed rounds. Targets: log(int) <= 15 ns, log(int, 18 "
        "chars) <= 45 ns; the seed (a patched JDK 7, 2013) measured 28 ns and 75 ns.")
    log("  events=1M: events=1048576, 16 MiB buffers; the writer polls the buffers each "
        "millisecond while events come (a loop takes ~0.2 ms), in both configurations")
    load_note(loads, "the per-call times")

    # the rate the writer follows: 4 threads, half the events with the string
    rates = []
    log()
    log("  4 threads logging for %.0f s at a paced total rate, default buffers (events=32768) "
        "and wait (eventwait=1s):" % args.events_rate_seconds)
    log("  %-12s %-12s %-10s %-8s %-10s %-16s %-20s %s" % (
        "target ev/s", "logged ev/s", "recorded", "dropped", "dropped %", "waits (ms in all)",
        "writer CPU % of 1", "log MB/s"))
    for total in args.events_rates:
        tag = "rate%d" % total
        progress("events: rate %d/s" % total)
        cmd = [args.java, "-agentpath:%s=%s" % (args.agent, opts % tag), "-cp", args.jar,
               "dev.flyprof.bench.EventCost", "rate", "4", str(total // 4),
               str(args.events_rate_seconds)]
        r = run_measured(cmd, run_dir, tag, 600)
        loads.append(r["other_cores"])
        res = results_of(r["stdout"])
        sm = flyprof_summary(args.cli, os.path.join(run_dir, tag + ".fpl"), run_dir, tag)
        logged, secs = int(res.get("events", 0)), float(res.get("seconds", 0) or 0)
        rec, dr = sm.get("events_recorded"), sm.get("events_dropped")
        dur = sm.get("duration_s")
        row = {"target": total, "logged": logged, "seconds": secs, "recorded": rec,
               "dropped": dr, "waits": sm.get("events_waits"),
               "wait_ms": sm.get("events_wait_ms"),
               "wait_timeouts": sm.get("events_wait_timeouts"),
               "writer_cpu_ns": sm.get("writer_cpu_ns"),
               "log_bytes": sm.get("log_bytes"), "duration_s": dur,
               "other_cores": r["other_cores"]}
        rates.append(row)
        if r["rc"] != 0:
            errors.append("rate %d: exit %s: %s" % (total, r["rc"], r["stderr"].strip()[-300:]))
        log("  %-12d %-12s %-10s %-8s %-10s %-16s %-20s %s" % (
            total, fmt(logged / secs if secs else None, "%.0f"), fmt(rec, "%d"), fmt(dr, "%d"),
            fmt(100.0 * dr / logged if dr is not None and logged else None, "%.3f"),
            "%s (%s)" % (fmt(sm.get("events_waits"), "%d"), fmt(sm.get("events_wait_ms"),
                                                               "%.1f")),
            fmt(100.0 * sm["writer_cpu_ns"] / 1e9 / dur if sm.get("writer_cpu_ns") and dur
                else None, "%.3f"),
            fmt(sm["log_bytes"] / 1e6 / dur if sm.get("log_bytes") and dur else None, "%.1f")))
    progress_done()
    log("  (a full buffer makes the call wait for the writer, at most 1 s: waits slow the "
        "threads below the target on a loaded machine; drops mean a wait ran out)")
    load_note(loads, "the figures of this part")
    idle = events_idle_writer(args, run_dir, opts % "idle")
    for e in errors:
        log("  ! " + e)
    log()
    report["events"] = {"idle_writer": idle,"calls": calls, "rounds": args.events_rounds, "runs": args.events_runs,
                        "pause_ms": pause, "errors": errors,
                        "ns_per_call": {k: v for k, v in per.items()},
                        "recorded_dropped": drops, "rates": rates}


def events_idle_writer(args, run_dir, opts):
    """The writer when nothing happens: 4 threads with the API bound that log nothing (EventCost
    rate 4 0 S); the writer thread's CPU time and voluntary context switches (its wake-ups)
    over a window that starts 2 s after it appeared (past the start's unwind-table build)."""
    log()
    window = 3.0
    progress("events: idle writer")
    out = open(os.path.join(run_dir, "idle.out"), "wb")
    p = subprocess.Popen([args.java, "-agentpath:%s=%s" % (args.agent, opts), "-cp", args.jar,
                          "dev.flyprof.bench.EventCost", "rate", "4", "0", str(window + 4)],
                         stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         cwd=run_dir, env=child_env())
    res = {}
    try:
        tid, deadline = None, time.monotonic() + 30
        while tid is None and time.monotonic() < deadline and p.poll() is None:
            for t in os.listdir("/proc/%d/task" % p.pid):
                if read_text("/proc/%d/task/%s/comm" % (p.pid, t)).strip() == "flyprof writer":
                    tid = int(t)
            time.sleep(0.05)
        if tid is not None:
            time.sleep(2.0)

            def wakeups():
                m = re.search(r"voluntary_ctxt_switches:\s*(\d+)",
                              read_text("/proc/%d/task/%d/status" % (p.pid, tid)))
                return int(m.group(1)) if m else None
            c0, w0, t0 = thread_cpu_ns(p.pid, tid), wakeups(), time.monotonic()
            time.sleep(window)
            c1, w1, t1 = thread_cpu_ns(p.pid, tid), wakeups(), time.monotonic()
            if None not in (c0, c1, w0, w1):
                res = {"cpu_ns": c1 - c0, "wakeups": w1 - w0, "seconds": t1 - t0}
    finally:
        p.wait(timeout=60)
        out.close()
    progress_done()
    if res:
        log("  writer idle (API bound, 4 threads that log nothing, cpu=10ms): %.3f%% of a core "
            "(%.2f ms CPU in %.1f s), %.1f wake-ups/s" % (
                100.0 * res["cpu_ns"] / 1e9 / res["seconds"], res["cpu_ns"] / 1e6,
                res["seconds"], res["wakeups"] / res["seconds"]))
    else:
        log("  ! writer idle: no flyprof writer thread seen")
    return res


# ---------------------------------------------------------------------- part 3: wall sampler

def process_cpu_ns(pid):
    """CPU time of a whole process through its process CPU clock (ns precision)."""
    try:
        return time.clock_gettime_ns(((~pid) << 3) | 2)
    except OSError:
        st = read_text("/proc/%d/stat" % pid)
        f = st.rpartition(")")[2].split()
        if len(f) < 13:
            return None
        return (int(f[11]) + int(f[12])) * 1e9 / os.sysconf("SC_CLK_TCK")


def find_task(pid, comm):
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return None
    for t in tids:
        if read_text("/proc/%d/task/%s/comm" % (pid, t)).strip() == comm:
            return int(t)
    return None


def thread_cpu_ns(pid, tid):
    """On-CPU time of one thread: sum_exec_runtime from /proc/.../sched (ns digits), else
    utime+stime from stat (clock ticks)."""
    m = re.search(r"se\.sum_exec_runtime\s*:\s*([\d.]+)",
                  read_text("/proc/%d/task/%d/sched" % (pid, tid)))
    if m:
        return float(m.group(1)) * 1e6
    st = read_text("/proc/%d/task/%d/stat" % (pid, tid))
    f = st.rpartition(")")[2].split()
    if len(f) < 13:
        return None
    return (int(f[11]) + int(f[12])) * 1e9 / os.sysconf("SC_CLK_TCK")


def run_parked(args, run_dir, tag, nthreads, agent_opts):
    """One ParkedThreads run; returns the measurements taken between `ready` and `done`."""
    cmd = [args.java, "-Xss256k"] + agent_opts + [
        "-cp", args.jar, "dev.flyprof.bench.ParkedThreads", str(args.wall_seconds), str(nthreads)]
    err_path = os.path.join(run_dir, tag + ".err")
    rec = {"threads": nthreads}
    with open(err_path, "wb") as err:
        busy0 = machine_busy_s()
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.PIPE, stderr=err,
                             cwd=run_dir, env=child_env())
        # a JVM that hangs before `done` is killed, so the bench always finishes
        watchdog = threading.Timer(args.wall_seconds + 120, p.kill)
        watchdog.start()
        out = []
        sampler = None
        for raw in p.stdout:
            line = raw.decode(errors="replace").strip()
            out.append(line)
            if line.startswith("ready"):
                if agent_opts:
                    sampler = find_task(p.pid, SAMPLER_COMM)
                rec["t_ready"] = time.monotonic()
                rec["proc_cpu_ready_ns"] = process_cpu_ns(p.pid)
                if sampler:
                    rec["sampler_cpu_ready_ns"] = thread_cpu_ns(p.pid, sampler)
            elif line == "done":
                rec["t_done"] = time.monotonic()
                rec["proc_cpu_done_ns"] = process_cpu_ns(p.pid)
                if sampler:
                    rec["sampler_cpu_done_ns"] = thread_cpu_ns(p.pid, sampler)
                rec["tasks"] = len(os.listdir("/proc/%d/task" % p.pid))
                p.stdin.close()
        if not p.stdin.closed:
            p.stdin.close()
        _, status, ru = os.wait4(p.pid, 0)
        watchdog.cancel()
        p.returncode = os.waitstatus_to_exitcode(status)
        rec["wall_s"] = time.monotonic() - t0
        busy1 = machine_busy_s()
    rec["rc"] = p.returncode
    rec["cpu_s"] = ru.ru_utime + ru.ru_stime
    rec["other_cores"] = other_cores(busy0, busy1, rec["cpu_s"], rec["wall_s"])
    rec["maxrss_kb"] = ru.ru_maxrss
    rec["sampler_found"] = sampler is not None
    rec["output"] = out[-4:]
    if p.returncode != 0 or "t_done" not in rec:
        rec["error"] = "exit %s: %s" % (p.returncode, read_text(err_path).strip()[-300:])
    return rec


def part_wall(args, report):
    run_dir = os.path.join(args.out, "wall")
    os.makedirs(run_dir, exist_ok=True)
    log("== 3. Wall-clock sampler vs thread count (ParkedThreads; wall=10ms,wallthreads=16, "
        "no CPU sampling) ==")
    log("  %.0f s steady phase after all threads are up; %d run(s) per thread count with the "
        "agent and without, interleaved" % (args.wall_seconds, args.wall_runs))
    runs = []
    errors = []
    counts = args.wall_threads
    total = len(counts) * args.wall_runs * 2
    k = 0
    for i in range(args.wall_runs):
        for n in counts:
            for with_agent in ((True, False) if i % 2 == 0 else (False, True)):
                k += 1
                progress("wall: %d threads, %s, run %d (%d/%d)" % (
                    n, "agent" if with_agent else "no agent", i + 1, k, total))
                tag = "n%d-r%d-%s" % (n, i, "agent" if with_agent else "none")
                fpl = os.path.join(run_dir, tag + ".fpl")
                opts = (["-agentpath:%s=wall=10ms,wallthreads=16,file=%s" % (args.agent, fpl)]
                        if with_agent else [])
                rec = run_parked(args, run_dir, tag, n, opts)
                rec.update({"round": i, "agent": with_agent})
                if with_agent:
                    rec["summary"] = flyprof_summary(args.cli, fpl, run_dir, tag)
                    if not rec["sampler_found"]:
                        errors.append("%s: no task named '%s' in /proc" % (tag, SAMPLER_COMM))
                if rec.get("error"):
                    errors.append("%s: %s" % (tag, rec["error"]))
                runs.append(rec)
    progress_done()

    def steady(rec, key):
        a, b = rec.get(key + "_ready_ns"), rec.get(key + "_done_ns")
        if a is None or b is None or "t_done" not in rec:
            return None
        return (b - a) / (rec["t_done"] - rec["t_ready"])   # ns of CPU per s

    rows = {}
    for n in counts:
        ag = [r for r in runs if r["threads"] == n and r["agent"]]
        no = [r for r in runs if r["threads"] == n and not r["agent"]]
        row = {k: [] for k in ("ticks_per_s", "sampler_us_per_tick", "sampler_total_us_per_tick",
                               "sampler_cpu_pct", "proc_us_per_tick", "signals_per_s",
                               "signals_per_tick", "candidates", "handler_p50_us",
                               "handler_p99_us", "failed_pct", "writer_ms", "bytes_per_sample",
                               "rss_delta_mb", "proc_cpu_pct_agent", "proc_cpu_pct_none")}
        none_rate = median([steady(r, "proc_cpu") for r in no])
        none_rss = median([r["maxrss_kb"] for r in no])
        for r in ag:
            s = r.get("summary", {})
            dur, ticks = s.get("duration_s"), s.get("wall_ticks")
            tps = ticks / dur if ticks and dur else None
            srate = steady(r, "sampler_cpu")
            prate = steady(r, "proc_cpu")
            row["ticks_per_s"].append(tps)
            row["sampler_us_per_tick"].append(srate / tps / 1e3 if srate is not None and tps
                                              else None)
            row["sampler_total_us_per_tick"].append(
                r["sampler_cpu_done_ns"] / ticks / 1e3 if r.get("sampler_cpu_done_ns") and ticks
                else None)
            row["sampler_cpu_pct"].append(srate / 1e7 if srate is not None else None)
            row["proc_us_per_tick"].append((prate - none_rate) / tps / 1e3
                                           if prate is not None and none_rate is not None and tps
                                           else None)
            row["proc_cpu_pct_agent"].append(prate / 1e7 if prate is not None else None)
            row["signals_per_s"].append(s["wall_signaled"] / dur
                                        if s.get("wall_signaled") is not None and dur else None)
            row["signals_per_tick"].append(s["wall_signaled"] / ticks
                                           if s.get("wall_signaled") is not None and ticks
                                           else None)
            row["candidates"].append(s.get("wall_candidates"))
            row["handler_p50_us"].append(s["handler_p50_ns"] / 1e3 if "handler_p50_ns" in s
                                         else None)
            row["handler_p99_us"].append(s["handler_p99_ns"] / 1e3 if "handler_p99_ns" in s
                                         else None)
            row["failed_pct"].append(s.get("wall_failed_pct"))
            row["writer_ms"].append(s["writer_cpu_ns"] / 1e6 if "writer_cpu_ns" in s else None)
            row["bytes_per_sample"].append(s["log_bytes"] / s["wall_samples"]
                                           if s.get("log_bytes") and s.get("wall_samples")
                                           else None)
            row["rss_delta_mb"].append((r["maxrss_kb"] - none_rss) / 1024 if none_rss else None)
        row["proc_cpu_pct_none"] = [steady(r, "proc_cpu") / 1e7 if steady(r, "proc_cpu")
                                    is not None else None for r in no]
        rows[n] = row

    log()
    hdr = "  %7s %6s %7s  %-21s %8s %8s  %-17s %9s %6s %-17s %6s %7s"
    log(hdr % ("threads", "cands", "ticks/s", "sampler us/tick", "(whole)", "sampler",
               "process us/tick", "signals/s", "sig/tk", "handler p50/p99", "B/smp", "RSS +MB"))
    for n in counts:
        r = rows[n]
        log(hdr % (
            n, fmt(median(r["candidates"]), "%.0f"), fmt(median(r["ticks_per_s"]), "%.1f"),
            fmt_med(r["sampler_us_per_tick"], "%.1f"),
            fmt(median(r["sampler_total_us_per_tick"]), "%.1f"),
            fmt(median(r["sampler_cpu_pct"]), "%.2f") + "%",
            fmt_med(r["proc_us_per_tick"], "%.0f"),
            fmt(median(r["signals_per_s"]), "%.0f"), fmt(median(r["signals_per_tick"]), "%.1f"),
            "%s / %s us" % (fmt(median(r["handler_p50_us"]), "%.1f"),
                            fmt(median(r["handler_p99_us"]), "%.1f")),
            fmt(median(r["bytes_per_sample"]), "%.1f"),
            fmt(median(r["rss_delta_mb"]), "%.1f")))
    log()
    for line in (
            "cands: candidate threads per tick (average over the whole run, start-up included);",
            "sampler us/tick: the sampler thread's CPU time (/proc sched) per tick in the steady",
            "phase, [min-max]; (whole): its CPU time over the whole run / all ticks; sampler: its",
            "share of one CPU; process us/tick: extra process CPU per tick in the steady phase,",
            "agent minus no agent (adds the signal handlers on the sampled threads, their wake-ups",
            "and the writer); signals/s, sig/tk, handler, B/smp: from the log summary."):
        log("  " + line)
    load_note([r.get("other_cores") for r in runs], "the CPU-per-tick figures")
    for e in errors:
        log("  ! " + e)
    log()
    report["wall"] = {"seconds": args.wall_seconds, "runs": runs, "summary": rows,
                      "errors": errors}


# ------------------------------------------------------------------------------- 4. server

def run_server(args, run_dir, tag, jvm_opts):
    """One Server run under load: the server JVM (with jvm_opts) and a LoadGen JVM on loopback.
    Returns the server's result figures plus its rusage, or an error."""
    out_path = os.path.join(run_dir, tag + ".server.out")
    err_path = os.path.join(run_dir, tag + ".server.err")
    cmd = ([args.java] + HEAP + jvm_opts + ["-cp", args.jar, "dev.flyprof.bench.Server",
                                            str(args.server_idle), str(args.server_work),
                                            str(args.server_warmup), str(args.server_seconds)])
    rec = {"tag": tag}
    busy0 = machine_busy_s()
    t0 = time.monotonic()
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        srv = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=run_dir,
                               env=child_env())
        port = None
        deadline = time.monotonic() + 60
        while port is None and time.monotonic() < deadline and srv.poll() is None:
            m = re.search(r"^port=(\d+)", read_text(out_path), re.M)
            port = int(m.group(1)) if m else None
            time.sleep(0.02)
        gen = None
        if port is not None:
            gen = subprocess.Popen([args.java, "-Xmx128m", "-cp", args.jar,
                                    "dev.flyprof.bench.LoadGen", str(port),
                                    str(args.server_connections)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   stdin=subprocess.DEVNULL, cwd=run_dir, env=child_env())
        timeout = args.server_warmup + args.server_seconds + 120
        status, ru = None, None
        while True:
            pid, st, r = os.wait4(srv.pid, os.WNOHANG)
            if pid == srv.pid:
                status, ru = st, r
                break
            if time.monotonic() - t0 > timeout:
                srv.kill()
                _, status, ru = os.wait4(srv.pid, 0)
                rec["error"] = "timed out"
                break
            time.sleep(0.02)
        gen_cpu = 0.0
        if gen:
            deadline = time.monotonic() + 30
            while True:
                pid, st, r = os.wait4(gen.pid, os.WNOHANG)
                if pid == gen.pid:
                    gen_cpu = r.ru_utime + r.ru_stime
                    break
                if time.monotonic() > deadline:
                    gen.kill()
                    _, st, r = os.wait4(gen.pid, 0)
                    gen_cpu = r.ru_utime + r.ru_stime
                    break
                time.sleep(0.02)
    wall = time.monotonic() - t0
    # the load generator is part of the run: only what else ran counts as other load
    rec["other_cores"] = other_cores(busy0, machine_busy_s(),
                                     ru.ru_utime + ru.ru_stime + gen_cpu, wall)
    rec["rc"] = os.waitstatus_to_exitcode(status)
    res = results_of(read_text(out_path))
    if rec["rc"] != 0 or "cpu_per_request_ns" not in res:
        rec["error"] = rec.get("error") or "exit %s: %s" % (rec["rc"], read_text(err_path)[-400:])
        return rec
    for k in ("requests", "cpu_ns", "wall_ns", "cpu_per_request_ns", "agent_threads_cpu_ns"):
        if k in res:
            rec[k] = float(res[k])
    rec["maxrss_kb"] = ru.ru_maxrss
    return rec


def part_alloclock(args, report):
    run_dir = os.path.join(args.out, "alloclock")
    os.makedirs(run_dir, exist_ok=True)
    log("== 3b. Allocation and lock profiling at the defaults (whole process) ==")
    benches = [
        ("allocation-heavy: AllocRatio %d MB" % args.alloc_mb,
         ["dev.flyprof.workload.AllocRatio", str(args.alloc_mb), "2"], "alloc"),
        ("contention-heavy: LockWork %d rounds x 4 threads" % args.lock_rounds,
         ["dev.flyprof.bench.LockWork", str(args.lock_rounds), "4"], "lock"),
    ]
    out = {}
    for title, main_args, mode in benches:
        cfgs = [("no agent", None), (mode, mode), ("cpu,wall,alloc,lock",
                                                    "cpu=10ms,wall=50ms,alloc,lock")]
        log("  %s, %d rounds, interleaved" % (title, args.rounds))
        runs = {c[0]: [] for c in cfgs}
        loads = []
        for i in range(args.rounds):
            for name, agent in (cfgs if i % 2 == 0 else cfgs[::-1]):
                progress("alloclock: %s, %s, run %d/%d" % (mode, name, i + 1, args.rounds))
                tag = "%s-run%d-%s" % (mode, i, re.sub(r"[^a-z0-9]+", "_", name))
                fpl = os.path.join(run_dir, tag + ".fpl")
                jopts = ["-agentpath:%s=%s,file=%s" % (args.agent, agent, fpl)] if agent else []
                r = run_measured([args.java] + HEAP + jopts + ["-cp", args.jar] + main_args,
                                 run_dir, tag, 900)
                loads.append(r["other_cores"])
                if agent and r["rc"] == 0:
                    r["summary"] = flyprof_summary(args.cli, fpl, run_dir, tag)
                runs[name].append(r)
        progress_done()
        base_wall = [r["wall_s"] for r in runs["no agent"]]
        base_cpu = [r["cpu_s"] for r in runs["no agent"]]
        log("  %-22s %-22s %-22s %-14s %-14s %s" % ("configuration", "wall s", "CPU s",
                                                     "wall ratio", "CPU ratio", "samples"))
        res = {}
        for name, _ in cfgs:
            rs = runs[name]
            wall = [r["wall_s"] for r in rs]
            cpu = [r["cpu_s"] for r in rs]
            wr = [w / b for w, b in zip(wall, base_wall) if b]
            cr = [c / b for c, b in zip(cpu, base_cpu) if b]
            samples = [r.get("summary", {}).get(mode + "_samples") for r in rs]
            log("  %-22s %-22s %-22s %-14s %-14s %s" % (
                name, fmt_med(wall), fmt_med(cpu), fmt_med(wr), fmt_med(cr),
                fmt_med([x for x in samples if x is not None], "%.0f") if name != "no agent"
                else "-"))
            res[name] = {"wall_s": wall, "cpu_s": cpu, "wall_ratio": wr, "cpu_ratio": cr,
                         "samples": samples,
                         "errors": [r["stderr"].strip()[-300:] for r in rs if r["rc"] != 0]}
            for e in res[name]["errors"]:
                log("  ! %s: %s" % (name, e))
        log("  median [min-max] over rounds; ratios against the no-agent run of the same round; "
            "CPU is the whole process's user+sys (wait4)")
        load_note(loads, "the ratios")
        log()
        out[mode] = res
    report["alloclock"] = out


def part_server(args, report):
    """CPU per request of a server under load: no agent, cpu at 10 ms, cpu + wall at 10 ms."""
    run_dir = os.path.join(args.out, "server")
    os.makedirs(run_dir, exist_ok=True)
    log("== 4. Server under load: CPU per request (Server + LoadGen on loopback) ==")
    log("  %d idle parked threads, %d connection threads blocking in socket reads, %d SHA-256 "
        "rounds per request; %d s warm-up, %d s measured; %d interleaved rounds"
        % (args.server_idle, args.server_connections, args.server_work, args.server_warmup,
           args.server_seconds, args.server_rounds))

    def fp(opts):
        return lambda tag: ["-agentpath:%s=%s,file=%s" % (
            args.agent, opts, os.path.join(run_dir, tag + ".fpl"))]

    cfgs = [("no agent", lambda tag: []), ("cpu 10ms", fp("cpu=10ms")),
            ("cpu+wall 10ms", fp("cpu=10ms,wall=10ms"))]
    if args.peer:
        cfgs.append(("peer cpu 10ms", peer_opts(args, run_dir, "10ms")))
    rng = random.Random(args.seed)
    runs = []
    for i in range(args.server_rounds):
        order = list(range(len(cfgs)))
        rng.shuffle(order)
        for j in order:
            name, opts = cfgs[j]
            tag = "r%d-%s" % (i, re.sub(r"[^a-z0-9]+", "-", name))
            progress("server: round %d/%d, %s" % (i + 1, args.server_rounds, name))
            rec = run_server(args, run_dir, tag, opts(tag))
            rec.update({"round": i, "config": name})
            fpl = os.path.join(run_dir, tag + ".fpl")
            if os.path.exists(fpl):
                rec["summary"] = flyprof_summary(args.cli, fpl, run_dir, tag)
                rec["summary_text"] = read_text(os.path.join(run_dir, tag + ".summary.txt"))
            runs.append(rec)
    progress_done()
    log()
    log("  %-15s %-25s %-25s %10s" % ("configuration", "CPU us per request", "ratio to no agent",
                                      "requests/s"))
    ratios = {}
    for name, _ in cfgs:
        mine = [r for r in runs if r["config"] == name and "error" not in r]
        per = [r["cpu_per_request_ns"] / 1e3 for r in mine]
        rat = []
        for r in mine:
            base = [b for b in runs if b["config"] == "no agent" and b["round"] == r["round"]
                    and "error" not in b]
            if base:
                rat.append(r["cpu_per_request_ns"] / base[0]["cpu_per_request_ns"])
        ratios[name] = rat
        rps = [r["requests"] / (r["wall_ns"] / 1e9) for r in mine]
        log("  %-15s %-25s %-25s %10s" % (name, fmt_med(per, "%.1f"), fmt_med(rat, "%.4f"),
                                          fmt(median(rps), "%.0f")))
    cw, c = ratios.get("cpu+wall 10ms"), ratios.get("cpu 10ms")
    if cw and c:
        log("  cpu+wall / cpu alone: %.4f (medians)" % (median(cw) / median(c)))
    # the agent's own share of the process CPU: its threads (sampler, writer) over the measured
    # window, and the signal handlers (the log's handler-time total over its duration), both
    # per second of the window; these move far less with the machine's load than the above
    log()
    log("  %-15s %-22s %-22s %-22s" % ("configuration", "agent threads % CPU", "handlers % CPU",
                                       "agent share of process"))
    for name, _ in cfgs[1:]:
        if name.startswith("peer"):
            continue        # its own accounting is not in a flyprof log
        mine = [r for r in runs if r["config"] == name and "error" not in r]
        thr, hnd, share = [], [], []
        for r in mine:
            secs = r["wall_ns"] / 1e9
            a = r.get("agent_threads_cpu_ns")
            s = r.get("summary", {})
            h = None
            if s.get("handler_mean_ns") is not None and s.get("handler_runs") and \
                    s.get("duration_s"):
                h = s["handler_mean_ns"] * s["handler_runs"] / s["duration_s"]  # ns per s
            thr.append(a / secs / 1e7 if a is not None else None)
            hnd.append(h / 1e7 if h is not None else None)
            if a is not None and h is not None:
                share.append((a / secs + h) / (r["cpu_ns"] / secs))
        log("  %-15s %-22s %-22s %-22s" % (name, fmt_med(thr, "%.3f"), fmt_med(hnd, "%.3f"),
                                           fmt_med([x * 100 for x in share], "%.2f%%")))
    for r in runs:
        if "error" in r:
            log("  ! %s: %s" % (r["tag"], r["error"]))
    for r in runs:
        txt = r.get("summary_text", "")
        if r["config"] == "cpu+wall 10ms" and txt:
            keep = [l.strip() for l in txt.splitlines()
                    if re.match(r"\s*(wall ticks|wall samples|signals handled|wall signals not)",
                                l)]
            log("  %s: %s" % (r["tag"], "; ".join(keep)))
            break
    load_note([r.get("other_cores") for r in runs], "the CPU-per-request figures")
    log()
    report["server"] = {"runs": runs, "ratios": ratios}


# ------------------------------------------------------------------------------------- main

def sub_bench(args, report, key, script, quick_args):
    """Runs tests/bench/SCRIPT (--build, --json, --tmp) and logs its lines as it prints them;
    its JSON goes into report[key]."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(args.out, key + ".json")
    cmd = [sys.executable, os.path.join(here, script), "--build", args.build,
           "--json", out, "--tmp", os.path.join(args.out, key)]
    if args.quick:
        cmd += quick_args
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in p.stdout.splitlines():
        log("  " + line)
    if p.returncode != 0:
        log("  %s failed (exit %d)" % (script, p.returncode))
        return
    if os.path.exists(out):
        with open(out) as f:
            report[key] = json.load(f)


def part_convert(args, report):
    """The converter's time and memory: tests/bench/convert_bench.py, its table as it prints."""
    log("\n== 4. convert: the collector on a synthetic log, every output ==")
    sub_bench(args, report, "convert", "convert_bench.py",
              ["--samples", "2M", "--stacks", "20k", "--runs", "1"])


def part_fleet(args, report):
    """The fleet store: tests/bench/fleet_bench.py (push rows/s; a simulated fleet-day drawn
    with convert --db), its lines as it prints them."""
    log("\n== 4b. fleet: flyprof push and convert --db against a clickhouse-server ==")
    sub_bench(args, report, "fleet", "fleet_bench.py",
              ["--hosts", "10", "--push-logs", "1", "--runs", "1"])


def find_java(arg):
    if arg:
        return arg
    home = os.environ.get("JAVA_HOME")
    if home and os.path.exists(os.path.join(home, "bin", "java")):
        return os.path.join(home, "bin", "java")
    j17 = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
    if os.path.exists(j17):
        return j17
    return shutil.which("java") or "java"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="flyprof build directory")
    ap.add_argument("--java", help="java launcher (default JAVA_HOME, else JDK 17, else PATH)")
    ap.add_argument("--quick", action="store_true", help="about 2 minutes instead of 10")
    ap.add_argument("--parts",
                    default="cpu,depth,cstack,walk,startup,filter,context,threads,events,wall,"
                    "alloclock,server,convert,fleet,logbytes,jitter,hiccup",
                    help="which parts to run (default all: cpu,depth,cstack,walk,startup,"
                         "filter,context,threads,events,wall,alloclock,server,convert,fleet,"
                         "logbytes,jitter,hiccup)")
    ap.add_argument("--rounds", type=int, help="CPU overhead rounds (default 5, quick 2)")
    ap.add_argument("--work-seconds", type=float,
                    help="CPU seconds of work per FixedWork thread, without the agent "
                         "(default 5, quick 2)")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2,
                    help="FixedWork threads (default: number of CPUs)")
    ap.add_argument("--depth", type=int, default=32, help="FixedWork extra stack depth")
    ap.add_argument("--skip-engines", action="store_true",
                    help="leave out the itimer and perf engine configurations")
    ap.add_argument("--wall-threads", default="10,100,1000,5000",
                    help="parked thread counts for the wall part")
    ap.add_argument("--server-rounds", type=int, help="server rounds (default 5, quick 2)")
    ap.add_argument("--server-idle", type=int, default=200,
                    help="the server's idle parked threads (default 200)")
    ap.add_argument("--server-connections", type=int, default=64,
                    help="connections (and connection threads) under load (default 64)")
    ap.add_argument("--server-work", type=int, default=4,
                    help="SHA-256 rounds per request (default 4)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the interleaving order")
    ap.add_argument("--peer", default=os.environ.get("FLYPROF_BENCH_PEER"),
                    help="a peer profiler's agent library (async-profiler's "
                         "libasyncProfiler.so, built by you: the bench never builds or fetches "
                         "it) to run beside flyprof in the cpu and server parts as 'peer cpu "
                         "10ms' and 'peer cpu 1ms' (default $FLYPROF_BENCH_PEER)")
    ap.add_argument("--agent", help="the agent library to measure (default BUILD/lib/"
                                    "libflyprof.so), e.g. an older build's for a before/after")
    ap.add_argument("--out", help="directory for logs and bench.json "
                                  "(default BUILD/bench/DATE-TIME)")
    args = ap.parse_args()

    args.build = os.path.abspath(args.build)
    args.agent = os.path.abspath(args.agent or os.path.join(args.build, "lib", "libflyprof.so"))
    args.cli = os.path.join(args.build, "bin", "flyprof")
    args.jar = os.path.join(args.build, "lib", "flyprof.jar")
    for f in (args.agent, args.cli, args.jar):
        if not os.path.exists(f):
            raise SystemExit("bench: %s is missing; build first (scripts/setup)" % f)
    if args.peer and not os.path.exists(args.peer):
        raise SystemExit("bench: --peer %s: no such file" % args.peer)
    args.peer = os.path.abspath(args.peer) if args.peer else None
    args.java = find_java(args.java)
    jdk_bin = os.path.dirname(os.path.realpath(args.java))
    args.jfr = (os.path.join(jdk_bin, "jfr") if os.path.exists(os.path.join(jdk_bin, "jfr"))
                else shutil.which("jfr"))
    q = args.quick
    args.rounds = args.rounds or (2 if q else 5)
    args.work_seconds = args.work_seconds or (2.0 if q else 5.0)
    args.filter_calls = 20_000_000 if q else 100_000_000
    args.filter_rounds = 3 if q else 5
    args.filter_runs = 1 if q else 2
    args.churn_threads = 10000 if q else 20000
    args.churn_concurrent = 64
    args.churn_rounds = 3 if q else 5
    args.churn_runs = 1 if q else 3
    args.events_rounds = 100 if q else 200
    args.events_runs = 1 if q else 3
    args.events_rate_seconds = 2 if q else 3
    args.events_rates = [1_000_000, 10_000_000] if q else [1_000_000, 2_500_000, 5_000_000,
                                                           10_000_000, 20_000_000]
    args.wall_seconds = 3.0 if q else 6.0
    args.wall_runs = 1 if q else 2
    args.depths = [0, 32, 128, 512]
    args.depth_fraction = 0.4 if q else 0.6
    args.wall_threads = [int(x) for x in args.wall_threads.split(",") if x]
    args.alloc_mb = 1024 if q else 2048
    args.lock_rounds = 100000 if q else 300000
    args.server_rounds = args.server_rounds or (2 if q else 5)
    args.server_seconds = 5 if q else 10
    args.server_warmup = 3
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    args.out = os.path.abspath(args.out or os.path.join(
        args.build, "bench", time.strftime("%Y%m%d-%H%M%S")))
    os.makedirs(args.out, exist_ok=True)

    env = environment(args)
    print_environment(env, args)
    report = {"environment": env, "quick": q, "parts": parts}
    t0 = time.monotonic()
    for part, fn in (("cpu", part_cpu), ("depth", part_depth), ("cstack", part_cstack),
                     ("walk", part_walk), ("startup", part_startup), ("filter", part_filter),
                     ("context", part_context),
                     ("threads", part_threads), ("events", part_events),
                     ("wall", part_wall), ("alloclock", part_alloclock),
                     ("server", part_server), ("convert", part_convert),
                     ("fleet", part_fleet),
                     ("logbytes", lambda a, r: logbytes_bench.part_logbytes(a, r, log)),
                     ("jitter", lambda a, r: jitter_bench.part_jitter(a, r, log)),
                     ("hiccup", lambda a, r: hiccup_bench.part_hiccup(a, r, log))):
        if part in parts:
            fn(args, report)
    report["seconds"] = time.monotonic() - t0
    report["loadavg_end"] = read_text("/proc/loadavg").split()[:3]
    path = os.path.join(args.out, "bench.json")
    with open(path, "w") as f:
        json.dump(report, f, indent=1, default=lambda o: sorted(o) if isinstance(o, set)
                  else str(o))
    log("bench took %.0f s; load avg %s at the end; figures in %s"
        % (report["seconds"], " ".join(report["loadavg_end"]), path))


if __name__ == "__main__":
    main()
