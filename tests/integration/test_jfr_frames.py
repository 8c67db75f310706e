#!/usr/bin/env python3
"""jfr_frames: native frames and wall thread states in JFR, read by the JDK's reader.

- Native frames (NativeFrames, 3 s, cpu=10ms: `read-worker` in FileInputStream.readBytes ->
  libjava's readBytes -> libc's read, `deflate-worker` in Deflater -> zlib): the JFR folds, with
  thread roots, into exactly the folded output's lines (C functions named alone, as flyprof
  names them); in `jfr print --json`, C functions are frames of type Native whose class is
  their module (a file name such as libc.so.6 or libzip.so, without a package), and most of
  deflate-worker's samples hold such a frame below Deflater's JNI method.
- Wall states (WallStates, 3 s, wall=20ms: threads busy, sleeper, parker, blocked, each in one
  state): a wall-only file folds, with threads and state leaves, into exactly the folded
  output; each of the four threads' events carry its own HotSpot state name for >= 80% of
  them (STATE_RUNNABLE, STATE_SLEEPING, STATE_PARKED, STATE_BLOCKED_ON_MONITOR_ENTER).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import jfr_common as jc  # noqa: E402

STATES = {"busy": "STATE_RUNNABLE", "sleeper": "STATE_SLEEPING", "parker": "STATE_PARKED",
          "blocked": "STATE_BLOCKED_ON_MONITOR_ENTER"}


def events(t, jfr, event):
    r = t.run("jfr print " + event, [jc.jdk_bin(t, "jfr"), "print", "--json", "--stack-depth",
                                     "100000", "--events", event, jfr], 300)
    t.check(r.returncode == 0, "jfr print failed: %s", r.stderr[-1000:])
    return json.loads(r.stdout)["recording"]["events"]


def native(t):
    _, fpl = t.run_java("native", "NativeFrames", [3])
    jfr = jc.convert_jfr(t, fpl, [], "native")
    seen, _, _ = jc.jdk_fold(t, jfr, threads=True)
    jc.same(t, seen, jc.folded(t, fpl, ["--threads"], "native"), "native frames with threads")
    modules, deflate, below = set(), 0, 0
    for e in events(t, jfr, "jdk.ExecutionSample"):
        frames = e["values"]["stackTrace"]["frames"]
        for f in frames:
            if f["type"] == "Native" and not f["method"]["type"].get("package"):
                modules.add(f["method"]["type"]["name"])
        if e["values"]["sampledThread"]["javaName"] != "deflate-worker":
            continue
        names = [f["method"]["name"] for f in frames]
        jni = [i for i, n in enumerate(names) if n.startswith("deflateBytes")]
        if jni:
            deflate += 1
            below += any(f["type"] == "Native" and not f["method"]["type"].get("package")
                         for f in frames[:jni[0]])
    t.note("C function modules: %s; deflate-worker: %d samples in Deflater's JNI method, %d "
           "with C frames below", sorted(modules), deflate, below)
    t.check(any(".so" in m for m in modules), "no C function frame with a module: %s",
            sorted(modules))
    t.check(deflate >= 20 and below >= 0.75 * deflate, "%d of %d deflate samples have C frames "
            "below the JNI method", below, deflate)


def wall(t):
    _, fpl = t.run_java("states", "WallStates", [3], agent_options="wall=20ms")
    jfr = jc.convert_jfr(t, fpl, ["--kind", "wall"], "states")
    seen, _, _ = jc.jdk_fold(t, jfr, threads=True, states=True)
    jc.same(t, seen, jc.folded(t, fpl, ["--kind", "wall", "--threads"], "states"),
            "wall states with threads")
    per = {}
    for e in events(t, jfr, "jdk.ExecutionSample"):
        name = e["values"]["sampledThread"]["javaName"]
        if name in STATES:
            d = per.setdefault(name, {})
            d[e["values"]["state"]] = d.get(e["values"]["state"], 0) + 1
    for name, state in STATES.items():
        d = per.get(name, {})
        n = sum(d.values())
        t.note("%s: %s", name, d)
        t.check(n >= 50 and d.get(state, 0) >= 0.8 * n, "%s's states in the JFR: %s (want "
                "%s for 80%%)", name, d, state)


def test(t):
    native(t)
    wall(t)


if __name__ == "__main__":
    ft.main(test, "native frames and wall states in JFR")
