#!/usr/bin/env python3
"""native_nolock: the signal handler, native walk included, neither allocates nor locks.

nolock_shim.so (LD_PRELOAD) wraps the handlers installed for SIGPROF and the real-time signals
and counts, per thread, the calls made while such a handler runs to malloc and friends, mmap,
pthread mutexes and rwlocks, sigprocmask (libunwind masks signals around its locks) and
dl_iterate_phdr/dladdr (the loader's lock); see nolock_shim.c.

First the controls, so that the proof can fail: nolock_control takes SIGPROF samples of itself
with a handler that (1) does nothing forbidden -- the shim counts handler runs and no call --,
(2) calls malloc -- the shim must count it --, (3) walks with libunwind's unw_step -- the shim
must see its dl_iterate_phdr and locks, which is why flyprof's handler never calls unw_step.

Then real JVMs under the shim, with native frames on and 1 ms CPU plus wall sampling: loaded at
startup (-agentpath) and attached to a running JVM. Asserted: the handlers ran (>= 300 times),
the profile holds native frames (the walk ran: readBytes, deflate, libjvm's C++ frames of GC
threads), and not one forbidden call was made inside a handler.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import native_common as nc  # noqa: E402
import test_attach_common as ac  # noqa: E402


def read_report(t, path):
    t.check(os.path.isfile(path), "the shim wrote no report at %s", path)
    runs, calls, callers = 0, {}, []
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "handlers":
                runs = int(w[1])
            elif w and w[0] == "call":
                calls[w[1]] = int(w[2])
            elif w and w[0] == "caller":
                callers.append(" ".join(w[1:]))
    return runs, calls, callers


def shim_env(t, out):
    env = dict(os.environ)
    env["LD_PRELOAD"] = os.path.join(t.args.build, "tests", "libnolock_shim.so")
    env["FLYPROF_NOLOCK_OUT"] = out
    return env


def control(t, mode):
    out = t.path("control-%s.txt" % mode)
    exe = os.path.join(t.args.build, "tests", "nolock_control")
    r = subprocess.run([exe, mode], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=shim_env(t, out), timeout=120, cwd=t.tmp)
    t.runs.append(ft.Run("control " + mode, [exe, mode], r, 0, False))
    t.check(r.returncode == 0, "nolock_control %s: exit status %s", mode, r.returncode)
    runs, calls, callers = read_report(t, out)
    t.note("control %s: %d handler runs, calls %s", mode, runs, calls or "none")
    t.check(runs >= 10, "control %s: only %d handler runs seen", mode, runs)
    return calls


def check_jvm(t, what, report, fpl):
    runs, calls, callers = read_report(t, report)
    p = t.convert(fpl)
    natives = p.weight(lambda f: any(nc.is_native(x) and not ft.is_marker(x)
                                     for x in p.frames(f)))
    cpp = p.weight(lambda f: any("::" in x for x in p.frames(f)))
    t.note("%s: %d handler runs, %d of %d weight with native frames (%d with C++ frames), "
           "forbidden calls %s", what, runs, natives, p.total(), cpp, calls or "none")
    for c in callers[:20]:
        t.note("  called from: %s", c)
    t.check(runs >= 300, "%s: only %d handler runs seen by the shim", what, runs)
    t.check(natives >= 100, "%s: only %d weight with native frames: the walk did not run",
            what, natives)
    t.check(cpp >= 10, "%s: no libjvm C++ frames: the JVM's threads were not walked", what)
    # a walk that faults is ended by flyprof's crash guard, which puts back the walk's signal
    # mask (one sigprocmask, async-signal-safe, no lock) before it jumps back: one per fault
    # the log counts, and from libflyprof itself
    r = t.flyprof("summary " + os.path.basename(fpl), ["summary", fpl])
    m = re.search(r"walks that faulted, ended by the crash guard: (\d+)", r.stdout)
    faults = int(m.group(1)) if r.returncode == 0 and m else 0
    masks = calls.get("sigprocmask", 0)
    if masks and masks <= faults and all("libflyprof" in c for c in callers
                                         if c.startswith("sigprocmask")):
        t.note("%s: %d sigprocmask call(s): the crash guard ending %d faulted walk(s)", what,
               masks, faults)
        calls = {k: v for k, v in calls.items() if k != "sigprocmask"}
    t.check(not calls, "%s: forbidden calls inside signal handlers: %s (callers: %s)", what,
            calls, "; ".join(callers[:10]))


def body(t):
    t.check(not control(t, "clean"), "the clean control made forbidden calls")
    calls = control(t, "malloc")
    t.check(calls.get("malloc", 0) >= 10 and calls.get("free", 0) >= 10,
            "the shim missed malloc/free in a handler: %s", calls)
    calls = control(t, "unw_step")
    t.check(calls.get("dl_iterate_phdr", 0) + calls.get("pthread_mutex_lock", 0) +
            calls.get("sigprocmask", 0) > 0,
            "the shim saw no lock in libunwind's unw_step inside a handler: %s", calls)

    opts = "cpu=1ms,wall=10ms"
    # loaded at startup: NativeFrames (JNI, zlib) with a small heap, so GC threads work too
    report = t.path("startup-report.txt")
    fpl = t.path("startup.fpl")
    t.logs.append(fpl)
    jvm = ac.Jvm(t, "startup", "NativeFrames", [3],
                 jvm_options=["-Xmx64m", "-agentpath:%s=%s,file=%s" % (t.agent, opts, fpl)],
                 env=shim_env(t, report), ready_thread=None)
    jvm.proc.wait(timeout=180)
    t.check(jvm.stop() == 0, "the JVM under the shim exited with status %s", jvm.proc.returncode)
    check_jvm(t, "-agentpath", report, fpl)

    # attached to a running JVM (the shim was preloaded at its start)
    report = t.path("attach-report.txt")
    fpl = t.path("attach.fpl")
    t.logs.append(fpl)
    jvm = ac.Jvm(t, "attached", "GcChurn", [60], jvm_options=["-XX:+UseG1GC", "-Xmx256m"],
                 env=shim_env(t, report), ready_thread="churn-1")
    r = ac.flyprof(t, "attach", ["attach", jvm.pid, "-d", "3", "-e", "cpu,wall", "-i", "1ms",
                                 "-o", fpl])
    ac.expect(t, r, 0, "profile written to " + fpl)
    # the shim reports at exit: end the JVM normally (SIGTERM runs the exit hooks)
    jvm.stop()
    check_jvm(t, "attach", report, fpl)


if __name__ == "__main__":
    ac.main(body, "no allocation, lock or loader call inside the signal handlers")
