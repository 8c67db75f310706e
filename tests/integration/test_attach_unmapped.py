#!/usr/bin/env python3
"""attach_unmapped: at attach, a thread's JavaThread that is gone by the time the agent reads
it costs that thread its adoption, not the JVM its life.

To adopt the Java threads that run before an attach, the agent reads each one's JavaThread
(found through Thread.eetop) and its OSThread, for the thread's kernel tid, on the Attach
Listener, before any crash guard exists. A thread that ends between the eetop read and these
reads has its JavaThread freed, and possibly unmapped: a plain load faults, and the fault
killed the JVM. The reads now go through saferead (agent/jvm/saferead.h), which fails cleanly.

The real window is microseconds wide, so a test hook makes it certain:
FLYPROF_TEST_ADOPT_UNMAPPED=light has the agent read the JavaThread of the thread named
`light` at an address where nothing is mapped. TwoThreads (threads `heavy` and `light`, both
spinning in TwoThreads.unit) runs without the agent; `flyprof attach -d 2` must then:
- exit 0 with a complete log, the JVM alive and not crashed (before: SIGSEGV in the Attach
  Listener, the JVM dead);
- have adopted every other thread: at least 80% of heavy's samples name TwoThreads.unit;
- have left light alone (as a thread that ended): none of its samples has a Java frame.
The plain adoption (every thread adopted) is what the other attach tests check.
"""
import os

import test_attach_common as ac

UNIT = "dev.flyprof.workload.TwoThreads.unit"


def body(t):
    env = dict(os.environ, FLYPROF_TEST_ADOPT_UNMAPPED="light")
    jvm = ac.Jvm(t, "two", "TwoThreads", [600], env=env, ready_thread="light")
    fpl = t.path("attached.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "attach", ["attach", jvm.pid, "-d", "2", "-i", "10ms", "-o", fpl])
    t.check(jvm.alive(), "the JVM died at the attach (status %s): %s", jvm.proc.poll(),
            jvm.stderr()[-1500:])
    ac.expect(t, r, 0, "profile written to " + fpl)
    ac.check_complete(t, fpl, "the attached log")
    p = t.convert(fpl)
    heavy = t.thread_profile(p, "heavy", 20)
    in_unit = heavy.weight(lambda f: heavy.has(f, UNIT))
    light = p.thread("light")
    light_java = light.weight(lambda f: any(ac.ft.method_of(x).startswith(("dev.flyprof.",
                                                                           "java."))
                                            for x in f))
    t.note("heavy: %d samples, %d in TwoThreads.unit; light: %d samples, %d with Java frames",
           heavy.total(), in_unit, light.total(), light_java)
    t.check(in_unit >= 0.8 * heavy.total(), "heavy was not adopted: %d of its %d samples name "
            "TwoThreads.unit", in_unit, heavy.total())
    t.check(light_java == 0, "light was adopted although its JavaThread could not be read: %d "
            "of its samples have Java frames", light_java)
    t.check(jvm.alive(), "the JVM died after the attach")
    jvm.stop()


if __name__ == "__main__":
    ac.main(body, "a JavaThread unmapped under the adoption at attach does not kill the JVM")
