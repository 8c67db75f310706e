#!/usr/bin/env python3
"""attach_errors: every way an attach can fail ends with exit status 1 and a message that says
what is wrong, and leaves the target running:

- no such process;
- a process that is not a JVM (`sleep`): it must survive, nothing may be sent to it (no
  trigger file left, no signal: a SIGQUIT would have killed it);
- stop / dump / status on a JVM without flyprof (status only reports it);
- profiling already running: a second start or attach is refused and the first profile keeps
  running; stop when nothing runs;
- the agent's own error (an unknown option) comes back from the JVM in the message;
- dynamic loading refused (-XX:-EnableDynamicAgentLoading): the message names
  -XX:+EnableDynamicAgentLoading;
- attach disabled (-XX:+DisableAttachMechanism) on the command line: refused before any
  signal (no thread dump in the JVM's output); hidden in an @argfile: the socket never comes
  and flyprof gives up with a timeout message;
- a stopped JVM (SIGSTOP): refused without a signal (none is pending when it continues);
- a JVM run with -Xrs (SIGQUIT would kill it) opens its socket at startup: attach works
  without a signal and the JVM survives (the guard for a JVM that does not handle SIGQUIT and
  has no socket yet is checked by tests/unit/test_attach.c);
- the warning about dynamically loaded agents exactly on JDK 21 and later, and not there with
  -XX:+EnableDynamicAgentLoading.
"""
import os
import signal
import subprocess
import time

import test_attach_common as ac

THREAD_DUMP = "Full thread dump"


def no_trigger_left(t, pid, cwd):
    for d in (cwd, "/tmp"):
        path = os.path.join(d, ".attach_pid%d" % pid)
        t.check(not os.path.exists(path), "a trigger file was left: %s", path)


def not_a_jvm(t):
    sleeper = subprocess.Popen(["sleep", "60"], cwd=t.tmp)
    try:
        r = ac.flyprof(t, "attach to sleep", ["attach", sleeper.pid, "-d", "1"])
        ac.expect(t, r, 1, "is not a Java VM")
        time.sleep(0.2)
        t.check(sleeper.poll() is None, "sleep died (status %s) after the attach attempt",
                sleeper.returncode)
        with open("/proc/%d/status" % sleeper.pid) as f:
            pending = [line for line in f if line.startswith(("SigPnd", "ShdPnd"))]
        t.check(all(line.split()[1].strip("0") == "" for line in pending),
                "signals pending in sleep: %s", pending)
        no_trigger_left(t, sleeper.pid, t.tmp)
    finally:
        sleeper.kill()
        sleeper.wait()


def no_process(t):
    gone = subprocess.Popen(["true"])
    gone.wait()
    r = ac.flyprof(t, "attach to a dead pid", ["attach", gone.pid, "-d", "1"])
    ac.expect(t, r, 1, "no process with pid %d" % gone.pid)


def control_errors(t, major):
    jvm = ac.Jvm(t, "plain", "Split123", [300])
    pid = jvm.pid
    out = ac.status(t, jvm, "status without flyprof")
    t.check("flyprof is not loaded" in out, "status without the agent says %r", out)
    ac.expect(t, ac.flyprof(t, "stop without flyprof", ["stop", pid]), 1, "not loaded")
    ac.expect(t, ac.flyprof(t, "dump without flyprof", ["dump", pid, "-o", "d.fpl"]), 1,
              "not loaded")

    # the agent's own message, through the reply file: it lists what it accepts
    r = ac.flyprof(t, "start with a bad option", ["start", pid, "--", "bogus"])
    ac.expect(t, r, 1, "unknown option 'bogus'", "accepted:")
    if major >= 21:
        ac.expect(t, r, 1, "-XX:+EnableDynamicAgentLoading")
    else:
        t.check("warning" not in r.stderr, "JDK %d warned: %s", major, r.stderr)

    first = t.path("first.fpl")
    t.logs.append(first)
    ac.expect(t, ac.flyprof(t, "start", ["start", pid, "-o", first]), 0)
    r = ac.flyprof(t, "attach while profiling", ["attach", pid, "-d", "1", "-o", "second.fpl"])
    ac.expect(t, r, 1, "already running", first)
    r = ac.flyprof(t, "start while profiling", ["start", pid, "-o", "third.fpl"])
    ac.expect(t, r, 1, "already running")
    out = ac.status(t, jvm, "status after the refused starts")
    t.check("flyprof is profiling" in out and first in out,
            "the first profile stopped after the refused starts: %r", out)
    t.check(not os.path.exists(t.path("second.fpl")) and not os.path.exists(t.path("third.fpl")),
            "a refused start created its output")

    d = t.path("dump.fpl")
    t.logs.append(d)
    ac.expect(t, ac.flyprof(t, "dump", ["dump", pid, "-o", d]), 0, d)
    t.check(os.path.getsize(d) > 0, "dump wrote nothing")
    ac.expect(t, ac.flyprof(t, "stop", ["stop", pid]), 0, "profile written to " + first)
    ac.expect(t, ac.flyprof(t, "stop again", ["stop", pid]), 1, "not running")
    ac.expect(t, ac.flyprof(t, "dump after stop", ["dump", pid, "-o", d]), 1, "not running")
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()


def refused(t):
    jvm = ac.Jvm(t, "refuses", "Split123", [300], ["-XX:-EnableDynamicAgentLoading"])
    r = ac.flyprof(t, "attach, loading refused", ["attach", jvm.pid, "-d", "1"])
    ac.expect(t, r, 1, "-XX:+EnableDynamicAgentLoading", "refuses")
    t.check(jvm.alive(), "the JVM refusing agents died")
    jvm.stop()


def disabled(t):
    jvm = ac.Jvm(t, "disabled", "Split123", [300], ["-XX:+DisableAttachMechanism"])
    r = ac.flyprof(t, "attach, attach disabled", ["attach", jvm.pid, "-d", "1"])
    ac.expect(t, r, 1, "attach is disabled", "-XX:+DisableAttachMechanism")
    time.sleep(0.5)
    t.check(THREAD_DUMP not in jvm.stdout(), "the JVM got a SIGQUIT (it printed a thread dump)")
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()

    # the flag in an argument file: flyprof cannot see it, signals, and times out
    with open(t.path("argfile"), "w") as f:
        f.write("-XX:+DisableAttachMechanism\n")
    jvm = ac.Jvm(t, "hidden", "Split123", [300], ["@argfile"])
    r = ac.flyprof(t, "attach, socket timeout", ["attach", jvm.pid, "-d", "1"])
    ac.expect(t, r, 1, "did not open its attach socket", "not responding")
    t.note("socket timeout reported after %.1f s", r.seconds)
    no_trigger_left(t, jvm.pid, t.tmp)
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()


def reduced_signals(t):
    """-Xrs: the JVM leaves SIGQUIT at its default (the signal would kill it) and opens its
    attach socket at startup instead: attach works through the socket, without a signal."""
    jvm = ac.Jvm(t, "xrs", "Split123", [300], ["-Xrs"])
    with open("/proc/%d/status" % jvm.pid) as f:
        caught = int([x for x in f if x.startswith("SigCgt:")][0].split()[1], 16)
    t.check(not caught & (1 << (signal.SIGQUIT - 1)), "the -Xrs JVM handles SIGQUIT")
    fpl = t.path("xrs.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "attach to a -Xrs JVM", ["attach", jvm.pid, "-d", "1", "-o", fpl])
    ac.expect(t, r, 0, "profile written to " + fpl)
    time.sleep(0.5)
    t.check(jvm.alive(), "the -Xrs JVM died (status %s)", jvm.proc.returncode)
    jvm.stop()


def stopped(t):
    jvm = ac.Jvm(t, "stopped", "Split123", [300])
    os.kill(jvm.pid, signal.SIGSTOP)
    try:
        for _ in range(200):
            with open("/proc/%d/stat" % jvm.pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] in "Tt":
                    break
            time.sleep(0.01)
        r = ac.flyprof(t, "attach to a stopped JVM", ["attach", jvm.pid, "-d", "1"])
        ac.expect(t, r, 1, "is stopped", "kill -CONT")
        # a signal sent to a stopped process waits in its pending set
        with open("/proc/%d/status" % jvm.pid) as f:
            pending = [int(x.split()[1], 16) for x in f if x.startswith(("SigPnd", "ShdPnd"))]
        t.check(not any(p & (1 << (signal.SIGQUIT - 1)) for p in pending),
                "a SIGQUIT is pending in the stopped JVM")
    finally:
        os.kill(jvm.pid, signal.SIGCONT)
    time.sleep(1)
    t.check(THREAD_DUMP not in jvm.stdout(), "a SIGQUIT was pending (the JVM dumped its threads "
            "when continued)")
    no_trigger_left(t, jvm.pid, t.tmp)
    t.check(jvm.alive(), "the JVM died")
    jvm.stop()


def warning(t, major):
    if major < 21:
        return
    jvm = ac.Jvm(t, "enabled", "Split123", [300], ["-XX:+EnableDynamicAgentLoading"])
    fpl = t.path("enabled.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "attach, loading enabled", ["attach", jvm.pid, "-d", "1", "-o", fpl])
    ac.expect(t, r, 0, "profile written to")
    t.check("EnableDynamicAgentLoading" not in r.stderr,
            "warned though the JVM runs with -XX:+EnableDynamicAgentLoading: %s", r.stderr)
    jvm.stop()
    t.check("WARNING" not in jvm.stderr(), "the JVM warned: %s", jvm.stderr())


def body(t):
    major = ac.java_major(t.java)
    t.note("JDK %d", major)
    no_process(t)
    not_a_jvm(t)
    control_errors(t, major)
    refused(t)
    disabled(t)
    stopped(t)
    reduced_signals(t)
    warning(t, major)


if __name__ == "__main__":
    ac.main(body, "attach errors are clear, quick, and leave the target running")
