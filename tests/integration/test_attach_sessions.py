#!/usr/bin/env python3
"""attach_sessions: sessions started and stopped by hand, the output chosen at stop, an agent
loaded idle, and a target that dies during `flyprof attach`.

Split123 JVMs (tests/integration/test_attach_common.py). Asserts:
- loaded idle (-agentpath:...=idle): status says loaded, not profiling, and no log exists;
  `start -e cpu,wall --wall 20ms -o s1.fpl` says it samples cpu every 10ms and wall every 20ms;
  `stop -o s1.html` writes a flame graph there (s1.fpl, the log named at start, stays whole),
  with a timeline: a CPU row for the worker, bins that sum to the page's total;
  `start -o s2.html` then `stop -o s2.fpl` leaves the complete log at s2.fpl and no s2.html;
  a bad stop output (`-o x.svg`) fails and profiling goes on;
- attached: `attach -d 1.5s` writes a log whose options are what the user asked (no start,
  reply= or safety=) and whose agent version is the CLI's; `start -o b.fpl`, `dump -o
  b-now.txt` (a text report while running), `stop -o b.collapsed` (folded stacks; b.fpl
  stays whole);
- killed: SIGKILL to the JVM during `attach -d 30` makes attach exit 1 saying the log is
  readable up to its last complete chunk, and that log reads (summary --json: samples > 0,
  complete false).
"""
import json
import os
import signal
import subprocess
import time

import test_attach_common as ac


DIGITS_END = "#$%()*+,-./0123456789:;=?@ABCDEFGHIJKLMNOPQR"
DIGITS_MORE = "STUVWXYZ[]^_`abcdefghijklmnopqrstuvwxyz{|}~!"


def numbers(s):
    """The numbers of a string in the page's digit encoding (collector/render/out_html.h)."""
    v, mul = 0, 1
    for c in s:
        if c in DIGITS_END:
            yield v + DIGITS_END.index(c) * mul
            v, mul = 0, 1
        else:
            v += DIGITS_MORE.index(c) * mul
            mul *= 44


def check_timeline(t, page, name):
    """The page an attached agent rendered at stop has a timeline: a row for the worker with
    CPU marks, and per-bin stack entries that sum to the page's total (out_html_timeline.h)."""
    a = page.index('id="fp-data">') + len('id="fp-data">')
    d = json.loads(page[a:page.index("</script>", a)])
    tl = d.get("tl")
    t.check(tl is not None, "%s has no timeline", name)
    if tl is None:
        return
    rows = {r[0]: list(numbers(r[1])) for r in tl["rows"]}
    worker = rows.get("split-worker", [])
    t.check(worker and 0 in worker[1::3], "%s: no CPU marks for split-worker (rows %s)", name,
            sorted(rows))
    nums, total, k = list(numbers(tl["stk"])), 0, 0
    for _ in range(tl["nbins"]):
        m = nums[k]
        total += sum(nums[k + 2:k + 1 + 2 * m:2])
        k += 1 + 2 * m
    t.check(k == len(nums) and abs(total - d["total"]) <= tl["nbins"],
            "%s: bins sum to %d, the page's total is %d", name, total, d["total"])
    t.note("%s: timeline of %d rows, %d bins of %.3f ms, bins sum to %d of %d", name,
           len(rows), tl["nbins"], tl["bin_ns"] / 1e6, total, d["total"])


def summary_json(t, path):
    r = ac.flyprof(t, "summary --json " + os.path.basename(path), ["summary", "--json", path])
    ac.expect(t, r, 0)
    return json.loads(r.stdout)


def wait_profiling(t, jvm, what):
    for _ in range(100):
        out = ac.status(t, jvm, "status " + what)
        if "flyprof is profiling" in out:
            return out
        time.sleep(0.1)
    t.check(False, "%s: never profiling", what)


def idle(t):
    jvm = ac.Jvm(t, "idle", "Split123", [120], jvm_options=["-agentpath:%s=idle" % t.agent])
    out = ac.status(t, jvm, "status idle")
    t.check("flyprof is loaded, not profiling" in out, "idle JVM's status: %r", out)
    t.check(not [f for f in os.listdir(t.tmp) if f.startswith("flyprof-")],
            "the idle agent wrote %s", os.listdir(t.tmp))
    s1, h1 = t.path("s1.fpl"), t.path("s1.html")
    t.logs.append(s1)
    r = ac.flyprof(t, "start s1", ["start", jvm.pid, "-e", "cpu,wall", "--wall", "20ms", "-o",
                                   s1])
    ac.expect(t, r, 0, "cpu every 10ms, wall every 20ms", s1)
    time.sleep(1.5)
    r = ac.flyprof(t, "stop -o x.svg", ["stop", jvm.pid, "-o", t.path("x.svg")])
    t.check(r.returncode != 0 and "unknown format" in r.stderr, "stop -o x.svg: exit %s: %s",
            r.returncode, r.stderr)
    wait_profiling(t, jvm, "after a refused stop")
    r = ac.flyprof(t, "stop -o s1.html", ["stop", jvm.pid, "-o", h1])
    ac.expect(t, r, 0, "profile written to " + h1)
    with open(h1, encoding="utf-8") as f:
        page = f.read()
    t.check(page.startswith("<!DOCTYPE html") and "Split123" in page,
            "s1.html is no flame graph of the run (%d bytes)", len(page))
    check_timeline(t, page, "s1.html")
    j1 = summary_json(t, s1)
    t.check(j1["log_state"]["complete"] and j1["cpu"]["samples"] > 0 and j1["wall"]["samples"] > 0,
            "s1.fpl: %s %s %s", j1["log_state"], j1["cpu"]["samples"], j1["wall"]["samples"])
    t.check(j1["interval_ns"] == {"cpu": 10_000_000, "wall": 20_000_000}, "s1 intervals %s",
            j1["interval_ns"])
    ac.expect(t, ac.flyprof(t, "status after stop", ["status", jvm.pid]), 0,
              "not profiling", h1)

    s2h, s2 = t.path("s2.html"), t.path("s2.fpl")
    t.logs.append(s2)
    r = ac.flyprof(t, "start s2", ["start", jvm.pid, "-o", s2h])
    ac.expect(t, r, 0)
    time.sleep(1.5)
    r = ac.flyprof(t, "stop -o s2.fpl", ["stop", jvm.pid, "-o", s2])
    ac.expect(t, r, 0, "profile written to " + s2)
    j2 = summary_json(t, s2)
    t.check(j2["log_state"]["complete"] and j2["cpu"]["samples"] > 0, "s2.fpl: %s, %d samples",
            j2["log_state"], j2["cpu"]["samples"])
    t.check(not os.path.exists(s2h), "s2.html (the output named at start) is still there")
    t.note("idle: s1 %d cpu + %d wall samples, s2 %d cpu samples", j1["cpu"]["samples"],
           j1["wall"]["samples"], j2["cpu"]["samples"])
    t.check(jvm.stop() in (0, 143, -signal.SIGTERM), "the idle JVM exited %s",
            jvm.proc.returncode)


def attached(t):
    jvm = ac.Jvm(t, "attached", "Split123", [120])
    a = t.path("a.fpl")
    t.logs.append(a)
    r = ac.flyprof(t, "attach -d 1.5s", ["attach", jvm.pid, "-d", "1.5s", "-o", a])
    ac.expect(t, r, 0, "for 1500ms", "profile written to " + a)
    ja = summary_json(t, a)
    for word in ("safety", "reply", "start"):
        t.check(word not in ja["options"], "a.fpl's options show %r: %r", word, ja["options"])
    t.check(ja["options"] == "cpu=10ms,file=" + a, "a.fpl's options %r", ja["options"])
    v = ac.flyprof(t, "--version", ["--version"]).stdout.split()
    t.check(ja["agent"]["version"] == v[-1], "agent version %r, CLI %r", ja["agent"]["version"],
            v)
    t.check(1.4e9 <= ja["duration_ns"] <= 4e9, "a.fpl lasts %d ns for -d 1.5s",
            ja["duration_ns"])

    b, now, folded = t.path("b.fpl"), t.path("b-now.txt"), t.path("b.collapsed")
    t.logs.append(b)
    ac.expect(t, ac.flyprof(t, "start b", ["start", jvm.pid, "-o", b]), 0)
    time.sleep(1.5)
    ac.expect(t, ac.flyprof(t, "dump -o txt", ["dump", jvm.pid, "-o", now]), 0, now)
    with open(now, encoding="utf-8") as f:
        t.check("methods by self weight" in f.read(), "b-now.txt is no text report")
    ac.expect(t, ac.flyprof(t, "stop -o collapsed", ["stop", jvm.pid, "-o", folded]), 0,
              "profile written to " + folded)
    with open(folded, encoding="utf-8") as f:
        lines = f.read().splitlines()
    t.check(lines and any("Split123.kernel" in l for l in lines), "b.collapsed: %s", lines[:3])
    t.check(summary_json(t, b)["log_state"]["complete"], "b.fpl is not complete")


def killed(t):
    jvm = ac.Jvm(t, "killed", "Split123", [120])
    k = t.path("k.fpl")
    t.logs.append(k)
    cmd = [t.cli, "attach", str(jvm.pid), "-d", "30", "-o", k]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, cwd=t.tmp, text=True)
    try:
        wait_profiling(t, jvm, "attach -d 30")
        time.sleep(2.5)  # a chunk is written every second
        os.kill(jvm.pid, signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    t.runs.append(ac.ft.Run("attach, target killed", cmd,
                            subprocess.CompletedProcess(cmd, proc.returncode, out, err), 0,
                            False))
    t.check(proc.returncode == 1, "attach exited %s when its target was killed: %s",
            proc.returncode, err)
    t.check("readable up to its last complete chunk" in err and "completes the profile" not in
            err, "attach said: %r", err)
    jk = summary_json(t, k)
    t.check(jk["cpu"]["samples"] > 0 and jk["log_state"]["complete"] is False,
            "k.fpl: %d samples, %s", jk["cpu"]["samples"], jk["log_state"])
    t.note("killed: k.fpl %d cpu samples in %d chunks", jk["cpu"]["samples"],
           jk["log_state"]["chunks"])


def body(t):
    idle(t)
    attached(t)
    killed(t)


if __name__ == "__main__":
    ac.main(body, "sessions by hand, outputs chosen at stop, idle loading, a killed target")
