#!/usr/bin/env python3
"""html_bench: how big the HTML flame graph of a big profile is and how fast a browser shows it.

Writes a synthetic log with fplsynth (default 10M samples over 100k distinct stacks, mean depth
40, 32 threads: see tests/bench/fplsynth.c), converts it with `flyprof convert -o big.html`
(timed) and prints the file's size and what it holds (tree nodes, frame names, bytes per node).
Then opens it in headless chromium several times and prints the page's own timings, medians
over the runs (milliseconds since navigation start, as the page records them into #fp-stats):
when its script started (the HTML, data included, is parsed), JSON parse, tree decode, first
frame drawn, painted (the next animation frame), and the callers view and a search computed on
demand (not for the per-thread page); and chromium's whole run (start, load, dump, exit) against an empty page's. With
--threads also the per-thread page (a thread root per thread: about 10x the nodes).
The timeline (out_html_timeline.h): its share of the page (bins, rows, per-bin entries, what
its caps merged), and the page opened with #view=timeline (painted, the timeline's draw) and
with a range of the middle third selected (painted, the range's flame graph rebuilt).
--compare OTHER_BUILD converts the same log with another build's flyprof first (e.g. one
without the timeline) and prints its page size, convert time and max RSS beside.
--requests MS traces the log's samples with requests of MS ms per thread (fplsynth -r: a root
span each), as a traced service's log is: the timeline then also holds the requests' samples
(out_html_spans.h) and the page opens one of them alone (#view=timeline&span=ID).
--log-threads N sets the log's threads (default 32).

Figures only: never passes or fails (a benchmark, not a test). Needs the tree built
(bin/flyprof, tests/fplsynth) and chromium.

    python3 tests/bench/html_bench.py --build BUILD [--samples 10M] [--stacks 100k]
        [--runs 3] [--threads] [--requests MS] [--log-threads N] [--keep]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "browser"))
import browser as bw  # noqa: E402


def count(s):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgG]?)", s)
    if not m:
        raise argparse.ArgumentTypeError("not a count: %r (e.g. 10M, 100k)" % s)
    return int(float(m.group(1)) * {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2).lower()])


def mib(n):
    return "%.1f MiB" % (n / 1048576)


def timeline_contents(path):
    """The page's timeline data (key tl), or None."""
    with open(path, encoding="ascii") as f:
        s = f.read()
    a = s.index('id="fp-data">') + len('id="fp-data">')
    tl = json.loads(s[a:s.index("</script>", a)]).get("tl")
    if tl is not None:
        tl["bytes"] = len(json.dumps(tl, separators=(",", ":")))
    return tl


def page_contents(path):
    """(nodes, names, tree chars, names bytes) of a page's embedded data."""
    with open(path, encoding="ascii") as f:
        s = f.read()
    a = s.index('id="fp-data">') + len('id="fp-data">')
    d = json.loads(s[a:s.index("</script>", a)])
    return d["n"], len(d["names"]), len(d["tree"]), sum(len(x) + 3 for x in d["names"])


def timed(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def timed_rss(cmd):
    """(seconds, max RSS bytes) of cmd."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status:
        raise subprocess.CalledProcessError(status, cmd)
    return time.perf_counter() - t0, ru.ru_maxrss * 1024


def measure_timeline(b, page, runs, window, tl):
    """Medians of the timeline's timings: opened whole, and with the middle third selected."""
    span = tl["nbins"] * tl["bin_ns"] / 1e9
    mid = "view=timeline&range=%g,%g" % (span / 3, 2 * span / 3)
    got = {}
    views = [("view=timeline", "open"), (mid, "range")]
    if tl.get("sp") and tl["sp"]["ids"]:
        ids = tl["sp"]["ids"]
        views.append(("view=timeline&span=%s" % ids[len(ids) // 2][1], "span"))
    for frag, name in views:
        for _ in range(runs):
            dom = b.run(["--window-size=" + window, "--virtual-time-budget=1000", "--dump-dom",
                         bw.file_url(page, frag)])
            st = bw._attrs(dom, "fp-stats") or {}
            t = bw._attrs(dom, "fp-tl") or {}
            for k, v in (("painted", st.get("data-ms-painted")), ("draw", t.get("data-ms-draw")),
                         ("rebuild", t.get("data-ms-range")), ("select", t.get("data-ms-span"))):
                if v is not None:
                    got.setdefault(name + "_" + k, []).append(float(v))
    return {k: statistics.median(v) for k, v in got.items()}


def measure(b, page, runs, window, on_demand=True):
    """Medians of the page's timings over runs."""
    keys = ["data-ms-start", "data-ms-parse", "data-ms-decode", "data-ms-ready",
            "data-ms-painted", "data-draw-ms"]
    got = {k: [] for k in keys + ["callers", "search", "wall"]}
    for _ in range(runs):
        t0 = time.perf_counter()
        p = b.dump(page, "", window=window, budget_ms=1000)
        got["wall"].append((time.perf_counter() - t0) * 1000)
        drawn = p.stats.get("data-drawn")
        for k in keys:
            if k in p.stats:
                got[k].append(float(p.stats[k]))
        if not on_demand:
            continue
        p = b.dump(page, bw.hash_of("Class1[0-9]*\\.get", "callers", dump=False),
                   window=window, budget_ms=1000)
        if "data-ms-callers" in p.stats:
            got["callers"].append(float(p.stats["data-ms-callers"]))
        if "data-ms-search" in p.stats:
            got["search"].append(float(p.stats["data-ms-search"]))
    med = {k: statistics.median(v) for k, v in got.items() if v}
    return med, drawn


def report(name, page, convert, b, runs, window, empty_wall, on_demand=True):
    convert_s, rss = convert
    size = os.path.getsize(page)
    n, names, tree, names_bytes = page_contents(page)
    print("\n%s: %s (%d bytes), convert %.2f s, max RSS %s" % (name, mib(size), size, convert_s,
                                                               mib(rss)))
    print("  tree       %d nodes, %.2f bytes per node (%s)" % (n, tree / n, mib(tree)))
    print("  names      %d frame names, %s" % (names, mib(names_bytes)))
    med, drawn = measure(b, page, runs, window, on_demand)

    def ms(k):
        return "%7.0f ms" % med[k] if k in med else "      n/a"
    print("  in chromium, median of %d runs (ms since navigation start unless a phase):" % runs)
    print("    script starts (HTML parsed)  %s" % ms("data-ms-start"))
    print("    JSON parse                   %s" % ms("data-ms-parse"))
    print("    tree decode                  %s" % ms("data-ms-decode"))
    print("    first draw done              %s   (draw %s)" % (ms("data-ms-ready"),
                                                                ms("data-draw-ms").strip()))
    print("    painted                      %s" % ms("data-ms-painted"))
    print("    callers view, on demand      %s" % ms("callers"))
    print("    a search, on demand          %s" % ms("search"))
    print("    chromium run, whole          %s   (an empty page: %.0f ms)" % (
        ms("wall"), empty_wall))
    print("  frames drawn at full view: %s" % drawn)
    tl = timeline_contents(page)
    if tl is None:
        print("  timeline: none in this page")
        return
    print("  timeline   %s of the page: %d bins of %.1f ms, %d rows, cap %d entries a bin; "
          "moved to callers %d, stacks not kept %d (of weight %d)" % (
              mib(tl["bytes"]), tl["nbins"], tl["bin_ns"] / 1e6, len(tl["rows"]), tl["cap"],
              tl["moved"], tl["over"], page_total(page)))
    t = measure_timeline(b, page, runs, window, tl)

    def tms(k):
        return "%7.0f ms" % t[k] if k in t else "      n/a"
    print("    #view=timeline painted       %s   (timeline draw %s)" % (
        tms("open_painted"), tms("open_draw").strip()))
    print("    middle third selected        %s   (range tree rebuilt %s)" % (
        tms("range_painted"), tms("range_rebuild").strip()))
    sp = tl.get("sp")
    if sp:
        print("  requests   %s of the page: %d contexts kept whole, %d lighter requests let "
              "go" % (mib(len(json.dumps(sp, separators=(",", ":")))), len(sp["ids"]),
                      sp.get("let_go", 0)))
        print("    one request alone (span=)    %s   (request selected and its tree %s)" % (
            tms("span_painted"), tms("span_select").strip()))


def page_total(path):
    with open(path, encoding="ascii") as f:
        s = f.read()
    a = s.index('id="fp-data">') + len('id="fp-data">')
    return json.loads(s[a:s.index("</script>", a)])["total"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--samples", type=count, default=10_000_000)
    ap.add_argument("--stacks", type=count, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--window", default="1400,900")
    ap.add_argument("--threads", action="store_true", help="also the per-thread page")
    ap.add_argument("--chromium")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--compare", help="another build whose flyprof converts the same log")
    ap.add_argument("--requests", type=int, help="requests of MS ms per thread (fplsynth -r)")
    ap.add_argument("--log-threads", type=int, default=32, help="the log's threads")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    cli = os.path.join(build, "bin", "flyprof")
    synth = os.path.join(build, "tests", "fplsynth")
    chromium = bw.find_chromium(a.chromium)
    if not chromium:
        raise SystemExit("html_bench: no chromium")
    tmp = tempfile.mkdtemp(prefix="html_bench-", dir=os.path.join(build, "tests"))
    b = bw.Browser(chromium, tmp)
    try:
        fpl = os.path.join(tmp, "big.fpl")
        out = subprocess.run([synth, "-o", fpl, "-n", str(a.samples), "-u", str(a.stacks),
                              "-t", str(a.log_threads)] +
                             (["-r", str(a.requests)] if a.requests else []),
                             check=True, stdout=subprocess.PIPE, text=True).stdout
        print(out.strip())
        empty = os.path.join(tmp, "empty.html")
        with open(empty, "w") as f:
            f.write("<!DOCTYPE html><title>empty</title>")
        walls = []
        for _ in range(a.runs):
            t0 = time.perf_counter()
            b.dump(empty, "", window=a.window, budget_ms=1000)
            walls.append((time.perf_counter() - t0) * 1000)
        empty_wall = statistics.median(walls)
        if a.compare:
            other = os.path.join(os.path.abspath(a.compare), "bin", "flyprof")
            for extra in ([], ["--threads"]) if a.threads else ([],):
                page = os.path.join(tmp, "other.html")
                s, rss = timed_rss([other, "convert", fpl, "-o", page] + extra)
                print("\n--compare %s %s: %s, convert %.2f s, max RSS %s%s" % (
                    other, " ".join(extra), mib(os.path.getsize(page)), s, mib(rss),
                    "" if timeline_contents(page) is None else " (with a timeline)"))
        page = os.path.join(tmp, "big.html")
        report("big.html", page, timed_rss([cli, "convert", fpl, "-o", page]), b, a.runs,
               a.window, empty_wall)
        if a.threads:
            page = os.path.join(tmp, "big-threads.html")
            report("big-threads.html (--threads)", page,
                   timed_rss([cli, "convert", fpl, "-o", page, "--threads"]), b, a.runs,
                   a.window, empty_wall, on_demand=False)
    finally:
        if a.keep:
            print("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
