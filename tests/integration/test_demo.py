#!/usr/bin/env python3
"""demo: `scripts/demo` as a new user runs it first, from a clean tree: in a build directory of
its own (so the whole build runs, as on a fresh clone), with a 3 s profile.

- What it prints is the demo's, not the build's: one line saying where the build's output
  goes (that file then holds it), no line of cmake or make, and the README's story: the
  summary's endpoints table and the three "the story:" lines, not the whole summary. It
  exits 0 and writes the pages it lists.
- A build that fails (the build directory is a file) makes it exit non-zero with the build's
  output printed and the log named.
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# lines of cmake, make and the compilers: none may reach the terminal
BUILD_NOISE = re.compile(r"^(-- |\[ *\d+%\]|Scanning dependencies|Consolidate compiler|"
                         r"Built target|Building C|Linking C|Generating|Creating Java)", re.M)


def demo(t, name, build, out, timeout):
    env = dict(os.environ, FLYPROF_BUILD=build, FLYPROF_DEMO_OUT=out, FLYPROF_DEMO_SECONDS="3")
    return t.run(name, [os.path.join(ROOT, "scripts", "demo")], timeout, env=env)


def first_run(t):
    out = t.path("demo-out")
    r = demo(t, "demo", t.path("build"), out, 1500)
    t.check(not r.timed_out and r.returncode == 0, "scripts/demo exited %s: %s", r.returncode,
            (r.stdout + r.stderr)[-3000:])
    said = r.stdout + r.stderr
    lines = said.splitlines()
    t.note("scripts/demo printed %d lines in %.0f s", len(lines), r.seconds)
    noise = BUILD_NOISE.findall(said)
    t.check(not noise, "scripts/demo printed %d lines of the build, e.g. %r", len(noise),
            noise[:3])
    log = os.path.join(out, "build.log")
    t.check(lines and lines[0] == "demo: building the agent, the CLI and the jar, minutes the "
            "first time (its output: %s)" % log, "the first line does not say where the build's "
            "output goes: %r", lines[:1])
    with open(log, encoding="utf-8", errors="replace") as f:
        t.check("Built target flyprof_agent" in f.read(), "%s does not hold the build", log)
    t.check(re.search(r"^Endpoints \(dev\.flyprof\.Context\), by wall time: 2, \d+ requests$",
                      r.stdout, re.M), "no endpoints table: %s", r.stdout[-2000:])
    stories = [l for l in lines if l.startswith("the story: ")]
    t.check(len(stories) == 3, "%d story lines, want 3: %s", len(stories), stories)
    for head in ("flyprof summary of", "hottest methods", "failures and drops", "agent cost"):
        t.check(head not in said, "scripts/demo printed the summary's %r part", head)
    t.check(len(lines) <= 40, "scripts/demo printed %d lines, want at most 40", len(lines))
    for page in ("demo.html", "demo-timeline.html", "report-wall.html", "summary.txt"):
        t.check(os.path.getsize(os.path.join(out, page)) > 0, "no %s", page)


def failed_build(t):
    blocker = t.path("not-a-directory")
    with open(blocker, "w") as f:
        f.write("a file where the build directory goes\n")
    out = t.path("failed-out")
    r = demo(t, "demo, build fails", blocker, out, 300)
    log = os.path.join(out, "build.log")
    t.check(r.returncode not in (0, None), "scripts/demo exited %s with a failed build",
            r.returncode)
    t.check("demo: the build failed: its output is above and in %s" % log in r.stderr,
            "the failure does not name the build's log: %r", r.stderr[-1500:])
    with open(log, encoding="utf-8", errors="replace") as f:
        text = f.read().strip()
    t.check(text and text.splitlines()[-1] in r.stderr,
            "the build's output was not printed: %r", r.stderr[-1500:])
    t.check("the story" not in r.stdout, "the demo went on after a failed build")


def test(t):
    failed_build(t)
    first_run(t)


if __name__ == "__main__":
    ft.main(test, "scripts/demo's first run says what the demo found, not the build's output")
