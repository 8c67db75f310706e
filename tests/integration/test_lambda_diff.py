#!/usr/bin/env python3
"""lambda_diff: two runs of one program give the same frame names, and their diff shows no
change (LambdaSplit.java).

LambdaSplit's worker spends its CPU in three lambdas as 1:2:3, in long blocks, so each run's
shares are the same to about a point. The JVM names lambda classes with a counter and an
address that change from run to run; the two runs here move them on purpose (1 and then 6 other
lambda classes defined first). Asserts:
- no frame of either run's folded output carries a generated class's counter or address
  (`$$Lambda$<n>`, `/0x...` or `.0x...`), and the lambda frames of the two runs are the same
  set of names, led by `LambdaSplit$$Lambda.applyAsLong`;
- `flyprof diff` of the two runs, of the program's stacks (`--include LambdaSplit`; its page's
  embedded tree decoded) has every frame of NEW
  (>= 1%) matched in BASE, and no frame's share changes by more than 2 points, frames only in
  BASE included (with the share they lost);
- with --raw-names, when the raw lambda names of the runs differ (they do on JDK 17 and 25),
  the lambda frames do not merge: the raw diff shows a change above 20 points. That is what a
  user saw before names were normalized, and shows the check above can fail.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import html_data  # noqa: E402

SECONDS = 4
# the per-thread CPU timer fires once per kernel tick (4 ms at HZ=250), each sample weighing its
# overruns: about 1000 samples per run, so a share moves by well under a point between runs
AGENT = "cpu=1ms"
CLS = "dev.flyprof.workload.LambdaSplit"
RUN_ID = re.compile(r"\$\$Lambda\$[0-9]|[./]0x[0-9a-fA-F]")
MAX_PTS = 2.0


def folded(t, fpl, *opts):
    out = fpl[:-len(".fpl")] + "".join(o.strip("-") for o in opts) + ".collapsed"
    r = t.flyprof("convert " + os.path.basename(out), ["convert", fpl, "-o", out] + list(opts))
    t.check(r.returncode == 0, "flyprof convert %s: exit status %s", out, r.returncode)
    frames = {}
    with open(out, encoding="utf-8") as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            for fr in set(stack.split(";")):
                frames[fr] = frames.get(fr, 0) + int(count)
    return frames


def diff(t, base, new, name, *opts):
    """Runs flyprof diff and returns (largest change in points, its frame path, nodes)."""
    out = t.path(name + ".html")
    # the program's stacks only: the other threads of the process (flyprof's writer building
    # a library's unwind tables, JIT compilers) are sampled too and take 1-2% of the CPU in
    # one run and not the other
    r = t.flyprof("diff " + name, ["diff", base, new, "-o", out, "--include", "LambdaSplit"] +
                  list(opts))
    t.check(r.returncode == 0, "flyprof diff %s: exit status %s", name, r.returncode)
    data = html_data.load(out)
    nodes = html_data.tree(data)
    total, base_total = html_data.own(nodes[0]), data["base_total"]
    t.check(total > 0 and base_total > 0, "%s: empty diff (%d, %d)", name, total, base_total)
    t.check(total == data["total"], "%s: the root weighs %d, the page says %d", name, total,
            data["total"])
    worst, where = 0.0, ()
    for n in nodes:
        d = 100.0 * (html_data.own(n) / total - n.base / base_total)
        if abs(d) > abs(worst):
            worst, where = d, n.path
    return worst, where, nodes


def test(t):
    logs, lambdas = [], []
    for i, extra in enumerate((1, 6)):
        run, fpl = t.run_java("run%d" % i, "LambdaSplit", [extra, SECONDS], agent_options=AGENT)
        t.note("run %d: lambda class %s, shares A %s B %s C %s", i,
               run.results.get("lambda_class"), run.results.get("lambdaA_share"),
               run.results.get("lambdaB_share"), run.results.get("lambdaC_share"))
        frames = folded(t, fpl)
        bad = [f for f in frames if RUN_ID.search(f)]
        t.check(not bad, "run %d: frames keep a run-specific part: %s", i, bad[:5])
        # the lambdas the program runs (each a sixth of the time or more); a lambda's
        # constructor can be sampled once in a run and not in the other
        total = max(frames.values()) if frames else 0
        lambdas.append({f for f, w in frames.items()
                        if "$$Lambda" in f and f.startswith(CLS) and w >= total / 100})
        logs.append(fpl)
    t.check(lambdas[0] == lambdas[1], "the lambda frames differ between the runs: %s vs %s",
            sorted(lambdas[0]), sorted(lambdas[1]))
    t.check(CLS + "$$Lambda.applyAsLong" in lambdas[0], "no frame %s$$Lambda.applyAsLong: %s",
            CLS, sorted(lambdas[0]))

    worst, where, nodes = diff(t, logs[0], logs[1], "diff")
    t.note("diff: largest change %+.2f pts at %s", worst, " > ".join(where[-3:]))
    unmatched = [n.path for n in nodes if html_data.own(n) > 0 and n.base == 0 and
                 html_data.own(n) * 100 >= html_data.own(nodes[0])]
    t.check(not unmatched, "frames of NEW (>= 1%%) missing in BASE: %s", unmatched[:3])
    t.check(abs(worst) <= MAX_PTS, "the diff of two runs of one program changes %s by %+.2f "
            "points (at most %.1f expected)", " > ".join(where), worst, MAX_PTS)

    raw = [{f for f in folded(t, fpl, "--raw-names") if "$$Lambda" in f} for fpl in logs]
    if raw[0] != raw[1]:
        rworst, rwhere, _ = diff(t, logs[0], logs[1], "rawdiff", "--raw-names")
        t.note("raw diff: largest change %+.2f pts at %s", rworst, " > ".join(rwhere[-3:]))
        t.check(abs(rworst) > 20, "--raw-names: the lambda frames of the two runs differ (%s vs "
                "%s) but the diff shows no large change (%+.2f)", sorted(raw[0])[:2],
                sorted(raw[1])[:2], rworst)
    else:
        t.note("the raw lambda names of the two runs are the same on this JDK")


if __name__ == "__main__":
    ft.main(test, "two runs of a lambda program give the same names and an empty diff")
