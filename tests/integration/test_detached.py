#!/usr/bin/env python3
"""detached: a JNI library's worker thread that detaches from the JVM keeps being sampled.

Detached (java/src/dev/flyprof/workload/Detached.java, tests/jni/detached_worker.c) runs a
native thread `detach-worker` that attaches to the JVM, spins in Java (Detached.spinJava) for
0.5 s of its CPU, detaches -- DetachCurrentThread posts ThreadEnd, which disarms the thread's
CPU timer -- and spins in C (`detached_spin`) for 2 s of its CPU. Truth: 200 intervals of
10 ms in detached_spin, on a thread the JVM no longer knows.

Asserted, under cpu=10ms, with the agent loaded at startup (-agentpath) and attached to a JVM
already running (the worker starts after the attach): the weight of stacks through
detached_spin is at least 75% of the truth (the agent lists the threads 200 ms after a
ThreadEnd and arms the thread again: about 0.2 s of 2 s is lost; before, all of it was), and
the Java part was sampled too (>= 40% of its 50 intervals).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_attach_common as ac  # noqa: E402

JAVA_S = 0.5
NATIVE_S = 2.0
INTERVAL_S = 0.010
OPTIONS = "cpu=10ms"
SPIN = "detached_spin"
JAVA = "dev.flyprof.workload.Detached.spinJava"


def check_log(t, fpl, what):
    p = t.convert(fpl)
    spin = p.weight(lambda f: any(ft.method_of(x) == SPIN for x in p.frames(f)))
    java = p.weight(lambda f: p.has(f, JAVA))
    want_spin, want_java = NATIVE_S / INTERVAL_S, JAVA_S / INTERVAL_S
    t.note("%s: %d intervals in %s (truth %d), %d in %s (truth %d); threads %s", what, spin,
           SPIN, want_spin, java, JAVA, want_java, sorted(p.thread_weights()))
    t.check(spin >= 0.75 * want_spin, "%s: %d intervals in %s after the detach, want >= %d",
            what, spin, SPIN, 0.75 * want_spin)
    t.check(java >= 0.4 * want_java, "%s: %d intervals in %s, want >= %d", what, java, JAVA,
            0.4 * want_java)


def body(t):
    lib = os.path.join(t.args.build, "tests", "libflyprof_detached.so")
    t.check(os.path.isfile(lib), "no JNI library at %s", lib)
    run, fpl = t.run_java("startup", "Detached", [lib, JAVA_S, NATIVE_S],
                          agent_options=OPTIONS)
    t.check(run.num("detached_native_cpu_ns") >= 0.9 * NATIVE_S * 1e9,
            "the worker spent %s ns in C, want %d", run.results.get("detached_native_cpu_ns"),
            NATIVE_S * 1e9)
    check_log(t, fpl, "-agentpath")

    # attached: the JVM waits for the go file, so the worker starts under the agent
    go = t.path("go")
    jvm = ac.Jvm(t, "attached", "Detached", [lib, JAVA_S, NATIVE_S, go],
                 ready_thread="detach-ready")
    fpl = t.path("attach.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-e", "cpu", "-i", "10ms", "-o", fpl])
    ac.expect(t, r, 0, "profiling process %d" % jvm.pid)
    open(go, "w").close()
    deadline = time.monotonic() + 60
    while "result " not in jvm.stdout() and jvm.alive() and time.monotonic() < deadline:
        time.sleep(0.1)
    t.check("result " in jvm.stdout(), "the attached JVM's worker did not finish: %s",
            jvm.stdout()[-300:])
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0, "profile written to " + fpl)
    os.unlink(go)
    jvm.proc.wait(timeout=60)
    rc = jvm.stop()
    t.check(rc == 0, "the attached JVM exited with status %s", rc)
    check_log(t, fpl, "attach")


if __name__ == "__main__":
    ac.main(body, "a JNI worker thread sampled after it detached from the JVM")
