#!/usr/bin/env python3
"""hiccups: hiccup mode on real JVMs, each with a known cause injected, with -agentpath and
attached to a running JVM:

- gc: SerialGC with 300 MB live and forced full collections (GcPauses): every pause the JVM
  logs (-Xlog:gc) of 10 ms or more has a Java-probe stall over it attributed to `gc`, every
  Java stall that lies over a logged pause is `gc`, no `gc` stall lies outside one, the GC
  records match the log's pauses in number, and the largest Java hiccup is within 20% of the
  longest logged pause;
- hog: the JVM (Quiet) and busy loops at a higher priority pinned to one CPU: stalls are
  found, most of the stall time is `os/cpu`, none is `gc`;
- quiet: a JVM that allocates nothing: no stall is blamed on GC.
The machine is shared and noisy: only the injected causes are asserted, and noise stalls are
allowed as long as they are not given a cause they lack."""

import csv
import datetime
import json
import os
import re
import subprocess
import time

import test_attach_common as ac

GC_OPTS = ["-Xms1g", "-Xmx1g", "-XX:+UseSerialGC"]
MS = 1_000_000


def gc_log_opts(t, name):
    return ["-Xlog:gc:file=%s:time" % t.path(name + ".gc.log")]


def logged_pauses(t, name):
    """The pauses -Xlog:gc printed: (start, end, length) in ns since the epoch. The line's time
    is when the pause ended (ms precision)."""
    out = []
    with open(t.path(name + ".gc.log")) as f:
        for line in f:
            m = re.match(r"\[(\S+)\].*GC\(\d+\) Pause .* ([\d.]+)ms$", line.strip())
            if not m:
                continue
            when = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f%z")
            end = int(when.timestamp() * 1000) * MS
            length = int(float(m.group(2)) * MS)
            out.append((end - length, end, length))
    return out


def hiccups(t, name, fpl):
    """`flyprof hiccups` with --stalls and --csv: (stalls, intervals, report text). Also checks
    that `flyprof summary --json` lists the same stalls, with the same causes."""
    st, iv = t.path(name + ".stalls.csv"), t.path(name + ".intervals.csv")
    r = ac.flyprof(t, "hiccups " + name, ["hiccups", fpl, "--stalls", st, "--csv", iv])
    ac.expect(t, r, 0, "Hiccups: probes woke every")
    with open(st) as f:
        stalls = list(csv.DictReader(f))
    rj = ac.flyprof(t, "summary --json " + name, ["summary", "--json", fpl])
    ac.expect(t, rj, 0, "")
    js = json.loads(rj.stdout).get("hiccups")
    t.check(isinstance(js, dict), "%s: summary --json: hiccups is %r", name, js)
    got = sorted((s["start_ns"], s["duration_ns"], s["probe"], s["cause"])
                 for s in js["stalls"])
    want = sorted((int(s["start"]), int(s["duration_ns"]), s["probe"], s["cause"])
                  for s in stalls)
    t.check(got == want, "%s: summary --json lists %d stalls, --stalls %d (first differing: "
            "%s)", name, len(got), len(want),
            next(((a, b) for a, b in zip(got, want) if a != b), None))
    with open(iv) as f:
        intervals = list(csv.DictReader(f))
    t.check({r["probe"] for r in intervals} == {"java", "os"},
            "%s: intervals of probes %s", name, {r["probe"] for r in intervals})
    return stalls, intervals, r.stdout


def overlap(a0, a1, b0, b1):
    return max(0, min(a1, b1) - max(a0, b0))


def check_gc(t, name, fpl, since_ns=0):
    stalls, intervals, text = hiccups(t, name, fpl)
    pauses = [p for p in logged_pauses(t, name) if p[0] >= since_ns]
    t.check(len(pauses) >= 3, "%s: -Xlog:gc shows %d pauses, want the forced ones", name,
            len(pauses))
    java = [s for s in stalls if s["probe"] == "java"]
    for s in java:
        s["s"], s["e"], s["d"] = int(s["start"]), int(s["end"]), int(s["duration_ns"])
    slack = 5 * MS  # -Xlog:gc times are whole milliseconds
    for p0, p1, d in pauses:
        if d < 10 * MS:
            continue
        over = [s for s in java if overlap(s["s"], s["e"], p0 - slack, p1 + slack) >= d / 2]
        t.check(over, "%s: no Java stall covers the %.1f ms pause at %d", name, d / MS, p0)
        t.check(all(s["cause"] == "gc" for s in over), "%s: the stall over the %.1f ms pause is "
                "%s", name, d / MS, [s["cause"] for s in over])
    for s in java:
        inside = sum(overlap(s["s"], s["e"], p0 - slack, p1 + slack) for p0, p1, _ in pauses)
        if s["d"] >= 10 * MS and inside * 2 >= s["d"]:
            t.check(s["cause"] == "gc", "%s: a %.1f ms stall over logged pauses is %s", name,
                    s["d"] / MS, s["cause"])
        if s["cause"] == "gc":
            t.check(inside > 0, "%s: a %.1f ms stall at %d blamed on GC lies outside every "
                    "logged pause", name, s["d"] / MS, s["s"])
    m = re.search(r"JVM: (\d+) GC pause", text)
    t.check(m and int(m.group(1)) == len(pauses), "%s: %s GC records, -Xlog:gc shows %d pauses",
            name, m and m.group(1), len(pauses))
    longest = max(d for _, _, d in pauses)
    largest = max(int(r["max_ns"]) for r in intervals if r["probe"] == "java")
    t.check(abs(largest - longest) <= 0.2 * longest, "%s: the largest Java hiccup is %.1f ms, "
            "the longest logged pause %.1f ms", name, largest / MS, longest / MS)
    t.note("%s: %d pauses (longest %.1f ms), largest Java hiccup %.1f ms, Java stalls %s", name,
           len(pauses), longest / MS, largest / MS, causes(java))
    return intervals


HDR_JAR = "/usr/share/java/hdrhistogram.jar"


def check_hlog(t, name, fpl, intervals):
    """The hiccups' .hlog, decoded by HdrHistogram's own reader, holds the CSV's intervals:
    one histogram per probe and second, with the same counts and maxima within a bucket."""
    if not os.path.isfile(HDR_JAR):
        if os.environ.get("CI") == "true":
            t.check(False, "%s is missing (package libhdrhistogram-java)", HDR_JAR)
        t.note("%s: no %s here: .hlog not checked", name, HDR_JAR)
        return
    hl = t.path(name + ".hlog")
    r = ac.flyprof(t, "hiccups --hlog " + name, ["hiccups", fpl, "--hlog", hl, "--top", "0"])
    ac.expect(t, r, 0)
    check = os.path.join(os.path.dirname(os.path.abspath(__file__)), "java", "HlogCheck.java")
    r = t.run("HlogCheck " + name, [t.java, "-cp", HDR_JAR, check, hl], 120)
    t.check(r.returncode == 0, "%s: HdrHistogram's reader failed: %s", name, r.stderr[-1500:])
    hists = [l.split() for l in r.stdout.splitlines() if l.startswith("hist ")]
    t.check(len(hists) == len(intervals), "%s: %d histograms in the .hlog, %d intervals", name,
            len(hists), len(intervals))
    for h, row in zip(hists, intervals):
        t.check(h[1] == row["probe"] and int(h[4]) == int(row["count"]),
                "%s: histogram %s %s counts %s, the CSV %s %s", name, h[1], h[2], h[4],
                row["probe"], row["count"])
        mx, want = int(h[8]), int(row["max_ns"])
        t.check(abs(mx - want) <= max(1, want // 100), "%s: Java's max %d, flyprof's %d", name,
                mx, want)
    t.note("%s: HdrHistogram read %d interval histograms of both probes", name, len(hists))


def causes(stalls):
    out = {}
    for s in stalls:
        out[s["cause"]] = out.get(s["cause"], 0) + 1
    return out


def check_hog(t, name, fpl):
    stalls, _, _ = hiccups(t, name, fpl)
    t.check(len(stalls) >= 5, "%s: only %d stalls beside the CPU hogs", name, len(stalls))
    total = sum(int(s["duration_ns"]) for s in stalls)
    oscpu = sum(int(s["duration_ns"]) for s in stalls if s["cause"] == "os/cpu")
    t.check(not [s for s in stalls if s["cause"] == "gc"], "%s: stalls blamed on GC: %s", name,
            causes(stalls))
    t.check(oscpu >= 0.75 * total, "%s: os/cpu explains %.0f%% of the stall time (%s)", name,
            100.0 * oscpu / total, causes(stalls))
    t.note("%s: %d stalls, %.0f%% of their time os/cpu: %s", name, len(stalls),
           100.0 * oscpu / total, causes(stalls))


def check_quiet(t, name, fpl):
    stalls, intervals, _ = hiccups(t, name, fpl)
    pauses = logged_pauses(t, name)
    gc = [s for s in stalls if s["cause"] == "gc"]
    if not pauses:
        t.check(not gc, "%s: no GC ran, yet %d stalls are blamed on GC", name, len(gc))
    for s in gc:
        t.check(any(overlap(int(s["start"]), int(s["end"]), p0 - 5 * MS, p1 + 5 * MS)
                    for p0, p1, _ in pauses), "%s: a GC stall outside every pause", name)
    rows = [r for r in intervals if r["probe"] == "java"]
    t.check(len(rows) >= 2 and all(int(r["count"]) > 0 for r in rows[:-1]),
            "%s: java intervals %s", name, [r["count"] for r in rows])
    t.note("%s: %d stalls %s, %d GC pauses logged", name, len(stalls), causes(stalls),
           len(pauses))


class Hogs:
    """Busy loops pinned to one CPU, at a higher priority than the JVM when we may."""

    def __init__(self, t, cpu, n=3):
        self.procs = []
        nice = ["nice", "-n", "-10"] if os.geteuid() == 0 else []
        for _ in range(n):
            self.procs.append(subprocess.Popen(["taskset", "-c", str(cpu)] + nice +
                                               ["sh", "-c", "while :; do :; done"],
                                               stdin=subprocess.DEVNULL))

    def stop(self):
        for p in self.procs:
            p.kill()
            p.wait()


def run_agentpath(t, cpu):
    _, fpl = t.run_java("gc", "GcPauses", [300, 4, 400],
                        agent_options="hiccup,stall=5ms",
                        jvm_options=GC_OPTS + gc_log_opts(t, "gc"))
    intervals = check_gc(t, "gc", fpl)
    check_hlog(t, "gc", fpl, intervals)

    hogs = Hogs(t, cpu)
    try:
        fpl = t.path("hog.fpl")
        t.logs.append(fpl)
        cmd = ["taskset", "-c", str(cpu), t.java,
               "-agentpath:%s=hiccup,stall=2ms,file=%s" % (t.agent, fpl), "-cp", t.jar,
               ac.ft.WORKLOAD_PKG + "Quiet", "4"]
        r = t.run("hog", cmd, 240)
        t.check_jvm(r)
    finally:
        hogs.stop()
    check_hog(t, "hog", fpl)

    _, fpl = t.run_java("quiet", "Quiet", [4], agent_options="hiccup,stall=5ms",
                        jvm_options=gc_log_opts(t, "quiet"))
    check_quiet(t, "quiet", fpl)


def attach(t, jvm, name, seconds):
    fpl = t.path(name + ".fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "attach " + name, ["attach", jvm.pid, "-d", seconds, "-o", fpl, "--",
                                          "hiccup,stall=%s" % ("2ms" if name == "ahog" else
                                                                "5ms")], timeout=120)
    ac.expect(t, r, 0)
    return fpl


def run_attached(t, cpu):
    jvm = ac.Jvm(t, "agc", "GcPauses", [300, 4, 400, 1000, 30000],
                 jvm_options=GC_OPTS + gc_log_opts(t, "agc"), ready_thread="gc-driver")
    started = time.time_ns()
    fpl = attach(t, jvm, "agc", 5)
    jvm.stop()
    check_gc(t, "agc", fpl, since_ns=started)

    hogs = Hogs(t, cpu)
    try:
        jvm = ac.Jvm(t, "ahog", "Quiet", [6], jvm_options=[], ready_thread="quiet")
        os.sched_setaffinity(jvm.pid, {cpu})
        for tid in os.listdir("/proc/%d/task" % jvm.pid):
            try:
                os.sched_setaffinity(int(tid), {cpu})
            except OSError:
                pass
        fpl = attach(t, jvm, "ahog", 3)
        jvm.stop()
    finally:
        hogs.stop()
    check_hog(t, "ahog", fpl)


def body(t):
    cpu = sorted(os.sched_getaffinity(0))[0]
    run_agentpath(t, cpu)
    run_attached(t, cpu)


if __name__ == "__main__":
    ac.main(body, "hiccup mode: stalls found and attributed to gc, os/cpu; none to gc when "
            "quiet")
