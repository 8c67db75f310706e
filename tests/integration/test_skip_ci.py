#!/usr/bin/env python3
"""skip_ci: a test that cannot run here (a tool is missing) exits 77, which ctest reports as
skipped, except under CI=true, where it must fail: a CI machine without go or chromium would
otherwise pass every test that needs them. Checks both harnesses' skip() (flyprof_test for the
integration tests, browser for the browser tests) in child processes, with and without
CI=true, and that no test exits 77 by hand (every skip goes through skip()).

No JVM; run it as `python3 tests/integration/test_skip_ci.py`.
"""
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)


def exit_code(module_dir, module, ci):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    code = "import sys; sys.path.insert(0, %r); import %s as m; m.skip('probe', 'no tool')" % (
        module_dir, module)
    p = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout.strip()


def main():
    failures = []
    for d, mod in ((HERE, "flyprof_test"), (os.path.join(TESTS, "browser"), "browser")):
        for ci, want in ((None, 77), ("false", 77), ("true", 1)):
            code, out = exit_code(d, mod, ci)
            ok = code == want
            print("  %s %s.skip with CI=%s: exit %d (%s)" % ("ok  " if ok else "FAIL", mod, ci,
                                                           code, out))
            if not ok:
                failures.append("%s.skip under CI=%s exits %d, want %d" % (mod, ci, code, want))
    # every skip goes through skip(): a bare exit 77 would skip under CI too
    bare = re.compile(r"sys\.exit\(\s*(77|[A-Za-z_.]*SKIP)\s*\)")
    harnesses = {os.path.join(HERE, "flyprof_test.py"), os.path.join(TESTS, "browser",
                                                                      "browser.py")}
    for path in sorted(glob.glob(os.path.join(TESTS, "*", "*.py"))):
        if path in harnesses:
            continue
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if bare.search(line):
                    failures.append("%s:%d exits 77 without skip(): %s" % (
                        os.path.relpath(path, TESTS), n, line.strip()))
    for f in failures:
        print("FAIL skip_ci: " + f)
    if failures:
        sys.exit(1)
    print("PASS skip_ci")


if __name__ == "__main__":
    main()
