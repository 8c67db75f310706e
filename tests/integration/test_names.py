#!/usr/bin/env python3
"""names: every kind of frame name a real JVM produces survives into folded stacks that
flamegraph.pl (and any folded-stack tool) can parse (NameZoo.java).

The workload burns 0.4 s of CPU in each of: a nested class and method with non-ASCII names
(`NameZoo$Größe.计算`), a Cyrillic method name (`данные`), a method named outside the Basic
Multilingual Plane (`𝔡𝔞𝔱𝔞`, which the JVM reports as CESU-8 surrogate pairs), a lambda, an
anonymous class, an inner class and, on JDK 15+, a hidden class; all on a thread named
`работник-工作-ü;x`.

Asserts, on `flyprof convert` to .collapsed with and without --threads, and with --reverse:
- the output is valid UTF-8 and ends with a newline; every line matches `^(.+) ([0-9]+)$`
  with a positive count; its stack splits on ';' into frames none of which is empty or has
  leading/trailing white space (what flamegraph.pl's parser needs);
- each of the frames above is present, carrying at least 10 samples (the budget gives about
  40): the lambda's and the hidden class's frames without the counters and addresses that
  change from run to run (`NameZoo$$Lambda.applyAsLong`, `NameZoo$HiddenBody.applyAsLong`),
  and with --raw-names exactly as the JVM named the classes ('/' written as '.'); the thread
  root is `работник-工作-ü_x` (';' replaced);
- the .txt report is valid UTF-8 and names the non-ASCII frames; --include with a non-ASCII
  regex keeps only stacks holding that frame.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402

SECONDS = 0.4
MIN_WEIGHT = 10
PKG = "dev.flyprof.workload.NameZoo"
THREAD = "работник-工作-ü_x"
LINE = re.compile(r"^(.+) ([0-9]+)$")

# (what, frame pattern) that must each carry MIN_WEIGHT
SHAPES = [
    ("non-ASCII nested class and method", re.escape(PKG + "$Größe.计算")),
    ("Cyrillic method", re.escape(PKG + ".данные")),
    ("method outside the BMP", re.escape(PKG + ".𝔡𝔞𝔱𝔞")),
    ("lambda class", re.escape(PKG + "$$Lambda.applyAsLong")),
    ("lambda body", re.escape(PKG + ".lambda$runAll$") + r"[0-9]+"),
    ("anonymous class", re.escape(PKG + "$1.applyAsLong")),
    ("inner class", re.escape(PKG + "$Inner.work")),
]


def convert(t, fpl, out, *opts):
    """Runs flyprof convert and returns the output's bytes."""
    r = t.flyprof("convert %s %s" % (os.path.basename(out), " ".join(opts)),
                  ["convert", fpl, "-o", out] + list(opts))
    t.check(not r.timed_out and r.returncode == 0, "flyprof convert -o %s %s: exit status %s",
            out, " ".join(opts), r.returncode)
    with open(out, "rb") as f:
        return f.read()


def check_folded(t, data, what):
    """Checks the folded grammar on every line; returns [(frames, count)]."""
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        raise ft.TestFailure("%s is not valid UTF-8: %s near %r" %
                             (what, e, data[max(0, e.start - 40):e.end + 10]))
    t.check(text.endswith("\n"), "%s does not end with a newline", what)
    rows = []
    for n, line in enumerate(text.split("\n")[:-1], 1):
        m = LINE.match(line)
        t.check(m is not None, "%s line %d is not `stack count`: %r", what, n, line[:300])
        stack, count = m.group(1), int(m.group(2))
        t.check(count > 0, "%s line %d has count 0", what, n)
        frames = stack.split(";")
        for f in frames:
            t.check(f != "" and f == f.strip() and "\r" not in f and "\t" not in f,
                    "%s line %d has a bad frame %r: %r", what, n, f, line[:300])
        rows.append((frames, count))
    t.check(rows, "%s is empty", what)
    return rows


def weight_of(rows, pattern):
    rx = re.compile("^" + pattern + "$")
    return sum(c for frames, c in rows if any(rx.match(f) for f in frames))


def test(t):
    run, fpl = t.run_java("names", "NameZoo", [SECONDS])
    hidden = run.results.get("hidden")
    t.check(hidden in ("defined", "unsupported"), "no hidden= in the result line")
    shapes = list(SHAPES)
    base = fpl[:-len(".fpl")]
    if hidden == "defined":
        cls = run.results["hidden_class"]
        t.check("/0x" in cls, "hidden class name %r has no '/0x...' part", cls)
        shapes.append(("hidden class", re.escape(cls.split("/")[0] + ".applyAsLong")))
        raw = check_folded(t, convert(t, fpl, base + ".raw.collapsed", "--raw-names"),
                           "the --raw-names folded output")
        exact = re.escape(cls.replace("/", ".") + ".applyAsLong")
        t.check(weight_of(raw, exact) >= MIN_WEIGHT, "--raw-names: no frame %s", exact)
        t.check(weight_of(raw, re.escape(PKG + "$$Lambda") + r"[$.][$.0-9a-fx]+\.applyAsLong")
                >= MIN_WEIGHT, "--raw-names: the lambda's frame lost its counter or address")
    else:
        t.note("hidden classes not supported by this JDK: skipped")

    plain = check_folded(t, convert(t, fpl, base + ".collapsed"), "the folded output")
    threads = check_folded(t, convert(t, fpl, base + ".threads.collapsed", "--threads"),
                           "the --threads folded output")
    rev = check_folded(t, convert(t, fpl, base + ".rev.collapsed", "--reverse"),
                       "the --reverse folded output")
    t.profiles[fpl] = ft.Profile([(tuple(f), c) for f, c in threads], True)

    roots = {}
    for frames, c in threads:
        roots[frames[0]] = roots.get(frames[0], 0) + c
    t.note("thread roots: %s", ", ".join("%s=%d" % kv for kv in sorted(roots.items())))
    t.check(roots.get(THREAD, 0) >= MIN_WEIGHT * len(shapes),
            "thread %r has weight %d, want >= %d", THREAD, roots.get(THREAD, 0),
            MIN_WEIGHT * len(shapes))
    for what, pattern in shapes:
        w, wt, wr = weight_of(plain, pattern), weight_of(threads, pattern), weight_of(rev, pattern)
        t.note("%s: weight %d (threads %d, reverse %d)", what, w, wt, wr)
        t.check(w >= MIN_WEIGHT, "%s: no frame matching %s with weight >= %d (got %d)", what,
                pattern, MIN_WEIGHT, w)
        t.check(w == wt == wr, "%s: weights differ between outputs: %d, %d, %d", what, w, wt,
                wr)

    report = convert(t, fpl, base + ".txt")
    try:
        text = report.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        raise ft.TestFailure("the .txt report is not valid UTF-8: %s" % e)
    for name in ("$Größe.计算", ".данные", ".𝔡𝔞𝔱𝔞"):
        t.check(PKG + name in text, "the .txt report does not name %s", PKG + name)

    only = check_folded(t, convert(t, fpl, base + ".only.collapsed", "--include", "Größe"),
                        "the --include Größe output")
    t.check(all(any("Größe" in f for f in frames) for frames, _ in only),
            "--include Größe kept a stack without that frame")
    t.check(sum(c for _, c in only) == weight_of(plain, SHAPES[0][1]),
            "--include Größe kept weight %d, the frame has %d", sum(c for _, c in only),
            weight_of(plain, SHAPES[0][1]))


if __name__ == "__main__":
    ft.main(test, "frame names of every shape fold into valid flamegraph.pl input")
