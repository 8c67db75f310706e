#!/usr/bin/env python3
"""failure_markers: on ordinary mixed CPU-bound code (CpuBound.java, 2 threads of 3 s of CPU
each: SHA-256, sorting, string building, hash maps), failed samples -- stacks whose leaf (or
only) frame is a marker such as `[agct:unknown_Java]` -- are at most 2% of all weight. About 600
samples, on a loaded machine too (a CPU budget, not a wall-time one), at least 300 required; for
a true failure rate of 0.5%, 2% is more than 4 standard deviations away.

A native frame without a name, `[libc.so.6]+0x16d800`, is not a failed walk (the stack is whole,
its leaf is a function of a known module), but it is a frame a person cannot read: on the two
workload threads, whose native leaves are libc, libm, the vDSO and libjvm, every one must be
named (with libc6-dbg, which scripts/setup installs, libc's and libm's local functions are).
Before flyprof read separate debug files and the vDSO's section headers, such frames were 1-2%
of the weight on JDK 25, and counting them as failures failed this test in CI at 2.01%. The
vDSO's own local code, which has no name anywhere (its symbol table is stripped), is noted,
not counted.

Plain AsyncGetCallTrace fails (-5, unknown_Java) whenever the pc is inside a JVM stub: a loop of
System.arraycopy gave 92-95% failed samples on JDK 17 and 25, and JDK 25's SHA-256 intrinsic
makes MessageDigest vanish into markers. This test is meant to fail until the agent recovers
such samples.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402

CPU_SECONDS = 3  # per thread
THREADS = 2
UNNAMED = re.compile(r"^\[[^\]]+\]\+0x[0-9a-f]+$")  # a native function of a known module
# The vDSO is stripped: only its entry points (clock_gettime, gettimeofday...) have names, and
# on these VMs its .text begins (0x780) with a local helper before the first of them (0x810);
# no tool can name a pc there (perf shows [vdso] too). Such leaves are noted, not failed: one
# failed a CI-like run with 1 weight of 768 (JDK 25).
VDSO = re.compile(r"^\[linux-vdso[^\]]*\]\+0x[0-9a-f]+$")


def test(t):
    run, fpl = t.run_java("failure_markers", "CpuBound", [CPU_SECONDS, THREADS, "cpu"])
    p = t.convert(fpl)
    total = p.total()
    t.check(total >= 300, "only %d weight in the profile (want >= 300)", total)
    all_markers = p.marker_weights()
    markers = {k: w for k, w in all_markers.items() if not UNNAMED.match(k)}
    unnamed = {k: w for k, w in all_markers.items() if UNNAMED.match(k)}
    bad = sum(markers.values())
    by_thread = {}
    unnamed_workload = vdso_workload = 0
    for f, w in p.samples:
        if p.is_marker_sample(f):
            name = ft.thread_name(f[0])
            by_thread[name] = by_thread.get(name, 0) + w
            fr = p.frames(f)
            if fr and UNNAMED.match(fr[-1]) and name.startswith("cpu-"):
                if VDSO.match(fr[-1]):
                    vdso_workload += w
                else:
                    unnamed_workload += w
    t.note("total weight %d (process CPU %.2f s), failed %d: %s; unnamed native leaves %d: %s; "
           "by thread %s", total, run.num("process_cpu_ns") / 1e9, bad, markers or "none",
           sum(unnamed.values()), unnamed or "none", by_thread or "none")
    t.note("workload leaves in the vDSO's unnamed code: %d weight", vdso_workload)
    share = bad / total
    t.note("marker share %.4f (want <= 0.02)", share)
    if share > 0.02 and markers.get("[agct:unknown_Java]", 0) * 2 > bad:
        t.note("most failures are AGCT -5 (unknown_Java): the pc was typically inside a JVM stub "
               "(arraycopy, string or SHA intrinsics), which AGCT cannot walk from")
    t.check(share <= 0.02, "failed samples are %.1f%% of the weight, want <= 2%%", 100 * share)
    t.check(unnamed_workload == 0, "%d weight of the workload threads ends in a native function "
            "without a name (want 0: libc6-dbg installed?)", unnamed_workload)


if __name__ == "__main__":
    ft.main(test, "failed samples are rare on ordinary code")
