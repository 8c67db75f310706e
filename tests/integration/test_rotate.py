#!/usr/bin/env python3
"""rotate: loop=TIME closes the output every TIME and goes on in the next file, with no sample
lost or counted twice at a seam; keep=N deletes the oldest files beyond N.

-agentpath: CpuBound's two workers for 9 s at loop=2s into `cpu-%n.fpl`. Asserted: at least 4
files, numbered 1, 2, 3... with no gap; every one complete (its END, no chunk missing) and a
log of its own (HEADER, its own dictionaries: `flyprof summary` reads it alone); each file
starts where the previous one ended (the seam's time, to 1 ms); the samples of all files
together are exactly the samples the handlers pushed, as the files' counters say (a sample
written twice or dropped at a seam breaks the equality); and the workers' CPU weight over all
files is within 5% of the CPU time the workers measured themselves.

A rendered format (`.collapsed`) at loop=1s,keep=2 for 4 s: exactly the newest 2 outputs
remain, each a folded profile of the workers, and no temporary log is left behind.

Attached to a JVM already running, with `flyprof start --loop 2s --keep 2` into a pattern
without %n (the agent puts -%n before the extension) for 7 s, then `flyprof stop`: exactly the
newest 2 files remain, both complete and contiguous.

From the Java API, the agent loaded idle: `Flyprof.start("cpu=10ms,loop=1s,keep=3,file=l-%n.fpl")`
for 4.5 s of CPU, then `Flyprof.stop()`: exactly 3 files remain, the newest, numbered without a
gap, each complete and contiguous with the next.

`flyprof convert` of all the -agentpath files at once (one profile of several logs) gives,
stack for stack with thread roots, the sum of the files converted one by one; `flyprof
summary` of them all counts every file's samples, spans their durations and calls the whole
complete.
"""
import glob
import json
import os
import re
import time

import test_attach_common as ac

ft = ac.ft
RUN_S = 9


def summaries(t, pattern, what):
    files = sorted(glob.glob(pattern))
    out = []
    for f in files:
        ac.check_complete(t, f, "%s %s" % (what, os.path.basename(f)))
        r = t.flyprof("summary --json " + os.path.basename(f), ["summary", "--json", f])
        t.check(r.returncode == 0, "%s: summary --json %s: exit %s", what, f, r.returncode)
        out.append((f, json.loads(r.stdout)))
    return out


def numbers(files):
    return [int(re.search(r"-(\d{6,})\.fpl$", f).group(1)) for f, _ in files]


def check_seams(t, logs, what):
    for (fa, a), (fb, b) in zip(logs, logs[1:]):
        end = a["started_ns"] + a["duration_ns"]
        gap = b["started_ns"] - end
        t.check(abs(gap) <= 1000000, "%s: %s starts %.3f ms after %s ends (a seam must be one "
                "moment)", what, os.path.basename(fb), gap / 1e6, os.path.basename(fa))


def folded(t, ins, out):
    r = t.flyprof("convert " + os.path.basename(out), ["convert"] + ins + ["--threads", "-o", out])
    t.check(r.returncode == 0, "convert %s: exit %s: %s", ins, r.returncode, r.stderr[-400:])
    sums = {}
    with open(out) as f:
        for line in f:
            stack, _, w = line.rstrip("\n").rpartition(" ")
            sums[stack] = sums.get(stack, 0) + int(w)
    return sums


def check_merge(t, files):
    """`flyprof convert` of all the files at once is, stack for stack, the sum of each file's."""
    merged = folded(t, files, t.path("merged.collapsed"))
    summed = {}
    for k, f in enumerate(files):
        for stack, w in folded(t, [f], t.path("one-%d.collapsed" % k)).items():
            summed[stack] = summed.get(stack, 0) + w
    diff = [s for s in set(merged) | set(summed) if merged.get(s) != summed.get(s)]
    t.note("merge of %d files: %d stacks, weight %d; %d stacks differ from the files' sum",
           len(files), len(merged), sum(merged.values()), len(diff))
    t.check(not diff, "the merge of %d files differs from their sum in %d stacks, e.g. %s: %s "
            "merged, %s summed", len(files), len(diff), diff[0] if diff else "",
            merged.get(diff[0]) if diff else "", summed.get(diff[0]) if diff else "")


def body(t):
    pattern = t.path("cpu-%n.fpl")
    cmd = [t.java, "-agentpath:%s=cpu=10ms,loop=2s,file=%s" % (t.agent, pattern), "-cp", t.jar,
           ft.WORKLOAD_PKG + "CpuBound", str(RUN_S), "2"]
    r = t.run("agentpath", cmd, 120)
    t.check_jvm(r)
    logs = summaries(t, t.path("cpu-*.fpl"), "-agentpath")
    nums = numbers(logs)
    t.note("-agentpath: %d files, numbered %s, durations %s s", len(logs), nums,
           ["%.3f" % (s["duration_ns"] / 1e9) for _, s in logs])
    t.check(len(logs) >= 4, "-agentpath: %d files in %d s at loop=2s", len(logs), RUN_S)
    t.check(nums == list(range(1, len(nums) + 1)), "-agentpath: files numbered %s", nums)
    check_seams(t, logs, "-agentpath")
    written = sum(s["cpu"]["samples"] + s["wall"]["samples"] for _, s in logs)
    pushed = sum(s["agent"]["samples_pushed"] for _, s in logs)
    drops = sum(s["drops"] for _, s in logs)
    t.note("-agentpath: %d samples in the files, %d pushed, %d dropped", written, pushed, drops)
    t.check(written == pushed - drops and written > 0, "-agentpath: the files hold %d samples, "
            "the handlers pushed %d (%d dropped)", written, pushed, drops)
    workers = sum(th["cpu_ns"] for _, s in logs for th in s["threads"]
                  if th["name"] in ("cpu-1", "cpu-2"))
    t.close_to(workers / r.num("workers_cpu_ns"), 1.0, 0.05,
               "-agentpath: the workers' CPU over all files / what they measured")
    check_merge(t, [f for f, _ in logs])
    r = t.flyprof("summary --json of all", ["summary", "--json"] + [f for f, _ in logs])
    t.check(r.returncode == 0, "summary of %d logs: exit %s: %s", len(logs), r.returncode,
            r.stderr[-300:])
    whole = json.loads(r.stdout)
    span = sum(s["duration_ns"] for _, s in logs)
    t.note("summary of all %d logs: %d cpu samples (files: %d), duration %.3f s (files: %.3f s), "
           "complete %s", len(logs), whole["cpu"]["samples"], written, whole["duration_ns"] / 1e9,
           span / 1e9, whole["log_state"]["complete"])
    t.check(whole["cpu"]["samples"] + whole["wall"]["samples"] == written and
            whole["log_state"]["complete"] and abs(whole["duration_ns"] - span) <= 2000000,
            "summary of %d logs: %d samples (want %d), duration %d ns (want %d), complete %s",
            len(logs), whole["cpu"]["samples"], written, whole["duration_ns"], span,
            whole["log_state"]["complete"])

    cmd = [t.java, "-agentpath:%s=cpu=10ms,loop=1s,keep=2,file=%s" % (
        t.agent, t.path("r.collapsed")), "-cp", t.jar, ft.WORKLOAD_PKG + "CpuBound", "4", "2"]
    r = t.run("rendered", cmd, 120)
    t.check_jvm(r)
    left = sorted(os.listdir(t.tmp))
    outs = [f for f in left if re.match(r"r-\d{6}\.collapsed$", f)]
    t.note("rendered: files left %s", [f for f in left if f.startswith("r-")])
    t.check(len(outs) == 2 and not [f for f in left if f.startswith("r-") and
                                    f.endswith(".fpl")],
            "rendered: keep=2 left %s", [f for f in left if f.startswith("r-")])
    nums = [int(f[2:8]) for f in outs]
    t.check(nums[1] == nums[0] + 1 and nums[0] >= 2, "rendered: kept %s, not the newest", outs)
    for f in outs:
        with open(t.path(f)) as fh:
            p = ft.Profile.parse(fh.read(), False)
        t.check(p.weight(lambda s: any("CpuBound" in x for x in s)) > 0,
                "rendered: %s has no CpuBound stacks", f)

    jvm = ac.Jvm(t, "attached", "CpuBound", [RUN_S + 20, 2], ready_thread="cpu-2")
    out = t.path("att.fpl")
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-o", out, "-i", "10ms", "--loop", "2s",
                                "--keep", "2"])
    ac.expect(t, r, 0, "profiling process %d" % jvm.pid)
    time.sleep(7)
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0)
    rc = jvm.stop()
    t.check(rc in (0, -15, 143), "attached: the JVM exited with status %s", rc)
    logs = summaries(t, t.path("att-*.fpl"), "attached")
    nums = numbers(logs)
    t.note("attached: files left %s", nums)
    t.check(len(logs) == 2 and nums[1] == nums[0] + 1 and nums[0] >= 2,
            "attached: keep=2 left files %s (want the newest two of at least three)", nums)
    check_seams(t, logs, "attached")

    d = t.path("api")
    os.makedirs(d, exist_ok=True)
    r = t.run("api", [t.java, "-agentpath:%s=idle" % t.agent, "-cp", t.jar,
                      ft.WORKLOAD_PKG + "ApiUse", "loop", d], 120)
    t.check_jvm(r)
    t.check("api start ok" in r.stdout and "api stop ok" in r.stdout,
            "api: Flyprof.start/stop with loop= said %s", r.stdout[-400:])
    logs = summaries(t, os.path.join(d, "l-*.fpl"), "api")
    nums = numbers(logs)
    t.note("api: files left %s", nums)
    t.check(len(logs) == 3 and nums == list(range(nums[0], nums[0] + 3)) and nums[0] >= 2,
            "api: keep=3 left files %s (want the newest three of at least four)", nums)
    check_seams(t, logs, "api")


if __name__ == "__main__":
    ac.main(body, "loop= rotates the output with no sample lost at a seam; keep= bounds files")
