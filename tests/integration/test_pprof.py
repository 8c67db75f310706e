#!/usr/bin/env python3
"""pprof: `flyprof convert X.fpl -o X.pb.gz` on a real profile, read by `go tool pprof`.

Split123 (see Split123.java) burns its worker's CPU in kernel(), called from block(), called
once by unitA, twice by unitB and three times by unitC. The JVM runs under cpu=10ms,wall=20ms;
the log is converted to pprof for each kind (cpu, the default; wall; all) and read with
Debian's `go tool pprof`, which must accept every file with nothing on stderr (no warning, no
symbolization attempt). Asserts:
- sample types, units and the default type: [samples/count, cpu/nanoseconds] for cpu,
  [samples/count, wall/nanoseconds] for wall, the four of both for all; period type and period;
- `-top`: kernel is the hottest function (flat) of the cpu profile, as pprof itself ranks it,
  with over 40% of the CPU;
- from `-raw` (the decoded profile, exact values): the cpu nanoseconds add up to the folded
  output's total weight x 10 ms exactly; the units' cumulative shares are 1:2:3 within 5 points
  (the same run's folded shares are checked tighter by test_split123); every sample has a
  `thread` label and a numeric `thread_id` label, the worker's are `split-worker` and one id
  (the OS tid, a number shared by no other thread name); wall samples have a `state` label of a
  known state and the wall total matches the folded wall output within rounding;
- the mapping is named after the program (its main class), not `[jvm]`;
- functions and lines: kernel's locations are in Split123.java under its package directory, on
  lines of kernel's body or line 0, pprof's unknown (a sample at the compiled method's entry,
  bci -1, has no line), at least one on a body line, and `-list` finds the source with
  -source_path at java/src.

Needs `go` (golang-go, installed by scripts/setup); without it the test is skipped (exit 77), or fails under CI=true.
Go runs with HOME, GOCACHE and GOPATH in the test's temp dir and no network (GOPROXY=off):
`go tool pprof` on a local file needs neither.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402

SECONDS = 3
CPU_NS = 10_000_000
WALL_NS = 20_000_000
PKG = "dev.flyprof.workload.Split123."
SOURCE = "dev/flyprof/workload/Split123.java"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JAVA_SRC = os.path.join(REPO, "java", "src")
STATES = {"unknown", "running", "blocked", "waiting", "timed_waiting", "parked", "sleeping",
          "native", "jvm_idle", "other"}


def find_go():
    go = shutil.which("go")
    if go:
        return go
    found = sorted(glob.glob("/usr/lib/go*/bin/go"))
    return found[-1] if found else None


class Raw:
    """`go tool pprof -raw` output: header fields, sample types, samples, locations."""

    def __init__(self, text):
        self.fields = {}
        self.types = []
        self.default = None
        self.samples = []     # (values, [location ids leaf first], {label: value})
        self.locations = {}   # id -> (function name, file, line)
        self.mappings = []    # file names
        section = None
        for line in text.splitlines():
            if line in ("Samples:", "Locations", "Mappings"):
                section = line
                continue
            if section is None:
                k, sep, v = line.partition(": ")
                if sep:
                    self.fields[k] = v
            elif section == "Samples:":
                m = re.match(r"^\s+(\d+(?:\s+\d+)*): ([\d ]*)$", line)
                if m:
                    vals = [int(x) for x in m.group(1).split()]
                    locs = [int(x) for x in m.group(2).split()]
                    self.samples.append((vals, locs, {}))
                elif line.strip() and not self.types and not line.startswith(" "):
                    for t in line.split():
                        if t.endswith("[dflt]"):
                            t = t[:-len("[dflt]")]
                            self.default = t
                        self.types.append(t)
                elif line.strip() and self.samples:
                    for k, v in re.findall(r"(\w+):\[([^\]]*)\]", line):
                        self.samples[-1][2][k] = v
            elif section == "Mappings":
                m = re.match(r"^\s*\d+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ (\S+)", line)
                if m:
                    self.mappings.append(m.group(1))
            elif section == "Locations":
                m = re.match(r"^\s*(\d+): 0x[0-9a-f]+ M=\d+ (.*) (\S*):(-?\d+) s=\d+", line)
                if m:
                    self.locations[int(m.group(1))] = (m.group(2), m.group(3), int(m.group(4)))

    def value(self, index):
        return sum(v[index] for v, _, _ in self.samples)

    def cum(self, index, pred):
        """The weight of samples with a location whose function satisfies pred."""
        return sum(v[index] for v, locs, _ in self.samples
                   if any(pred(self.locations[i][0]) for i in locs if i in self.locations))

    def flat(self, index):
        out = {}
        for v, locs, _ in self.samples:
            name = self.locations[locs[0]][0] if locs and locs[0] in self.locations else "?"
            out[name] = out.get(name, 0) + v[index]
        return out


def kernel_lines():
    """The lines of Split123.kernel's declaration and body, from the source."""
    with open(os.path.join(JAVA_SRC, SOURCE), encoding="utf-8") as f:
        lines = f.read().splitlines()
    start = next(i for i, l in enumerate(lines, 1) if "static long kernel(" in l)
    end = next(i for i, l in enumerate(lines, 1) if i > start and l == "    }")
    return start, end


def folded_total(t, fpl, kind):
    out = fpl[:-len(".fpl")] + "." + kind + ".collapsed"
    r = t.flyprof("convert %s --kind %s" % (os.path.basename(fpl), kind),
                  ["convert", fpl, "-o", out, "--kind", kind])
    t.check(r.returncode == 0, "flyprof convert --kind %s: exit status %s", kind, r.returncode)
    with open(out, encoding="utf-8", errors="replace") as f:
        return ft.Profile.parse(f.read(), threads=False)


def test(t):
    go = find_go()
    env = dict(os.environ)
    for k in ("HOME", "GOCACHE", "GOPATH"):
        env[k] = t.path("go-" + k.lower())
        os.makedirs(env[k], exist_ok=True)
    env.update(GOFLAGS="", GOPROXY="off", GOTOOLCHAIN="local", GOTELEMETRY="off",
               GO111MODULE="off")

    def pprof(name, args):
        """Runs go tool pprof; checks it succeeded with nothing on stderr."""
        cmd = [go, "tool", "pprof"] + args
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           errors="replace", timeout=120, env=env, cwd=t.tmp)
        r = ft.Run(name, cmd, p, 0, False)
        t.runs.append(r)
        t.check(p.returncode == 0, "%s: exit status %s: %s", name, p.returncode,
                p.stderr.strip()[-500:])
        t.check(not p.stderr.strip(), "%s: pprof complained on stderr: %s", name,
                p.stderr.strip()[-500:])
        return p.stdout

    def convert(fpl, kind):
        out = fpl[:-len(".fpl")] + "." + kind + ".pb.gz"
        args = ["convert", fpl, "-o", out] + (["--kind", kind] if kind != "auto" else [])
        r = t.flyprof("convert -o %s" % os.path.basename(out), args)
        t.check(r.returncode == 0, "flyprof convert -o %s: exit status %s: %s", out,
                r.returncode, r.stderr.strip()[-300:])
        with open(out, "rb") as f:
            t.check(f.read(2) == b"\x1f\x8b", "%s is not gzipped", out)
        return out

    run, fpl = t.run_java("split123", "Split123", [SECONDS],
                          agent_options="cpu=10ms,wall=20ms")
    t.convert(fpl)  # for the failure report: the folded stacks by thread

    # ---- cpu (the default kind) ----
    pb = convert(fpl, "auto")
    raw = Raw(pprof("pprof -raw cpu", ["-raw", pb]))
    t.note("cpu: types %s (default %s), period %s %s, %d samples, %d locations",
           raw.types, raw.default, raw.fields.get("PeriodType"), raw.fields.get("Period"),
           len(raw.samples), len(raw.locations))
    t.check(raw.types == ["samples/count", "cpu/nanoseconds"], "cpu sample types %s", raw.types)
    t.check(raw.default == "cpu/nanoseconds", "default sample type %s", raw.default)
    t.check(raw.fields.get("PeriodType") == "cpu nanoseconds", "period type %s",
            raw.fields.get("PeriodType"))
    t.check(raw.fields.get("Period") == str(CPU_NS), "period %s", raw.fields.get("Period"))
    t.check(raw.samples and raw.locations, "no samples or locations in -raw")
    folded = folded_total(t, fpl, "cpu")
    t.check(raw.value(1) == folded.total() * CPU_NS,
            "cpu ns %d != folded weight %d x %d", raw.value(1), folded.total(), CPU_NS)
    t.check(0 < raw.value(0) <= folded.total(), "sample count %d vs weight %d",
            raw.value(0), folded.total())
    t.check(all("thread" in lab for _, _, lab in raw.samples), "a sample without thread label")
    t.check(not any("state" in lab for _, _, lab in raw.samples), "a cpu sample with a state")
    threads = {lab["thread"] for _, _, lab in raw.samples}
    t.check("split-worker" in threads, "no split-worker thread label; threads: %s", threads)
    t.check(all(re.match(r"^[1-9][0-9]*$", lab.get("thread_id", "")) for _, _, lab in raw.samples),
            "a sample without a numeric thread_id label")
    ids = {}
    for _, _, lab in raw.samples:
        ids.setdefault(lab["thread_id"], set()).add(lab["thread"])
    t.check(all(len(names) == 1 for names in ids.values()), "a thread_id with two names: %s", ids)
    worker_ids = {i for i, names in ids.items() if "split-worker" in names}
    t.check(len(worker_ids) == 1, "split-worker has thread ids %s", worker_ids)
    t.check(raw.mappings == [PKG.rstrip(".")], "mappings %s, want the main class %s",
            raw.mappings, PKG.rstrip("."))

    # kernel on top, as pprof ranks it
    top = pprof("pprof -top cpu", ["-top", "-nodecount=5", "-sample_index=cpu", pb])
    t.check(re.search(r"^Type: cpu$", top, re.M), "-top does not say Type: cpu")
    rows = [l.split()[-1] for l in top.splitlines() if re.match(r"^\s+[\d.]+\w*\s+[\d.]+%", l)]
    t.note("-top: %s", rows[:3])
    t.check(rows and rows[0] == PKG + "kernel", "hottest function is %s, want kernel",
            rows[0] if rows else None)
    # most of it (60-90% seen: on JDK 25 part of the kernel's time shows in its inlining callers)
    share = raw.flat(1).get(PKG + "kernel", 0) / raw.value(1)
    t.note("kernel's flat share of cpu: %.3f", share)
    t.check(share > 0.4, "kernel's flat share is only %.3f", share)

    # the units' cumulative shares
    worker = [(v, l, lab) for v, l, lab in raw.samples if lab.get("thread") == "split-worker"]
    wraw = Raw("")
    wraw.samples, wraw.locations = worker, raw.locations
    units = [wraw.cum(1, lambda f, u=u: f == PKG + u) for u in ("unitA", "unitB", "unitC")]
    t.check(sum(units) > 100 * CPU_NS, "only %d ns of the worker in units", sum(units))
    for i, (u, w) in enumerate(zip(("unitA", "unitB", "unitC"), units), 1):
        t.close_to(w / sum(units), i / 6, 0.05, "%s cum share (pprof)" % u)

    # functions, files and lines
    lo, hi = kernel_lines()
    klocs = [loc for loc in raw.locations.values() if loc[0] == PKG + "kernel"]
    t.note("kernel locations: %s (body lines %d-%d)", sorted({l[2] for l in klocs}), lo, hi)
    t.check(klocs, "no location of kernel")
    t.check(all(loc[1] == SOURCE for loc in klocs), "kernel's file is %s, want %s",
            {loc[1] for loc in klocs}, SOURCE)
    # line 0 is pprof's "unknown": a sample at the compiled kernel's entry (bci -1, before its
    # first bytecode) has no line, as AsyncGetCallTrace gives it; every known line is in the body
    t.check(all(lo <= loc[2] <= hi for loc in klocs if loc[2] != 0),
            "kernel's lines %s outside %d-%d", sorted({loc[2] for loc in klocs}), lo, hi)
    t.check(any(loc[2] != 0 for loc in klocs), "no location of kernel has a line")
    listing = pprof("pprof -list kernel", ["-list=Split123.kernel", "-source_path=" + JAVA_SRC,
                                           pb])
    t.check("ROUTINE ======================== " + PKG + "kernel" in listing,
            "-list shows no kernel routine")
    t.check("could not find file" not in listing, "-list did not find %s under %s", SOURCE,
            JAVA_SRC)

    # ---- wall ----
    pbw = convert(fpl, "wall")
    raww = Raw(pprof("pprof -raw wall", ["-raw", pbw]))
    t.note("wall: types %s, period %s, %d samples", raww.types, raww.fields.get("Period"),
           len(raww.samples))
    t.check(raww.types == ["samples/count", "wall/nanoseconds"], "wall types %s", raww.types)
    t.check(raww.default == "wall/nanoseconds", "wall default type %s", raww.default)
    t.check(raww.fields.get("PeriodType") == "wall nanoseconds", "wall period type %s",
            raww.fields.get("PeriodType"))
    t.check(raww.fields.get("Period") == str(WALL_NS), "wall period %s",
            raww.fields.get("Period"))
    t.check(raww.samples, "no wall samples")
    states = {lab.get("state") for _, _, lab in raww.samples}
    t.note("wall states: %s", sorted(s or "-" for s in states))
    t.check(states <= STATES, "wall samples without a state label, or unknown states: %s",
            states)
    wfold = folded_total(t, fpl, "wall")
    # pprof rounds per sample, folded per line: each within half an interval
    slack = (len(raww.samples) + len(wfold.samples)) * WALL_NS / 2
    t.check(abs(raww.value(1) - wfold.total() * WALL_NS) <= slack,
            "wall ns %d vs folded %d x %d", raww.value(1), wfold.total(), WALL_NS)
    pprof("pprof -top wall", ["-top", "-nodecount=5", "-sample_index=wall", pbw])

    # ---- all: the four types, either kind selectable ----
    pba = convert(fpl, "all")
    rawa = Raw(pprof("pprof -raw all", ["-raw", pba]))
    t.check(rawa.types == ["cpu_samples/count", "cpu/nanoseconds", "wall_samples/count",
                           "wall/nanoseconds"], "all types %s", rawa.types)
    t.check(rawa.value(1) == raw.value(1) and rawa.value(3) == raww.value(1),
            "all: cpu %d / wall %d ns, want %d / %d", rawa.value(1), rawa.value(3),
            raw.value(1), raww.value(1))
    for idx in ("cpu", "wall_samples"):
        pprof("pprof -top all " + idx, ["-top", "-nodecount=3", "-sample_index=" + idx, pba])


if __name__ == "__main__":
    if not find_go():
        ft.skip("pprof", "no `go` (install golang-go; scripts/setup does)")
    ft.main(test, "flyprof convert -o X.pb.gz read by go tool pprof")
