#!/usr/bin/env python3
"""killed_render: a JVM profiling into a rendered output (file=x.html, written when profiling
stops) that is killed with SIGKILL leaves something a user finds and opens.

- At start the agent says on the JVM's stderr where the log goes meanwhile (x.html.fpl) and
  how to render it should the JVM die first.
- After kill -9, that log exists, no empty x.html is left behind, and `flyprof convert` of
  the log writes the flame graph, with the workload's samples.
- `flyprof record -o r.html -- java ...` whose JVM is killed says that r.html was not
  rendered and names the log and the command that renders it.
"""
import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_attach_common as ac  # noqa: E402

SAID = re.compile(r"^flyprof: profiling into the log (\S+); (\S+) is rendered from it when "
                  r"profiling stops \(should the JVM die first: flyprof convert (\S+) -o (\S+)\)$",
                  re.M)


def check_log_converts(t, fpl, page):
    """The log converts into a flame graph page of the workload."""
    t.check(os.path.isfile(fpl) and os.path.getsize(fpl) > 0, "no log at %s", fpl)
    t.logs.append(fpl)
    r = t.flyprof("convert " + os.path.basename(fpl), ["convert", fpl, "-o", page])
    t.check(r.returncode == 0, "flyprof convert %s -o %s: exit %s: %s", fpl, page, r.returncode,
            r.stderr)
    with open(page, encoding="ascii", errors="replace") as f:
        t.check('id="fp-data"' in f.read(), "%s is not a flame graph page", page)
    p = t.convert(fpl)
    w = p.weight(lambda f: any(ft.method_of(x).startswith(ft.WORKLOAD_PKG + "Split123.")
                               for x in f))
    t.check(w >= 20, "the log of the killed JVM holds %d samples of Split123", w)
    t.note("%s: converted; %d samples of Split123", os.path.basename(fpl), w)


def wait_for_samples(t, fpl):
    """Waits until the log holds chunks of samples. A chunk is written every second, but not
    while the writer builds libjvm's unwind table (1-3 s after the start on a busy 2-core
    machine), so this waits for the file to grow rather than a fixed time."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if os.path.exists(fpl) and os.path.getsize(fpl) >= 4096:
            time.sleep(1.5)
            return
        time.sleep(0.1)
    t.check(False, "%s holds no samples after 60 s", fpl)


def agentpath(t):
    out = t.path("x.html")
    jvm = ac.Jvm(t, "killed", "Split123", args=[60],
                 jvm_options=["-agentpath:%s=cpu=10ms,file=%s" % (t.agent, out)])
    m = SAID.search(jvm.stderr())
    t.check(m, "the agent does not say where the log of x.html goes: %r", jvm.stderr()[-1500:])
    fpl, named = m.group(1), m.group(2)
    t.check(named == out and m.group(3) == fpl and m.group(4) == out,
            "the start message names %s and %s, want the output %s", fpl, named, out)
    t.note("start: %s", m.group(0))
    t.check(not os.path.exists(out), "an empty %s was left at start", out)
    wait_for_samples(t, fpl)
    jvm.proc.send_signal(signal.SIGKILL)
    jvm.proc.wait(30)
    t.check(not os.path.exists(out), "the killed JVM left %s (%d bytes)", out,
            os.path.getsize(out) if os.path.exists(out) else 0)
    check_log_converts(t, fpl, out)


def recorded(t):
    out = t.path("r.html")
    cmd = [t.cli, "record", "-o", out, "--", t.java, "-cp", t.jar, ft.WORKLOAD_PKG + "Split123",
           "60"]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         cwd=t.tmp)
    java = None
    deadline = time.monotonic() + 60
    while java is None and time.monotonic() < deadline:
        try:
            with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
                kids = f.read().split()
            java = int(kids[0]) if kids else None
        except OSError:
            pass
        time.sleep(0.1)
    t.check(java, "record started no command")
    wait_for_samples(t, out + ".fpl")
    os.kill(java, signal.SIGKILL)
    _, err = p.communicate(timeout=60)
    t.note("record: %s", " | ".join(err.strip().splitlines()))
    fpl = out + ".fpl"
    want = ("warning: no profile at '%s': the command ended before the agent rendered it; its "
            "log %s is readable up to its last complete chunk (flyprof convert %s -o %s)"
            % (out, fpl, fpl, out))
    t.check(want in err, "record does not name the log of the page it lacks: %r", err)
    t.check(p.returncode == 128 + signal.SIGKILL, "record exited %s", p.returncode)
    check_log_converts(t, fpl, out)


def test(t):
    agentpath(t)
    recorded(t)


if __name__ == "__main__":
    ft.main(test, "a JVM killed while profiling into a rendered output leaves its log, named")
