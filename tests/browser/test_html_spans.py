#!/usr/bin/env python3
"""html_spans: one request alone on the HTML page's timeline (#view=timeline&span=ID, or a
click on a mark), in headless chromium.

The log spans.fpl (test_timeline --write) covers 4 s of four threads whose every sample the
helper also lists in spans.json with its span and root span: request A (root id past 2^53,
"GET /a") on the acceptor, then handed to worker-1 in a child span; B ("GET /b") sleeping on
worker-2, then finished on the acceptor; C ("GET /a") on worker-1 after A; the idle thread works
for no request. The page (`convert --kind all`) must:
- with span=ID (a root span: the whole request; a child span: that span only) show rows for
  exactly the threads that worked for it, marks that weigh what its samples weigh, thread by
  thread, and a flame graph of its samples only (root weight, leaf frames);
- take the id in hex too (0x..., as `convert --span` does);
- with an unknown id show no rows and the "no samples" notice;
- on a click on a thread's mark, show the request that mark worked for (its root span: all of
  it) and put span= in the URL; "All requests" goes back to every thread; a click on marks
  that worked for no request opens nothing and says so;
- (and `flyprof summary --json` name each endpoint's slowest requests by those ids);
- on a screenshot of a request's view, show its colors and none of the idle thread's parked
  marks, which the whole view shows.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import browser as bw  # noqa: E402
from browser import Failure, check  # noqa: E402

PARKED = (0x1c, 0x7e, 0xd6)    # the timeline's "parked" color (flame.js CAT_STYLE)
SLEEPING = (0x70, 0x48, 0xe8)  # "sleeping"


def run(*cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise Failure("%s exited %d: %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return p.stdout


def attrs(dom, elem_id):
    m = re.search(r'<[a-z]+ id="%s"([^>]*)>' % re.escape(elem_id), dom)
    return dict(re.findall(r'([a-z-]+)="([^"]*)"', m.group(1))) if m else {}


def row_names(dom):
    return re.findall(r'<div class="fp-tl-row"[^>]*data-thread="([^"]*)"', dom)


def tl_marks(dom):
    """{thread: weight} of the dumped timeline marks."""
    m = re.search(r'<pre id="fp-tl-dump"[^>]*>(.*?)</pre>', dom, re.S)
    out = {}
    for line in (m.group(1) if m else "").split("\n"):
        f = line.split("\t")
        if len(f) == 5:
            out[f[0]] = out.get(f[0], 0) + float(f[3])
    return out


def png_pixels(path):
    """(width, height, rows of bytes, bytes per pixel) of an 8-bit RGB(A) PNG."""
    with open(path, "rb") as f:
        data = f.read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "%s is no PNG", path)
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
            check(depth == 8 and ctype in (2, 6) and not inter, "PNG type %d/%d", depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        at = y * (stride + 1)
        ft, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, rows, bpp


def color_columns(path, rgb):
    """How many pixel columns of the screenshot hold the color, or the color blended with the
    white background (marks one pixel wide fall between pixels): a legend swatch is a few
    columns, the marks of a thread sampled across the profile many."""
    w, h, rows, bpp = png_pixels(path)
    d = [255 - v for v in rgb]
    k = d.index(max(d))  # the channel that tells the blend best
    cols = set()
    for line in rows:
        for x in range(w):
            px = line[x * bpp:x * bpp + 3]
            alpha = (255 - px[k]) / d[k]
            if alpha >= 0.45 and all(abs(255 - alpha * d[i] - px[i]) <= 6 for i in range(3)):
                cols.add(x)
    return len(cols)


CLICK = r"""
var r = {clicks: []};
d.getElementById("fp-tl-toggle").click();
var c = d.getElementById("fp-tl-canvas"), tl = d.getElementById("fp-tl");
/* the middle of the thread's row on the canvas: where its label is */
function rowY(name) {
  var rows = d.querySelectorAll(".fp-tl-row"), top = c.getBoundingClientRect().top;
  for (var i = 0; i < rows.length; i++) {
    var q = rows[i].getBoundingClientRect();
    if (rows[i].getAttribute("data-thread") === name)
      return Math.round((q.top + q.bottom) / 2 - top);
  }
  return -1;
}
function click(name, ns) {
  var rect = c.getBoundingClientRect(), v0 = +tl.getAttribute("data-view-from-ns");
  var v1 = +tl.getAttribute("data-view-to-ns");
  var x = Math.round((ns - v0) / (v1 - v0) * c.clientWidth), y = rowY(name);
  var o = {clientX: rect.left + x, clientY: rect.top + y, bubbles: true, button: 0};
  c.dispatchEvent(new w.MouseEvent("mousedown", o));
  w.dispatchEvent(new w.MouseEvent("mouseup", o));
  var rows = [].map.call(d.querySelectorAll(".fp-tl-row"), function (e) {
    return e.getAttribute("data-thread");
  });
  r.clicks.push({at: [name, ns], y: y, span: tl.getAttribute("data-span"),
                 root: tl.getAttribute("data-span-root"), rows: rows, hash: w.location.hash,
                 shown: d.getElementById("fp-tl-span").textContent});
}
click("worker-2", %(b_ns)d);
d.getElementById("fp-tl-span-clear").click();
r.cleared = {span: tl.getAttribute("data-span"), rows: d.querySelectorAll(".fp-tl-row").length,
             hash: w.location.hash};
click("worker-1", %(a_ns)d);
d.getElementById("fp-tl-span-clear").click();
r.cleared2 = {msg: d.getElementById("fp-tl-msg").hidden};
click("idle", %(idle_ns)d);
var m = d.getElementById("fp-tl-msg");
r.idle_msg = m.hidden ? null : m.textContent;
done(r);
"""


def main():
    args, tmp = bw.helper_setup(__doc__, "html_spans", "test_timeline")
    try:
        with open(os.path.join(tmp, "spans.json")) as f:
            fix = json.load(f)
        samples, contexts = fix["samples"], fix["contexts"]
        chromium = bw.find_chromium(args.chromium)
        if not chromium:
            bw.skip("html_spans", "no chromium (scripts/setup installs it)")
        b = bw.Browser(chromium, tmp)
        page_path = os.path.join(tmp, "spans.html")
        run(args.cli, "convert", os.path.join(tmp, "spans.fpl"), "--kind", "all", "-o",
            page_path)
        endpoint = {c[1]: c[2] for c in contexts}
        # the summary names each endpoint's slowest requests, the ids the page takes
        summ = json.loads(run(args.cli, "summary", "--json", os.path.join(tmp, "spans.fpl")))
        for ep in summ["endpoints"]:
            roots = {c[1] for c in contexts if c[2] == ep["name"]}
            want = sorted(((sum(s[4] for s in samples if s[7] == r and s[2] == "cpu") * 10**7,
                            sum(s[4] for s in samples if s[7] == r and s[2] == "wall") * 5 * 10**7,
                            r) for r in roots), key=lambda t: (-(t[1] or t[0]), -t[0]))
            got = [(q["cpu_ns"], q["wall_ns"], str(q["root_span"])) for q in ep["slowest"]]
            check(got == want, "summary: %s's slowest %s, want %s", ep["name"], got, want)

        root_a = contexts[0][1]
        check(int(root_a) > 1 << 53, "the fixture's first root %s is not past 2^53", root_a)
        # the page shows both kinds, so it weighs time: a sample's weight x its kind's interval
        # (10 ms CPU, 50 ms wall), in ns
        samples = [s[:4] + [s[4] * (10**7 if s[2] == "cpu" else 5 * 10**7)] + s[5:]
                   for s in samples]

        for sid in [root_a, contexts[1][0], "900", "901"]:
            mine = [s for s in samples if sid in (s[6], s[7])]
            threads = sorted({s[1] for s in mine})
            page = b.dump(page_path, "view=timeline&span=%s&dump" % sid)
            a = attrs(page.dom, "fp-tl")
            check(a.get("data-span") == sid, "span=%s: data-span %s", sid, a.get("data-span"))
            roots = {s[7] for s in mine}
            check(a.get("data-span-root") in roots and
                  a.get("data-span-endpoint") == endpoint[a.get("data-span-root")],
                  "span=%s: root %s, endpoint %s", sid, a.get("data-span-root"),
                  a.get("data-span-endpoint"))
            got = row_names(page.dom)
            check(got == threads, "span=%s: rows %s, want %s", sid, got, threads)
            marks = tl_marks(page.dom)
            for t in threads:
                want = sum(s[4] for s in mine if s[1] == t)
                check(marks.get(t) == want, "span=%s: %s's marks weigh %s, its samples %d", sid,
                      t, marks.get(t), want)
            total = sum(s[4] for s in mine)
            root = page.one("all", 0)
            check(int(root.total) == total and float(a.get("data-span-weight", -1)) == total,
                  "span=%s: root %s, data-span-weight %s, samples %d", sid, root.total,
                  a.get("data-span-weight"), total)
            leaves = {s[5] for s in mine}
            for leaf in {s[5] for s in samples}:
                drawn = sum(f.total for f in page.named(leaf))
                want = sum(s[4] for s in mine if s[5] == leaf)
                check(drawn == want, "span=%s: %s drawn with %s, its samples %d", sid, leaf,
                      drawn, want)
            print("  span=%s: rows %s, weight %d, leaves %s" % (sid, got, total, sorted(leaves)),
                  flush=True)

        # hex, as `convert --span` takes ids: the same request
        page = b.dump(page_path, "view=timeline&span=0x%x&dump" % int(root_a))
        a = attrs(page.dom, "fp-tl")
        check(a.get("data-span") == root_a and row_names(page.dom) == ["acceptor", "worker-1"],
              "span=0x%x: %s, rows %s", int(root_a), a, row_names(page.dom))

        page = b.dump(page_path, "view=timeline&span=12345&dump")
        a = attrs(page.dom, "fp-tl")
        check(a.get("data-span-contexts") == "0" and not row_names(page.dom),
              "an unknown span: %s, rows %s", a, row_names(page.dom))
        check(not re.search(r'<div id="fp-empty"[^>]* hidden', page.dom),
              "an unknown span: no 'no samples' notice")
        check("no samples of span 12345" in page.dom, "an unknown span is not named")

        # clicks: on B's sleeping mark on worker-2, then on A's child span on worker-1
        b_ns = next(s[0] for s in samples if s[1] == "worker-2" and s[0] >= 2000000000)
        a_ns = next(s[0] for s in samples if s[1] == "worker-1" and s[0] >= 1500000000)
        idle_ns = next(s[0] for s in samples if s[1] == "idle" and s[0] >= 1000000000)
        check(all(s[7] == "0" for s in samples if s[1] == "idle"), "the idle thread has a request")
        r = b.harness(page_path, CLICK % {"b_ns": b_ns, "a_ns": a_ns, "idle_ns": idle_ns})
        c1, c2, c3 = r["clicks"]
        check(c1["span"] == "900" and c1["rows"] == ["acceptor", "worker-2"] and
              "span=900" in c1["hash"] and "GET /b" in c1["shown"],
              "a click on worker-2 at %d ns: %s", b_ns, c1)
        check(r["cleared"]["span"] is None and r["cleared"]["rows"] == 4 and
              "span=" not in r["cleared"]["hash"], "All requests: %s", r["cleared"])
        check(c2["span"] == root_a and c2["root"] == root_a and
              c2["rows"] == ["acceptor", "worker-1"] and "span=%s" % root_a in c2["hash"],
              "a click on worker-1 at %d ns (A's child span): %s", a_ns, c2)
        check(c3["span"] is None and len(c3["rows"]) == 4 and "span=" not in c3["hash"] and
              r["idle_msg"] and "no request" in r["idle_msg"] and r["cleared2"]["msg"],
              "a click on the idle thread's marks at %d ns: %s, message %r", idle_ns, c3,
              r["idle_msg"])
        print("  click on the idle thread: %r" % r["idle_msg"], flush=True)
        print("  clicks: worker-2 -> span %s %s; worker-1 -> span %s %s" % (
            c1["span"], c1["rows"], c2["span"], c2["rows"]), flush=True)

        # screenshots: the request's view has none of the idle thread's parked marks
        shot_all = os.path.join(tmp, "all.png")
        shot_b = os.path.join(tmp, "span900.png")
        for shot, frag in [(shot_all, "view=timeline"), (shot_b, "view=timeline&span=900")]:
            check(b.screenshot(page_path, shot, frag, window="1000,700"), "no screenshot")
        pa, pb = color_columns(shot_all, PARKED), color_columns(shot_b, PARKED)
        sb = color_columns(shot_b, SLEEPING)
        # (a few columns of slack for antialiased text near the color: the idle thread's
        # marks, were they drawn, would take about 100)
        check(pa > 40 and pb <= 3 and sb > 30,
              "screenshots: parked in %d columns (whole) and %d (span 900), sleeping in %d "
              "(span 900)", pa, pb, sb)
        print("  screenshots: parked marks in %d columns of the whole view, %d of span 900's; "
              "its sleeping marks in %d" % (pa, pb, sb), flush=True)
    except Failure as e:
        print("\nFAIL html_spans: %s\nkept %s" % (e, tmp), flush=True)
        sys.exit(1)
    print("PASS html_spans", flush=True)
    if not args.keep:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
