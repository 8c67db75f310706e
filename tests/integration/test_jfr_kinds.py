#!/usr/bin/env python3
"""jfr_kinds: allocation, lock and live samples in JFR (JFR.md section 2), read back by the
JDK's own reader and by flyprof's.

Workloads whose truth test_alloc.py and test_lock.py check: AllocRatio (two threads allocating
byte[1000] 1:3, agent options alloc and live) and LockContention (four threads on one
monitor, then four on one ReentrantLock, option lock). For each JFR file:
- the JDK's reader (java/JfrCheck.java on RecordingFile, and `jfr print --json`) folds
  jdk.ObjectAllocationSample, jdk.JavaMonitorEnter + jdk.ThreadPark and flyprof.LiveObject,
  with thread roots, the event's class as the leaf and its weight (bytes) or duration (ns),
  into exactly the lines and weights of `flyprof convert LOG --kind alloc|lock|live
  --threads -o x.collapsed` (durations exact to the ns: the file's ticks are ns);
- `jfr summary` counts one event per sample of each kind (`flyprof summary`'s counts);
- ThreadPark events are the rlock-* threads' (ReentrantLock$NonfairSync), JavaMonitorEnter
  the sync-* threads' (LockContention$Monitor), 99% of the time waited at least; the
  latch-waiter has none;
- `jfr metadata`: the three jdk.* events have the fields, in order and types, of the JDK's
  own recording made by the same JDK;
- the file holds jdk.ExecutionSample events too when the log has CPU samples and no --kind
  was given, and no allocation events with --kind cpu;
- flyprof reads the events back: `convert x.jfr --kind K` folds as the log does.
Files: the agent's own `file=x.jfr` from -agentpath (AllocRatio, LockContention) and attached
(`flyprof start PID -e cpu,lock -o x.jfr` on LockContention, `-e cpu,alloc ... live` on
LiveRatio, each waiting for a go-file), and `flyprof convert -o x.jfr` of the -agentpath
logs.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jfr_common as jc  # noqa: E402
import test_attach_common as ac  # noqa: E402

EVENTS = {"alloc": "jdk.ObjectAllocationSample",
          "lock": "jdk.JavaMonitorEnter,jdk.ThreadPark",
          "live": "flyprof.LiveObject"}
MONITOR = "dev.flyprof.workload.LockContention$Monitor"
RLOCK = "java.util.concurrent.locks.ReentrantLock$NonfairSync"
JDK_FIELDS = {
    "ObjectAllocationSample": ["long startTime", "Thread eventThread", "StackTrace stackTrace",
                               "Class objectClass", "long weight"],
    "JavaMonitorEnter": ["long startTime", "long duration", "Thread eventThread",
                         "StackTrace stackTrace", "Class monitorClass", "Thread previousOwner",
                         "long address"],
    "ThreadPark": ["long startTime", "long duration", "Thread eventThread",
                   "StackTrace stackTrace", "Class parkedClass", "long timeout", "long until",
                   "long address"],
}


def fields(text, name):
    """The `TYPE NAME` of each field of event class name in `jfr metadata` output."""
    m = re.search(r"class %s extends jdk\.jfr\.Event \{(.*?)\n\}" % name, text, re.S)
    return re.findall(r"^\s+([\w.$]+(?:\[\])? \w+);", m.group(1), re.M) if m else None


def check_layout(t, jfr):
    """The jdk.* events' fields are those `jfr metadata` shows for the JDK's own recording."""
    own = t.path("jdk-own.jfr")
    if not os.path.exists(own):
        r = t.run("a JDK recording", [t.java, "-XX:StartFlightRecording:filename=" + own,
                                      "-version"], 120)
        t.check(r.returncode == 0, "java -XX:StartFlightRecording failed: %s", r.stderr[-500:])
    meta = {}
    for f in (own, jfr):
        r = t.run("jfr metadata " + os.path.basename(f), [jc.jdk_bin(t, "jfr"), "metadata", f],
                  120)
        t.check(r.returncode == 0, "jfr metadata %s failed: %s", f, r.stderr[-500:])
        meta[f] = r.stdout
    for name, want in JDK_FIELDS.items():
        jdk = fields(meta[own], name)
        ours = fields(meta[jfr], name)
        t.check(jdk == want, "the JDK's own %s has fields %s (the test expects %s)", name, jdk,
                want)
        t.check(ours == jdk, "jdk.%s's fields are %s, the JDK's %s", name, ours, jdk)


def summary_counts(t, fpl):
    """{kind: samples} from `flyprof summary`."""
    r = ac.flyprof(t, "summary " + os.path.basename(fpl), ["summary", fpl])
    ac.expect(t, r, 0)
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"^\s+(cpu|wall|alloc|lock|live)\s+(\d+) samples", r.stdout,
                                 re.M)}


def jfr_counts(t, jfr):
    """{event type: count} from `jfr summary`."""
    r = t.run("jfr summary " + os.path.basename(jfr), [jc.jdk_bin(t, "jfr"), "summary", jfr],
              120)
    t.check(r.returncode == 0, "jfr summary failed on %s: %s", jfr, r.stderr[-1000:])
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"^\s+([\w.]+)\s+(\d+)\s+\d+\s*$", r.stdout, re.M)}


def check_file(t, jfr, fpl, kinds, what, cpu=True):
    """jfr holds fpl's samples of kinds, event for event, as the JDK and flyprof read it."""
    jc.check_headers(t, jfr)
    counts = summary_counts(t, fpl)
    per_type = jfr_counts(t, jfr)
    t.note("%s: flyprof summary %s; jfr summary %s", what, counts,
           {k: v for k, v in per_type.items() if v})
    for k in kinds:
        t.check(counts.get(k, 0) > 0, "%s: the log has no %s samples", what, k)
        want = jc.folded(t, fpl, ["--kind", k, "--threads"], "%s-%s" % (what, k))
        seen, events, types = jc.jdk_fold(t, jfr, threads=True, event=EVENTS[k], weights=True,
                                          name="JfrCheck %s %s" % (what, k))
        jc.same(t, seen, want, "%s: %s events (RecordingFile) vs --kind %s folded" % (what,
                EVENTS[k], k))
        js = jc.json_fold(t, jfr, threads=True, event=EVENTS[k], weights=True)
        jc.same(t, js, want, "%s: %s events (jfr print --json) vs --kind %s folded" % (what,
                EVENTS[k], k))
        n = sum(per_type.get(e, 0) for e in EVENTS[k].split(","))
        t.check(n == counts[k] == events, "%s: %d %s events in jfr summary, %d read, %d %s "
                "samples in the log", what, n, EVENTS[k], events, counts[k], k)
        back = jc.folded(t, jfr, ["--kind", k, "--threads"], "%s-%s-back" % (what, k))
        jc.same(t, back, want, "%s: convert x.jfr --kind %s vs the log's" % (what, k))
    if cpu:
        t.check(per_type.get("jdk.ExecutionSample", 0) > 0, "%s: no jdk.ExecutionSample "
                "beside the %s events (no --kind: every kind)", what, "/".join(kinds))
    check_layout(t, jfr)
    check_units(t, jfr, kinds, what)


def check_units(t, jfr, kinds, what):
    """`jfr print` shows units: an allocation's weight as a data amount (kB, MB...), a park's
    missing timeout as N/A. Both come from the unit annotations' @ContentType, which the JDK's
    reader needs to know a field's unit at all (JMC and IntelliJ read the same metadata)."""
    events = [e for k in kinds if k in ("alloc", "lock") for e in EVENTS[k].split(",")]
    if not events:
        return
    r = t.run("jfr print " + os.path.basename(jfr), [jc.jdk_bin(t, "jfr"), "print",
              "--stack-depth", "1", "--events", ",".join(events), jfr], 120)
    t.check(r.returncode == 0, "%s: jfr print failed: %s", what, r.stderr[-1000:])
    if "alloc" in kinds:
        weights = re.findall(r"^\s*weight = (.*)$", r.stdout, re.M)
        raw = [w for w in weights if not re.search(r"(bytes?|[kMG]B)$", w)]
        t.check(weights and not raw, "%s: %d ObjectAllocationSample weights, %d without a data "
                "unit (e.g. %s)", what, len(weights), len(raw), raw[:2])
    if "lock" in kinds:
        timeouts = re.findall(r"^\s*timeout = (.*)$", r.stdout, re.M)
        t.check(timeouts and all(x == "N/A" for x in timeouts), "%s: ThreadPark timeouts %s, "
                "want N/A (no timeout known)", what, sorted(set(timeouts))[:3])


def check_lock_threads(t, jfr, what):
    """ThreadPark: the rlock-* threads on ReentrantLock's sync; JavaMonitorEnter: sync-* on the
    monitor; nothing of the latch-waiter."""
    for event, prefix, cls in (("jdk.ThreadPark", "rlock-", RLOCK),
                               ("jdk.JavaMonitorEnter", "sync-", MONITOR)):
        seen, events, _ = jc.jdk_fold(t, jfr, threads=True, event=event, weights=True,
                                      name="JfrCheck %s %s" % (what, event))
        t.check(events > 0, "%s: no %s events", what, event)
        wrong = {k: v for k, v in seen.items()
                 if not k.startswith(prefix) or not k.endswith(";" + cls)}
        # test_lock.py's tolerance: a stray wait of another class (1 in 869) is the agent's
        t.check(sum(wrong.values()) <= 0.01 * sum(seen.values()), "%s: %s events not of %s* "
                "on %s: %s", what, event, prefix, cls, list(wrong.items())[:3])
        t.check(not any(k.startswith("latch-waiter") for k in seen), "%s: the latch's wait "
                "is a %s event", what, event)


def agentpath(t, name, workload, args, options, kinds):
    jfr, fpl = t.path(name + ".jfr"), t.path(name + ".fpl")
    t.logs.append(fpl)
    cmd = [t.java, "-agentpath:%s=%s,file=%s,log=%s" % (t.agent, options, jfr, fpl), "-cp",
           t.jar, "dev.flyprof.workload." + workload] + [str(a) for a in args]
    r = t.run("agentpath " + name, cmd, 240)
    t.check(r.returncode == 0, "%s: the JVM exited %s: %s", name, r.returncode, r.stderr[-1500:])
    t.check(os.path.isfile(jfr), "%s: no %s after the JVM's exit", name, jfr)
    check_file(t, jfr, fpl, kinds, name + " (agent's file=x.jfr)")
    conv = jc.convert_jfr(t, fpl, [], name + "-converted")
    check_file(t, conv, fpl, kinds, name + " (convert)")
    return jfr, fpl


def attached(t, name, workload, args, events, ready_thread, kinds, extra=()):
    """flyprof start PID -e EVENTS -o x.jfr on a workload waiting for its go-file."""
    jfr, fpl = jc.attach_to_exit(t, name, workload, args, events, ready_thread, extra)
    ac.check_complete(t, fpl, name)
    check_file(t, jfr, fpl, kinds, name + " (agent's file=x.jfr)")
    return jfr


def body(t):
    agentpath(t, "alloc", "AllocRatio", [256], "cpu=10ms,alloc,live", ["alloc", "live"])
    jfr, fpl = agentpath(t, "lock", "LockContention", [60, 2], "cpu=10ms,lock", ["lock"])
    check_lock_threads(t, jfr, "lock")
    # --kind cpu: no allocation or lock events; --kind lock: no execution samples
    only = jc.convert_jfr(t, fpl, ["--kind", "cpu"], "lock-cpu-only")
    types = jfr_counts(t, only)
    t.check(types.get("jdk.ExecutionSample", 0) > 0 and not types.get("jdk.JavaMonitorEnter")
            and not types.get("jdk.ThreadPark"), "--kind cpu: %s", types)
    only = jc.convert_jfr(t, fpl, ["--kind", "lock"], "lock-lock-only")
    types = jfr_counts(t, only)
    t.check(not types.get("jdk.ExecutionSample") and types.get("jdk.ThreadPark", 0) > 0,
            "--kind lock: %s", types)
    jfr = attached(t, "attached-lock", "LockContention", [150, 2], "cpu,lock", "sync-0", ["lock"])
    check_lock_threads(t, jfr, "attached-lock")
    attached(t, "attached-alloc", "LiveRatio", [128], "cpu,alloc", "live-0", ["alloc", "live"],
             extra=["live"])


if __name__ == "__main__":
    ac.main(body, "alloc, lock and live samples as JFR events, read by the JDK and flyprof")
