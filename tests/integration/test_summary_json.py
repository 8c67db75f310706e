#!/usr/bin/env python3
"""summary_json: `flyprof summary --json` says what the text summary says, in keys a script can
rely on (collector/format/SUMMARY_JSON.md).

WallStates (busy, sleeper, parker and blocked threads, each in one state) runs under
cpu=10ms,wall=20ms for 2 s. The log's summary is taken as text and as JSON. Asserts:
- the JSON parses, is one line, and has every documented key with its type;
- it agrees with the text: pid, jvm, command, duration, intervals; cpu and wall samples, raw
  weights, upscaled wall weight and their seconds; drops; every row of the text's thread
  tables (by tid and name: cpu weight x 10 ms, wall weight x 20 ms); the text's top-self
  tables, row by row (method, weight, share);
- sums: the threads' cpu_ns add up to cpu.weight_ns exactly, their wall_ns to wall.weight_ns and
  each thread's wall_by_state_ns to its wall_ns within 1 ns per term;
- what the workload makes true: busy has most of the CPU the agent's own threads did not use,
  sleeper's wall time is mostly sleeping and parker's parked; the agent block holds the version the CLI reports, a handler
  median > 0 and the log's size.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402

SECONDS = 2
CPU_NS, WALL_NS = 10_000_000, 20_000_000

KEYS = {  # key: type(s), as SUMMARY_JSON.md lists them
    "format": str, "version": int, "log": str, "jvm": str, "command": str, "pid": int,
    "started_ns": int, "duration_ns": int, "options": str, "engine": str, "interval_ns": dict,
    "cpu": dict, "wall": dict, "drops": int, "threads": list, "top_self": list,
    "top_total": list, "agent": dict, "log_state": dict, "events": dict,
}
EVENTS_KEYS = {"recorded": int, "dropped": int, "truncated": int, "threads": int}
KIND_KEYS = {"samples": int, "weight": (int, float), "weight_ns": int, "failed_samples": int,
             "failed": dict}
THREAD_KEYS = {"name": str, "tid": int, "cpu_ns": int, "wall_ns": int, "wall_by_state_ns": dict}
TOP_KEYS = {"method": str, "kind": str, "weight": (int, float), "weight_ns": int,
            "share": float}
AGENT_KEYS = {"version": str, "handler_p50_ns": int, "handler_p99_ns": int,
              "handler_max_ns": int, "writer_cpu_ns": int, "log_bytes": int, "signals": int,
              "samples_pushed": int, "walks_failed": dict, "walks_recovered": int,
              "walks_by_frame_pointer": int,
              "handler_busy": int, "scratch_buffers": int}


def check_keys(t, obj, keys, what):
    for k, typ in keys.items():
        t.check(k in obj, "%s: no key %r in %s", what, k, sorted(obj))
        t.check(isinstance(obj[k], typ) and not isinstance(obj[k], bool),
                "%s: %s is %r, want %s", what, k, obj[k], typ)


def text_tables(text):
    """{kind: [(weight, tid, name)]} from the text's thread tables, {kind: [(weight, pct, name)]}
    from its top-self tables."""
    threads, top, section = {}, {}, None
    for line in text.splitlines():
        m = re.match(r"^threads, (cpu|wall) ", line)
        if m:
            section = ("threads", m.group(1))
            threads[m.group(1)] = []
            continue
        m = re.match(r"^hottest methods, (cpu|wall), by self ", line)
        if m:
            section = ("top", m.group(1))
            top[m.group(1)] = []
            continue
        if not line.startswith("  "):
            section = None
            continue
        if section and section[0] == "threads":
            m = re.match(r"^\s+(\d+)\s+[\d.]+%\s+\d+\s+(\d+|-)\s+(.*)$", line)
            if m:
                threads[section[1]].append((int(m.group(1)), m.group(2), m.group(3)))
        elif section and section[0] == "top":
            m = re.match(r"^\s+(\d+)\s+([\d.]+)%\s+(.*)$", line)
            if m:
                top[section[1]].append((int(m.group(1)), float(m.group(2)), m.group(3)))
    return threads, top


def test(t):
    _, fpl = t.run_java("states", "WallStates", [SECONDS], agent_options="cpu=10ms,wall=20ms")
    rt = t.flyprof("summary", ["summary", fpl])
    rj = t.flyprof("summary --json", ["summary", "--json", fpl])
    t.check(rt.returncode == 0 and rj.returncode == 0, "summary: exit %s, --json: exit %s",
            rt.returncode, rj.returncode)
    t.check(rj.stdout.count("\n") == 1, "the JSON is not one line")
    try:
        js = json.loads(rj.stdout)
    except ValueError as e:
        raise ft.TestFailure("summary --json is not JSON: %s: %r" % (e, rj.stdout[:300]))
    text = rt.stdout

    check_keys(t, js, KEYS, "top level")
    t.check(js["format"] == "flyprof-summary" and js["version"] == 1, "format %r version %r",
            js["format"], js["version"])
    for k in ("cpu", "wall"):
        check_keys(t, js[k], KIND_KEYS, k)
    check_keys(t, js["events"], EVENTS_KEYS, "events")
    # the log logged no events and had no hiccup mode
    t.check(js["events"]["recorded"] == 0, "events recorded %r in a log without events",
            js["events"]["recorded"])
    t.check("hiccups" in js and js["hiccups"] is None, "hiccups is %r in a log without hiccup "
            "mode, want null", js.get("hiccups", "(missing)"))
    t.check(js["threads"], "no threads")
    for th in js["threads"]:
        if th["tid"] is not None:
            check_keys(t, th, THREAD_KEYS, "thread %s" % th.get("name"))
    for row in js["top_self"] + js["top_total"]:
        check_keys(t, row, TOP_KEYS, "top row %s" % row.get("method"))
    check_keys(t, js["agent"], AGENT_KEYS, "agent")
    t.check(js["interval_ns"] == {"cpu": CPU_NS, "wall": WALL_NS}, "interval_ns %s",
            js["interval_ns"])

    # the header lines
    def field(name):
        m = re.search(r"^  %s\s+(.*)$" % name, text, re.M)
        t.check(m, "no %s line in the text summary", name)
        return m.group(1)
    t.check(field("pid") == str(js["pid"]), "pid: text %s, json %s", field("pid"), js["pid"])
    t.check(field("jvm") == js["jvm"], "jvm: text %r, json %r", field("jvm"), js["jvm"])
    t.check(field("command") == js["command"], "command: %r vs %r", field("command"),
            js["command"])
    t.check(field("agent") == "flyprof " + js["agent"]["version"], "agent %r vs %r",
            field("agent"), js["agent"]["version"])
    dur = float(field("duration").split()[0])
    t.check(abs(dur - js["duration_ns"] / 1e9) < 0.0006, "duration: text %s s, json %d ns", dur,
            js["duration_ns"])

    # samples and weights
    m = re.search(r"^  cpu\s+(\d+) samples, weight (\d+) \(([\d.]+) s of CPU", text, re.M)
    t.check(m, "no cpu samples line")
    cpu = js["cpu"]
    t.check(cpu["samples"] == int(m.group(1)) and cpu["weight"] == int(m.group(2)),
            "cpu: text %s samples weight %s, json %s", m.group(1), m.group(2), cpu)
    t.check(cpu["weight_ns"] == cpu["weight"] * CPU_NS, "cpu weight_ns %d", cpu["weight_ns"])
    t.check(abs(float(m.group(3)) - cpu["weight_ns"] / 1e9) < 0.0006, "cpu seconds %s vs %d ns",
            m.group(3), cpu["weight_ns"])
    m = re.search(r"^  wall\s+(\d+) samples, weight (\d+), upscaled ([\d.]+) \(([\d.]+) "
                  r"thread-seconds", text, re.M)
    t.check(m, "no wall samples line")
    wall = js["wall"]
    t.check(wall["samples"] == int(m.group(1)) and wall["raw_weight"] == int(m.group(2)),
            "wall: text %s samples weight %s, json %s", m.group(1), m.group(2), wall)
    t.check(abs(wall["weight"] - float(m.group(3))) < 0.006, "wall upscaled: text %s, json %s",
            m.group(3), wall["weight"])
    t.check(abs(wall["weight_ns"] - wall["weight"] * WALL_NS) <= 1, "wall weight_ns %d",
            wall["weight_ns"])
    t.check(abs(float(m.group(4)) - wall["weight_ns"] / 1e9) < 0.0006,
            "wall thread-seconds %s vs %d ns", m.group(4), wall["weight_ns"])
    m = re.search(r"ring drops: (\d+)", text)
    t.check(m and int(m.group(1)) == js["drops"], "drops: text %s, json %d",
            m and m.group(1), js["drops"])

    # sums over threads
    ths = js["threads"]
    t.check(sum(x["cpu_ns"] for x in ths) == cpu["weight_ns"], "threads' cpu_ns add up to %d, "
            "cpu.weight_ns is %d", sum(x["cpu_ns"] for x in ths), cpu["weight_ns"])
    t.check(abs(sum(x["wall_ns"] for x in ths) - wall["weight_ns"]) <= len(ths),
            "threads' wall_ns add up to %d, wall.weight_ns is %d",
            sum(x["wall_ns"] for x in ths), wall["weight_ns"])
    for x in ths:
        st = x["wall_by_state_ns"]
        t.check(abs(sum(st.values()) - x["wall_ns"]) <= len(st), "thread %s: states add up "
                "to %d, wall_ns %d", x["name"], sum(st.values()), x["wall_ns"])

    # the text's tables, row by row
    threads, top = text_tables(text)
    # a thread renamed (main, then DestroyJavaVM at exit) is two entries with one tid
    by_tid = {(str(x["tid"]), x["name"]): x for x in ths if x["tid"] is not None}
    for kind, iv in (("cpu", CPU_NS), ("wall", WALL_NS)):
        t.check(threads.get(kind), "no %s thread table in the text", kind)
        for weight, tid, name in threads.get(kind, []):
            x = by_tid.get((tid, name))
            t.check(x is not None, "text thread %s (%s) not in the JSON", tid, name)
            ns = x[kind + "_ns"]
            t.check(abs(ns / iv - weight) <= 0.5 + 1e-9, "thread %s %s: text weight %d, json "
                    "%d ns", name, kind, weight, ns)
        rows = [r for r in js["top_self"] if r["kind"] == kind]
        t.check(len(rows) == len(top.get(kind, [])), "%s top self: text %d rows, json %d",
                kind, len(top.get(kind, [])), len(rows))
        for (weight, pct, name), r in zip(top.get(kind, []), rows):
            t.check(r["method"] == name and abs(r["weight"] - weight) <= 0.5 + 1e-9 and
                    abs(100 * r["share"] - pct) < 0.006, "%s top self: text %s %d %.2f%%, "
                    "json %s", kind, name, weight, pct, r)

    # what the workload makes true
    named = {x["name"]: x for x in ths}
    for n in ("busy", "sleeper", "parker", "blocked"):
        t.check(n in named, "no thread %s in the JSON", n)
    # the agent's own threads are sampled too (their cost is the summary's to show, not the
    # workload's): on a slow machine the writer's unwind-table build at start took 0.54 s of a
    # 2 s run, a quarter of the CPU, which is no statement about the workload
    agent_ns = sum(x["cpu_ns"] for x in ths if x["name"].startswith("flyprof "))
    t.check(named["busy"]["cpu_ns"] >= 0.8 * (cpu["weight_ns"] - agent_ns),
            "busy has %d of %d cpu ns (%d of them the agent's threads')",
            named["busy"]["cpu_ns"], cpu["weight_ns"], agent_ns)
    for n, state in (("sleeper", "sleeping"), ("parker", "parked"), ("blocked", "blocked")):
        st = named[n]["wall_by_state_ns"]
        t.check(st.get(state, 0) >= 0.8 * named[n]["wall_ns"] > 0, "%s: %s %d of %d wall ns",
                n, state, st.get(state, 0), named[n]["wall_ns"])
    ag = js["agent"]
    t.check(ag["handler_p50_ns"] > 0 and ag["log_bytes"] == os.path.getsize(fpl),
            "agent: %s (log is %d bytes)", ag, os.path.getsize(fpl))
    v = t.flyprof("--version", ["--version"]).stdout.split()
    t.check(v and v[-1] == ag["version"], "the log's agent is %r, flyprof --version %r",
            ag["version"], v)
    t.check(js["log_state"]["complete"] is True, "log_state %s", js["log_state"])
    t.note("cpu %d samples, wall %d samples, %d threads, top cpu %s", cpu["samples"],
           wall["samples"], len(ths), js["top_self"][0]["method"])


if __name__ == "__main__":
    ft.main(test, "summary --json agrees with the text summary")
