#!/usr/bin/env python3
"""html_pages: flame graphs of small logs whose every figure is known, in a real browser.

The logs come from test_html --write (tests/unit/test_html.c); `flyprof convert` and
`flyprof diff` make the pages; headless chromium opens them. Asserts:
- the drawn frames are exactly the expected tree (name, depth, total, self), plain, with
  --threads, and in the callers view computed by the page;
- searches find the known shares, counting a sample once when matching frames nest
  (Kernel 48%: 30 + 10 with mix->hash nested + 8 on the worker), smart case, a bad regex;
- hostile names (</script>, quotes, non-ASCII) are drawn intact and run no script;
- the diff page: each frame's base weight and change in share, the base share of a search;
- interaction (in an iframe, with synthetic events): the tooltip of a frame, click to zoom,
  Esc to reset, Ctrl+F focusing the search, the callers button, a search typed in.
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

# browser.fpl (tests/unit/test_html.c, write_fixtures): (name, depth, total, self)
CALLEES = {
    ("all", 0, 100, 0),
    ("[agct:unknown_Java]", 1, 4, 4),
    ("demo.App.main", 1, 88, 0),
    ("demo.App.idle", 2, 25, 0),
    ("java.lang.Thread.sleep0", 3, 25, 25),
    ("demo.App.work", 2, 55, 15),
    ("demo.Kernel.hash", 3, 30, 30),
    ("demo.Kernel.mix", 3, 10, 0),
    ("demo.Kernel.hash", 4, 10, 10),
    ("os::javaTimeNanos", 2, 8, 8),
    ("java.lang.Thread.run", 1, 8, 0),
    ("demo.Pool.loop", 2, 8, 0),
    ("demo.Kernel.hash", 3, 8, 8),
}
CALLERS = {
    ("all", 0, 100, 0),
    ("[agct:unknown_Java]", 1, 4, 4),
    ("demo.Kernel.hash", 1, 48, 0),
    ("demo.App.work", 2, 30, 0),
    ("demo.App.main", 3, 30, 30),
    ("demo.Kernel.mix", 2, 10, 0),
    ("demo.App.work", 3, 10, 0),
    ("demo.App.main", 4, 10, 10),
    ("demo.Pool.loop", 2, 8, 0),
    ("java.lang.Thread.run", 3, 8, 8),
    ("java.lang.Thread.sleep0", 1, 25, 0),
    ("demo.App.idle", 2, 25, 0),
    ("demo.App.main", 3, 25, 25),
    ("demo.App.work", 1, 15, 0),
    ("demo.App.main", 2, 15, 15),
    ("os::javaTimeNanos", 1, 8, 0),
    ("demo.App.main", 2, 8, 8),
}
SEARCHES = [  # (regex, view, share)
    ("Kernel", None, 0.48),
    ("kernel", None, 0.48),           # no capital: case-insensitive
    ("KERNEL", None, None),           # a capital: case-sensitive, no match
    ("^demo\\.Kernel\\.hash$", None, 0.48),
    ("App", None, 0.88),               # main and work nest: counted once
    ("mix|sleep0", None, 0.35),
    ("sleep0", "callers", 0.25),
    ("Kernel", "callers", 0.48),
    ("^all$", None, None),            # the root is no frame
]


class Ctx:
    def __init__(self, args):
        self.args = args
        base = os.path.join(args.build, "tests", "browser")
        os.makedirs(base, exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix="html_pages-", dir=base)
        self.browser = bw.Browser(args.chromium, self.tmp)

    def path(self, leaf):
        return os.path.join(self.tmp, leaf)

    def flyprof(self, *a):
        cmd = [self.args.cli] + list(a)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=120)
        check(p.returncode == 0, "%s: exit %d: %s", " ".join(cmd), p.returncode, p.stderr)

    def note(self, msg):
        print("  " + msg, flush=True)


def frame_set(page):
    return {f.key() for f in page.frames}


def same_frames(page, want, what):
    got = frame_set(page)
    check(len(page.frames) == len(got), "%s: a frame was drawn twice: %s", what, page.frames)
    check(got == want, "%s: frames differ\n  missing %s\n  unexpected %s", what,
          sorted(want - got), sorted(got - want))


def test_frames(c):
    page = c.browser.dump(c.path("browser.html"), bw.hash_of())
    same_frames(page, CALLEES, "callees")
    check(page.stats.get("data-view") == "callees", "initial view %s", page.stats)
    check(page.stats.get("data-drawn") == str(len(CALLEES)), "data-drawn %s", page.stats)
    check(page.heading and page.heading.startswith("cpu profile of java -cp app.jar demo.App"),
          "heading %r", page.heading)
    check(page.title == page.heading, "title %r vs heading %r", page.title, page.heading)
    # the root spans the canvas; widths follow the weights
    root = page.one("all", 0)
    work = page.one("demo.App.work", 2)
    check(abs(work.width - root.width * 0.55) < 1.5, "App.work width %g of %g", work.width,
          root.width)
    c.note("callees: %d frames as expected" % len(page.frames))

    page = c.browser.dump(c.path("browser.html"), bw.hash_of(view="callers"))
    same_frames(page, CALLERS, "callers")
    check(page.stats.get("data-view") == "callers", "view %s", page.stats)
    c.note("callers: %d frames as expected" % len(page.frames))

    # convert --reverse: the callers tree built by the collector is the page's own, and the
    # page turns it back into the callees tree
    page = c.browser.dump(c.path("browser-reverse.html"), bw.hash_of())
    same_frames(page, CALLERS, "--reverse")
    check(page.stats.get("data-view") == "callers", "--reverse opens as callers: %s", page.stats)
    page = c.browser.dump(c.path("browser-reverse.html"), bw.hash_of(view="callees"))
    same_frames(page, CALLEES, "--reverse, callees computed by the page")
    c.note("--reverse: the collector's callers tree, and callees computed from it")

    # --threads: thread roots, kept on top in the callers view
    page = c.browser.dump(c.path("browser-threads.html"), bw.hash_of())
    check(page.one("main", 1).total == 92 and page.one("worker", 1).total == 8,
          "thread roots: %s", page.frames[:6])
    check(page.one("demo.App.main", 2).total == 88, "main under its thread: %s", page.frames)
    page = c.browser.dump(c.path("browser-threads.html"), bw.hash_of(view="callers"))
    check(page.one("main", 1).total == 92, "callers keep thread roots: %s", page.frames[:6])
    check(sorted(f.total for f in page.named("demo.Kernel.hash", 2)) == [8, 40],
          "callers under each thread: %s", page.frames)
    c.note("threads: roots main 92, worker 8, kept on top in the callers view")

    # both kinds (the golden log of the unit tests): [cpu] and [wall] roots, then threads, stay
    # on top in the callers view; wall stacks end in a thread state
    page = c.browser.dump(c.path("golden-all.html"), bw.hash_of(view="callers"))
    check({f.name for f in page.frames if f.depth == 1} == {"[cpu]", "[wall]"},
          "kind roots: %s", page.frames[:8])
    wall = page.one("[wall]", 1)
    threads = {f.name for f in page.frames if f.depth == 2 and f.x >= wall.x}
    check(threads == {"main", "pool-1_worker_2"}, "wall threads: %s", threads)
    states = {f.name for f in page.frames if f.depth == 3 and f.x >= wall.x}
    check(states == {"[running]", "[sleeping]"}, "wall states first in callers: %s", states)
    # both kinds weigh time: 15 CPU intervals of 10 ms, 14.5 wall intervals of 50 ms
    check(page.one("[cpu]", 1).total == 150e6 and wall.total == 725e6,
          "cpu and wall weights in ns: %s", page.frames[:8])
    c.note("kind all: [cpu]/[wall] and thread roots on top of the callers view, in ns")

    # the tiny log of test_html: a weight that takes two digits
    page = c.browser.dump(c.path("tiny.html"), bw.hash_of())
    same_frames(page, {("all", 0, 1005, 0), ("p.Q.a", 1, 1005, 0), ("p.Q.a", 2, 1002, 1000),
                       ("p.Q.b", 3, 2, 2), ("p.Q.b", 2, 3, 2), ("p.Q.a", 3, 1, 1)}, "tiny")


def test_search(c):
    for regex, view, share in SEARCHES:
        page = c.browser.dump(c.path("browser.html"), bw.hash_of(regex, view))
        if share is None:
            check(page.share == 0.0, "search %r: share %s, want 0", regex, page.share)
        else:
            c.note(close(page.share, share, 0.00001, "search %r%s" % (
                regex, " (callers)" if view else "")))
        matched = {f.name for f in page.frames if f.matched}
        if regex == "Kernel":
            check(matched == {"demo.Kernel.hash", "demo.Kernel.mix"}, "highlighted %s", matched)
            check(page.matched_text.startswith("Matched 48.00%"), "text %r", page.matched_text)
    page = c.browser.dump(c.path("browser.html"), bw.hash_of("(unclosed"))
    check(page.share is None and "bad regex" in page.matched_text,
          "a bad regex: %r %s", page.matched_text, page.matched_attrs)
    check(len(page.frames) == len(CALLEES), "a bad regex still draws: %d", len(page.frames))


def test_hostile(c):
    page = c.browser.dump(c.path("hostile.html"), bw.hash_of())
    want_title = 'java "</title><b>" caf\u00e9'
    check(page.heading and want_title in page.heading, "heading %r", page.heading)
    check(page.title and want_title in page.title and "pwned" not in page.title,
          "title %r", page.title)
    names = {f.name for f in page.frames}
    for n in ["x.Evil.</script><script>document.title='pwned'</script>", "x.E.caf\u00e9",
              "x.E.\u65e5\u672c", "x.Q\"uo'te.m\U0001f600", "x.E.<!--", "x.E.amp&amp_",
              "main"]:
        check(n in names, "hostile name %r not drawn; drawn: %s", n, sorted(names))
    check(page.stats.get("data-drawn") == "8", "hostile page drew %s", page.stats)
    page = c.browser.dump(c.path("hostile.html"), bw.hash_of("</script>"))
    c.note(close(page.share, 0.5, 0.00001, "hostile search '</script>'"))
    page = c.browser.dump(c.path("hostile.html"), bw.hash_of("\U0001f600"))
    c.note(close(page.share, 0.3, 0.00001, "hostile search for an emoji"))


def test_diff(c):
    page = c.browser.dump(c.path("diff.html"), bw.hash_of())
    want = {  # name: (total in NEW, base, delta in share, depth)
        "d.A.run": (10, 25, 0.0, 1),
        "d.A.b": (2, 12, 0.2 - 0.48, 2),
        "d.A.c": (6, 8, 0.6 - 0.32, 2),
        "d.A.d": (2, 0, 0.2, 2),
        "d.A.e": (0, 5, -0.2, 2),  # only in the base: drawn with the share it lost
        "d.A.f": (0, 5, -0.2, 3),
    }
    for name, (total, base, delta, depth) in want.items():
        f = page.one(name, depth)
        check(f.total == total and f.base == base, "%s: total %g base %s", name, f.total, f.base)
        check(abs(f.delta - delta) < 1e-6, "%s: delta %s, want %g", name, f.delta, delta)
    # widths: the frame only in the base is as wide as its lost share of NEW (5/25 of 10 = 2),
    # so d.A.run (10 of its own, 2 lost below it) is 6 times as wide
    run, gone = page.one("d.A.run", 1), page.one("d.A.e", 2)
    c.note(close(gone.width / run.width, 2.0 / 12.0, 0.01, "diff: d.A.e's width of d.A.run's"))
    check(page.heading.startswith("diff: cpu profile of java Cur"), "heading %r", page.heading)
    page = c.browser.dump(c.path("diff.html"), bw.hash_of("A\\.c"))
    c.note(close(page.share, 0.6, 0.00001, "diff search A.c, new share"))
    c.note(close(page.base_share, 0.32, 0.00001, "diff search A.c, base share"))
    page = c.browser.dump(c.path("diff.html"), bw.hash_of("A\\.e"))
    c.note(close(page.share, 0.0, 0.00001, "diff search A.e (only in base), new share"))
    c.note(close(page.base_share, 0.2, 0.00001, "diff search A.e, base share"))
    page = c.browser.dump(c.path("diff.html"), bw.hash_of(view="callers"))
    f = page.one("d.A.b", 1)
    check(f.total == 2 and f.base == 12, "callers d.A.b: %s base %s", f, f.base)
    check(len(page.named("d.A.run", 2)) == 3, "callers: run under each leaf: %s", page.frames)


INTERACT = r"""
var r = {}, canvas = d.getElementById("fp-canvas"), rect;
function frame(name, depth) {
  var lines = d.getElementById("fp-dump").textContent.split("\n");
  for (var i = 0; i < lines.length; i++) {
    var f = lines[i].split("\t");
    if (f[0] === name && +f[3] === depth) return {x: +f[5], w: +f[6], depth: depth};
  }
  return null;
}
function at(f) {
  rect = canvas.getBoundingClientRect();
  return {clientX: rect.left + f.x + f.w / 2, clientY: rect.top + f.depth * 18 + 9,
          bubbles: true};
}
function key(k, ctrl) {
  d.dispatchEvent(new w.KeyboardEvent("keydown", {key: k, ctrlKey: !!ctrl, bubbles: true,
                                                   cancelable: true}));
}
var work = frame("demo.App.work", 2);
r.found = !!work;
canvas.dispatchEvent(new w.MouseEvent("mousemove", at(work)));
var tip = d.getElementById("fp-tip");
r.tipShown = !tip.hidden;
r.tip = tip.textContent;
canvas.dispatchEvent(new w.MouseEvent("click", at(work)));
r.zoom = d.getElementById("fp-stats").getAttribute("data-zoom");
r.crumbs = d.getElementById("fp-crumbs").textContent;
r.resetEnabled = !d.getElementById("fp-reset").disabled;
var z = frame("demo.App.work", 2), k = frame("demo.Kernel.hash", 3);
rect = canvas.getBoundingClientRect();
r.zoomedWidth = z.w;
r.canvasWidth = rect.width;
r.kernelWidth = k ? k.w : -1;
r.ancestor = !!frame("demo.App.main", 1);
r.outside = !!frame("os::javaTimeNanos", 2);
key("Escape");
r.afterEsc = d.getElementById("fp-stats").getAttribute("data-zoom");
key("f", true);
r.focused = d.activeElement && d.activeElement.id;
var s = d.getElementById("fp-search");
s.value = "sleep0";
s.dispatchEvent(new w.Event("input", {bubbles: true}));
d.getElementById("fp-view-callers").click();
r.view = d.getElementById("fp-stats").getAttribute("data-view");
w.setTimeout(function () {
  r.share = d.getElementById("fp-matched").getAttribute("data-share");
  r.hash = w.location.hash;
  key("Escape");
  r.afterEsc2 = s.value;
  done(r);
}, 1000);
"""


def test_interaction(c):
    r = c.browser.harness(c.path("browser.html"), INTERACT)
    check(r["found"], "App.work not drawn: %s", r)
    check(r["tipShown"], "no tooltip on hover: %s", r)
    tip = r["tip"]
    for part in ["demo.App.work", "Java method", "weight 55", "550.0 ms", "55.00%",
                 "weight 15", "15.00%", "Click to zoom"]:
        check(part in tip, "tooltip lacks %r: %r", part, tip)
    # a weight is not a number of samples (the root once said "192 samples" of 191)
    check("samples" not in tip, "tooltip calls a weight samples: %r", tip)
    check(r["zoom"] == "demo.App.work", "click did not zoom: %s", r)
    check("work" in r["crumbs"] and "all" in r["crumbs"], "crumbs %r", r["crumbs"])
    check(r["resetEnabled"], "reset button disabled while zoomed")
    check(abs(r["zoomedWidth"] - r["canvasWidth"]) < 1, "zoomed frame %g px of %g",
          r["zoomedWidth"], r["canvasWidth"])
    check(abs(r["kernelWidth"] - r["canvasWidth"] * 30 / 55) < 1.5, "Kernel.hash %g px",
          r["kernelWidth"])
    check(r["ancestor"], "ancestors are drawn above the zoomed frame")
    check(not r["outside"], "a frame outside the zoomed one is drawn")
    check(r["afterEsc"] == "all", "Esc did not reset the zoom: %s", r)
    check(r["focused"] == "fp-search", "Ctrl+F focused %r", r["focused"])
    check(r["view"] == "callers", "the callers button: %s", r)
    check(r["share"] == "0.250000", "typed search: share %s", r["share"])
    check("search=sleep0" in r["hash"] and "view=callers" in r["hash"], "hash %r", r["hash"])
    check(r["afterEsc2"] == "", "Esc in the search box keeps %r", r["afterEsc2"])
    c.note("interaction: tooltip, click to zoom, Esc, Ctrl+F, callers button, typed search")


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
    args.chromium = bw.find_chromium(args.chromium)
    if not args.chromium:
        bw.skip("html_pages", "no chromium (scripts/setup installs it)")
    c = Ctx(args)
    print("html_pages: %s" % args.chromium, flush=True)
    try:
        p = subprocess.run([args.helper, "--write", c.tmp], stderr=subprocess.PIPE, text=True)
        check(p.returncode == 0, "test_html --write: %s", p.stderr)
        c.flyprof("convert", c.path("browser.fpl"), "-o", c.path("browser.html"))
        c.flyprof("convert", c.path("browser.fpl"), "-o", c.path("browser-threads.html"),
                  "--threads")
        c.flyprof("convert", c.path("browser.fpl"), "-o", c.path("browser-reverse.html"),
                  "--reverse")
        c.flyprof("convert", c.path("tiny.fpl"), "-o", c.path("tiny.html"))
        c.flyprof("convert", c.path("golden.fpl"), "-o", c.path("golden-all.html"), "--kind",
                  "all", "--threads")
        c.flyprof("convert", c.path("hostile.fpl"), "-o", c.path("hostile.html"), "--threads")
        c.flyprof("diff", c.path("base.fpl"), c.path("cur.fpl"), "-o", c.path("diff.html"))
        for t in (test_frames, test_search, test_hostile, test_diff, test_interaction):
            t(c)
    except Failure as e:
        print("\nFAIL html_pages: %s\nkept %s" % (e, c.tmp), flush=True)
        sys.exit(1)
    print("PASS html_pages (%d browser runs)" % c.browser.runs, flush=True)
    if not args.keep:
        shutil.rmtree(c.tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
