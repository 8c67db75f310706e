#!/usr/bin/env python3
"""dict_bound: the writer's dictionaries overflow their memory bound once and then stay small.

DictBurst spends 3 s of CPU on each of two threads recursing 120 levels down random call sites
(nearly every sample a new stack; CPU time, so a loaded machine does not shrink the burst), then
6 s in a steady loop (a handful of stacks). The agent runs at cpu=1ms
with its dictionary bound lowered to 1 MB (FLYPROF_TEST_DICT_BYTES, a test hook), far below
what the burst needs and far above what the steady phase needs.

Truth: the burst overflows the bound (the log's DICT_RESETS counter is at least 1); after
that the dictionaries hold only the steady working set, so they are not cleared again. A
writer whose cleared maps keep their capacity (the bug this test was written for) measures the
same size after every clear and clears every second: DictBurst.steady, sampled all through
the steady phase, is then written as a METHOD record once a second (6+ times) and the counter
climbs by one a second. Allowed: at most 3 resets and 3 METHOD records of DictBurst.steady
(one at first use, one after the burst's last reset, one spare for a reset that lands while
the steady phase starts), and no more resets than show as DictBurst.pick or .steady written
again (plus one).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_wall_fpl as wf  # noqa: E402

CTR_DICT_RESETS = 11
STEADY = "dev.flyprof.workload.DictBurst.steady"
BURST = "dev.flyprof.workload.DictBurst.pick"


def body(t):
    r, fpl = t.run_java("burst", "DictBurst", [3, 6], agent_options="cpu=1ms",
                        env={"FLYPROF_TEST_DICT_BYTES": str(1 << 20)})
    log = wf.read_fpl(fpl)
    t.check(log.end_ticks is not None, "the log has no END record")
    resets = log.counters.get(CTR_DICT_RESETS)
    steady = [m for m in log.method_records if m.full == STEADY]
    burst = [m for m in log.method_records if m.full == BURST]
    t.note("chunks %d, METHOD records %d, DictBurst.pick written %d times, DictBurst.steady "
           "written %d times (in chunks %s), DICT_RESETS %s", log.chunks,
           len(log.method_records), len(burst), len(steady), [m.chunk for m in steady], resets)
    p = t.convert(fpl)
    total = p.total()
    on_steady = p.weight(lambda f: p.has(f, STEADY))
    t.note("samples: total weight %d, DictBurst.steady %d", total, on_steady)
    # the steady phase was sampled: otherwise nothing below says anything
    t.check(on_steady >= 100, "DictBurst.steady has weight %d (want >= 100)", on_steady)
    # the burst overflowed the bound (else the test proves nothing)
    t.check(resets is not None and resets >= 1 or len(burst) >= 2,
            "the dictionaries were never reset (DICT_RESETS %s): the burst did not reach the "
            "1 MB bound", resets)
    t.check(len(steady) <= 3, "DictBurst.steady was written %d times in a %d-chunk log: the "
            "dictionaries keep being cleared after the burst", len(steady), log.chunks)
    # every reset is seen as a method written again: DictBurst.pick while the burst runs
    # (how often depends on how long the burst's CPU time takes on this machine), then
    # DictBurst.steady; a reset seen by neither cleared dictionaries that held nothing new
    seen = len(burst) - 1 + max(len(steady) - 1, 0)
    t.check(resets is None or resets <= seen + 1, "the dictionaries were reset %d times, but "
            "only %d resets show as DictBurst.pick or .steady written again: they keep being "
            "cleared", resets, seen)
    t.check(resets is not None, "no DICT_RESETS counter in the log")


if __name__ == "__main__":
    ft.main(body, "the dictionary bound clears once after a burst, not every second")
