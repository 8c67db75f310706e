#!/usr/bin/env python3
"""idle_methods: an agent that is not profiling creates no jmethodIDs, and a profile started
later still names the methods of classes loaded meanwhile.

HotSpot never frees a jmethodID. An agent that created them (GetClassMethods) for every
prepared class, whether profiling or not, grew the JVM's memory without bound under class-loader
churn while it idled. They are now made only while profiling: for every loaded class when a
session starts, and for each class prepared during it (agent/writer/methods.h).

IdleChurn (java/src/dev/flyprof/workload/IdleChurn.java) keeps a copy of UnloadHot (the keeper,
loaded and prepared at once) and defines copy after copy of UnloadHot in throwaway loaders
until a go file exists, then runs the keeper's UnloadHot.spin; it prints the agent's status
line (Flyprof.status(), whose `idclasses=` counts the classes given jmethodIDs) every 200
copies. Asserted:
- loaded idle (-agentpath:...=idle): `idclasses=0` after at least 400 copies were prepared;
- `flyprof attach -d 2` while the keeper runs: at least 80% of idle-churn's samples are in the
  keeper's UnloadHot frames, and no frame is `[unknown_method]` (a method without a jmethodID)
  or `[unloaded]` -- the keeper was loaded while the agent idled (or, attached, before it was
  loaded), so the session's start made its ids;
- after the session, churning again: `idclasses` does not move over 400 more copies;
- the same attached to a JVM started without the agent (the first attach used to make ids for
  every later class for the JVM's life).
"""
import os
import re
import time

import test_attach_common as ac

HOT = "dev.flyprof.workload.UnloadHot."


def churn_lines(jvm):
    """(copies, idclasses or None) of each `phase churn` line so far."""
    out = []
    for m in re.finditer(r"^phase churn copies=(\d+) status=(.*)$", jvm.stdout(), re.M):
        ids = re.search(r"\bidclasses=(\d+)", m.group(2))
        out.append((int(m.group(1)), int(ids.group(1)) if ids else None))
    return out


def wait_for(t, jvm, what, pred, timeout=90):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        t.check(jvm.alive(), "%s: the JVM exited: %s", jvm.name, jvm.stderr()[-1000:])
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    raise ac.TestFailure("%s: %s did not happen in %d s; its stdout: %s"
                         % (jvm.name, what, timeout, jvm.stdout()[-800:]))


def churn_after(t, jvm, copies):
    """Waits for a churn line of at least `copies` copies; returns (copies, idclasses)."""
    line = wait_for(t, jvm, "a churn line past %d copies" % copies,
                    lambda: next((c for c in churn_lines(jvm) if c[0] >= copies), None))
    return line


def profile_hot(t, jvm, go, name):
    """Runs the keeper under `flyprof attach -d 2` and checks the profile."""
    open(go, "w").close()
    wait_for(t, jvm, "phase hot", lambda: "phase hot" in jvm.stdout())
    fpl = t.path(name + ".fpl")
    t.logs.append(fpl)
    r = ac.flyprof(t, name + " attach", ["attach", jvm.pid, "-d", "2", "-i", "10ms", "-o", fpl])
    ac.expect(t, r, 0, "profile written to " + fpl)
    # the stop comes before the churn resumes: every churn line after this is an idle agent's
    last = churn_lines(jvm)[-1][0] if churn_lines(jvm) else 0
    os.unlink(go)
    p = t.convert(fpl)
    # ~200 samples on a quiet machine; 19 at load 15 (the churn got a tenth of a core): 10
    # are enough to say whether its frames are named
    w = t.thread_profile(p, "idle-churn", 10)
    keeper = w.weight(lambda f: any(ac.ft.method_of(x).startswith(HOT) for x in f))
    unknown = p.weight(lambda f: any(x in ("[unknown_method]", "[unloaded]") for x in p.frames(f)))
    t.note("%s: idle-churn %d samples, %d in the keeper's UnloadHot frames; [unknown_method] or "
           "[unloaded]: %d", name, w.total(), keeper, unknown)
    t.check(unknown == 0, "%s: %d weight on [unknown_method]/[unloaded] frames: methods of a "
            "class loaded before the session have no jmethodID", name, unknown)
    t.check(keeper >= 0.8 * w.total(), "%s: only %d of idle-churn's %d samples name the keeper's "
            "UnloadHot frames", name, keeper, w.total())
    return last


def idle_after(t, jvm, last, name):
    """After the session: idclasses does not move while 400 more copies are prepared."""
    c1 = churn_after(t, jvm, last + 200)
    c2 = churn_after(t, jvm, c1[0] + 400)
    t.note("%s: after the session, idclasses=%s at %d copies, %s at %d", name, c1[1], c1[0],
           c2[1], c2[0])
    t.check(c1[1] is not None and c1[1] == c2[1], "%s: the agent made jmethodIDs for %s classes "
            "while idle after the session (idclasses %s at %d copies, %s at %d)", name,
            None if c1[1] is None or c2[1] is None else c2[1] - c1[1], c1[1], c1[0], c2[1],
            c2[0])


def body(t):
    # loaded idle at startup
    go = t.path("go-agentpath")
    jvm = ac.Jvm(t, "agentpath", "IdleChurn", [go], ready_thread="idle-churn",
                 jvm_options=["-agentpath:%s=idle" % t.agent])
    copies, ids = churn_after(t, jvm, 400)
    t.note("agentpath: idle, idclasses=%s after %d copies", ids, copies)
    t.check(ids == 0, "agentpath: the idle agent made jmethodIDs for %s classes (%d copies "
            "prepared)", ids, copies)
    last = profile_hot(t, jvm, go, "agentpath")
    idle_after(t, jvm, last, "agentpath")
    t.check(jvm.alive(), "agentpath: the JVM died")
    jvm.stop()

    # attached to a JVM started without the agent
    go = t.path("go-attached")
    jvm = ac.Jvm(t, "attached", "IdleChurn", [go], ready_thread="idle-churn")
    churn_after(t, jvm, 400)
    last = profile_hot(t, jvm, go, "attached")
    idle_after(t, jvm, last, "attached")
    t.check(jvm.alive(), "attached: the JVM died")
    jvm.stop()


if __name__ == "__main__":
    ac.main(body, "an idle agent makes no jmethodIDs; later profiles name classes loaded idle")
