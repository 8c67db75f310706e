#!/usr/bin/env python3
"""html_diff_noise: a diff page colors what changed beyond sampling noise, not the noise.

The logs (test_html --write) are 20,000 CPU samples each, drawn at random over 48 stacks
(6 services of 8 leaves, demo.SvcX.leafN, of probabilities 11% down to 0.7%): noise-a and
noise-b from one distribution (two seeds), noise-shift from it with a real change of 5 points
of share, demo.SvcC.leaf4 up from 1.45% to 6.45% and demo.SvcA.leaf0 down from 11.1% to 6.1%.
The pages come from `flyprof diff`; headless chromium reads which frames are colored from the
canvas itself (a frame within noise is drawn grey). Asserted:
- noise-a against noise-b colors at most one of its frames (the changes there are noise of
  up to about a point);
- noise-a against noise-shift colors demo.SvcC.leaf4 red (grew) and demo.SvcA.leaf0 blue
  (shrank), with their changes of +5 and -5 points (+- 1), and at most one frame that is
  neither them nor their callers;
- the legend says what is colored and the limit of |z| (at least 3).
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser as bw  # noqa: E402
from browser import Failure, check  # noqa: E402

SHIFTED, DONOR = "demo.SvcC.leaf4", "demo.SvcA.leaf0"
ON_PATH = {SHIFTED, DONOR, "demo.SvcC.handle", "demo.SvcA.handle", "demo.Main.run"}

READ = r"""
setTimeout(function () {
  var r = {frames: []}, c = d.getElementById("fp-canvas"), x = c.getContext("2d");
  var dpr = w.devicePixelRatio || 1, row = 18;
  d.getElementById("fp-dump").textContent.split("\n").forEach(function (line) {
    var f = line.split("\t");
    if (f.length < 9 || +f[3] === 0) return;
    var px = +f[6] >= 6 ? x.getImageData(Math.floor((+f[5] + +f[6] - 3) * dpr),
                                         Math.floor((+f[3] * row + 1) * dpr), 1, 1).data : null;
    r.frames.push({name: f[0], depth: +f[3], width: +f[6], delta: +f[8],
                   rgb: px ? [px[0], px[1], px[2]] : null});
  });
  var note = d.getElementById("fp-diff-note");
  r.note = note ? note.textContent : null;
  r.limit = note ? +note.getAttribute("data-z-limit") : null;
  done(r);
}, 300);
"""


def colored(f):
    """None for a frame too narrow to read; else 'red', 'blue' or None (grey: within noise)."""
    if not f["rgb"]:
        return None
    r, g, b = f["rgb"]
    if max(r, g, b) - min(r, g, b) < 12:
        return None
    return "red" if r > b else "blue"


def read(b, page):
    r = b.harness(page, READ, fragment="dump", frame=(1200, 700))
    check(len(r["frames"]) >= 50, "%s: %d frames drawn", page, len(r["frames"]))
    check(all(f["rgb"] for f in r["frames"]), "%s: frames too narrow to read: %s", page,
          [f["name"] for f in r["frames"] if not f["rgb"]])
    return r


def main():
    args, tmp = bw.helper_setup(__doc__, "html_diff_noise", "test_html")
    try:
        chromium = bw.find_chromium(args.chromium)
        if not chromium:
            bw.skip("html_diff_noise", "no chromium (scripts/setup installs it)")
        b = bw.Browser(chromium, tmp)
        pages = {}
        for name, cur in (("same", "noise-b.fpl"), ("shift", "noise-shift.fpl")):
            pages[name] = os.path.join(tmp, name + ".html")
            p = subprocess.run([args.cli, "diff", os.path.join(tmp, "noise-a.fpl"),
                                os.path.join(tmp, cur), "-o", pages[name]],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            check(p.returncode == 0, "diff: %s", p.stderr)

        r = read(b, pages["same"])
        hot = [(f["name"], round(f["delta"] * 100, 2)) for f in r["frames"] if colored(f)]
        big = max(abs(f["delta"]) for f in r["frames"])
        print("  same distribution: %d frames, the largest change %.2f points, colored %s" % (
            len(r["frames"]), big * 100, hot), flush=True)
        check(len(hot) <= 1, "two draws of one distribution: %d frames colored: %s", len(hot),
              hot)
        check(r["limit"] and r["limit"] >= 3 and r["note"] and "|z| >" in r["note"],
              "the legend does not say what is colored: %r (limit %s)", r["note"], r["limit"])

        r = read(b, pages["shift"])
        by = {(f["name"], f["depth"]): f for f in r["frames"]}
        s, d = by.get((SHIFTED, 3)), by.get((DONOR, 3))
        check(s and d, "the shifted frames are not drawn: %s", sorted(by)[:10])
        check(colored(s) == "red" and abs(s["delta"] - 0.05) <= 0.01,
              "%s: %s, change %+.2f points (want red, +5)", SHIFTED, colored(s), s["delta"] * 100)
        check(colored(d) == "blue" and abs(d["delta"] + 0.05) <= 0.01,
              "%s: %s, change %+.2f points (want blue, -5)", DONOR, colored(d), d["delta"] * 100)
        others = [(f["name"], round(f["delta"] * 100, 2)) for f in r["frames"]
                  if colored(f) and f["name"] not in ON_PATH]
        check(len(others) <= 1, "a 5-point shift: frames off its path colored: %s", others)
        print("  shift: %s %+.2f points (%s), %s %+.2f points (%s); off the path colored %s; "
              "legend: %s" % (SHIFTED, s["delta"] * 100, colored(s), DONOR, d["delta"] * 100,
                              colored(d), others, r["note"]), flush=True)
    except Failure as e:
        print("\nFAIL html_diff_noise: %s\nkept %s" % (e, tmp), flush=True)
        sys.exit(1)
    print("PASS html_diff_noise", flush=True)
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
