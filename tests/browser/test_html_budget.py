#!/usr/bin/env python3
"""html_budget: the flame graph's node budget, in a real browser.

The logs come from test_render_bounded --write (tests/unit/test_render_bounded.c): Main.run
calls Main.hot (400,000), Main.warm (60,000) and Main.wide, under which 3,000 tiny methods take
weight 1 each -- every one under the page's minimum share (0.001% of 463,000 is 4.63). The
page made by `flyprof convert` with its default budget must:
- draw one "[3000 small frames]" frame under Main.wide, weighing exactly the 3,000 it replaced,
  and keep every other frame and total as they are (root 463,000, Main.run, hot, warm);
- per thread (--threads) merge each thread's 1,500 tiny frames into its own node;
- say in its footer what was merged, under which share, and the node budget;
- turn the merged node into a root of the callers view, with Main.wide below it;
- find it with a search (its share 3,000 / 463,000).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser as bw  # noqa: E402
from browser import Failure, check, close  # noqa: E402

TOTAL = 463000


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--cli")
    ap.add_argument("--helper", help="test_render_bounded (default BUILD/tests/...)")
    ap.add_argument("--chromium")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    a.build = os.path.abspath(a.build)
    a.cli = a.cli or os.path.join(a.build, "bin", "flyprof")
    a.helper = a.helper or os.path.join(a.build, "tests", "test_render_bounded")
    chromium = bw.find_chromium(a.chromium)
    if not chromium:
        bw.skip("html_budget", "no chromium (scripts/setup installs it)")
    base = os.path.join(a.build, "tests", "browser")
    os.makedirs(base, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="html_budget-", dir=base)
    b = bw.Browser(chromium, tmp)

    def path(leaf):
        return os.path.join(tmp, leaf)

    def flyprof(*args):
        p = subprocess.run([a.cli] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        check(p.returncode == 0, "flyprof %s: %s", " ".join(args), p.stderr)

    try:
        p = subprocess.run([a.helper, "--write", tmp], stderr=subprocess.PIPE, text=True)
        check(p.returncode == 0, "test_render_bounded --write: %s", p.stderr)
        flyprof("convert", path("budget.fpl"), "-o", path("budget.html"))
        flyprof("convert", path("budget.fpl"), "-o", path("budget-threads.html"), "--threads")

        page = b.dump(path("budget.html"), bw.hash_of())
        check(page.one("all", 0).total == TOTAL, "root: %s", page.frames[:8])
        check(page.one("Main.run", 1).total == TOTAL, "Main.run: %s", page.frames[:8])
        check(page.one("Main.hot", 2).total == 400000, "hot: %s", page.frames)
        check(page.one("Main.warm", 2).total == 60000, "warm: %s", page.frames)
        wide = page.one("Main.wide", 2)
        small = page.one("[3000 small frames]", 3)
        check(wide.total == 3000 and wide.self == 0, "Main.wide: %s", wide)
        check(small.total == 3000 and small.self == 3000, "the merged node: %s", small)
        check(not [f for f in page.frames if f.name.startswith("Tiny.")],
              "a tiny frame was drawn: %s", page.frames)
        check(int(page.stats.get("data-nodes", "0")) == 6, "nodes: %s", page.stats)
        info = bw._text(page.dom, "fp-info", "span") or ""
        want = ("3,000 frames under 0.001% of the total merged into 1 [small frames] nodes "
                "(budget 500,000 nodes)")
        check(want in info, "footer %r lacks %r", info, want)
        print("page: [3000 small frames] under Main.wide weighs 3000; footer says so",
              flush=True)

        page = b.dump(path("budget.html"), bw.hash_of(view="callers"))
        small = page.one("[3000 small frames]", 1)
        check(small.total == 3000, "callers root: %s", small)
        check(page.one("Main.wide", 2).total == 3000, "callers: %s", page.frames)

        page = b.dump(path("budget.html"), bw.hash_of(search="small frames"))
        close(page.share, 3000 / TOTAL, 1e-6, "search share")
        print("callers view and search: the merged node is a frame like the others",
              flush=True)

        page = b.dump(path("budget-threads.html"), bw.hash_of())
        smalls = page.named("[1500 small frames]", 4)
        check(len(smalls) == 2 and all(f.total == 1500 for f in smalls),
              "per thread: %s", page.frames)
        info = bw._text(page.dom, "fp-info", "span") or ""
        check("3,000 frames" in info and "into 2 [small frames]" in info, "footer %r", info)
        print("--threads: one [1500 small frames] per thread", flush=True)
    except Failure as e:
        print("\nFAIL html_budget: %s\nkept %s" % (e, tmp), flush=True)
        sys.exit(1)
    print("PASS html_budget (%d browser runs)" % b.runs, flush=True)
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
