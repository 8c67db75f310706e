"""Part `jitter` of the flyprof benchmark (bench.py): flyprof jitter and oslat (rt-tests), a
peer that also spins on each CPU, run one after the other on the same CPUs for the same time,
rounds interleaved; prints each tool's p99, p99.9, max and interruptions of 10 us or more per
second side by side. flyprof's figures are computed here from its .hlog (decoded below with
the standard library: base64, zlib, HdrHistogram's ZigZag LEB128 counts), oslat's from its
JSON histogram. The two measure different loops: flyprof the gap between two TSC reads
(about 10 ns), oslat one iteration of its loop, bucketed by whole microseconds, so their low
percentiles differ by design; the tails (stalls) should agree."""

import base64
import json
import os
import shutil
import struct
import subprocess
import zlib

TEN_US = 10000


def hlog_histograms(path):
    """{tag: {ns value (lowest of its bucket): count}} summed over a .hlog's intervals."""
    out = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("Tag="):
                continue
            fields = line.strip().split(",")
            tag, blob = fields[0][4:], fields[4]
            raw = base64.b64decode(blob)
            body = zlib.decompress(raw[8:])
            cookie, plen, _, digits, lowest, highest = struct.unpack(">iiiiqq", body[:32])
            half_bits = 7  # 2 significant digits: 256 sub-buckets
            idx, pos, end = 0, 40, 40 + plen
            h = out.setdefault(tag, {})
            while pos < end:
                v, shift, n = 0, 0, 0
                while True:
                    b = body[pos]
                    pos += 1
                    n += 1
                    if n == 9:
                        v |= b << 56
                        break
                    v |= (b & 0x7f) << shift
                    shift += 7
                    if not b & 0x80:
                        break
                c = (v >> 1) ^ -(v & 1)
                if c < 0:
                    idx += -c
                    continue
                if c:
                    bucket = (idx >> half_bits) - 1
                    sub = (idx & ((1 << half_bits) - 1)) + (1 << half_bits)
                    if bucket < 0:
                        sub -= 1 << half_bits
                        bucket = 0
                    val = sub << bucket
                    h[val] = h.get(val, 0) + c
                idx += 1
    return out


def quantile(hist, q):
    """The value at quantile q (0..1) of {value: count}."""
    total = sum(hist.values())
    want = max(1, int(-(-q * total // 1)))
    run = 0
    for v in sorted(hist):
        run += hist[v]
        if run >= want:
            return v
    return max(hist) if hist else 0


def figures(hist, seconds, unit_ns):
    """p99, p99.9, max (ns) and the rate of delays >= 10 us of {value in unit_ns: count}."""
    h = {v * unit_ns: c for v, c in hist.items()}
    if not h:
        return None
    return {"p99": quantile(h, 0.99), "p999": quantile(h, 0.999), "max": max(h),
            "ge10us_per_s": sum(c for v, c in h.items() if v >= TEN_US) / seconds}


def fmt_ns(ns):
    for unit, div in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= div:
            return "%.3g%s" % (ns / div, unit)
    return "%dns" % ns


def part_jitter(args, report, log):
    run_dir = os.path.join(args.out, "jitter")
    os.makedirs(run_dir, exist_ok=True)
    cpus = sorted(os.sched_getaffinity(0))[:2]
    secs = 5 if args.quick else 10
    rounds = 1 if args.quick else 2
    log("== jitter: flyprof jitter and oslat on CPUs %s, %d s each, %d round(s) ==" % (
        ",".join(map(str, cpus)), secs, rounds))
    oslat = shutil.which("oslat")
    if not oslat:
        log("  ! oslat is missing (Debian package rt-tests): flyprof jitter alone")
    rows, runs = [], []
    for i in range(rounds):
        order = ("flyprof", "oslat") if i % 2 == 0 else ("oslat", "flyprof")
        for tool in order:
            if tool == "flyprof":
                hl = os.path.join(run_dir, "flyprof-%d.hlog" % i)
                cmd = [args.cli, "jitter", "-c", ",".join(map(str, cpus)), "-d", str(secs),
                       "--hlog", hl]
                r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, timeout=secs + 120)
                with open(os.path.join(run_dir, "flyprof-%d.out" % i), "w") as f:
                    f.write(r.stdout + r.stderr)
                if r.returncode != 0:
                    log("  ! flyprof jitter exited %d: %s" % (r.returncode, r.stderr.strip()))
                    continue
                for tag, h in sorted(hlog_histograms(hl).items()):
                    rows.append(("flyprof", i, tag, figures(h, secs, 1)))
            elif oslat:
                js = os.path.join(run_dir, "oslat-%d.json" % i)
                cmd = [oslat, "-c", ",".join(map(str, cpus)), "-D", str(secs), "-q", "-b",
                       "1024", "--json=" + js]
                r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, timeout=secs + 120)
                with open(os.path.join(run_dir, "oslat-%d.out" % i), "w") as f:
                    f.write(r.stdout + r.stderr)
                if r.returncode != 0 or not os.path.exists(js):
                    log("  ! oslat exited %d: %s" % (r.returncode, r.stderr.strip()[-300:]))
                    continue
                with open(js) as f:
                    d = json.load(f)
                for t in sorted(d["thread"].values(), key=lambda t: t["cpu"]):
                    h = {int(k): v for k, v in t["histogram"].items()}
                    # the last bucket holds every overflow: oslat reports their max itself
                    f = figures(h, t["duration"], 1000)
                    if f:
                        f["max"] = t["max"] * 1000
                    rows.append(("oslat", i, "cpu%d" % t["cpu"], f))
            runs.append((tool, i))
    log("  %-8s %-6s %-6s %10s %10s %10s %14s" % ("tool", "round", "cpu", "p99", "p99.9",
                                                  "max", ">=10us per s"))
    for tool, i, tag, f in sorted(rows, key=lambda r: (r[1], r[2], r[0])):
        if not f:
            continue
        log("  %-8s %-6d %-6s %10s %10s %10s %14.1f" % (tool, i, tag, fmt_ns(f["p99"]),
                                                       fmt_ns(f["p999"]), fmt_ns(f["max"]),
                                                       f["ge10us_per_s"]))
    log("  flyprof: gaps between two TSC reads; oslat: loop iterations in 1 us buckets (its p99")
    log("  is the bucket's top). Compare the tails: max and the rate of stalls of 10 us or more.")
    log()
    report["jitter"] = {"cpus": cpus, "seconds": secs,
                        "rows": [{"tool": t, "round": i, "cpu": c, "figures": f}
                                 for t, i, c, f in rows]}
