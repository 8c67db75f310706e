#!/usr/bin/env python3
"""push: `flyprof push` ships logs into a real ClickHouse (clickhouse-server 18.16 from Debian,
started on loopback with its own data folder and free ports, stopped by pid).

CpuBound's two workers for 5 s at loop=2s make three logs. Asserted:
- pushed as service `svc`, host `h1`: per (thread, stack) the weights in ClickHouse (the
  samples table joined with the stacks table) equal, exactly, the local merge of the logs
  (`flyprof convert LOGS --threads` folded), and the samples counted equal the logs';
- `flyprof convert --db URL --service svc --host h1 --label v=1 --threads` (ClickHouse sums,
  flyprof renders) gives the same folded stacks and weights as the local merge, and a page;
  a window with no samples is an error that says so; --from 1h (an hour ago) gives the whole
  profile, --to 1h none;
- `summary --db` gives the CPU and wall weights of the logs' own summary; `diff --db` of two
  label values of one service draws a page, an empty range is an error, a SEL that is neither
  label nor range a usage error;
- an alloc log (AllocRatio with cpu, wall and alloc): convert --db --kind alloc and --kind cpu
  equal the log's own convert exactly, --kind wall within 1 per stack (the upscaled weight
  kept to 2^-20);
- pushed again: every log is skipped and nothing is counted twice;
- pushed as host `h2` too: the service's total doubles, host h1's stays;
- the server restarted: the data is still there, and a new push of a log works;
- `push --follow DIR` started while ClickHouse is down, beside an agent writing loop=1s logs
  into DIR: once the server is back, every log the agent closed is in, complete, and the
  service's profile equals the local merge of those logs; SIGTERM ends it with exit 0;
- a server that rejects the insert (a table of another shape) gives exit 1 and its message;
  an unreachable server names the URL; a bad URL is a usage error;
- 2 shards (two servers on 127.0.0.1 and 127.0.0.2, one cluster `fleet` in both's
  remote_servers): pushed with --cluster as hosts h1 and h5 (one on each shard), each shard
  holds rows; convert --db of host h1 equals the local merge and the single server's answer,
  and of all hosts (asked of the other server) twice it; with h1's logs deleted from the
  logs table (pushes that died before recording them), a push replaces their rows on every
  shard and the profile stays the local merge; a re-push skips every log; a push
  without --cluster and an unknown cluster are errors that say so.
"""
import glob
import json
import os
import signal
import subprocess
import time

import clickhouse_server
import flyprof_test as ft


def folded(t, logs):
    out = t.path("local.collapsed")
    r = t.flyprof("convert", ["convert"] + logs + ["--threads", "-o", out])
    t.check(r.returncode == 0, "convert: exit %s: %s", r.returncode, r.stderr[-300:])
    sums = {}
    with open(out) as f:
        for line in f:
            stack, _, w = line.rstrip("\n").rpartition(" ")
            sums[stack] = sums.get(stack, 0) + int(w)
    return sums


def fleet(ch, db, where):
    q = ("SELECT thread, frames, sum(weight) FROM %s.flyprof_samples ANY LEFT JOIN "
         "(SELECT stack, any(frames) AS frames FROM %s.flyprof_stacks GROUP BY stack) "
         "USING stack WHERE %s GROUP BY thread, frames FORMAT TabSeparated" % (db, db, where))
    sums = {}
    for line in ch.query(q).splitlines():
        thread, frames, w = line.split("\t")
        key = thread + ";" + frames.replace("\\\\", "\\")
        sums[key] = sums.get(key, 0) + round(float(w))
    return sums


def total(ch, db, where):
    return float(ch.query("SELECT sum(weight) FROM %s.flyprof_samples WHERE %s" % (db, where))
                 or 0)


def follow_check(t, ch):
    folder = t.path("follow")
    os.makedirs(folder)
    url = ch.url + "/fleet"
    ch.stop()
    out = open(t.path("follow.out"), "w")
    follower = subprocess.Popen([t.cli, "push", "--db", url, "--service", "fol", "--host", "f",
                                 "--follow", folder], stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    try:
        cmd = [t.java, "-agentpath:%s=cpu=10ms,loop=1s,file=%s" % (
            t.agent, os.path.join(folder, "f.fpl")), "-cp", t.jar,
            ft.WORKLOAD_PKG + "CpuBound", "4", "2"]
        r = t.run("follow workload", cmd, 120)
        t.check_jvm(r)
        ch.start()
        logs = sorted(glob.glob(os.path.join(folder, "f-*.fpl")))
        deadline = time.monotonic() + 90
        n = 0
        while time.monotonic() < deadline:
            n = int(ch.query("SELECT count() FROM fleet.flyprof_logs WHERE service = 'fol' AND "
                             "complete = 1").strip() or 0)
            if n >= len(logs):
                break
            time.sleep(0.5)
        t.note("--follow: %d of %d logs in after the server came back", n, len(logs))
        t.check(n == len(logs) and len(logs) >= 3, "--follow: %d of %d logs in ClickHouse", n,
                len(logs))
        local = folded(t, logs)
        remote = fleet(ch, "fleet", "service = 'fol'")
        t.check(local == remote, "--follow: ClickHouse's profile differs from the local merge "
                "(%d stacks, %d there)", len(local), len(remote))
    finally:
        follower.send_signal(signal.SIGTERM)
        try:
            rc = follower.wait(timeout=30)
        except subprocess.TimeoutExpired:
            follower.kill()
            rc = None
        out.close()
    with open(t.path("follow.out")) as f:
        said = f.read()
    t.note("--follow said: %s", said.strip().replace("\n", " | ")[:300])
    t.check(rc == 0, "push --follow: exit %s after SIGTERM: %s", rc, said[-400:])
    t.check("will try again" in said, "push --follow did not say it would retry: %s",
            said[-400:])


def db_summary_diff(t, url, logs):
    """summary --db tells the weights the logs' summary does; diff --db of two labels."""
    r = t.flyprof("summary logs", ["summary", "--json"] + logs)
    t.check(r.returncode == 0, "summary of the logs: exit %s: %s", r.returncode, r.stderr[-300:])
    want = json.loads(r.stdout)
    r = t.flyprof("summary --db", ["summary", "--json", "--db", url, "--service", "svc",
                                   "--host", "h1"])
    t.check(r.returncode == 0, "summary --db: exit %s: %s", r.returncode, r.stderr[-300:])
    got = json.loads(r.stdout)
    for kind in ("cpu", "wall"):
        w, g = (want.get(kind) or {}).get("weight", 0), (got.get(kind) or {}).get("weight", 0)
        t.note("summary --db: %s weight %s, the logs' %s", kind, g, w)
        t.check(abs(g - w) <= 1e-6 * max(1, w), "summary --db: %s weight %s, the logs' %s",
                kind, g, w)
    t.check(want["cpu"]["weight"] > 0, "summary of the logs: no CPU weight")
    # the text: ClickHouse's rows are not called samples, and their made-up ticks not shown
    r = t.flyprof("summary --db text", ["summary", "--db", url, "--service", "svc",
                                        "--host", "h1"])
    t.check(r.returncode == 0 and " rows, weight " in r.stdout and "from ClickHouse" in r.stdout
            and "wall ticks:" not in r.stdout and " samples, weight " not in r.stdout,
            "summary --db says rows, without wall ticks: %s", r.stdout[:600])
    # two label values of one service
    for i, log_ in enumerate(logs):
        r = push(t, "push svc2", url, [log_], "--service", "svc2", "--host", "h9",
                 "--label", "v=%d" % (1 if i == 0 else 2))
        t.check(r.returncode == 0, "push svc2: exit %s: %s", r.returncode, r.stderr[-300:])
    out = t.path("labels.html")
    r = t.flyprof("diff --db", ["diff", "--db", url, "--service", "svc2", "--base", "v=1",
                                "--new", "v=2", "-o", out])
    t.check(r.returncode == 0 and os.path.getsize(out) > 10000, "diff --db: exit %s: %s",
            r.returncode, r.stderr[-300:])
    r = t.flyprof("diff --db range", ["diff", "--db", url, "--service", "svc2", "--base",
                                      "2099-01-01T00:00:00..", "--new", "v=2", "-o", out])
    t.check(r.returncode == 1 and "no samples" in r.stderr, "diff --db of an empty range: "
            "exit %s: %r", r.returncode, r.stderr[-300:])
    r = t.flyprof("diff --db bad", ["diff", "--db", url, "--service", "svc2", "--base", "v1",
                                    "--new", "v=2", "-o", out])
    t.check(r.returncode == 2 and "FROM..TO" in r.stderr, "diff --db --base v1: exit %s: %r",
            r.returncode, r.stderr[-300:])


def kinds_check(t, url):
    """alloc samples (AllocRatio, tests/integration/test_alloc.py's workload) beside CPU and
    wall: pushed, and convert --db --kind K equals the log's own convert --kind K."""
    fpl = t.path("alloc.fpl")
    cmd = [t.java, "-agentpath:%s=cpu=10ms,wall=20ms,alloc,file=%s" % (t.agent, fpl), "-cp",
           t.jar, ft.WORKLOAD_PKG + "AllocRatio", "256"]
    r = t.run("alloc workload", cmd, 180)
    t.check_jvm(r)
    r = push(t, "push alloc", url, [fpl], "--service", "allocsvc", "--host", "a1")
    t.check(r.returncode == 0 and "not pushed" not in r.stderr, "push of an alloc log: exit %s: "
            "%s", r.returncode, r.stderr[-300:])
    for kind, tol in (("alloc", 0), ("cpu", 0), ("wall", 1)):
        local, remote = t.path("k-%s.collapsed" % kind), t.path("k-%s-db.collapsed" % kind)
        r = t.flyprof("convert --kind " + kind, ["convert", fpl, "--kind", kind, "--threads",
                                                 "-o", local])
        t.check(r.returncode == 0, "convert --kind %s: exit %s: %s", kind, r.returncode,
                r.stderr[-300:])
        r = t.flyprof("convert --db --kind " + kind, ["convert", "--db", url, "--service",
                                                      "allocsvc", "--kind", kind, "--threads",
                                                      "-o", remote])
        t.check(r.returncode == 0, "convert --db --kind %s: exit %s: %s", kind, r.returncode,
                r.stderr[-300:])
        want, got = folded_file(local), folded_file(remote)
        diff = [k for k in set(want) | set(got) if abs(want.get(k, 0) - got.get(k, 0)) > tol]
        t.note("--kind %s: %d stacks, weight %d locally; %d stacks, weight %d from ClickHouse; "
               "%d differ (by more than %d)", kind, len(want), sum(want.values()), len(got),
               sum(got.values()), len(diff), tol)
        t.check(want and not diff, "--kind %s: convert --db differs from the log in %d stacks, "
                "e.g. %r: %s and %s", kind, len(diff), diff[:1],
                want.get(diff[0]) if diff else "", got.get(diff[0]) if diff else "")
        if kind == "alloc":
            t.check(any("byte[]" in k for k in got), "--kind alloc: no byte[] leaf from "
                    "ClickHouse")


def push(t, name, url, logs, *extra):
    return t.flyprof(name, ["push", "--db", url] + list(extra) + logs)


def body(t):
    if not os.access(clickhouse_server.BINARY, os.X_OK):
        ft.skip("push", "no %s (scripts/setup installs clickhouse-server)" %
                clickhouse_server.BINARY)
    ch = clickhouse_server.single(t.path("clickhouse"))
    try:
        logs, single = run(t, ch)
    finally:
        ch.stop()
    servers = clickhouse_server.cluster(t.path("cluster"), "fleet")
    try:
        shards_check(t, servers, logs, single)
    finally:
        for s in servers:
            s.stop()


def folded_file(path):
    got = {}
    with open(path) as f:
        for line in f:
            stack, _, w = line.rstrip("\n").rpartition(" ")
            got[stack] = got.get(stack, 0) + int(w)
    return got


def shards_check(t, servers, logs, single):
    """The same pushes and queries against two shards (a Distributed table over both)."""
    url = servers[0].url + "/fleet"
    local = folded(t, logs)
    # h1 and h5 land on different shards (sipHash64(host) % 2: 1 and 0)
    for host in ("h1", "h5"):
        r = push(t, "push cluster " + host, url, logs, "--cluster", "fleet", "--service", "svc",
                 "--host", host, "--label", "v=1")
        t.check(r.returncode == 0, "push --cluster: exit %s: %s", r.returncode, r.stderr[-600:])
    counts = [int(s.query("SELECT count() FROM fleet.flyprof_samples_local").strip() or 0)
              for s in servers]
    t.note("2 shards: %s rows on each shard", counts)
    t.check(all(counts), "a shard holds no rows: %s", counts)
    for name, server, extra, factor in (("h1", servers[0], ["--host", "h1"], 1),
                                        ("all hosts, asked of shard 2", servers[1], [], 2)):
        out = t.path("cluster-%s.collapsed" % extra[-1] if extra else "cluster-all.collapsed")
        r = t.flyprof("convert --db cluster", ["convert", "--db", server.url + "/fleet",
                                               "--service", "svc", "--label", "v=1",
                                               "--threads", "-o", out] + extra)
        t.check(r.returncode == 0, "convert --db (2 shards, %s): exit %s: %s", name,
                r.returncode, r.stderr[-400:])
        got = folded_file(out)
        want = {k: v * factor for k, v in local.items()}
        diff = [k for k in set(want) | set(got) if want.get(k) != got.get(k)]
        t.note("2 shards, %s: %d stacks, weight %d; %d differ from the local merge (x%d)", name,
               len(got), sum(got.values()), len(diff), factor)
        t.check(not diff, "2 shards (%s): convert --db differs from the local merge in %d "
                "stacks, e.g. %r", name, len(diff), diff[:1])
        if factor == 1:
            t.check(got == single, "2 shards: an answer other than the single server's")
    # pushes of h1 that died before they recorded their logs: their rows go on every shard
    # before the logs go in again
    for s in servers:
        s.query("ALTER TABLE fleet.flyprof_logs_local DELETE WHERE host = 'h1'")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and int(servers[0].query(
            "SELECT count() FROM fleet.flyprof_logs WHERE host = 'h1'").strip()):
        time.sleep(0.2)
    r = push(t, "push cluster replace", url, logs, "--cluster", "fleet", "--service", "svc",
             "--host", "h1", "--label", "v=1")
    t.check(r.returncode == 0 and r.stdout.count("replacing an earlier push") == len(logs),
            "push --cluster over rows without their log: exit %s: %s", r.returncode, r.stdout)
    out = t.path("cluster-replaced.collapsed")
    r = t.flyprof("convert --db replaced", ["convert", "--db", url, "--service", "svc",
                                            "--host", "h1", "--threads", "-o", out])
    got = folded_file(out) if r.returncode == 0 else {}
    t.check(got == local, "2 shards: after the replacing push, host h1's profile is not the "
            "local merge (weight %d, want %d)", sum(got.values()), sum(local.values()))
    before = float(servers[1].query("SELECT sum(weight) FROM fleet.flyprof_samples"))
    r = push(t, "push cluster again", url, logs, "--cluster", "fleet", "--service", "svc",
             "--host", "h5", "--label", "v=1")
    t.check(r.returncode == 0 and r.stdout.count("skipped") == len(logs),
            "push --cluster again: exit %s, %r", r.returncode, r.stdout)
    after = float(servers[0].query("SELECT sum(weight) FROM fleet.flyprof_samples"))
    t.check(after == before, "a second push into 2 shards changed the total: %s, %s", before,
            after)
    r = push(t, "push cluster without --cluster", url, logs[:1], "--service", "svc")
    t.check(r.returncode == 1 and "--cluster" in r.stderr,
            "a push without --cluster into a cluster's tables: exit %s, %r", r.returncode,
            r.stderr[-300:])
    r = push(t, "push unknown cluster", servers[0].url + "/other", logs[:1], "--cluster", "nope",
             "--service", "svc")
    t.check(r.returncode == 1 and "no cluster 'nope'" in r.stderr,
            "an unknown cluster: exit %s, %r", r.returncode, r.stderr[-300:])


def run(t, ch):
    cmd = [t.java, "-agentpath:%s=cpu=10ms,loop=2s,file=%s" % (t.agent, t.path("app.fpl")),
           "-cp", t.jar, ft.WORKLOAD_PKG + "CpuBound", "5", "2"]
    r = t.run("workload", cmd, 120)
    t.check_jvm(r)
    logs = sorted(glob.glob(t.path("app-*.fpl")))
    t.check(len(logs) >= 2, "%d logs of loop=2s in 5 s", len(logs))
    url = ch.url + "/fleet"

    r = push(t, "push h1", url, logs, "--service", "svc", "--host", "h1", "--label", "v=1")
    t.check(r.returncode == 0, "push: exit %s: %s", r.returncode, r.stderr[-600:])
    t.note("push: %s", r.stdout.strip().replace("\n", " | "))
    local = folded(t, logs)
    remote = fleet(ch, "fleet", "service = 'svc'")
    diff = [k for k in set(local) | set(remote) if local.get(k) != remote.get(k)]
    t.note("%d stacks, weight %d locally; %d stacks, weight %d in ClickHouse; %d differ",
           len(local), sum(local.values()), len(remote), sum(remote.values()), len(diff))
    t.check(not diff, "ClickHouse's profile differs from the local merge in %d stacks, e.g. "
            "%r: %s local, %s in ClickHouse", len(diff), diff[0] if diff else "",
            local.get(diff[0]) if diff else "", remote.get(diff[0]) if diff else "")
    before = total(ch, "fleet", "service = 'svc'")

    # the fleet's flame graph, through flyprof's own outputs: the same stacks and weights
    out = t.path("fleet.collapsed")
    single = None
    r = t.flyprof("convert --db", ["convert", "--db", url, "--service", "svc", "--host", "h1",
                                   "--label", "v=1", "--threads", "-o", out])
    t.check(r.returncode == 0, "convert --db: exit %s: %s", r.returncode, r.stderr[-400:])
    got = {}
    with open(out) as f:
        for line in f:
            stack, _, w = line.rstrip("\n").rpartition(" ")
            got[stack] = got.get(stack, 0) + int(w)
    diff = [k for k in set(local) | set(got) if local.get(k) != got.get(k)]
    t.note("convert --db: %d stacks, weight %d; %d differ from the local merge", len(got),
           sum(got.values()), len(diff))
    t.check(not diff, "convert --db differs from the local merge in %d stacks, e.g. %r",
            len(diff), diff[:1])
    single = got
    r = t.flyprof("convert --db html", ["convert", "--db", url, "--service", "svc", "-o",
                                        t.path("fleet.html")])
    t.check(r.returncode == 0 and os.path.getsize(t.path("fleet.html")) > 10000,
            "convert --db -o fleet.html: exit %s: %s", r.returncode, r.stderr[-300:])
    # relative bounds with --db are before now: the logs were made a moment ago
    r = t.flyprof("convert --db --from 1h", ["convert", "--db", url, "--service", "svc",
                                             "--host", "h1", "--from", "1h", "--threads", "-o",
                                             t.path("hour.collapsed")])
    t.check(r.returncode == 0 and folded_file(t.path("hour.collapsed")) == got,
            "convert --db --from 1h: exit %s, not the whole profile: %s", r.returncode,
            r.stderr[-300:])
    r = t.flyprof("convert --db --to 1h", ["convert", "--db", url, "--service", "svc", "--to",
                                           "1h", "-o", t.path("none.collapsed")])
    t.check(r.returncode == 1 and "no samples" in r.stderr, "convert --db --to 1h (an hour "
            "ago): exit %s: %r", r.returncode, r.stderr[-300:])
    r = t.flyprof("convert --db later", ["convert", "--db", url, "--service", "svc", "--from",
                                         "2099-01-01T00:00:00", "-o", t.path("none.collapsed")])
    t.check(r.returncode == 1 and "no samples of service 'svc'" in r.stderr,
            "a window with nothing: exit %s: %r", r.returncode, r.stderr)

    db_summary_diff(t, url, logs)
    kinds_check(t, url)

    r = push(t, "push again", url, logs, "--service", "svc", "--host", "h1", "--label", "v=1")
    t.check(r.returncode == 0 and r.stdout.count("skipped") == len(logs),
            "push again: exit %s, %r", r.returncode, r.stdout)
    t.check(total(ch, "fleet", "service = 'svc'") == before, "a second push changed the total")

    r = push(t, "push h2", url, logs, "--service", "svc", "--host", "h2", "--label", "v=1")
    t.check(r.returncode == 0, "push h2: exit %s: %s", r.returncode, r.stderr[-400:])
    both, h1 = total(ch, "fleet", "service = 'svc'"), total(ch, "fleet", "host = 'h1'")
    t.note("service total %.0f after two hosts, host h1 %.0f, one push %.0f", both, h1, before)
    t.check(abs(both - 2 * before) < 1e-6 and abs(h1 - before) < 1e-6,
            "two hosts: total %s, h1 %s, want %s and %s", both, h1, 2 * before, before)

    ch.stop()
    ch.start()
    t.check(total(ch, "fleet", "service = 'svc'") == both, "the data did not survive a restart")
    r = push(t, "push after restart", url, logs[:1], "--service", "svc", "--host", "h3")
    t.check(r.returncode == 0 and "samples in" in r.stdout,
            "push after a restart: exit %s: %s %s", r.returncode, r.stdout, r.stderr[-300:])

    follow_check(t, ch)

    ch.query("CREATE DATABASE IF NOT EXISTS bad")
    ch.query("CREATE TABLE IF NOT EXISTS bad.flyprof_samples (x UInt8) ENGINE = Memory")
    r = push(t, "push rejected", ch.url + "/bad", logs[:1], "--service", "svc")
    t.check(r.returncode == 1 and "rejected the query" in r.stderr and "Code:" in r.stderr,
            "a rejected insert: exit %s, %r", r.returncode, r.stderr[-500:])
    t.note("rejected: %s", r.stderr.strip().splitlines()[0][:160])

    port = clickhouse_server.free_port()
    r = push(t, "push unreachable", "http://127.0.0.1:%d" % port, logs[:1], "--service", "svc")
    t.check(r.returncode == 1 and ("127.0.0.1:%d" % port) in r.stderr and
            "cannot reach" in r.stderr, "unreachable: exit %s, %r", r.returncode, r.stderr)
    r = push(t, "push bad url", "https://x", logs[:1], "--service", "svc")
    t.check(r.returncode == 2 and "http://HOST" in r.stderr, "bad URL: exit %s, %r",
            r.returncode, r.stderr)
    return logs, single


if __name__ == "__main__":
    ft.main(body, "flyprof push ships logs into ClickHouse, idempotently, exactly")
