"""flyprof_test: what the integration tests share.

An integration test runs a workload from flyprof.jar in a real JVM under the agent
(-agentpath:<lib>=cpu=10ms,file=<tmp>/<name>.fpl), converts the log with
`flyprof convert --threads`, parses the folded stacks and asserts properties of the profile
against the truth the workload measured itself (its `result key=value` lines).

Each test file calls `main(test)`; `test(t)` gets a `Test` and uses `t.run_java`,
`t.convert`, `t.check`, `t.note`. A failed check stops the test, prints every command that ran
with its exit status and stderr, the `flyprof summary` and the heaviest folded lines of every log
produced, and keeps the temporary directory. Run one test by hand:

    python3 tests/integration/test_split123.py --build BUILD --java /usr/lib/jvm/X/bin/java

Folded format (the collector's contract): one line per distinct stack,
`root;...;leaf COUNT`, the last space separating the count, which is the sum of sample weights
(one weight = one sampling interval of CPU). With --threads the root frame is the thread's
name.
Frames are `package.Class.method`; a frame starting with `[` is a marker (e.g.
`[agct:unknown_Java]`, a sample whose stack could not be walked).
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

INTERVAL_NS = 10_000_000
AGENT_OPTIONS = "cpu=10ms"
WORKLOAD_PKG = "dev.flyprof.workload."


SKIP = 77  # ctest SKIP_RETURN_CODE


def skip(name, why):
    """Ends a test that cannot run here (a tool it needs is missing): exit 77, which ctest
    reports as skipped. Under CI=true nothing may be missing, so it is a failure (exit 1):
    a CI run where every such test skips must not look green."""
    if os.environ.get("CI") == "true":
        print("FAIL %s: %s (CI=true: a missing tool is a failure, not a skip)" % (name, why),
              flush=True)
        sys.exit(1)
    print("SKIP %s: %s" % (name, why), flush=True)
    sys.exit(SKIP)


class TestFailure(Exception):
    """A check failed: the message says what was expected and what was seen."""


def method_of(frame):
    """The `package.Class.method` part of a folded frame, without annotations such as a line
    number (`:12`), a signature (`(I)J`), or a frame-type suffix (`_[j]`)."""
    m = re.match(r"[^\s(:]+", frame)
    name = m.group(0) if m else frame
    name = re.sub(r"_\[[A-Za-z0-9]+\]$", "", name)
    return name.replace("/", ".")


def is_marker(frame):
    return frame.startswith("[")


def thread_name(root):
    """The thread name in a --threads root frame: the collector writes the name itself."""
    return root


class Profile:
    """Folded stacks: a list of (frames, weight), frames root first."""

    def __init__(self, samples, threads):
        self.samples = samples
        self.threads_rooted = threads

    @classmethod
    def parse(cls, text, threads=True):
        samples = []
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            stack, sep, count = line.rpartition(" ")
            if not sep or not count.isdigit() or not stack:
                raise TestFailure("folded line %d is not `stack count`: %r" % (n, line[:200]))
            samples.append((tuple(stack.split(";")), int(count)))
        return cls(samples, threads)

    def total(self):
        return sum(w for _, w in self.samples)

    def weight(self, pred):
        """Sum of the weights of the stacks for which pred(frames) holds."""
        return sum(w for f, w in self.samples if pred(f))

    def thread_weights(self):
        """{thread name: weight}; needs a --threads profile."""
        out = {}
        for f, w in self.samples:
            name = thread_name(f[0])
            out[name] = out.get(name, 0) + w
        return out

    def thread(self, name):
        """The samples of one thread, its root frame removed (a plain profile)."""
        assert self.threads_rooted
        return Profile([(f[1:], w) for f, w in self.samples if thread_name(f[0]) == name],
                       False)

    def frames(self, f):
        """The frames of a stack below the thread root."""
        return f[1:] if self.threads_rooted else f

    def is_marker_sample(self, f):
        """A failed sample: no frames, or a leaf frame that is a marker."""
        fr = self.frames(f)
        return not fr or is_marker(fr[-1])

    def marker_weights(self):
        out = {}
        for f, w in self.samples:
            if self.is_marker_sample(f):
                fr = self.frames(f)
                key = fr[-1] if fr else "(no frames)"
                out[key] = out.get(key, 0) + w
        return out

    def has(self, f, method):
        """Whether the stack holds a frame of method (full `package.Class.method`)."""
        return any(method_of(x) == method for x in self.frames(f))

    def top(self, n=25):
        rows = sorted(self.samples, key=lambda s: -s[1])[:n]
        return ["%7d  %s" % (w, ";".join(f)) for f, w in rows]


class Run:
    """One process run: command, exit status, output, parsed result lines."""

    def __init__(self, name, cmd, proc, seconds, timed_out):
        self.name = name
        self.cmd = cmd
        self.returncode = proc.returncode if proc else None
        self.stdout = proc.stdout if proc else ""
        self.stderr = proc.stderr if proc else ""
        self.seconds = seconds
        self.timed_out = timed_out
        self.results = {}
        for line in self.stdout.splitlines():
            if line.startswith("result "):
                for kv in line.split()[1:]:
                    k, _, v = kv.partition("=")
                    self.results[k] = v

    def num(self, key):
        if key not in self.results:
            raise TestFailure("%s: no `%s` in its result line" % (self.name, key))
        return float(self.results[key])


class Test:
    """The context of one test: paths, temp dir, what ran, checks."""

    def __init__(self, args, name):
        self.args = args
        self.name = name
        self.java = args.java
        self.agent = args.agent
        self.cli = args.cli
        self.jar = args.jar
        self.runs = []
        self.logs = []          # .fpl files produced, for the failure report
        self.profiles = {}      # fpl path -> Profile
        self.notes = []
        base = args.tmp or os.path.join(args.build, "tests", "integration")
        os.makedirs(base, exist_ok=True)
        jdk = os.path.basename(os.path.dirname(os.path.dirname(os.path.realpath(self.java))))
        self.tmp = tempfile.mkdtemp(prefix="%s-%s-" % (name, jdk), dir=base)

    def path(self, leaf):
        return os.path.join(self.tmp, leaf)

    def note(self, fmt, *a):
        msg = fmt % a if a else fmt
        self.notes.append(msg)
        print("  " + msg, flush=True)

    def check(self, cond, fmt, *a):
        if not cond:
            raise TestFailure(fmt % a if a else fmt)

    def close_to(self, seen, want, tol, what):
        """Checks |seen - want| <= tol, noting both either way."""
        ok = abs(seen - want) <= tol
        self.note("%s: %.4f, want %.4f +- %.4f%s", what, seen, want, tol,
                  "" if ok else "  <-- FAIL")
        self.check(ok, "%s is %.4f, want %.4f +- %.4f", what, seen, want, tol)

    def run(self, name, cmd, timeout, env=None):
        """Runs cmd, capturing output; never raises on a non-zero exit. env: variables added
        to this process's environment."""
        t0 = time.monotonic()
        proc, timed_out = None, False
        full_env = dict(os.environ, **env) if env else None
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  stdin=subprocess.DEVNULL, text=True, errors="replace",
                                  timeout=timeout, cwd=self.tmp, env=full_env)
        except subprocess.TimeoutExpired as e:
            timed_out = True
            proc = subprocess.CompletedProcess(cmd, None, _text(e.stdout), _text(e.stderr))
        r = Run(name, cmd, proc, time.monotonic() - t0, timed_out)
        self.runs.append(r)
        return r

    def run_java(self, name, workload, args=(), agent_options=AGENT_OPTIONS, jvm_options=(),
                 timeout=180, env=None):
        """Runs a workload under the agent, writing <tmp>/<name>.fpl. Checks that the JVM
        exited 0 without a crash, printed its result line and left a non-empty log. env:
        variables added to the JVM's environment. Returns (Run, log path)."""
        fpl = self.path(name + ".fpl")
        cls = workload if "." in workload else WORKLOAD_PKG + workload
        cmd = [self.java, "-agentpath:%s=%s,file=%s" % (self.agent, agent_options, fpl)]
        cmd += list(jvm_options) + ["-cp", self.jar, cls] + [str(a) for a in args]
        self.logs.append(fpl)
        r = self.run(name, cmd, timeout, env=env)
        self.check_jvm(r)
        self.check(os.path.isfile(fpl) and os.path.getsize(fpl) > 0,
                   "%s: the JVM exited but wrote no log at %s", name, fpl)
        return r, fpl

    def check_jvm(self, r):
        self.check(not r.timed_out, "%s: timed out after %.0f s", r.name, r.seconds)
        crash = re.search(r"A fatal error has been detected|hs_err_pid|SIGSEGV", r.stderr)
        self.check(not crash, "%s: the JVM crashed (see its stderr)", r.name)
        self.check(r.returncode == 0, "%s: exit status %s", r.name, r.returncode)
        self.check(r.results, "%s: printed no `result` line", r.name)

    def flyprof(self, name, args, timeout=120):
        return self.run(name, [self.cli] + list(args), timeout)

    def convert(self, fpl, threads=True):
        """`flyprof convert fpl -o <fpl>.collapsed [--threads]`, parsed."""
        out = re.sub(r"\.fpl$", "", fpl) + (".threads" if threads else "") + ".collapsed"
        cmd = ["convert", fpl, "-o", out] + (["--threads"] if threads else [])
        r = self.flyprof("convert " + os.path.basename(fpl), cmd)
        self.check(not r.timed_out and r.returncode == 0,
                   "flyprof convert %s: exit status %s", fpl, r.returncode)
        self.check(os.path.isfile(out), "flyprof convert wrote no %s", out)
        with open(out, encoding="utf-8", errors="replace") as f:
            p = Profile.parse(f.read(), threads)
        self.check(p.total() > 0, "%s: empty profile", out)
        if threads:
            self.profiles[fpl] = p
        return p

    def thread_profile(self, p, name, min_weight=1):
        """The samples of thread `name`; fails, listing the threads seen, when it has fewer
        than min_weight."""
        sub = p.thread(name)
        self.check(sub.total() >= min_weight,
                   "thread %r has weight %d (want >= %d); threads seen: %s", name,
                   sub.total(), min_weight, _fmt_threads(p))
        return sub

    def report_failure(self, what):
        print("\nFAIL %s: %s\n" % (self.name, what))
        for r in self.runs:
            print("$ " + " ".join(shlex.quote(c) for c in r.cmd))
            print("  exit %s%s, %.1f s" % (r.returncode, " (timed out)" if r.timed_out else "",
                                          r.seconds))
            for line in r.stdout.splitlines():
                if line.startswith("result "):
                    print("  " + line)
            err = r.stderr.strip().splitlines()
            if err:
                print("  stderr (last %d lines):" % min(len(err), 30))
                for line in err[-30:]:
                    print("    " + line)
        for fpl in self.logs:
            if not os.path.isfile(fpl):
                continue
            print("\n== flyprof summary %s" % fpl)
            try:
                s = subprocess.run([self.cli, "summary", fpl], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, errors="replace",
                                   timeout=60)
                print(s.stdout.rstrip() or "(no output)")
                if s.returncode:
                    print("(exit status %d)" % s.returncode)
            except (OSError, subprocess.SubprocessError) as e:
                print("(summary failed: %s)" % e)
            p = self.profiles.get(fpl)
            if p:
                print("\n== threads: %s" % _fmt_threads(p))
                print("== markers: %s" % (p.marker_weights() or "none"))
                print("== heaviest folded stacks (of %d, total weight %d):"
                      % (len(p.samples), p.total()))
                for line in p.top():
                    print(line[:400])
        print("\nkept %s" % self.tmp, flush=True)


def _text(b):
    if b is None:
        return ""
    return b.decode(errors="replace") if isinstance(b, bytes) else b


def _fmt_threads(p):
    tw = sorted(p.thread_weights().items(), key=lambda kv: -kv[1])
    return ", ".join("%r=%d" % kv for kv in tw[:20])


def main(test, description):
    """Parses the command line, runs test(t) and exits 0 (pass) or 1 (fail)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--build", required=True, help="the build directory")
    ap.add_argument("--java", required=True, help="the java launcher of the JDK under test")
    ap.add_argument("--agent", help="libflyprof.so (default BUILD/lib/libflyprof.so)")
    ap.add_argument("--cli", help="the flyprof CLI (default BUILD/bin/flyprof)")
    ap.add_argument("--jar", help="flyprof.jar (default BUILD/lib/flyprof.jar)")
    ap.add_argument("--tmp", help="where temp dirs go (default BUILD/tests/integration)")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir on success too")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    args.agent = os.path.abspath(args.agent or os.path.join(args.build, "lib", "libflyprof.so"))
    args.cli = os.path.abspath(args.cli or os.path.join(args.build, "bin", "flyprof"))
    args.jar = os.path.abspath(args.jar or os.path.join(args.build, "lib", "flyprof.jar"))
    name = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    name = name[len("test_"):] if name.startswith("test_") else name
    missing = [p for p in (args.java, args.agent, args.cli, args.jar) if not os.path.isfile(p)]
    if missing:
        print("FAIL %s: missing %s (build the whole tree first)" % (name, ", ".join(missing)))
        sys.exit(1)
    t = Test(args, name)
    print("%s: %s, java %s" % (name, description, args.java), flush=True)
    try:
        test(t)
    except TestFailure as e:
        t.report_failure(str(e))
        sys.exit(1)
    except Exception as e:  # a bug in the test or an unexpected output: explain and keep files
        t.report_failure("%s: %s" % (type(e).__name__, e))
        raise
    print("PASS %s" % name, flush=True)
    if not args.keep:
        shutil.rmtree(t.tmp, ignore_errors=True)
