#!/usr/bin/env python3
"""html_types: frame types in the flame graph (colors, legend) and in folded output.

The log types.fpl (test_html --write) holds one Java method, demo.T.hot, run four ways below
an interpreted demo.T.main: interpreted (10), compiled (20, plus 8 more with native code and a
kernel frame below), C1 (6, with an inlined demo.T.leaf), and a JVM stub (4). Asserts:
- the page draws one frame per method and JIT state (three demo.T.hot frames with the known
  weights), and native, kernel and stub frames where they belong;
- the legend names every type present -- Interpreted, JIT compiled, C1 compiled, Inlined,
  C / JVM, Kernel, JVM stub -- and no plain "Java", each with its own color;
- a diff page (types.fpl against itself) keeps one frame per method (the diff compares paths
  by name);
- `flyprof convert --annotate` writes the suffixes flamegraph.pl's java palette reads
  (_[j], _[i], _[k]) and async-profiler's (_[0], _[1]), none on native and stub frames;
  without --annotate the JIT states merge.
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
from browser import Failure, check  # noqa: E402

FRAMES = {
    ("all", 0, 48, 0),
    ("demo.T.main", 1, 48, 0),
    ("demo.T.hot", 2, 10, 10),
    ("demo.T.hot", 2, 28, 20),
    ("demo.T.hot", 2, 6, 0),
    ("demo.T.leaf", 3, 6, 6),
    ("memcpy", 3, 8, 0),
    ("do_syscall_64", 4, 8, 8),
    ("vtable stub", 2, 4, 4),
}
LEGEND = {"Interpreted", "JIT compiled", "C1 compiled", "Inlined", "C / JVM", "Kernel",
          "JVM stub"}
ANNOTATED = """demo.T.main_[0];demo.T.hot_[0] 10
demo.T.main_[0];demo.T.hot_[1];demo.T.leaf_[i] 6
demo.T.main_[0];demo.T.hot_[j] 20
demo.T.main_[0];demo.T.hot_[j];memcpy;do_syscall_64_[k] 8
demo.T.main_[0];vtable stub 4
"""
PLAIN = """demo.T.main;demo.T.hot 30
demo.T.main;demo.T.hot;demo.T.leaf 6
demo.T.main;demo.T.hot;memcpy;do_syscall_64 8
demo.T.main;vtable stub 4
"""


def legend(dom):
    """{label: swatch color} of the page's legend."""
    m = re.search(r'<div id="fp-legend"[^>]*>(.*?)</div>', dom, re.S)
    check(m, "no legend in the page")
    keys = re.findall(r'<span class="fp-swatch" style="background: ([^;"]+);?"></span>([^<]+)<',
                      m.group(1))
    return {label.strip(): color for color, label in keys}


def run(cli, *a):
    p = subprocess.run([cli] + list(a), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    check(p.returncode == 0, "flyprof %s: exit %d: %s", " ".join(a), p.returncode, p.stderr)
    return p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--cli")
    ap.add_argument("--helper", help="test_html (default BUILD/tests/test_html)")
    ap.add_argument("--chromium")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    args.cli = args.cli or os.path.join(args.build, "bin", "flyprof")
    args.helper = args.helper or os.path.join(args.build, "tests", "test_html")
    base = os.path.join(args.build, "tests", "browser")
    os.makedirs(base, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="html_types-", dir=base)
    print("html_types", flush=True)
    try:
        p = subprocess.run([args.helper, "--write", tmp], stderr=subprocess.PIPE, text=True)
        check(p.returncode == 0, "test_html --write: %s", p.stderr)
        log = os.path.join(tmp, "types.fpl")

        # folded output first: it needs no browser
        out = run(args.cli, "convert", log, "-o", "-", "--format", "collapsed", "--annotate")
        check(out == ANNOTATED, "--annotate output:\n%s\nwant:\n%s", out, ANNOTATED)
        out = run(args.cli, "convert", log, "-o", "-", "--format", "collapsed")
        check(out == PLAIN, "folded output without --annotate:\n%s\nwant:\n%s", out, PLAIN)
        print("  folded: suffixes with --annotate, JIT states merged without", flush=True)

        chromium = bw.find_chromium(args.chromium)
        if not chromium:
            bw.skip("html_types", "no chromium (scripts/setup installs it)")
        browser = bw.Browser(chromium, tmp)
        page_path = os.path.join(tmp, "types.html")
        run(args.cli, "convert", log, "-o", page_path)
        page = browser.dump(page_path, bw.hash_of())
        got = {f.key() for f in page.frames}
        check(len(page.frames) == len(got), "a frame was drawn twice: %s", page.frames)
        check(got == FRAMES, "frames differ\n  missing %s\n  unexpected %s",
              sorted(FRAMES - got), sorted(got - FRAMES))
        keys = legend(page.dom)
        print("  legend: %s" % ", ".join("%s=%s" % kv for kv in sorted(keys.items())),
              flush=True)
        check(LEGEND <= set(keys), "legend misses %s: %s", sorted(LEGEND - set(keys)), keys)
        check("Java" not in keys, "a plain Java frame in a log where every frame is typed: %s",
              keys)
        colors = [keys[k] for k in LEGEND]
        check(len(set(colors)) == len(colors), "two types share a color: %s", keys)

        diff_path = os.path.join(tmp, "types-diff.html")
        run(args.cli, "diff", log, log, "-o", diff_path)
        page = browser.dump(diff_path, bw.hash_of())
        hot = [f for f in page.frames if f.name == "demo.T.hot"]
        check(len(hot) == 1 and int(hot[0].total) == 44, "diff: demo.T.hot frames %s", hot)
        print("  page: one frame per method and JIT state, every type in the legend; "
              "diff: one frame per method", flush=True)
    except Failure as e:
        print("\nFAIL html_types: %s\nkept %s" % (e, tmp), flush=True)
        sys.exit(1)
    print("PASS html_types", flush=True)
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
