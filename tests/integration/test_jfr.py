#!/usr/bin/env python3
"""jfr: `flyprof convert X.fpl -o X.jfr` read by the JDK's own JFR reader, which must give the
same stacks and weights as `flyprof convert -o X.collapsed` of the same log, exactly.

Split123 (see Split123.java) burns its worker's CPU in unitA, unitB and unitC in the ratio
1:2:3. The JVM runs under cpu=10ms,wall=20ms. The log is converted to JFR and to folded stacks
with the same selection, and the JFR is read back by the JDK under test two ways:
java/JfrCheck.java on jdk.jfr.consumer.RecordingFile (the API of `jfr`, JMC and IntelliJ),
and `jfr print --json` folded in Python (jfr_common.py). Asserts:
- CPU (the default kind): jdk.ExecutionSample folded, without and with thread roots, equals the
  folded output line for line and count for count (a sample of weight w is w events); the
  JSON fold equals it too; the file holds no other sample events; the units' shares read from
  the JFR are 1:2:3 within 5 points;
- frames: the JSON shows Java frames typed by how they ran (JIT compiled or Inlined among
  them), and Split123.kernel frames with line numbers and bytecode indices;
- wall (--kind wall): jdk.ExecutionSample with thread states equals the folded wall output
  with thread roots and state leaves;
- both kinds (--kind all): jdk.ExecutionSample equals the CPU fold, flyprof.WallSample the wall
  fold (the two kinds never share an event type);
- selections carry over (--include, --from/--to, --exclude, --kind wall --state running):
  equal to the folded output of the same selection;
- chunks: --chunk-size 1k splits the file into several chunks whose constant-pool keys recur
  (every chunk re-lists the threads and stacks it uses), and the fold is still equal;
- times: each event is at its own sample's time (the log's CPU samples read by the tests'
  reader, sorted, against the events' times: median under 50 us, none over 500 us off; the
  timeline's bins, the way without a temporary file, are 1-2 ms apart and fail this); with an
  unusable TMPDIR convert warns naming it and still writes the same stacks and weights; the
  events span at least half the run, and --chunk-time 1s cuts the file into two chunks or
  more, still equal;
- what the readers require (JFR.md section 5): every chunk header's sizes tile the file, its
  offsets are inside it, its start ticks, start time and duration are positive, its state is
  finished, flag bit 0 (compressed integers) is set and bit 1 (final) only on the last;
  jdk.ExecutionSample has the JDK's four fields in the JDK's order, startTime a TICKS
  timestamp;
- jdk.ActiveSetting carries the sampling period and the agent's options;
- `--format jfr` writes JFR to a path without the extension; --chunk-size on another format,
  and a malformed size, are usage errors naming the option.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import jfr_common as jc  # noqa: E402

SECONDS = 3
PKG = "dev.flyprof.workload.Split123."


def unit_shares(lines):
    w = {u: 0 for u in ("unitA", "unitB", "unitC")}
    for stack, n in lines.items():
        for u in w:
            if PKG + u in stack.split(";"):
                w[u] += n
    total = sum(w.values())
    return {u: (v / total if total else 0.0) for u, v in w.items()}


def test(t):
    _, fpl = t.run_java("split", "Split123", [SECONDS], agent_options="cpu=10ms,wall=20ms")

    # CPU, the default kind
    jfr = jc.convert_jfr(t, fpl, [], "cpu")
    want = jc.folded(t, fpl, [], "cpu")
    want_t = jc.folded(t, fpl, ["--threads"], "cpu_threads")
    t.check(sum(want.values()) > 100, "too few CPU samples: %d", sum(want.values()))
    seen, events, types = jc.jdk_fold(t, jfr)
    jc.same(t, seen, want, "cpu: RecordingFile vs folded")
    t.check(events == sum(want.values()), "jdk.ExecutionSample events %d, folded weight %d",
            events, sum(want.values()))
    t.check(set(types) <= {"jdk.ExecutionSample", "jdk.ActiveSetting"},
            "unexpected event types in a CPU file: %s", types)
    seen_t, _, _ = jc.jdk_fold(t, jfr, threads=True)
    jc.same(t, seen_t, want_t, "cpu with threads: RecordingFile vs folded")
    jc.same(t, jc.json_fold(t, jfr), want, "cpu: jfr print --json vs folded")
    shares = unit_shares(seen)
    for u, want_share in (("unitA", 1 / 6), ("unitB", 2 / 6), ("unitC", 3 / 6)):
        t.close_to(shares[u], want_share, 0.05, "%s share in the JFR" % u)

    # frames: types, lines and bytecode indices, from the JDK's JSON
    r = t.run("jfr print frames", [jc.jdk_bin(t, "jfr"), "print", "--json", "--stack-depth",
                                   "100000", "--events", "jdk.ExecutionSample", jfr], 300)
    t.check(r.returncode == 0, "jfr print failed: %s", r.stderr[-1000:])
    ftypes, kernel_lines = {}, set()
    for e in json.loads(r.stdout)["recording"]["events"]:
        for f in e["values"]["stackTrace"]["frames"]:
            ftypes[f["type"]] = ftypes.get(f["type"], 0) + 1
            m = f["method"]
            if m["name"] == "kernel" and m["type"]["name"].endswith("Split123"):
                t.check(m["descriptor"].startswith("(") and ")" in m["descriptor"],
                        "kernel's descriptor %r", m["descriptor"])
                if f["lineNumber"] > 0 and f["bytecodeIndex"] >= 0:
                    kernel_lines.add(f["lineNumber"])
    t.note("frame types: %s; kernel lines %s", ftypes, sorted(kernel_lines))
    t.check(ftypes.get("JIT compiled", 0) + ftypes.get("Inlined", 0) > 0,
            "no compiled or inlined frames: %s", ftypes)
    t.check(kernel_lines, "no Split123.kernel frame with a line number and bytecode index")

    # wall, alone: jdk.ExecutionSample with the thread states
    wjfr = jc.convert_jfr(t, fpl, ["--kind", "wall"], "wall")
    wwant = jc.folded(t, fpl, ["--kind", "wall", "--threads"], "wall_threads")
    t.check(sum(wwant.values()) > 50, "too few wall samples: %d", sum(wwant.values()))
    wseen, _, _ = jc.jdk_fold(t, wjfr, threads=True, states=True)
    jc.same(t, wseen, wwant, "wall with threads and states: RecordingFile vs folded")

    # both kinds: CPU as jdk.ExecutionSample, wall as flyprof.WallSample
    ajfr = jc.convert_jfr(t, fpl, ["--kind", "all"], "all")
    aseen, _, atypes = jc.jdk_fold(t, ajfr)
    jc.same(t, aseen, want, "all: jdk.ExecutionSample vs cpu folded")
    awseen, _, _ = jc.jdk_fold(t, ajfr, threads=True, states=True, event="flyprof.WallSample")
    jc.same(t, awseen, wwant, "all: flyprof.WallSample vs wall folded")

    # a selection
    sjfr = jc.convert_jfr(t, fpl, ["--include", "unitB"], "unitB")
    sseen, _, _ = jc.jdk_fold(t, sjfr)
    swant = jc.folded(t, fpl, ["--include", "unitB"], "unitB")
    t.check(swant and sum(swant.values()) < sum(want.values()), "--include unitB selected %s",
            sum(swant.values()))
    jc.same(t, sseen, swant, "--include unitB: RecordingFile vs folded")

    # the other selection options: a window, an exclusion, a state filter (whose folded
    # lines, filtering one state, end in no state leaf)
    for i, sel in enumerate([["--from", "1s", "--to", "2.5s"], ["--exclude", "kernel"],
                             ["--kind", "wall", "--state", "running"]]):
        xjfr = jc.convert_jfr(t, fpl, sel, "sel%d" % i)
        xseen, _, _ = jc.jdk_fold(t, xjfr, threads=True)
        xwant = jc.folded(t, fpl, sel + ["--threads"], "sel%d" % i)
        t.check(xwant, "%s selected nothing", " ".join(sel))
        jc.same(t, xseen, xwant, "%s: RecordingFile vs folded" % " ".join(sel))

    # chunks
    mjfr = jc.convert_jfr(t, fpl, ["--chunk-size", "1k"], "chunks")
    n = jc.chunks(t, mjfr)
    t.note("--chunk-size 1k: %d chunks", n)
    t.check(n >= 3, "--chunk-size 1k gave %d chunks", n)
    mseen, _, mtypes = jc.jdk_fold(t, mjfr, threads=True)
    jc.same(t, mseen, want_t, "%d chunks: RecordingFile vs folded" % n)
    t.check(mtypes.get("jdk.ActiveSetting", 0) >= n * 2, "settings not in every chunk: %s",
            mtypes)
    jc.same(t, jc.json_fold(t, mjfr), want, "%d chunks: jfr print --json vs folded" % n)

    # times: events at their samples' times, chunks cut by time too
    times = jc.event_times_us(t, jfr)
    span = (times[-1] - times[0]) / 1e6 if times else 0.0
    t.note("sample times span %.3f s", span)
    t.check(span >= SECONDS / 2, "the samples of a %d s run span %.3f s", SECONDS, span)
    # each event at its own sample's time
    jc.check_sample_times(t, jfr, fpl, "cpu")
    # without a temporary file for the samples: a warning, and events at the timeline's bins,
    # with the same stacks and weights
    bjfr = t.path("bins.jfr")
    r = t.run("convert without TMPDIR", [t.cli, "convert", fpl, "-o", bjfr], 120,
              env={"TMPDIR": t.path("no-such-dir")})
    t.check(r.returncode == 0 and "no-such-dir" in r.stderr and "timeline's bins" in r.stderr,
            "convert with an unusable TMPDIR: %s %s", r.returncode, r.stderr)
    bseen, _, _ = jc.jdk_fold(t, bjfr)
    jc.same(t, bseen, want, "timeline bins: RecordingFile vs folded")
    tjfr = jc.convert_jfr(t, fpl, ["--chunk-time", "1s"], "chunk_time")
    n = jc.chunks(t, tjfr)
    t.note("--chunk-time 1s: %d chunks", n)
    t.check(n >= 2, "--chunk-time 1s on %.1f s of samples gave %d chunk(s)", span, n)
    tseen, _, _ = jc.jdk_fold(t, tjfr, threads=True)
    jc.same(t, tseen, want_t, "--chunk-time 1s: RecordingFile vs folded")

    # what the readers require of headers and layouts (JFR.md section 5)
    t.note("chunk headers: %d and %d chunks checked", jc.check_headers(t, jfr),
           jc.check_headers(t, mjfr))
    jc.check_event_layout(t, jfr)

    # settings
    r = t.run("jfr print settings", [jc.jdk_bin(t, "jfr"), "print", "--json", "--events",
                                     "jdk.ActiveSetting", jfr], 120)
    t.check(r.returncode == 0, "jfr print settings failed: %s", r.stderr[-1000:])
    settings = {(e["values"]["name"], e["values"]["value"])
                for e in json.loads(r.stdout)["recording"]["events"]}
    t.note("settings: %s", sorted(settings))
    t.check(("period", "10000000 ns") in settings, "no CPU period setting: %s", settings)
    t.check(("flyprof.wall", "20ms") in settings, "no agent option setting: %s", settings)

    # --format, and usage errors
    out = t.path("noext")
    r = t.flyprof("convert --format jfr", ["convert", fpl, "--format", "jfr", "-o", out])
    t.check(r.returncode == 0, "--format jfr failed: %s", r.stderr)
    fseen, _, _ = jc.jdk_fold(t, out)
    jc.same(t, fseen, want, "--format jfr: RecordingFile vs folded")
    r = t.flyprof("chunk-size on html", ["convert", fpl, "--chunk-size", "4k", "-o",
                                         t.path("x.html")])
    t.check(r.returncode == 2 and "--chunk-size" in r.stderr, "--chunk-size with .html: %s %s",
            r.returncode, r.stderr)
    r = t.flyprof("bad chunk-size", ["convert", fpl, "--chunk-size", "12Q", "-o",
                                     t.path("y.jfr")])
    t.check(r.returncode == 2 and "'12Q'" in r.stderr, "--chunk-size 12Q: %s %s", r.returncode,
            r.stderr)


if __name__ == "__main__":
    ft.main(test, "JFR output read back by the JDK's reader")
