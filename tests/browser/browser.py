"""browser: what the HTML flame graph's browser tests share (stdlib Python 3 only).

Pages are opened by Debian's chromium, headless, with a fresh profile each time and nothing that
reaches the network; `--dump-dom` prints the DOM after the page's script ran (with a virtual
time budget, so its timers run too). The page reports through the DOM (collector/render/html/flame.js):

- `#fp-stats` data-* attributes: data-drawn (frames drawn), data-nodes, data-view, data-zoom,
  and timings (data-ms-*, milliseconds since navigation start or spent in a phase);
- `#fp-matched` data-share / data-weight / data-base-share: the search's matched share;
- `#fp-dump` (with `dump` in the URL hash): one line per drawn frame,
  `name TAB total TAB self TAB depth TAB matched TAB x TAB width [TAB base TAB delta TAB z TAB
  colored]` (in a diff: the base weight, the change in share, its z against sampling noise,
  and 1 when it is colored, beyond noise).

The URL hash drives the page: `search=RE`, `view=callers|callees`, `dump`.
"""

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
SKIP = 77  # ctest SKIP_RETURN_CODE


def skip(name, why):
    """Ends a test that cannot run here (no browser): exit 77, which ctest reports as skipped;
    under CI=true a missing tool is a failure (exit 1), so a CI run cannot pass by skipping."""
    import sys
    if os.environ.get("CI") == "true":
        print("FAIL %s: %s (CI=true: a missing tool is a failure, not a skip)" % (name, why),
              flush=True)
        sys.exit(1)
    print("SKIP %s: %s" % (name, why), flush=True)
    sys.exit(SKIP)


class Failure(Exception):
    """A check failed; the message says what was expected and what was seen."""


def find_chromium(explicit=None):
    if explicit:
        return explicit if os.access(explicit, os.X_OK) else None
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def file_url(path, fragment=""):
    url = "file://" + urllib.parse.quote(os.path.abspath(path))
    return url + ("#" + fragment if fragment else "")


def hash_of(search=None, view=None, dump=True):
    parts = []
    if search is not None:
        parts.append("search=" + urllib.parse.quote(search, safe=""))
    if view:
        parts.append("view=" + view)
    if dump:
        parts.append("dump")
    return "&".join(parts)


class Frame:
    """A drawn frame from #fp-dump."""

    def __init__(self, fields):
        self.name = fields[0]
        self.total = float(fields[1])
        self.self = float(fields[2])
        self.depth = int(fields[3])
        self.matched = fields[4] == "1"
        self.x = float(fields[5])
        self.width = float(fields[6])
        self.base = float(fields[7]) if len(fields) > 7 else None
        self.delta = float(fields[8]) if len(fields) > 8 else None
        self.z = float(fields[9]) if len(fields) > 9 else None
        self.colored = fields[10] == "1" if len(fields) > 10 else None

    def key(self):
        return (self.name, self.depth, int(self.total), int(self.self))

    def __repr__(self):
        return "Frame(%r, depth %d, total %g, self %g)" % (self.name, self.depth, self.total,
                                                            self.self)


def _attrs(dom, elem_id):
    m = re.search(r'<[a-z]+ id="%s"([^>]*)>' % re.escape(elem_id), dom)
    if not m:
        return None
    return {k: html.unescape(v) for k, v in re.findall(r'([a-z-]+)="([^"]*)"', m.group(1))}


def _text(dom, elem_id, tag):
    m = re.search(r'<%s id="%s"[^>]*>(.*?)</%s>' % (tag, re.escape(elem_id), tag), dom, re.S)
    return html.unescape(m.group(1)) if m else None


class Page:
    """What a dumped page says."""

    def __init__(self, dom):
        self.dom = dom
        self.stats = _attrs(dom, "fp-stats") or {}
        self.matched_attrs = _attrs(dom, "fp-matched") or {}
        self.matched_text = _text(dom, "fp-matched", "span") or ""
        m = re.search(r"<title>(.*?)</title>", dom, re.S)
        self.title = html.unescape(m.group(1)) if m else None
        self.heading = _text(dom, "fp-title", "h1")
        dump = _text(dom, "fp-dump", "pre") or ""
        self.frames = [Frame(line.split("\t")) for line in dump.split("\n") if line]

    @property
    def share(self):
        v = self.matched_attrs.get("data-share")
        return float(v) if v is not None else None

    @property
    def base_share(self):
        v = self.matched_attrs.get("data-base-share")
        return float(v) if v is not None else None

    def named(self, name, depth=None):
        return [f for f in self.frames if f.name == name and (depth is None or f.depth == depth)]

    def one(self, name, depth):
        found = self.named(name, depth)
        if len(found) != 1:
            raise Failure("want one drawn frame %r at depth %d, found %d: %s"
                          % (name, depth, len(found), self.frames[:40]))
        return found[0]


class Browser:
    def __init__(self, exe, tmp, log=print):
        self.exe = exe
        self.tmp = tmp
        self.log = log
        self.runs = 0

    def _cmd(self, extra):
        self.runs += 1
        profile = tempfile.mkdtemp(prefix="chromium-", dir=self.tmp)
        return [self.exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-extensions",
                "--mute-audio", "--hide-scrollbars", "--user-data-dir=" + profile] + extra

    def run(self, extra, timeout=180):
        cmd = self._cmd(extra)
        try:
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failure("chromium timed out after %d s: %s" % (timeout, " ".join(cmd)))
        if p.returncode != 0:
            err = p.stderr.decode(errors="replace").strip().splitlines()[-15:]
            raise Failure("chromium exited %d: %s\n  %s" % (p.returncode, " ".join(cmd),
                                                            "\n  ".join(err)))
        return p.stdout.decode("utf-8", errors="replace")

    def dump(self, path, fragment="", window="1400,900", extra=(), budget_ms=3000):
        """The DOM of the page at path#fragment after its script (and timers) ran."""
        dom = self.run(["--window-size=" + window, "--virtual-time-budget=%d" % budget_ms]
                       + list(extra) + ["--dump-dom", file_url(path, fragment)])
        return Page(dom)

    def screenshot(self, path, out, fragment="", window="1400,900"):
        self.run(["--window-size=" + window, "--screenshot=" + out, file_url(path, fragment)])
        return os.path.isfile(out)

    def harness(self, page, script, window="1400,900", fragment="dump", frame=(1200, 700)):
        """Opens page#fragment in an iframe of frame = (width, height) css px -- the page's
        viewport -- on a harness page that runs script (a JS function body with `w` the page's
        window, `d` its document, `done(result)` to finish) once the page has loaded; returns
        the result (JSON) or raises with the script's error. The window must hold the frame."""
        name = os.path.join(os.path.dirname(os.path.abspath(page)),
                            "harness-%d.html" % self.runs)
        src = os.path.basename(page) + ("#" + fragment if fragment else "")
        with open(name, "w", encoding="utf-8") as f:
            f.write(HARNESS % {"src": json.dumps(src), "script": script, "fw": frame[0],
                               "fh": frame[1]})
        dom = self.run(["--window-size=" + window, "--virtual-time-budget=10000",
                        "--allow-file-access-from-files", "--dump-dom", file_url(name)])
        m = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
        if not m or not m.group(1).strip():
            raise Failure("the harness wrote no result (script did not finish)")
        r = json.loads(html.unescape(m.group(1)))
        if "error" in r:
            raise Failure("harness script failed: %s" % r["error"])
        return r


HARNESS = """<!DOCTYPE html>
<html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="f" style="border:0;width:%(fw)dpx;height:%(fh)dpx"></iframe>
<pre id="out"></pre>
<script>
function done(r) { document.getElementById("out").textContent = JSON.stringify(r); }
var f = document.getElementById("f");
f.addEventListener("load", function () {
  var w = f.contentWindow, d = w.document;
  try {
    (function (w, d, done) {
%(script)s
    })(w, d, done);
  } catch (e) {
    done({error: String(e && e.stack || e)});
  }
});
f.src = %(src)s;
</script></body></html>
"""


def helper_setup(doc, name, helper):
    """A browser test whose log a test helper writes (BUILD/tests/HELPER --write DIR): parses
    --build, --cli, --helper, --chromium and --keep (paths made absolute, defaults in BUILD),
    makes the test's directory under BUILD/tests/browser and writes the log there. Returns
    (args, that directory)."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--cli")
    ap.add_argument("--helper", help="%s (default BUILD/tests/%s)" % (helper, helper))
    ap.add_argument("--chromium")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    args.cli = args.cli or os.path.join(args.build, "bin", "flyprof")
    args.helper = args.helper or os.path.join(args.build, "tests", helper)
    base = os.path.join(args.build, "tests", "browser")
    os.makedirs(base, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=name + "-", dir=base)
    print(name, flush=True)
    p = subprocess.run([args.helper, "--write", tmp], stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        print("\nFAIL %s: %s --write: %s\nkept %s" % (name, helper, p.stderr, tmp), flush=True)
        sys.exit(1)
    return args, tmp


def close(seen, want, tol, what):
    if seen is None or abs(seen - want) > tol:
        raise Failure("%s: %s, want %.4f +- %.4f" % (what, seen, want, tol))
    return "%s: %.4f (want %.4f +- %.4f)" % (what, seen, want, tol)


def check(cond, fmt, *a):
    if not cond:
        raise Failure(fmt % a if a else fmt)
