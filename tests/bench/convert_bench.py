#!/usr/bin/env python3
"""convert_bench: how fast and in how much memory `flyprof convert` renders a big .fpl log.

Writes a synthetic log with fplsynth (default 10M samples over 100k distinct stacks, Zipf
popularity, mean depth 40, 32 threads, samples as SAMPLE2 records as the agent writes them, or
SAMPLE records with --log-version 1: see tests/bench/fplsynth.c; the encoding and its bytes per
sample are printed), then renders it on one core
(`taskset -c 0`) into every output -- folded, HTML, pprof, JFR, text, each plain and with --threads,
and `flyprof summary` -- several times, and prints for each: the best wall time, samples per
second, user+system CPU, max RSS (wait4's rusage of the child) and output size; for the HTML
page also its tree nodes and what its node budget merged. The same conversions through fplconv
(the CLI's code path, timed inside, once each) split the time into reading + aggregating the log
and writing the output. Prints figures only: never passes or fails on them (a benchmark, not a
test); then the rows that issue 22 sets targets for beside them: folded >= 10M samples/s, HTML
and pprof >= 5M, and 400 MiB RSS for every row, per wall second and per CPU second (the machine
is shared: the load average is printed before and after). Needs the tree built (bin/flyprof,
tests/fplsynth, tests/fplconv). scripts/bench runs it as its `convert` part.

    python3 tests/bench/convert_bench.py --build BUILD [--samples 10M] [--stacks 100k]
        [--wall 0.2] [--log-version 1|2|3|4] [--runs 3] [--formats folded,html,pprof,text,summary] [--keep]
        [--json OUT.json]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# issue 22's throughput targets for `flyprof convert` (samples per second), and its memory bound
TARGETS = {"folded": 10e6, "html": 5e6, "pprof": 5e6}
RSS_BOUND = 400 << 20


def count(s):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgG]?)", s)
    if not m:
        raise argparse.ArgumentTypeError("not a count: %r (e.g. 10M, 100k)" % s)
    mult = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2).lower()]
    return int(float(m.group(1)) * mult)


def run_measured(cmd, cpu):
    """Runs cmd pinned to one CPU; returns (seconds, user+sys seconds, max RSS bytes, stderr)."""
    if cpu is not None and shutil.which("taskset"):
        cmd = ["taskset", "-c", str(cpu)] + cmd
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read().decode(errors="replace")
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    secs = time.perf_counter() - t0
    p.stderr.close()
    if p.returncode != 0:
        raise SystemExit("convert_bench: %s failed (%d): %s" % (" ".join(cmd), p.returncode,
                                                                err.strip()))
    return secs, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024, err


def mib(n):
    return "%.1f MiB" % (n / 1048576)


def page_notes(path):
    """What a flame graph page holds: its nodes and what the node budget merged."""
    try:
        with open(path, encoding="ascii", errors="replace") as f:
            s = f.read()
        at = s.index('id="fp-data">') + len('id="fp-data">')
        d = json.loads(s[at:s.index("</script>", at)])
    except (OSError, ValueError):
        return ""
    note = "%d nodes" % d.get("n", 0)
    if d.get("merged_frames"):
        note += ", %d frames under %.4g%% merged into %d nodes" % (
            d["merged_frames"], d.get("min_share", 0) * 100, d.get("merged_nodes", 0))
    return note


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True, help="the build directory")
    ap.add_argument("--samples", type=count, default=10_000_000)
    ap.add_argument("--stacks", type=count, default=100_000)
    ap.add_argument("--threads", type=count, default=32)
    ap.add_argument("--depth", type=count, default=40, help="mean stack depth")
    ap.add_argument("--wall", type=float, default=0.0, help="fraction of wall samples")
    ap.add_argument("--log-version", type=int, choices=(1, 2, 3, 4), default=4,
                    help="records as the agent writes them (4: SAMPLE2, METHOD2), with METHOD "
                    "records (2, 3), or SAMPLE and METHOD (1)")
    ap.add_argument("--runs", type=int, default=3, help="runs per conversion (best kept)")
    ap.add_argument("--formats", default="folded,html,pprof,jfr,text,summary",
                    help="outputs to render (default all: folded,html,pprof,jfr,text,summary)")
    ap.add_argument("--cpu", type=int, default=0, help="the CPU to pin to (-1: none)")
    ap.add_argument("--tmp", help="where the log and outputs go (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the log and outputs")
    ap.add_argument("--json", help="also write the figures to this file")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    cli = os.path.join(build, "bin", "flyprof")
    synth = os.path.join(build, "tests", "fplsynth")
    conv = os.path.join(build, "tests", "fplconv")
    for f in (cli, synth, conv):
        if not os.path.isfile(f):
            raise SystemExit("convert_bench: missing %s (build the tree first)" % f)
    cpu = None if a.cpu < 0 else a.cpu
    tmp = a.tmp or tempfile.mkdtemp(prefix="convert-bench-")
    os.makedirs(tmp, exist_ok=True)
    fpl = os.path.join(tmp, "synth-%d-%d.fpl" % (a.samples, a.stacks))

    t0 = time.perf_counter()
    out = subprocess.run([synth, "-o", fpl, "-n", str(a.samples), "-u", str(a.stacks),
                          "-t", str(a.threads), "-d", str(a.depth), "-w", str(a.wall),
                          "-v", str(a.log_version)],
                         check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
    print("%s (%.1f s)" % (out, time.perf_counter() - t0))
    m = re.search(r"samples as (\w+) records \(log version (\d)\): ([\d.]+) bytes per sample, "
                  r"([\d.]+) with", out)
    enc = {"record": m.group(1), "log_version": int(m.group(2)),
           "sample_bytes": float(m.group(3)), "log_bytes_per_sample": float(m.group(4))} if m else {}
    if enc:
        print("encoding: %s records (log version %d), %.2f bytes per sample record, %.2f bytes "
              "of log per sample" % (enc["record"], enc["log_version"], enc["sample_bytes"],
                                     enc["log_bytes_per_sample"]))
    print("input: %s, %s; pinned to CPU %s; best of %d runs; load average %.1f\n"
          % (fpl, mib(os.path.getsize(fpl)), cpu if cpu is not None else "none", a.runs,
             os.getloadavg()[0]))

    results = []
    outputs = [("folded", ".collapsed"), ("html", ".html"), ("pprof", ".pb.gz"),
               ("jfr", ".jfr"), ("text", ".txt"), ("summary", None)]
    wanted = [f.strip() for f in a.formats.split(",") if f.strip()]
    extra = ["--kind", "all"] if a.wall > 0 else []
    hdr = "%-17s %-8s %8s %12s %8s %12s %10s %10s  %s" % (
        "output", "tool", "seconds", "samples/s", "cpu s", "samples/cpu-s", "max RSS", "size",
        "notes")
    print(hdr)
    print("-" * len(hdr))
    for name, ext in outputs:
        if name not in wanted:
            continue
        for threads in ([False] if ext is None else [False, True]):
            label = name + (" --threads" if threads else "")
            opts = (["--threads"] if threads else []) + extra
            dst = os.path.join(tmp, "out" + (".threads" if threads else "") + (ext or ".txt"))
            if ext is None:
                tools = [("flyprof", [cli, "summary", fpl])]
            else:
                tools = [("flyprof", [cli, "convert", fpl, "-o", dst] + opts),
                         ("fplconv", [conv, fpl, dst] + opts)]
            for tool, cmd in tools:
                best = None
                for _ in range(a.runs if tool == "flyprof" else 1):
                    r = run_measured(cmd, cpu)
                    if best is None or r[0] < best[0]:
                        best = r
                secs, cpus, rss, err = best
                m = re.search(r"read ([\d.]+) s \(cpu ([\d.]+) s\), write ([\d.]+) s "
                              r"\(cpu ([\d.]+) s\)", err)
                notes = ("read %s s + write %s s (cpu %s + %s)"
                         % (m.group(1), m.group(3), m.group(2), m.group(4)) if m else "")
                size = os.path.getsize(dst) if ext and os.path.exists(dst) else 0
                if tool == "flyprof" and name == "html":
                    notes = page_notes(dst)
                rate = a.samples / secs
                crate = a.samples / cpus if cpus > 0 else 0
                print("%-17s %-8s %8.3f %12s %8.3f %12s %10s %10s  %s" % (
                    label, tool, secs, "{:,.0f}".format(rate), cpus, "{:,.0f}".format(crate),
                    mib(rss), mib(size) if ext else "-", notes), flush=True)
                results.append({"output": label, "tool": tool, "seconds": secs,
                                "samples_per_s": rate, "cpu_s": cpus,
                                "samples_per_cpu_s": crate, "max_rss": rss, "size": size,
                                "notes": notes})
            if ext and os.path.exists(dst) and not a.keep:
                os.unlink(dst)  # a --threads folded file is GBs: one at a time on disk
    rows = [r for r in results if r["tool"] == "flyprof" and r["output"] in TARGETS]
    if rows:
        print("\nissue 22's targets (flyprof convert, %d samples):" % a.samples)
        print("  %-8s %14s %14s %12s %10s  %s" % ("output", "samples/s", "samples/cpu-s",
                                                 "target", "max RSS", "met (wall / cpu / RSS)"))
        yes = lambda ok: "yes" if ok else "no"
        for r in rows:
            t = TARGETS[r["output"]]
            print("  %-8s %14s %14s %12s %10s  %s / %s / %s" % (
                r["output"], "{:,.0f}".format(r["samples_per_s"]),
                "{:,.0f}".format(r["samples_per_cpu_s"]), ">= {:,.0f}".format(t),
                mib(r["max_rss"]), yes(r["samples_per_s"] >= t), yes(r["samples_per_cpu_s"] >= t),
                yes(r["max_rss"] <= RSS_BOUND)))
    flyprof_rss = [r["max_rss"] for r in results if r["tool"] == "flyprof"]
    if flyprof_rss:
        worst = max(results, key=lambda r: r["max_rss"] if r["tool"] == "flyprof" else 0)
        print("\nlargest max RSS of flyprof: %s (%s); the bound asked for is 400 MiB"
              % (mib(worst["max_rss"]), worst["output"]))
    print("\nsamples/s = %d samples / wall seconds of the whole conversion (read, aggregate, "
          "write);\nsamples/cpu-s = the same per second of its CPU time (user + system), which "
          "other\nprocesses on the core do not inflate; load average now %.1f"
          % (a.samples, os.getloadavg()[0]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"samples": a.samples, "stacks": a.stacks, "threads": a.threads,
                       "depth": a.depth, "wall": a.wall, "input_size": os.path.getsize(fpl),
                       "encoding": enc,
                       "synth": out, "results": results}, f, indent=2)
    if a.keep:
        print("kept %s" % tmp)
    elif not a.tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        for f in os.listdir(tmp):
            if f.startswith(("synth-", "out.")):
                os.unlink(os.path.join(tmp, f))


if __name__ == "__main__":
    sys.exit(main())
