#!/usr/bin/env python3
"""html_real: the flame graph of a real JVM run, in a real browser.

Split123 (flyprof.jar) spends its worker's CPU in unitA, unitB, unitC as 1:2:3 (see
tests/integration/test_split123.py). The run is profiled with the agent (cpu=10ms), the log
converted with `flyprof convert -o split.html` and with `-o split.collapsed`; headless chromium
opens the page and searches. The same run has the agent render a page itself at exit
(file=agent.html, the log kept with log=split.fpl). Asserts:
- the page draws the workload's frames (Split123.work, unitA/B/C, kernel) under a thread root;
- searching `unitC` shows the share the folded output gives (exactly, to rounding) and that
  share is about one half (0.5 x the part of all samples that is in a unit, within 3 points;
  0.5 x the worker thread's part, within 7);
- unitC among the samples in any unit (searching `unit[ABC]`) is 1/2 within 3 points;
- the callers view, which the page computes itself, finds the same shares;
- the agent's own page shows the same unitC share as the folded output of its log, and its
  timeline (#view=timeline) a row for the worker, on CPU, and a range lighter than the whole;
- a screenshot of the page is taken (kept with --keep, for people to look at).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser as bw  # noqa: E402
from browser import Failure, check, close  # noqa: E402

SECONDS = 3
CLS = "dev.flyprof.workload.Split123"


def folded_share(path, regex):
    """(weight of stacks with a frame matching regex, total weight) from a folded file."""
    hit = total = 0
    rx = re.compile(regex)
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            w = int(count)
            total += w
            if any(rx.search(fr) for fr in stack.split(";")):
                hit += w
    return hit, total


def run(cmd, cwd, timeout=180):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", cwd=cwd, timeout=timeout)
    check(p.returncode == 0, "%s: exit %d\n%s", " ".join(cmd), p.returncode, p.stderr[-3000:])
    return p


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--java", required=True)
    ap.add_argument("--cli")
    ap.add_argument("--agent")
    ap.add_argument("--jar")
    ap.add_argument("--chromium")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    a.cli = a.cli or os.path.join(a.build, "bin", "flyprof")
    a.agent = a.agent or os.path.join(a.build, "lib", "libflyprof.so")
    a.jar = a.jar or os.path.join(a.build, "lib", "flyprof.jar")
    a.chromium = bw.find_chromium(a.chromium)
    if not a.chromium:
        bw.skip("html_real", "no chromium (scripts/setup installs it)")
    base = os.path.join(a.build, "tests", "browser")
    os.makedirs(base, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="html_real-", dir=base)
    b = bw.Browser(a.chromium, tmp)
    note = lambda m: print("  " + m, flush=True)  # noqa: E731
    print("html_real: %s, java %s" % (a.chromium, a.java), flush=True)
    try:
        fpl = os.path.join(tmp, "split.fpl")
        page = os.path.join(tmp, "split.html")
        agent_page = os.path.join(tmp, "agent.html")
        folded = os.path.join(tmp, "split.collapsed")
        r = run([a.java, "-agentpath:%s=cpu=10ms,file=%s,log=%s" % (a.agent, agent_page, fpl),
                 "-cp", a.jar, CLS, str(SECONDS)], tmp)
        note(next((l for l in r.stdout.splitlines() if l.startswith("result ")), "no result"))
        run([a.cli, "convert", fpl, "-o", page, "--threads"], tmp)
        run([a.cli, "convert", fpl, "-o", folded, "--threads"], tmp)
        size = os.path.getsize(page)
        note("split.html: %d bytes" % size)

        hit, total = folded_share(folded, "unitC")
        units, _ = folded_share(folded, "unit[ABC]")
        worker_w, _ = folded_share(folded, "^split-worker$")
        check(total >= 150, "only %d samples in the folded output", total)
        want = hit / total
        note("folded: unitC %d, any unit %d, split-worker %d, total %d" % (hit, units, worker_w,
                                                                          total))

        for view in (None, "callers"):
            p = b.dump(page, bw.hash_of("unitC", view))
            what = "unitC share in the page%s" % (" (callers)" if view else "")
            note(close(p.share, want, 0.000001, what + " = folded"))
            note(close(p.share, 0.5 * units / total, 0.03, what + " vs half the unit samples"))
            # half the worker's samples: the other threads' share (the agent's writer, JIT and
            # GC threads) is what the machine makes it, a quarter of the samples on a slow one
            note(close(p.share, 0.5 * worker_w / total, 0.07,
                       what + ", about one half of the worker's"))
            check(p.matched_text.startswith("Matched"), "matched text %r", p.matched_text)
            pu = b.dump(page, bw.hash_of("unit[ABC]", view))
            note(close(p.share / pu.share, 0.5, 0.03, "unitC / any unit" +
                       (" (callers)" if view else "")))
            if view is None:
                names = {f.name for f in p.frames}
                for m in ("work", "unitA", "unitB", "unitC", "block", "kernel"):
                    check(CLS + "." + m in names, "frame %s.%s not drawn; drawn: %s", CLS, m,
                          sorted(names)[:60])
                worker = [f for f in p.frames if f.name == "split-worker" and f.depth == 1]
                check(len(worker) == 1 and worker[0].total >= 0.9 * units,
                      "thread root split-worker: %s", worker)
                check([f.name for f in p.frames if f.matched] ==
                      [CLS + ".unitC"] * len([f for f in p.frames if f.matched]),
                      "only unitC frames are highlighted")
                st = p.stats
                note("drawn %s of %s frames; page ready at %s ms" % (
                    st.get("data-drawn"), st.get("data-nodes"), st.get("data-ms-ready")))
        p = b.dump(agent_page, bw.hash_of("unitC"))
        note(close(p.share, want, 0.000001, "unitC share in the agent's page = folded"))
        check(p.heading and "Split123" in p.heading, "agent page heading %r", p.heading)
        check(any(f.name == CLS + ".unitC" for f in p.frames), "agent page lacks unitC")

        # the agent's page has the run's timeline: the worker's row, on CPU, and the flame
        # graph of the run's first half lighter than the whole
        p = b.dump(agent_page, "view=timeline&dump")
        rows = dict((t, m) for t, m in re.findall(
            r'<div class="fp-tl-row" data-thread="([^"]*)"[^>]*data-main="([^"]*)"', p.dom))
        check(rows.get("split-worker") == "cpu", "agent page timeline rows %s", rows)
        whole = p.one("all", 0).total
        ph = b.dump(agent_page, "view=timeline&range=0,%g&dump" % (SECONDS / 2))
        half = ph.one("all", 0).total
        check(0 < half < whole, "first half of the run weighs %s of %s", half, whole)
        note("agent page timeline: rows %s; first %.1f s weigh %d of %d" % (
            sorted(rows), SECONDS / 2, half, whole))
        shot = os.path.join(tmp, "timeline.png")
        check(b.screenshot(page, shot, "view=timeline&range=0,%g" % (SECONDS / 2)),
              "no timeline screenshot")

        shot = os.path.join(tmp, "split.png")
        check(b.screenshot(page, shot, bw.hash_of("unitC", dump=False)), "no screenshot")
        note("screenshot %s" % shot)
    except (Failure, subprocess.TimeoutExpired) as e:
        print("\nFAIL html_real: %s\nkept %s" % (e, tmp), flush=True)
        sys.exit(1)
    print("PASS html_real", flush=True)
    if a.keep:
        print("kept %s" % tmp)
    else:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
