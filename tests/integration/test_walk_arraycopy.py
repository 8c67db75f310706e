#!/usr/bin/env python3
"""walk_arraycopy: StubLoops arraycopy spends almost all its CPU in the arraycopy stub that
AbstractStringBuilder.shift calls, inlined into AbstractStringBuilder.delete, StringBuilder.delete
and StubLoops.deleteLoop. AsyncGetCallTrace cannot walk from a pc inside the stub; the walker must
unwind the stub's frame from what HotSpot knows of it and walk from its caller, so that the
inlined frames are kept. At least 90% of the worker's samples carry the whole chain
deleteLoop -> StringBuilder.delete -> AbstractStringBuilder.delete -> AbstractStringBuilder.shift
(a walk charged to the outer compiled method, which drops the inlined frames, fails this), and
more than 1% carry the stub's own frame. With -agentpath and attached to a running JVM whose
worker thread predates the agent; its loop starts once the agent runs. Code compiled before an
attach has no debug information between safepoints (HotSpot records it only while a JVMTI agent
wants CompiledMethodLoad events or with -XX:+DebugNonSafepoints), and an arraycopy stub is a
leaf call with none of its own: its caller's inlined frames cannot be known exactly there, by
AsyncGetCallTrace or anyone else, until the JIT compiles that code again. A first, short run
with walk=agct (AsyncGetCallTrace alone) must lose at least half the worker's samples in the
stub: the option is honoured, and the figures above are the walker's doing.
About 300 samples of the worker per run (3 s of its CPU), at least 100 required.

The stub is a leaf call: HotSpot records no debug information at its return address, and the
code after it can be the loop's next call site (StubLoops$Deadline.reached), which an
AsyncGetCallTrace-like lookup of the next PcDesc put between the stub and deleteLoop on a CPU
with AVX-512 (HotSpot's *_avx3 stubs): 2-4% of the samples carried the chain there, 97% with
-XX:UseAVX=2. The walker now picks among the PcDescs around the call (stackwalk.c,
leaf_return_pc). On such a CPU the checks run with the JVM's default stubs and once more, with
-agentpath, with -XX:UseAVX=2, so that both stub families are walked right.
"""
import test_wall_fpl as fpl
import walk_common as wc

CHAIN = ["dev.flyprof.workload.StubLoops.deleteLoop", "java.lang.StringBuilder.delete",
         "java.lang.AbstractStringBuilder.delete", "java.lang.AbstractStringBuilder.shift"]
THREAD = "stub-worker"


def check(t, how, s):
    t.check(s.total >= 100, "%s: only %d samples of %s (want >= 100)", how, s.total, THREAD)
    chain = s.share(s.chain(CHAIN))
    t.note("%s: full chain %.2f%% (want >= 90%%), stub frames %.2f%% (want > 1%%)", how,
           100 * chain, 100 * s.share(s.stub))
    t.check(chain >= 0.90, "%s: %.1f%% of the samples carry the inlined chain %s, want >= 90%%",
            how, 100 * chain, " -> ".join(CHAIN))
    t.check(s.share(s.stub) > 0.01, "%s: stub frames in %.2f%% of the samples, want > 1%%", how,
            100 * s.share(s.stub))


# enum fpl_frame_type (FORMAT.md 6.7)
JAVA, INTERPRETED, COMPILED, INLINED, C1, STUB = 0, 1, 2, 3, 4, 6


def check_types(t, how, path):
    """Frame types, read from the log (folded output does not show them): in the worker's
    stacks holding the chain, deleteLoop runs compiled (C1 or C2: its loop runs for seconds),
    shift is inlined (a tiny private method), the stub is a STUB frame, and Thread.run (run
    once) is interpreted, each in at least 80% of the chain's weight; and no stack has an
    inlined frame whose caller is neither inlined nor compiled (inlined frames sit on a
    compiled frame)."""
    log = fpl.read_fpl(path)
    chain = ok = bad = 0
    for smp in log.samples:
        if smp.thread != THREAD:
            continue
        frames = [(log.methods[m][1] + "." + log.methods[m][2], ty, log.methods[m][0])
                  for m, _, ty in log.stacks.get(smp.stack_id, [])]
        for a, b in zip(frames, frames[1:]):  # a is the callee of b (leaf first)
            if a[1] == INLINED and b[1] not in (INLINED, COMPILED, C1):
                bad += smp.weight
                break
        names = [f[0] for f in frames]
        if CHAIN[-1] not in names or CHAIN[0] not in names:
            continue
        chain += smp.weight
        ty = {n: ft for n, ft, _ in frames}
        if (ty[CHAIN[0]] in (COMPILED, C1) and ty[CHAIN[-1]] == INLINED
                and frames[0][1] == STUB and frames[0][2] == 4
                and ty.get("java.lang.Thread.run") == INTERPRETED):
            ok += smp.weight
    t.note("%s: frame types right in %d of %d chain weight; %d weight with an inlined frame "
           "on a non-compiled caller", how, ok, chain, bad)
    t.check(chain >= 50, "%s: only %d weight with the chain", how, chain)
    t.check(ok >= 0.8 * chain, "%s: frame types right in only %d of %d (want 80%%): "
            "deleteLoop compiled, shift inlined, the stub a STUB, Thread.run interpreted",
            how, ok, chain)
    t.check(bad == 0, "%s: %d weight has an inlined frame whose caller is not compiled", how,
            bad)


def avx512():
    """Whether this CPU has AVX-512 (HotSpot then uses its *_avx3 arraycopy stubs)."""
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx512f" in line for line in f)
    except OSError:
        return False


def body(t):
    # walk=agct: AsyncGetCallTrace alone gives up inside the stub, so most samples are lost;
    # this shows the option works and that the recovery is what the checks below measure
    # (cstack=off: the native walk would name the stub from the code cache by itself)
    _, plain = wc.agentpath(t, "arraycopy_agct", "StubLoops", ["arraycopy", 1], THREAD,
                            options="cpu=10ms,walk=agct,cstack=off")
    t.check(plain.total >= 30, "walk=agct: only %d samples (want >= 30)", plain.total)
    t.check(plain.share(plain.lost) >= 0.5 and plain.stub == 0,
            "walk=agct: %.1f%% lost walks and %d stub frames; AGCT alone should lose most "
            "samples inside the stub and name no stub", 100 * plain.share(plain.lost),
            plain.stub)
    _, s = wc.agentpath(t, "arraycopy", "StubLoops", ["arraycopy", 3], THREAD)
    _, a = wc.attach(t, "arraycopy_attach", "StubLoops", ["arraycopy", 60], THREAD, 0, 3,
                     go_file=True)
    check(t, "agentpath", s)
    check_types(t, "agentpath", t.path("arraycopy.fpl"))
    check(t, "attach", a)
    check_types(t, "attach", t.path("arraycopy_attach.fpl"))
    if avx512():
        _, d = wc.agentpath(t, "arraycopy_avx2", "StubLoops", ["arraycopy", 3], THREAD,
                            jvm_options=["-XX:UseAVX=2"])
        check(t, "agentpath -XX:UseAVX=2", d)
        check_types(t, "agentpath -XX:UseAVX=2", t.path("arraycopy_avx2.fpl"))


if __name__ == "__main__":
    wc.main(body, "arraycopy stub under inlined frames keeps the whole chain")
