#!/usr/bin/env python3
"""render_budget: rendering at stop inside the JVM keeps to a memory budget.

The agent estimates what reading the log and rendering `file=*.html` (etc.) will take before
it does it, and when that is over its budget (256 MiB, or a quarter of the memory available)
it keeps the .fpl, skips the render and says why: once on the JVM's stderr, and in the reply
to whoever stopped it. FLYPROF_RENDER_BUDGET (bytes, in the JVM's environment) forces a tiny
budget here. Asserts, on Split123 under load:
- -agentpath with file=a.html: the JVM exits 0; its stderr says once that a.html was not
  rendered and why (an estimate in MiB over the budget), and where the log is; a.html does not
  exist; the log a.html.fpl is complete and `flyprof convert` turns it into the page. Without the variable the same run writes a.html
  and removes its log (the default budget fits a small profile).
- attached (`flyprof attach PID -d 2 -o b.html`): the CLI exits non-zero and prints the
  reason; b.html is not written, b.html.fpl is kept and converts; the JVM runs on.
- the Java API (ApiUse render): dump("dump.html") and stop() throw IllegalStateException
  saying why; the log is kept.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_attach_common as ac  # noqa: E402

REASON = "not rendered inside the JVM"
TINY = {"FLYPROF_RENDER_BUDGET": "1000"}


def run_agent(t, name, out, env):
    """Split123 under -agentpath with file=out; the environment extended with env."""
    cmd = [t.java, "-agentpath:%s=cpu=10ms,file=%s" % (t.agent, out), "-cp", t.jar,
           ft.WORKLOAD_PKG + "Split123", "2"]
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        r = t.run(name, cmd, 180)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    t.check_jvm(r)
    return r


def check_kept(t, out, hot="Split123.block"):
    """The log kept next to out converts into the page the agent did not write, with samples
    of the workload's hot method."""
    fpl = out + ".fpl"
    t.check(os.path.isfile(fpl) and os.path.getsize(fpl) > 0, "no log kept at %s", fpl)
    t.logs.append(fpl)
    page = t.path(os.path.basename(out) + ".converted.html")
    r = t.flyprof("convert kept", ["convert", fpl, "-o", page])
    t.check(r.returncode == 0 and os.path.getsize(page) > 0, "convert %s: %s", fpl, r.stderr)
    p = t.convert(fpl)
    t.check(p.weight(lambda f: any(ft.method_of(x).endswith(hot) for x in f)) > 0,
            "the kept log of %s has no %s samples", out, hot)


def agentpath(t):
    out = t.path("a.html")
    r = run_agent(t, "agentpath tiny budget", out, TINY)
    said = [line for line in r.stderr.splitlines() if REASON in line]
    t.check(len(said) == 1, "stderr says %d times why a.html was not rendered: %s", len(said),
            r.stderr[-2000:])
    m = re.search(r"it would take about (\d+) MiB, more than the 0 MiB", said[0])
    t.check(m, "the reason gives no estimate against the budget: %s", said[0])
    t.check("a.html.fpl" in said[0] and "flyprof convert" in said[0],
            "the reason does not say where the log is and how to convert it: %s", said[0])
    t.check(not os.path.exists(out), "a.html exists though it was not rendered")
    check_kept(t, out)
    t.note("-agentpath, tiny budget: %s", said[0].strip()[:160])

    out = t.path("a2.html")
    r = run_agent(t, "agentpath default budget", out, {})
    t.check(REASON not in r.stderr, "the default budget refused a small profile: %s", r.stderr)
    with open(out, encoding="ascii", errors="replace") as f:
        t.check('id="fp-data"' in f.read(), "a2.html is not a flame graph page")
    t.check(not os.path.exists(out + ".fpl"), "the log of a2.html stayed")
    t.note("-agentpath, default budget: a2.html written (%d bytes)", os.path.getsize(out))


def attached(t):
    jvm = ac.Jvm(t, "attach", "Split123", args=[60], env=dict(os.environ, **TINY))
    out = t.path("b.html")
    r = ac.flyprof(t, "attach tiny budget", ["attach", jvm.pid, "-d", "2", "-o", out])
    t.check(r.returncode != 0, "attach exited 0 though b.html was not written: %s", r.stderr)
    t.check(REASON in r.stderr + r.stdout, "attach does not say why: %s", r.stderr[-1500:])
    t.check(not os.path.exists(out), "b.html exists though it was not rendered")
    check_kept(t, out)
    t.check(jvm.alive(), "the JVM died")
    said = [line for line in jvm.stderr().splitlines() if REASON in line]
    t.check(len(said) == 1, "the JVM's stderr says it %d times", len(said))
    t.note("attach, tiny budget: %s", (r.stderr + r.stdout).strip().splitlines()[-1][:160])
    jvm.stop()


def java_api(t):
    first = t.path("first.fpl")
    cmd = [t.java, "-agentpath:%s=cpu=10ms,file=%s" % (t.agent, first), "-cp", t.jar,
           ft.WORKLOAD_PKG + "ApiUse", "render", t.tmp]
    os.environ.update(TINY)
    try:
        r = t.run("api tiny budget", cmd, 180)
    finally:
        os.environ.pop("FLYPROF_RENDER_BUDGET", None)
    t.check_jvm(r)
    steps = {}
    for line in r.stdout.splitlines():
        w = line.split(" ", 3)
        if len(w) >= 3 and w[0] == "api":
            steps[w[1]] = (w[2], w[3] if len(w) > 3 else "")
    t.check(steps.get("start_html", ("",))[0] == "ok", "start: %s", steps)
    for step, advice in (("dump_html", "dump to a .fpl file"), ("stop_html", "stopped, but")):
        outcome, rest = steps.get(step, ("missing", ""))
        t.check(outcome == "threw" and "IllegalStateException" in rest and REASON in rest
                and advice in rest, "%s: %s %s", step, outcome, rest)
    # the advice whole: the command to convert the log, to its end (it was cut at 120 chars)
    stop_rest = steps.get("stop_html", ("", ""))[1]
    t.check(re.search(r"convert the log with 'flyprof convert \S+\.fpl -o \S+api\.html'",
                      stop_rest) is not None, "stop's message lacks the whole command: %s",
            stop_rest)
    t.check(not os.path.exists(t.path("api.html")), "api.html exists")
    t.check(not os.path.exists(t.path("dump.html")), "dump.html exists")
    check_kept(t, t.path("api.html"), "ApiUse.burn")
    t.note("Java API: dump and stop threw: %s", steps["stop_html"][1][:160])


def body(t):
    agentpath(t)
    attached(t)
    java_api(t)


if __name__ == "__main__":
    ac.main(body, "rendering at stop keeps to a memory budget, keeps the log and says why")
