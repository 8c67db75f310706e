#!/usr/bin/env python3
"""torture: a minute of everything at once on a real JVM, and nothing left behind.

Torture (java/src/dev/flyprof/workload/Torture.java) runs, under cpu=1ms,wall=1ms:
- thread churn, ~1000 short-lived threads a second;
- class-unloading churn (copies of UnloadHot in throwaway loaders, System.gc() every 5);
- a thread in native code with every signal blocked (tests/jni/torture_blocker.c), RUNNABLE
  to the JVM, so the wall sampler keeps choosing it;
- profiling sessions stopped and started through the Java API every 3 s (Flyprof.start/stop).

The test reads /proc/PID at two points where profiling is stopped: the baseline (after the
agent's first session, before the torture) and the end (the churns over and joined, the
blocker still blocked with whatever signals are pending on it). Required at the end against
the baseline: the same number of POSIX timers (/proc/PID/timers), at most 2 more fds, RSS
at most 150 MB more (the Java heap is fixed and pre-touched: -Xms=-Xmx=256m), at most 16 more
queued signals (SigQ; the JVM runs as user nobody, so the count is its own), at most 8 more
threads. The JVM exits 0 without a crash; the workload churned (>= 20% of the nominal
threads, >= 10 classes unloaded), every Java API call succeeded, and every session's log is
complete with CPU and wall samples.

Labelled `torture` (ctest -LE torture leaves it out of quick runs; scripts/test and CI run
it). Needs root to run the JVM as nobody (else it runs as the current user and SigQ counts
every process of that user: noted, not checked).
"""
import os
import pwd
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import flyprof_test as ft  # noqa: E402
import test_attach_common as ac  # noqa: E402
import test_wall_fpl as wf  # noqa: E402

SECONDS = 60
RATE = 1000
CYCLE_MS = 3000
OPTIONS = "cpu=1ms,wall=1ms"


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def snapshot(pid):
    status = read("/proc/%d/status" % pid)
    m = re.search(r"^SigQ:\s+(\d+)/", status, re.M)
    r = re.search(r"^VmRSS:\s+(\d+)", status, re.M)
    return {
        "timers": len(re.findall(r"^ID:", read("/proc/%d/timers" % pid), re.M)),
        "fds": len(os.listdir("/proc/%d/fd" % pid)),
        "rss_mb": int(r.group(1)) / 1024 if r else 0,
        "sigq": int(m.group(1)) if m else 0,
        "threads": len(os.listdir("/proc/%d/task" % pid)),
    }


class Lines:
    """The JVM's stdout, line by line, with a timeout."""

    def __init__(self, proc):
        self.proc = proc
        self.buf = b""
        self.lines = []

    def wait_for(self, prefix, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines:
                if line.startswith(prefix):
                    return line
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    return None
                self.buf += chunk
                *done, self.buf = self.buf.split(b"\n")
                self.lines += [x.decode(errors="replace") for x in done]
            elif self.proc.poll() is not None:
                return None
        return None


def body(t):
    build = t.args.build
    lib = os.path.join(build, "tests", "libflyprof_torture.so")
    t.check(os.path.isfile(lib), "no %s (build the whole tree)", lib)
    as_nobody = os.geteuid() == 0
    stage = tempfile.mkdtemp(prefix="flyprof-torture-", dir="/tmp")
    os.chmod(stage, 0o755)
    logs = os.path.join(stage, "logs")
    os.mkdir(logs)
    for src in (t.agent, t.jar, lib):
        shutil.copy(src, stage)
    agent = os.path.join(stage, os.path.basename(t.agent))
    jar = os.path.join(stage, os.path.basename(t.jar))
    jni = os.path.join(stage, os.path.basename(lib))
    cmd = [t.java, "-Xms256m", "-Xmx256m", "-XX:+AlwaysPreTouch",
           "-agentpath:%s=%s,file=%s/initial.fpl" % (agent, OPTIONS, logs),
           "-cp", jar, "dev.flyprof.workload.Torture", str(SECONDS), str(RATE), str(CYCLE_MS),
           jni, logs, OPTIONS]
    if as_nobody:
        nobody = pwd.getpwnam("nobody")
        os.chown(logs, nobody.pw_uid, nobody.pw_gid)
        cmd = ["setpriv", "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid,
               "--clear-groups"] + cmd
    else:
        t.note("not root: the JVM runs as this user; SigQ counts all of its processes")
    err_path = t.path("torture.err")
    t0 = time.monotonic()
    with open(err_path, "w") as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                cwd=stage)
    out = Lines(proc)
    try:
        t.check(out.wait_for("phase baseline", 120), "no `phase baseline` from the JVM")
        base = snapshot(proc.pid)
        t.note("baseline: %s", base)
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
        end_line = out.wait_for("phase end", SECONDS + 180)
        t.check(end_line, "no `phase end` from the JVM")
        end = snapshot(proc.pid)
        t.note("end (%s): %s", end_line, end)
        proc.stdin.write(b"done\n")
        proc.stdin.flush()
        proc.stdin.close()
        out.wait_for("result ", 120)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        stderr = read(err_path)
        done = subprocess.CompletedProcess(cmd, proc.returncode, "\n".join(out.lines), stderr)
        r = ft.Run("torture jvm", cmd, done, time.monotonic() - t0, False)
        t.runs.append(r)
    t.check(not re.search(r"A fatal error has been detected|hs_err_pid|SIGSEGV", r.stderr),
            "the JVM crashed")
    t.check(r.returncode == 0, "the JVM exited %s", r.returncode)
    for line in out.lines:
        if line.startswith("api error"):
            t.note("%s", line)
    t.note("result: %s", r.results)
    t.check(r.num("api_errors") == 0, "%d Java API calls failed", r.num("api_errors"))
    t.check(r.num("started") >= 0.2 * RATE * SECONDS, "only %d churn threads started",
            r.num("started"))
    t.check(r.num("unloaded") >= 10, "only %d classes unloaded", r.num("unloaded"))

    t.check(end["timers"] == base["timers"], "POSIX timers: %d at the end, %d at the baseline",
            end["timers"], base["timers"])
    t.check(end["fds"] <= base["fds"] + 2, "fds: %d at the end, %d at the baseline",
            end["fds"], base["fds"])
    t.check(end["rss_mb"] <= base["rss_mb"] + 150, "RSS: %.0f MB at the end, %.0f MB at the "
            "baseline", end["rss_mb"], base["rss_mb"])
    t.check(end["threads"] <= base["threads"] + 8, "threads: %d at the end, %d at the baseline",
            end["threads"], base["threads"])

    sessions = int(r.num("sessions"))
    t.check(sessions >= SECONDS * 1000 // CYCLE_MS - 2, "only %d sessions", sessions)
    for name in ["initial.fpl"] + ["cycle-%d.fpl" % i for i in range(sessions)]:
        fpl = os.path.join(logs, name)
        t.logs.append(fpl)
        why = ac.log_problem(fpl)
        t.check(why is None, "%s: %s", name, why)
        log = wf.read_fpl(fpl)
        kinds = {s.kind for s in log.samples}
        if name != "initial.fpl":
            t.check(wf.KIND_CPU in kinds and wf.KIND_WALL in kinds, "%s: sample kinds %s, want "
                    "cpu and wall", name, sorted(kinds))
    t.note("%d session logs complete, with CPU and wall samples", sessions)
    # last, so that a failure here says everything else held
    if as_nobody:
        t.check(end["sigq"] <= base["sigq"] + 16, "queued signals: %d at the end, %d at the "
                "baseline (signals pile up on the thread that blocks them)", end["sigq"],
                base["sigq"])
    shutil.rmtree(stage, ignore_errors=True)


if __name__ == "__main__":
    ft.main(body, "a minute of churn, unloading, blocked signals and API cycles; nothing left")
