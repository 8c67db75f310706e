#!/usr/bin/env python3
"""walk_intrinsics: StubLoops intrinsics runs CRC32, Adler32, Base64, MD5 and SHA-1 over buffers;
in compiled code each is a stub (StubRoutines) that AsyncGetCallTrace cannot walk from. Lost
walks (a stack that is a marker alone) stay under 1% of the worker's samples, with -agentpath
and attached to a running JVM. About 300 samples per run (3 s of the worker's CPU), at least 100
required.
"""
import walk_common as wc

THREAD = "stub-worker"


def check(t, how, s):
    t.check(s.total >= 100, "%s: only %d samples of %s (want >= 100)", how, s.total, THREAD)
    t.check(s.share(s.lost) < 0.01, "%s: %.2f%% lost walks, want < 1%%: %s", how,
            100 * s.share(s.lost), s.markers)


def body(t):
    _, s = wc.agentpath(t, "intrinsics", "StubLoops", ["intrinsics", 3], THREAD)
    _, a = wc.attach(t, "intrinsics_attach", "StubLoops", ["intrinsics", 60], THREAD, 1, 3,
                     stop_file=True)
    check(t, "agentpath", s)
    check(t, "attach", a)


if __name__ == "__main__":
    wc.main(body, "intrinsic stubs are walked")
