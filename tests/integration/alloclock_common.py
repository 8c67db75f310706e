"""What test_alloc.py and test_lock.py share: running a workload under the agent from
-agentpath, or attached with `flyprof start -e ...` while it waits for a go-file, and reading
the folded profile of one kind."""
import os
import subprocess
import time

import test_attach_common as ac


def run_agentpath(t, name, workload, args, options):
    """(results, log, the JVM's stdout and stderr): the workload run with
    -agentpath:...=options."""
    r, fpl = t.run_java(name, workload, args, agent_options=options)
    return r.results, fpl, r.stdout + r.stderr


def run_attached(t, name, workload, args, events, ready_thread, extra=()):
    """(results, log, the JVM's stdout and stderr): the workload started without the agent,
    its threads waiting for a go-file; `flyprof start PID -e events` attaches and starts profiling; the go-file lets the
    work begin, all of it inside the profile; the JVM's exit completes the log."""
    go = t.path(name + ".go")
    out = t.path(name + ".fpl")
    t.logs.append(out)
    jvm = ac.Jvm(t, name, workload, list(args) + [go],
                 jvm_options=["-XX:+EnableDynamicAgentLoading"]
                 if ac.java_major(t.java) >= 21 else [],
                 ready_thread=ready_thread)
    r = ac.flyprof(t, "start " + name, ["start", jvm.pid, "-e", events, "-o", out] +
                   list(extra))
    ac.expect(t, r, 0)
    with open(go, "w"):
        pass
    try:
        jvm.proc.wait(timeout=240)
    except subprocess.TimeoutExpired:
        pass  # jvm.stop() below ends it and the check fails
    rc = jvm.stop()
    t.check(rc == 0, "%s: the JVM exited with status %s", name, rc)
    results = {}
    for line in jvm.stdout().splitlines():
        if line.startswith("result "):
            for kv in line.split()[1:]:
                k, _, v = kv.partition("=")
                results[k] = v
    t.check(results, "%s: the workload printed no result line: %s", name, jvm.stdout()[-500:])
    for _ in range(100):  # the agent finishes the log at VMDeath, before the JVM exits
        if os.path.isfile(out) and os.path.getsize(out) > 0:
            break
        time.sleep(0.05)
    ac.check_complete(t, out, name)
    return results, out, jvm.stdout() + jvm.stderr()


def folded(t, fpl, kind, suffix=""):
    """The log's samples of kind as folded stacks with thread roots, parsed: a list of
    (frames root first, weight)."""
    out = fpl[:-4] + ".%s%s.collapsed" % (kind, suffix)
    r = t.flyprof("convert %s --kind %s" % (os.path.basename(fpl), kind),
                  ["convert", fpl, "--kind", kind, "--threads", "-o", out])
    t.check(r.returncode == 0, "flyprof convert --kind %s: exit status %s: %s", kind,
            r.returncode, r.stderr[-500:])
    lines = []
    with open(out, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, w = line.rstrip("\n").rpartition(" ")
            if stack:
                lines.append((stack.split(";"), int(w)))
    return lines
