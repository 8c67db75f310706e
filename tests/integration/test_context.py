#!/usr/bin/env python3
"""context: trace context on samples (dev.flyprof.Context), with -agentpath.

TracedRequests serves four endpoints from a pool of 4 worker threads, with a tiny tracer that
calls Context.set/clear around each request and Context.endpoint once per request: GET /cpu
burns CPU in handleCpu, GET /sleep sleeps in handleSleep, GET /lock waits for a monitor that
the lock-holder thread (outside every request) holds in handleLock, and GET /handoff starts on
the acceptor thread (prepareHandoff, the root span) and goes on in a pool thread as a child
span (handleHandoff). CPU and wall sampling at 10 ms.

Asserted (check_log, shared with test_attach_context.py):
- `convert --endpoint` picks each endpoint's samples: >= 95% of each selected profile's weight
  (CPU for /cpu and /handoff, wall for /sleep and /lock) has its own handler on the stack;
- thread states, read from the log: /sleep's wall weight >= 90% sleeping or timed_waiting,
  /lock's >= 80% blocked, /cpu's >= 90% running;
- samples outside requests carry no context: none of the lock-holder's, <= 5% of the pool
  threads' samples without a handler frame (idle in the queue; the rest fall in the few
  instructions between Context.set and the handler), and every sample with a handler frame
  carries that handler's endpoint (>= 95%);
- the handoff: samples in handleHandoff carry a child span (span != root) of a /handoff
  request, samples in prepareHandoff its root span on the acceptor; `--root-span R` of a
  request sampled on both threads shows both, with exactly the weight the log holds for R
  (decoded here independently), and `--span` of its child span only the pool thread's;
- pprof: `go tool pprof -tagfocus trace_endpoint=GET /cpu` selects the same CPU time as
  `convert --endpoint '^GET /cpu$'`, and labels span_id / root_span_id agree with it;
- summary --json `endpoints`: the four names with requests close to what the workload served,
  /lock's wall mostly blocked;
- the log's records, decoded by the tests' own reader: STACK2 records, ENDPOINT2 with each name
  once (ENDPOINT_NAME), METHOD2 with each class once (CLASS_NAME) and JDK methods' line tables
  and source files through them.
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_wall_fpl as fpl  # noqa: E402

SECONDS = 5
OPTIONS = "cpu=10ms,wall=10ms"
HANDLERS = {"GET /cpu": ("handleCpu",), "GET /sleep": ("handleSleep",),
            "GET /lock": ("handleLock",), "GET /handoff": ("handleHandoff", "prepareHandoff")}
ALL_HANDLERS = {h for hs in HANDLERS.values() for h in hs}
PKG = "dev.flyprof.workload.TracedRequests."


def folded(t, path, args, what):
    """`flyprof convert path args -o X.collapsed`: [(frames root first, weight)]."""
    out = t.path("%s.collapsed" % re.sub(r"[^A-Za-z0-9]+", "_", what))
    r = t.flyprof("convert " + what, ["convert", path, "-o", out] + args)
    t.check(r.returncode == 0, "convert %s: exit status %s: %s", what, r.returncode,
            r.stderr.strip()[-500:])
    lines = []
    with open(out, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, w = line.rstrip("\n").rpartition(" ")
            lines.append((stack.split(";"), int(w)))
    return lines


def handler_share(lines, handlers):
    total = sum(w for _, w in lines)
    mine = sum(w for fr, w in lines if any(f in (PKG + h for h in handlers) for f in fr))
    return total, mine


class Decoded:
    """The log, decoded by test_wall_fpl (independent of the collector)."""

    def __init__(self, path):
        self.log = fpl.read_fpl(path)
        self.names = {}
        for mid, m in self.log.methods.items():
            self.names[mid] = m.name if m.klass.endswith("TracedRequests") else None

    def handler(self, s):
        """The TracedRequests handler on the sample's stack (the leaf-most), or None."""
        for mid, _, _ in self.log.stacks.get(s.stack_id, []):
            n = self.names.get(mid)
            if n in ALL_HANDLERS:
                return n
        return None

    def in_scope_edge(self, s):
        """The sample is in the tracer's enter() or exit(): after Context.set, before
        Context.clear, yet in no handler (ThreadFilter.add/remove run in there)."""
        return any(self.names.get(mid) in ("enter", "exit")
                   for mid, _, _ in self.log.stacks.get(s.stack_id, []))

    def endpoint(self, s):
        c = s.context
        return self.log.endpoints.get(c[1]) if c and c[1] else None


def check_log(t, path, served, what):
    """Everything the module doc lists, on the log at path; served: the workload's counts
    (None after an attach, when only part of them was recorded)."""
    d = Decoded(path)
    log = d.log
    t.check(log.contexts, "%s: no CONTEXT records in the log", what)
    t.check(len(log.endpoints) >= 40, "%s: only %d ENDPOINT records", what, len(log.endpoints))
    # version 3: stacks as new frames on a recent one (STACK2), read back by this reader too
    t.check(log.stack2 > 0, "%s: no STACK2 records (stacks %d)", what, len(log.stacks))
    # version 3: each name once (ENDPOINT_NAME), each request by its id (ENDPOINT2)
    t.check(log.endpoint2 >= len(log.endpoints), "%s: %d ENDPOINT2 records for %d named "
            "requests", what, log.endpoint2, len(log.endpoints))
    t.check(log.endpoint_name_records <= 2 * len(HANDLERS), "%s: %d ENDPOINT_NAME records "
            "for %d names: names are not written once", what, log.endpoint_name_records,
            len(HANDLERS))
    # version 4: methods as METHOD2, each class once (CLASS_NAME), not each method's
    methods = log.method_records
    t.check(log.method2 > 0 and log.method2 >= 0.95 * len(methods), "%s: %d METHOD2 records "
            "of %d methods", what, log.method2, len(methods))
    classes = {(m.klass, m.source) for m in methods if m.klass or m.source}
    t.check(0 < log.class_name_records <= len(classes) + len(classes) // 4 + 4,
            "%s: %d CLASS_NAME records for %d classes: classes are not written once", what,
            log.class_name_records, len(classes))
    t.check(log.class_name_records < log.method2, "%s: %d CLASS_NAME records for %d METHOD2: "
            "no class has two methods?", what, log.class_name_records, log.method2)
    java = [m for m in methods if m.kind == 0 and m.klass.startswith("java.")]
    t.check(java and sum(1 for m in java if m.lines and m.source) >= len(java) // 2,
            "%s: %d of %d JDK methods with a line table and a source file", what,
            sum(1 for m in java if m.lines and m.source), len(java))

    # --endpoint picks each endpoint's samples
    for ep, handlers in sorted(HANDLERS.items()):
        kind = "cpu" if ep in ("GET /cpu", "GET /handoff") else "wall"
        lines = folded(t, path, ["--endpoint", "^%s$" % ep, "--kind", kind],
                       "%s %s %s" % (what, ep, kind))
        total, mine = handler_share(lines, handlers)
        t.note("%s: --endpoint '%s' --kind %s: %d of %d in %s (%.1f%%)", what, ep, kind, mine,
               total, "/".join(handlers), 100.0 * mine / max(total, 1))
        t.check(total >= 20, "%s: --endpoint '%s' --kind %s selected only %d", what, ep, kind,
                total)
        t.check(mine >= 0.95 * total, "%s: --endpoint '%s': %d of %d in its handler, want "
                ">= 95%%", what, ep, mine, total)

    # states of each endpoint's wall samples
    by_state = {}
    for s in log.wall_samples():
        ep = d.endpoint(s)
        if ep:
            st = by_state.setdefault(ep, {})
            st[s.state_name] = st.get(s.state_name, 0) + s.upscaled
    for ep, want, share in (("GET /sleep", ("sleeping", "timed_waiting"), 0.9),
                            ("GET /lock", ("blocked",), 0.8), ("GET /cpu", ("running",), 0.9)):
        st = by_state.get(ep, {})
        total = sum(st.values())
        good = sum(v for k, v in st.items() if k in want)
        t.note("%s: %s wall states %s", what, ep,
               ", ".join("%s %.0f" % kv for kv in sorted(st.items())))
        t.check(total > 0 and good >= share * total, "%s: %s is %.0f of %.0f in %s, want "
                ">= %.0f%%", what, ep, good, total, "/".join(want), 100 * share)

    # context on the right samples only
    holder = [s for s in log.samples if s.thread == "lock-holder"]
    t.check(holder, "%s: no samples of lock-holder", what)
    bad = [s for s in holder if s.context != (0, 0)]
    t.check(not bad, "%s: %d of %d lock-holder samples carry a context", what, len(bad),
            len(holder))
    # outside every request: in no handler and not in the tracer's scope edges, whose
    # samples carry the context they set (more of them on a loaded machine: 17 of 291)
    idle = [s for s in log.samples if s.thread.startswith("worker-") and not d.handler(s) and
            not d.in_scope_edge(s)]
    idle_ctx = sum(1 for s in idle if s.context != (0, 0))
    t.note("%s: pool samples outside handlers: %d, %d with a context", what, len(idle), idle_ctx)
    t.check(idle_ctx <= 0.05 * len(idle) + 2, "%s: %d of %d pool samples outside handlers carry "
            "a context", what, idle_ctx, len(idle))
    inside = [s for s in log.samples if d.handler(s)]
    right = sum(1 for s in inside if d.handler(s) in HANDLERS.get(d.endpoint(s), ()))
    t.note("%s: samples in handlers: %d, %d with their own endpoint", what, len(inside), right)
    t.check(right >= 0.95 * len(inside), "%s: only %d of %d handler samples carry their "
            "endpoint", what, right, len(inside))
    undefined = sum(1 for s in log.samples if s.context is None)
    t.check(undefined == 0, "%s: %d samples refer to an undefined context", what, undefined)

    # the handoff across two threads. The acceptor is the main thread renamed; the writer
    # re-reads a sampled thread's name at most every 100 ms, so its first samples after the
    # rename may still say "main": the acceptor is known by its tid
    acceptor = {tid for tid, name in log.threads.values() if name == "acceptor"}
    t.check(acceptor, "%s: no thread named acceptor", what)
    roots = {}
    for s in inside:
        h = d.handler(s)
        c = s.context
        if h == "handleHandoff" and d.endpoint(s) == "GET /handoff":
            t.check(c[0] != c[1], "%s: a handleHandoff sample in the root span %d", what, c[1])
            t.check(s.thread.startswith("worker-"), "%s: handleHandoff on %s", what, s.thread)
        if h == "prepareHandoff" and d.endpoint(s) == "GET /handoff":
            t.check(c[0] == c[1], "%s: a prepareHandoff sample in span %d of root %d", what,
                    c[0], c[1])
            t.check(s.tid in acceptor, "%s: prepareHandoff on %s (tid %d)", what, s.thread,
                    s.tid)
        if h in ("handleHandoff", "prepareHandoff"):
            r = roots.setdefault(c[1], {"threads": set(), "names": set(), "spans": set()})
            r["threads"].add("acceptor" if s.tid in acceptor else s.thread)
            r["names"].add(s.thread.split("-")[0])
            r["spans"].add(c[0])
    both = [(root, r) for root, r in roots.items()
            if len(r["threads"]) == 2 and r["names"] == {"acceptor", "worker"}]
    t.check(both, "%s: no /handoff request sampled on both threads (%d sampled)", what,
            len(roots))
    root, info = both[0]
    child = [sp for sp in info["spans"] if sp != root][0]

    def weight_of(pred):
        cpu = sum(s.weight for s in log.cpu_samples() if pred(s))
        wall = sum(s.upscaled for s in log.wall_samples() if pred(s))
        return cpu, wall

    for opt, val, pred, threads in (
            ("--root-span", root, lambda s: s.context and s.context[1] == root,
             {"acceptor", "worker"}),
            ("--span", child, lambda s: s.context and s.context[0] == child, {"worker"})):
        cpu, wall = weight_of(pred)
        got = {}
        for kind in ("cpu", "wall"):
            lines = folded(t, path, [opt, str(val), "--kind", kind, "--threads"],
                           "%s %s %d %s" % (what, opt, val, kind))
            got[kind] = (sum(w for _, w in lines), {fr[0].split("-")[0] for fr, _ in lines})
        t.note("%s: %s %d: cpu %d (log %d), wall %d (log %.2f), threads %s", what, opt, val,
               got["cpu"][0], cpu, got["wall"][0], wall, sorted(got["cpu"][1] | got["wall"][1]))
        t.check(got["cpu"][0] == cpu, "%s: %s %d: CPU weight %d, the log holds %d", what, opt,
                val, got["cpu"][0], cpu)
        t.check(abs(got["wall"][0] - wall) <= 1 + 0.5 * len(got["wall"][1]) + 0.01 * wall,
                "%s: %s %d: wall weight %d, the log holds %.2f", what, opt, val, got["wall"][0],
                wall)
        t.check(got["cpu"][1] | got["wall"][1] == threads, "%s: %s %d: threads %s, want %s",
                what, opt, val, sorted(got["cpu"][1] | got["wall"][1]), sorted(threads))

    check_pprof(t, path, what)
    check_summary(t, path, served, what)


def check_pprof(t, path, what):
    go = shutil.which("go")
    if not go:
        t.note("%s: no `go` here: pprof labels not checked by go tool pprof", what)
        return
    import test_pprof  # noqa: E402  (its -raw parser)
    env = dict(os.environ)
    for k in ("HOME", "GOCACHE", "GOPATH"):
        env[k] = t.path("go-" + k.lower())
        os.makedirs(env[k], exist_ok=True)
    env.update(GOFLAGS="", GOPROXY="off", GOTOOLCHAIN="local", GOTELEMETRY="off",
               GO111MODULE="off")
    pb = t.path("all.pb.gz")
    r = t.flyprof("convert pprof", ["convert", path, "--kind", "cpu", "-o", pb])
    t.check(r.returncode == 0, "%s: convert -o all.pb.gz: %s", what, r.stderr.strip()[-300:])
    p = subprocess.run([go, "tool", "pprof", "-raw", "-tagfocus", "trace_endpoint=GET /cpu", pb],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120,
                       env=env, cwd=t.tmp)
    t.check(p.returncode == 0, "%s: go tool pprof: %s", what, p.stderr.strip()[-500:])
    raw = test_pprof.Raw(p.stdout)
    ns = raw.value(1)
    eps = {lab.get("trace_endpoint") for _, _, lab in raw.samples}
    lines = folded(t, path, ["--endpoint", "^GET /cpu$", "--kind", "cpu"], what + " cpu again")
    want = sum(w for _, w in lines) * ft.INTERVAL_NS
    t.note("%s: go tool pprof -tagfocus trace_endpoint=GET /cpu: %d ns in %d samples (%s); "
           "--endpoint: %d ns", what, ns, len(raw.samples), sorted(eps), want)
    t.check(eps == {"GET /cpu"}, "%s: -tagfocus kept samples of %s", what, sorted(eps))
    t.check(ns == want, "%s: pprof's GET /cpu is %d ns, --endpoint's %d ns", what, ns, want)
    spans = [lab for _, _, lab in raw.samples if "span_id" in lab]
    t.check(spans and all(lab["span_id"] == lab["root_span_id"] for lab in spans),
            "%s: GET /cpu samples should be in their root span: %s", what, spans[:3])


def check_summary(t, path, served, what):
    r = t.flyprof("summary --json", ["summary", "--json", path])
    t.check(r.returncode == 0, "%s: summary --json: %s", what, r.stderr.strip()[-300:])
    eps = {e["name"]: e for e in json.loads(r.stdout)["endpoints"]}
    t.check(set(HANDLERS) <= set(eps), "%s: summary endpoints %s", what, sorted(eps))
    for name, e in sorted(eps.items()):
        t.note("%s: summary: %s requests %d cpu %.2f s wall %.2f s %s", what, name,
               e["requests"], e["cpu_ns"] / 1e9, e["wall_ns"] / 1e9, e["wall_by_state_ns"])
    lock = eps["GET /lock"]
    t.check(lock["wall_by_state_ns"].get("blocked", 0) >= 0.8 * lock["wall_ns"],
            "%s: summary: GET /lock is not mostly blocked: %s", what, lock)
    t.check(eps["GET /cpu"]["cpu_ns"] > 10 * eps["GET /sleep"]["cpu_ns"],
            "%s: summary: GET /cpu burns no more CPU than GET /sleep", what)
    if served:
        for name, key in (("GET /cpu", "cpu"), ("GET /sleep", "sleep"), ("GET /lock", "lock"),
                          ("GET /handoff", "handoff")):
            want = served.num(key)
            t.check(abs(eps[name]["requests"] - want) <= 2, "%s: summary: %s has %d requests, "
                    "the workload served %d", what, name, eps[name]["requests"], want)


def test(t):
    run, path = t.run_java("context", "TracedRequests", [SECONDS], agent_options=OPTIONS)
    t.check(run.results.get("bound") == "true", "Context was not bound by the agent")
    check_log(t, path, run, "agentpath")
    # without the agent the calls are no-ops
    r = t.run("no agent", [t.java, "-cp", t.jar, ft.WORKLOAD_PKG + "TracedRequests", "1"], 120)
    t.check_jvm(r)
    t.check(r.results.get("bound") == "false", "Context bound without the agent")


if __name__ == "__main__":
    ft.main(test, "dev.flyprof.Context with -agentpath: selection by request, labels, summary")
