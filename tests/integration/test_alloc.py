#!/usr/bin/env python3
"""alloc: allocation profiling (agent option alloc, -e alloc) on a workload whose truth is
known. AllocRatio's threads alloc-0 and alloc-1 allocate byte[1000] arrays in two methods,
`one` and `three`, in the ratio 1:3 by construction, and print HotSpot's own per-thread
allocated-bytes counter over their loops (1 GiB in all: about 2000 samples at the default
512 KiB, so a share is known to +-1 pt and the total to +-3% at one sigma).

Asserted, for -agentpath (with cpu and wall sampling on too) and attached (`flyprof start -e
alloc` before the work begins):
- the share of `one` in the alloc weight of `one` + `three` is 0.25 +- 0.05;
- the alloc weight under the two threads is within 25% of the counter's bytes (the weights
  are upscaled per sample: FORMAT.md section 10);
- every stack through `one` or `three` ends in the class leaf `byte[]`;
- pprof's alloc_space total equals the folded total, and alloc_objects is within 25% of the
  bytes / 1016 (a byte[1000] is 1016 bytes);
- `flyprof summary` lists byte[] <- three() and byte[] <- one() among its top allocation
  sites;
- -agentpath only: the CPU and wall samples of the same run are there too;
- the Java API: with the agent loaded idle, Flyprof.start("alloc=64k,lock,...") profiles
  both (status says alloc=65536 lock=10000; 64 MiB allocated in AllocRatio.work estimated
  within 25%; monitor waits on LockContention$Monitor logged).
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alloclock_common as alc  # noqa: E402
import test_attach_common as ac  # noqa: E402

MB = 1024
OBJ = 1016  # a byte[1000]: 16 bytes of header and length, 1000 of data


def pprof_totals(t, fpl):
    """(alloc_objects, alloc_space) summed by `go tool pprof -raw` over the pprof output, or
    None when go is not installed."""
    go = shutil.which("go")
    if not go:
        t.note("go not found: pprof output not checked")
        return None
    out = fpl[:-4] + ".pb.gz"
    r = t.flyprof("convert pprof", ["convert", fpl, "--kind", "alloc", "-o", out])
    t.check(r.returncode == 0, "convert to pprof failed: %s", r.stderr[-300:])
    p = subprocess.run([go, "tool", "pprof", "-raw", out], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    t.check(p.returncode == 0, "go tool pprof: %s", p.stderr[-300:])
    t.check("alloc_objects/count alloc_space/bytes" in p.stdout,
            "pprof's sample types are not alloc_objects, alloc_space: %s", p.stdout[:600])
    objs = space = 0
    for m in re.finditer(r"^\s+(\d+)\s+(\d+): ", p.stdout, re.M):
        objs += int(m.group(1))
        space += int(m.group(2))
    return objs, space


def check(t, results, fpl, what):
    allocated = float(results["allocated_bytes"])
    ratio = float(results["ratio"])
    lines = alc.folded(t, fpl, "alloc")
    one = three = others = 0
    leaf_ok = leaf_bad = 0
    for frames, w in lines:
        if not frames[0].startswith("alloc-"):
            others += w
            continue
        names = [f.rsplit(".", 1)[-1] for f in frames]
        if "one" in names or "three" in names:
            if frames[-1] == "byte[]":
                leaf_ok += w
            else:
                leaf_bad += w
        if "three" in names:
            three += w
        elif "one" in names:
            one += w
    total = one + three
    t.note("%s: one %d, three %d bytes (estimated), counter %d, other threads %d", what, one,
           three, allocated, others)
    t.check(total > 0, "%s: no alloc samples in one() or three()", what)
    t.close_to(one / total, 1 / (1 + ratio), 0.05, "%s: the share of one()" % what)
    t.close_to(total / allocated, 1.0, 0.25, "%s: estimated / counted bytes" % what)
    t.check(leaf_bad <= 0.01 * (leaf_ok + leaf_bad), "%s: %d of %d bytes of one()/three() "
            "stacks do not end in the class leaf byte[]", what, leaf_bad, leaf_ok + leaf_bad)
    all_w = sum(w for _, w in lines)
    s = ac.flyprof(t, "summary " + what, ["summary", fpl])
    ac.expect(t, s, 0, "MiB allocated", "top allocation sites",
              "byte[] <- dev.flyprof.workload.AllocRatio.three",
              "byte[] <- dev.flyprof.workload.AllocRatio.one")
    tot = pprof_totals(t, fpl)
    if tot:
        objs, space = tot
        t.note("%s: pprof alloc_space %d, alloc_objects %d", what, space, objs)
        t.check(abs(space - all_w) <= 0.001 * all_w + 16, "%s: pprof alloc_space %d, folded "
                "%d", what, space, all_w)
        t.close_to(objs / (allocated / OBJ), 1.0, 0.25,
                   "%s: pprof alloc_objects / counted objects" % what)


def test(t):
    res, fpl, _ = alc.run_agentpath(t, "agentpath", "AllocRatio", [MB],
                                    "cpu=10ms,wall=20ms,alloc")
    check(t, res, fpl, "agentpath")
    cpu = alc.folded(t, fpl, "cpu")
    wall = alc.folded(t, fpl, "wall")
    t.check(sum(w for _, w in cpu) > 0 and sum(w for _, w in wall) > 0,
            "agentpath: cpu and wall samples missing beside alloc")
    res, fpl, _ = alc.run_attached(t, "attached", "AllocRatio", [MB, 2], "alloc",
                                   ready_thread="alloc-0")
    check(t, res, fpl, "attached")
    api(t)


def api(t):
    """Flyprof.start("alloc=64k,lock,...") from Java, the agent loaded idle (ApiUse
    alloclock): status says so, and the log has the allocation and the lock samples."""
    d = t.path("api")
    os.makedirs(d, exist_ok=True)
    r = t.run("api", [t.java, "-agentpath:%s=idle" % t.agent, "-cp", t.jar,
                      "dev.flyprof.workload.ApiUse", "alloclock", d], 180)
    t.check_jvm(r)
    status = [line for line in r.stdout.splitlines() if line.startswith("api status_started")]
    t.check(status and "alloc=65536" in status[0] and "lock=10000" in status[0],
            "api: status after Flyprof.start(alloc=64k,lock) says %s", status)
    fpl = os.path.join(d, "al.fpl")
    t.logs.append(fpl)
    ac.check_complete(t, fpl, "api")
    alloc = alc.folded(t, fpl, "alloc")
    lock = alc.folded(t, fpl, "lock")
    aw = sum(w for fr, w in alloc if any(f.endswith("AllocRatio.work") for f in fr))
    lw = sum(w for fr, w in lock if fr[-1].endswith("LockContention$Monitor"))
    t.note("api: %.1f MiB allocated in AllocRatio.work, %.3f s waited on the monitor",
           aw / 2**20, lw / 1e9)
    t.close_to(aw / (64 << 20), 1.0, 0.25, "api: estimated / allocated bytes")
    t.check(lw > 50e6, "api: only %.1f ms of monitor waits (4 threads x 20 holds of 2 ms)",
            lw / 1e6)


if __name__ == "__main__":
    ac.main(test, "allocation profiling: 1:3 split, totals against HotSpot's counter")
