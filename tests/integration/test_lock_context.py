#!/usr/bin/env python3
"""lock_context: lock samples carry the trace context (dev.flyprof.Context) like CPU and wall
samples, so --endpoint and --root-span select them. TracedRequests (see test_context.py):
GET /lock requests wait in handleLock for a monitor the lock-holder thread (outside every
request) holds most of the time. Run with -agentpath:...=wall=10ms,lock.

Asserted:
- `convert --kind lock --endpoint '^GET /lock$'` selects lock samples, >= 95% of their weight
  through handleLock with the leaf java.lang.Object (the monitor's class);
- that weight (ns waited) agrees with the wall samples' estimate of the same requests' BLOCKED
  thread time (upscaled wall weight x 10 ms) within 40%: two independent measurements;
- no lock sample of another endpoint passes through handleLock, and no lock sample outside a
  request (no context) does either;
- `--kind lock --root-span R` of the heaviest /lock request shows exactly the lock weight the
  log holds for R (decoded here independently of the collector).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_context as tc  # noqa: E402
import test_wall_fpl as fpl  # noqa: E402

KIND_LOCK = 3


def test(t):
    run, path = t.run_java("lockctx", "TracedRequests", [5], agent_options="wall=10ms,lock")
    t.check(run.results.get("bound") == "true", "Context was not bound by the agent")
    d = tc.Decoded(path)
    log = d.log
    lines = tc.folded(t, path, ["--kind", "lock", "--endpoint", "^GET /lock$"], "lock endpoint")
    total, mine = tc.handler_share(lines, ("handleLock",))
    leaf = sum(w for fr, w in lines if fr[-1] == "java.lang.Object")
    t.note("--kind lock --endpoint 'GET /lock': %.3f s waited, %.1f%% in handleLock, %.1f%% "
           "with the leaf java.lang.Object", total / 1e9, 100.0 * mine / max(total, 1),
           100.0 * leaf / max(total, 1))
    t.check(total > 50e6, "only %.1f ms of lock waits selected for GET /lock", total / 1e6)
    t.check(mine >= 0.95 * total, "%d of %d ns of GET /lock's lock waits in handleLock", mine,
            total)
    t.check(leaf >= 0.95 * total, "%d of %d ns of GET /lock's lock waits on java.lang.Object",
            leaf, total)

    # the wall sampler's view of the same: /lock requests' blocked thread time
    blocked = sum(s.upscaled for s in log.wall_samples()
                  if s.state_name == "blocked" and d.endpoint(s) == "GET /lock")
    iv = log.header["wall_interval_ns"]
    t.note("wall: GET /lock blocked %.3f s (upscaled weight x %d ms)", blocked * iv / 1e9,
           iv // 1000000)
    t.close_to(total / max(blocked * iv, 1), 1.0, 0.4, "lock waits / wall-estimated blocked time "
               "of GET /lock")

    # lock samples through handleLock belong to /lock requests, and have a context
    stray = 0
    for s in log.samples:
        if s.kind != KIND_LOCK or d.handler(s) != "handleLock":
            continue
        if d.endpoint(s) != "GET /lock":
            stray += s.weight
    t.check(stray <= 0.01 * total, "%d ns of lock waits in handleLock outside GET /lock "
            "requests", stray)

    # --root-span of the heaviest request: exactly what the log says
    by_root = {}
    for s in log.samples:
        if s.kind == KIND_LOCK and s.context and s.context[1]:
            by_root[s.context[1]] = by_root.get(s.context[1], 0) + s.weight
    t.check(by_root, "no lock sample carries a context")
    root, want = max(by_root.items(), key=lambda kv: kv[1])
    got = sum(w for _, w in tc.folded(t, path, ["--kind", "lock", "--root-span", str(root)],
                                      "root span"))
    t.note("--root-span %d: %d ns, the log holds %d", root, got, want)
    t.check(abs(got - want) <= len(by_root) + 1, "--root-span %d shows %d ns, the log holds %d",
            root, got, want)


if __name__ == "__main__":
    ft.main(test, "lock samples by request: --endpoint, --root-span, against wall samples")
