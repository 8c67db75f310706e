#!/usr/bin/env python3
"""html_timeline: the timeline of the HTML page, in headless chromium.

The log timeline.fpl (test_timeline --write) covers 10 s of four threads whose every sample the
helper also lists in timeline.json (time, thread, kind, state, weight, leaf frame): "spinner"
on CPU every 10 ms (demo.Phase.first before 5 s, demo.Phase.second after), and three threads
sampled every 50 ms off CPU: "sleeper" sleeping, "locker" blocked (from 2 s to 8 s only),
"parker" parked. The page (`convert --kind all`) must:
- open the timeline with #view=timeline (and not without it), with one row per thread, named
  and sorted, each row's marks in the category of its state only (cpu, sleeping, blocked,
  parked), in that category's legend color, four distinct colors; the locker's marks only
  between 2 s and 8 s;
- with #view=timeline&range=A,B show the flame graph of the bins of that range: its root
  weighs what the samples in [range start, range end) weigh (computed here from the list, not
  from the page), the blocked leaf what the locker's do, and only the phase of that time;
- do the same for a range selected by dragging across the timeline after a click on the
  Timeline button (and put view=timeline and range= in the URL), and go back to the whole
  profile with Clear range;
- draw the log's two GC pauses (hiccup mode's GC records) in a lane above the threads, at
  their times;
- on a CPU-only page (--kind cpu) show only the spinner's row; without --kind show every
  kind the log holds, as --kind all (in ns: CPU time and thread time add up).
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser as bw  # noqa: E402
from browser import Failure, check  # noqa: E402

STATES = {"cpu": None, "sleeping": 6, "blocked": 2, "parked": 5}
MAIN = {"spinner": "cpu", "sleeper": "sleeping", "locker": "blocked", "parker": "parked"}


def run(*cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise Failure("%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return p.stdout


def attrs(dom, elem_id):
    m = re.search(r'<[a-z]+ id="%s"([^>]*)>' % re.escape(elem_id), dom)
    return dict(re.findall(r'([a-z-]+)="([^"]*)"', m.group(1))) if m else None


def tl_dump(dom):
    m = re.search(r'<pre id="fp-tl-dump"[^>]*>(.*?)</pre>', dom, re.S)
    lines = [x.split("\t") for x in (m.group(1) if m else "").split("\n") if x]
    return [(f[0], int(f[1]), f[2], float(f[3]), f[4]) for f in lines if len(f) == 5]


def tl_spans(dom):
    """[(lane, start ns, end ns)] of the dumped GC pauses and stalls."""
    m = re.search(r'<pre id="fp-tl-dump"[^>]*>(.*?)</pre>', dom, re.S)
    lines = [x.split("\t") for x in (m.group(1) if m else "").split("\n") if x]
    return [(f[0], int(f[1]), int(f[2])) for f in lines if len(f) == 3]


def rows(dom):
    """[(thread, main category, weights)] of the timeline's row labels, in order."""
    out = []
    for a in re.findall(r'<div class="fp-tl-row"([^>]*)>', dom):
        d = dict(re.findall(r'([a-z-]+)="([^"]*)"', a))
        out.append((d.get("data-thread"), d.get("data-main"), d.get("data-weights")))
    return out


def rgb(hexcolor):
    h = hexcolor.lstrip("#")
    return "rgb(%d, %d, %d)" % (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))


def legend(dom):
    """{label: swatch color} of the page's one legend (frame types, states, lanes)."""
    m = re.search(r'<div id="fp-legend"[^>]*>(.*?)</div>', dom, re.S)
    check(m, "no legend")
    return {name: color for color, name in re.findall(
        r'<span class="fp-swatch" style="background: ([^;"]+);?"></span>([^<]+)<', m.group(1))}


def weight(samples, lo, hi, thread=None, leaf=None):
    return sum(s[4] for s in samples if lo <= s[0] < hi and (thread is None or s[1] == thread)
               and (leaf is None or s[5] == leaf))


def check_range(page, samples, what):
    a = attrs(page.dom, "fp-tl")
    check(a and "data-range-from-ns" in a, "%s: no range on the page: %s", what, a)
    lo, hi = int(a["data-range-from-ns"]), int(a["data-range-to-ns"])
    root = page.one("all", 0)
    want = weight(samples, lo, hi)
    check(int(root.total) == want, "%s: [%d, %d) ns: the root weighs %s, the samples %d",
          what, lo, hi, root.total, want)
    check(int(float(a["data-range-weight"])) == want, "%s: data-range-weight %s, want %d", what,
          a["data-range-weight"], want)
    blocked = [f for f in page.frames if f.name == "[blocked]"]
    wb = weight(samples, lo, hi, thread="locker")
    check(sum(f.total for f in blocked) == wb, "%s: [blocked] %s, the locker's samples %d",
          what, blocked, wb)
    first, second = page.named("demo.Phase.first"), page.named("demo.Phase.second")
    wf = weight(samples, lo, hi, leaf="demo.Spin.hash")
    ws = weight(samples, lo, hi, leaf="demo.Spin.mix")
    check(sum(f.total for f in first) == wf and sum(f.total for f in second) == ws,
          "%s: phases %s %s, want %d and %d", what, first, second, wf, ws)
    return lo, hi, want


DRAG = r"""
var r = {};
d.getElementById("fp-tl-toggle").click();
r.open = !d.getElementById("fp-tl").hidden;
var c = d.getElementById("fp-tl-canvas"), rect = c.getBoundingClientRect();
var y = rect.top + 30;
/* hover the first thread row (under the GC lane) around 5 s, pixel by pixel (a pixel is about
 * 10 ms, a bin 8 ms, the locker sampled every 50 ms): tooltips name the thread and, where
 * there were samples, their state */
var tl0 = d.getElementById("fp-tl"), v0 = +tl0.getAttribute("data-view-from-ns");
var v1 = +tl0.getAttribute("data-view-to-ns"), x0 = (5e9 - v0) / (v1 - v0) * c.clientWidth;
r.tips = [];
var first = d.querySelector(".fp-tl-row").getBoundingClientRect();
var fy = (first.top + first.bottom) / 2;
for (var px = Math.floor(x0) - 12; px <= Math.floor(x0) + 12; px++) {
  c.dispatchEvent(new w.MouseEvent("mousemove", {clientX: rect.left + px,
                                                 clientY: fy, bubbles: true}));
  r.tips.push(d.getElementById("fp-tip").hidden ? "" : d.getElementById("fp-tip").textContent);
}
function ev(type, x, target) {
  (target || w).dispatchEvent(new w.MouseEvent(type, {clientX: rect.left + x, clientY: y,
                                                      bubbles: true, button: 0}));
}
ev("mousedown", rect.width * 0.25, c);
ev("mousemove", rect.width * 0.5);
ev("mousemove", rect.width * 0.75);
ev("mouseup", rect.width * 0.75);
var tl = d.getElementById("fp-tl");
r.from = tl.getAttribute("data-range-from-ns");
r.to = tl.getAttribute("data-range-to-ns");
r.weight = tl.getAttribute("data-range-weight");
r.hash = w.location.hash;
var lines = d.getElementById("fp-dump").textContent.split("\n");
r.root = null;
for (var i = 0; i < lines.length; i++) {
  var f = lines[i].split("\t");
  if (f[0] === "all" && f[3] === "0") r.root = +f[1];
}
d.getElementById("fp-tl-clear").click();
lines = d.getElementById("fp-dump").textContent.split("\n");
for (i = 0; i < lines.length; i++) {
  f = lines[i].split("\t");
  if (f[0] === "all" && f[3] === "0") r.cleared = +f[1];
}
r.clearedRange = tl.getAttribute("data-range-from-ns");
done(r);
"""


def main():
    args, tmp = bw.helper_setup(__doc__, "html_timeline", "test_timeline")
    try:
        log = os.path.join(tmp, "timeline.fpl")
        with open(os.path.join(tmp, "timeline.json")) as f:
            samples = json.load(f)["samples"]
        # the page shows both kinds, so it weighs time: a sample's weight x its kind's interval
        # (10 ms CPU, 50 ms wall), in ns
        samples = [s[:4] + [s[4] * (10**7 if s[2] == "cpu" else 5 * 10**7)] + s[5:]
                   for s in samples]
        total = sum(s[4] for s in samples)
        chromium = bw.find_chromium(args.chromium)
        if not chromium:
            bw.skip("html_timeline", "no chromium (scripts/setup installs it)")
        b = bw.Browser(chromium, tmp)
        page_path = os.path.join(tmp, "timeline.html")
        run(args.cli, "convert", log, "--kind", "all", "-o", page_path)

        # closed without the fragment, open with it
        page = b.dump(page_path, "dump")
        check(re.search(r'<section id="fp-tl"[^>]* hidden', page.dom), "timeline open unasked")
        check(int(page.one("all", 0).total) == total, "whole profile: root %s, want %d",
              page.one("all", 0).total, total)
        page = b.dump(page_path, "view=timeline&dump")
        check(not re.search(r'<section id="fp-tl"[^>]* hidden', page.dom),
              "#view=timeline did not open the timeline")
        got = rows(page.dom)
        names = [r[0] for r in got]
        check(names == sorted(MAIN), "rows %s, want %s", names, sorted(MAIN))
        for name, main_cat, weights in got:
            check(main_cat == MAIN[name], "row %s: main category %s, want %s (%s)", name,
                  main_cat, MAIN[name], weights)
            cats = {kv.split(":")[0] for kv in weights.split(",")}
            check(cats == {MAIN[name]}, "row %s has categories %s", name, cats)
            want = weight(samples, 0, 1 << 62, thread=name)
            got_w = sum(float(kv.split(":")[1]) for kv in weights.split(","))
            check(got_w == want, "row %s weighs %s, its samples %d", name, got_w, want)
        marks = tl_dump(page.dom)
        check(marks, "no marks dumped")
        keys = legend(page.dom)
        colors = {}
        for name, _, cat, _, color in marks:
            check(cat == MAIN[name], "a %s mark on the %s row", cat, name)
            colors.setdefault(cat, set()).add(color)
        for cat, cs in colors.items():
            check(len(cs) == 1, "%s marks in several colors: %s", cat, cs)
            c = next(iter(cs))
            check(keys.get(cat) == rgb(c), "legend %s is %s, marks %s", cat, keys.get(cat), c)
        check(len({next(iter(cs)) for cs in colors.values()}) == 4, "colors %s", colors)
        with open(page_path, encoding="ascii") as f:
            bin_ns = int(re.search(r'"bin_ns":(\d+)', f.read()).group(1))
        lock = [m[1] for m in marks if m[0] == "locker"]
        check(min(lock) * bin_ns >= 2e9 - bin_ns and (max(lock) + 1) * bin_ns <= 8e9 + bin_ns,
              "locker marks from bin %d to %d (bins of %d ns)", min(lock), max(lock), bin_ns)
        # GC pauses: a lane above the threads, at their times
        with open(os.path.join(tmp, "timeline.json")) as f:
            gcs = json.load(f)["gc"]
        lanes = re.findall(r'<div class="fp-tl-lane" data-lane="([^"]*)" data-count="(\d+)"',
                           page.dom)
        check(lanes == [("GC pauses", str(len(gcs)))], "lanes %s", lanes)
        spans = tl_spans(page.dom)
        check([(s[1], s[2]) for s in spans] == [tuple(g) for g in gcs] and
              all(s[0] == "GC pauses" for s in spans), "GC spans drawn %s, want %s", spans, gcs)
        print("  rows: %s; colors by state %s; bins of %d ms" % (
            names, {k: next(iter(v)) for k, v in colors.items()}, bin_ns // 1000000), flush=True)

        # ranges from the URL
        for a, bnd, phase in [(1, 3, "first"), (6, 9, "second"), (4.5, 5.5, None)]:
            page = b.dump(page_path, "view=timeline&range=%s,%s&dump" % (a, bnd))
            lo, hi, want = check_range(page, samples, "range %s,%s" % (a, bnd))
            check(lo <= a * 1e9 < lo + bin_ns and hi - bin_ns < bnd * 1e9 <= hi,
                  "range %s,%s snapped to [%d, %d)", a, bnd, lo, hi)
            if phase:
                other = "second" if phase == "first" else "first"
                check(page.named("demo.Phase." + phase) and
                      not page.named("demo.Phase." + other),
                      "range %s,%s: phases drawn %s", a, bnd,
                      [f for f in page.frames if f.name.startswith("demo.Phase")])
            check(want < total, "range %s,%s holds everything", a, bnd)
            print("  range %s,%s s -> [%d, %d) ns: weight %d of %d, as the samples" % (
                a, bnd, lo, hi, want, total), flush=True)

        # a range dragged across the timeline after a click on the button
        r = b.harness(page_path, DRAG)
        check(r.get("open"), "the Timeline button did not open it: %s", r)
        tips = r.get("tips", [])
        check(tips and all(t.startswith("locker") for t in tips) and
              any("blocked" in t for t in tips) and
              not any(c in t for t in tips for c in ("cpu", "parked", "sleeping")),
              "hovering the locker's row around 5 s: tooltips %r", tips)
        check(r.get("from") and r.get("to"), "the drag selected nothing: %s", r)
        lo, hi = int(r["from"]), int(r["to"])
        want = weight(samples, lo, hi)
        check(r["root"] == want and 0 < want < total, "dragged [%d, %d): root %s, samples %d",
              lo, hi, r["root"], want)
        check("view=timeline" in r["hash"] and "range=" in r["hash"], "hash %r", r["hash"])
        check(r.get("cleared") == total and not r.get("clearedRange"),
              "Clear range: root %s, range %s", r.get("cleared"), r.get("clearedRange"))
        print("  dragged: [%d, %d) ns, weight %d as the samples; cleared back to %d" % (
            lo, hi, want, total), flush=True)

        # a CPU-only page: the spinner alone
        cpu_path = os.path.join(tmp, "timeline-cpu.html")
        run(args.cli, "convert", log, "--kind", "cpu", "-o", cpu_path)
        page = b.dump(cpu_path, "view=timeline&dump")
        got = rows(page.dom)
        check([r[0] for r in got] == ["spinner"], "cpu page rows %s", got)
        # without --kind a page shows what the log holds, as the agent's file=*.html does
        dflt_path = os.path.join(tmp, "timeline-default.html")
        run(args.cli, "convert", log, "-o", dflt_path)
        page = b.dump(dflt_path, "view=timeline&dump")
        got = rows(page.dom)
        check([r[0] for r in got] == sorted(MAIN) and int(page.one("all", 0).total) == total,
              "default page rows %s, root %s (want every thread, %d)", got,
              page.one("all", 0).total, total)
    except Failure as e:
        print("\nFAIL html_timeline: %s\nkept %s" % (e, tmp), flush=True)
        sys.exit(1)
    print("PASS html_timeline", flush=True)
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
