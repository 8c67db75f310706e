"""jfr_common: what the JFR tests share: the JDK's own readers as oracles.

- `jdk_fold(t, jfr, ...)` runs java/JfrCheck.java (jdk.jfr.consumer.RecordingFile) with the
  source launcher of the JDK under test and returns its folded lines {line: count}, the number
  of events it folded and the count of every event type it read;
- `json_fold(t, jfr, ...)` folds `jfr print --json` of the same JDK by the same rules (the
  `jfr` tool's own parser and JSON writer, a second way through the JDK's reader);
- `folded(t, fpl, args)` is `flyprof convert` to folded lines, parsed;
- `attach_to_exit(t, ...)` profiles a workload attached (`flyprof start -o x.jfr log=x.fpl`)
  until it exits, the agent's own .jfr written at the JVM's death.
Folding rules (JFR.md): a frame is CLASS.METHOD (the class as the reader names it), METHOD
alone when the class is "" or the frame is not Java code (C++, Kernel, Stub, Marker, or Native
whose class has no package: the JDK's Native frames are Java methods declared native); with
states, a wall line ends with its thread state's frame. Allocation and lock events
(jdk.ObjectAllocationSample, jdk.JavaMonitorEnter, jdk.ThreadPark, flyprof.LiveObject) end
with their class as Java source names it (`byte[]`), as flyprof's class leaf, and with
weights count their weight (bytes) or duration (ns).
"""
import json
import os
import re
import subprocess
import time

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


def thread_ids(t, jfr, name=None):
    """{(Java name, javaThreadId)} of the threads of jfr's jdk.ExecutionSample events, as
    the JDK's reader (RecordedThread.getJavaThreadId) gives them."""
    cmd = [t.java, CHECKER, "--ids", jfr]
    r = t.run(name or "JfrCheck --ids " + os.path.basename(jfr), cmd, 300)
    t.check(r.returncode == 0, "JfrCheck failed on %s (exit %s): %s", jfr, r.returncode,
            r.stderr.strip()[-2000:])
    ids = set()
    for m in re.finditer(r"^thread (.*)=(-?\d+)$", r.stderr, re.M):
        ids.add((m.group(1), int(m.group(2))))
    return ids


def jdk_fold(t, jfr, threads=False, states=False, event="jdk.ExecutionSample", name=None,
             where=(), weights=False):
    """Folds jfr's events of type event (comma-separated types; those whose fields read as
    `where`'s FIELD=VALUE) with JfrCheck on the JDK under test. Returns (lines, events,
    types)."""
    cmd = [t.java, CHECKER] + (["--weights"] if weights else [])
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


PRIMS = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long",
         "F": "float", "D": "double"}
CLASS_FIELDS = ("objectClass", "monitorClass", "parkedClass")


def source_name(n):
    """A class named as the JVM names it (java/lang/String, [B, [[Ljava/lang/Object;) as Java
    source names it (java.lang.String, byte[], java.lang.Object[][])."""
    dims = len(n) - len(n.lstrip("["))
    base = n[dims:]
    if dims and base in PRIMS:
        base = PRIMS[base]
    elif dims and base.startswith("L") and base.endswith(";"):
        base = base[1:-1]
    elif dims:
        return n.replace("/", ".")
    return base.replace("/", ".") + "[]" * dims


def iso_ns(d):
    """An ISO-8601 duration of `jfr print --json` (PT0.004672976S, PT1M2.5S) in ns, exactly."""
    from decimal import Decimal
    m = re.match(r"^PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$", d)
    if not m:
        raise ValueError("not a duration: %r" % d)
    h, mi, sec = m.groups()
    return int((Decimal(h or 0) * 3600 + Decimal(mi or 0) * 60 + Decimal(sec or 0)) * 10**9)


def json_fold(t, jfr, threads=False, states=False, event="jdk.ExecutionSample", weights=False):
    """Folds the events of `jfr print --json --events EVENT` by JfrCheck's rules."""
    r = t.run("jfr print --json " + os.path.basename(jfr),
              [jdk_bin(t, "jfr"), "print", "--json", "--stack-depth", "100000", "--events",
               event, jfr], 300)
    t.check(r.returncode == 0, "jfr print --json failed on %s: %s", jfr, r.stderr[-2000:])
    doc = json.loads(r.stdout)
    lines = {}
    for e in doc["recording"]["events"]:
        if e["type"] not in event.split(","):
            continue
        v = e["values"]
        thread = v["sampledThread"] if "sampledThread" in v else v["eventThread"]
        parts = [thread["javaName"]] if threads else []
        for f in reversed(v["stackTrace"]["frames"]):
            cls = f["method"]["type"]["name"].replace("/", ".")
            name = f["method"]["name"]
            cfunc = f["type"] == "Native" and not f["method"]["type"].get("package")
            parts.append(name if not cls or cfunc or f["type"] in NOT_JAVA else cls + "." + name)
        if states and v.get("state") in STATES:
            parts.append(STATES[v["state"]])
        for f in CLASS_FIELDS:
            if f in v:
                parts.append(source_name(v[f]["name"]))
        w = 1
        if weights and "weight" in v:
            w = int(v["weight"])
        elif weights and "duration" in v:
            w = iso_ns(v["duration"])
        key = ";".join(parts)
        lines[key] = lines.get(key, 0) + w
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


def check_headers(t, jfr):
    """Checks every chunk header of jfr against what the readers require (JFR.md section 5):
    magic and version 2.0; sizes that tile the file; checkpoint and metadata offsets inside
    the chunk; start ticks, start time and duration above 0 (parsers modeled on the JDK's
    chunk header refuse 0); file state 0 (finished); flag bit 0 (compressed integers, which
    JMC and those parsers read from the int at byte 64) on every chunk and bit 1 (final) on
    the last only. Returns the number of chunks."""
    import struct
    with open(jfr, "rb") as f:
        data = f.read()
    off, n = 0, 0
    while off < len(data):
        h = data[off:off + 68]
        t.check(len(h) == 68 and h[:4] == b"FLR\0", "chunk %d at %d: no header", n + 1, off)
        major, minor, size, cp, meta, nanos, dur, ticks, tps = struct.unpack(">HHqqqqqqq",
                                                                                 h[4:64])
        state, flags = h[64], h[67]
        last = off + size == len(data)
        t.check((major, minor) == (2, 0), "chunk %d: version %d.%d", n + 1, major, minor)
        t.check(68 < size <= len(data) - off, "chunk %d: size %d", n + 1, size)
        t.check(68 <= cp < size and 68 <= meta < size, "chunk %d: offsets %d, %d of %d", n + 1,
                cp, meta, size)
        t.check(ticks > 0 and nanos > 0 and dur > 0 and tps > 0, "chunk %d: start ticks %d, "
                "start %d ns, duration %d ns, %d ticks/s", n + 1, ticks, nanos, dur, tps)
        t.check(state == 0 and flags & 1 and bool(flags & 2) == last, "chunk %d: state %d, "
                "flags %#x (last: %s)", n + 1, state, flags, last)
        off += size
        n += 1
    return n


def check_event_layout(t, jfr):
    """`jfr metadata`: jdk.ExecutionSample has exactly the JDK's fields in the JDK's order
    (readers such as async-profiler's converter take them by position), its startTime marked
    @Timestamp("TICKS") (JMC's time axis comes from it)."""
    r = t.run("jfr metadata", [jdk_bin(t, "jfr"), "metadata", jfr], 120)
    t.check(r.returncode == 0, "jfr metadata failed: %s", r.stderr[-1000:])
    m = re.search(r"class ExecutionSample extends jdk\.jfr\.Event \{(.*?)\n\}", r.stdout, re.S)
    t.check(m, "no ExecutionSample in `jfr metadata`")
    fields = re.findall(r"^\s+(?:[\w.$]+)(?:\[\])? (\w+);", m.group(1), re.M)
    t.check(fields == ["startTime", "sampledThread", "stackTrace", "state"],
            "jdk.ExecutionSample's fields: %s", fields)
    t.check(re.search(r'@Timestamp\("TICKS"\)\s+long startTime;', m.group(1)),
            "startTime is not @Timestamp(\"TICKS\"):%s", m.group(1))


def attach_to_exit(t, name, workload, args, events, ready_thread, extra=(), timeout=240):
    """Starts workload (its last argument a go-file it waits for), attaches with `flyprof
    start PID -e EVENTS -o NAME.jfr log=NAME.fpl EXTRA...` once ready_thread runs, lets it go
    and waits for its exit; checks the JVM ended well and the agent's file=x.jfr is there.
    Returns (jfr, fpl)."""
    import test_attach_common as ac
    go, jfr, fpl = t.path(name + ".go"), t.path(name + ".jfr"), t.path(name + ".fpl")
    t.logs.append(fpl)
    jvm = ac.Jvm(t, name, workload, list(args) + [go],
                 jvm_options=["-XX:+EnableDynamicAgentLoading"]
                 if ac.java_major(t.java) >= 21 else [], ready_thread=ready_thread)
    r = ac.flyprof(t, "start " + name, ["start", jvm.pid, "-e", events, "-o", jfr,
                                        "log=" + fpl] + list(extra))
    ac.expect(t, r, 0)
    with open(go, "w"):
        pass
    try:
        jvm.proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pass
    t.check(jvm.stop() == 0, "%s: the JVM failed", name)
    for _ in range(100):  # the agent renders at VMDeath, before the JVM exits
        if os.path.isfile(jfr):
            break
        time.sleep(0.05)
    t.check(os.path.isfile(jfr), "%s: no %s after the JVM's exit", name, jfr)
    return jfr, fpl


def stamp_us(iso):
    """Microseconds since the epoch of an ISO time of `jfr print --json` with up to ns digits
    ("2026-11-27T06:13:32.1723Z"), exactly."""
    import datetime
    day, _, rest = iso.rstrip("Z").partition("T")
    hms, _, frac = rest.partition(".")
    base = datetime.datetime.strptime(day + "T" + hms, "%Y-%m-%dT%H:%M:%S")
    sec = int(base.replace(tzinfo=datetime.timezone.utc).timestamp())
    return sec * 1000000 + int((frac + "000000")[:6])


def event_times_us(t, jfr, event="jdk.ExecutionSample", thread=None):
    """The start times (us since the epoch) of jfr's events of a type, of one thread (Java
    name) or all, sorted."""
    r = t.run("jfr print times " + os.path.basename(jfr),
              [jdk_bin(t, "jfr"), "print", "--json", "--stack-depth", "1", "--events", event,
               jfr], 300)
    t.check(r.returncode == 0, "jfr print failed: %s", r.stderr[-1000:])
    times = []
    for e in json.loads(r.stdout)["recording"]["events"]:
        th = e["values"].get("sampledThread") or {}
        if thread is None or th.get("javaName") == thread:
            times.append(stamp_us(e["values"]["startTime"]))
    return sorted(times)


def check_sample_times(t, jfr, fpl, what):
    """Each jdk.ExecutionSample event of a CPU file is at its own sample's time: the log's CPU
    samples (a sample of weight w is w events), read by the tests' own reader, against the
    events' times after the log's start, both sorted: median under 50 us, none 500 us off
    (the timeline's bins, 1 ms or wider, fail this)."""
    import test_wall_fpl as wf
    log = wf.read_fpl(fpl)
    origin = log.anchors[0][2] / 1e3
    want = sorted(log.seconds(s.ticks) * 1e6 for s in log.cpu_samples() for _ in range(s.weight))
    got = [x - origin for x in event_times_us(t, jfr)]
    t.check(len(got) == len(want), "%s: %d events, %d CPU sample units in the log", what,
            len(got), len(want))
    diffs = sorted(abs(a - b) for a, b in zip(got, want))
    t.check(diffs, "%s: no events", what)
    if diffs:
        med, top = diffs[len(diffs) // 2], diffs[-1]
        t.note("%s: event time - sample time: median %.1f us, max %.1f us", what, med, top)
        t.check(med < 50 and top < 500, "%s: events not at their samples' times: median %.1f "
                "us, max %.1f us off", what, med, top)


def check_unbinned(t, jfr, thread, what):
    """jfr's events of a thread are at their samples' times, not at the timeline's bin starts
    (whole multiples of 1 ms after the log's start): without the log at hand, the gaps
    between the thread's events are whole milliseconds in no more than 1 in 4 (samples' own
    times: about 1 in 1000; bins: all)."""
    times = event_times_us(t, jfr, thread=thread)
    gaps = [b - a for a, b in zip(times, times[1:]) if b > a]
    whole = sum(1 for g in gaps if g % 1000 == 0)
    t.note("%s: %d events of %s, %d of %d gaps whole ms", what, len(times), thread, whole,
           len(gaps))
    t.check(len(gaps) >= 5, "%s: %d gaps between %s's events", what, len(gaps), thread)
    t.check(whole * 4 <= len(gaps), "%s: %d of %d gaps between %s's events are whole ms: "
            "events at bin starts, not at their samples' times", what, whole, len(gaps), thread)
