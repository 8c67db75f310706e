"""jfr_common: what the JFR tests share: the JDK's own readers as oracles.

- `jdk_fold(t, jfr, ...)` runs java/JfrCheck.java (jdk.jfr.consumer.RecordingFile) with the
  source launcher of the JDK under test and returns its folded lines {line: count}, the number
  of events it folded and the count of every event type it read;
- `json_fold(t, jfr, ...)` folds `jfr print --json` of the same JDK by the same rules (the
  `jfr` tool's own parser and JSON writer, a second way through the JDK's reader);
- `folded(t, fpl, args)` is `flyprof convert` to folded lines, parsed.
Folding rules (JFR.md): a frame is CLASS.METHOD (the class as the reader names it), METHOD
alone when the class is "" or the frame is not Java code (C++, Kernel, Stub, Marker, or Native
whose class has no package: the JDK's Native frames are Java methods declared native); with
states, a wall line ends with its thread state's frame.
"""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "java", "JfrCheck.java")
STATES = {
    "STATE_RUNNABLE": "[running]",
    "STATE_BLOCKED_ON_MONITOR_ENTER": "[blocked]",
    "STATE_IN_OBJECT_WAIT": "[waiting]",
    "STATE_IN_OBJECT_WAIT_TIMED": "[timed_waiting]",
    "STATE_PARKED": "[parked]",
    "STATE_SLEEPING": "[sleeping]",
    "STATE_IN_NATIVE": "[native]",
    "STATE_JVM_IDLE": "[jvm_idle]",
}
NOT_JAVA = {"C++", "Kernel", "Stub", "Marker"}


def jdk_bin(t, tool):
    return os.path.join(os.path.dirname(os.path.realpath(t.java)), tool)


def parse_folded(text):
    lines = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        stack, _, n = line.rpartition(" ")
        lines[stack] = lines.get(stack, 0) + int(n)
    return lines


def jdk_fold(t, jfr, threads=False, states=False, event="jdk.ExecutionSample", name=None,
             where=()):
    """Folds jfr's events of type event (those whose fields read as `where`'s FIELD=VALUE)
    with JfrCheck on the JDK under test. Returns (lines, events, types)."""
    cmd = [t.java, CHECKER]
    for w in where:
        cmd += ["--where", w]
    cmd += ["--threads"] if threads else []
    cmd += ["--states"] if states else []
    cmd += ["--type", event, jfr]
    r = t.run(name or "JfrCheck " + os.path.basename(jfr), cmd, 300)
    t.check(r.returncode == 0, "JfrCheck failed on %s (exit %s): %s", jfr, r.returncode,
            r.stderr.strip()[-2000:])
    m = re.search(r"^events (\d+)$", r.stderr, re.M)
    tm = re.search(r"^types(.*)$", r.stderr, re.M)
    t.check(m and tm, "JfrCheck printed no counts: %s", r.stderr[-500:])
    types = {}
    for kv in tm.group(1).split():
        k, _, v = kv.rpartition(":")
        types[k] = int(v)
    return parse_folded(r.stdout), int(m.group(1)), types


def json_fold(t, jfr, threads=False, states=False, event="jdk.ExecutionSample"):
    """Folds the events of `jfr print --json --events EVENT` by JfrCheck's rules."""
    r = t.run("jfr print --json " + os.path.basename(jfr),
              [jdk_bin(t, "jfr"), "print", "--json", "--stack-depth", "100000", "--events",
               event, jfr], 300)
    t.check(r.returncode == 0, "jfr print --json failed on %s: %s", jfr, r.stderr[-2000:])
    doc = json.loads(r.stdout)
    lines = {}
    for e in doc["recording"]["events"]:
        if e["type"] != event:
            continue
        v = e["values"]
        parts = [v["sampledThread"]["javaName"]] if threads else []
        for f in reversed(v["stackTrace"]["frames"]):
            cls = f["method"]["type"]["name"].replace("/", ".")
            name = f["method"]["name"]
            cfunc = f["type"] == "Native" and not f["method"]["type"].get("package")
            parts.append(name if not cls or cfunc or f["type"] in NOT_JAVA else cls + "." + name)
        if states and v.get("state") in STATES:
            parts.append(STATES[v["state"]])
        key = ";".join(parts)
        lines[key] = lines.get(key, 0) + 1
    return lines


def folded(t, fpl, args, name):
    """`flyprof convert fpl args -o NAME.collapsed`, parsed."""
    out = t.path(name + ".collapsed")
    r = t.flyprof("convert " + name, ["convert", fpl, "-o", out] + list(args))
    t.check(r.returncode == 0, "convert %s failed: %s", name, r.stderr)
    with open(out, encoding="utf-8") as f:
        return parse_folded(f.read())


def convert_jfr(t, fpl, args, name):
    out = t.path(name + ".jfr")
    r = t.flyprof("convert " + name + ".jfr", ["convert", fpl, "-o", out] + list(args))
    t.check(r.returncode == 0, "convert to %s.jfr failed: %s", name, r.stderr)
    return out


def same(t, seen, want, what):
    """Checks two folded profiles are equal line for line; names the first differences."""
    if seen == want:
        t.note("%s: %d lines, %d samples, equal", what, len(want), sum(want.values()))
        return
    diff = []
    for k in sorted(set(seen) | set(want)):
        if seen.get(k) != want.get(k):
            diff.append("  %s: jfr %s, folded %s" % (k[-160:], seen.get(k), want.get(k)))
    t.check(False, "%s: %d lines differ (jfr total %d, folded total %d):\n%s", what, len(diff),
            sum(seen.values()), sum(want.values()), "\n".join(diff[:12]))


def chunks(t, jfr):
    """The number of chunks `jfr summary` counts."""
    r = t.run("jfr summary " + os.path.basename(jfr), [jdk_bin(t, "jfr"), "summary", jfr], 120)
    t.check(r.returncode == 0, "jfr summary failed on %s: %s", jfr, r.stderr[-1000:])
    m = re.search(r"Chunks:\s+(\d+)", r.stdout)
    t.check(m, "jfr summary printed no chunk count: %s", r.stdout[:500])
    return int(m.group(1))
