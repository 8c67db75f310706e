#!/usr/bin/env python3
"""long_thread_names: threads keep their whole names in a profile, past the 15 characters the
kernel keeps of a thread's name (its comm), with -agentpath and attached.

LongNames runs a spinner named `long-named-spinner-started-first` from the start and
`long-named-spinner-started-later` from halfway (attached: after the attach), beside 200
parked threads that a wall-clock sampler at 1 ms walks, so that flyprof's own `flyprof wall
sampler` thread takes CPU samples too.

Asserted, in the CPU profile with one root per thread (`convert --threads`), for a run with
-agentpath (cpu=10ms,wall=1ms) and for `flyprof attach PID -e cpu,wall -i 10ms --wall 1ms`:
- both spinners are roots under their whole names, each with weight >= 20 (100 ms of CPU;
  each burns about 2 s);
- `flyprof wall sampler` is a root with weight >= 1;
- no root is the 15-character cut of any of these names (`long-named-spin`, `flyprof wall
  sa`), which is what the kernel's comm gives;
- with -agentpath in hiccup mode, no root holds an older agent's probe names (`flyprof hiccup
  java`, `flyprof hiccup os`) or their 15-character cuts: the one probe thread is `flyprof
  hiccup` (14 characters, its comm is the same), a root only when it took a CPU sample (it
  burns 1-3% of a CPU in wake-ups of ~25 us, which a 10 ms CPU timer often misses).
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_attach_common as ac  # noqa: E402

FIRST = "long-named-spinner-started-first"
LATER = "long-named-spinner-started-later"
SAMPLER = "flyprof wall sampler"
HICCUP = "flyprof hiccup"
OLD_PROBES = ("flyprof hiccup java", "flyprof hiccup os", "flyprof hiccup ", "flyprof hic os")
COMM_MAX = 15  # the kernel keeps 15 characters of a thread's name
SECONDS = 4


def check_names(t, fpl, what):
    p = t.convert(fpl)
    w = p.thread_weights()
    t.note("%s: %s", what, ", ".join("%s %d" % (n, w[n]) for n in sorted(w, key=lambda n: -w[n])))
    for name in (FIRST, LATER):
        t.check(w.get(name, 0) >= 20, "%s: thread %r has weight %d (want >= 20); roots: %s",
                what, name, w.get(name, 0), sorted(w))
    t.check(w.get(SAMPLER, 0) >= 1, "%s: no CPU samples of %r; roots: %s", what, SAMPLER,
            sorted(w))
    cut = {n[:COMM_MAX] for n in (FIRST, LATER, SAMPLER)}
    t.check(not cut & set(w), "%s: roots named by the kernel's 15 characters: %s", what,
            sorted(cut & set(w)))
    return w


def test(t):
    r, fpl = t.run_java("agentpath", "LongNames", [SECONDS, 200],
                        agent_options="cpu=10ms,wall=1ms,hiccup")
    w = check_names(t, fpl, "-agentpath")
    # hiccup mode's one probe thread, under its whole name when it has samples
    t.check(not set(OLD_PROBES) & set(w), "-agentpath: roots of the hiccup probes %s; want "
            "only %r: %s", sorted(set(OLD_PROBES) & set(w)), HICCUP, sorted(w))

    jvm = ac.Jvm(t, "attached", "LongNames", [SECONDS + 6, 200],
                 ready_thread=FIRST[:COMM_MAX])
    time.sleep(0.5)
    a = t.path("attach.fpl")
    t.logs.append(a)
    r = ac.flyprof(t, "attach", ["attach", jvm.pid, "-e", "cpu,wall", "-i", "10ms", "--wall",
                                 "1ms", "-d", str(SECONDS + 2), "-o", a], timeout=90)
    ac.expect(t, r, 0)
    check_names(t, a, "attached")
    jvm.proc.wait(timeout=60)
    t.check(jvm.stop() == 0, "the attached JVM did not end normally")


if __name__ == "__main__":
    ac.main(test, "thread names longer than 15 characters, -agentpath and attached")
