#!/usr/bin/env python3
"""walk_javac: javac from the JDK (JavacLoop: in-process javac on 400 generated classes, again
and again) runs interpreted, C1 and C2 code, stubs and adapters; lost walks (a stack that is a
marker alone) are at most 1% of the compiling thread's samples, with -agentpath and attached to
a running JVM. About 500-600 samples of the worker per run (5-6 s of its CPU), at least 200
required: a true loss rate of 0.3% gives 1-2 lost samples.
"""
import walk_common as wc

THREAD = "javac-worker"


def check(t, how, s):
    t.check(s.total >= 200, "%s: only %d samples of %s (want >= 200)", how, s.total, THREAD)
    t.check(s.share(s.lost) <= 0.01, "%s: %.2f%% lost walks, want <= 1%%: %s", how,
            100 * s.share(s.lost), s.markers)


def body(t):
    _, s = wc.agentpath(t, "javac", "JavacLoop", [6, 400], THREAD)
    _, a = wc.attach(t, "javac_attach", "JavacLoop", [120, 400], THREAD, 2, 5, stop_file=True)
    check(t, "agentpath", s)
    check(t, "attach", a)


if __name__ == "__main__":
    wc.main(body, "javac's stacks are walked")
