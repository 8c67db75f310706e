#!/usr/bin/env python3
"""jfr_read: flyprof reads JFR: `flyprof convert x.jfr` and `flyprof summary x.jfr` take a
recording of the JDK (or async-profiler's, or flyprof's own) as they take a .fpl log.

- A JDK recording: Split123 for 3 s under -XX:StartFlightRecording (settings=profile: 10 ms
  execution samples) on the JDK under test. `flyprof convert x.jfr --raw-names` folds its
  jdk.ExecutionSample events, without and with thread roots, into exactly the lines and
  counts the JDK's own reader folds (java/JfrCheck.java on RecordingFile: each event one
  sample, stack for stack); `summary` counts as many CPU samples as there are events; the
  flame graph page is written; a diff of the recording against itself is written.
- flyprof's own JFR read back: a log of Split123 (cpu=10ms,wall=20ms) written as JFR with both
  kinds and read again gives the CPU fold of the log exactly, and its wall samples
  (flyprof.WallSample) fold, with threads and states, as the JDK's reader folds them.
- damage: the recording cut in the middle, a chunk whose version is 9, a chunk header whose
  offsets or size are zeroed each give exit 1 and a message naming the file, the chunk and
  what was wrong; no output file is left; a text file named .jfr is "not a JFR recording".
  (Damage deeper in a chunk is fuzz_jfr's.)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import jfr_common as jc  # noqa: E402


def test(t):
    # a recording of the JDK
    rec = t.path("jdk.jfr")
    r = t.run("java -XX:StartFlightRecording", [
        t.java, "-XX:StartFlightRecording=filename=%s,settings=profile" % rec, "-cp", t.jar,
        ft.WORKLOAD_PKG + "Split123", "3"], 180)
    t.check(r.returncode == 0 and os.path.isfile(rec), "the JVM with JFR failed: %s",
            r.stderr[-1500:])
    for threads in (False, True):
        seen, events, _ = jc.jdk_fold(t, rec, threads=threads)
        args = ["--raw-names"] + (["--threads"] if threads else [])
        want = jc.folded(t, rec, args, "jdk" + ("_threads" if threads else ""))
        t.check(events >= 50, "the JDK recorded only %d execution samples", events)
        jc.same(t, want, seen, "JDK recording%s: flyprof's fold vs RecordingFile's"
                % (" with threads" if threads else ""))
    r = t.flyprof("summary x.jfr", ["summary", rec])
    t.check(r.returncode == 0 and ("cpu          %d samples" % events) in r.stdout,
            "summary of the recording (want %d cpu samples): %s %s", events, r.stdout[:800],
            r.stderr)
    page = t.path("jdk.html")
    r = t.flyprof("convert x.jfr -o x.html", ["convert", rec, "-o", page])
    t.check(r.returncode == 0 and os.path.getsize(page) > 10000, "no page: %s", r.stderr)
    r = t.flyprof("diff x.jfr x.jfr", ["diff", rec, rec, "-o", t.path("d.html")])
    t.check(r.returncode == 0, "diff of two recordings: %s", r.stderr)

    # flyprof's own JFR, read back
    _, fpl = t.run_java("split", "Split123", [3], agent_options="cpu=10ms,wall=20ms")
    own = jc.convert_jfr(t, fpl, ["--kind", "all"], "own")
    want = jc.folded(t, fpl, [], "own_cpu")
    jc.same(t, jc.folded(t, own, ["--raw-names"], "own_back"), want,
            "flyprof's JFR read back vs its log (cpu)")
    wseen, _, _ = jc.jdk_fold(t, own, threads=True, states=True, event="flyprof.WallSample")
    jc.same(t, jc.folded(t, own, ["--raw-names", "--kind", "wall", "--threads"], "own_wall"),
            wseen, "flyprof's JFR read back (wall) vs RecordingFile's flyprof.WallSample")

    # damage
    with open(rec, "rb") as f:
        data = f.read()
    cases = [("cut", data[:len(data) // 2], "truncated"),
             ("version", data[:4] + b"\x00\x09" + data[6:], "format version 9"),
             ("offsets", data[:16] + bytes(16) + data[32:], "outside the chunk"),
             ("size", data[:8] + bytes(8) + data[16:], "smaller than a chunk header")]
    for name, blob, needle in cases:
        bad = t.path("bad_%s.jfr" % name)
        with open(bad, "wb") as f:
            f.write(blob)
        out = t.path("bad_%s.collapsed" % name)
        r = t.flyprof("convert damaged (%s)" % name, ["convert", bad, "-o", out])
        t.note("%s: exit %d: %s", name, r.returncode, r.stderr.strip()[:300])
        t.check(r.returncode == 1 and needle in r.stderr and "JFR chunk 1" in r.stderr
                and bad in r.stderr, "damaged recording (%s): exit %d, %r (want %r)", name,
                r.returncode, r.stderr, needle)
        t.check(not os.path.exists(out), "an output was left for a damaged input (%s)", name)
    bogus = t.path("bogus.jfr")
    with open(bogus, "w") as f:
        f.write("not a recording\n")
    r = t.flyprof("convert bogus.jfr", ["convert", bogus, "-o", t.path("bogus.html")])
    t.check(r.returncode == 1 and "not a JFR recording" in r.stderr, "a text file named .jfr: "
            "exit %d, %r", r.returncode, r.stderr)


if __name__ == "__main__":
    ft.main(test, "flyprof reads JFR recordings")
