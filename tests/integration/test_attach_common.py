"""test_attach_common: what the attach tests share (not a test itself).

The attach tests start a workload JVM *without* the agent (`Jvm`), wait until its worker
thread runs, and drive `flyprof attach|start|stop|dump|status|list` against it by pid. They
build on flyprof_test (the Test context, checks, convert, failure report); `main(body, what)`
runs a test body and always kills the JVMs it started, pass or fail, and folds each JVM's output
into the failure report.

Run one by hand:

    python3 tests/integration/test_attach.py --build BUILD --java /usr/lib/jvm/X/bin/java
"""

import os
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402

TestFailure = ft.TestFailure
_jvms = []


def java_major(java):
    """The JDK's major version from its release file (8 for 1.8), 0 when unknown."""
    home = os.path.dirname(os.path.dirname(os.path.realpath(java)))
    try:
        with open(os.path.join(home, "release")) as f:
            m = re.search(r'^JAVA_VERSION="(?:1\.)?(\d+)', f.read(), re.M)
            return int(m.group(1)) if m else 0
    except OSError:
        return 0


def _read(path, default=""):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


class Jvm:
    """A workload JVM started without the agent, in the background."""

    def __init__(self, t, name, workload, args=(), jvm_options=(), user=None, group=None,
                 cwd=None, env=None, jar=None, ready_thread="split-worker"):
        self.t = t
        self.name = name
        cls = workload if "." in workload else ft.WORKLOAD_PKG + workload
        cmd = [t.java] + list(jvm_options) + ["-cp", jar or t.jar, cls] + [str(a) for a in args]
        if user:
            # setpriv execs the JVM: the pid we hold is the JVM's
            cmd = ["setpriv", "--reuid=" + user, "--regid=" + (group or user),
                   "--clear-groups"] + cmd
        self.cmd = cmd
        self.out_path = t.path(name + ".jvm.out")
        self.err_path = t.path(name + ".jvm.err")
        self.t0 = time.monotonic()
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(cmd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                         cwd=cwd or t.tmp, env=env)
        self.pid = self.proc.pid
        self.reported = False
        _jvms.append(self)
        if ready_thread:
            self.wait_ready(ready_thread)

    def wait_ready(self, thread, timeout=90):
        """Waits until the JVM runs a thread named `thread` (the workload is under way, the
        JVM's signal handlers are installed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise TestFailure("%s: the JVM exited (status %s) before its %r thread ran; its "
                                  "stderr: %s" % (self.name, self.proc.returncode, thread,
                                                  self.stderr()[-2000:]))
            if thread in self.thread_names():
                return
            time.sleep(0.05)
        raise TestFailure("%s: no %r thread after %d s" % (self.name, thread, timeout))

    def thread_names(self):
        names = []
        try:
            for tid in os.listdir("/proc/%d/task" % self.pid):
                names.append(_read("/proc/%d/task/%s/comm" % (self.pid, tid)).strip())
        except OSError:
            pass
        return names

    def alive(self):
        return self.proc.poll() is None

    def threads(self):
        return len(os.listdir("/proc/%d/task" % self.pid))

    def fds(self):
        return len(os.listdir("/proc/%d/fd" % self.pid))

    def fd_targets(self):
        """What the JVM's fds link to (files, sockets, pipes, anon inodes), sorted."""
        d = "/proc/%d/fd" % self.pid
        out = []
        for fd in os.listdir(d):
            try:
                out.append(os.readlink(os.path.join(d, fd)))
            except OSError:
                pass  # closed meanwhile
        return sorted(out)

    def fds_to(self, target):
        """How many of the JVM's fds link to target, e.g. 'anon_inode:[perf_event]'."""
        n = 0
        d = "/proc/%d/fd" % self.pid
        for fd in os.listdir(d):
            try:
                n += os.readlink(os.path.join(d, fd)) == target
            except OSError:
                pass  # closed meanwhile
        return n

    def rss_kb(self):
        m = re.search(r"^VmRSS:\s+(\d+)", _read("/proc/%d/status" % self.pid), re.M)
        return int(m.group(1)) if m else 0

    def thread_cpu_ticks(self, name):
        """CPU time (utime + stime, in clock ticks) of the first thread named name, 0 when
        there is none."""
        try:
            for tid in os.listdir("/proc/%d/task" % self.pid):
                if _read("/proc/%d/task/%s/comm" % (self.pid, tid)).strip() != name:
                    continue
                fields = _read("/proc/%d/task/%s/stat" % (self.pid, tid)).rsplit(")", 1)
                if len(fields) == 2:
                    f = fields[1].split()
                    return int(f[11]) + int(f[12])
        except OSError:
            pass
        return 0

    def timers(self):
        """POSIX timers of the process (/proc/PID/timers), or None when the kernel lacks it."""
        text = _read("/proc/%d/timers" % self.pid, None)
        return None if text is None else len(re.findall(r"^ID:", text, re.M))

    def stdout(self):
        return _read(self.out_path)

    def stderr(self):
        return _read(self.err_path)

    def stop(self):
        """Ends the JVM (SIGTERM, then SIGKILL), checks that it did not crash, and adds its
        output to the failure report. Returns its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._report()
        crash = re.search(r"A fatal error has been detected|hs_err_pid|SIGSEGV",
                          self.stdout() + self.stderr())
        self.t.check(not crash, "%s: the JVM crashed (see its output)", self.name)
        return self.proc.returncode

    def _report(self):
        if self.reported:
            return
        self.reported = True
        if self.proc.poll() is not None:
            # a JVM that was killed leaves its attach socket behind
            try:
                os.unlink("/tmp/.java_pid%d" % self.pid)
            except OSError:
                pass
        proc = subprocess.CompletedProcess(self.cmd, self.proc.returncode,
                                           self.stdout()[-3000:], self.stderr())
        self.t.runs.append(ft.Run("jvm " + self.name, self.cmd, proc,
                                  time.monotonic() - self.t0, False))


def flyprof(t, name, args, timeout=60, user=None, cli=None):
    """Runs the CLI (as `user` through setpriv when given); a hang fails the test."""
    cmd = [cli or t.cli] + [str(a) for a in args]
    if user:
        cmd = ["setpriv", "--reuid=" + user, "--regid=" + user, "--clear-groups"] + cmd
    r = t.run(name, cmd, timeout)
    t.check(not r.timed_out, "%s: flyprof did not finish in %d s", name, timeout)
    return r


def expect(t, r, code, *needles):
    """Checks the exit status and that stderr (or stdout) holds every needle."""
    text = r.stderr + r.stdout
    t.check(r.returncode == code, "%s: exit status %s, want %s; it said: %s", r.name,
            r.returncode, code, text.strip()[-1500:])
    for n in needles:
        t.check(n in text, "%s: the output does not say %r; it said: %s", r.name, n,
                text.strip()[-1500:])


def status(t, jvm, name="status"):
    """`flyprof status PID`'s output (checked to exit 0)."""
    r = flyprof(t, name, ["status", jvm.pid])
    expect(t, r, 0)
    return r.stdout


def log_problem(path):
    """Why the log at path is not a complete, intact flyprof log (no END record, a damaged or
    cut-off chunk), or None when it is one. Read with the tests' own reader (test_wall_fpl),
    which follows FORMAT.md alone and raises on any damage."""
    import test_wall_fpl as wf
    try:
        log = wf.read_fpl(path)
    except (OSError, wf.FplError) as e:
        return str(e)
    if log.end_ticks is None:
        return "no END record: the log was cut off"
    return None


def check_complete(t, fpl, what):
    """Checks that fpl is complete and intact, both by the tests' reader and by `flyprof
    summary` (whose report is on its stdout). The first call also checks that the check can
    fail: a copy of the log cut in the middle must be reported as cut off by both."""
    if not getattr(t, "_complete_checked", False):
        t._complete_checked = True
        cut = t.path("cut-copy.fpl")
        with open(fpl, "rb") as f:
            data = f.read()
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2])
        t.check(log_problem(cut) is not None, "the completeness check passes a log cut in half")
        s = flyprof(t, "summary of a cut copy", ["summary", cut])
        t.check("cut off" in s.stdout, "flyprof summary does not report a log cut in half as "
                "cut off: %s", s.stdout[-600:])
    why = log_problem(fpl)
    t.check(why is None, "%s: the log is not complete: %s", what, why)
    s = flyprof(t, "summary " + os.path.basename(fpl), ["summary", fpl])
    expect(t, s, 0)
    bad = [line.strip() for line in s.stdout.splitlines() if "cut off" in line or "damaged" in
           line]
    t.check(not bad, "%s: flyprof summary says the log is incomplete: %s", what, bad)
    return s


def stop_all():
    for j in _jvms:
        if j.alive():
            try:
                j.proc.kill()
                j.proc.wait(timeout=30)
            except (OSError, subprocess.SubprocessError):
                pass
        j._report()


def main(body, what):
    def test(t):
        try:
            body(t)
        finally:
            stop_all()
    ft.main(test, what)
