#!/usr/bin/env python3
"""bad_option: an unknown option (`cpuu=1`) or a malformed value (`cpu=fast`) makes the JVM
refuse to start, with a message on stderr naming the offending text. A control run with valid
options must start, so that a refusal is not just a missing or broken library.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402


def test(t):
    ok = t.run("valid options", [t.java, "-agentpath:%s=cpu=10ms,file=%s"
                                 % (t.agent, t.path("ok.fpl")), "-version"], 60)
    t.check(ok.returncode == 0, "the JVM did not start with valid options (exit %s)",
            ok.returncode)
    for options, word in (("cpuu=1", "cpuu"), ("cpu=fast", "fast")):
        r = t.run(options, [t.java, "-agentpath:%s=%s" % (t.agent, options), "-version"], 60)
        err = r.stderr.replace(t.agent, "<agent>")
        t.note("%s: exit %s, stderr: %s", options, r.returncode,
               " | ".join(err.strip().splitlines()[:4]))
        t.check(not r.timed_out and r.returncode not in (0, None),
                "%s: the JVM started anyway (exit %s)", options, r.returncode)
        t.check(word in err, "%s: stderr does not name %r", options, word)


if __name__ == "__main__":
    ft.main(test, "bad agent options stop the JVM with a message naming them")
