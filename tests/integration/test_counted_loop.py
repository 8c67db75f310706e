#!/usr/bin/env python3
"""counted_loop: a wrapper calls a counted-loop kernel (CountedLoop.java), run with
-XX:-UseCountedLoopSafepoints so the compiled loop, inlined into the wrapper, has no safepoint
poll at all.

Asserts that CountedLoop.kernel is on the stack of at least 95% of the worker thread's weight
(failed samples included). The truth is about 99.8%: the wrapper only reads the clock twice
(about 50 ns) per 40 us kernel call. A walker that falls back to the nearest safepoint or call
site charges the wrapper instead.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402

SECONDS = 4
KERNEL = "dev.flyprof.workload.CountedLoop.kernel"
WRAPPER = "dev.flyprof.workload.CountedLoop.timed"


def test(t):
    run, fpl = t.run_java("counted_loop", "CountedLoop", [SECONDS],
                          jvm_options=["-XX:-UseCountedLoopSafepoints"])
    p = t.convert(fpl)
    w = t.thread_profile(p, "counted-worker", min_weight=100)
    total = w.total()
    kernel = w.weight(lambda f: w.has(f, KERNEL))
    wrapper_leaf = w.weight(lambda f: f and ft.method_of(f[-1]) == WRAPPER)
    t.note("worker weight %d (CPU %.2f s), kernel on stack %d, wrapper as leaf %d, markers %s",
           total, run.num("worker_cpu_ns") / 1e9, kernel, wrapper_leaf,
           w.marker_weights() or "none")
    share = kernel / total
    t.note("kernel share of worker weight: %.4f (want >= 0.95)", share)
    t.check(share >= 0.95, "kernel on the stack of %.1f%% of the worker's weight, want >= 95%%",
            100 * share)


if __name__ == "__main__":
    ft.main(test, "a counted loop without safepoint polls is attributed to its method")
