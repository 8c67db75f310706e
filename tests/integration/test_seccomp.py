#!/usr/bin/env python3
"""seccomp: a JVM under a seccomp filter that refuses process_vm_readv, or kills the process
for it, is profiled as any other, and lives.

The agent reads JVM memory that may be unmapped (metadata of unloaded classes, other threads'
JavaThreads) through the kernel (agent/jvm/saferead.h). It used process_vm_readv: under a filter
that refuses it, every method was named `[unloaded]`; under one that kills for it (systemd's
SystemCallFilter= does by default) the JVM died at the first method the writer named.

Seccomp (java/src/dev/flyprof/workload/Seccomp.java, tests/jni/seccomp_jni.c) installs the
filter on every thread of the JVM, then spins in Seccomp.hot on the thread seccomp-worker,
whose methods are first named under the filter. Profiled with cpu and wall sampling (the wall
sampler reads each running thread's JVM state the same way):

1. -agentpath, EPERM filter, the agent forced to start with process_vm_readv
   (FLYPROF_TEST_SAFEREAD=vmreadv, a test hook; chosen before the filter comes): it is refused
   at run time, reads go through /proc/self/mem, and the agent says so exactly once;
2. attached to the running JVM, the same (the filter is in before the attach: the agent's
   probe sees the refusal), said exactly once;
3. -agentpath, a filter that kills for process_vm_readv, the agent as it comes: the JVM lives
   and exits 0, nothing is said;
4. attached, the killing filter, the agent started on its pipe way (FLYPROF_TEST_SAFEREAD=pipe):
   the JVM lives, and `flyprof summary` says the memory was read through a pipe (the log's
   SAFEREAD counter).
Each time: no `[unloaded]` or `[unknown_method]` frame, and at least 80% of seccomp-worker's
CPU samples name Seccomp.hot.
"""
import os
import re
import time

import test_attach_common as ac

HOT = "dev.flyprof.workload.Seccomp.hot"
SECS = 3
OPTIONS = "cpu=10ms,wall=20ms"


def said(text):
    return [line for line in text.splitlines() if line.startswith("flyprof:")]


def check_profile(t, fpl, what):
    p = t.convert(fpl)
    bad = p.weight(lambda f: any(x in ("[unloaded]", "[unknown_method]") for x in p.frames(f)))
    w = t.thread_profile(p, "seccomp-worker", 20)
    # the CPU samples of the worker (wall ones of a running thread look the same)
    hot = w.weight(lambda f: w.has(f, HOT))
    t.note("%s: total %d, seccomp-worker %d, in Seccomp.hot %d, [unloaded]/[unknown_method] %d",
           what, p.total(), w.total(), hot, bad)
    t.check(bad == 0, "%s: %d weight on [unloaded] or [unknown_method] frames: methods were "
            "not named under the filter", what, bad)
    t.check(hot >= 0.8 * w.total(), "%s: only %d of seccomp-worker's %d name Seccomp.hot", what,
            hot, w.total())


def check_said_once(t, text, what):
    lines = said(text)
    t.note("%s: the agent said %s", what, lines)
    t.check(len(lines) == 1 and "process_vm_readv" in lines[0] and
            "/proc/self/mem instead" in lines[0],
            "%s: want one line saying process_vm_readv failed and /proc/self/mem is used "
            "instead, got %s", what, lines)


def lib(t):
    path = os.path.join(t.args.build, "tests", "libflyprof_seccomp.so")
    t.check(os.path.isfile(path), "no JNI library at %s", path)
    return path


def agentpath(t, name, mode, env):
    r, fpl = t.run_java(name, "Seccomp", [lib(t), mode, SECS], agent_options=OPTIONS, env=env)
    t.check("phase filtered rc=0" in r.stdout, "%s: the filter was not installed: %s", name,
            r.stdout[-300:])
    ac.check_complete(t, fpl, name)
    check_profile(t, fpl, name)
    return r


def attached(t, name, mode, env):
    jvm = ac.Jvm(t, name, "Seccomp", [lib(t), mode, 600, "forever"],
                 env=dict(os.environ, **env), ready_thread="seccomp-worker")
    t.check("phase filtered rc=0" in jvm.stdout(), "%s: the filter was not installed: %s", name,
            jvm.stdout()[-300:])
    fpl = t.path(name + ".fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, name + " attach", ["attach", jvm.pid, "-d", SECS, "-e", "cpu,wall",
                                         "-i", "10ms", "--wall", "20ms", "-o", fpl])
    t.check(jvm.alive(), "%s: the JVM died under the attached agent (status %s): %s", name,
            jvm.proc.poll(), jvm.stderr()[-500:])
    ac.expect(t, r, 0, "profile written to " + fpl)
    ac.check_complete(t, fpl, name)
    check_profile(t, fpl, name)
    time.sleep(0.5)
    t.check(jvm.alive(), "%s: the JVM died after the attach", name)
    jvm.stop()
    return jvm, fpl


def body(t):
    hook = {"FLYPROF_TEST_SAFEREAD": "vmreadv"}
    r = agentpath(t, "agentpath-errno", "errno", hook)
    check_said_once(t, r.stderr, "agentpath-errno")

    jvm, _ = attached(t, "attached-errno", "errno", hook)
    check_said_once(t, jvm.stderr(), "attached-errno")

    r = agentpath(t, "agentpath-kill", "kill", {})
    t.check(not said(r.stderr), "agentpath-kill: the agent said %s", said(r.stderr))

    jvm, fpl = attached(t, "attached-kill", "kill", {"FLYPROF_TEST_SAFEREAD": "pipe"})
    t.check(not said(jvm.stderr()), "attached-kill: the agent said %s", said(jvm.stderr()))
    s = ac.flyprof(t, "summary attached-kill", ["summary", fpl])
    ac.expect(t, s, 0)
    t.check(re.search(r"JVM memory read through a pipe", s.stdout),
            "attached-kill: the summary does not say the memory was read through a pipe: %s",
            s.stdout[-1500:])


if __name__ == "__main__":
    ac.main(body, "a JVM under a seccomp filter against process_vm_readv is profiled and lives")
