#!/usr/bin/env python3
"""html_layout: the page as a user sees it at 1400x900 and 1000x700, in headless chromium.

The log layout.fpl (test_timeline --write) is a service's 6 s under a long command line: eight
busy threads http-1..8 on CPU and in every thread state in turn, the Notification Thread
waiting for work (jvm_idle), hiccup mode's GC pauses and both probes' stalls. Its page
(`flyprof convert`, both kinds by default) is opened at #view=timeline in a frame of each
size, and measured from outside. Asserted at each size:
- the footer lies inside the window and its text is not cut (its lines are as tall as their
  text and as wide);
- the title is whole: no part of it hidden (it wraps rather than losing the duration), and it
  holds the profile's duration;
- one palette: every thread state and the CPU kind has one color, the same in the legend, in
  the timeline's marks and in the flame graph's frames ([parked], [cpu] ... read from the
  canvas pixels) -- for running, blocked, waiting, timed_waiting, parked, sleeping, native,
  jvm_idle and cpu, each present in all three;
- the timeline's lanes are named apart (GC pauses, java probe stalls, os probe stalls) and
  are in the legend, in the colors of their labels, three distinct colors;
- thread rows are at least 16 px tall (the box scrolls rather than squash them: at 1000x700
  its content is taller than the box), and the median mark of a busy thread is at least 8 px
  tall.
"""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser as bw  # noqa: E402
from browser import Failure, check  # noqa: E402

SIZES = [(1400, 900), (1000, 700)]
STATES = ["running", "blocked", "waiting", "timed_waiting", "parked", "sleeping", "native",
          "jvm_idle", "cpu"]
LANES = ["GC pauses", "java probe stalls", "os probe stalls"]

MEASURE = r"""
setTimeout(function () {
  var r = {inner: [w.innerWidth, w.innerHeight]};
  function box(e) {
    var q = e.getBoundingClientRect();
    return {top: q.top, bottom: q.bottom, left: q.left, right: q.right, height: q.height,
            sw: e.scrollWidth, cw: e.clientWidth, sh: e.scrollHeight, ch: e.clientHeight};
  }
  ["fp-title", "fp-foot", "fp-info", "fp-stats", "fp-tl-box"].forEach(function (id) {
    r[id] = box(d.getElementById(id));
  });
  r.title = d.getElementById("fp-title").textContent;
  var css = function (e) { return w.getComputedStyle(e).backgroundColor; };
  r.legend = [].map.call(d.querySelectorAll("#fp-legend .fp-key"), function (k) {
    var s = k.querySelector(".fp-swatch");
    return [k.getAttribute("data-key"), k.textContent, s ? css(s) : null];
  });
  r.lanes = [].map.call(d.querySelectorAll("#fp-tl-labels .fp-tl-lane"), function (e) {
    var s = e.querySelector(".fp-swatch");
    return [e.getAttribute("data-lane"), s ? css(s) : null];
  });
  /* the flame graph's bracketed frames ([parked], [cpu]): the color of a pixel near their
   * top right corner, clear of their text */
  var fc = d.getElementById("fp-canvas"), fx = fc.getContext("2d"), dpr = w.devicePixelRatio || 1;
  var top = d.getElementById("fp-scroll").scrollTop, row = 18;
  r.frames = {};
  d.getElementById("fp-dump").textContent.split("\n").forEach(function (line) {
    var f = line.split("\t");
    if (f.length < 7 || !/^\[.*\]$/.test(f[0]) || +f[6] < 8) return;
    var px = fx.getImageData(Math.floor((+f[5] + +f[6] - 3) * dpr),
                             Math.floor((+f[3] * row + 1 - top) * dpr), 1, 1).data;
    r.frames[f[0]] = "rgb(" + px[0] + ", " + px[1] + ", " + px[2] + ")";
  });
  /* the timeline's marks: their colors by category, from the page's dump */
  r.marks = {};
  d.getElementById("fp-tl-dump").textContent.split("\n").forEach(function (line) {
    var f = line.split("\t");
    if (f.length === 5) (r.marks[f[2]] = r.marks[f[2]] || {})[f[4]] = 1;
  });
  /* rows: each label's height, and for thread rows the height of each painted column of
   * their band on the canvas (saturated pixels: the marks) */
  var tc = d.getElementById("fp-tl-canvas"), tq = tc.getBoundingClientRect();
  var img = tc.getContext("2d").getImageData(0, 0, tc.width, tc.height);
  r.rows = [].map.call(d.querySelectorAll("#fp-tl-labels div"), function (e) {
    var q = e.getBoundingClientRect(), y0 = Math.round((q.top - tq.top) * dpr);
    var y1 = Math.round((q.bottom - tq.top) * dpr), cols = [];
    for (var x = 0; x < img.width; x++) {
      var n = 0;
      for (var y = Math.max(0, y0); y < Math.min(img.height, y1); y++) {
        var i = 4 * (y * img.width + x), a = img.data;
        var hi = Math.max(a[i], a[i + 1], a[i + 2]), lo = Math.min(a[i], a[i + 1], a[i + 2]);
        if (a[i + 3] > 200 && hi - lo > 60) n++;
      }
      if (n) cols.push(n / dpr);
    }
    cols.sort(function (u, v) { return u - v; });
    return [e.textContent, q.height, e.className, cols.length ? cols[cols.length >> 1] : 0];
  });
  done(r);
}, 500);
"""


def rgb(hexcolor):
    h = hexcolor.lstrip("#")
    return "rgb(%d, %d, %d)" % (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))


def check_size(r, size, duration):
    """Checks the page measured at size; raises with every check that failed."""
    what = "%dx%d" % size
    problems = []

    def check(cond, fmt, *a):
        if not cond:
            problems.append(fmt % a)
    check(r["inner"] == list(size), "%s: the page's window is %s", what, r["inner"])
    # the footer: inside the window, its text neither clipped nor cut
    foot, info, stats = r["fp-foot"], r["fp-info"], r["fp-stats"]
    check(0 <= foot["top"] and foot["bottom"] <= size[1] + 0.5,
          "%s: the footer spans %.1f..%.1f of a %d px window", what, foot["top"], foot["bottom"],
          size[1])
    for name, e in (("info", info), ("stats", stats)):
        check(e["sh"] <= e["ch"] + 1 and e["height"] >= 14 and e["sw"] <= e["cw"] + 1,
              "%s: the footer's %s is cut: %s", what, name, e)
    # the title: whole, with the duration
    t = r["fp-title"]
    check(t["sw"] <= t["cw"] + 1 and t["sh"] <= t["ch"] + 1 and t["bottom"] <= size[1],
          "%s: the title is cut (%s): %r", what, t, r["title"])
    check(duration in r["title"], "%s: the title %r does not hold the duration %r", what,
          r["title"], duration)
    # one palette
    legend = {k[0]: k[2] for k in r["legend"] if k[0]}
    for st in STATES:
        want = legend.get("state:" + st)
        check(want, "%s: no legend key for %s", what, st)
        marks = {rgb(c) for c in r["marks"].get(st, {})}
        check(marks == {want}, "%s: %s marks are %s, its legend key %s", what, st, marks, want)
        frame = r["frames"].get("[%s]" % st)
        check(frame == want, "%s: the flame graph's [%s] is %s, its legend key %s", what, st,
              frame, want)
    colors = [legend.get("state:" + st) for st in STATES]
    check(len(set(colors)) == len(colors), "%s: states share colors: %s", what, colors)
    # lanes: named apart, in the legend in their labels' colors
    check([ln[0] for ln in r["lanes"]] == LANES, "%s: lanes %s, want %s", what, r["lanes"],
          LANES)
    lane_keys = {k[1]: k[2] for k in r["legend"] if (k[0] or "").startswith("lane:")}
    for name, color in r["lanes"]:
        check(lane_keys.get(name) == color, "%s: lane %r is %s, its legend key %s", what, name,
              color, lane_keys.get(name))
    check(len({c for _, c in r["lanes"]}) == 3, "%s: lane colors %s", what, r["lanes"])
    # rows: a minimum height, and marks that can be seen
    threads = [x for x in r["rows"] if x[2] == "fp-tl-row"]
    check(len(threads) == 11, "%s: thread rows %s", what, [x[0] for x in threads])
    for name, height, _, mark in threads:
        check(height >= 16, "%s: row %s is %.1f px tall (want >= 16)", what, name, height)
        if name.startswith("http-"):
            check(mark >= 7, "%s: row %s: its median mark is %.1f px tall (want >= 7)", what,
                  name, mark)
    if problems:
        raise Failure("\n  ".join(problems))
    return "%s: footer %.0f..%.0f, title %d lines, %d rows of %.0f px, marks >= %.0f px" % (
        what, foot["top"], foot["bottom"], round(t["height"] / 21), len(threads),
        threads[0][1], min(x[3] for x in threads if x[0].startswith("http-")))


def main():
    args, tmp = bw.helper_setup(__doc__, "html_layout", "test_timeline")
    try:
        chromium = bw.find_chromium(args.chromium)
        if not chromium:
            bw.skip("html_layout", "no chromium (scripts/setup installs it)")
        b = bw.Browser(chromium, tmp)
        page = os.path.join(tmp, "layout.html")
        p = subprocess.run([args.cli, "convert", os.path.join(tmp, "layout.fpl"), "-o", page],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        check(p.returncode == 0, "convert: %s", p.stderr)
        with open(page, encoding="ascii") as f:
            m = re.search(r'"title":"[^"]*, (\d+\.\d\d s),', f.read())
        check(m, "no duration in the page's title")
        failed = []
        for size in SIZES:
            r = b.harness(page, MEASURE, window="1500,1000", fragment="view=timeline&dump",
                          frame=size)
            try:
                print("  " + check_size(r, size, m.group(1)), flush=True)
            except Failure as e:
                failed.append(str(e))
        check(not failed, "\n  ".join(failed))
    except Failure as e:
        print("\nFAIL html_layout: %s\nkept %s" % (e, tmp), flush=True)
        sys.exit(1)
    print("PASS html_layout", flush=True)
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
