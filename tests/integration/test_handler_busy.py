#!/usr/bin/env python3
"""handler_busy: the signal handlers' scratch buffers are sized by the machine's CPUs, and a
handler run that finds them all busy is counted, not only marked.

A handler copies its stack into one of a set of scratch buffers before the ring; a run that
finds every buffer busy keeps its sample as `[handler_busy]`, unwalked. There were 16 whatever
the machine: on many cores with many busy threads, the aligned timer ticks start more handlers
at once than that, and nothing counted them.

- -agentpath, FLYPROF_TEST_CPUS=64 (testhook.h: size as on 64 CPUs): `summary --json` says
  256 scratch buffers (four per CPU).
- -agentpath and attached, FLYPROF_TEST_SCRATCH=0 (no buffer: every run finds them all busy,
  as runs do when more meet at once than there are buffers, which two cores cannot make
  happen often enough to test), CpuBound's 2 busy threads at cpu=10ms: the counter
  (`agent.handler_busy`, and the text summary's line) counts at least 90% of the samples (all
  but runs nested in another), and the profile has at least as many `[handler_busy]` samples
  (each counted run kept its sample, with its weight).
"""
import json
import os
import time

import test_attach_common as ac

ft = ac.ft
BUSY = "[handler_busy]"


def summary_json(t, fpl):
    r = ac.flyprof(t, "summary --json " + os.path.basename(fpl), ["summary", "--json", fpl])
    ac.expect(t, r, 0)
    return json.loads(r.stdout)


def check_busy(t, fpl, what):
    doc = summary_json(t, fpl)
    agent = doc["agent"]
    p = t.convert(fpl)
    marked = p.weight(lambda f: BUSY in f)
    t.note("%s: scratch_buffers %s, handler_busy %s, [handler_busy] weight %d of %d", what,
           agent.get("scratch_buffers"), agent.get("handler_busy"), marked, p.total())
    t.check(agent.get("scratch_buffers") == 0, "%s: %s scratch buffers, want 0", what,
            agent.get("scratch_buffers"))
    busy = agent.get("handler_busy", 0)
    t.check(busy >= 20, "%s: %d handler runs counted as finding the buffers busy, want >= 20",
            what, busy)
    t.check(marked >= busy, "%s: %d [handler_busy] samples, fewer than the %d counted", what,
            marked, busy)
    # with no buffer, every sample is unwalked: the counter covers all but nested runs. Runs
    # against samples, not weight: timer overruns fold into a sample's weight (260 for 225
    # samples at load 15)
    samples = doc["cpu"]["samples"]
    t.check(busy >= 0.9 * samples, "%s: %d runs counted busy of %d samples", what, busy,
            samples)
    s = ac.flyprof(t, "summary " + os.path.basename(fpl), ["summary", fpl])
    t.check("scratch buffers busy" in s.stdout, "%s: the text summary does not count the "
            "handler runs that found the buffers busy: %s", what, s.stdout[-1200:])


def body(t):
    _, fpl = t.run_java("cpus64", "CpuBound", [1, 1], agent_options="cpu=10ms",
                        env={"FLYPROF_TEST_CPUS": "64"})
    agent = summary_json(t, fpl)["agent"]
    t.note("FLYPROF_TEST_CPUS=64: %s scratch buffers", agent.get("scratch_buffers"))
    t.check(agent.get("scratch_buffers") == 256, "sized for 64 CPUs: %s scratch buffers, want "
            "256", agent.get("scratch_buffers"))

    none = {"FLYPROF_TEST_SCRATCH": "0"}
    _, fpl = t.run_java("none", "CpuBound", [1, 2, "cpu"], agent_options="cpu=10ms", env=none)
    check_busy(t, fpl, "-agentpath")

    jvm = ac.Jvm(t, "attached", "CpuBound", [60, 2], env=dict(os.environ, **none),
                 ready_thread="cpu-2")
    fpl = t.path("attached.fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, "start", ["start", jvm.pid, "-o", fpl, "cpu=10ms"])
    ac.expect(t, r, 0, "profiling process %d" % jvm.pid)
    time.sleep(3)
    r = ac.flyprof(t, "stop", ["stop", jvm.pid])
    ac.expect(t, r, 0)
    jvm.stop()
    check_busy(t, fpl, "attached")


if __name__ == "__main__":
    ac.main(body, "scratch buffers sized by CPUs, and busy ones counted")
