#!/usr/bin/env python3
"""`flyprof jitter` on two CPUs for 3 s with a known stall injected (the process stopped with
SIGSTOP for 0.4 s): the histograms and the interruption table, the stall found on every CPU at
the time it was injected (outliers file, CSV), CSV rows with increasing, contiguous timestamps,
the .hlog decoded by HdrHistogram's own HistogramLogReader and agreeing with the CSV within one
bucket, HistogramLogProcessor reading it, the points in a real InfluxDB over HTTP and UDP; and
bad inputs refused before any thread spins. The machine is not assumed quiet: only the injected
stall is asserted."""

import csv
import os
import re
import shutil
import signal
import subprocess
import time

import flyprof_test
from flyprof_test import TestFailure
from influx_server import InfluxServer, available as influx_available

HDR_JAR = "/usr/share/java/hdrhistogram.jar"
HERE = os.path.dirname(os.path.abspath(__file__))
STALL_S = 0.4
REPORT_MS = 200


def hdr_index(v):
    """fpl_hdr_index: HdrHistogram's counts index for 2 digits, lowest 1."""
    v = min(v, 3600000000000)
    bucket = max((v | 0xff).bit_length() - 8, 0)
    return ((bucket + 1) << 7) + (v >> bucket) - 128


def bad_inputs(t, cpus):
    """Each is refused with a message naming the problem; nothing is measured or written."""
    out = t.path("bad.hlog")
    cases = [
        (["-c", "1000"], 2, r"CPU 1000 is not in this process's affinity mask"),
        (["-c", "0-"], 2, r"bad CPU list"),
        (["--influx", "ftp://localhost:21/x"], 1, r"unknown URL scheme .*'ftp'"),
        (["--influx", "http://127.0.0.1:1/write?db=x"], 1, r"cannot connect to 127.0.0.1 port 1"),
        (["--csv", t.path("no/such/dir/x.csv")], 1, r"cannot create '.*no/such/dir/x.csv'"),
        (["--outliers", t.path("no/such/dir/o.csv")], 1, r"cannot create '.*o.csv'"),
        (["-t", "1ns"], 2, r"threshold 1ns is below the resolution: one TSC read takes"),
        (["-d", "soon"], 2, r"bad duration 'soon'"),
        (["--knee", "5ns", "--min", "10ns"], 2, r"--min .* must be below --knee"),
        (["--frobnicate"], 2, r"unknown option '--frobnicate'"),
    ]
    for args, code, msg in cases:
        # with a good --hlog beside a bad --csv: the good file must not be left behind
        extra = ["--hlog", out] if "--csv" in args else []
        r = t.flyprof("jitter " + " ".join(args), ["jitter", "-d", "30"] + extra + args,
                      timeout=20)
        t.check(r.returncode == code, "jitter %s: exit %s, want %d; stderr: %s", args,
                r.returncode, code, r.stderr.strip())
        t.check(re.search(msg, r.stderr), "jitter %s: stderr %r lacks /%s/", args,
                r.stderr.strip(), msg)
        t.check("gaps between TSC reads" not in r.stdout,
                "jitter %s: measured although the input was bad", args)
        t.note("refused %s: %s", " ".join(args), r.stderr.strip().splitlines()[0])
    t.check(not os.path.exists(out), "a bad --csv left the --hlog file %s behind", out)
    # a TSC that is not invariant is measured anyway, with a warning (played by the env var)
    env = dict(os.environ, FLYPROF_TSC_INVARIANT="0")
    p = subprocess.run([t.cli, "jitter", "-c", str(cpus[0]), "-d", "0.2"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    t.check(p.returncode == 0 and "warning: the TSC is not invariant" in p.stderr and
            "NOT invariant" in p.stdout, "no warning for a TSC that is not invariant: %s",
            p.stderr.strip())


def run_stalled(t, cpus, extra):
    """Runs jitter for 3 s and stops it for STALL_S after 1 s. Returns (Run, t0, t1): the
    injected stall's start and end in ns since the epoch."""
    cmd = [t.cli, "jitter", "-c", ",".join(map(str, cpus)), "-d", "3", "-r", "%dms" % REPORT_MS,
           "-t", "5us"] + extra
    t0w = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=t.tmp)
    first = ""
    while not first.endswith("measuring\n"):  # printed once every spin thread runs
        line = p.stdout.readline()
        t.check(line, "jitter ended before measuring: %s", first)
        first += line
    time.sleep(1.0)
    t0 = time.time_ns()
    os.kill(p.pid, signal.SIGSTOP)
    time.sleep(STALL_S)
    t1 = time.time_ns()
    os.kill(p.pid, signal.SIGCONT)
    out, err = p.communicate(timeout=60)
    proc = subprocess.CompletedProcess(cmd, p.returncode, first + out, err)
    r = flyprof_test.Run("jitter (stalled)", cmd, proc, time.monotonic() - t0w, False)
    t.runs.append(r)
    t.check(r.returncode == 0, "jitter exited %s: %s", r.returncode, r.stderr.strip())
    return r, t0, t1


def check_report(t, r, cpus):
    for cpu in cpus:
        m = re.search(r"^CPU %d: (\d+) gaps between TSC reads" % cpu, r.stdout, re.M)
        t.check(m and int(m.group(1)) > 1000, "no histogram for CPU %d", cpu)
        block = r.stdout[m.end():].split("\n\n")[0].splitlines()
        rows = [l for l in block if re.match(r"\s*\S+\s+(\d+|\+inf)\s+\d+\s+[\d.]+%", l)]
        # 20 bins; on a clock that counts in steps, the linear bins too narrow to hold one
        # are merged into the next (and a line says so)
        merged = re.search(r"^Gaps come in steps of \d+ ticks .*: (\d+) bins too narrow",
                           "\n".join(block), re.M)
        want = 20 - (int(merged.group(1)) if merged else 0)
        t.check(len(rows) == want and want > 10, "CPU %d: %d histogram rows, want %d", cpu,
                len(rows), want)
        t.check(rows[-1].split()[0] == "+inf", "CPU %d: the last bin is %r", cpu,
                rows[-1].split()[0])
        t.check(rows[-1].split()[4] == "100.0000%", "CPU %d: cumulative ends at %s", cpu,
                rows[-1].split()[4])
        t.check(re.search(r"Min / Average / Std Dev / Max : .*ticks", "\n".join(block)),
                "CPU %d: no statistics block", cpu)
    m = re.search(r"^int_max\s+(.*)$", r.stdout, re.M)
    t.check(m, "no int_max row in the interruptions table")
    for cell in m.group(1).split():
        v, unit = re.match(r"([\d.]+)(ns|us|ms|s)", cell).groups()
        secs = float(v) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]
        t.check(secs >= 0.75 * STALL_S, "int_max %s is shorter than the injected %.1f s stall",
                cell, STALL_S)
    t.check(re.search(r"resolution: one read takes [\d.]+ ns", r.stdout),
            "the resolution is not stated")


def check_outliers(t, path, cpus, t0, t1):
    """Finds on each CPU the gap that covers the injected stall. Others may be as long (the
    machine is shared), and a preemption just before the SIGSTOP may merge with it, so the gap
    must begin by the SIGSTOP (plus its delivery) and end no earlier than the SIGCONT: a gap
    stamped wrong by more than 50 ms fails. Returns {cpu: (start ns, length ns)}."""
    with open(path) as f:
        rows = list(csv.DictReader(f))
    t.check(rows, "no outliers written")
    found = {}
    for cpu in cpus:
        gaps = [(int(r["time"]), float(r["delay_us"]) * 1e3) for r in rows if int(r["cpu"]) == cpu]
        cover = [(at, d) for at, d in gaps if at <= t0 + 50e6 and at + d >= t1 - 50e6]
        near = sorted(gaps, key=lambda g: abs(g[0] - t0))[:3]
        t.check(cover, "CPU %d: no outlier covers the stall injected from %d to %d; nearest "
                "(start, ns): %s", cpu, t0, t1, near)
        at, d = cover[0]
        t.check(d >= 0.75e9 * STALL_S, "CPU %d: the stall measures only %.1f ms", cpu, d / 1e6)
        found[cpu] = (at, d)
        t.note("cpu%d: stall of %.1f ms from %.1f ms before the SIGSTOP to %.1f ms after the "
               "SIGCONT", cpu, d / 1e6, (t0 - at) / 1e6, (at + d - t1) / 1e6)
    return found


def check_csv(t, path, cpus, stalls):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    by = {}
    for r in rows:
        by.setdefault(r["probe"], []).append(r)
    t.check(sorted(by) == sorted("cpu%d" % c for c in cpus), "CSV probes %s", sorted(by))
    for cpu in cpus:
        probe = "cpu%d" % cpu
        rs = by[probe]
        times = [int(r["time"]) for r in rs]
        t.check(all(b > a for a, b in zip(times, times[1:])),
                "%s: CSV times do not increase", probe)
        steps = [(b - a) / 1e6 for a, b in zip(times, times[1:])]
        t.check(all(abs(s / REPORT_MS - round(s / REPORT_MS)) < 0.01 for s in steps),
                "%s: intervals are not whole report periods: %s", probe, steps)
        # the interval in which the injected stall began holds it as its max (or a longer gap)
        at, d = stalls[cpu]
        row = [r for r, a, b in zip(rs, times, times[1:] + [2**64]) if a <= at < b]
        t.check(row, "%s: no interval holds the stall's start", probe)
        mx, mt = int(row[0]["max_ns"]), int(row[0]["max_time"])
        t.check(mx >= d - 1000 and int(row[0]["time"]) <= mt,
                "%s: the interval of the stall has max %d ns at %d", probe, mx, mt)
        t.check(all(int(r["count"]) > 0 for r in rs[:-1]), "%s: an empty interval", probe)
        t.check(all(r["gc_ms"] == "" for r in rs), "%s: gc_ms is set for a jitter run", probe)
    t.note("CSV: %d rows, %s", len(rows), ", ".join("%s %d" % (p, len(r)) for p, r in by.items()))
    return rows


def check_hlog(t, path, rows):
    r = t.run("HlogCheck", [t.java, "-cp", HDR_JAR, os.path.join(HERE, "java", "HlogCheck.java"),
                            path], timeout=120)
    t.check(r.returncode == 0, "HdrHistogram's reader failed on %s: %s", path, r.stderr.strip())
    hists = [l.split() for l in r.stdout.splitlines() if l.startswith("hist ")]
    t.check(len(hists) == len(rows), "HistogramLogReader read %d histograms, the CSV has %d rows",
            len(hists), len(rows))
    worst = 0
    # one .hlog line per CSV row, in the same order; .hlog times are cut to milliseconds (the
    # base is a whole millisecond, a start is cut once, and the reader's (long)(s * 1000) may
    # cut one more after rounding: under 2 ms early)
    for h, row in zip(hists, rows):
        tag, start, total, p50, p99, p999, mx = h[1], float(h[2]), int(h[4]), int(h[5]), \
            int(h[6]), int(h[7]), int(h[8])
        t.check(tag == row["probe"] and abs(start * 1e9 - int(row["time"])) < 2.5e6,
                "histogram %s at %.3f s, CSV row %s at %s", tag, start, row["probe"], row["time"])
        t.check(total == int(row["count"]), "%s %.3f: Java counts %d, the CSV %s", tag, start,
                total, row["count"])
        for java, ours, what in ((p50, row["p50_ns"], "p50"), (p99, row["p99_ns"], "p99"),
                                 (p999, row["p999_ns"], "p99.9"), (mx, row["max_ns"], "max")):
            d = abs(hdr_index(java) - hdr_index(int(ours)))
            worst = max(worst, d)
            t.check(d <= 1, "%s %.3f %s: HdrHistogram says %d, flyprof %s (%d buckets apart)",
                    tag, start, what, java, ours, d)
    # per CPU the intervals follow each other without gaps and cover the 3 s run (a slot the
    # reading thread could not take in time covers several periods)
    for tag in sorted({h[1] for h in hists}):
        spans = [(float(h[2]), float(h[3])) for h in hists if h[1] == tag]
        t.check(all(abs(b[0] - a[1]) < 0.0025 for a, b in zip(spans, spans[1:])),
                "%s: the intervals are not contiguous: %s", tag, spans)
        t.check(spans[-1][1] - spans[0][0] >= 2.99, "%s: the intervals cover only %.3f s", tag,
                spans[-1][1] - spans[0][0])
    t.note("HistogramLogReader: %d histograms, counts equal, percentiles at most %d bucket "
           "apart", len(hists), worst)
    tag = rows[0]["probe"]
    r = t.run("HistogramLogProcessor", [t.java, "-cp", HDR_JAR,
                                        "org.HdrHistogram.HistogramLogProcessor", "-i", path,
                                        "-tag", tag], timeout=120)
    t.check(r.returncode == 0 and "Exception" not in r.stderr,
            "HistogramLogProcessor failed: %s", r.stderr.strip())
    m = re.search(r"#\[Max\s*=\s*([\d.]+),\s*Total count\s*=\s*(\d+)", r.stdout)
    t.check(m, "HistogramLogProcessor printed no totals")
    total = sum(int(x["count"]) for x in rows if x["probe"] == tag)
    t.check(int(m.group(2)) == total, "HistogramLogProcessor totals %s for %s, the CSV %d",
            m.group(2), tag, total)


def check_influx(t, ix, db, rows, measurement="jitter"):
    want = {}
    for r in rows:
        want.setdefault(r["probe"], {})[int(r["time"])] = int(r["max_ns"])
    got = {}
    for tags, cols, vals in ix.series('SELECT "max" FROM "%s" GROUP BY "probe"' % measurement,
                                      db):
        got[tags["probe"]] = {v[0]: v[1] for v in vals}
    t.check(got == want, "InfluxDB holds %s, the CSV %s",
            {k: len(v) for k, v in got.items()}, {k: len(v) for k, v in want.items()})


def test(t):
    missing = [w for w, ok in (("influxd (package influxdb)", influx_available()),
                               ("%s (package libhdrhistogram-java)" % HDR_JAR,
                                os.path.isfile(HDR_JAR))) if not ok]
    if missing:
        flyprof_test.skip(t.name, "missing " + ", ".join(missing))
    cpus = sorted(os.sched_getaffinity(0))[:2]
    bad_inputs(t, cpus)
    with InfluxServer(t.tmp) as ix:
        ix.query("CREATE DATABASE jit", post=True)
        paths = {k: t.path("j." + k) for k in ("csv", "hlog", "out")}
        r, t0, t1 = run_stalled(t, cpus, ["--csv", paths["csv"], "--hlog", paths["hlog"],
                                          "--outliers", paths["out"], "--influx",
                                          ix.write_url("jit")])
        check_report(t, r, cpus)
        stalls = check_outliers(t, paths["out"], cpus, t0, t1)
        rows = check_csv(t, paths["csv"], cpus, stalls)
        check_hlog(t, paths["hlog"], rows)
        check_influx(t, ix, "jit", rows)
        t.note("InfluxDB over HTTP: every CSV point, with its time and max")

        udp_csv = t.path("u.csv")
        r = t.flyprof("jitter udp", ["jitter", "-c", str(cpus[0]), "-d", "1", "-r", "100ms",
                                     "--csv", udp_csv, "--influx", ix.udp_url()], timeout=60)
        t.check(r.returncode == 0, "jitter over UDP exited %s: %s", r.returncode, r.stderr)
        with open(udp_csv) as f:
            urows = list(csv.DictReader(f))
        deadline = time.monotonic() + 20
        while True:
            try:
                check_influx(t, ix, ix.udp_db, urows)
                break
            except TestFailure:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        t.note("InfluxDB over UDP: all %d points", len(urows))
    if not os.environ.get("FLYPROF_KEEP"):
        shutil.rmtree(t.tmp, ignore_errors=True)


if __name__ == "__main__":
    flyprof_test.main(test, "flyprof jitter: histograms, table, stall found, exports read by "
                      "HdrHistogram and InfluxDB")
